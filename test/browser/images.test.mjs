// The metadata image block (below the logs), in Chromium: each node's applied offset,
// brokers and topics as the core holds them at the current moment; a story's stop that
// talks about the images opens the block and marks the nodes its caption names; after
// a seek it shows that moment's images, the same as when the story reached it.
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launch, openReady, root, serve, shotPath } from './harness.mjs';

const EL = 'kraft-playground';
const story = JSON.parse(readFileSync(join(root, 'scenarios', 'late-observer-snapshot.json'), 'utf8'));
const stepOf = (label) => story.steps.findIndex((s) => s.label === label);

let server;
let browser;

before(async () => {
  server = await serve();
  browser = await launch({ viewport: { width: 1440, height: 900 } });
});
after(async () => {
  await browser?.close();
  server?.stop();
});

/** The block as shown: open or not, and per node its cells and whether it is marked. */
const shown = (page) =>
  page.evaluate(() => {
    const block = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-images]');
    const rows = [...block.querySelectorAll('tbody tr')].map((r) => ({
      node: Number(r.dataset.node),
      marked: r.classList.contains('kp-images-marked'),
      cells: [...r.children].map((c) => c.textContent),
    }));
    return { open: block.open, rows };
  });

/** What the block should say of each node, from the core's image at this moment. */
const expected = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('kraft-playground').cluster;
    return c.nodes({ records: false }).map((n) => {
      const img = c.image(n.id);
      return img && { node: n.id, applied: String(img.appliedOffset), brokers: img.brokers, topics: img.topics.map((t) => t.name), topicCount: img.topicCount };
    });
  });

function assertMatches(rows, want) {
  for (const w of want) {
    if (!w) continue;
    const row = rows.find((r) => r.node === w.node);
    assert.equal(row.cells[1], w.applied, `n${w.node}'s applied offset`);
    if (w.brokers.length <= 6) assert.equal(row.cells[2], w.brokers.join(', ') || 'none', `n${w.node}'s brokers`);
    for (const t of w.topics.slice(0, 6)) assert.ok(row.cells[3].includes(`${t} → `), `n${w.node} shows topic ${t}: ${row.cells[3]}`);
  }
}

/** Plays the story until it waits at step `index`. */
async function playTo(page, index) {
  for (let i = 0; i < 20; i++) {
    const at = await page.evaluate(() => {
      const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
      return c.dataset.state === 'waiting' ? Number(c.querySelector('.kp-caption-text').dataset.step) : -1;
    });
    if (at === index) return;
    if (at >= 0) await page.locator(`${EL} [data-action="continue"]`).click();
    else if ((await page.locator(`${EL} [data-action="play"]`).getAttribute('aria-label')) !== 'Pause') await page.locator(`${EL} [data-action="play"]`).click();
    await page.waitForFunction(
      (prev) => {
        const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
        return c.dataset.state === 'waiting' && Number(c.querySelector('.kp-caption-text').dataset.step) !== prev;
      },
      at,
      { timeout: 30_000 },
    );
  }
  throw new Error(`the story never waited at step ${index}`);
}

const seek = (page, t) =>
  page.evaluate(async (t) => {
    document.querySelector('kraft-playground').player.seek(t);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, t);

describe('the metadata image block', () => {
  test("a stop about the images opens the block on the named nodes; a seek shows that moment's images", async () => {
    const { page, errors } = await openReady(browser.context, server, '/?scenario=late-observer-snapshot&speed=10');
    assert.equal((await shown(page)).open, false, 'closed until asked for');
    // The snapshot loaded: n3's image is the snapshot's, applied to 202.
    await playTo(page, stepOf('loaded'));
    await page.waitForTimeout(100);
    const loadedAt = await page.evaluate(() => document.querySelector('kraft-playground').cluster.now);
    const atLoad = await shown(page);
    assert.equal(atLoad.open, true, 'the stop opened the block');
    assert.deepEqual(
      atLoad.rows.filter((r) => r.marked).map((r) => r.node),
      [3],
      'the caption names n3',
    );
    assert.equal(atLoad.rows.find((r) => r.node === 3).cells[1], '202');
    assertMatches(atLoad.rows, await expected(page));
    // Caught up: n3's image equals the leader's (n2), row for row.
    await playTo(page, stepOf('caughtUp'));
    await page.waitForTimeout(100);
    const caught = await shown(page);
    assert.deepEqual(
      caught.rows.filter((r) => r.marked).map((r) => r.node),
      [2, 3],
    );
    const cellsOf = (n) => caught.rows.find((r) => r.node === n).cells.slice(1);
    assert.deepEqual(cellsOf(3), cellsOf(2), "n3's image is the leader's");
    assertMatches(caught.rows, await expected(page));
    await page.locator(`${EL} [data-images]`).scrollIntoViewIfNeeded();
    await page.locator(`${EL} [data-images]`).screenshot({ path: shotPath('metadata-image.png') });
    // Back before the snapshot: n3 has an empty image; forward again: the same as at the stop.
    await seek(page, 15_100);
    const before = await shown(page);
    assert.equal(before.rows.find((r) => r.node === 3).cells[1], '0', 'n3 restarted with an empty log and image');
    assertMatches(before.rows, await expected(page));
    await seek(page, loadedAt);
    const again = await shown(page);
    assert.deepEqual(
      again.rows.map((r) => r.cells),
      atLoad.rows.map((r) => r.cells),
      'the same moment shows the same images, however it was reached',
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
