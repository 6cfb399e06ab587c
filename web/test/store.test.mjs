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

  assert.equal(compacted.compact(max), true);
  // the old way: remember the state where the kept part starts, take the kept events in again
  const first = eventsOf(compacted)[0];
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
