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

describe('the site page and its menus by keyboard', () => {
  test('? opens the help from anywhere on the page: the header, the tour, the body', async () => {
    const { page, errors } = await open('/?seed=42&autoplay=0');
    const dialog = page.locator(`${EL} dialog.kp-dialog`);
    for (const where of ['.site-head h1', '.site-course [data-course-action="free-play"]']) {
      if (where.includes('free-play')) await page.locator(where).focus();
      else await page.locator(where).click();
      await page.keyboard.press('?');
      await dialog.waitFor({ state: 'visible', timeout: 3_000 });
      assert.match(await dialog.getAttribute('aria-label'), /How to read the playground/, where);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
    // typed into a field of the page, it is a question mark, not the help
    await page.evaluate(() => {
      const i = document.createElement('input');
      i.id = 'q';
      document.body.append(i);
      i.focus();
    });
    await page.keyboard.press('?');
    assert.equal(await page.locator('#q').inputValue(), '?');
    assert.equal(await dialog.count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a skip link, first on the page, reaches Free play past the playground', async () => {
    const { page, errors } = await open('/?scenario=figure-8&autoplay=0');
    await page.keyboard.press('Tab');
    const skip = await page.evaluate(() => ({ cls: document.activeElement.className, text: document.activeElement.textContent, top: document.activeElement.getBoundingClientRect().top }));
    assert.equal(skip.cls, 'site-skip');
    assert.match(skip.text, /Free play/);
    assert.ok(skip.top >= 0, 'in view once focused');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.courseAction), 'free-play');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('kraft-playground').getAttribute('scenario') === null && new URL(location.href).searchParams.has('voters'));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('focus stays in the node menu after its action (Crash becomes Restart), and Escape still closes it', async () => {
    const { page } = await open('/?seed=42&autoplay=0');
    await page.locator(`${EL} .kp-node-btn[data-node="1"]`).click();
    const menu = page.locator(`${EL} .kp-menu`);
    await menu.waitFor({ state: 'visible' });
    await menu.locator('[data-node-action="crash"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-node-btn[data-node="1"]').dataset.state === 'crashed');
    await menu.locator('[data-node-action="restart"]').waitFor();
    const inMenu = () => page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.activeElement?.closest('.kp-menu') != null);
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.activeElement?.dataset.nodeAction === 'restart', null, { timeout: 3_000 });
    assert.ok(await inMenu(), 'focus is in the menu, on the button that took the place of Crash');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    assert.equal((await focused(page))?.node, '1', 'Escape closed it and gave focus back to the node');
    await page.close();
  });

  test('the export menu: Escape closes it and focus goes back to its button', async () => {
    const { page } = await open('/?seed=42&autoplay=0');
    await page.locator(`${EL} [data-action="export"]`).click();
    const menu = page.locator(`${EL} .kp-export-menu`);
    await menu.waitFor({ state: 'visible' });
    await menu.locator('button').first().focus();
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    assert.equal((await focused(page))?.action, 'export');
    await page.close();
  });
});
