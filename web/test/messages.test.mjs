// Every error message names the field, the value (capped) and the limit, in the words
// of JavaScript and JSON: no Rust type names, no serde positions, no megabyte echoes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Cluster } from '../dist/node.js';

/** A valid scenario (from the library) to break. */
const story = () => JSON.parse(readFileSync(new URL('../../scenarios/first-election.json', import.meta.url), 'utf8'));

const RUST_WORDS = /\b(u8|u16|u32|u64|usize|i32|i64|f64|struct|sequence|TimedAction|Action|line \d+ column \d+|unreachable)\b|`/;
const MB = 'x'.repeat(1_000_000);

const k1 = (json) => `k1.${Buffer.from(json).toString('base64url')}`;
const spec = '"spec":{"voters":3,"seed":1}';

/** The error `fn` throws (sync or async). */
async function errorOf(fn) {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected an error');
}

const c = await Cluster.create({ voters: 3, seed: 7 });
c.advance(2_000);

test('values above 2^53 are told the safe-integer limit, not "at least 0"', async () => {
  for (const [fn, re] of [
    [() => Cluster.create({ seed: 2 ** 60 }), /seed must be at most 9007199254740991 \(Number\.MAX_SAFE_INTEGER.*\), got 1152921504606847000/],
    [() => c.events({ since: 2 ** 54 }), /since must be at most 9007199254740991 .*got 18014398509481984/],
    [() => c.log(0, { from: 2 ** 53 + 2 }), /from must be at most 9007199254740991/],
    [() => Cluster.create({ config: { 'controller.quorum.fetch.timeout.ms': 2 ** 60 } }), /config\['controller.quorum.fetch.timeout.ms'\] must be at most 9007199254740991/],
  ]) {
    const e = await errorOf(fn);
    assert.ok(e instanceof RangeError, e.message);
    assert.match(e.message, re);
    assert.doesNotMatch(e.message, /at least 0/);
  }
});

test('a Date, a Map or a class instance is named, not "must be an object, got an object"', async () => {
  class Options {}
  for (const [v, name] of [
    [new Date(0), 'a Date'],
    [new Map(), 'a Map'],
    [new Options(), 'an Options'],
    [Object.create(Array.prototype), 'an Array'],
  ]) {
    const e = await errorOf(() => Cluster.create(v));
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, `Cluster.create options must be a plain object ({ ... }), got ${name}`);
  }
  assert.match((await errorOf(() => c.nodes(new Map()))).message, /nodes options must be a plain object \(\{ \.\.\. \}\), got a Map/);
  assert.match((await errorOf(() => c.write(new Date()))).message, /record must be a plain object .*got a Date/);
});

test('link errors name the field and say what it must be, in plain words', async () => {
  const cases = [
    [`{${spec},"inputs":[{"t":5,"action":"crash","node":-1}],"t":10}`, /^invalid link: inputs\[0\]\.node: must be a whole number from 0 to 4294967295, got -1$/],
    [`{${spec},"inputs":[{"t":5,"action":"crash","node":99999999999}],"t":10}`, /inputs\[0\]\.node: must be a whole number from 0 to 4294967295, got 99999999999$/],
    [`{${spec},"inputs":[{"t":5.5,"action":"heal"}],"t":10}`, /inputs\[0\]\.t: must be a whole number from 0 to \d+, got 5\.5$/],
    [`{${spec},"inputs":[{"t":"5","action":"heal"}],"t":10}`, /inputs\[0\]\.t: must be a whole number .*, got "5"$/],
    [`{${spec},"inputs":[{"t":1,"action":"heal"},{"t":5,"action":"cut","from":0,"to":"1"}],"t":10}`, /inputs\[1\]\.to: must be a whole number from 0 to 4294967295, got "1"$/],
    [`{${spec},"inputs":[{"t":5,"action":"partition","groups":[[0],[1,-2]]}],"t":10}`, /inputs\[0\]\.groups\[1\]\[1\]: must be a whole number from 0 to 4294967295, got -2$/],
    [`{${spec},"inputs":[{"t":5,"action":"network","latencyMs":[1]}],"t":10}`, /inputs\[0\]\.latencyMs: must be an array of 2 elements, got 1 element\(s\)$/],
    [`{${spec},"inputs":[{"t":5,"action":"network","latencyMs":[1,2],"loss":"lots"}],"t":10}`, /inputs\[0\]\.loss: must be a number, got "lots"$/],
    [
      `{${spec},"inputs":[{"t":5,"action":"write","record":{"type":"CreateTopic","name":"a","partitions":-3}}],"t":10}`,
      /inputs\[0\]\.record\.partitions: must be a whole number from 0 to 4294967295, got -3$/,
    ],
    [`{${spec},"inputs":[{"t":5,"action":"explode"}],"t":10}`, /inputs\[0\]: must be one of crash, wipe, .*, write; got "explode"$/],
    [`{${spec},"inputs":[{"t":5,"action":"crash"}],"t":10}`, /inputs\[0\]: needs the field "node"$/],
    [`{${spec},"inputs":[{"t":5,"action":"crash","node":1,"force":true}],"t":10}`, /inputs\[0\]: unknown field "force"; allowed: node$/],
    [`{${spec},"inputs":[[1,2]],"t":10}`, /inputs\[0\]: must be an object, got an array$/],
    [`{${spec},"inputs":[{"t":5,"action":"crash","node":null}],"t":10}`, /inputs\[0\]\.node: must be a whole number from 0 to 4294967295, got null$/],
  ];
  for (const [json, re] of cases) {
    const e = await errorOf(() => Cluster.fromLink(k1(json)));
    assert.ok(e instanceof TypeError || e instanceof RangeError, `${json}: ${e}`);
    assert.match(e.message, re, json);
    assert.doesNotMatch(e.message, RUST_WORDS, json);
    assert.equal(e.field, /^invalid link: ([^:]+):/.exec(e.message)[1], `${json}: the error's field`);
  }
});

test('a deeply nested link is refused by its depth, not by "Maximum call stack size exceeded"', async () => {
  for (const deep of [
    `{${spec},"inputs":${'['.repeat(100_000)}${']'.repeat(100_000)},"t":10}`,
    `{"spec":{"voters":3,"seed":1,"config":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}},"inputs":[],"t":10}`,
  ]) {
    const e = await errorOf(() => Cluster.fromLink(k1(deep)));
    assert.ok(e instanceof RangeError, String(e));
    assert.match(e.message, /^malformed link: its JSON nests arrays and objects more than 32 levels deep/);
  }
});

test('messages echo at most 80 characters of the input, with an ellipsis (JS and Rust)', async () => {
  const capped = `${'x'.repeat(80)}…`;
  const cases = [
    () => Cluster.create({ [MB]: 1 }),
    () => Cluster.create({ network: MB }),
    () => Cluster.create({ config: { [MB]: 1 } }),
    () => Cluster.create({ unsafe: [MB] }),
    () => c.write({ type: 'CreateTopic', name: MB, partitions: 1 }),
    () => c.write({ type: MB }),
    () => c.setNetwork({ latencyMs: MB }),
    () => c.nodes({ [MB]: true }),
    () => Cluster.fromLink(MB),
    () => Cluster.fromLink(k1(`{${spec},"inputs":[{"t":5,"action":"${MB}"}],"t":10}`)),
    () => Cluster.fromLink(k1(`{${spec},"inputs":[{"t":5,"action":"crash","node":"${MB}"}],"t":10}`)),
    () => Cluster.fromLink(k1(`{${spec},"inputs":[],"t":10,"${MB}":1}`)),
    () => Cluster.fromLink(k1(`{"spec":{"voters":3,"seed":1,"network":"${MB}"},"inputs":[],"t":10}`)),
    () => Cluster.fromScenario({ ...story(), [MB]: 1 }),
    () => Cluster.fromScenario({ ...story(), steps: [{ at: 1, action: MB }] }),
    () => Cluster.fromScenario({ ...story(), steps: [{ at: 1, action: 'crash', node: `$${MB}` }] }),
    () => Cluster.fromScenario({ ...story(), cluster: { voters: 3, unsafe: [MB] } }),
    () => Cluster.fromScenario({ ...story(), cluster: { voters: 3, network: MB } }),
    () => Cluster.fromScenario({ ...story(), steps: [{ at: 1, action: 'write', record: { type: 'CreateTopic', name: MB, partitions: 1 } }] }),
  ];
  for (const [i, fn] of cases.entries()) {
    const e = await errorOf(fn);
    assert.ok(e.message.length < 600, `case ${i}: ${e.message.length} characters: ${e.message.slice(0, 300)}`);
    assert.ok(e.message.includes(capped), `case ${i}: ${e.message}`);
    assert.ok(!e.message.includes('x'.repeat(81)), `case ${i}`);
    assert.doesNotMatch(e.message, RUST_WORDS, `case ${i}: ${e.message}`);
  }
});

test('runUntil whose predicate seeks back ends with an error naming its timeout', () => {
  const d = c.now;
  let calls = 0;
  const e = (() => {
    try {
      c.runUntil(
        () => {
          calls += 1;
          if (c.now > d + 500) c.seek(d);
          return false;
        },
        { timeoutMs: 2_000 },
      );
    } catch (err) {
      return err;
    }
    return null;
  })();
  assert.ok(e instanceof RangeError, `runUntil ended with ${e}`);
  assert.match(e.message, /^runUntil advanced \d+ ms in all, more than its timeoutMs \(2000 ms\), without reaching its deadline \(t = \d+ ms\): the predicate moved the cluster back in time/);
  assert.ok(calls < 10_000, `${calls} predicate calls`);
  // a predicate that only looks still times out normally
  assert.equal(
    c.runUntil(() => false, { timeoutMs: 1_000 }),
    false,
  );
});

test('after a crash of the core, the error says what failed and the run up to the last good moment is still linkable', async () => {
  const run = await Cluster.create({ voters: 3, seed: 3 });
  run.advance(1_500).crash(0).advance(2_000).write();
  run.seek(1_000); // a recorded future the link must not carry
  const before = { link: run.toLink(), digest: run.digest(), now: run.now };
  assert.equal(run.reproductionLink(), before.link, 'on a working cluster it is the link of now');
  const origError = console.error;
  console.error = () => {};
  try {
    assert.throws(
      () => run.__panicForTest(),
      (e) => {
        assert.match(
          e.message,
          /^the simulation core crashed \(a bug in kraft-playground\): panicked at [^ ]+: deliberate panic for a test \(with \d+ MiB of wasm memory\)\. This cluster can no longer be used \(other clusters and new ones are not affected\); cluster\.reproductionLink\(\) gives a link to the run up to its last good moment \(t = 1000 ms\)/,
        );
        assert.doesNotMatch(e.message, /unreachable/);
        return true;
      },
    );
  } finally {
    console.error = origError;
  }
  assert.equal(run.broken, true);
  assert.throws(() => run.toLink(), /simulation core crashed/);
  const link = run.reproductionLink();
  assert.equal(link, before.link);
  const again = await Cluster.fromLink(link);
  assert.equal(again.now, before.now);
  assert.equal(again.digest(), before.digest);
});
