// The UI's store of a run (web/src/ui/common/store.ts): compacting a long run forgets its older
// half in place (slicing the indexes) and must hold exactly what taking the kept events
// in again from the remembered state would. Bundled from source with esbuild; fed with a
// real run's events (crashes, partitions, writes: messages, disconnects, truncations).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import fc from 'fast-check';
import { Cluster, runScenario } from '../dist/node.js';

const source = fileURLToPath(new URL('../src/ui/common/store.ts', import.meta.url));

async function loadStore(entry = source) {
  const dir = mkdtempSync(join(tmpdir(), 'kp-store-'));
  try {
    const outfile = join(dir, 'store.mjs');
    await build({ entryPoints: [entry], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A busy run: 5 voters and 2 observers, writes, a crash and a partition now and then. */
async function busyRun() {
  const c = await Cluster.create({ voters: 5, observers: 2, seed: 11, network: 'teaching' });
  c.setWorkload({ writesPerSecond: 20 });
  for (let i = 0; i < 12; i++) {
    c.advance(2_500);
    if (i % 4 === 1) c.crash(i % 5);
    if (i % 4 === 2) c.restart((i - 1) % 5);
    if (i % 6 === 3)
      c.partition([
        [0, 1],
        [2, 3, 4, 5, 6],
      ]);
    if (i % 6 === 5) c.heal();
  }
  return c;
}

/** The messages a store holds, as objects. */
const messages = (s) => Array.from({ length: s.msgs.length }, (_, i) => s.msgs.at(i));

/** Every event a store holds, as objects, oldest first. */
const eventsOf = (s) => {
  const out = [...s.others];
  for (let k = 0; k < s.rows.length; k++) out.push(s.rows.event(k, s.msgs.summaries));
  return out.sort((a, b) => a.seq - b.seq);
};

/** Everything a store holds that the views draw from. */
function held(s) {
  const steps = (st) => ({ t: st.t, v: st.v.map((x) => (Number.isNaN(x) ? 'NaN' : x)) });
  return {
    firstT: s.firstT,
    lastSeq: s.lastSeq,
    others: s.others.map((e) => e.seq),
    otherT: s.otherT,
    rows: Array.from({ length: s.rows.length }, (_, k) => s.rows.event(k, s.msgs.summaries)),
    msgs: messages(s).map((m) => ({ ...m, end: m.end === Infinity ? 'Infinity' : m.end })),
    open: [...s.open].sort((a, b) => a[0] - b[0]).map(([id, i]) => [id, s.msgs.seq(i)]),
    states: s.states,
    stateT: s.stateT,
    hw: s.hw.map(steps),
    leo: s.leo.map(steps),
    marks: s.marks.map((m) => [m.t, m.seq, m.node, m.kind]),
    markT: s.markT,
    leaders: s.leaders,
    violations: s.violations.map((e) => e.seq),
    faults: s.faults.map((e) => e.seq),
  };
}

test('compacting in place holds what taking the kept events in again would', async () => {
  const { Store } = await loadStore();
  const c = await busyRun();
  const events = c.events();
  const more = events.length;
  assert.ok(more > 6_000, `a busy run: ${more} events`);
  assert.ok(events.some((e) => e.type === 'disconnect') && events.some((e) => e.type === 'truncate' || e.type === 'crash'), 'the run has disconnects and crashes');
  const split = Math.floor(events.length * 0.8);
  const max = Math.floor(split * 0.6);

  const compacted = new Store();
  compacted.reset(c.nodeCount);
  compacted.add(events.slice(0, split));
  const reference = new Store();
  reference.reset(c.nodeCount);
  reference.add(events.slice(0, split));

  const before = eventsOf(compacted);
  assert.equal(compacted.compact(max), true);
  // the old way: remember the state where the kept part starts, take the kept events in again
  const first = eventsOf(compacted)[0];
  // what is kept: the newest half, and the rest of the millisecond it starts in
  let want = before.length - Math.floor(max / 2);
  while (want > 0 && before[want - 1].t === before[want].t) want--;
  assert.equal(first.seq, before[want].seq);
  assert.equal(compacted.eventCount, before.length - want);
  assert.ok(first.seq > eventsOf(reference)[0].seq);
  reference.rebuild({ seq: first.seq, t: first.t }, reference.lastSeq);
  assert.deepEqual(held(compacted), held(reference));

  // both go on the same way: later events (deliveries of messages sent before the cut
  // included), and a fork that forgets what came after a moment
  compacted.add(events.slice(split));
  reference.add(events.slice(split));
  assert.deepEqual(held(compacted), held(reference));
  const forkAt = events[Math.floor(events.length * 0.9)].seq;
  compacted.truncateAfter(forkAt);
  reference.truncateAfter(forkAt);
  assert.deepEqual(held(compacted), held(reference));
  c.dispose();
});

test('splitNewest finds where the newest n of two sorted lists start, as merging them from the end would', async () => {
  const { splitNewest } = await loadStore();
  // Two sorted lists splitting 0..40 numbers between them, and how many of the newest to keep
  // (up to one past all of them). A fixed seed: every run tries the same cases; a failure
  // prints the case shrunk to a minimal one.
  const cases = fc.array(fc.boolean(), { maxLength: 39 }).chain((inA) => fc.record({ inA: fc.constant(inA), keep: fc.nat(inA.length + 1) }));
  fc.assert(
    fc.property(cases, ({ inA, keep }) => {
      const all = inA.map((_, i) => i * 3 + 1);
      const a = all.filter((_, i) => inA[i]);
      const b = all.filter((_, i) => !inA[i]);
      // the naive way: walk back from the end of both
      let [i, j] = [a.length, b.length];
      for (let left = Math.min(keep, all.length); left > 0; left--) {
        if (i > 0 && (j === 0 || a[i - 1] > b[j - 1])) i--;
        else j--;
      }
      assert.deepEqual(
        splitNewest(
          (k) => a[k],
          a.length,
          (k) => b[k],
          b.length,
          keep,
        ),
        [i, j],
        JSON.stringify({ a, b, keep }),
      );
    }),
    { seed: 7, numRuns: 500 },
  );
});

test('a packed window draws what the full events draw; a message summary it left out is asked of the cluster when shown', async () => {
  const { Store, windowQuery, sameEvent } = await loadStore();
  const c = await busyRun();
  const nodes = c.nodeCount;
  const full = new Store();
  full.reset(nodes);
  full.add(c.events({ from: Math.max(0, c.now - 10_000), to: c.now }));
  const packed = new Store();
  packed.reset(nodes);
  packed.cluster = c;
  packed.addBatch(c.packedBatch(windowQuery(c.now)));
  const [packedEvents, fullEvents] = [eventsOf(packed), eventsOf(full)];
  assert.equal(packedEvents.length, full.eventCount);
  assert.ok(
    packedEvents.every((e, i) => sameEvent(e, fullEvents[i])),
    'the same events, less text and summaries',
  );
  const withoutSummaries = (s) => held(s).msgs.map(({ summary, ...m }) => m);
  assert.deepEqual(withoutSummaries(packed), withoutSummaries(full));
  const withoutMsgSummaries = (s) => ({ ...held(s), msgs: null, rows: held(s).rows.map(({ summary, ...e }) => e) });
  assert.deepEqual(withoutMsgSummaries(packed), withoutMsgSummaries(full));
  const left = messages(packed).filter((m) => m.summary === undefined);
  assert.ok(left.length > 100, `messages come without a summary (${left.length})`);
  for (const m of [left[0], left[left.length >> 1], left[left.length - 1]]) {
    const want = messages(full).find((x) => x.seq === m.seq).summary;
    assert.ok(want.length > 0);
    assert.equal(packed.summaryOf(m), want);
    assert.equal(m.summary, want, 'kept once asked');
    assert.equal(messages(packed).find((x) => x.seq === m.seq).summary, want, 'held once asked');
  }
  // the timeline's cues read summaries that tell an outcome: those come along
  for (const m of messages(packed)) if (m.summary !== undefined && !m.failed) assert.equal(m.summary, messages(full).find((x) => x.seq === m.seq).summary);
});

test('scrub steps as the UI takes them (Store.takeFrame): packed frames hold what full ones do; a jump past what is held reloads the window', async () => {
  const { Store, STORE_TEXT, SCRUB_WINDOW_MS, windowQuery } = await loadStore();
  const { Player } = await import('../dist/node.js');
  const idle = { request: () => 0, cancel: () => {} };
  // two copies of one run: one played as the UI plays it, one with every event as JSON
  const [a, b] = [await busyRun(), await busyRun()];
  const end = a.now;
  const ui = new Store();
  const full = new Store();
  for (const c of [a, b]) c.seek(2_000);
  ui.reset(a.nodeCount);
  ui.cluster = a;
  ui.addBatch(a.packedBatch({ text: STORE_TEXT }));
  full.reset(b.nodeCount);
  full.add(b.events());
  const pa = new Player(a, { packed: { text: STORE_TEXT, batches: true }, maxEvents: 3_000, scheduler: idle });
  const pb = new Player(b, { scheduler: idle });
  const frames = [];
  pa.subscribe((f) => {
    frames.push(f);
    ui.takeFrame(a, f.events, f.reset, 0);
  });
  pb.subscribe((f) => full.takeFrame(b, f.events, f.reset, 0));
  const withoutSummaries = (s) => ({ ...held(s), msgs: held(s).msgs.map(({ summary, ...m }) => m), rows: held(s).rows.map(({ summary, ...e }) => e) });
  for (const t of [8_000, 4_000, 12_000, 12_500, 6_000]) {
    pa.seek(t);
    pb.seek(t);
    assert.equal(frames.at(-1).reset, t < 8_000, `at ${t}`);
    assert.deepEqual(withoutSummaries(ui), withoutSummaries(full), `at ${t}`);
  }
  // far on, past what the store holds: the window before now, read again; earlier is not held
  const from = a.lastSeq;
  pa.seek(end);
  assert.ok(a.lastSeq - from > 3_000 && frames.at(-1).reset, `${a.lastSeq - from} events on`);
  assert.equal(ui.firstT, end - SCRUB_WINDOW_MS);
  assert.deepEqual(
    eventsOf(ui).map((e) => e.seq),
    a.packedEvents(windowQuery(end)).map((e) => e.seq),
  );
  // back inside the window: held, nothing read; back before it: read again
  pa.seek(end - 5_000);
  assert.equal(ui.firstT, end - SCRUB_WINDOW_MS);
  assert.equal(ui.lastSeq > a.lastSeq, true, 'the recorded future is held');
  pa.seek(end - 15_000);
  assert.equal(ui.firstT, end - 15_000 - SCRUB_WINDOW_MS);
  assert.equal(ui.lastSeq, a.lastSeq);
});

test("the messages in a window, counted per kind for the timeline's text description: what the events say, hidden kinds left out, bounded", async () => {
  const { Store } = await loadStore();
  const c = await busyRun();
  const events = c.events();
  const store = new Store();
  store.reset(c.nodeCount);
  store.add(events);
  // from the events alone: each message's send (or a disconnect's), and its end (delivered, dropped, or due)
  const msgs = new Map();
  const list = [];
  for (const e of events) {
    if (e.type === 'send') {
      const m = { rpc: e.rpc, sent: e.t, end: e.arrives, dropped: false };
      msgs.set(e.msg, m);
      list.push(m);
    } else if ((e.type === 'deliver' || e.type === 'drop') && msgs.has(e.msg)) {
      const m = msgs.get(e.msg);
      msgs.delete(e.msg);
      m.end = e.t;
      m.dropped = e.type === 'drop';
    } else if (e.type === 'disconnect') list.push({ rpc: e.rpc, sent: e.sent, end: e.t, dropped: false });
  }
  const kinds = ['PreVote', 'Vote', 'BeginQuorumEpoch', 'EndQuorumEpoch', 'Fetch', 'FetchSnapshot'].flatMap((g) => [g, `${g}Response`]);
  let dropsSeen = 0;
  for (const [t0, t1] of [
    [0, 2_000],
    [9_000, 13_000],
    [20_000, 20_500],
    [0, c.now],
  ]) {
    for (const hidden of [new Set(), new Set([4])]) {
      const want = {};
      let dropped = 0;
      for (const m of list) {
        if (m.sent > t1 || m.end < t0 || hidden.has(kinds.indexOf(m.rpc) >> 1)) continue;
        want[m.rpc] = (want[m.rpc] ?? 0) + 1;
        if (m.dropped) dropped++;
      }
      const got = store.messageCounts(t0, t1, hidden, 1e9);
      const byName = Object.fromEntries(got.byKind.flatMap((n, i) => (n ? [[kinds[i], n]] : [])));
      assert.deepEqual(byName, want, `[${t0}, ${t1}] hiding ${[...hidden]}`);
      assert.equal(got.dropped, dropped);
      assert.equal(got.more, false);
      dropsSeen += dropped;
    }
  }
  assert.ok(dropsSeen > 0, 'the windows hold dropped messages');
  // bounded: past the limit it looks no further and says so
  const few = store.messageCounts(0, c.now, new Set(), 100);
  assert.equal(few.more, true);
  assert.ok(few.byKind.reduce((a, n) => a + (n ?? 0), 0) <= 100);
  c.dispose();
});

test('Player packed.batches: frames carry the pages as cluster.packedBatch gives them (the same events); maxSeekMs: a seek further on says reset, playing never does', async () => {
  const { unpack } = await loadStore(fileURLToPath(new URL('../src/packed.ts', import.meta.url)));
  const { Player } = await import('../dist/node.js');
  const text = ['state', 'crash'];
  const c = await Cluster.create({ voters: 5, seed: 8, writesPerSecond: 20 });
  const wall = { now: 0, queued: null };
  const scheduler = { request: (cb) => (wall.queued = cb), cancel: () => (wall.queued = null) };
  let maxSeek = 2_000;
  const p = new Player(c, { clock: () => wall.now, scheduler, speed: 100, packed: { text, batches: true }, maxSeekMs: () => maxSeek });
  const frames = [];
  p.subscribe((f) => frames.push(f));
  const since = c.lastSeq;
  p.play();
  // frames of 100 ms at 100x: 10 s each, further than maxSeekMs, yet they are not seeks
  for (let i = 0; i < 5; i++) {
    wall.now += 100;
    wall.queued();
  }
  p.pause();
  assert.ok(frames.length >= 5 && frames.every((f) => !f.reset));
  const seen = frames
    .flatMap((f) => f.events)
    .flatMap((b) => {
      assert.ok(b.numbers instanceof Float64Array && Array.isArray(b.rest.events));
      return unpack(b.numbers, b.rest);
    });
  assert.ok(seen.length > 10_000, `${seen.length} events`);
  assert.deepEqual(seen, c.packedEvents({ since, text }));
  // a seek on by at most maxSeekMs brings its events; further, none and reset
  const before = c.lastSeq;
  p.seek(c.now + 2_000);
  assert.equal(frames.at(-1).reset, false);
  assert.deepEqual(unpack(frames.at(-1).events[0].numbers, frames.at(-1).events[0].rest), c.packedEvents({ since: before, text }));
  p.seek(c.now + 2_001);
  assert.equal(frames.at(-1).reset, true);
  assert.deepEqual(frames.at(-1).events, []);
  // asked at each seek
  maxSeek = 5_000;
  p.seek(c.now + 4_000);
  assert.equal(frames.at(-1).reset, false);
  maxSeek = 0.5;
  p.seek(c.now + 1);
  assert.match(String(frames.at(-1).error), /maxSeekMs/);
  assert.throws(() => new Player(c, { maxSeekMs: -1 }), /maxSeekMs/);
  assert.throws(() => new Player(c, { packed: { batches: 1 } }), /batches/);
  assert.throws(() => c.packedBatch({ since: 1, from: 0 }), /since \(1\) and from\/to/);
  c.dispose();
});

test('random runs: the column store holds every event as its object form does, and answers the views alike whichever form fed it', async () => {
  const { Store, STORE_TEXT } = await loadStore();
  const seen = { truncate: 0, ghosts: 0, disconnect: 0, drop: 0 };
  // seeded runs of faults (crashes, restarts, isolations, heals), and the stories whose logs diverge
  let r = 1;
  const rand = (n) => {
    r = (r * 1_103_515_245 + 12_345) % 2 ** 31;
    return r % n;
  };
  const runs = [3, 17, 29, 41].map((seed) => async () => {
    r = seed;
    const c = await Cluster.create({ voters: 3 + rand(3), observers: rand(2), seed, network: rand(2) ? 'teaching' : 'datacenter' });
    c.setWorkload({ writesPerSecond: 5 + rand(30) });
    const down = new Set();
    for (let i = 0; i < 14; i++) {
      c.advance(300 + rand(1_500));
      const n = rand(c.nodeCount);
      const act = rand(4);
      if (act === 0 && !down.has(n) && down.size < 1) {
        c.crash(n);
        down.add(n);
      } else if (act === 1 && down.size) {
        const back = [...down][0];
        c.restart(back);
        down.delete(back);
      } else if (act === 2) c.isolate(n);
      else c.heal();
    }
    return c;
  });
  for (const name of ['diverging-follower', 'figure-8', 'all-nodes-restart']) {
    runs.push(async () => (await runScenario(readFileSync(fileURLToPath(new URL(`../../scenarios/${name}.json`, import.meta.url)), 'utf8'))).cluster);
  }
  for (const [seed, run] of runs.entries()) {
    const c = await run();
    const full = c.events({ text: false });
    for (const e of full) if (e.type in seen) seen[e.type]++;
    const objects = new Store();
    objects.reset(c.nodeCount);
    objects.add(full);
    const columns = new Store();
    columns.reset(c.nodeCount);
    columns.cluster = c;
    columns.addBatch(c.packedBatch({ text: STORE_TEXT }));
    assert.equal(columns.eventCount, full.length, `seed ${seed}`);
    // every event as its object form, less what the packed form leaves out
    for (const e of full) {
      const got = columns.eventBySeq(e.seq);
      const { text, summary, ...want } = e;
      const { text: _t, summary: gotSummary, ...rest } = got;
      assert.deepEqual(rest, want, `seed ${seed}: event ${e.seq} (${e.type})`);
      assert.ok(gotSummary === undefined || gotSummary === summary);
      assert.deepEqual(objects.eventBySeq(e.seq), e.type === 'send' || e.type === 'deliver' ? { ...rest, ...(e.type === 'send' ? { summary } : {}) } : e);
    }
    const noSummaries = (s) => ({ ...held(s), msgs: held(s).msgs.map(({ summary, ...m }) => m), rows: held(s).rows.map(({ summary, ...e }) => e) });
    assert.deepEqual(noSummaries(columns), noSummaries(objects), `seed ${seed}`);
    // what the timeline asks of a window
    for (let k = 0; k < 20; k++) {
      const t0 = rand(c.now);
      const t1 = t0 + rand(4_000);
      assert.deepEqual(columns.msgRange(t0, t1), objects.msgRange(t0, t1));
      for (let n = 0; n < c.nodeCount; n++) {
        const ghosts = columns.truncated(n, t0, t1);
        seen.ghosts += ghosts.length;
        assert.deepEqual(ghosts, objects.truncated(n, t0, t1), `seed ${seed}: truncated n${n} ${t0}..${t1}`);
        assert.equal(columns.hwSeqAt(n, t0), objects.hwSeqAt(n, t0));
        assert.deepEqual(columns.stateAt(n, t0), objects.stateAt(n, t0));
      }
      assert.deepEqual(columns.leaderAt(t0), objects.leaderAt(t0));
    }
    const hwAt = full.filter((e) => e.type === 'hw').slice(-5);
    for (const e of hwAt) assert.ok(columns.hwSeqAt(e.node, e.t) >= e.seq);
    // and the truncations' removed records over the whole run
    for (let n = 0; n < c.nodeCount; n++) {
      const ghosts = columns.truncated(n, 0, c.now);
      seen.ghosts += ghosts.length;
      assert.deepEqual(ghosts, objects.truncated(n, 0, c.now));
    }
    c.dispose();
  }
  assert.ok(
    Object.values(seen).every((k) => k > 0),
    `the runs have truncations (with removed records), disconnects and drops: ${JSON.stringify(seen)}`,
  );
});

test("a reloaded window starts every node's band, HW and LEO at its left edge, with what the node had then (as a store fed from the run's start holds)", async () => {
  const { Store, STORE_TEXT, SCRUB_WINDOW_MS } = await loadStore();
  const c = await busyRun();
  // then a calm stretch: stable leadership, so a window inside it holds no state events
  c.heal();
  for (let n = 0; n < c.nodeCount; n++) if (c.node(n, { records: false }).state === 'crashed') c.restart(n);
  c.advance(25_000);
  const end = c.now;
  const full = new Store();
  full.reset(c.nodeCount);
  full.addBatch(c.packedBatch({ text: STORE_TEXT }));
  const seg = (s, n, t) => {
    const x = s.stateAt(n, t);
    return x && { state: x.state, epoch: x.epoch, leader: x.leader };
  };
  const val = (x) => (Number.isNaN(x) ? 'NaN' : x);
  let calm = 0;
  let crashedAtEdge = 0;
  for (const now of [end, end - 3_000, 11_000, 13_700, 17_500, 21_234, 26_000, 29_999]) {
    c.seek(now);
    const digest = c.digest();
    const s = new Store();
    s.reload(c, 0);
    assert.equal(c.digest(), digest, 'the reload changed nothing');
    assert.equal(c.now, now);
    const from = now - SCRUB_WINDOW_MS;
    assert.equal(s.firstT, from);
    const times = [];
    for (let t = from; t <= now; t += 97) times.push(t);
    for (let n = 0; n < c.nodeCount; n++) {
      const at = `n${n}, window ${from}..${now}`;
      assert.equal(s.states[n][0]?.t, from, `${at}: the first state segment starts at the window's start`);
      if (!Number.isNaN(full.hw[n].at(from - 0.5))) assert.equal(s.hw[n].t[0], from, `${at}: the HW line starts at the window's start`);
      assert.equal(s.leo[n].t[0], from, `${at}: the LEO line starts at the window's start`);
      if (!full.states[n].some((x) => x.t >= from && x.t <= now)) calm++;
      if (full.stateAt(n, from).state === 6) crashedAtEdge++;
      for (const t of [...times, ...full.stateT[n].filter((x) => x >= from && x <= now)]) {
        assert.deepEqual(seg(s, n, t), seg(full, n, t), `${at}: state at ${t}`);
        assert.equal(val(s.hw[n].at(t)), val(full.hw[n].at(t)), `${at}: HW at ${t}`);
        assert.equal(s.leo[n].at(t, 0), full.leo[n].at(t, 0), `${at}: LEO at ${t}`);
      }
    }
  }
  assert.ok(calm > 0, 'windows where a node has no state event (its band starts only from the seed)');
  assert.ok(crashedAtEdge > 0, 'a window starting while a node is crashed');
  c.dispose();
});
