// Node startup: the Node entry compiles and instantiates the core synchronously (new
// WebAssembly.Module + new WebAssembly.Instance), a quarter of the time of the
// asynchronous WebAssembly.compile + instantiate, which wait on background compile
// tasks. The time itself is measured by scripts/bench-startup.mjs; this checks the path.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

test('init() in Node uses neither WebAssembly.compile nor WebAssembly.instantiate', () => {
  const entry = new URL('../dist/node.js', import.meta.url).href;
  const probe = `
    for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
      WebAssembly[name] = () => { throw new Error('WebAssembly.' + name + ' was called'); };
    }
    const { init, Cluster } = await import(${JSON.stringify(entry)});
    await init();
    const c = await Cluster.create({ voters: 3, seed: 1 });
    c.advance(3000);
    console.log(c.leader() !== null);
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
  assert.equal(r.stderr.match(/WebAssembly\.\w+ was called/)?.[0] ?? null, null, r.stderr);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'true');
});
