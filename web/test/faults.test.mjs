// Undoing faults one at a time through the package API: reconnect, healPartition,
// clearSlowLink, clearFaults, and the linkFaults and baseline views. Each undo is an
// action in the input log, so a link replays it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cluster } from '../dist/node.js';

async function cluster(opts = {}) {
  const c = await Cluster.create({ voters: 3, observers: 2, seed: 9, network: 'teaching', ...opts });
  c.advance(3_000);
  return c;
}

test('linkFaults lists each link fault as made; each undo removes only its own', async () => {
  const c = await cluster();
  assert.deepEqual(c.linkFaults(), { groups: [], isolated: [], cuts: [], slowLinks: [] });
  c.partition([
    [0, 1],
    [2, 3, 4],
  ])
    .isolate(3)
    .cut(1, 0)
    .slowLink(2, 4, [300, 400]);
  assert.deepEqual(c.linkFaults(), {
    groups: [
      [0, 1],
      [2, 3, 4],
    ],
    isolated: [3],
    cuts: [[1, 0]],
    slowLinks: [{ from: 2, to: 4, latencyMs: [300, 400] }],
  });
  c.healPartition();
  assert.deepEqual(c.linkFaults().groups, []);
  assert.deepEqual(c.linkFaults().isolated, [3], 'the isolation stays');
  c.reconnect(3);
  assert.deepEqual(c.downLinks(), [[1, 0]], "n3's links are back, the cut stays");
  c.clearSlowLink(2, 4);
  assert.deepEqual(c.linkFaults(), { groups: [], isolated: [], cuts: [[1, 0]], slowLinks: [] });
  assert.throws(() => c.reconnect(9), RangeError);
  assert.throws(() => c.clearSlowLink(1, 1), /two different nodes/);
  // the undos are in the input log, and a link replays them
  const kinds = c.inputs().map((a) => a.action);
  for (const k of ['healPartition', 'reconnect', 'clearSlowLink']) assert.ok(kinds.includes(k), k);
  c.advance(2_000);
  const again = await Cluster.fromLink(c.toLink());
  assert.equal(again.digest(), c.digest());
  assert.deepEqual(again.linkFaults(), c.linkFaults());
});

test('clearFaults restores links, network and disks as created and restarts crashed nodes; baseline says what that is', async () => {
  const c = await cluster({ flushMs: 5 });
  const base = c.baseline();
  assert.deepEqual(base, { network: { latencyMs: [60, 140], loss: 0, duplicate: 0 }, flushMs: 5 });
  c.isolate(2)
    .cut(0, 1)
    .setNetwork({ loss: 0.1, duplicate: 0.05, latencyMs: [200, 300] })
    .slowDisk(1, 400)
    .crash(4);
  // heal() alone leaves the network and the disks
  c.heal();
  assert.deepEqual(c.downLinks(), []);
  assert.equal(c.network().loss, 0.1);
  assert.equal(c.node(1).flushMs, 400);
  c.isolate(2);
  const before = c.inputs().length;
  c.clearFaults();
  assert.deepEqual(c.downLinks(), []);
  assert.deepEqual(c.network(), base.network);
  assert.ok(c.nodes({ records: false }).every((n) => n.flushMs === 5 && n.state !== 'crashed'));
  // only what differed, each as one action: heal, network, slowDisk n1, restart n4
  assert.deepEqual(
    c
      .inputs()
      .slice(before)
      .map((a) => a.action),
    ['heal', 'network', 'slowDisk', 'restart'],
  );
  c.clearFaults();
  assert.equal(c.inputs().length, before + 4, 'nothing left to clear records nothing');
});
