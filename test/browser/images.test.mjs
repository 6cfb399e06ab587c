// The metadata image block (below the logs), in Chromium: each node's applied offset,
// brokers and topics as the core holds them at the current moment; a story's stop that
// talks about the images opens the block and marks the nodes its caption names; after
// a seek it shows that moment's images, the same as when the story reached it.
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launch, openReady, playTo, root, serve, shotPath } from './harness.mjs';

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

// The image card: at a stop about the images, the named nodes' images are shown over the
// ring, beside those nodes, so the reader sees what the caption talks about without
// scrolling (the block above sits below the logs, under the fold); it goes when the stop
// is left. Played through the element's play() (Continue's action), never a click that
// would scroll the page, so "inside the viewport" means without scrolling.

/** The card as shown: whether it is on screen, where, and each image it shows (its nodes, applied offset and text). */
const card = (page) =>
  page.evaluate(() => {
    const r = document.querySelector('kraft-playground').shadowRoot;
    const el = r.querySelector('[data-image-card]');
    if (!el || el.hidden) return null;
    const b = el.getBoundingClientRect();
    const named = [...r.querySelectorAll('.kp-node-btn')].map((n) => ({ node: Number(n.dataset.node), box: n.getBoundingClientRect().toJSON() }));
    return {
      box: b.toJSON(),
      view: { width: innerWidth, height: innerHeight, scrollY },
      buttons: named,
      layout: r.querySelector('.kp-root').dataset.layout,
      images: [...el.querySelectorAll('[data-image-nodes]')].map((g) => ({
        nodes: g.dataset.imageNodes.split(',').map(Number),
        applied: g.querySelector('[data-applied]').textContent,
        text: g.textContent,
      })),
    };
  });

const waitCard = (page, shown) =>
  page.waitForFunction(
    (shown) => {
      const el = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-image-card]');
      return shown ? !!el && !el.hidden : !el || el.hidden;
    },
    shown,
    { timeout: 10_000 },
  );

/**
 * The card shows the stop's `nodes`, and the ring has laid its nodes out for it: the card
 * places itself in the frame that shows it and reserves its band, and the ring makes room
 * in the next frame.
 */
async function settled(page, nodes) {
  await page.waitForFunction(
    (key) => [...(document.querySelector('kraft-playground').shadowRoot.querySelectorAll('[data-image-card] [data-image-nodes]') ?? [])].some((g) => g.dataset.imageNodes === key),
    nodes.join(','),
    { timeout: 10_000 },
  );
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** The card is on screen without scrolling, and leaves the buttons of the nodes it names uncovered. */
function assertOnScreen(c, nodes, where) {
  assert.ok(c, `${where}: the card is shown`);
  assert.equal(c.view.scrollY, 0, `${where}: nothing scrolled the page`);
  const { box, view } = c;
  assert.ok(box.width > 0 && box.height > 0, `${where}: the card has a size`);
  assert.ok(box.left >= 0 && box.top >= 0 && box.right <= view.width && box.bottom <= view.height, `${where}: the card ${JSON.stringify(box)} lies inside the ${view.width}x${view.height} viewport`);
  for (const b of c.buttons.filter((b) => nodes.includes(b.node))) assert.ok(!overlaps(box, b.box), `${where}: the card covers n${b.node}, which its caption names`);
}

const AXE = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core's moderate, serious and critical violations on the page now (as learner-bugs.test.mjs runs it). */
async function axeIssues(page) {
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return v.filter((x) => ['moderate', 'serious', 'critical'].includes(x.impact)).map((x) => `${x.impact} ${x.id}: ${x.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

const imageOf = (page, id) => page.evaluate((id) => document.querySelector('kraft-playground').cluster.image(id), id);

describe('the image card at a stop about the images', () => {
  const places = [
    { where: 'the main page at 1440x900', path: '/?scenario=late-observer-snapshot&speed=10', viewport: { width: 1440, height: 900 }, layout: 'full' },
    { where: 'the main page at 1280x720', path: '/?scenario=late-observer-snapshot&speed=10', viewport: { width: 1280, height: 720 }, layout: 'full' },
    { where: 'the compact embed at 800 px', path: '/embed.html?scenario=late-observer-snapshot&speed=10', viewport: { width: 800, height: 900 }, layout: 'compact' },
  ];
  for (const p of places) {
    test(`${p.where}: the named nodes' images are in view at the stop, n3's equals n2's at catch-up, and the card goes when the stop is left`, async () => {
      const { page, errors } = await openReady(browser.context, server, p.path, { viewport: p.viewport });
      assert.equal(await card(page), null, 'no card before a stop about the images');
      await playTo(page, stepOf('loaded'), { byApi: true });
      await waitCard(page, true);
      await settled(page, [3]);
      const loaded = await card(page);
      assert.equal(loaded.layout, p.layout);
      assertOnScreen(loaded, [3], p.where);
      assert.deepEqual(
        loaded.images.map((g) => g.nodes),
        [[3]],
        'the card shows the image of the node the caption names',
      );
      const n3 = await imageOf(page, 3);
      assert.equal(n3.appliedOffset, 202, "the snapshot's image, applied to its end offset");
      assert.equal(loaded.images[0].applied, String(n3.appliedOffset), "the card shows n3's applied offset");
      assert.ok(loaded.images[0].text.includes(`${n3.topicCount} topics`), `the card counts n3's topics: ${loaded.images[0].text}`);
      await page.screenshot({ path: shotPath(`image-card-loaded-${p.viewport.width}.png`) });
      const seen = errors.length;
      for (const scheme of ['dark', 'light']) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(await axeIssues(page), [], `axe-core with the card shown, ${scheme}`);
      }
      // axe-core's own inline styles, which the pages' CSP refuses (as it should)
      errors.splice(seen, errors.length, ...errors.slice(seen).filter((e) => !/^Applying inline style violates/.test(e)));
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: shotPath(`image-card-loaded-${p.viewport.width}-dark.png`) });
      await page.emulateMedia({ colorScheme: 'light' });
      // caught up: one image for n2 and n3, the same in the core
      await playTo(page, stepOf('caughtUp'), { byApi: true });
      await waitCard(page, true);
      await settled(page, [2, 3]);
      const caught = await card(page);
      assertOnScreen(caught, [2, 3], p.where);
      const [n2now, n3now] = [await imageOf(page, 2), await imageOf(page, 3)];
      assert.deepEqual(n3now, { ...n2now, node: 3 }, "in the core, n3's image is the leader's");
      assert.deepEqual(
        caught.images.map((g) => g.nodes),
        [[2, 3]],
        'the card shows n2 and n3 as one image',
      );
      assert.equal(caught.images[0].applied, String(n2now.appliedOffset));
      await page.screenshot({ path: shotPath(`image-card-caught-up-${p.viewport.width}.png`) });
      // leaving the stop (play on) takes the card away
      await page.evaluate(() => document.querySelector('kraft-playground').play());
      await waitCard(page, false);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test("a seek away from the stop by the element's player (not the UI's controls) hides the card, and the story no longer waits there", async () => {
    const { page, errors } = await openReady(browser.context, server, '/?scenario=late-observer-snapshot&speed=10', { viewport: { width: 1440, height: 900 } });
    await playTo(page, stepOf('loaded'), { byApi: true });
    await waitCard(page, true);
    const at = await page.evaluate(() => document.querySelector('kraft-playground').cluster.now);
    // back before it, then (played to the stop again) on past it
    for (const t of [at - 1_000, at + 500]) {
      await seek(page, t);
      await waitCard(page, false);
      assert.notEqual(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').dataset.state), 'waiting', `at ${t}`);
      if (t < at) {
        await playTo(page, stepOf('loaded'), { byApi: true });
        await waitCard(page, true);
      }
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the card is reachable by keyboard; in layout=full its "All images" opens the block; seeking away hides it', async () => {
    const { page, errors } = await openReady(browser.context, server, '/?scenario=late-observer-snapshot&speed=10', { viewport: { width: 1440, height: 900 } });
    await playTo(page, stepOf('loaded'), { byApi: true });
    await waitCard(page, true);
    const all = page.locator(`${EL} [data-image-card] [data-action="all-images"]`);
    await all.focus();
    assert.equal(await all.evaluate((b) => b.getRootNode().activeElement === b), true, 'the button takes focus');
    await page.keyboard.press('Enter');
    const block = await shown(page);
    assert.equal(block.open, true, 'the block is open');
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.activeElement?.closest('[data-images]') != null), true, 'focus moved to the block');
    // Home (focus is inside the element, on the block) travels to the start: the stop is left
    await page.keyboard.press('Home');
    await waitCard(page, false);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
