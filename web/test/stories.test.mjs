// The built-in stories the page plays (dist/stories.js, precomputed at build time by
// scripts/stories.mjs) against their scenario files: each replayed on the core alone
// must give the digest of a fresh run of its file by the engine, and the same steps,
// so a precomputed story can never drift from its file.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { story } from '../../scripts/stories.mjs';
import { Cluster, runScenario } from '../dist/node.js';
import { scenarios } from '../dist/scenarios.js';
import { stories } from '../dist/stories.js';

const files = readdirSync(new URL('../../scenarios/', import.meta.url))
  .filter((f) => f.endsWith('.json') && f !== 'schema.json')
  .map((f) => JSON.parse(readFileSync(new URL(`../../scenarios/${f}`, import.meta.url), 'utf8')))
  .filter((f) => typeof f.id === 'string');

test('every scenario file has its precomputed stories, one per variant', () => {
  assert.deepEqual(scenarios.map((s) => s.id).sort(), files.map((f) => f.id).sort());
  for (const s of scenarios) {
    const variants = (s.file.variants ?? []).map((v) => v.name);
    assert.deepEqual(Object.keys(stories[s.id]).sort(), ['', ...variants].sort(), s.id);
  }
});

test('each precomputed story replays on the core to the digest of a fresh engine run of its file', async () => {
  for (const file of files) {
    const entry = scenarios.find((s) => s.id === file.id);
    for (const [variant, precomputed] of Object.entries(stories[entry.id])) {
      const what = `${file.id}${variant ? ` (${variant})` : ''}`;
      const fresh = await runScenario(file, variant ? { variant } : {});
      fresh.cluster.dispose();
      assert.deepEqual(precomputed, story(fresh.report), `${what}: the precomputed story is stale; rebuild (node web/build.mjs)`);
      const replayed = await Cluster.replay(precomputed.spec, precomputed.inputs, precomputed.endMs);
      assert.equal(replayed.digest(), fresh.report.digest, `${what}: the core's replay`);
      assert.equal(replayed.now, precomputed.endMs, what);
      replayed.dispose();
    }
  }
});
