// The timeline, in Chromium. The explain popover: every kind of event on the timeline
// (marks, state changes, HW steps, arrows) opens, on Enter or a click, the sentence the
// core builds from the event's recorded reason, naming the Kafka rule; Escape closes it
// and returns focus; it stays inside the viewport on a phone and is readable in dark mode.
// The fault labels: stacked at their moment, clear of the marks. Time travel: seeking
// back and forward shows the same state.
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestOf, EL, forward, leaderOf, nodeAction, nowOf, pause, shotPath, summaryNodes, useSite, waitLeader, waitSummary } from './harness.mjs';

const site = useSite();
const open = site.open;

/** Opens a story paused, travels to its end, puts its completion card away (it covers the stage) and shows the whole run. */
async function storyAtEnd(path, opts) {
  const { page, errors } = await site.open(path, opts);
  await page.locator(`${EL} .kp-time`).click();
  await page.keyboard.press('End');
  // the end is reached when the clock stops moving
  let last = -1;
  for (;;) {
    const now = await nowOf(page);
    if (now > 0 && now === last) break;
    last = now;
    await page.waitForTimeout(300);
  }
  await page.locator(`${EL} [data-action="hide-card"]`).click();
  await page.locator(`${EL} [aria-label="Show the whole run"]`).click();
  return { page, errors };
}

const activeClass = (page) => page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.activeElement?.className ?? '');

/**
 * Steps the keyboard selection through the timeline (ArrowDown) and, for the first
 * hit of each title kind, presses Enter and records the popover's sentence.
 */
async function explainEachKind(page, kindOf, max = 600) {
  const seen = new Map();
  const tl = page.locator(`${EL} .kp-tl`);
  await tl.focus();
  let first = '';
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('ArrowDown');
    const head = await page.locator(`${EL} .kp-tl > .kp-tip .kp-tip-h`).textContent();
    const body = await page.locator(`${EL} .kp-tl > .kp-tip`).textContent();
    if (body === first) break; // wrapped around
    if (!first) first = body;
    const kind = kindOf(head);
    if (seen.has(kind)) continue;
    await page.keyboard.press('Enter');
    const pop = page.locator(`${EL} .kp-explain`);
    await pop.waitFor({ state: 'visible' });
    assert.equal(await activeClass(page), 'kp-explain', 'focus moves into the popover');
    seen.set(kind, { head, why: await pop.locator('.kp-explain-why').textContent() });
    await page.keyboard.press('Escape');
    await pop.waitFor({ state: 'hidden' });
    assert.match(await activeClass(page), /\bkp-tl\b/, 'Escape returns focus to the timeline');
  }
  return seen;
}

describe('every event explained', () => {
  test('figure-8 (unsafe variant): one of each kind on the timeline, explained by the core', async () => {
    const { page, errors } = await storyAtEnd('/?scenario=figure-8&variant=hw-before-own-epoch&speed=10&autoplay=0', { viewport: { width: 1440, height: 900 } });
    // marks, state changes and HW steps first: hide every arrow group
    const legend = page.locator(`${EL} .kp-legend-item`);
    for (let i = 0; i < (await legend.count()); i++) await legend.nth(i).click();
    const marks = await explainEachKind(page, (head) => (head.startsWith('State:') ? 'State' : head.replace(/:.*/, '')));
    const want = {
      'New leader': /^n\d went from candidate to leader in epoch \d+: a majority of voters granted its vote.*\(KafkaRaftClient\.handleVoteResponse, KafkaRaftClient\.onBecomeLeader\)$/,
      State: /^n\d went from \w+ to \w+ in epoch \d+: .*\((KafkaRaftClient|QuorumState|prospectiveTransitionAfterElectionLoss)[^)]*\)$/,
      'High watermark': /^n\d's high watermark moved .*to \d+: .*\((LeaderState\.maybeUpdateHighWatermark|KafkaRaftClient\.updateFollowerHighWatermark)\)$/,
      Crash: /^n\d crashed .*lost \d+ unflushed record\(s\).*\(FileQuorumStateStore, ReplicatedLog\.flush\)$/,
      Restart: /^n\d restarted: .*\(QuorumState\.initialize, KAFKA-10661\)$/,
      'Invariant violated': /^the checker found \w+ at n\d broken: .*; it requires that .*\(a safety property Kafka's RaftEventSimulationTest or the Raft paper checks\)$/,
    };
    for (const [kind, re] of Object.entries(want)) {
      assert.ok(marks.has(kind), `a ${kind} event on the timeline (saw ${[...marks.keys()].join(', ')})`);
      assert.match(marks.get(kind).why, re, kind);
    }
    // one figure-8 HW step at the leader names its majority
    // arrows: show only the vote requests and their answers
    for (const g of ['PreVote', 'Vote']) await page.locator(`${EL} .kp-legend-item[data-rpc="${g}"]`).click();
    // (vote marks show with the vote arrows)
    const votes = await explainEachKind(page, (head) => (head.includes('→') ? `arrow ${head.split(/\s/)[0]}` : head.replace(/:.*/, '')), 300);
    assert.match(votes.get('Vote')?.why ?? '', /^n\d (granted|rejected) n\d's (pre-vote|vote): .*\((\w+State\.canGrantVote|KafkaRaftClient\.handleVoteRequest)[^)]*\)$/);
    const arrows = [...votes].filter(([k]) => k.startsWith('arrow '));
    assert.ok(arrows.length >= 2, `vote requests and answers to explain (saw ${[...votes.keys()].join(', ')})`);
    for (const [kind, { why }] of arrows) {
      assert.match(why, /KafkaRaftClient\.(maybeSendVoteRequests|handleVoteRequest|handleVoteResponse)/, `${kind}: ${why}`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('minority-partition: a click on the truncation and the partition fault, and the popover on a phone in dark mode', async () => {
    const { page, errors } = await storyAtEnd('/?scenario=minority-partition&speed=10&autoplay=0', { viewport: { width: 1280, height: 720 } });
    const legend = page.locator(`${EL} .kp-legend-item`);
    for (let i = 0; i < (await legend.count()); i++) await legend.nth(i).click();
    const marks = await explainEachKind(page, (head) => (head.startsWith('State:') ? 'State' : head.replace(/:.*/, '')));
    assert.match(marks.get('Truncation')?.why ?? '', /^n\d removed records \d+\.\.\d+ .*diverges after epoch \d+.*\(KafkaRaftClient\.handleFetchResponse, ReplicatedLog\.truncateToEndOffset\)$/);
    assert.match(marks.get('Fault')?.why ?? '', /^the network was split into \[.*\] and \[.*\]: .*a fault injected by you or the scenario/);
    // a click (not the keyboard): select the truncation with the keys, then click where its tooltip says it is
    const tl = page.locator(`${EL} .kp-tl`);
    await tl.focus();
    for (let i = 0; i < 600; i++) {
      await page.keyboard.press('ArrowDown');
      if ((await page.locator(`${EL} .kp-tl > .kp-tip .kp-tip-h`).textContent()) === 'Truncation') break;
    }
    const [x, y] = (await page.locator(`${EL} .kp-tl > .kp-tip`).getAttribute('data-at')).split(',').map(Number);
    const canvas = await page.locator(`${EL} .kp-tl-canvas`).boundingBox();
    await page.mouse.click(canvas.x + x, canvas.y + y);
    const pop = page.locator(`${EL} .kp-explain`);
    await pop.waitFor({ state: 'visible' });
    assert.equal(await pop.locator('.kp-explain-h').textContent(), 'Truncation');
    assert.match(await pop.locator('.kp-explain-why').textContent(), /ReplicatedLog\.truncateToEndOffset/);
    // it points at its event: its caret's tip just clear of the clicked point's mark (a 22 px bar), the popover off it and its label
    const at = { x: canvas.x + x, y: canvas.y + y };
    const tip = await pop.evaluate((p) => {
      const b = p.getBoundingClientRect();
      const c = getComputedStyle(p, '::before');
      if (c.content === 'none') return null;
      const side = p.dataset.caret;
      return { x: b.left + Number.parseFloat(c.left) + Number.parseFloat(c.width) / 2 + 1, y: side === 'up' ? b.top - 10 : b.bottom + 10, top: b.top, bottom: b.bottom };
    });
    assert.ok(tip, 'the popover has a caret');
    assert.ok(Math.abs(tip.x - at.x) <= 2 && Math.abs(Math.abs(tip.y - at.y) - 10) <= 2, `the caret's tip ${JSON.stringify(tip)} is 10 px from the event at ${JSON.stringify(at)}`);
    assert.ok(at.y + 16 < tip.top || at.y - 16 > tip.bottom, 'the popover does not cover its event or its label');
    await page.screenshot({ path: shotPath('explain-popover.png') });
    await page.keyboard.press('Escape');
    await pop.waitFor({ state: 'hidden' });

    // a phone in dark mode: the popover stays inside the viewport and its text contrasts with its background
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await tl.scrollIntoViewIfNeeded();
    await tl.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await pop.waitFor({ state: 'visible' });
    const box = await pop.boundingBox();
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844, `inside the phone's viewport: ${JSON.stringify(box)}`);
    const colors = await page.evaluate(() => {
      const p = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-explain');
      const cs = getComputedStyle(p);
      return [cs.color, cs.backgroundColor];
    });
    const lum = (c) => {
      const [r, g, b] = c
        .match(/\d+(\.\d+)?/g)
        .slice(0, 3)
        .map((v) => {
          const s = Number(v) / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [fg, bg] = colors.map(lum);
    const contrast = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    assert.ok(contrast >= 4.5, `text contrast ${contrast.toFixed(2)} (${colors.join(' on ')})`);
    assert.ok(bg < 0.2, `dark background in dark mode (${colors[1]})`);
    await page.screenshot({ path: shotPath('explain-popover-phone-dark.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** Columns and rows of the timeline canvas holding fault-red pixels, in the axis row and below it. */
const redFlagBox = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-tl-canvas');
    const k = c.width / c.clientWidth;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const AXIS_H = 38;
    const cols = new Set();
    const rows = new Set();
    for (let y = Math.round((AXIS_H - 16) * k); y < c.height; y++) {
      for (let x = 0; x < c.width; x++) {
        const i = (y * c.width + x) * 4;
        // #dc2626 (--kp-danger), solid: the flags' fill (the dashed fault line is one column)
        if (Math.abs(d[i] - 220) < 12 && Math.abs(d[i + 1] - 38) < 12 && Math.abs(d[i + 2] - 38) < 12) {
          cols.add(Math.floor(x / k));
          rows.add(Math.floor(y / k));
        }
      }
    }
    const xs = [...cols];
    return { cols: cols.size, minX: Math.min(...xs), maxX: Math.max(...xs), rows: rows.size };
  });

describe('timeline fault labels', () => {
  test('ten cuts at t=0 are labelled at t=0, stacked, not spread over the next seconds', async () => {
    const { page } = await open('/?seed=3&voters=5&observers=0&autoplay=0');
    await page.evaluate(async () => {
      const el = document.querySelector('kraft-playground');
      const c = el.cluster;
      let k = 0;
      for (let a = 0; a < 5 && k < 10; a++) for (let b = 0; b < 5 && k < 10; b++) if (a !== b && k++ < 10) c.cut(a, b);
      el.player.refresh();
      await new Promise((r) => setTimeout(r, 300));
    });
    const box = await redFlagBox(page);
    // one label's width (about 60-130 px) and ten rows of them; spread in time, they would cover 10 widths
    assert.ok(box.maxX - box.minX < 200, `the labels span ${box.minX}..${box.maxX} px`);
    assert.ok(box.rows > 5 * 15, `stacked: red in ${box.rows} pixel rows`);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('timeline-stacked-flags.png') });
    await page.close();
  });
  test("flags over the lanes keep clear of the marks: n0's truncation bar shows whole under the labels (minority-partition, the whole run)", async () => {
    const { page } = await open('/?scenario=minority-partition&autoplay=0', { viewport: { width: 1440, height: 900 } });
    await page.locator(`${EL} .kp-time`).click();
    await page.keyboard.press('End');
    await page.locator(`${EL} [data-action="hide-card"]`).click();
    await page.keyboard.press('0'); // the whole run: its flags crowd into rows over the lanes
    await page.waitForTimeout(300);
    const bars = await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      const c = el.shadowRoot.querySelector('.kp-tl-canvas');
      const [t0, t1] = el.shadowRoot.querySelector('.kp-tl').dataset.window.split(',').map(Number);
      const k = c.width / c.clientWidth;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      // the geometry of timeline-geometry.ts: gutter 46 px, axis 38 px, a lane's middle
      const lanes = el.cluster.nodes({ records: false }).length;
      const mid = 38 + Math.min(((c.clientHeight - 42) / lanes) * 0.42, 26);
      const red = (x, y) => {
        const i = (Math.round(y * k) * c.width + Math.round(x * k)) * 4;
        return Math.abs(d[i] - 220) < 14 && Math.abs(d[i + 1] - 38) < 14 && Math.abs(d[i + 2] - 38) < 14;
      };
      return el.cluster
        .events()
        .filter((e) => e.type === 'truncate' && e.node === 0)
        .map((e) => {
          const x = 46 + ((e.t - t0) * (c.clientWidth - 46)) / (t1 - t0);
          // the bar: 22 px tall and 2.5 wide about the mark's x; the best of its columns
          let best = 0;
          for (let dx = -1; dx <= 1.5; dx += 0.5) {
            let n = 0;
            for (let y = mid - 10; y <= mid + 10; y++) n += red(x + dx, y) ? 1 : 0;
            best = Math.max(best, n);
          }
          return { t: e.t, red: best };
        });
    });
    assert.ok(bars.length >= 1, 'n0 truncates in this story');
    for (const b of bars) assert.ok(b.red >= 19, `the truncation bar at ${b.t} ms shows ${b.red} of 21 px`);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('timeline-flags-clear-of-marks.png') });
    await page.close();
  });
});

describe('time travel', () => {
  test('seeking back and forward shows the same state', async () => {
    const { page, errors } = await open('/?seed=5&speed=10');
    await waitLeader(page);
    await pause(page);
    const l = await leaderOf(page);
    await nodeAction(page, l.id, 'crash');
    await forward(page, 6000);
    await waitSummary(page);
    const t = await nowOf(page);
    const at = { nodes: await summaryNodes(page), digest: await digestOf(page), quorum: await page.locator(`${EL} [data-quorum="status"]`).textContent() };
    const scrub = page.locator(`${EL} .kp-scrub`);
    const half = Math.floor(t / 3);
    await scrub.fill(String(half));
    await page.waitForFunction((x) => document.querySelector('kraft-playground').cluster.now === x, half);
    await waitSummary(page);
    assert.notDeepEqual(await summaryNodes(page), at.nodes, 'back in time the cluster looks different');
    assert.equal(await page.locator(`${EL} .kp-time`).getAttribute('data-time'), String(half));
    await scrub.fill(String(t));
    await page.waitForFunction((x) => document.querySelector('kraft-playground').cluster.now === x, t);
    await waitSummary(page);
    assert.deepEqual(await summaryNodes(page), at.nodes);
    assert.equal(await digestOf(page), at.digest);
    assert.equal(await page.locator(`${EL} [data-quorum="status"]`).textContent(), at.quorum);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
