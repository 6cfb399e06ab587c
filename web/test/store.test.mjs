// The timeline's lanes: what `cluster.lanes` serves, checked against the trace it comes
// from (each state change a band, each message a span, each notable event a mark, each
// lane starting with what its node had), and the UI's store of them
// (web/src/ui/common/store.ts), which asks the core again only when the window moves past
// what it holds or the run changes under it. The store is bundled from source with
// esbuild, the package API it imports being the built one the test drives.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { Cluster, runScenario, SPAN, SPAN_DROPS, SPAN_FLAGS, SPAN_RPCS, STEP } from '../dist/node.js';

const pkg = fileURLToPath(new URL('../dist/node.js', import.meta.url));

/** A module of web/src bundled, with the package API it imports being the built package. */
async function load(path) {
  const dir = mkdtempSync(join(tmpdir(), 'kp-store-'));
  try {
    const outfile = join(dir, 'module.mjs');
    const api = { name: 'the-built-api', setup: (b) => b.onResolve({ filter: /(^|\/)api\.js$/ }, () => ({ path: pathToFileURL(pkg).href, external: true })) };
    await build({ entryPoints: [fileURLToPath(new URL(path, import.meta.url))], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning', plugins: [api] });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const loadStore = () => load('../src/ui/common/store.ts');

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

/** The spans of a window, as objects. */
function spansOf(w) {
  const out = [];
  for (let i = 0; i < w.spans.length; i += SPAN.width) {
    const n = (f) => w.spans[i + SPAN[f]];
    const flags = n('flags');
    out.push({
      msg: n('msg'),
      from: n('from'),
      to: n('to'),
      rpc: SPAN_RPCS[n('rpc')],
      sent: n('sent'),
      arrives: n('arrives'),
      end: n('end'),
      dropped: n('dropped') < 0 ? null : SPAN_DROPS[n('dropped')],
      planned: n('planned') < 0 ? null : SPAN_DROPS[n('planned')],
      duplicate: (flags & SPAN_FLAGS.duplicate) !== 0,
      failed: (flags & SPAN_FLAGS.failed) !== 0,
      seq: n('seq'),
      endSeq: n('endSeq'),
    });
  }
  return out;
}

/** The messages whose arrows cross [from, to], from the events alone (ends after `to` unknown). */
function messagesFromEvents(events, from, to) {
  const open = new Map();
  const all = [];
  for (const e of events) {
    if (e.t > to) break;
    if (e.type === 'send') {
      const m = {
        msg: e.msg,
        from: e.from,
        to: e.to,
        rpc: e.rpc,
        sent: e.t,
        arrives: e.arrives,
        end: Infinity,
        dropped: null,
        planned: e.dropped ?? null,
        duplicate: false,
        failed: false,
        seq: e.seq,
        endSeq: -1,
      };
      open.set(e.msg, m);
      all.push(m);
    } else if ((e.type === 'deliver' || e.type === 'drop') && open.has(e.msg)) {
      const m = open.get(e.msg);
      open.delete(e.msg);
      Object.assign(m, { end: e.t, endSeq: e.seq, duplicate: e.type === 'deliver' && e.duplicate, dropped: e.type === 'drop' ? e.reason : null });
    } else if (e.type === 'disconnect') {
      all.push({ msg: -e.seq, from: e.peer, to: e.node, rpc: e.rpc, sent: e.sent, arrives: e.t, end: e.t, dropped: null, planned: null, duplicate: false, failed: true, seq: e.seq, endSeq: e.seq });
    }
  }
  return all.filter((m) => m.sent >= from || m.end >= from).sort((a, b) => a.sent - b.sent || a.seq - b.seq);
}

const MARKED = ['truncate', 'crash', 'restart', 'snapshot', 'vote', 'write', 'fault', 'violation'];

/** A story whose minority leader's uncommitted tail is truncated when the partition heals. */
async function truncatingRun() {
  const text = readFileSync(fileURLToPath(new URL('../../scenarios/minority-partition.json', import.meta.url)), 'utf8');
  return (await runScenario(text)).cluster;
}

test("a window's lanes are its trace's: each state change a band, each message a span, each notable event a mark, and each lane starts with what its node had", async () => {
  const seen = { crashed: 0, truncate: 0, removed: 0, failed: 0, dropped: 0 };
  for (const c of [await busyRun(), await truncatingRun()]) {
    const events = c.events({ text: false });
    const windows = [
      [0, 3_000],
      [6_000, 9_000],
      [9_000, 13_000],
      [20_000, 20_500],
      [12_345, 17_890],
      [0, c.now],
    ];
    for (const [from, to] of windows.filter(([, to]) => to <= c.now)) checkWindow(c, events, from, to, seen);
    c.dispose();
  }
  assert.ok(
    Object.values(seen).every((k) => k > 0),
    `the windows hold crashed nodes, truncations with their removed records, connection failures and drops: ${JSON.stringify(seen)}`,
  );
});

/** Checks the lanes of [from, to] against the events of the run, counting in `seen` what they held. */
function checkWindow(c, events, from, to, seen) {
  const w = c.lanes({ from, to });
  const at = `seed ${c.seed}, window ${from}..${to}`;
  assert.equal(w.horizon, c.now, at);
  const inside = events.filter((e) => e.t >= from && e.t <= to);
  // spans: every message crossing the window, with its fate as the events tell it
  const spans = spansOf(w).sort((a, b) => a.sent - b.sent || a.seq - b.seq);
  assert.deepEqual(spans, messagesFromEvents(events, from, to), `${at}: spans`);
  seen.failed += spans.filter((s) => s.failed).length;
  seen.dropped += spans.filter((s) => s.dropped).length;
  // marks: the notable events in the window, a new leader's state event too
  const want = inside.filter((e) => MARKED.includes(e.type) || (e.type === 'state' && e.to === 'leader')).map((e) => e.seq);
  assert.deepEqual(
    w.marks.map((m) => m.event.seq),
    want,
    `${at}: marks`,
  );
  assert.ok(
    w.marks.every((m) => typeof m.event.text === 'string'),
    'marks carry their text',
  );
  // a truncation's removed records: the epoch of the append that last wrote each
  for (const m of w.marks.filter((m) => m.kind === 'truncate')) {
    seen.truncate++;
    const appends = events.filter((e) => e.type === 'append' && e.node === m.node && e.seq < m.event.seq);
    m.removed.forEach((epoch, k) => {
      const wrote = appends.findLast((e) => e.first <= m.event.to + k && m.event.to + k <= e.last);
      assert.equal(epoch, wrote?.epoch ?? null, `${at}: offset ${m.event.to + k} removed at ${m.event.seq}`);
      seen.removed++;
    });
  }
  const views = from > 0 ? c.nodesAt(from - 1) : null;
  w.lanes.forEach((lane, n) => {
    // bands: the one in force at the start (what the node was just before), then each change
    const changes = inside.filter((e) => (e.type === 'state' || e.type === 'crash') && e.node === n);
    const last = new Map(changes.map((e) => [e.t, e.seq]));
    const bands = lane.bands.filter((b) => b.t >= from);
    assert.deepEqual(
      bands.map((b) => b.seq),
      [...last.values()],
      `${at}: n${n}'s bands, the last change of each millisecond`,
    );
    if (views) {
      const first = lane.bands[0];
      assert.ok(first.t < from && first.seq > 0, `${at}: n${n}'s band at the start began with its event`);
      assert.deepEqual([first.state, first.epoch], [views[n].state, views[n].epoch], `${at}: n${n} at the start`);
      assert.equal(lane.leo[STEP.value], views[n].leo, `${at}: n${n}'s LEO at the start`);
      seen.crashed += first.state === 'crashed' ? 1 : 0;
    }
    // HW: each hw event in the window is a step (unless the same value), set by that event
    for (const e of inside.filter((e) => e.type === 'hw' && e.node === n)) {
      const steps = [];
      for (let i = 0; i < lane.hw.length; i += STEP.width) steps.push([lane.hw[i + STEP.t], lane.hw[i + STEP.value], lane.hw[i + STEP.seq]]);
      const step = steps.findLast(([t]) => t <= e.t);
      assert.ok(step && (step[2] >= e.seq || step[1] === e.new), `${at}: n${n}'s HW at event ${e.seq}`);
    }
  });
}

test("after a seek back the lanes hold the recorded future; an action forks it away, and the store, told by the core's forks, asks again", async () => {
  const { Store } = await loadStore();
  const c = await busyRun();
  const end = c.now;
  c.seek(20_000);
  assert.equal(c.horizon, end);
  const store = new Store();
  store.attach(c);
  const view = store.window(17_000, 24_000, c.now);
  assert.equal(view.horizon, end);
  const future = (v) => Array.from({ length: v.msgs.length }, (_, i) => v.msgs.at(i)).filter((m) => m.sent > c.now);
  assert.ok(future(view).length > 20, 'messages of the recorded future');
  assert.ok(view.marks.some((m) => m.t > c.now));
  c.crash(0);
  assert.equal(c.horizon, c.now);
  const forked = store.window(17_000, 24_000, c.now);
  assert.notEqual(forked, view);
  assert.deepEqual(future(forked), []);
  assert.ok(forked.marks.every((m) => m.t <= c.now));
  assert.equal(forked.stateAt(0, c.now).state, 6, 'n0 crashed now');
  assert.equal(c.forks, 1);
  // a fork without an event (crashing n0 again) and one the store did not see before the run played past the old horizon
  const acts = [(x) => assert.equal(x.crash(0).lastSeq, seq, 'no event'), (x) => x.crash(1).advance(end + 2_000 - x.now)];
  let seq = 0;
  for (const act of acts) {
    c.advance(end - c.now);
    c.seek(20_000);
    const before = store.window(17_000, 24_000, c.now);
    assert.ok(future(before).length > 20);
    seq = c.lastSeq;
    act(c);
    const after = store.window(17_000, 24_000, 20_000);
    assert.notEqual(after, before, 'asked again');
    assert.deepEqual(after.marks, store.window(17_000, 24_000, 20_000).marks);
    const fresh = new Store();
    fresh.attach(c);
    const drawn = (v) => JSON.stringify({ marks: v.marks.map((m) => [m.seq, m.t, m.kind]), states: [0, 1, 2].map((n) => v.stateAt(n, 23_000)?.seq) });
    assert.equal(drawn(after), drawn(fresh.window(17_000, 24_000, 20_000)), `as a new store sees it (seq ${seq} -> ${c.lastSeq})`);
  }
  assert.equal(c.forks, 3);
  c.dispose();
});

test('the store asks the core again only when the window moves past what it holds or the run changes under it', async () => {
  const { Store, PRESENT_MS } = await loadStore();
  const c = await busyRun();
  const asked = [];
  const counting = {
    get nodeCount() {
      return c.nodeCount;
    },
    get lastSeq() {
      return c.lastSeq;
    },
    get horizon() {
      return c.horizon;
    },
    events: (q) => c.events(q),
    lanes: (w) => {
      asked.push([w.from, w.to]);
      return c.lanes(w);
    },
  };
  const store = new Store();
  store.attach(counting);
  const now = c.now;
  // following now: one projection serves the timeline and the present (the panels, the ring)
  const a = store.window(now - 3_000, now + 500, now);
  assert.deepEqual(asked, [[now - PRESENT_MS, now + 500]]);
  assert.equal(store.present(now), a);
  // the run stands still: panning asks once more, with a margin each side, then pans within it
  const b = store.window(now - 5_000, now - 1_500, now);
  assert.equal(asked.length, 2);
  assert.ok(asked[1][0] < now - 5_000 && asked[1][1] > now - 1_500, JSON.stringify(asked[1]));
  assert.equal(store.window(now - 5_500, now - 1_000, now), b);
  assert.equal(asked.length, 2);
  // the run moves on: a window that reached past the recorded run is asked again, one before it is not
  const old = store.window(5_000, 8_000, now);
  assert.equal(asked.length, 3);
  c.advance(1_000);
  assert.equal(store.window(5_000, 8_000, c.now), old);
  assert.equal(asked.length, 3);
  store.window(c.now - 3_000, c.now + 500, c.now);
  assert.equal(asked.length, 4);
  // away from now, the present (the ring, the panels) is a projection of its own; both kept while the run stands still
  const back = store.window(5_000, 8_000, c.now);
  const present = store.present(c.now);
  assert.notEqual(present, back);
  assert.ok(present.covers(c.now - PRESENT_MS, c.now));
  const n = asked.length;
  assert.equal(store.present(c.now), present);
  assert.equal(store.window(5_000, 8_000, c.now), back);
  assert.equal(asked.length, n);
  c.dispose();
});

test('a window wider than one projection reads is narrowed at its start: the view says from where it holds', async () => {
  const { Store } = await loadStore();
  const c = await busyRun();
  const narrow = 6_000;
  const refusing = {
    get nodeCount() {
      return c.nodeCount;
    },
    get lastSeq() {
      return c.lastSeq;
    },
    horizon: c.horizon,
    events: (q) => c.events(q),
    // as the core refuses a window holding more events than one projection reads
    lanes: (w) => {
      if (w.to - w.from > narrow) throw Object.assign(new RangeError('to: the window holds more than 250000 events'), { field: 'to' });
      return c.lanes(w);
    },
  };
  const store = new Store();
  store.attach(refusing);
  const view = store.window(0, c.now, c.now);
  assert.equal(view.to, c.now);
  assert.ok(view.from > 0 && view.to - view.from <= narrow, `${view.from}..${view.to}`);
  // the core's own limit on the span
  assert.throws(
    () => c.lanes({ from: 0, to: 600_001 }),
    (e) => e instanceof RangeError && e.field === 'to' && /lanesSpanMs/.test(e.message),
  );
  assert.throws(
    () => c.lanes({ from: 5, to: 4 }),
    (e) => e instanceof RangeError && e.field === 'to',
  );
  assert.throws(() => c.lanes({ from: -1, to: 4 }), RangeError);
  c.dispose();
});

test("the messages in a window, counted per kind for the timeline's text description: what the events say, hidden kinds left out, bounded", async () => {
  const { Store } = await loadStore();
  const c = await busyRun();
  const events = c.events({ text: false });
  const store = new Store();
  store.attach(c);
  let dropsSeen = 0;
  for (const [t0, t1] of [
    [0, 2_000],
    [9_000, 13_000],
    [20_000, 20_500],
    [0, c.now],
  ]) {
    const view = store.window(t0, t1, c.now);
    for (const hidden of [new Set(), new Set([4])]) {
      const want = {};
      let dropped = 0;
      for (const m of messagesFromEvents(events, t0, t1)) {
        if (hidden.has(SPAN_RPCS.indexOf(m.rpc) >> 1) || Math.min(m.end, m.arrives) < t0) continue;
        want[m.rpc] = (want[m.rpc] ?? 0) + 1;
        if (m.dropped) dropped++;
      }
      const got = view.messageCounts(t0, t1, hidden, 1e9);
      const byName = Object.fromEntries(got.byKind.flatMap((n, i) => (n ? [[SPAN_RPCS[i], n]] : [])));
      assert.deepEqual(byName, want, `[${t0}, ${t1}] hiding ${[...hidden]}`);
      assert.equal(got.dropped, dropped);
      assert.equal(got.more, false);
      dropsSeen += dropped;
    }
  }
  assert.ok(dropsSeen > 0, 'the windows hold dropped messages');
  // bounded: past the limit it looks no further and says so
  const few = store.window(0, c.now, c.now).messageCounts(0, c.now, new Set(), 100);
  assert.equal(few.more, true);
  assert.ok(few.byKind.reduce((a, n) => a + (n ?? 0), 0) <= 100);
  c.dispose();
});

test("a message's summary is asked of the cluster when shown, once; the lanes carry what the timeline draws of it", async () => {
  const { Store } = await loadStore();
  const c = await busyRun();
  const store = new Store();
  store.attach(c);
  const view = store.window(c.now - 10_000, c.now, c.now);
  const msgs = Array.from({ length: view.msgs.length }, (_, i) => view.msgs.at(i)).filter((m) => !m.failed);
  const bySeq = new Map(c.events({ from: c.now - 20_000, to: c.now, text: false }).map((e) => [e.seq, e]));
  for (const m of [msgs[0], msgs[msgs.length >> 1], msgs.at(-1)]) assert.equal(store.summaryOf(m), bySeq.get(m.seq).summary);
  // what the timeline draws of a summary: a vote's answer, a fetch's error, divergence or snapshot
  const votes = msgs.filter((m) => SPAN_RPCS[m.rpc] === 'VoteResponse' || SPAN_RPCS[m.rpc] === 'PreVoteResponse');
  assert.ok(votes.length > 0);
  for (const m of votes) assert.equal(m.outcome, store.summaryOf(m).startsWith('granted=true') ? 'granted' : 'refused');
  let asked = 0;
  const once = {
    lastSeq: c.lastSeq,
    horizon: c.horizon,
    nodeCount: c.nodeCount,
    lanes: (w) => c.lanes(w),
    events: (q) => {
      asked++;
      return c.events(q);
    },
  };
  store.attach(once);
  store.summaryOf(msgs[0]);
  store.summaryOf(msgs[0]);
  assert.equal(asked, 1);
  c.dispose();
});

test('Player packed.batches: frames carry the pages as cluster.packedBatch gives them (the same events); maxSeekMs: a seek further on says reset, playing never does', async () => {
  const { unpack } = await load('../src/packed.ts');
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
