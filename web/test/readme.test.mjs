// The README's example runs as written (against the built package).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

test('the root README example runs and fails over', async () => {
  const readme = readFileSync(join(here, '..', '..', 'README.md'), 'utf8');
  const block = readme.match(/```js\n([\s\S]*?)```/);
  assert.ok(block, 'the README has a js example');
  const pkg = pathToFileURL(join(here, '..', 'dist', 'node.js')).href;
  const code = block[1].replace("from 'kraft-playground'", `from '${pkg}'`).replace(/console\.log\((.*)\);/, 'export const result = [$1];');
  const dir = mkdtempSync(join(tmpdir(), 'kp-readme-'));
  const file = join(dir, 'example.mjs');
  writeFileSync(file, code);
  const { result } = await import(pathToFileURL(file).href);
  const [leader, status, violations] = result;
  assert.ok(leader && leader.epoch > 1, 'a new leader after the crash');
  assert.equal(status.leaderId, leader.id);
  assert.deepEqual(violations, []);
});
