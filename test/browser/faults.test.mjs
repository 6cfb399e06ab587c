// Faults beside the picture (issue 12): the fault dock sits next to the ring and fits one
// 1280x720 screen with the timeline and Play; every fault in force is listed with its own
// undo, "Clear all" restores links, loss, latency, duplication and disks, and what the
// dock says is what the cluster holds; an embed gets the compact layout. Faults made in
// the UI do to the cluster what they say: a crashed leader is replaced in a higher epoch,
// a partitioned minority cannot commit, the loss slider records one action.
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EL, forward, leaderOf, nodeAction, pause, shotPath, summaryNodes, summaryText, useSite, waitLeader, waitSummary } from './harness.mjs';

const site = useSite();
const open = site.open;

/** What the cluster holds now: link faults, down links, network, disks, crashed nodes. */
const state = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('kraft-playground').cluster;
    const nodes = c.nodes({ records: false });
    return {
      faults: c.linkFaults(),
      down: c
        .downLinks()
        .map(([a, b]) => `${a}-${b}`)
        .sort(),
      network: c.network(),
      disks: nodes.map((n) => n.flushMs),
      crashed: nodes.filter((n) => n.state === 'crashed').map((n) => n.id),
      baseline: c.baseline(),
    };
  });

/** The dock's list of faults in force: their keys, in order. */
const listed = (page) => page.evaluate(() => [...document.querySelector('kraft-playground').shadowRoot.querySelectorAll('.kp-dock [data-active-fault]')].map((li) => li.dataset.activeFault));

const dock = (sel) => `${EL} .kp-dock ${sel}`;

/** Picks node `id` in the dock and presses one of its node buttons. */
async function onNode(page, id, fault) {
  await page.locator(dock('[data-fault-target]')).selectOption(String(id));
  await page.locator(dock(`[data-fault="${fault}"]`)).click();
}

/** Sets the dock's loss slider to `pct` as a drag would (one change on release). */
async function setLoss(page, pct) {
  await page.evaluate((v) => {
    const s = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-dock input[aria-label="Message loss percent"]');
    s.dispatchEvent(new PointerEvent('pointerdown'));
    s.value = String(v);
    s.dispatchEvent(new Event('input'));
    s.dispatchEvent(new Event('change'));
  }, pct);
}

/** Puts node `id` into partition group `g` (0 = A, 1 = B, 2 = C) with the dock's chips. */
async function chipTo(page, id, g) {
  const chip = page.locator(dock(`.kp-chip[data-chip="${id}"]`));
  const now = Number(/kp-g(\d)/.exec(await chip.getAttribute('class'))[1]);
  for (let k = 0; k < (g - now + 3) % 3; k++) await chip.click();
}

async function box(page, sel) {
  return page.evaluate((s) => {
    const e = document.querySelector('kraft-playground').shadowRoot.querySelector(s);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, visible: r.width > 0 && r.height > 0 };
  }, sel);
}

/** Asserts each selector's box lies inside a viewport of height `vh` with the page not scrolled. */
async function assertOnScreen(page, selectors, vh) {
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  for (const s of selectors) {
    const b = await box(page, s);
    assert.ok(b?.visible, `${s} is shown`);
    assert.ok(b.top >= 0 && b.bottom <= vh, `${s} is inside the ${vh}px viewport: ${Math.round(b.top)}..${Math.round(b.bottom)}`);
  }
}

const MAIN_FAULTS = [
  '[data-fault="crash"]',
  '[data-fault="isolate"]',
  '[data-fault="slow-disk"]',
  '[data-fault="resign"]',
  '[data-fault="write"]',
  '[data-action="partition"]',
  '[data-action="cut"]',
  'input[aria-label="Message loss percent"]',
].map((s) => `.kp-dock ${s}`);

describe('faults beside the picture', () => {
  test('at 1280x720 the ring, the timeline, the fault dock and Play fit one screen, in free play and at a story pause', async () => {
    const { page, errors } = await open('/?seed=3', { viewport: { width: 1280, height: 720 } });
    await page.waitForTimeout(1500);
    await assertOnScreen(page, ['.kp-ring-card', '.kp-dock', '.kp-tl-card', '[data-action="play"]', ...MAIN_FAULTS], 720);
    // next to the ring: the dock starts where the ring card ends, on the same row
    const ring = await box(page, '.kp-ring-card');
    const d = await box(page, '.kp-dock');
    assert.ok(d.left - ring.right >= 0 && d.left - ring.right <= 16 && d.top === ring.top, 'the dock is beside the ring');
    await page.screenshot({ path: shotPath('faults-1280x720.png') });
    await page.close();

    // a story paused on its caption: Continue and Play on screen too
    const story = await open('/?scenario=figure-8', { viewport: { width: 1280, height: 720 } });
    await story.page.locator(`${EL} [data-action="continue"]`).waitFor({ state: 'visible', timeout: 30_000 });
    await assertOnScreen(story.page, ['.kp-ring-card', '.kp-dock', '.kp-tl-card', '[data-action="play"]', '[data-action="continue"]', ...MAIN_FAULTS], 720);
    await story.page.screenshot({ path: shotPath('faults-1280x720-story.png') });
    assert.deepEqual([...errors, ...story.errors], []);
    await story.page.close();
  });

  test('each fault in force is listed with its own undo, and undoing one restores exactly that', async () => {
    const { page, errors } = await open('/?seed=11');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.leader() !== null, null, { timeout: 30_000 });
    await pause(page);
    const base = await state(page);
    assert.deepEqual(await listed(page), []);
    assert.match(await page.locator(dock('.kp-linkstate')).textContent(), /^No faults/);

    // partition {n0 n1 n2} | {n3 n4}, then isolate n1, cut n3 -> n4, 10% loss, slow n2's disk, crash n4
    for (const [id, g] of [
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 1],
      [4, 1],
    ])
      await chipTo(page, id, g);
    await page.locator(dock('[data-action="partition"]')).click();
    await onNode(page, 1, 'isolate');
    await page.locator(dock('select[aria-label="Cut from node"]')).selectOption('3');
    await page.locator(dock('select[aria-label="Cut to node"]')).selectOption('4');
    await page.locator(dock('[data-action="cut"]')).click();
    await setLoss(page, 10);
    await onNode(page, 2, 'slow-disk');
    await onNode(page, 4, 'crash');
    await page.waitForTimeout(100);
    const all = await state(page);
    assert.deepEqual(all.faults.groups, [
      [0, 1, 2],
      [3, 4],
    ]);
    assert.deepEqual(all.faults.isolated, [1]);
    assert.deepEqual(all.faults.cuts, [[3, 4]]);
    assert.equal(all.network.loss, 0.1);
    assert.equal(all.disks[2], 400);
    assert.deepEqual(all.crashed, [4]);
    assert.deepEqual(await listed(page), ['crash:4', 'partition', 'isolate:1', 'cut:3-4', 'loss', 'disk:2']);

    const undo = async (key) => {
      await page.locator(dock(`[data-undo="${key}"]`)).click();
      await page.waitForFunction((k) => ![...document.querySelector('kraft-playground').shadowRoot.querySelectorAll('.kp-dock [data-active-fault]')].some((li) => li.dataset.activeFault === k), key);
      return state(page);
    };
    // heal the partition: n1 stays isolated and the cut stays
    let s = await undo('partition');
    assert.deepEqual(s.faults.groups, []);
    assert.deepEqual(s.faults.isolated, [1]);
    assert.deepEqual(s.faults.cuts, [[3, 4]]);
    const n1Links = [0, 2, 3, 4].flatMap((n) => [`1-${n}`, `${n}-1`]);
    assert.deepEqual(s.down, [...n1Links, '3-4'].sort());
    assert.equal(s.network.loss, 0.1);
    // reconnect n1: only the cut is left of the links
    s = await undo('isolate:1');
    assert.deepEqual(s.down, ['3-4']);
    s = await undo('cut:3-4');
    assert.deepEqual(s.down, []);
    assert.equal(s.network.loss, 0.1, 'loss untouched by link undos');
    assert.equal(s.disks[2], 400);
    // loss back to what the cluster was created with; latency and duplication untouched
    s = await undo('loss');
    assert.deepEqual(s.network, base.network);
    assert.equal(s.disks[2], 400);
    s = await undo('disk:2');
    assert.deepEqual(s.disks, base.disks);
    assert.deepEqual(s.crashed, [4]);
    s = await undo('crash:4');
    assert.deepEqual(s.crashed, []);
    assert.deepEqual(await listed(page), []);
    assert.match(await page.locator(dock('.kp-linkstate')).textContent(), /^No faults: every node up, every link up, no loss, latency 60–140 ms, disks flush in \d+ ms\.$/);
    // every undo went through the input log: the run replays from its link to the same digest
    const same = await page.evaluate(async () => {
      const c = document.querySelector('kraft-playground').cluster;
      const again = await c.constructor.fromLink(c.toLink());
      const kinds = c.inputs().map((a) => a.action);
      return { same: again.digest() === c.digest(), kinds };
    });
    assert.ok(same.same, 'the link replays to the same digest');
    for (const k of ['healPartition', 'reconnect', 'uncut', 'network', 'slowDisk', 'restart']) assert.ok(same.kinds.includes(k), `${k} recorded`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Clear all restores links, loss, latency, duplication and disks, and the status says so truthfully', async () => {
    const { page, errors } = await open('/?seed=4');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.leader() !== null, null, { timeout: 30_000 });
    await pause(page);
    const base = await state(page);
    await setLoss(page, 10);
    // latency and duplication from the network panel (full layout)
    await page.evaluate(() => {
      const r = document.querySelector('kraft-playground').shadowRoot;
      r.querySelector('input[aria-label="Latency minimum ms"]').value = '200';
      const max = r.querySelector('input[aria-label="Latency maximum ms"]');
      max.value = '300';
      max.dispatchEvent(new Event('change'));
    });
    await onNode(page, 0, 'slow-disk');
    await onNode(page, 2, 'isolate');
    await page.locator(dock('[data-action="cut"]')).click();
    // the old "heal all links" (key h) heals links only, and the dock says what is left
    await page.locator(`${EL} .kp-time`).click();
    await page.keyboard.press('h');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.downLinks().length === 0);
    await page.waitForTimeout(100);
    assert.deepEqual(await listed(page), ['loss', 'latency', 'disk:0']);
    const text = await page.locator(dock('.kp-linkstate')).textContent();
    assert.match(text, /Loss 10%/);
    assert.match(text, /Latency 200–300 ms \(normally 60–140 ms\)/);
    assert.match(text, /n0's disk flushes in 400 ms/);
    assert.doesNotMatch(text, /No faults|All links up/);
    // make link faults again and crash a node, then clear everything
    await onNode(page, 2, 'isolate');
    await onNode(page, 1, 'crash');
    await page.locator(dock('[data-action="clear-faults"]')).click();
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-dock .kp-linkstate').dataset.faults === 'none');
    const s = await state(page);
    assert.deepEqual(s.down, []);
    assert.deepEqual(s.faults, { groups: [], isolated: [], cuts: [], slowLinks: [] });
    assert.deepEqual(s.network, base.network);
    assert.deepEqual(s.disks, base.disks);
    assert.deepEqual(s.crashed, []);
    assert.equal(await page.locator(dock('.kp-linkstate')).textContent(), `No faults: every node up, every link up, no loss, latency 60–140 ms, disks flush in ${base.baseline.flushMs} ms.`);
    assert.ok(await page.locator(dock('[data-action="clear-faults"]')).isDisabled(), 'nothing left to clear');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("reconnecting an isolated node from its menu heals only that node's links", async () => {
    const { page, errors } = await open('/?seed=5');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.leader() !== null, null, { timeout: 30_000 });
    await pause(page);
    await page.locator(dock('[data-action="cut"]')).click(); // n0 -> n1
    await onNode(page, 4, 'isolate');
    await page.locator(`${EL} .kp-node-btn[data-node="2"]`).click();
    await page.locator(`${EL} .kp-menu [data-node-action="isolate"]`).click();
    let s = await state(page);
    assert.deepEqual(s.faults.isolated, [2, 4]);
    // the menu of n2 now offers Reconnect, which brings back n2's links and nothing else
    await page.locator(`${EL} .kp-menu [data-node-action="reconnect"]`).click();
    s = await state(page);
    const n4Links = [0, 1, 2, 3].flatMap((n) => [`4-${n}`, `${n}-4`]);
    assert.deepEqual(s.down, ['0-1', ...n4Links].sort());
    assert.deepEqual(s.faults.isolated, [4]);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the compact layout', () => {
  test('an element on a page gets the compact layout: at 800px wide it is at most 900px tall; layout="full" adds the panels', async () => {
    const { page, errors } = await open('/embed.html?seed=1', { viewport: { width: 800, height: 1000 } });
    // a docs page's element, with a story's caption showing
    await page.evaluate(() => {
      // a plain documentation page: no embed-page styles
      document.body.replaceChildren();
      document.body.className = '';
      const el = document.createElement('kraft-playground');
      el.id = 'docs';
      el.setAttribute('scenario', 'leader-crash-failover');
      document.body.appendChild(el);
    });
    await page.waitForFunction(() => document.getElementById('docs').cluster != null, null, { timeout: 30_000 });
    await page.evaluate(() => document.getElementById('docs').ready);
    await page.waitForTimeout(500);
    const measure = () =>
      page.evaluate(() => {
        const el = document.getElementById('docs');
        const r = el.shadowRoot;
        const shown = (s) => {
          const b = r.querySelector(s)?.getBoundingClientRect();
          return !!b && b.width > 0 && b.height > 0;
        };
        return {
          height: el.getBoundingClientRect().height,
          layout: r.querySelector('.kp-root').dataset.layout,
          ring: shown('.kp-ring-card'),
          timeline: shown('.kp-tl'),
          dock: shown('.kp-dock'),
          controls: shown('.kp-controls'),
          panels: shown('.kp-panels'),
          caption: shown('[data-caption]'),
        };
      });
    const compact = await measure();
    await page.locator('#docs').screenshot({ path: shotPath('embed-compact.png') });
    assert.equal(compact.layout, 'compact');
    assert.deepEqual({ ...compact, height: 0 }, { height: 0, layout: 'compact', ring: true, timeline: true, dock: true, controls: true, panels: false, caption: true });
    assert.ok(compact.height <= 900, `the compact element is ${compact.height}px tall at 800px wide`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(300);
    await page.locator('#docs').screenshot({ path: shotPath('faults-embed-800-dark.png') });
    await page.evaluate(() => document.getElementById('docs').setAttribute('layout', 'full'));
    await page.waitForTimeout(300);
    const full = await measure();
    assert.equal(full.layout, 'full');
    assert.ok(full.panels, 'layout="full" shows the panels');
    assert.ok(full.height > compact.height);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('embed.html at 800x900 shows ring, timeline and faults without scrolling', async () => {
    const { page, errors } = await open('/embed.html?scenario=first-election', { viewport: { width: 800, height: 900 } });
    await page.waitForTimeout(500);
    const scroll = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
    assert.ok(scroll <= 0, `the embed scrolls by ${scroll}px`);
    await assertOnScreen(page, ['.kp-ring-card', '.kp-tl', '.kp-dock', '[data-action="play"]', ...MAIN_FAULTS], 900);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('screenshots at 1440x900 in light and dark', async () => {
    for (const scheme of ['light', 'dark']) {
      const { page, errors } = await open('/?seed=3&speed=1', { viewport: { width: 1440, height: 900 }, colorScheme: scheme });
      await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.leader() !== null, null, { timeout: 30_000 });
      await pause(page);
      await assertOnScreen(page, ['.kp-ring-card', '.kp-dock', '.kp-tl-card', '[data-action="play"]', ...MAIN_FAULTS], 900);
      await onNode(page, 2, 'isolate');
      await setLoss(page, 10);
      await page.locator(`${EL} .kp-ring-key summary`).click();
      assert.match(await page.locator(`${EL} [data-ring-key]`).textContent(), /timer.*halo.*Red dot.*request in flight.*response/s);
      await page.screenshot({ path: shotPath(`faults-1440x900-${scheme}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
});

describe('faults made in the UI', () => {
  test('crashing the leader in the UI brings a new leader with a higher epoch, in the timeline and the quorum panel', async () => {
    const { page, errors } = await open('/?seed=7&speed=10');
    const old = await waitLeader(page);
    await page.waitForTimeout(300);
    await nodeAction(page, old.id, 'crash');
    const next = await waitLeader(page, { minEpoch: old.epoch, notId: old.id });
    assert.ok(next.epoch > old.epoch);
    await pause(page);
    // the crashed node is shown crashed
    assert.equal(await page.locator(`${EL} .kp-node-btn[data-node="${old.id}"]`).getAttribute('data-state'), 'crashed');
    // the timeline (its text summary) shows the crash and both elections once zoomed out
    await page.locator(`${EL} .kp-zoom[aria-label="Show the whole run"]`).click();
    await waitSummary(page);
    const tl = await summaryText(page, '[data-timeline]');
    assert.match(tl, new RegExp(`n${old.id} became leader of epoch ${old.epoch}`));
    assert.match(tl, new RegExp(`n${old.id} crashed`));
    assert.match(tl, new RegExp(`n${next.id} became leader of epoch ${next.epoch}`));
    // the quorum panel asks the new leader
    const q = await page.locator(`${EL} [data-quorum="status"]`).textContent();
    assert.match(q, new RegExp(`LeaderId:\\s+${next.id}\\n`));
    assert.match(q, new RegExp(`LeaderEpoch:\\s+${next.epoch}\\n`));
    const repl = await page.locator(`${EL} [data-quorum="replication"]`).textContent();
    assert.match(repl, new RegExp(`^${next.id}\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s+Leader$`, 'm'));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a partition made in the UI stops the minority from committing', async () => {
    const { page, errors } = await open('/?seed=11&speed=10');
    const old = await waitLeader(page);
    await page.waitForFunction(
      () =>
        document
          .querySelector('kraft-playground')
          .cluster.nodes({ records: false })
          .every((n) => n.hw !== null && n.hw >= 1),
      null,
      { timeout: 20_000 },
    );
    await pause(page);
    // Faults panel: the leader alone in group A, everyone else in B
    const chips = page.locator(`${EL} .kp-chip`);
    const n = await chips.count();
    for (let i = 0; i < n; i++) {
      const chip = chips.nth(i);
      const g = Number(/kp-g(\d)/.exec(await chip.getAttribute('class'))[1]);
      const want = i === old.id ? 0 : 1;
      for (let k = 0; k < (want - g + 3) % 3; k++) await chip.click();
    }
    await page.locator(`${EL} [data-action="partition"]`).click();
    await waitSummary(page);
    const hwBefore = (await summaryNodes(page))[`n${old.id}`].hw;
    // the cut-off leader still takes writes...
    for (let i = 0; i < 3; i++) await nodeAction(page, old.id, 'write');
    await forward(page, 1000);
    await waitSummary(page);
    let s = await summaryNodes(page);
    assert.ok(s[`n${old.id}`].leo > hwBefore, 'the minority leader appended the writes');
    assert.equal(s[`n${old.id}`].hw, hwBefore, 'but cannot commit them');
    // ...while the majority elects a leader of its own and commits
    await forward(page, 10_000);
    const next = await leaderOf(page);
    assert.notEqual(next.id, old.id);
    assert.ok(next.epoch > old.epoch);
    await nodeAction(page, next.id, 'write');
    await forward(page, 2000);
    await waitSummary(page);
    s = await summaryNodes(page);
    // Check-quorum made the cut-off leader resign, and Kafka carries no HW into Resigned
    // (nor into the Unattached state after it): the minority never committed past hwBefore.
    assert.notEqual(s[`n${old.id}`].state, 'leader');
    assert.equal(s[`n${old.id}`].hw, null, 'the minority HW never moved');
    assert.ok(s[`n${next.id}`].hw > hwBefore, 'the majority commits');
    assert.match(await page.locator(`${EL} .kp-linkstate`).textContent(), /Partitioned/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('arrow-key steps of the loss slider record one action once the value settles', async () => {
    const { page, errors } = await open('/?seed=13&speed=10&autoplay=0');
    const before = await page.evaluate(() => document.querySelector('kraft-playground').cluster.inputs().length);
    const slider = page.locator(`${EL} input[aria-label="Message loss percent"]`);
    await slider.focus();
    for (let i = 0; i < 10; i++) await slider.press('ArrowRight');
    assert.equal(await page.locator(`${EL} .kp-faults output`).first().textContent(), '10%');
    await page.waitForFunction((n) => document.querySelector('kraft-playground').cluster.inputs().length > n, before, { timeout: 5_000 });
    await page.waitForTimeout(800); // nothing more arrives
    const inputs = await page.evaluate(() => document.querySelector('kraft-playground').cluster.inputs());
    const added = inputs.slice(before);
    assert.equal(added.length, 1, `one action for ten key presses: ${JSON.stringify(added)}`);
    assert.equal(added[0].action, 'network');
    assert.equal(added[0].loss, 0.1);
    // a drag (pointer) applies on release, at once
    const box = await slider.boundingBox();
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2, { steps: 8 });
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    const afterDrag = await page.evaluate(() => document.querySelector('kraft-playground').cluster.inputs());
    assert.equal(afterDrag.length, inputs.length + 1, 'one action per drag');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
