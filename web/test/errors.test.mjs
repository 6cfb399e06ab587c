// Bad arguments throw a TypeError/RangeError/Error that says what was wrong and what is
// allowed, and leave the cluster unchanged; an internal error breaks only that cluster.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cluster, chaosDigest, Player, runChaosSeed } from '../dist/node.js';

function state(c) {
  return { now: c.now, seq: c.lastSeq, digest: c.digest(), inputs: JSON.stringify(c.inputs()), net: c.network() };
}

/** Asserts fn throws `Type` with a message matching `re`, and that `c` did not change. */
function rejects(c, fn, Type, re) {
  const before = state(c);
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Type, `${e.constructor.name}: ${e.message} (wanted ${Type.name})`);
    assert.match(e.message, re);
    return true;
  });
  assert.deepEqual(state(c), before, 'the cluster is unchanged');
}

const c = await Cluster.create({ voters: 3, observers: 2, seed: 11 });
c.advance(3_000);

test('unknown node ids name the valid range', () => {
  for (const [name, fn] of [
    ['crash', () => c.crash(5)],
    ['restart', () => c.restart(-1)],
    ['isolate', () => c.isolate(1.5)],
    ['wipe', () => c.wipe(99)],
    ['slowDisk', () => c.slowDisk(7, 10)],
    ['node', () => c.node(5)],
    ['log', () => c.log(5)],
    ['cut', () => c.cut(0, 5)],
  ]) {
    rejects(c, fn, RangeError, /unknown .*node id .*: this cluster has nodes 0\.\.4 \(voters 0\.\.2, observers 3\.\.4\)/, name);
  }
  rejects(c, () => c.crash('1'), TypeError, /node id must be a number, got "1"/);
  rejects(c, () => c.crash(), TypeError, /node id must be a number, got undefined/);
  rejects(c, () => c.cut(2, 2), RangeError, /two different nodes/);
});

test('durations: negative, NaN, Infinity, fractions, too long', () => {
  rejects(c, () => c.advance(-1), RangeError, /advance\(ms\) must not be negative/);
  rejects(c, () => c.advance(NaN), RangeError, /advance\(ms\) must be a finite number, got NaN/);
  rejects(c, () => c.advance(Infinity), RangeError, /finite/);
  rejects(c, () => c.advance(1.5), RangeError, /whole number/);
  rejects(c, () => c.advance(86_400_001), RangeError, /ms: must be between 0 and 86400000 ms, got 86400001/);
  rejects(c, () => c.advance('10'), TypeError, /must be a number/);
  rejects(c, () => c.seek(-5), RangeError, /seek\(t\) must not be negative/);
  rejects(c, () => c.seek(NaN), RangeError, /finite/);
  rejects(c, () => c.seek(c.now + 86_400_001), RangeError, /a day ahead/);
  rejects(c, () => c.slowDisk(0, -1), RangeError, /flushMs must not be negative/);
  rejects(c, () => c.slowDisk(0, 60_001), RangeError, /flushMs: must be between 0 and 60000 ms, got 60001/);
  rejects(c, () => c.runUntil(() => true, { timeoutMs: -1 }), RangeError, /timeoutMs/);
  rejects(c, () => c.runUntil(() => true, { timeoutMs: Infinity }), RangeError, /timeoutMs/);
  rejects(c, () => c.runUntil('leader'), TypeError, /predicate function/);
  rejects(c, () => c.runUntil(() => true, { timeout: 5 }), TypeError, /unknown runUntil option 'timeout'; allowed: timeoutMs/);
});

test('partitions: a node named twice, empty groups, bad shapes', () => {
  rejects(
    c,
    () =>
      c.partition([
        [0, 1],
        [1, 2],
      ]),
    RangeError,
    /node 1 twice \(groups\[0\]\[1\] and groups\[1\]\[0\]\); each node may be in one group/,
  );
  rejects(c, () => c.partition([[0, 0]]), RangeError, /twice/);
  rejects(c, () => c.partition([[0], []]), RangeError, /groups\[1\] is empty/);
  rejects(c, () => c.partition([[0], [9]]), RangeError, /groups\[1\]\[0\] 9/);
  rejects(c, () => c.partition([0, 1]), TypeError, /groups\[0\] must be an array/);
  rejects(c, () => c.partition('0,1'), TypeError, /must be an array/);
});

test('network, workload and records', () => {
  rejects(c, () => c.setNetwork({ loss: 1.5 }), RangeError, /loss must be a number between 0 and 1, got 1.5/);
  rejects(c, () => c.setNetwork({ duplicate: -0.1 }), RangeError, /duplicate/);
  rejects(c, () => c.setNetwork({ latencyMs: [10, 5] }), RangeError, /^latencyMs: latency min 10 ms is above max 5 ms$/);
  rejects(c, () => c.setNetwork({ latencyMs: [1, 2, 3] }), TypeError, /\[min, max\] pair/);
  rejects(c, () => c.setNetwork({ latencyMs: 70_000 }), RangeError, /^latencyMs\[1\]: latency must be at most 60000 ms, got 70000$/);
  rejects(c, () => c.setNetwork({ jitter: 1 }), TypeError, /unknown network field 'jitter'; allowed: latencyMs, loss, duplicate/);
  rejects(c, () => c.setWorkload({ writesPerSecond: 1001 }), RangeError, /between 0 and 1000/);
  rejects(c, () => c.setWorkload({ rate: 1 }), TypeError, /unknown workload field 'rate'/);
  rejects(c, () => c.setWorkload(5), TypeError, /must be a plain object/);
  rejects(c, () => c.write({ type: 'Nope' }), RangeError, /record.type must be one of RegisterBroker, UnregisterBroker, CreateTopic, DeleteTopic, PartitionChange/);
  rejects(c, () => c.write({ type: 'LeaderChange', leader: 0, voters: [0] }), RangeError, /control record/);
  rejects(c, () => c.write({ type: 'CreateTopic', name: 'orders' }), TypeError, /record.partitions is required/);
  rejects(c, () => c.write({ type: 'CreateTopic', name: 'orders', partitions: 0 }), RangeError, /between 1 and 10000/);
  rejects(c, () => c.write({ type: 'CreateTopic', name: 'bad name!', partitions: 1 }), RangeError, /invalid: use 1-249 characters/);
  rejects(c, () => c.write({ type: 'CreateTopic', name: 'a', partitions: 1, replicas: 3 }), TypeError, /unknown field of a CreateTopic record 'replicas'; allowed: type, name, partitions/);
  rejects(c, () => c.write(null), TypeError, /record must be a plain object/);
});

test('queries', () => {
  rejects(c, () => c.events({ since: -1 }), RangeError, /since/);
  rejects(c, () => c.events({ from: 10, to: 5 }), RangeError, /from \(10\) must not be after to \(5\)/);
  rejects(c, () => c.events({ after: 3 }), TypeError, /unknown events query field 'after'; allowed: since, from, to, limit/);
  rejects(c, () => c.nodes({ record: true }), TypeError, /unknown nodes option 'record'/);
  rejects(c, () => c.nodes({ records: 'yes' }), TypeError, /true or false/);
  rejects(c, () => c.log(0, { from: -1 }), RangeError, /from/);
});

test('create: unknown options, switches, config keys and bad values', async () => {
  const bad = [
    [{ voterz: 3 }, TypeError, /unknown option in Cluster.create options 'voterz'; allowed: voters, observers, seed, network/],
    [{ voters: 0 }, RangeError, /voters: must be between 1 and 7, got 0/],
    [{ voters: 8 }, RangeError, /voters: must be between 1 and 7, got 8/],
    [{ observers: 9 }, RangeError, /observers: must be between 0 and 8, got 9/],
    [{ seed: -1 }, RangeError, /seed must be at least 0/],
    [{ seed: 2 ** 60 }, RangeError, /seed must be at most 9007199254740991 \(Number.MAX_SAFE_INTEGER/],
    [{ seed: 1n }, TypeError, /bigint/],
    [{ network: 'lan' }, RangeError, /network must be one of datacenter, teaching, wan; got "lan"/],
    [{ network: { latency: 5 } }, TypeError, /unknown network field 'latency'/],
    [{ network: { loss: 0.1 } }, TypeError, /network.latencyMs is required/],
    [{ config: { 'fetch.timeout.ms': 10 } }, TypeError, /unknown config key 'fetch.timeout.ms'; known keys: controller.quorum.fetch.timeout.ms/],
    [{ config: { 'controller.quorum.fetch.timeout.ms': 5 } }, RangeError, /config.controller.quorum.fetch.timeout.ms: .*must be between 10 and 600000 ms, got 5/],
    [{ config: { 'controller.quorum.fetch.timeout.ms': -5 } }, RangeError, /at least 0/],
    [{ unsafe: ['no-prevote'] }, RangeError, /unsafe\[0\] \(a safety switch\) must be one of hw-before-own-epoch, .*no-pre-vote/],
    [{ unsafe: 'no-pre-vote' }, TypeError, /unsafe must be an array/],
    [{ snapshotInterval: 5 }, RangeError, /0 \(never\) or at least 10/],
    [{ writesPerSecond: 5000 }, RangeError, /between 0 and 1000/],
    [{ stableLeadership: 1 }, TypeError, /true or false/],
    [{ kafkaRelease: '3.8' }, RangeError, /kafkaRelease must be one of legacy, 3\.9, 4\.0, 4\.1, 4\.2; got "3\.8"/],
    [{ kafkaRelease: 4.1 }, TypeError, /kafkaRelease must be one of legacy, .*; got 4\.1/],
    [[3], TypeError, /must be a plain object/],
  ];
  for (const [opts, Type, re] of bad) {
    await assert.rejects(Cluster.create(opts), (e) => {
      assert.ok(e instanceof Type, `${JSON.stringify(opts, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}: ${e.constructor.name}: ${e.message}`);
      assert.match(e.message, re);
      return true;
    });
  }
});

test('links: malformed, cut short, other version, tampered', async () => {
  const link = c.toLink();
  const cases = [
    [42, TypeError, /a link must be a string/],
    ['hello', TypeError, /malformed link: expected a token starting with 'k2\.'/],
    ['k9.eyJ9', Error, /incompatible link: it uses link format k9, .*reads only k1 and k2 links/],
    ['k1.!!!', TypeError, /malformed link/],
    [link.slice(0, link.length - 7), TypeError, /malformed link/],
    [`k1.${Buffer.from('[1,2]').toString('base64url')}`, TypeError, /not an object/],
    [`k1.${Buffer.from('{"spec":{"voters":3,"seed":1},"inputs":[],"t":-1}').toString('base64url')}`, TypeError, /t must be a whole number/],
    [`k1.${Buffer.from('{"spec":{"voters":3},"inputs":[],"t":0}').toString('base64url')}`, TypeError, /spec.seed is missing/],
    [`k1.${Buffer.from('{"spec":{"voters":30,"seed":1},"inputs":[],"t":0}').toString('base64url')}`, RangeError, /invalid link: voters: must be between 1 and 7, got 30/],
    [
      `k1.${Buffer.from('{"spec":{"voters":3,"seed":1},"inputs":[{"t":5,"action":"crash","node":7}],"t":10}').toString('base64url')}`,
      RangeError,
      /invalid link: inputs\[0\]\.node: node 7 does not exist/,
    ],
    [`k1.${Buffer.from('{"spec":{"voters":3,"seed":1},"inputs":[{"t":5,"action":"explode"}],"t":10}').toString('base64url')}`, TypeError, /invalid link: inputs/],
    [`k1.${Buffer.from('{"spec":{"voters":3,"seed":1},"inputs":[{"t":50,"action":"heal"}],"t":10}').toString('base64url')}`, RangeError, /inputs\[0\]\.t/],
    [`k1.${Buffer.from('{"spec":{"voters":3,"seed":1},"inputs":[],"t":99999999999}').toString('base64url')}`, RangeError, /at most a day/],
    [`k1.${Buffer.from('{"spec":{"voters":3,"seed":1},"inputs":[],"t":0,"x":1}').toString('base64url')}`, TypeError, /unknown field 'x'/],
  ];
  for (const [l, Type, re] of cases) {
    await assert.rejects(Cluster.fromLink(l), (e) => {
      assert.ok(e instanceof Type, `${String(l).slice(0, 40)}: ${e.constructor.name}: ${e.message}`);
      assert.match(e.message, re);
      return true;
    });
  }
});

test('player arguments', () => {
  assert.throws(() => new Player({}), TypeError);
  assert.throws(() => new Player(c, { speed: 1000 }), /speed must be between 0.1 and 100, got 1000/);
  assert.throws(() => new Player(c, { sped: 2 }), /unknown Player option 'sped'/);
  const p = new Player(c, { scheduler: { request: () => 0, cancel: () => {} } });
  assert.throws(() => (p.speed = 0), RangeError);
  assert.throws(() => (p.speed = NaN), RangeError);
  assert.throws(() => p.tick(-1), RangeError);
  assert.throws(() => p.subscribe(5), TypeError);
  assert.throws(() => Player.speedFromSlider(2), RangeError);
});

test('chaos sweep arguments', async () => {
  await assert.rejects(runChaosSeed(1, { seconds: 10 }), /seconds: must be between 20 and 86400 s, got 10/);
  await assert.rejects(runChaosSeed(1, { seconds: 30, voters: 9 }), /voters: must be between 1 and 7, got 9/);
  await assert.rejects(runChaosSeed(1, { seconds: 30, unsafe: ['x'] }), /safety switch/);
  await assert.rejects(runChaosSeed(-1, { seconds: 30 }), /seed/);
  await assert.rejects(chaosDigest(1, 30, 0), /voters/);
});

test('an internal error breaks only that cluster, with a clear message', async () => {
  const broken = await Cluster.create({ seed: 1 });
  const other = await Cluster.create({ seed: 1 });
  const p = new Player(broken, { scheduler: { request: () => 0, cancel: () => {} } });
  const origError = console.error;
  let reported = '';
  console.error = (...a) => {
    reported += a.join(' ');
  };
  try {
    assert.throws(
      () => broken.__panicForTest(),
      /^Error: the simulation core crashed \(a bug in kraft-playground\): panicked at .*: deliberate panic for a test \(with \d+ MiB of wasm memory\)\. This cluster can no longer be used \(other clusters and new ones are not affected\); cluster\.reproductionLink\(\) gives a link/,
    );
  } finally {
    console.error = origError;
  }
  assert.match(reported, /deliberate panic for a test/, 'console_error_panic_hook reported the panic');
  assert.equal(broken.broken, true);
  for (const fn of [() => broken.now, () => broken.advance(1), () => broken.leader(), () => broken.crash(0), () => broken.toLink()]) {
    assert.throws(fn, /the simulation core crashed \(a bug in kraft-playground\).*This cluster can no longer be used/);
  }
  assert.throws(() => new Player(broken), /simulation core crashed/);
  const frame = p.tick(10);
  assert.equal(p.playing, false);
  assert.match(frame.error.message, /simulation core crashed/);
  // Other clusters keep working.
  other.advance(5_000);
  assert.notEqual(other.leader(), null);
  const fresh = await Cluster.create({ seed: 1 });
  fresh.advance(5_000);
  assert.equal(fresh.digest(), other.digest());
});

test('zero latency is refused with its limit wherever it comes from', async () => {
  // At zero latency leaderless voters bounce Fetch / NOT_LEADER_OR_FOLLOWER within one
  // millisecond forever (Kafka handles that error without backoff): 1 ms is the least.
  for (const latencyMs of [0, -0, [0, 0], [0, 5]]) {
    await assert.rejects(Cluster.create({ network: { latencyMs } }), (e) => {
      assert.ok(e instanceof RangeError, e.message);
      assert.match(e.message, /^network\.latencyMs\[0\]: latency must be at least 1 ms \(at zero latency replicas can answer each other forever within one millisecond\), got 0 ms$/);
      return true;
    });
  }
  rejects(
    c,
    () => c.setNetwork({ latencyMs: 0 }),
    RangeError,
    /^latencyMs\[0\]: latency must be at least 1 ms \(at zero latency replicas can answer each other forever within one millisecond\), got 0 ms$/,
  );
  rejects(
    c,
    () => c.setNetwork({ latencyMs: [-0, 3] }),
    RangeError,
    /^latencyMs\[0\]: latency must be at least 1 ms \(at zero latency replicas can answer each other forever within one millisecond\), got 0 ms$/,
  );
  rejects(c, () => c.setNetwork({ latencyMs: [5, 60_001] }), RangeError, /^latencyMs\[1\]: latency must be at most 60000 ms, got 60001$/);
  rejects(c, () => c.slowLink(0, 1, 0), RangeError, /^latencyMs\[0\]: latency must be at least 1 ms \(at zero latency replicas can answer each other forever within one millisecond\), got 0 ms$/);
  // A link or a scenario meets the same check in the core.
  const spec = { voters: 3, seed: 1 };
  const inputs = [{ t: 5, action: 'slowLink', from: 0, to: 1, latencyMs: [0, 0] }];
  const link = `k1.${Buffer.from(JSON.stringify({ v: '0', spec, inputs, t: 10 })).toString('base64url')}`;
  await assert.rejects(Cluster.fromLink(link), /inputs\[0\]\.latencyMs\[0\]: latency must be at least 1 ms .*got 0 ms$/);
  const scenario = { id: 'z', title: 'z', summary: 'z', cluster: { voters: 3, network: { latencyMs: [0, 0] } }, durationMs: 1000, steps: [] };
  await assert.rejects(Cluster.fromScenario(scenario), /cluster\.network\.latencyMs\[0\]: latency must be at least 1 ms .*got 0 ms$/);
});

test('log(id, { from }) without a limit reads to the end', () => {
  const d = Cluster.createSync({ voters: 3, seed: 2, writesPerSecond: 20 });
  d.advance(5_000);
  const all = d.log(0);
  assert.ok(all.length > 5);
  assert.deepEqual(d.log(0, { from: all[2].offset }), all.slice(2));
});
