// Share links: compact (k2: DEFLATE-compressed), a 1,000-action run round-trips
// exactly, old k1 links still open, and what a link may inflate to is bounded.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { Cluster } from '../dist/node.js';

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
