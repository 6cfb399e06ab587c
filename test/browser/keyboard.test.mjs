// The keyboard: keys act only on the focused element of a page with two, and Escape gives
// focus back to where it came from.
//   node --test test/browser/keyboard.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DOCS, EL, focused, useSite } from './harness.mjs';

const site = useSite();
const open = site.open;

async function openDocs() {
  const page = await site.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/docs-two.html', (r) => r.fulfill({ contentType: 'text/html', body: DOCS }));
  await page.goto(`${site.server.url}docs-two.html`);
  await page.waitForFunction(() => ['a', 'b'].every((id) => document.getElementById(id)?.cluster != null), null, { timeout: 30_000 });
  return { page, errors };
}

describe('keys on a page with two elements', () => {
  test('keys act only on the focused element; Space scrolls the page when focus is outside; ? opens one dialog', async () => {
    const { page, errors } = await openDocs();
    const playing = () => page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).hasAttribute('data-playing')));
    const nows = () => page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).cluster.now));
    // focus outside (the page's body): Space scrolls and starts nothing
    await page.mouse.click(5, 5);
    const y0 = await page.evaluate(() => scrollY);
    await page.keyboard.press(' ');
    await page.waitForTimeout(300);
    assert.deepEqual(await playing(), [false, false]);
    assert.ok((await page.evaluate(() => scrollY)) > y0, 'Space scrolled the page');
    const t0 = await nows();
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await nows(), t0, 'ArrowRight seeks no element while focus is outside');
    // focus inside the first element (a click on its timeline): keys act on it only
    await page.evaluate(() => scrollTo(0, 0));
    await page.locator('#a .kp-ring').click({ position: { x: 5, y: 5 } });
    const ta = await nows();
    await page.keyboard.press('ArrowRight');
    const t1 = await nows();
    assert.ok(t1[0] >= ta[0] + 1000, 'the focused element travelled');
    assert.equal(t1[1], ta[1], 'the other did not');
    await page.keyboard.press('?');
    await page.waitForTimeout(200);
    const dialogs = await page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).shadowRoot.querySelectorAll('dialog[open]').length));
    assert.deepEqual(dialogs, [1, 0]);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('focus after Escape', () => {
  test('Escape on the node menu returns focus to its node button', async () => {
    const { page } = await open('/?seed=42');
    await page.locator(`${EL} .kp-node-btn[data-node="1"]`).click();
    await page.locator(`${EL} .kp-menu`).waitFor({ state: 'visible' });
    assert.equal((await focused(page)).tag, 'BUTTON');
    await page.keyboard.press('Escape');
    await page.locator(`${EL} .kp-menu`).waitFor({ state: 'hidden' });
    const f = await focused(page);
    assert.equal(f?.node, '1', `focus is on ${JSON.stringify(f)}`);
    await page.close();
  });

  test('Escape on the help dialog returns focus to the Help button', async () => {
    const { page } = await open('/?seed=42');
    await page.locator(`${EL} [data-action="help"]`).click();
    await page.locator(`${EL} dialog.kp-dialog`).waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await page.locator(`${EL} dialog.kp-dialog`).waitFor({ state: 'detached' });
    const f = await focused(page);
    assert.equal(f?.action, 'help', `focus is on ${JSON.stringify(f)}`);
    await page.close();
  });
});
