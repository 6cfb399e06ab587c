// Node startup: the Node entry compiles and instantiates the core synchronously (new
// WebAssembly.Module + new WebAssembly.Instance), a quarter of the time of the
// asynchronous WebAssembly.compile + instantiate, which wait on background compile
// tasks. The time itself is measured by scripts/bench-startup.mjs; this checks the path.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** Each exported function's result count, read from a wasm file's type, import, function and export sections. */
function exportResultCounts(bytes) {
  let i = 8;
  const uleb = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++];
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(b & 0x80)) return value;
    }
  };
  const skipLimits = () => {
    if (uleb() & 1) uleb();
    uleb();
  };
  const types = [];
  const funcTypes = [];
  const out = new Map();
  while (i < bytes.length) {
    const id = bytes[i++];
    const size = uleb();
    const end = i + size;
    if (id === 1) {
      for (let n = uleb(); n > 0; n--) {
        i++; // 0x60: a function type
        const params = uleb();
        i += params;
        const results = uleb();
        i += results;
        types.push(results);
      }
    } else if (id === 2) {
      for (let n = uleb(); n > 0; n--) {
        for (let name = 0; name < 2; name++) {
          const len = uleb();
          i += len;
        }
        const kind = bytes[i++];
        if (kind === 0) funcTypes.push(types[uleb()]);
        else if (kind === 1) {
          i++;
          skipLimits();
        } else if (kind === 2) skipLimits();
        else i += 2;
      }
    } else if (id === 3) {
      for (let n = uleb(); n > 0; n--) funcTypes.push(types[uleb()]);
    } else if (id === 7) {
      for (let n = uleb(); n > 0; n--) {
        const len = uleb();
        const name = new TextDecoder().decode(bytes.subarray(i, i + len));
        i += len;
        const kind = bytes[i++];
        const index = uleb();
        if (kind === 0) out.set(name, funcTypes[index]);
      }
    }
    i = end;
  }
  return out;
}

// scripts/wasm-no-multivalue.mjs: wasm-bindgen's multi-value ABI gave 19 export
// signatures a second result, and Node's V8 compiles a wrapper for each such signature in
// `new WebAssembly.Module` (3.5 of the core's 6 ms there). Both wasms keep one result at most.
test('the wasms export no function that returns more than one value', () => {
  for (const file of ['kraft_playground_bg.wasm', 'kraft_playground_full_bg.wasm']) {
    const counts = exportResultCounts(readFileSync(new URL(`../dist/${file}`, import.meta.url)));
    assert.ok(counts.size > 50, `${file}: ${counts.size} exported functions read`);
    const multi = [...counts].filter(([, results]) => results > 1).map(([name]) => name);
    assert.deepEqual(multi, [], `${file} exports functions with more than one result`);
  }
});
