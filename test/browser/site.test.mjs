// The site's main page in Chromium: it loads and elects a leader, its dev server, its
// URL parameters, and the README's screenshots.
//   node --test test/browser/site.test.mjs      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, leaderOf, nodeAction, nowOf, pause, README_SHOTS, root, shotPath, summaryText, useSite, waitLeader, waitSummary } from './harness.mjs';

const site = useSite();
const open = site.open;

describe('the main page', () => {
  test('loads without console errors, elects a leader and shows it', async () => {
    const { page, errors } = await open('/?seed=42&speed=10');
    const l = await waitLeader(page);
    await waitSummary(page);
    const status = page.locator(`${EL} .kp-status`);
    await page.waitForFunction((id) => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-status').dataset.leader === String(id), l.id);
    assert.match(await status.textContent(), new RegExp(`Leader n${l.id} · epoch ${l.epoch}`));
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-summary] [data-leader]')?.dataset.leader !== '');
    assert.match(await summaryText(page, '[data-leader]'), /the leader is n\d+ in epoch \d+/);
    // the ring shows the leader's node as leader
    assert.equal(await page.locator(`${EL} .kp-node-btn[data-node="${(await leaderOf(page)).id}"]`).getAttribute('data-state'), 'leader');
    // step: paused, one click runs to the next moment something happens
    await pause(page);
    const t0 = await nowOf(page);
    await page.locator(`${EL} [data-action="step"]`).click();
    assert.ok((await nowOf(page)) > t0);
    // the help overlay opens with ? and closes with Escape
    await page.locator(`${EL} .kp-time`).click();
    await page.keyboard.press('?');
    const help = page.locator(`${EL} dialog.kp-dialog`);
    await help.waitFor({ state: 'visible' });
    assert.match(await help.textContent(), /Keyboard/);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the dev server answers 400, not 500, to a malformed %-escape', async () => {
    for (const path of ['%E0%A4%A', '%', 'a%zz/b']) {
      const res = await fetch(site.server.url + path);
      assert.equal(res.status, 400, path);
    }
    assert.equal((await fetch(site.server.url)).status, 200);
  });

  test('bad URL parameters show a clear message and fall back to defaults; nothing is injected', async () => {
    const dialogs = [];
    const evil = encodeURIComponent('<img src=x onerror="window.__pwned=1">');
    const { page, errors } = await open(`/?voters=50&observers=-1&seed=abc&scenario=${evil}&speed=999&bogus=1`);
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const notice = page.locator(`${EL} .kp-notice`);
    await notice.waitFor({ state: 'visible' });
    const text = await notice.textContent();
    assert.match(text, /voters="50" is not allowed: use a whole number from 1 to 7\. Using 3\./);
    assert.match(text, /observers="-1" is not allowed/);
    assert.match(text, /seed="abc" is not allowed/);
    assert.match(text, /speed="999" is not allowed/);
    assert.match(text, /There is no scenario "<img src=x onerror=/);
    assert.match(text, /"bogus" is unknown/);
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').cluster.voters), 3);
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('img').length + document.querySelectorAll('img:not([src="favicon.svg"])').length), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
    await page.close();

    const bad = await open('/?run=k1.bm90IGpzb24');
    await bad.page.locator(`${EL} .kp-notice`).waitFor({ state: 'visible' });
    assert.match(await bad.page.locator(`${EL} .kp-notice`).textContent(), /This link could not be loaded: malformed link/);
    await waitLeader(bad.page);
    assert.deepEqual(bad.errors, []);
    await bad.page.close();

    const old = await open('/?run=k9.e30');
    assert.match(await old.page.locator(`${EL} .kp-notice`).textContent(), /incompatible link/);
    await old.page.close();
  });

  test('the README shows exactly the screenshots the tests refresh (README_SHOTS), and each is in docs/', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const shown = [...readme.matchAll(/docs\/([\w-]+\.png)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(shown)].sort(), [...README_SHOTS].sort());
    for (const f of README_SHOTS) assert.ok(existsSync(join(root, 'docs', f)), `docs/${f} is missing`);
  });

  test('a screenshot of the main page for the README', async () => {
    const { page, errors } = await open('/?seed=42&speed=4', { viewport: { width: 1440, height: 1160 } });
    const l = await waitLeader(page);
    await page.locator(`${EL} select[aria-label="Client writes per second"]`).selectOption('5');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 7500);
    await nodeAction(page, l.id, 'crash');
    await page.waitForFunction((e) => (document.querySelector('kraft-playground').cluster.leader()?.epoch ?? 0) > e, l.epoch, { timeout: 20_000 });
    await page.waitForTimeout(500);
    await pause(page);
    // zoom out once so the crash, the silence and the election are all in view
    await page.locator(`${EL} .kp-zoom[aria-label="Zoom out"]`).click();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await page.screenshot({ path: shotPath('screenshot.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
