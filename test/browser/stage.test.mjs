// The stage read at a glance (issue 32): the cluster view's labels never overlap, for any
// cluster up to 7 voters and 8 observers, on the main page, a phone and in an embed; at
// 1280x720 whatever a story's caption names (its nodes, the logs at figure 8, the messages
// on the timeline) is on screen at that step without scrolling, and nothing covers the
// numbers; a message in flight is big enough to tap, and says what it is; on a phone a
// popup closes when you tap elsewhere and covers nothing a caption names.
//   node --test test/browser/stage.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DOCS, EL, launch, openReady, pause, playTo, root, shotPath, useSite } from './harness.mjs';

const site = useSite();
const open = site.open;

/** A run link of a cluster of this size, some seconds in (made by the page's element's own API: the element caps observers at 4, a link does not). */
async function runLink(page, voters, observers, seed) {
  return page.evaluate(
    async ([voters, observers, seed]) => {
      const Cluster = document.querySelector('kraft-playground').cluster.constructor;
      const c = await Cluster.create({ voters, observers, seed, network: 'teaching' });
      c.setWorkload({ writesPerSecond: 20 });
      c.advance(6000);
      const link = c.toLink();
      c.dispose();
      return link;
    },
    [voters, observers, seed],
  );
}

/**
 * The labels and nodes of the cluster view as laid out: what overlaps (label on label,
 * label on another node's disc), what leaves the view's box, and labels without numbers.
 */
const labelProblems = (page) =>
  page.evaluate(() => {
    const r = document.querySelector('kraft-playground').shadowRoot;
    const view = r.querySelector('.kp-ring').getBoundingClientRect();
    const labels = [...r.querySelectorAll('[data-node-label]')].map((e) => ({ id: e.dataset.nodeLabel, b: e.getBoundingClientRect(), text: e.textContent }));
    // a node's button is its disc and 4 px around it
    const discs = [...r.querySelectorAll('.kp-node-btn')].map((e) => {
      const b = e.getBoundingClientRect();
      return { id: e.dataset.node, b: { left: b.left + 4, right: b.right - 4, top: b.top + 4, bottom: b.bottom - 4 } };
    });
    const apart = (a, b) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
    const out = [];
    if (labels.length !== discs.length || labels.length === 0) out.push(`${labels.length} labels for ${discs.length} nodes`);
    for (const [i, a] of labels.entries()) {
      if (!/LEO \d+/.test(a.text) || !/HW (\d+|–)/.test(a.text)) out.push(`n${a.id}'s label says "${a.text}"`);
      if (a.b.left < view.left - 0.5 || a.b.right > view.right + 0.5 || a.b.top < view.top - 0.5 || a.b.bottom > view.bottom + 0.5) out.push(`n${a.id}'s label leaves the view`);
      for (const b of labels.slice(i + 1)) if (!apart(a.b, b.b)) out.push(`the labels of n${a.id} and n${b.id} overlap`);
      for (const d of discs) if (d.id !== a.id && !apart(a.b, d.b)) out.push(`n${a.id}'s label covers n${d.id}`);
    }
    return out;
  });

describe('the cluster view', () => {
  test('labels never overlap nor cover another node, for 1-7 voters and 0-8 observers, on the main page at 1280x720, on a phone and in the compact embed', async () => {
    const sizes = [
      [1, 0],
      [3, 0],
      [5, 2],
      [3, 8],
      [7, 4],
      [7, 8],
    ];
    const where = [
      { name: '1280x720', path: '/', viewport: { width: 1280, height: 720 } },
      { name: '390x844', path: '/', viewport: { width: 390, height: 844 } },
      { name: 'embed 800x900', path: '/embed.html', viewport: { width: 800, height: 900 } },
    ];
    const problems = [];
    const { page: maker } = await open('/embed.html?voters=1&observers=0');
    for (const [voters, observers] of sizes) {
      const link = await runLink(maker, voters, observers, 3);
      for (const w of where) {
        const { page, errors } = await open(`${w.path}#run=${link}`, { viewport: w.viewport });
        await page.waitForFunction((n) => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('[data-node-label]').length === n, voters + observers);
        await page.waitForTimeout(200);
        for (const p of await labelProblems(page)) problems.push(`${voters}+${observers} at ${w.name}: ${p}`);
        if (voters === 7 && observers === 8) await page.screenshot({ path: shotPath(`stage-7-8-${w.name.replace(' ', '-')}.png`) });
        assert.deepEqual(errors, []);
        await page.close();
      }
    }
    await maker.close();
    assert.deepEqual(problems, []);
  });

  test('a message in flight is big enough to tap, and says what it is and why it was sent; a tap elsewhere closes that', async () => {
    const { page, errors } = await open('/?seed=5&voters=3&observers=0&speed=0.3', { viewport: { width: 1280, height: 720 } });
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.leader() !== null, null, { timeout: 30_000 });
    await page.waitForTimeout(1500);
    await pause(page);
    // probe along every link, as a reader's finger would, until one lands on a message
    const spots = await page.evaluate(() =>
      [...document.querySelector('kraft-playground').shadowRoot.querySelectorAll('.kp-node-btn')].map((b) => {
        const r = b.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2, r: r.width / 2 - 4 };
      }),
    );
    const popover = page.locator(`${EL} .kp-explain`);
    let hit = false;
    for (const [a, b] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ]) {
      const [p, q] = [spots[a], spots[b]];
      const len = Math.hypot(q.x - p.x, q.y - p.y);
      for (let d = p.r + 6; d < len - q.r - 6 && !hit; d += 8) {
        for (const side of [-6, 6]) {
          const x = p.x + ((q.x - p.x) * d) / len - ((q.y - p.y) / len) * side;
          const y = p.y + ((q.y - p.y) * d) / len + ((q.x - p.x) / len) * side;
          if (await page.evaluate(([x, y]) => document.querySelector('kraft-playground').shadowRoot.elementFromPoint(x, y)?.classList.contains('kp-ring-canvas'), [x, y])) {
            await page.mouse.click(x, y);
            if (await popover.isVisible()) {
              hit = true;
              break;
            }
          }
        }
      }
      if (hit) break;
    }
    assert.ok(hit, 'a tap landed on a message in flight');
    assert.match(await popover.locator('.kp-explain-h').textContent(), /^(PreVote|Vote|BeginQuorumEpoch|EndQuorumEpoch|Fetch|FetchSnapshot)(Response)? n\d → n\d$/);
    assert.ok((await popover.locator('.kp-explain-why').textContent()).length > 20, 'it says why');
    await page.screenshot({ path: shotPath('stage-message-tapped.png') });
    await page.mouse.click(640, 10);
    assert.ok(await popover.isHidden(), 'a tap elsewhere closed it');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('what a caption names', () => {
  const ids = readdirSync(join(root, 'scenarios'))
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .map((f) => f.replace(/\.json$/, ''));

  test('at 1280x720, at every step, the nodes a caption names (and their labels), the logs when it names a record, the timeline when it names a message are on screen without scrolling, uncovered', async () => {
    const problems = [];
    for (const id of ids) {
      const file = JSON.parse(readFileSync(join(root, 'scenarios', `${id}.json`), 'utf8'));
      const { page, errors } = await open(`/?scenario=${id}&autoplay=0&speed=100`, { viewport: { width: 1280, height: 720 } });
      for (const [index, st] of file.steps.entries()) {
        if (!st.caption) continue;
        await playTo(page, index, { byApi: true });
        // the labels' text follows within a tenth of a second (ring.ts, LABELS_MS)
        await page.waitForTimeout(150);
        const nodes = [...new Set([...(st.focus?.nodes ?? []), ...[...st.caption.matchAll(/\bn(\d+)\b/g)].map((m) => Number(m[1]))])];
        const records = (st.focus?.records ?? []).map((name) => ({ name, ...file.recordNames[name] }));
        const seen = await page.evaluate(
          ([nodes, records, messages]) => {
            const el = document.querySelector('kraft-playground');
            const r = el.shadowRoot;
            const out = [];
            const onScreen = (e, what) => {
              const b = e?.getBoundingClientRect();
              if (!b || b.width === 0) return out.push(`${what} is not shown`);
              if (b.top < 0 || b.left < 0 || b.bottom > innerHeight || b.right > innerWidth) return out.push(`${what} is off screen (${Math.round(b.top)}..${Math.round(b.bottom)})`);
              // labels let taps through to the picture: hit-testable for this probe only
              const was = e.style.pointerEvents;
              e.style.pointerEvents = 'auto';
              const top = r.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
              e.style.pointerEvents = was;
              if (top && !e.contains(top) && !top.contains(e)) out.push(`${what} is covered by ${top.className || top.tagName}`);
            };
            for (const n of nodes) {
              onScreen(r.querySelector(`.kp-node-btn[data-node="${n}"]`), `n${n}`);
              onScreen(r.querySelector(`[data-node-label="${n}"]`), `n${n}'s label`);
            }
            for (const rec of records) {
              // each named node that holds the record shows it by name in its log's tail
              for (const n of nodes) {
                const held = el.cluster.log(n, { from: rec.offset, limit: 1 })[0];
                if (!held || held.epoch !== rec.epoch) continue;
                const cell = r.querySelector(`[data-node-label="${n}"] .kp-node-cell[data-offset="${rec.offset}"]`);
                if (cell?.textContent !== rec.name) out.push(`n${n}'s log does not show ${rec.name} at offset ${rec.offset}`);
                else onScreen(cell, `${rec.name} in n${n}'s log`);
              }
            }
            if (messages) onScreen(r.querySelector('.kp-tl'), 'the timeline');
            return out;
          },
          [nodes, records, (st.focus?.messages ?? []).length > 0],
        );
        for (const p of seen) problems.push(`${id} step ${index}: ${p}`);
      }
      assert.deepEqual(errors, [], id);
      await page.close();
    }
    assert.deepEqual(problems, []);
  });
});

describe('popups on a phone', () => {
  test('at 390x844 the node menu, the ring key, the story summary and an event explained each close when you tap elsewhere', async () => {
    const { page, errors } = await open('/?scenario=first-election&autoplay=0&speed=20', { viewport: { width: 390, height: 844 }, hasTouch: true });
    await playTo(page, 1, { byApi: true });
    const elsewhere = async () => {
      // the page's title: outside the element (by locator: a point could land on the tour's toggle once the page scrolled)
      await page.locator('.site-title h1').click();
      await page.waitForTimeout(50);
    };
    // the node menu
    await page.locator(`${EL} .kp-node-btn[data-node="0"]`).click();
    assert.ok(await page.locator(`${EL} .kp-menu`).isVisible());
    await page.locator(`${EL} .kp-caption-text`).click();
    assert.ok(await page.locator(`${EL} .kp-menu`).isHidden(), 'the node menu closed');
    // the ring's key
    await page.locator(`${EL} .kp-ring-key summary`).click();
    assert.ok(await page.locator(`${EL} [data-ring-key]`).isVisible());
    await page.locator(`${EL} .kp-caption-text`).click();
    assert.ok(await page.locator(`${EL} [data-ring-key]`).isHidden(), 'the key closed');
    // the story's summary
    await page.locator(`${EL} [data-action="story-summary"]`).click();
    assert.ok(await page.locator(`${EL} [data-story-summary]`).isVisible());
    await elsewhere();
    assert.ok(await page.locator(`${EL} [data-story-summary]`).isHidden(), 'the summary closed');
    // an event on the timeline, explained (the keyboard picks one)
    await page.locator(`${EL} .kp-tl`).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const explain = page.locator(`${EL} .kp-explain`);
    assert.ok(await explain.isVisible(), 'an event is explained');
    await elsewhere();
    assert.ok(await explain.isHidden(), 'the explanation closed');
    await page.screenshot({ path: shotPath('stage-phone-popups-closed.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('at 390x844, at every step of the stories that name nodes, no popup covers a node or label the caption names', async () => {
    const problems = [];
    for (const id of ['metadata-state-machine', 'figure-8', 'late-observer-snapshot']) {
      const file = JSON.parse(readFileSync(join(root, 'scenarios', `${id}.json`), 'utf8'));
      const { page } = await open(`/?scenario=${id}&autoplay=0&speed=100`, { viewport: { width: 390, height: 844 } });
      for (const [index, st] of file.steps.entries()) {
        if (!st.caption) continue;
        await playTo(page, index, { byApi: true });
        await page.waitForTimeout(50);
        const nodes = [...new Set([...(st.focus?.nodes ?? []), ...[...st.caption.matchAll(/\bn(\d+)\b/g)].map((m) => Number(m[1]))])];
        const covered = await page.evaluate((nodes) => {
          const r = document.querySelector('kraft-playground').shadowRoot;
          const popups = [...r.querySelectorAll('.kp-image-card, .kp-menu, .kp-explain, .kp-caption-about, .kp-key-list')].filter((p) => p.checkVisibility());
          const out = [];
          for (const n of nodes) {
            for (const e of [r.querySelector(`.kp-node-btn[data-node="${n}"]`), r.querySelector(`[data-node-label="${n}"]`)]) {
              const b = e?.getBoundingClientRect();
              if (!b) continue;
              for (const p of popups) {
                const q = p.getBoundingClientRect();
                if (!(q.right <= b.left || b.right <= q.left || q.bottom <= b.top || b.bottom <= q.top)) out.push(`n${n} is covered by ${p.className}`);
              }
            }
          }
          return out;
        }, nodes);
        for (const c of covered) problems.push(`${id} step ${index}: ${c}`);
      }
      await page.close();
    }
    assert.deepEqual(problems, []);
  });
});

describe('screenshots for the README', () => {
  test('free play and figure 8 at step 10, at 1280x720 and 390x844', async () => {
    // a browser of its own: a first visit's tour, not the progress the tests above made
    const own = await launch();
    const open = (path, opts) => openReady(own.context, site.server, path, opts);
    for (const viewport of [
      { width: 1280, height: 720 },
      { width: 390, height: 844 },
    ]) {
      const size = `${viewport.width}x${viewport.height}`;
      const free = await open('/?seed=7&voters=5&observers=2', { viewport });
      await free.page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 4200, null, { timeout: 30_000 });
      // by the API: a click on Play would scroll a phone's page down to it
      await free.page.evaluate(() => document.querySelector('kraft-playground').pause());
      await free.page.screenshot({ path: shotPath(`screenshot-stage-${size}.png`) });
      assert.deepEqual(await labelProblems(free.page), [], size);
      await free.page.close();
      const story = await open('/?scenario=figure-8&autoplay=0&speed=20', { viewport });
      await playTo(story.page, 14, { byApi: true });
      await story.page.waitForTimeout(200);
      await story.page.screenshot({ path: shotPath(`screenshot-figure-8-${size}.png`) });
      await story.page.close();
    }
    await own.close();
  });
});

describe('a docs page', () => {
  test('the compact element shows big nodes on a docs page 800 px wide', async () => {
    const page = await site.browser.context.newPage();
    await page.setViewportSize({ width: 800, height: 900 });
    await page.route('**/docs-stage.html', (r) => r.fulfill({ contentType: 'text/html', body: DOCS }));
    await page.goto(`${site.server.url}docs-stage.html`);
    // the element's cluster exists before its first frame lays the ring out: wait for that frame
    await page.waitForFunction(() => (document.getElementById('a')?.shadowRoot?.querySelector('.kp-node-btn')?.getBoundingClientRect().width ?? 0) > 0, null, { timeout: 30_000 });
    const r = await page.evaluate(() => document.getElementById('a').shadowRoot.querySelector('.kp-node-btn').getBoundingClientRect().width);
    assert.ok(r >= 2 * 26 + 8, `a node's button is ${r} px wide`);
    assert.deepEqual(await labelProblems(page), []);
    await page.close();
  });
});
