// Stories that land, in Chromium: the summary is a panel that reopens; the story stops
// at every caption with the timeline showing that moment and highlighting the nodes the
// caption names; it ends with a completion card carrying the report's numbers, the same
// way in every story; acting in a story says so and offers the way back. A stop whose
// caption names messages emphasizes those arrows and dims the others. A ?scenario= link
// opens its story; built-in stories need only the core; an unsafe variant shows its
// violation.
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, launch, openPage, play, root, shotPath, summaryText, useSite, waitSummary } from './harness.mjs';

const scenarioFile = (id) => JSON.parse(readFileSync(join(root, 'scenarios', `${id}.json`), 'utf8'));

const site = useSite();

async function open(path, opts) {
  const { page, errors } = await site.open(path, opts);
  await page.locator(`${EL} [data-caption]`).waitFor({ state: 'visible' });
  return { page, errors };
}

const nowOf = (page) => page.evaluate(() => document.querySelector('kraft-playground').cluster.now);

/** The caption's state (waiting, playing, complete, left-script) and the step it shows. */
const captionState = (page) =>
  page.evaluate(() => {
    const r = document.querySelector('kraft-playground').shadowRoot;
    const c = r.querySelector('[data-caption]');
    return { state: c.dataset.state, step: c.querySelector('.kp-caption-text').dataset.step, text: c.textContent };
  });

/** What the timeline draws: its window and highlighted lanes. */
const timelineView = (page) =>
  page.evaluate(() => {
    const tl = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-tl');
    const [t0, t1] = (tl.dataset.window ?? '').split(',').map(Number);
    return { t0, t1, nodes: (tl.dataset.highlightNodes ?? '').split(',').filter(Boolean).map(Number) };
  });

/** Waits until the story waits at a stop or has ended; returns the caption state. */
async function nextStop(page) {
  await page.waitForFunction(
    () => {
      const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
      return c.dataset.state === 'waiting' || c.dataset.state === 'complete';
    },
    null,
    { timeout: 30_000 },
  );
  // the frame after the stop has drawn the timeline
  await page.waitForTimeout(100);
  return captionState(page);
}

/** Starts the story, unless the page already did (it autoplays) and it waits at its first stop. */
async function start(page) {
  await page.waitForTimeout(200);
  // read at one moment: a frame between two reads could reach the first stop, and a click then would play past it
  const idle = await page.evaluate(() => {
    const el = document.querySelector('kraft-playground');
    return el.shadowRoot.querySelector('[data-caption]').dataset.state !== 'waiting' && !el.hasAttribute('data-playing');
  });
  if (idle) await page.locator(`${EL} [data-action="play"]`).click();
}

/** Plays a story through every stop to its completion card; returns the stops seen. */
async function playToEnd(page) {
  const stops = [];
  await start(page);
  for (let i = 0; i < 40; i++) {
    const s = await nextStop(page);
    if (s.state === 'complete') return stops;
    stops.push({ ...s, now: await nowOf(page), view: await timelineView(page) });
    await page.locator(`${EL} [data-action="continue"]`).click();
    await page.waitForFunction((n) => document.querySelector('kraft-playground').cluster.now > n, stops.at(-1).now);
  }
  throw new Error('the story did not end');
}

describe('stories that land', () => {
  test('the summary is a panel that reopens, also once the story plays', async () => {
    const { page, errors } = await open('/?scenario=figure-8&speed=10');
    const about = page.locator(`${EL} [data-story-summary]`);
    const btn = page.locator(`${EL} [data-action="story-summary"]`);
    await nextStop(page);
    assert.ok(await about.isHidden(), 'closed while a caption is shown');
    await btn.click();
    await about.waitFor({ state: 'visible' });
    assert.match(await about.textContent(), /figure 8, told with KRaft epochs/);
    await btn.click();
    assert.ok(await about.isHidden(), 'closes');
    await btn.click();
    assert.ok(await about.isVisible(), 'reopens');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a story opens at its start without running first; its recorded future fills in after, nothing played', async () => {
    const { page, errors } = await site.open('/?scenario=leader-crash-failover&autoplay=0');
    // the timeline's description (the accessible summary) counts the messages in view:
    // at t = 0 only the future ones, there once the future is read
    const inView = () =>
      page.evaluate(() => {
        const el = document.querySelector('kraft-playground');
        const text = el.shadowRoot.querySelector('[data-summary] [data-window]')?.textContent ?? '';
        return { now: el.cluster.now, future: el.cluster.futureInputs().length, messages: Number(/(\d+) messages? in view/.exec(text)?.[1] ?? 0) };
      });
    let seen = await inView();
    for (let i = 0; i < 100 && seen.messages < 20; i++) {
      await page.waitForTimeout(50);
      seen = await inView();
    }
    assert.equal(seen.now, 0, 'nothing played');
    assert.ok(seen.future > 0, "the story's inputs are ahead");
    assert.ok(seen.messages >= 20, `the recorded future is in view: ${JSON.stringify(seen)}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the story stops at every caption, the timeline showing its moment and the nodes it names; X is labelled', async () => {
    const { page, errors } = await open('/?scenario=figure-8&speed=10');
    const file = scenarioFile('figure-8');
    const stops = await playToEnd(page);
    const captionedSteps = file.steps.map((s, i) => ({ ...s, index: i })).filter((s) => s.caption);
    assert.deepEqual(
      stops.map((s) => Number(s.step)),
      captionedSteps.map((s) => s.index),
      'one stop per caption, in order',
    );
    for (const s of stops) {
      const step = file.steps[Number(s.step)];
      assert.ok(s.view.t0 <= s.now && s.now <= s.view.t1, `step ${s.step}: the window [${s.view.t0}, ${s.view.t1}] holds its moment ${s.now}`);
      assert.deepEqual(s.view.nodes, [...(step.focus?.nodes ?? [])].sort(), `step ${s.step}: highlighted lanes`);
      assert.match(s.text, /paused so you can look/);
    }
    const overwrite = stops.find((s) => file.steps[Number(s.step)].label === 'overwritten');
    assert.ok(overwrite, 'the overwrite of X is a stop');
    assert.match(overwrite.text, /truncates X/);
    // the Logs panel names X where it sits (seek to the moment X is on n0 and n1)
    const x = stops.find((s) => file.steps[Number(s.step)].label === 'x');
    await page.evaluate((t) => document.querySelector('kraft-playground').player.seek(t + 200), x.now);
    await page.waitForFunction(() => /named records: X at offset 2/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('[data-summary] [data-logs]').textContent), null, {
      timeout: 5000,
    });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a pause shows its moment: screenshot for the README', async () => {
    const { page, errors } = await open('/?scenario=figure-8&speed=10', { viewport: { width: 1440, height: 900 } });
    await start(page);
    let s = await nextStop(page);
    while (file8Label(s.step) !== 'n1Fetched') {
      await page.locator(`${EL} [data-action="continue"]`).click();
      await page.waitForTimeout(50);
      s = await nextStop(page);
    }
    await page.screenshot({ path: shotPath('story-pause.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const id of ['leader-crash-failover', 'figure-8']) {
    test(`${id} ends with a completion card: what you saw, the report's numbers, what to try next; play goes on the same way`, async () => {
      const { page, errors } = await open(`/?scenario=${id}&speed=10`, { viewport: { width: 1440, height: 900 } });
      await playToEnd(page);
      const card = page.locator(`${EL} [data-story-complete="${id}"]`);
      await card.waitFor({ state: 'visible' });
      const text = await card.textContent();
      assert.match(text, /What you saw/);
      const golden = readFileSync(join(root, 'scenarios/golden', `${id}.txt`), 'utf8');
      if (id === 'leader-crash-failover') {
        // the numbers are the report's, split into detection, election and first commit
        const m = /failover (\d+\.\d+s) = detection (\d+\.\d+s) .* \+ election (\d+\.\d+s); first commit (\d+\.\d+s) later/.exec(golden);
        assert.ok(m, 'the golden report has the failover');
        for (const [part, v] of [
          ['detection', m[2]],
          ['election', m[3]],
          ['first commit', m[4]],
        ]) {
          assert.equal(await card.locator(`[data-part="${part}"]`).textContent(), `${part}: ${v}`);
        }
        assert.match(text, new RegExp(`failover ${m[1].replace('.', '\\.')}`));
        await page.screenshot({ path: shotPath('story-complete.png') });
      } else {
        assert.ok(await card.locator('[data-try="figure-8:hw-before-own-epoch"]').isVisible(), 'offers the unsafe variant');
      }
      assert.ok((await card.locator('[data-try]').count()) >= 1, 'something to try next');
      // it stays at its end...
      const end = await nowOf(page);
      await page.waitForTimeout(300);
      assert.equal(await nowOf(page), end, 'stopped at the end');
      assert.ok(await page.locator(`${EL} [data-action="continue"]`).isHidden(), 'no Continue at the end');
      // ...and play goes on past it as free play: the card makes way, the bar still says
      // the story is complete (not an old caption) and shows the card again
      await page.locator(`${EL} [data-action="play"]`).click();
      await page.waitForFunction((e) => document.querySelector('kraft-playground').cluster.now > e + 500, end);
      assert.equal((await captionState(page)).state, 'complete');
      assert.ok(await card.isHidden(), 'the card made way for free play');
      await page.locator(`${EL} [data-action="show-card"]`).click();
      await card.waitFor({ state: 'visible' });
      // the unsafe variant opens from the card
      if (id === 'figure-8') {
        await card.locator('[data-try="figure-8:hw-before-own-epoch"]').click();
        await page.waitForFunction(() => /without the own-epoch rule/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').textContent));
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('every story, played frame by frame at a speed whose frames end between whole ms, stops at each caption and holds at its end; play then goes on as free play', async () => {
    // The regression: a frame checked its stops against now + speed x wall time, but the
    // player advances by whole ms with the fractions it carries, so a frame could land on
    // or just past a stop (or the story's end) it had not seen coming: that stop was
    // skipped, or at the end the card showed and play went on. Under load the frames are
    // short and it happened often; a fake clock (frames exactly 16 ms apart, their own
    // browser) and speed 3.3 (52.8 ms a frame) make it happen the same way every run.
    const own = await launch();
    await own.context.clock.install({ time: 0 });
    await own.context.clock.pauseAt(1000);
    try {
      const ids = readdirSync(join(root, 'scenarios'))
        .filter((f) => f.endsWith('.json') && f !== 'schema.json')
        .map((f) => f.replace(/\.json$/, ''));
      const problems = [];
      for (const id of ids) {
        const file = scenarioFile(id);
        const { page, errors } = await openPage(own.context, `${site.server.url}?scenario=${id}&speed=3.3&autoplay=0`);
        // the caption bar shows while the core loads: ready once the run is there too
        const ready = () =>
          page.evaluate(() => !!document.querySelector('kraft-playground')?.cluster && !!document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]:not([hidden])'));
        for (let i = 0; i < 1500 && !(await ready()); i++) await page.clock.runFor(20);
        const state = () =>
          page.evaluate(() => {
            const el = document.querySelector('kraft-playground');
            const c = el.shadowRoot.querySelector('[data-caption]');
            return { state: c.dataset.state, step: c.querySelector('.kp-caption-text').dataset.step, now: el.cluster.now, end: Number(c.dataset.end), playing: el.hasAttribute('data-playing') };
          });
        const stops = [];
        let s = await state();
        for (let i = 0; i < 200 && !(s.state === 'complete' && !s.playing); i++) {
          if (!s.playing) {
            if (s.state === 'waiting') stops.push(Number(s.step));
            await page.evaluate(() => document.querySelector('kraft-playground').play());
          }
          await page.clock.runFor(2000);
          s = await state();
        }
        const want = file.steps.flatMap((st, i) => (st.caption || st.pause ? [i] : []));
        if (stops.join() !== want.join()) problems.push(`${id}: stopped at steps ${stops.join()}, not ${want.join()}`);
        if (s.now !== s.end) problems.push(`${id}: ended at ${s.now}, not its end ${s.end}`);
        await page.clock.runFor(1000);
        if ((await state()).now !== s.now) problems.push(`${id}: played on past its end after the card showed`);
        await page.evaluate(() => document.querySelector('kraft-playground').play());
        await page.clock.runFor(500);
        const on = await state();
        if (!(on.now > s.now && on.state === 'complete')) problems.push(`${id}: play past the end gave ${on.state} at ${on.now}`);
        assert.deepEqual(errors, [], id);
        await page.close();
      }
      assert.deepEqual(problems, []);
    } finally {
      await own.close();
    }
  });

  test('acting in a story says you left the script, updates the ticks, and returning reopens the story at that step', async () => {
    const { page, errors } = await open('/?scenario=figure-8&speed=10');
    await start(page);
    let s = await nextStop(page);
    await page.locator(`${EL} [data-action="continue"]`).click();
    await page.waitForTimeout(50);
    s = await nextStop(page);
    const at = await nowOf(page);
    const ticksBefore = await page.locator(`${EL} .kp-tick`).count();
    // crash a node at the pause
    await page.locator(`${EL} .kp-node-btn[data-node="3"]`).click();
    await page.locator(`${EL} [data-node-action="crash"]`).click();
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').dataset.state === 'left-script');
    const left = await captionState(page);
    assert.equal(left.state, 'left-script');
    assert.match(left.text, /you left the script at step 2 of \d+/);
    assert.ok(!left.text.includes(file8Caption(s.step)), 'the old caption is gone');
    const ticksAfter = await page.locator(`${EL} .kp-tick`).count();
    assert.equal(ticksAfter, 2, `only the steps already passed keep their ticks (${ticksBefore} before)`);
    // playing on stays off the script: no stop at the story's next caption
    const back = page.locator(`${EL} [data-action="return-to-script"]`);
    assert.match(await back.textContent(), /Return to the story at step 2/);
    await back.click();
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').dataset.state === 'waiting');
    const again = await captionState(page);
    assert.equal(again.step, s.step, 'back at the same step');
    assert.equal(await nowOf(page), at, 'at its moment');
    assert.equal(await page.locator(`${EL} .kp-tick`).count(), ticksBefore, 'every tick is back');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

function file8Label(step) {
  return scenarioFile('figure-8').steps[Number(step)]?.label;
}
function file8Caption(step) {
  return (scenarioFile('figure-8').steps[Number(step)]?.caption ?? '').replace(/\*\*|`/g, '');
}

/** What the timeline draws of the named messages, and the legend entries marked. */
const named = (page) =>
  page.evaluate(() => {
    const r = document.querySelector('kraft-playground').shadowRoot;
    const tl = r.querySelector('.kp-tl');
    return {
      emphasized: tl.dataset.namedArrows ?? '',
      dimmed: tl.dataset.dimmedArrows ?? '',
      marked: [...r.querySelectorAll('.kp-legend-item.kp-legend-named')].map((b) => b.dataset.rpc),
    };
  });

const stepShown = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
    return { state: c.dataset.state, step: Number(c.querySelector('.kp-caption-text')?.dataset.step) };
  });

/** Plays on to the stop at step `index` (the story autoplays, or is started here). */
async function stopAt(page, index) {
  for (let i = 0; i < 40; i++) {
    await page.waitForFunction(
      () => {
        const el = document.querySelector('kraft-playground');
        const c = el.shadowRoot.querySelector('[data-caption]');
        return c.dataset.state === 'waiting' || c.dataset.state === 'complete' || !el.hasAttribute('data-playing');
      },
      null,
      { timeout: 30_000 },
    );
    await page.waitForTimeout(150);
    const s = await stepShown(page);
    if (s.state === 'waiting' && s.step === index) return;
    if (s.state === 'complete') throw new Error(`the story ended before step ${index}`);
    await page.locator(`${EL} [data-action="${s.state === 'waiting' ? 'continue' : 'play'}"]`).click();
    await page.waitForTimeout(100);
  }
  throw new Error(`no stop at step ${index}`);
}

describe('a stop names messages', () => {
  test('leader-crash-failover: at the crash the Fetch arrows are emphasized, Fetch marked; at detection PreVote is, Fetch dimmed; not after the stop', async () => {
    const { page, errors } = await site.open('/?scenario=leader-crash-failover&speed=10');
    await page.locator(`${EL} [data-caption]`).waitFor({ state: 'visible' });
    await stopAt(page, 1);
    const crash = await named(page);
    // every arrow around the crash is a Fetch or its response: all named, none dimmed
    assert.ok(Number(crash.emphasized) > 0, `Fetch arrows emphasized: ${JSON.stringify(crash)}`);
    assert.deepEqual(crash.marked, ['Fetch']);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('story-messages-fetch.png') });
    await stopAt(page, 2);
    const detection = await named(page);
    assert.ok(Number(detection.emphasized) > 0, `PreVote arrows emphasized: ${JSON.stringify(detection)}`);
    assert.ok(Number(detection.dimmed) > 0, `the Fetch arrows dimmed: ${JSON.stringify(detection)}`);
    assert.deepEqual(detection.marked, ['PreVote']);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('story-messages.png') });
    await page.locator(`${EL} [data-action="continue"]`).click();
    // away from step 2: playing, or (42 ms of wall time later at 10x, which a busy machine's
    // polling can miss) already waiting at step 3, whose caption names no messages
    await page.waitForFunction(() => {
      const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
      return c.dataset.state !== 'waiting' || c.querySelector('.kp-caption-text').dataset.step !== '2';
    });
    await page.waitForTimeout(150);
    assert.deepEqual(await named(page), { emphasized: '', dimmed: '', marked: [] }, 'playing on: every arrow as usual');
    assert.deepEqual(errors, []);
    await page.close();
  });

  // every named message is on screen at its stop: a focus whose from/to match nothing would highlight nothing
  const stories = readdirSync(join(root, 'scenarios'))
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .map((f) => ({ id: f.slice(0, -5), file: JSON.parse(readFileSync(join(root, 'scenarios', f), 'utf8')) }))
    .filter(({ file }) => file.steps?.some((s) => s.focus?.messages && s.caption));
  for (const { id, file } of stories) {
    test(`${id}: each stop naming messages emphasizes some arrows`, async () => {
      const { page, errors } = await site.open(`/?scenario=${id}&speed=20`);
      await page.locator(`${EL} [data-caption]`).waitFor({ state: 'visible' });
      for (const [i, st] of file.steps.entries()) {
        if (!st.caption || !st.focus?.messages) continue;
        await stopAt(page, i);
        const at = await named(page);
        assert.ok(Number(at.emphasized) > 0, `step ${i}: ${JSON.stringify(st.focus.messages)} emphasizes arrows: ${JSON.stringify(at)}`);
        assert.deepEqual(at.marked.sort(), [...new Set(st.focus.messages.map((m) => m.kind))].sort(), `step ${i}: legend`);
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});

describe('scenarios', () => {
  test('a ?scenario= link loads the story, shows captions at their moments and pauses where asked', async () => {
    const { page, errors } = await open('/?scenario=partitioned-leader&speed=10');
    assert.equal(await page.locator(`${EL} .kp-scenario`).inputValue(), 'partitioned-leader');
    const caption = page.locator(`${EL} [data-caption]`);
    await caption.waitFor({ state: 'visible' });
    // the story pauses at each caption, the isolation step among them, and says so
    const cont = page.locator(`${EL} [data-action="continue"]`);
    await cont.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await caption.textContent(), /step 1 of \d+ .* paused so you can look/);
    await cont.click();
    await page.waitForFunction(() => /Isolate the leader/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').textContent), null, { timeout: 20_000 });
    await cont.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await caption.textContent(), /Isolate the leader/);
    assert.match(await caption.textContent(), /paused so you can look/);
    const t = await nowOf(page);
    await page.waitForTimeout(300);
    assert.equal(await nowOf(page), t, 'paused');
    const faults = await summaryText(page, '[data-timeline]');
    assert.match(faults, /fault: isolate n\d/);
    await cont.click();
    await page.waitForFunction((x) => document.querySelector('kraft-playground').cluster.now > x, t);
    // picking another story from its card
    await page.locator('.site-course [data-story="first-election"]').click();
    await page.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'first-election');
    assert.match(await caption.textContent(), /First election/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('free play and the built-in stories load only the core; a story with another seed loads the engine then', async () => {
    const fetched = [];
    const note = (r) => fetched.push(new URL(r.url()).pathname);
    const engine = /\/(engine\.js|kraft_playground_full_bg\.wasm)$/;
    site.browser.context.on('request', note);
    try {
      const { page, errors } = await open('/?scenario=partitioned-leader&speed=10');
      await page.locator(`${EL} [data-caption]`).waitFor({ state: 'visible' });
      assert.ok(fetched.includes('/kraft_playground_bg.wasm') && fetched.includes('/story-partitioned-leader.js'), fetched.join(' '));
      assert.deepEqual(
        fetched.filter((u) => engine.test(u)),
        [],
        'a built-in story is precomputed',
      );
      assert.deepEqual(errors, []);
      await page.close();
      fetched.length = 0;
      const other = await open('/?scenario=partitioned-leader&seed=7&speed=10');
      await other.page.locator(`${EL} [data-caption]`).waitFor({ state: 'visible' });
      assert.equal(await other.page.evaluate(() => document.querySelector('kraft-playground').cluster.seed), 7);
      assert.deepEqual(fetched.filter((u) => engine.test(u)).sort(), ['/engine.js', '/kraft_playground_full_bg.wasm']);
      assert.match(await other.page.locator(`${EL} [data-caption]`).textContent(), /./);
      assert.deepEqual(other.errors, []);
      await other.page.close();
    } finally {
      site.browser.context.off('request', note);
    }
  });

  test('a story stops at its end so the reader sees how it came out; play then goes on freely', async () => {
    const { page, errors } = await open('/?scenario=split-vote&speed=20&autoplay=0');
    const caption = page.locator(`${EL} [data-caption]`);
    await caption.waitFor({ state: 'visible' });
    // the story's end: a moment after its last step (the recorded run may go on past it)
    const end = Number(await caption.getAttribute('data-end'));
    assert.ok(end > 3_000, `the story's end: ${end}`);
    await page.evaluate((e) => document.querySelector('kraft-playground').player.seek(e - 30), end);
    await page.waitForFunction((e) => document.querySelector('kraft-playground').cluster.now === e - 30, end);
    const before = await nowOf(page);
    assert.ok(before < end, `moved back before the end (${before} < ${end})`);
    await page.locator(`${EL} [data-action="play"]`).click();
    await page.waitForFunction((e) => document.querySelector('kraft-playground').cluster.now >= e, end, { timeout: 20_000 });
    await page.waitForTimeout(300);
    assert.equal(await nowOf(page), end, 'stopped exactly at the end of the story, and stays there');
    assert.equal(await caption.getAttribute('data-state'), 'complete', 'its completion card is up');
    await play(page);
    await page.waitForFunction((e) => document.querySelector('kraft-playground').cluster.now > e + 500, end);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an unsafe variant shows the violation, its evidence, and a button that seeks to its moment', async () => {
    const { page, errors } = await open('/?scenario=figure-8&variant=hw-before-own-epoch&speed=10&autoplay=0');
    assert.equal(await page.locator(`${EL} [data-switch="hw-before-own-epoch"]`).isChecked(), true);
    assert.match(await page.locator(`${EL} .kp-status`).textContent(), /unsafe: hw-before-own-epoch/);
    // all green at the start
    assert.equal(await page.locator(`${EL} .kp-inv-summary`).getAttribute('data-invariants'), 'ok');
    // travel to the end of the story
    await page.locator(`${EL} .kp-time`).click();
    await page.keyboard.press('End');
    const inv = page.locator(`${EL} [data-invariant="ConsistentCommittedData"]`);
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-invariant="ConsistentCommittedData"]').dataset.state === 'violated');
    assert.match(await inv.textContent(), /Evidence: events \d+/);
    assert.equal(await page.locator(`${EL} .kp-inv-summary`).getAttribute('data-invariants'), 'violated');
    const btn = inv.locator('[data-seek-violation]');
    const seq = Number(await btn.getAttribute('data-seek-violation'));
    // (from the trace: cluster.violations() forgets violations after a forward seek
    // that jumps to a checkpoint, a core bug reported separately)
    const v = await page.evaluate(
      (s) =>
        document
          .querySelector('kraft-playground')
          .cluster.events({ from: 0, to: 1e9 })
          .find((x) => x.seq === s),
      seq,
    );
    assert.equal(v.type, 'violation');
    await btn.click();
    await page.waitForFunction((t) => document.querySelector('kraft-playground').cluster.now === t, v.t);
    await waitSummary(page);
    assert.match(await summaryText(page, '[data-timeline]'), /VIOLATION of ConsistentCommittedData/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
