// Fuzzing what a share link carries, through the public API (decodeLink in link.ts, the
// option checks, the core's replay): links made by real runs, then damaged (the token's
// characters) or rewritten (values in the decoded JSON). Every link either opens, and
// then round-trips to the same run, or is refused with an Error that says why; none may
// trap the core. Seeded: a failure prints the seed and case that reproduce it.
//   KRAFT_FUZZ_SECONDS=60 KRAFT_FUZZ_SEED=1 node --test web/test/link-fuzz.test.mjs

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import { Cluster, init } from '../dist/node.js';

const SECONDS = Number(process.env.KRAFT_FUZZ_SECONDS ?? 2);
const SEED = Number(process.env.KRAFT_FUZZ_SEED ?? 1);
/** Links replaying more simulated time than this are not opened (the fuzzer spends its
 * time on many short runs; long replays are the bounds tests' business). */
const BUDGET_MS = 20_000;

/** SplitMix64 on BigInt: one independent stream per (seed, case). */
function rng(seed, stream) {
  let s = BigInt.asUintN(64, BigInt(seed) ^ (BigInt(stream) * 0xd6e8feb86659fd93n));
  const next = () => {
    s = BigInt.asUintN(64, s + 0x9e3779b97f4a7c15n);
    let z = s;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  };
  const below = (n) => Number(next() % BigInt(n));
  return { below, pick: (xs) => xs[below(xs.length)] };
}

const EDGES = [0, 1, -1, 7, 8, 16, 0.5, -0, 1000, 1001, 60_001, 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2, 1e308, -1e308];
const WORDS = ['voters', 'observers', 'seed', 'network', 'latencyMs', 'loss', 'action', 'node', 'groups', 't', 'x'];

function randomValue(r, depth) {
  switch (r.below(depth > 0 ? 7 : 4)) {
    case 0:
      return r.pick(EDGES);
    case 1:
      return r.pick([null, true, false, '', 'crash', 'datacenter', '\u0000', 'é'.repeat(3)]);
    case 2:
      return r.pick(WORDS);
    case 3:
      return r.below(100);
    case 4: {
      let v = r.below(3);
      for (let i = r.below(300); i > 0; i--) v = [v];
      return v;
    }
    case 5:
      return Array.from({ length: r.below(4) }, () => randomValue(r, depth - 1));
    default:
      return Object.fromEntries(Array.from({ length: r.below(4) }, () => [r.pick(WORDS), randomValue(r, depth - 1)]));
  }
}

/** Replaces one value somewhere in `v`, or removes or adds a key. */
function mutate(v, r) {
  const kids = v !== null && typeof v === 'object' ? Object.keys(v) : [];
  if (kids.length > 0 && r.below(4) !== 0) {
    const k = r.pick(kids);
    v[k] = mutate(v[k], r);
    return v;
  }
  if (kids.length > 0 && !Array.isArray(v) && r.below(3) === 0) {
    delete v[r.pick(kids)];
    return v;
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && r.below(3) === 0) {
    v[r.pick(WORDS)] = randomValue(r, 2);
    return v;
  }
  return randomValue(r, 2);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
function damage(token, r) {
  let s = token;
  for (let i = 1 + r.below(3); i > 0; i--) {
    const at = r.below(s.length + 1);
    const op = r.below(4);
    if (op === 0) s = s.slice(0, at);
    else if (op === 1) s = s.slice(0, at) + s.slice(at + 1);
    else if (op === 2) s = s.slice(0, at) + r.pick([...B64]) + s.slice(at + 1);
    else s = s.slice(0, at) + r.pick(['+', '/', '=', '%', '.', ' ', '#', '?', 'k2.']) + s.slice(at);
  }
  return s;
}

/** A link made by a short random run. */
function baseLink(r) {
  const c = Cluster.createSync({
    voters: 1 + r.below(5),
    observers: r.below(3),
    seed: r.below(1_000_000),
    writesPerSecond: r.pick([0, 10, 50]),
    ...(r.below(2) === 0 ? { config: { 'controller.quorum.append.linger.ms': 0 } } : {}),
  });
  const n = c.nodeCount;
  for (let i = r.below(12); i > 0; i--) {
    const node = r.below(n);
    const act = r.below(9);
    if (act === 0) c.crash(node);
    else if (act === 1) c.restart(node);
    else if (act === 2 && n > 1) c.partition([[node], [...Array(n).keys()].filter((x) => x !== node)]);
    else if (act === 3) c.heal();
    else if (act === 4) c.write();
    else if (act === 5) c.resign();
    else if (act === 6) c.setNetwork({ latencyMs: [1 + r.below(20), 30 + r.below(100)], loss: r.below(20) / 100 });
    else c.advance(r.pick([0, 1, 50, 700, 3000]));
  }
  const link = c.toLink();
  c.dispose();
  return link;
}

/** The link, or null when the fuzzer does not open it (over budget). */
function fuzzedLink(r) {
  const link = baseLink(r);
  const token = link.slice(3);
  const kind = r.below(4);
  if (kind === 0) return r.pick(['', 'https://x.test/?run=', 'https://x.test/#', 'k1.x#run=']) + link;
  if (kind === 1) return link.slice(0, 3) + damage(token, r);
  // k2 tokens are raw DEFLATE (link.ts); the rewritten payload goes out as k1, which
  // every version still reads.
  const bytes = Buffer.from(token, 'base64url');
  const payload = JSON.parse((link.startsWith('k2.') ? inflateRawSync(bytes) : bytes).toString('utf8'));
  let p = payload;
  for (let i = 1 + r.below(3); i > 0; i--) p = mutate(p, r);
  const t = p?.t;
  const late = Array.isArray(p?.inputs) && p.inputs.some((x) => x?.t > BUDGET_MS);
  if ((typeof t === 'number' && t > BUDGET_MS) || late) return null;
  return `k1.${Buffer.from(JSON.stringify(p) ?? 'null', 'utf8').toString('base64url')}`;
}

await init();

test(`links: fuzzed for ${SECONDS} s (seed ${SEED})`, async (t) => {
  const started = performance.now();
  const tally = { opened: 0, refused: 0, skipped: 0 };
  for (let i = 0; i === 0 || performance.now() - started < SECONDS * 1000; i++) {
    const link = fuzzedLink(rng(SEED, i));
    if (link === null) {
      tally.skipped++;
      continue;
    }
    const where = `case ${i} (KRAFT_FUZZ_SEED=${SEED}): ${link.slice(0, 300)}`;
    let c;
    try {
      c = await Cluster.fromLink(link);
    } catch (e) {
      assert.ok(e instanceof Error, `${where}: threw a non-Error ${e}`);
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `${where}: the core trapped: ${e.message}`);
      assert.doesNotMatch(e.message, /unreachable|RuntimeError/, where);
      assert.ok(e.message.length > 0, `${where}: an empty message`);
      tally.refused++;
      continue;
    }
    const again = await Cluster.fromLink(c.toLink());
    assert.equal(again.digest(), c.digest(), `${where}: its own link replays another run`);
    assert.equal(again.now, c.now, where);
    again.dispose();
    c.dispose();
    tally.opened++;
  }
  // A refused link leaves the core usable.
  (await Cluster.create({ voters: 3 })).advance(1000).dispose();
  const wall = (performance.now() - started) / 1000;
  const n = tally.opened + tally.refused + tally.skipped;
  t.diagnostic(`${n} links in ${wall.toFixed(1)} s (${Math.round(n / wall)}/s): ${tally.opened} opened, ` + `${tally.refused} refused, ${tally.skipped} not opened (over budget)`);
  assert.ok(tally.opened > 0 && tally.refused > 0, JSON.stringify(tally));
});
