// scripts/build-cache.mjs: what a build step's input hash covers, and when its stamp says
// the step is up to date.
//   node --test scripts/test/
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashInputs, STAMP, staleReason, walk, writeStamp } from '../build-cache.mjs';

function tree() {
  const root = mkdtempSync(join(tmpdir(), 'kp-build-cache-'));
  const put = (p, text) => {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
  };
  put('src/b.ts', 'b');
  put('src/a/x.ts', 'x');
  put('src/node_modules/dep/index.js', 'dep');
  put('src/target/debug/out', 'out');
  put('src/dist/bundle.js', 'bundle');
  put(`src/${STAMP}`, '{}');
  put('build.mjs', 'build');
  put('out/bundle.js', 'bundle');
  return { root, put };
}

test('the walk is sorted and leaves out installs, build outputs and stamps', () => {
  const { root } = tree();
  assert.deepEqual(walk(root, 'src'), ['src/a/x.ts', 'src/b.ts']);
  assert.deepEqual(walk(root, 'build.mjs'), ['build.mjs']);
  assert.deepEqual(walk(root, 'nothing-here'), []);
});

test('the hash follows contents, paths, missing inputs and facts; not excluded files', () => {
  const { root, put } = tree();
  const hash = (facts = { tool: '1.0' }) => hashInputs(root, ['src', 'build.mjs', 'rust-toolchain'], facts).hash;
  const first = hash();
  assert.equal(hash(), first, 'the same tree hashes the same');
  put('src/node_modules/dep/index.js', 'dep 2');
  put('src/dist/bundle.js', 'bundle 2');
  assert.equal(hash(), first, 'node_modules and dist are not inputs');
  assert.notEqual(hash({ tool: '1.1' }), first, 'a tool version is an input');
  put('src/b.ts', 'b2');
  const edited = hash();
  assert.notEqual(edited, first);
  put('rust-toolchain', 'stable');
  assert.notEqual(hash(), edited, 'a missing input appearing changes the hash');
});

test('a stamp is up to date until an input or an output changes, and says which', () => {
  const { root, put } = tree();
  const out = join(root, 'out');
  const inputs = () => hashInputs(root, ['src', 'build.mjs'], { tool: '1.0' });
  assert.match(staleReason(out, inputs()), /^no stamp/);
  writeStamp(out, inputs());
  assert.equal(staleReason(out, inputs(), ['bundle.js']), null);
  assert.match(staleReason(out, inputs(), ['types.d.ts']), /output missing: types\.d\.ts/);
  put('src/b.ts', 'b2');
  put('src/c.ts', 'c');
  assert.equal(staleReason(out, inputs()), 'inputs changed: src/b.ts, src/c.ts (new)');
  assert.equal(staleReason(out, hashInputs(root, ['src', 'build.mjs'], { tool: '2.0' })), 'inputs changed: tool, src/b.ts, src/c.ts (new)');
  writeStamp(out, inputs());
  put('out/bundle.js', 'changed by hand');
  assert.equal(staleReason(out, inputs()), 'output changed since the build: bundle.js');
  rmSync(join(out, 'bundle.js'));
  assert.equal(staleReason(out, inputs()), 'output missing: bundle.js');
});
