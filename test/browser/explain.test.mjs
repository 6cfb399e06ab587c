// The explain popover, in Chromium: every kind of event on the timeline (marks, state
// changes, HW steps, arrows) opens, on Enter or a click, the sentence the core builds from
// the event's recorded reason, naming the Kafka rule; Escape closes it and returns focus;
// it stays inside the viewport on a phone and is readable in dark mode.
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EL, nowOf, shotPath, useSite } from './harness.mjs';

const site = useSite();

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
