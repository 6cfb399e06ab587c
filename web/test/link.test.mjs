// Share links: compact (k2: DEFLATE-compressed), a 1,000-action run round-trips
// exactly, old k1 links still open, and what a link may inflate to is bounded.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { Cluster, catalog, init } from '../dist/node.js';

/** A run with 1,000 actions of every kind, spread over simulated time. */
async function thousandActions() {
  const c = await Cluster.create({ seed: 5, voters: 5, observers: 2 });
  for (let i = 0; i < 1000; i++) {
    c.advance(37 + ((i * 7919) % 400));
    switch (i % 10) {
      case 0:
        c.crash(i % 5);
        break;
      case 1:
        c.restart(i % 5);
        break;
      case 2:
        c.setNetwork({ loss: (i % 50) / 100 });
        break;
      case 3:
        c.write({ type: 'CreateTopic', name: `topic-${i}`, partitions: 1 + (i % 7) });
        break;
      case 4:
        c.partition([
          [0, 1],
          [2, 3, 4],
        ]);
        break;
      case 5:
        c.heal();
        break;
      case 6:
        c.cut(i % 5, (i + 1) % 5);
        break;
      case 7:
        c.slowDisk(i % 7, i % 300);
        break;
      default:
        c.write();
    }
  }
  return c;
}

const k1 = (payload) => `k1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;

test('a 1,000-action run round-trips through a link exactly, and the link is compressed', async () => {
  const c = await thousandActions();
  assert.equal(c.inputs().length, 1000);
  const link = c.toLink();
  assert.match(link, /^k2\.[A-Za-z0-9_-]+$/);
  const raw = k1({ v: '0', spec: c.options, inputs: c.inputs(), t: c.now });
  console.log(`1,000-action link: ${link.length} characters (k2, compressed) vs ${raw.length} (k1, raw)`);
  assert.ok(link.length * 5 < raw.length, `${link.length} vs ${raw.length}`);
  assert.ok(link.length < 16_000, 'fits where a 16 KB query string would not');
  const back = await Cluster.fromLink(`https://example.org/#run=${link}`);
  assert.equal(back.now, c.now);
  assert.deepEqual(back.inputs(), c.inputs());
  assert.equal(back.digest(), c.digest());
  assert.equal(back.toLink(), link);
  // the old uncompressed form of the same run opens to the same run
  assert.equal((await Cluster.fromLink(`https://example.org/?run=${raw}`)).digest(), c.digest());
});

test('a link that inflates past the limit is refused quickly, before parsing', async () => {
  const bomb = `k2.${deflateRawSync(Buffer.from(' '.repeat(17 * 1024 * 1024)), { level: 9 }).toString('base64url')}`;
  assert.ok(bomb.length < 100_000, `${bomb.length}`);
  await assert.rejects(Cluster.fromLink(bomb), (e) => {
    assert.ok(e instanceof RangeError);
    assert.match(e.message, /^link too long: it carries more than 16777216 bytes once decoded; a link carries at most 16777216 bytes of JSON$/);
    return true;
  });
});

test('a k2 link cut short or tampered with says so', async () => {
  const c = await Cluster.create({ seed: 2 });
  c.advance(3_000).crash(0).advance(1_000);
  const link = c.toLink();
  for (const bad of [link.slice(0, link.length - 10), `k2.${Buffer.from('not deflate at all').toString('base64url')}`, 'k2.!!']) {
    await assert.rejects(Cluster.fromLink(bad), (e) => {
      assert.ok(e instanceof TypeError, `${e}`);
      assert.match(e.message, /^malformed link: /);
      return true;
    });
  }
});

test("a link carries every setting the operator's console sets (config keys, disk and snapshot options) and replays with them", async () => {
  await init();
  const config = Object.fromEntries(catalog().configKeys.map((k) => [k.key, k.default === k.min ? k.default + 1 : k.default - 1]));
  config['controller.quorum.fetch.timeout.ms'] = 500;
  // Kafka 4.2 and a dynamic quorum: where controller.quorum.auto.join.enable may be on.
  const c = await Cluster.create({ seed: 8, config, flushMs: 5, snapshotInterval: 50, writesPerSecond: 10, kafkaRelease: '4.2', quorum: 'dynamic' });
  c.advance(4_000);
  c.crash(c.leader()?.id ?? 0);
  c.advance(3_000);
  const back = await Cluster.fromLink(c.toLink());
  assert.deepEqual(back.options.config, config);
  assert.equal(back.options.flushMs, 5);
  assert.equal(back.options.snapshotInterval, 50);
  assert.deepEqual([back.options.kafkaRelease, back.options.quorum], ['4.2', 'dynamic']);
  assert.equal(back.digest(), c.digest());
  // a 500 ms fetch timeout is what the run used: detection is a quarter of Kafka's 2 s
  const failover = back.leaderChanges().find((ch) => ch.previous !== null);
  assert.ok(failover, 'the crash was followed by a new leader');
  const detection = failover.measurement.parts.find((p) => p.name === 'detection');
  assert.ok(detection && detection.ms <= 600, JSON.stringify(failover.measurement));
});

test('a link carries the Kafka release a run models; a run without one is the legacy run', async () => {
  await init();
  assert.deepEqual(
    catalog().releases.map((r) => r.name),
    ['legacy', '3.9', '4.0', '4.1', '4.2'],
  );
  const run = async (kafkaRelease) => {
    const c = await Cluster.create({ seed: 4, flushMs: 20, ...(kafkaRelease ? { kafkaRelease } : {}) });
    c.advance(3_000);
    c.crash(c.leader()?.id ?? 0);
    c.advance(3_000);
    return c;
  };
  const [plain, legacy, release] = [await run(), await run('legacy'), await run('4.1')];
  assert.equal(legacy.digest(), plain.digest(), 'legacy is the run without a release');
  assert.notEqual(release.digest(), plain.digest(), "4.1's quorum-state flushes change the run");
  const back = await Cluster.fromLink(release.toLink());
  assert.equal(back.options.kafkaRelease, '4.1');
  assert.equal(back.digest(), release.digest());
  assert.equal((await Cluster.fromLink(plain.toLink())).options.kafkaRelease, undefined, 'old links stay as they were');
  const k1 = (s) => `k1.${Buffer.from(JSON.stringify({ v: '0', spec: s, inputs: [], t: 0 })).toString('base64url')}`;
  await assert.rejects(Cluster.fromLink(k1({ seed: 1, voters: 3, kafkaRelease: '5.0' })), (e) => {
    assert.ok(e instanceof RangeError, `${e}`);
    assert.match(e.message, /^invalid link: kafkaRelease must be one of legacy, 3\.9, 4\.0, 4\.1, 4\.2; got "5\.0"/);
    return true;
  });
});

test('a link with a setting out of its range is refused, the error naming the field, the value and the limit', async () => {
  const spec = { seed: 1, voters: 3 };
  const k1 = (s) => `k1.${Buffer.from(JSON.stringify({ v: '0', spec: s, inputs: [], t: 0 })).toString('base64url')}`;
  for (const [bad, field, limit] of [
    [{ config: { 'controller.quorum.fetch.timeout.ms': 5 } }, 'config.controller.quorum.fetch.timeout.ms', /between 10 and 600000 ms, got 5/],
    [{ config: { 'controller.quorum.fetch.max.bytes': 0 } }, 'config.controller.quorum.fetch.max.bytes', /between 1 and 67108864 bytes, got 0/],
    [{ flushMs: 60_001 }, 'flushMs', /between 0 and 60000 ms, got 60001/],
    [{ snapshotInterval: 5 }, 'snapshotInterval', /got 5/],
  ]) {
    await assert.rejects(Cluster.fromLink(k1({ ...spec, ...bad })), (e) => {
      assert.ok(e instanceof RangeError, `${e}`);
      assert.ok(e.message.startsWith(`invalid link: ${field}: `), e.message);
      assert.match(e.message, limit);
      return true;
    });
  }
});

test('toLink({ until }) after a travel back links the whole run: the same link as before the travel', async () => {
  const c = await Cluster.create({ seed: 6 });
  c.advance(3_000).crash(0).advance(2_000).restart(0).advance(2_000);
  const whole = c.toLink();
  const end = c.now;
  c.seek(2_500);
  assert.equal(c.toLink({ until: end }), whole);
  const here = await Cluster.fromLink(c.toLink());
  assert.equal(here.now, 2_500);
  assert.equal(here.inputs().length, 0);
  assert.throws(() => c.toLink({ until: 1_000 }), /until must be at least now \(2500 ms\), got 1000/);
});
