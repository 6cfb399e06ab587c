// The UI's store of a run (web/src/ui/store.ts): compacting a long run forgets its older
// half in place (slicing the indexes) and must hold exactly what taking the kept events
// in again from the remembered state would. Bundled from source with esbuild; fed with a
// real run's events (crashes, partitions, writes: messages, disconnects, truncations).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { Cluster } from '../dist/node.js';

const source = fileURLToPath(new URL('../src/ui/store.ts', import.meta.url));

async function loadStore() {
  const dir = mkdtempSync(join(tmpdir(), 'kp-store-'));
  try {
    const outfile = join(dir, 'store.mjs');
    await build({ entryPoints: [source], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
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

/** Everything a store holds that the views draw from. */
function held(s) {
  const steps = (st) => ({ t: st.t, v: st.v.map((x) => (Number.isNaN(x) ? 'NaN' : x)) });
  return {
    firstT: s.firstT,
    lastSeq: s.lastSeq,
    events: s.events.map((e) => e.seq),
    eventT: s.eventT,
    msgs: s.msgs.map((m) => ({ ...m, end: m.end === Infinity ? 'Infinity' : m.end })),
    msgSent: s.msgSent,
    open: [...s.open.keys()].sort((a, b) => a - b),
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

  assert.equal(compacted.compact(max), true);
  // the old way: remember the state where the kept part starts, take the kept events in again
  const from = compacted.events.length === 0 ? 0 : reference.events.findIndex((e) => e.seq === compacted.events[0].seq);
  assert.ok(from > 0);
  reference.rebuild(from, reference.events.length);
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
  packed.add(c.packedEvents(windowQuery(c.now)));
  assert.equal(packed.events.length, full.events.length);
  assert.ok(
    packed.events.every((e, i) => sameEvent(e, full.events[i])),
    'the same events, less text and summaries',
  );
  const withoutSummaries = (s) => held(s).msgs.map(({ summary, ...m }) => m);
  assert.deepEqual(withoutSummaries(packed), withoutSummaries(full));
  assert.deepEqual({ ...held(packed), msgs: null }, { ...held(full), msgs: null });
  const left = packed.msgs.filter((m) => m.summary === undefined);
  assert.ok(left.length > 100, `messages come without a summary (${left.length})`);
  for (const m of [left[0], left[left.length >> 1], left[left.length - 1]]) {
    const want = full.msgs.find((x) => x.seq === m.seq).summary;
    assert.ok(want.length > 0);
    assert.equal(packed.summaryOf(m), want);
    assert.equal(m.summary, want, 'kept once asked');
  }
  // the timeline's cues read summaries that tell an outcome: those come along
  for (const m of packed.msgs) if (m.summary !== undefined && !m.failed) assert.equal(m.summary, full.msgs.find((x) => x.seq === m.seq).summary);
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
  ui.add(a.packedEvents({ text: STORE_TEXT }));
  full.reset(b.nodeCount);
  full.add(b.events());
  const pa = new Player(a, { packed: { text: STORE_TEXT }, maxEvents: 3_000, scheduler: idle });
  const pb = new Player(b, { scheduler: idle });
  const frames = [];
  pa.subscribe((f) => {
    frames.push(f);
    ui.takeFrame(a, f.events, f.reset, 0);
  });
  pb.subscribe((f) => full.takeFrame(b, f.events, f.reset, 0));
  const withoutSummaries = (s) => ({ ...held(s), msgs: held(s).msgs.map(({ summary, ...m }) => m) });
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
    ui.events.map((e) => e.seq),
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
