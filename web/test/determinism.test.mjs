// Same options + seed + actions -> same trace digest; seeking and links reproduce runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../dist/node.js';

async function script(seed) {
  const c = await Cluster.create({ voters: 5, observers: 1, seed, writesPerSecond: 20, snapshotInterval: 50 });
  c.runUntil((x) => x.leader() !== null, { timeoutMs: 10_000 });
  c.write({ type: 'CreateTopic', name: 'orders', partitions: 3 });
  c.advance(1_000);
  c.crash(c.leader().id);
  c.advance(3_000);
  c.partition([[0, 1], [2, 3, 4, 5]]);
  c.advance(4_000);
  c.setNetwork({ latencyMs: [5, 50], loss: 0.1 });
  c.advance(2_000);
  c.heal();
  for (let n = 0; n < 6; n++) c.restart(n);
  c.slowDisk(2, 40);
  c.resign();
  c.advance(6_000);
  return c;
}

test('same seed and actions give the same digest', async () => {
  const a = await script(123);
  const b = await script(123);
  assert.equal(a.digest(), b.digest());
  assert.equal(a.lastSeq, b.lastSeq);
  assert.deepEqual(a.events({ from: 5_000, to: 6_000 }), b.events({ from: 5_000, to: 6_000 }));
  assert.deepEqual(a.violations(), []);
  const c = await script(124);
  assert.notEqual(c.digest(), a.digest(), 'another seed, another run');
});

test('seeking back and forward reproduces the run', async () => {
  const a = await script(77);
  const digest = a.digest();
  const end = a.now;
  const events = a.events({ from: 2_000, to: 9_000 });
  for (const t of [0, 1_234, 7_000, 12_000]) {
    a.seek(t);
    assert.equal(a.now, t);
    a.seek(end);
    assert.equal(a.digest(), digest, `via ${t}`);
  }
  a.seek(2_000);
  a.seek(end);
  assert.deepEqual(a.events({ from: 2_000, to: 9_000 }), events);
});

test('an action while seeked back forks the future, and links capture the fork', async () => {
  const a = await script(99);
  const end = a.now;
  a.seek(5_000);
  a.isolate(0);
  assert.equal(a.futureInputs().length, 0, 'the recorded future is replaced');
  a.advance(end - 5_000);
  const fork = a.digest();
  const b = await Cluster.fromLink(a.toLink());
  assert.equal(b.digest(), fork);
});

test('links round-trip runs with every kind of action', async () => {
  const a = await script(2024);
  a.cut(0, 1);
  a.isolate(3);
  a.wipe(5);
  a.setWorkload({ writesPerSecond: 5 });
  a.write();
  a.advance(500);
  const link = a.toLink();
  const b = await Cluster.fromLink(link);
  assert.equal(b.digest(), a.digest());
  assert.deepEqual(b.nodes(), a.nodes());
  assert.deepEqual(b.describeQuorum(), a.describeQuorum());
  assert.equal(b.toLink(), link);
  assert.ok(link.length < 2_000, `compact: ${link.length} characters for ${a.inputs().length} actions`);
});

test('a random seed is recorded in the link', async () => {
  const a = await Cluster.create({ voters: 3 });
  a.advance(5_000);
  const b = await Cluster.fromLink(a.toLink());
  assert.equal(b.seed, a.seed);
  assert.equal(b.digest(), a.digest());
});
