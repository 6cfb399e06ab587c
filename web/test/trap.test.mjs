// A trap of the core without a panic message (what running out of memory looks like):
// the API says the core crashed instead of letting a raw RuntimeError escape. The trap
// is injected at the wasm boundary: the instance's exports are wrapped so a chosen
// export traps, exactly as a real trap reaches the JS glue.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const trapping = new Set();

/** An Instance to the glue, whose exports trap where `trapping` says. */
function wrap(real) {
  const exports = {};
  for (const name of Object.keys(real.exports)) {
    const v = real.exports[name];
    Object.defineProperty(exports, name, {
      enumerable: true,
      get: () =>
        typeof v === 'function' && trapping.has(name)
          ? () => {
              throw new WebAssembly.RuntimeError('unreachable');
            }
          : v,
    });
  }
  return Object.create(WebAssembly.Instance.prototype, { exports: { value: exports } });
}
// The first instance comes from WebAssembly.instantiate; the fresh ones made after a
// trap from new WebAssembly.Instance: wrap both.
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async (...args) => {
  const out = await instantiate(...args);
  return out.instance ? { module: out.module, instance: wrap(out.instance) } : wrap(out);
};
const Instance = WebAssembly.Instance;
WebAssembly.Instance = class extends Instance {
  constructor(module, imports) {
    super(module, imports);
    return wrap(this);
  }
};
const { Cluster, ScenarioError, init } = await import('../dist/node.js');
await init(readFileSync(new URL('../dist/kraft_playground_bg.wasm', import.meta.url)));

const story = readFileSync(new URL('../../scenarios/first-election.json', import.meta.url), 'utf8');

test('fromScenario: a trap in the core is an Error saying the core crashed, not a raw RuntimeError', async () => {
  trapping.add('runScenario');
  try {
    await assert.rejects(Cluster.fromScenario(story), (e) => {
      assert.ok(!(e instanceof WebAssembly.RuntimeError), 'not the raw RuntimeError');
      assert.ok(!(e instanceof ScenarioError), 'not blamed on the scenario');
      assert.match(
        e.message,
        /^the simulation core crashed \(a bug in kraft-playground\): the core trapped \(RuntimeError: unreachable\) with \d+ MiB of wasm memory and no panic message; a bug, or that memory ran out; new clusters start on a fresh core$/,
      );
      assert.ok(e.cause instanceof WebAssembly.RuntimeError);
      return true;
    });
  } finally {
    trapping.delete('runScenario');
  }
  // the same scenario runs once the core works again
  const { report } = await Cluster.fromScenario(story);
  assert.equal(report.passed, true);
});

test('a cluster whose advance traps says so and still gives its reproduction link', async () => {
  const c = await Cluster.create({ seed: 4 });
  c.advance(1_000).crash(1);
  const good = { link: c.toLink(), digest: c.digest() };
  trapping.add('wasmsim_advance');
  try {
    assert.throws(
      () => c.advance(500),
      /^Error: the simulation core crashed \(a bug in kraft-playground\): the core trapped \(RuntimeError: unreachable\) with \d+ MiB of wasm memory and no panic message.*t = 1000 ms/,
    );
  } finally {
    trapping.delete('wasmsim_advance');
  }
  assert.equal(c.broken, true);
  assert.equal(c.reproductionLink(), good.link);
  assert.equal((await Cluster.fromLink(c.reproductionLink())).digest(), good.digest);
});
