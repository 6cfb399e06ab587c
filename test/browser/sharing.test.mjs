// Sharing and exporting a run in Chromium: a share link (and a long run's fragment link)
// reproduces the run, the speed travels with it, and the trace and the timeline export.
//   node --test test/browser/sharing.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestOf, EL, forward, nodeAction, nowOf, pause, summaryNodes, useSite, waitLeader, waitSummary } from './harness.mjs';

const site = useSite();
const open = site.open;

describe('sharing a run', () => {
  test('a share link reproduces the same trace digest', async () => {
    const { page, errors } = await open('/?seed=21&speed=10');
    const l = await waitLeader(page);
    await nodeAction(page, l.id, 'crash');
    const next = await waitLeader(page, { minEpoch: l.epoch });
    await pause(page);
    await nodeAction(page, next.id, 'write');
    await forward(page, 3000);
    // read this page's text summary now: it refreshes a few times a second, and only while
    // the page is shown (opening the link below may hide it)
    await waitSummary(page);
    const summary = await summaryNodes(page);
    await page.locator(`${EL} [data-action="share"]`).click();
    const url = await page.locator(`${EL} [data-share-url]`).inputValue();
    const digest = await digestOf(page);
    const now = await nowOf(page);
    assert.match(url, /#run=k2\.[A-Za-z0-9_-]+$/, 'the run travels in the fragment');
    const other = await open(url.replace(site.server.url, '/'));
    assert.equal(await nowOf(other.page), now);
    assert.equal(await digestOf(other.page), digest);
    // the new page's text summary is drawn on a later frame
    await other.page.waitForFunction((n) => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('[data-summary] tbody tr').length === n, Object.keys(summary).length);
    assert.deepEqual(await summaryNodes(other.page), summary);
    assert.deepEqual(errors, []);
    assert.deepEqual(other.errors, []);
    await other.page.close();
    await page.close();
  });

  test('a 1,000-action run opens from a fragment link: same time, digest and text summary (old ?run= and k1 links too)', async () => {
    const { page, errors } = await open('/?seed=9&voters=5&observers=1&speed=10&autoplay=0');
    const made = await page.evaluate(() => {
      const c = document.querySelector('kraft-playground').cluster;
      for (let i = 0; i < 1000; i++) {
        c.advance(20 + ((i * 7919) % 300));
        switch (i % 8) {
          case 0:
            c.crash(i % 5);
            break;
          case 1:
            c.restart(i % 5);
            break;
          case 2:
            c.setNetwork({ loss: (i % 30) / 100 });
            break;
          case 3:
            c.write({ type: 'CreateTopic', name: `t-${i}`, partitions: 1 + (i % 5) });
            break;
          case 4:
            c.partition([
              [0, 1],
              [2, 3, 4],
            ]);
            break;
          case 5:
            c.heal();
            break;
          case 6:
            c.slowDisk(i % 6, i % 200);
            break;
          default:
            c.write();
        }
      }
      const el = document.querySelector('kraft-playground');
      return {
        url: el.shareUrl(),
        digest: c.digest(),
        now: c.now,
        actions: c.inputs().length,
        nodes: c.nodes({ records: false }).map((n) => ({ state: n.state, epoch: n.epoch, leo: n.leo, hw: n.hw })),
      };
    });
    assert.equal(made.actions, 1000);
    // the run in the fragment; the query holds only the scenario and the playback speed
    assert.match(made.url, /^[^?]*(\?(scenario=[^#&]*&?)?(speed=[\d.]+)?)?#run=k2\./);
    assert.ok(made.url.length < 16_000, `a ${made.url.length}-character link`);
    const expectSummary = (nodes) => Object.fromEntries(nodes.map((n, i) => [`n${i}`, { role: i < 5 ? 'voter' : 'observer', state: n.state, epoch: n.epoch, leo: n.leo, hw: n.hw }]));
    const opened = async (path) => {
      const other = await open(path);
      assert.equal(await nowOf(other.page), made.now);
      assert.equal(await digestOf(other.page), made.digest);
      await other.page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('[data-summary] tbody tr').length === 6);
      await other.page.waitForFunction(
        (t) => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-summary] [data-leader]')?.textContent.includes(t),
        `${(made.now / 1000).toFixed(3)}`.slice(0, 4),
      );
      await waitSummary(other.page);
      assert.deepEqual(await summaryNodes(other.page), expectSummary(made.nodes));
      assert.deepEqual(other.errors, []);
      await other.page.close();
    };
    await opened(made.url.replace(site.server.url, '/'));
    // the embed page reads the fragment too, and its share links open the main page by fragment
    await opened(`/embed.html#run=${made.url.split('#run=')[1]}`);
    // the same run as an old uncompressed k1 link: 8x longer, too long for a query string...
    const link = made.url.split('#run=')[1];
    const k1 = await page.evaluate(async (_l) => {
      const el = document.querySelector('kraft-playground');
      const c = el.cluster;
      return (
        'k1.' +
        btoa(JSON.stringify({ v: 'old', spec: c.options, inputs: c.inputs(), t: c.now }))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '')
      );
    }, link);
    assert.ok(k1.length > 16 * 1024, `${k1.length}`);
    assert.equal((await fetch(`${site.server.url}?run=${k1}`)).status, 431, 'a server refuses it in the query string');
    // ...but it opens from the fragment
    await opened(`/#run=${k1}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the speed is in the share link and comes back from it', async () => {
    const { page } = await open('/?seed=42&speed=4');
    await page.locator(`${EL} [data-action="share"]`).click();
    const url = await page.locator(`${EL} .kp-share-url`).inputValue();
    assert.equal(new URL(url).searchParams.get('speed'), '4', url);
    await page.goto(url);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.player != null, null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').player.speed), 4);
    await page.close();
  });
});

describe('exporting a run', () => {
  test('exports the trace as JSON and text, and the timeline as a PNG', async () => {
    const { page, errors } = await open('/?seed=3&speed=10');
    await waitLeader(page);
    await pause(page);
    const grab = async (label) => {
      await page.locator(`${EL} [data-action="export"]`).click();
      const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`${EL} .kp-export-menu button`, { hasText: label }).click()]);
      const chunks = [];
      for await (const c of await dl.createReadStream()) chunks.push(c);
      return { name: dl.suggestedFilename(), body: Buffer.concat(chunks) };
    };
    const json = await grab('Trace as JSON');
    assert.match(json.name, /^kraft-run-seed3-\d+ms\.json$/);
    const parsed = JSON.parse(json.body.toString('utf8'));
    assert.equal(parsed.digest, await digestOf(page));
    assert.equal(parsed.events.length, await page.evaluate(() => document.querySelector('kraft-playground').cluster.eventCount));
    assert.match(parsed.link, /^k2\./);
    const text = await grab('Trace as text');
    assert.match(text.body.toString('utf8').split('\n')[0], /^\s+0\.\d{3}s\s+1 /);
    const png = await grab('Timeline as PNG');
    assert.deepEqual([...png.body.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the PNG export is the whole timeline at 2x (or the screen density), not the visible window', async () => {
    const { page } = await open('/?seed=3&speed=10&autoplay=1');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 15_000, null, { timeout: 30_000 });
    await page.locator(`${EL} [data-action="play"]`).click();
    const view = await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      const c = el.shadowRoot.querySelector('.kp-tl-canvas');
      return { w: c.clientWidth, h: c.clientHeight, now: el.cluster.now };
    });
    await page.locator(`${EL} [data-action="export"]`).click();
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`${EL} .kp-export-menu button`, { hasText: 'Timeline as PNG' }).click()]);
    const chunks = [];
    for await (const c of await dl.createReadStream()) chunks.push(c);
    const png = Buffer.concat(chunks);
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    assert.equal(height, view.h * 2, `height ${height} for a ${view.h} px tall timeline`);
    // the visible window shows about 3.5 s of a run of more than 15 s
    assert.ok(width > view.w * 2 * 3, `width ${width} for a ${view.w} px window`);
    await page.close();
  });
});
