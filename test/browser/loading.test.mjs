// While the wasm core loads, and when it cannot: the controls wait disabled and say so.
//   node --test test/browser/loading.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EL, holdBack, shotPath, useSite } from './harness.mjs';

const site = useSite();

describe('the loading window', () => {
  test('until the wasm core arrives the controls are disabled and say so; then a picked story loads', async () => {
    const page = await site.browser.context.newPage();
    const release = await holdBack(page, '**/kraft_playground_bg.wasm');
    // the embed: the main page picks stories from the tour panel, the embed from its picker
    await page.goto(`${site.server.url}embed.html?seed=5`);
    const picker = page.locator(`${EL} .kp-scenario`);
    await picker.waitFor({ state: 'attached' });
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('.kp-scenario option').length > 1);
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').cluster), null);
    assert.match(await page.locator(`${EL} .kp-status`).textContent(), /loading the simulation core/i);
    assert.equal(await picker.isDisabled(), true, 'the story picker waits for the core');
    const inert = await page.evaluate(() => {
      const s = document.querySelector('kraft-playground').shadowRoot;
      return ['.kp-controls', '.kp-settings', '.kp-ring', '.kp-faults'].map((q) => s.querySelector(q).inert);
    });
    assert.deepEqual(inert, [true, true, true, true]);
    await page.screenshot({ path: shotPath('loading-core.png') });
    release();
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    await page.evaluate(() => document.querySelector('kraft-playground').ready);
    assert.equal(await picker.isDisabled(), false);
    await picker.selectOption('first-election');
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]')?.textContent.length > 0);
    assert.equal(await picker.inputValue(), 'first-election');
    await page.close();
  });
});

describe('a core that cannot load', () => {
  test('the status says so and the controls stay disabled', async () => {
    const page = await site.browser.context.newPage();
    await page.route('**/kraft_playground_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await page.goto(`${site.server.url}?seed=5`);
    await page.waitForFunction(() => /not loaded/.test(document.querySelector('kraft-playground')?.shadowRoot?.querySelector('.kp-status')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.equal(await page.locator(`${EL} .kp-scenario`).isDisabled(), true);
    assert.match(await page.locator(`${EL} .kp-notice`).textContent(), /could not be loaded/);
    await page.close();
  });
});
