// The Player: frames advance the cluster by speed x wall time and hand listeners the
// new events; pause, step, speed (log scale), seek. Driven by a fake clock and scheduler,
// and once by the real setTimeout fallback Node gets.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cluster, Player } from '../dist/node.js';

function fakeLoop() {
  let wall = 0;
  const queue = [];
  return {
    clock: () => wall,
    scheduler: {
      request: (cb) => {
        queue.push(cb);
        return cb;
      },
      cancel: (h) => {
        const i = queue.indexOf(h);
        if (i >= 0) queue.splice(i, 1);
      },
    },
    /** Runs one animation frame `ms` of wall time after the previous one. */
    frame(ms) {
      wall += ms;
      const cbs = queue.splice(0);
      for (const cb of cbs) cb();
      return cbs.length;
    },
    pending: () => queue.length,
  };
}

test('play: each frame advances speed x elapsed and reports exactly the new events', async () => {
  const c = await Cluster.create({ seed: 5 });
  const loop = fakeLoop();
  const startSeq = c.lastSeq; // the startup events happen at creation, before the player
  assert.ok(startSeq > 0);
  const p = new Player(c, { clock: loop.clock, scheduler: loop.scheduler, speed: 2 });
  const frames = [];
  const stop = p.subscribe((f) => frames.push(f));
  p.play();
  assert.equal(p.playing, true);
  for (let i = 0; i < 100; i++) loop.frame(16);
  assert.equal(c.now, 100 * 16 * 2);
  const seen = frames.flatMap((f) => f.events);
  assert.deepEqual(seen, c.events({ since: startSeq }), 'every event once, in order');
  assert.ok(frames.every((f) => f.playing && f.speed === 2 && !f.reset));
  // Fractions carry over: 0.1x for 5 ms frames is 0.5 ms per frame.
  p.speed = 0.1;
  const t = c.now;
  for (let i = 0; i < 10; i++) loop.frame(5);
  assert.equal(c.now, t + 5);
  // A stalled tab does not jump: a frame counts at most maxFrameMs (100) of wall time.
  p.speed = 1;
  const t2 = c.now;
  loop.frame(10_000);
  assert.equal(c.now, t2 + 100);
  p.pause();
  assert.equal(p.playing, false);
  assert.equal(loop.pending(), 0, 'no frame scheduled while paused');
  const t3 = c.now;
  loop.frame(16);
  assert.equal(c.now, t3);
  stop();
  const n = frames.length;
  p.play();
  loop.frame(16);
  assert.equal(frames.length, n, 'unsubscribed');
  p.destroy();
  assert.throws(() => p.play(), /destroyed/);
});

test('step, seek (reset), refresh, toggle', async () => {
  const c = await Cluster.create({ seed: 6 });
  const loop = fakeLoop();
  const p = new Player(c, { clock: loop.clock, scheduler: loop.scheduler });
  const frames = [];
  p.subscribe((f) => frames.push(f));
  const next = c.nextEventTime();
  assert.equal(p.step(), true);
  assert.equal(c.now, next);
  assert.ok(frames.at(-1).events.length > 0);
  assert.ok(frames.at(-1).events.every((e) => e.t === next));
  c.advance(3_000);
  p.refresh();
  assert.ok(frames.at(-1).events.at(-1).seq === c.lastSeq, 'refresh reports events made outside the player');
  p.seek(1_000);
  assert.equal(c.now, 1_000);
  assert.equal(frames.at(-1).reset, true);
  assert.deepEqual(frames.at(-1).events, []);
  p.seek(2_000);
  assert.equal(frames.at(-1).reset, false);
  assert.ok(frames.at(-1).events.length > 0);
  p.toggle();
  assert.equal(p.playing, true);
  p.toggle();
  assert.equal(p.playing, false);
  p.play();
  p.step();
  assert.equal(p.playing, false, 'step pauses');
});

test('packed: frames carry cluster.packedEvents (the same events as the JSON form, text only where asked); maxEvents: a longer jump says reset', async () => {
  const text = ['state', 'crash'];
  const c = await Cluster.create({ voters: 5, seed: 8, writesPerSecond: 20 });
  const loop = fakeLoop();
  const p = new Player(c, { clock: loop.clock, scheduler: loop.scheduler, speed: 10, packed: { text }, maxEvents: 2_000 });
  const frames = [];
  p.subscribe((f) => frames.push(f));
  const since = c.lastSeq;
  p.play();
  for (let i = 0; i < 60; i++) loop.frame(16);
  p.pause();
  const seen = frames.flatMap((f) => f.events);
  assert.deepEqual(seen, c.packedEvents({ since, text }));
  const full = c.events({ since });
  assert.equal(seen.length, full.length);
  assert.ok(seen.length > 500, `${seen.length} events`);
  for (let i = 0; i < full.length; i++) {
    const { text: fullText, summary, ...want } = full[i];
    const { text: got, summary: gotSummary, ...rest } = seen[i];
    assert.deepEqual(rest, want, `event ${full[i].seq}`);
    assert.equal(got, text.includes(full[i].type) ? fullText : undefined, `text of ${full[i].type} ${full[i].seq}`);
    assert.ok(gotSummary === undefined || gotSummary === summary);
  }
  // a step forward below maxEvents brings its events; a longer one none, and reset
  const before = c.lastSeq;
  p.seek(c.now + 1_000);
  assert.ok(c.lastSeq - before <= 2_000 && !frames.at(-1).reset);
  assert.deepEqual(frames.at(-1).events, c.packedEvents({ since: before, text }));
  const from = c.lastSeq;
  p.seek(c.now + 30_000);
  assert.ok(c.lastSeq - from > 2_000, `${c.lastSeq - from} events in the jump`);
  assert.equal(frames.at(-1).reset, true);
  assert.deepEqual(frames.at(-1).events, []);
  // and the frame after it goes on from there
  p.seek(c.now + 500);
  assert.equal(frames.at(-1).reset, false);
  assert.equal(frames.at(-1).events[0].seq, from + (c.lastSeq - from) - frames.at(-1).events.length + 1);
  // the options are checked when the player is made
  assert.throws(() => new Player(c, { packed: { text: [7] } }), /text\[0\]/);
  assert.throws(() => new Player(c, { packed: { txt: [] } }), /txt/);
  assert.throws(() => new Player(c, { maxEvents: 0 }), /maxEvents/);
});

test('speed on a log scale from 0.1x to 100x', () => {
  assert.equal(Player.speedFromSlider(0), 0.1);
  assert.equal(Player.speedFromSlider(1), 100);
  assert.ok(Math.abs(Player.speedFromSlider(1 / 3) - 1) < 1e-9);
  assert.ok(Math.abs(Player.speedFromSlider(2 / 3) - 10) < 1e-9);
  for (const s of [0.1, 0.5, 1, 3, 42, 100]) {
    assert.ok(Math.abs(Player.speedFromSlider(Player.sliderFromSpeed(s)) - s) < 1e-9);
  }
  assert.equal(Player.MIN_SPEED, 0.1);
  assert.equal(Player.MAX_SPEED, 100);
});

test('reach says where tick takes the cluster, carried fractions and all (up to 1 ms past speed x wall time)', async () => {
  const c = await Cluster.create({ seed: 7 });
  const p = new Player(c, { speed: 3.3 });
  let past = 0;
  for (let i = 0; i < 200; i++) {
    const wall = 0.3 + ((i * 7) % 11) / 3;
    const before = c.now;
    const reach = p.reach(wall);
    p.tick(wall);
    assert.equal(c.now, reach, `tick ${i}`);
    if (reach > before + 3.3 * wall) past++;
  }
  // the case a caller summing speed x wall itself gets wrong: a pause at `reach` stepped over
  assert.ok(past > 0, 'some ticks go past speed x wall time');
  assert.throws(() => p.reach(-1), /reach\(wallMs\) needs a finite number >= 0, got -1/);
  c.dispose();
});

test('a throwing listener does not stop the others', async () => {
  const c = await Cluster.create({ seed: 7 });
  const loop = fakeLoop();
  const p = new Player(c, { clock: loop.clock, scheduler: loop.scheduler });
  let got = 0;
  p.subscribe(() => {
    throw new Error('listener bug');
  });
  p.subscribe(() => got++);
  const errors = [];
  const saved = globalThis.reportError;
  globalThis.reportError = (e) => errors.push(e); // what browsers have
  try {
    p.tick(10);
    p.tick(10);
  } finally {
    if (saved === undefined) delete globalThis.reportError;
    else globalThis.reportError = saved;
  }
  assert.equal(got, 2);
  assert.equal(errors.length, 2);
  assert.match(errors[0].message, /listener bug/);
});

test('the real loop in Node (setTimeout fallback) plays', async () => {
  const c = await Cluster.create({ seed: 8 });
  const p = new Player(c, { speed: 10 });
  let frames = 0;
  // Waits for three frames rather than a fixed 200 ms: on a loaded machine the timer loop
  // may draw fewer in any given span, which says nothing about whether it plays.
  const third = new Promise((resolve) => p.subscribe(() => ++frames === 3 && resolve()));
  p.play();
  const late = new Promise((_, reject) => setTimeout(() => reject(new Error(`${frames} frames in 10 s`)), 10_000).unref());
  await Promise.race([third, late]);
  p.pause();
  assert.ok(frames >= 3, `${frames} frames`);
  assert.ok(c.now > 0, 'time moved');
  const t = c.now;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(c.now, t, 'paused');
});
