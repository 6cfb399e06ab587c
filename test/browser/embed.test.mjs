// The element embedded: the embed page takes the site's options, the custom element works
// on a page of its own, and the npm package's element module runs under a strict CSP.
//   node --test test/browser/embed.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, leaderOf, openPage, root, serve, useSite, waitLeader } from './harness.mjs';

const site = useSite();
const open = site.open;

describe('embedding', () => {
  test('the embed page takes the same options as URL parameters', async () => {
    const { page, errors } = await open('/embed.html?voters=5&observers=1&seed=3&speed=10&autoplay=1');
    const l = await waitLeader(page);
    assert.ok(l.id >= 0 && l.id < 5);
    assert.equal(await page.locator(`${EL} .kp-node-btn`).count(), 6);
    assert.equal(await page.locator(`${EL} .kp-root`).getAttribute('data-controls'), 'minimal');
    assert.equal(await page.locator(`${EL} .kp-panels`).isVisible(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the custom element works on its own and exposes its cluster', async () => {
    const { page, errors } = await open('/embed.html?voters=1&observers=0&seed=1');
    await page.evaluate(() => {
      const el = document.createElement('kraft-playground');
      el.id = 'second';
      el.setAttribute('voters', '3');
      el.setAttribute('observers', '0');
      el.setAttribute('seed', '99');
      el.setAttribute('speed', '10');
      el.setAttribute('controls', 'minimal');
      el.setAttribute('autoplay', '');
      document.body.appendChild(el);
    });
    await page.waitForFunction(() => document.getElementById('second').cluster?.leader() != null, null, { timeout: 30_000 });
    const info = await page.evaluate(() => {
      const c = document.getElementById('second').cluster;
      c.write({ type: 'CreateTopic', name: 'orders', partitions: 3 });
      return { voters: c.voters, seed: c.seed, leader: c.leader(), quorum: c.describeQuorum().status.leaderId };
    });
    assert.equal(info.voters, 3);
    assert.equal(info.seed, 99);
    assert.equal(info.quorum, info.leader.id);
    // a scripted change shows in the element: the write appears in the leader's log
    await page.waitForFunction(() =>
      document
        .getElementById('second')
        .cluster.nodes()
        .some((n) => n.records.some((r) => r.record.type === 'CreateTopic' && r.record.name === 'orders')),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the npm package', () => {
  test('its element module works on a plain page with a strict CSP', { skip: !existsSync(join(root, 'web/dist/element.js')) && 'web/dist is not built' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kp-npm-'));
    cpSync(join(root, 'web/dist'), join(dir, 'node_modules/kraft-playground/dist'), { recursive: true });
    writeFileSync(
      join(dir, 'index.html'),
      `<!doctype html><meta charset="utf-8"><title>docs page</title><link rel="icon" href="data:,">
<script type="module" src="node_modules/kraft-playground/dist/element.js"></script>
<h1>Some documentation</h1>
<kraft-playground scenario="first-election" controls="minimal" speed="10" autoplay></kraft-playground>`,
    );
    const docs = await serve(dir);
    try {
      const { page, errors } = await openPage(site.browser.context, docs.url);
      await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
      await page.evaluate(() => document.querySelector('kraft-playground').ready);
      assert.equal(await page.locator(`${EL} .kp-scenario`).inputValue(), 'first-election');
      // the story opens paused on its first caption
      assert.match(await page.locator(`${EL} [data-caption]`).textContent(), /Unattached/);
      // read on: Continue at each pause until a leader is elected
      for (let i = 0; i < 10 && !(await leaderOf(page)); i++) {
        const cont = page.locator(`${EL} [data-action="continue"]`);
        if (await cont.isVisible()) await cont.click();
        await page.waitForTimeout(700);
      }
      assert.ok(await leaderOf(page), 'a leader is elected');
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      docs.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
