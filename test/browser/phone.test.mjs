// At phone width, by touch: a node's actions open and act, the layout fits the width, and
// the node menu stays inside the viewport.
//   node --test test/browser/phone.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EL, launch, leaderOf, openPage, shotPath, useSite } from './harness.mjs';

const site = useSite();

describe('phone width, touch', () => {
  test("taps open a node's actions and crash it; the layout fits the width", async () => {
    const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    try {
      const { page, errors } = await openPage(phone.context, `${site.server.url}?seed=42&speed=10`);
      await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster?.leader() != null, null, { timeout: 30_000 });
      const l = await leaderOf(page);
      await page.locator(`${EL} .kp-node-btn[data-node="${l.id}"]`).tap();
      await page.locator(`${EL} .kp-menu [data-node-action="crash"]`).tap();
      await page.waitForFunction((id) => document.querySelector('kraft-playground').cluster.nodes({ records: false })[id].state === 'crashed', l.id);
      // nothing sticks out sideways
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await page.screenshot({ path: shotPath('screenshot-phone.png') });
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await phone.close();
    }
  });
});

describe('phone', () => {
  test('the node menu stays inside the viewport at 390x844, whichever node', async () => {
    const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    try {
      const { page } = await openPage(phone.context, `${site.server.url}?scenario=first-election`);
      await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
      const n = await page.locator(`${EL} .kp-node-btn`).count();
      for (let i = 0; i < n; i++) {
        await page.locator(`${EL} .kp-node-btn[data-node="${i}"]`).tap();
        const menu = page.locator(`${EL} .kp-menu`);
        await menu.waitFor({ state: 'visible' });
        for (const b of await menu.locator('button').all()) {
          const r = await b.boundingBox();
          assert.ok(r.y >= 0 && r.y + r.height <= 844, `n${i}: ${await b.textContent()} is at y ${r.y}..${r.y + r.height}`);
        }
        if (i === n - 1) await page.screenshot({ path: shotPath('phone-menu.png') });
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'hidden' });
      }
      await page.close();
    } finally {
      await phone.close();
    }
  });
});
