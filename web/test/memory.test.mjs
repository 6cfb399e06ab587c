// Memory: the core refuses work beyond its memory budget with a clear error and stays
// usable; a trap in one cluster retires its wasm instance, so new clusters start on a
// fresh one (with its own memory) instead of failing with "unreachable".

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cluster } from '../dist/node.js';

const bigTopic = (i) => ({ type: 'CreateTopic', name: `big-${i}`, partitions: 10_000 });

test('work beyond the memory budget is refused with what is over; the cluster stays readable and seekable', async () => {
  const c = await Cluster.create({ voters: 7, observers: 8, seed: 7 });
  c.advance(5_000);
  let error = null;
  for (let i = 0; i < 1_000 && error === null; i++) {
    try {
      c.write(bigTopic(i));
      c.advance(50);
    } catch (e) {
      error = e;
    }
  }
  assert.ok(error instanceof RangeError, String(error));
  assert.equal(error.field, 'memory');
  assert.match(
    error.message,
    /^memory: (stopped at \d+ ms: )?the metadata images hold \d+ MiB of topics, over the 256 MiB budget: create fewer or smaller topics, or snapshot less often \(snapshotInterval: each snapshot holds an image\); deleting topics does not help: they stay for seeking back$/,
  );
  const [now, digest] = [c.now, c.digest()];
  assert.throws(() => c.advance(1_000), /over the 256 MiB budget/);
  assert.throws(() => c.crash(0), /over the 256 MiB budget/);
  assert.equal(c.now, now);
  assert.ok(c.events({ from: now - 1_000, to: now }).length > 0);
  c.seek(0);
  c.seek(now);
  assert.equal(c.digest(), digest);
  assert.equal(c.broken, false);
  c.dispose();
  const next = await Cluster.create({ seed: 1 });
  next.advance(5_000);
  assert.notEqual(next.leader(), null);
  next.dispose();
});

test('after a trap, new clusters get a fresh wasm instance; the broken one says what happened', async () => {
  // Grow the instance first, so a fresh one is told apart by its memory size.
  const big = await Cluster.create({ voters: 7, observers: 8, seed: 3 });
  big.advance(5_000);
  for (let i = 0; i < 100; i++) {
    big.write(bigTopic(i));
    big.advance(20);
  }
  big.advance(2_000);
  const grown = big.__wasmMemoryBytes();
  assert.ok(grown > 50 * 2 ** 20, `the instance grew to ${grown} bytes`);
  const origError = console.error;
  console.error = () => {};
  try {
    assert.throws(() => big.__panicForTest(), /the simulation core crashed \(a bug in kraft-playground\): panicked at .*deliberate panic for a test \(with \d+ MiB of wasm memory\)/);
  } finally {
    console.error = origError;
  }
  assert.equal(big.broken, true);
  big.dispose();
  for (let i = 0; i < 3; i++) {
    const fresh = await Cluster.create({ seed: 1 });
    assert.ok(fresh.__wasmMemoryBytes() < grown / 2, 'a new cluster lives in a new, small instance');
    fresh.advance(5_000);
    assert.notEqual(fresh.leader(), null);
    const again = Cluster.createSync({ seed: 1 });
    again.advance(5_000);
    assert.equal(again.digest(), fresh.digest(), 'the fresh instance runs the same run');
    console.error = () => {};
    try {
      assert.throws(() => fresh.__panicForTest(), /simulation core crashed/);
    } finally {
      console.error = origError;
    }
    assert.equal(again.broken, false, 'a cluster that shared the instance keeps working');
    again.advance(1_000);
    again.dispose();
  }
});

test("the benchmark's account of a run's memory (__memoryUsage): what the core's budget counts, by holder, and the checkpoints", async () => {
  const c = await Cluster.create({ voters: 3, seed: 5, writesPerSecond: 10 });
  c.advance(5_000);
  const early = c.__memoryUsage();
  c.advance(60_000);
  const later = c.__memoryUsage();
  assert.ok(later.checkpointCount >= early.checkpointCount + 6, `a checkpoint every 10 s at most: ${early.checkpointCount} -> ${later.checkpointCount}`);
  assert.ok(later.checkpoints > early.checkpoints && later.logs > early.logs && later.events > early.events, JSON.stringify({ early, later }));
  c.write(bigTopic(0));
  c.advance(1_000);
  assert.ok(c.__memoryUsage().images > later.images + 10_000 * 3, 'the images hold the new topic on every node');
  c.dispose();
});
