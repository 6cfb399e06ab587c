// The element embedded: the embed page takes the site's options, the custom element works
// on a page of its own, the README's iframe renders at the height it gives and stays
// usable from 480 px up, and the npm package's element module runs under a strict CSP.
//   node --test test/browser/embed.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, leaderOf, openPage, root, serve, shotPath, useSite, waitLeader } from './harness.mjs';

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

describe("the README's iframe", () => {
  // the snippet as the README gives it, its height among those tested
  const snippet = /<iframe src="https:\/\/…\/(embed\.html\?[^"]+)" width="100%" height="(\d+)"><\/iframe>/.exec(readFileSync(join(root, 'README.md'), 'utf8'));
  const heights = [...new Set([480, Number(snippet?.[2]), 720])].sort((a, b) => a - b);

  test(`renders correctly at the height it gives and stays usable at ${heights.join(', ')} px: nothing drawn over anything, the caption whole, ring, timeline and Play in view, the faults a scroll away`, async () => {
    assert.ok(snippet, 'the README has the iframe snippet');
    const problems = [];
    for (const hgt of heights) {
      const page = await site.browser.context.newPage();
      await page.setViewportSize({ width: 800, height: hgt + 40 });
      const body = `<!doctype html><html lang="en"><head><title>docs</title><link rel="icon" href="data:,"></head><body style="margin:0;padding:20px 0"><iframe title="playground" src="${site.server.url}${snippet[1]}" width="100%" height="${hgt}" style="border:0;display:block"></iframe></body></html>`;
      await page.route('**/docs-iframe.html', (r) => r.fulfill({ contentType: 'text/html', body }));
      await page.goto(`${site.server.url}docs-iframe.html`);
      const frame = page.frames().find((f) => f.url().includes('embed.html'));
      await frame.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
      await frame.locator(`${EL} [data-action="continue"]`).waitFor({ state: 'visible', timeout: 30_000 });
      await page.waitForTimeout(300);
      const seen = await frame.evaluate(() => {
        const r = document.querySelector('kraft-playground').shadowRoot;
        const parts = { caption: '[data-caption]', ring: '.kp-ring-card', timeline: '.kp-tl-card', playback: '.kp-controls', dock: '.kp-dock' };
        const box = Object.fromEntries(Object.entries(parts).map(([k, sel]) => [k, r.querySelector(sel).getBoundingClientRect()]));
        const out = [];
        const names = Object.keys(box);
        for (const [i, a] of names.entries())
          for (const b of names.slice(i + 1)) {
            const p = box[a];
            const q = box[b];
            if (!(p.right <= q.left || q.right <= p.left || p.bottom <= q.top || q.bottom <= p.top)) out.push(`${a} and ${b} overlap`);
          }
        for (const k of ['caption', 'ring', 'timeline', 'playback'])
          if (box[k].top < 0 || box[k].bottom > innerHeight) out.push(`${k} is not in view (${Math.round(box[k].top)}..${Math.round(box[k].bottom)} of ${innerHeight})`);
        const text = r.querySelector('.kp-caption-body');
        if (text.scrollHeight > text.clientHeight + 1) out.push('the caption is cut short');
        if (box.ring.height < 200) out.push(`the ring card is ${Math.round(box.ring.height)} px tall`);
        const node = r.querySelector('.kp-node-btn').getBoundingClientRect().width;
        if (node < 40) out.push(`a node is ${Math.round(node)} px across`);
        return out;
      });
      for (const p of seen) problems.push(`${hgt} px: ${p}`);
      await page.screenshot({ path: shotPath(`embed-iframe-${hgt}.png`) });
      // the faults: in view, or after scrolling the frame to its end
      await frame.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
      const dock = await frame.evaluate(() => {
        const b = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-dock [data-fault="crash"]').getBoundingClientRect();
        return b.top >= 0 && b.bottom <= innerHeight;
      });
      if (!dock) problems.push(`${hgt} px: the faults cannot be scrolled into view`);
      await page.close();
    }
    assert.deepEqual(problems, []);
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
