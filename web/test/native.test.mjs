// Native and wasm agree: the Rust build (`cargo run --example digest`) and the wasm
// build give the same trace digest for the same seeded fault schedules.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chaosDigest } from '../dist/node.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('chaos-run digests: native == wasm', { timeout: 900_000 }, async () => {
  const out = execFileSync('cargo', ['run', '--release', '-q', '-p', 'kraft-sim', '--example', 'digest'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const cases = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(cases.length >= 8, `${cases.length} cases`);
  assert.ok(new Set(cases.map((c) => c.voters)).size >= 3, 'several quorum sizes');
  for (const { seed, seconds, voters, digest } of cases) {
    assert.match(digest, /^[0-9a-f]{16}$/);
    assert.equal(await chaosDigest(seed, seconds, voters), digest, `seed ${seed}, ${seconds} s, ${voters} voters`);
  }
});
