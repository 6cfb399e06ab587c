// The built-in stories the page plays (dist/story-ID.js, precomputed at build time by
// scripts/stories.mjs) against their scenario files: each replayed on the core alone
// must give the digest of a fresh run of its file by the engine, and the same steps,
// so a precomputed story can never drift from its file.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { outline, story } from '../../scripts/stories.mjs';
import { Cluster, runScenario } from '../dist/node.js';
import { scenarios } from '../dist/scenarios.js';

const files = readdirSync(new URL('../../scenarios/', import.meta.url))
  .filter((f) => f.endsWith('.json') && f !== 'schema.json')
  .map((f) => JSON.parse(readFileSync(new URL(`../../scenarios/${f}`, import.meta.url), 'utf8')))
  .filter((f) => typeof f.id === 'string');
const bundled = (id) => import(`../dist/story-${id}.js`);

test('every scenario file is in the library: its outline, the file itself and one precomputed story per variant', async () => {
  assert.deepEqual(scenarios.map((s) => s.id).sort(), files.map((f) => f.id).sort());
  for (const file of files) {
    const entry = scenarios.find((s) => s.id === file.id);
    assert.deepEqual(entry.file, outline(file), file.id);
    const { file: whole, stories } = await bundled(file.id);
    assert.deepEqual(whole, file, `${file.id}: the bundled file is stale; rebuild (node web/build.mjs)`);
    assert.deepEqual(Object.keys(stories).sort(), ['', ...(file.variants ?? []).map((v) => v.name)].sort(), file.id);
  }
});

test('each precomputed story replays on the core to the digest of a fresh engine run of its file', async () => {
  for (const file of files) {
    const { stories } = await bundled(file.id);
    for (const [variant, precomputed] of Object.entries(stories)) {
      const what = `${file.id}${variant ? ` (${variant})` : ''}`;
      const fresh = await runScenario(file, variant ? { variant } : {});
      fresh.cluster.dispose();
      assert.deepEqual(precomputed, story(fresh.report), `${what}: the precomputed story is stale; rebuild (node web/build.mjs)`);
      const replayed = await Cluster.replay(precomputed.spec, precomputed.inputs, precomputed.endMs);
      assert.equal(replayed.digest(), fresh.report.digest, `${what}: the core's replay`);
      assert.equal(replayed.now, precomputed.endMs, what);
      replayed.dispose();
      // how the page opens it: at its start, the recorded inputs ahead
      const opened = await Cluster.replay(precomputed.spec, precomputed.inputs, precomputed.endMs, { at: 0 });
      assert.equal(opened.now, 0, what);
      opened.advance(precomputed.endMs);
      assert.equal(opened.digest(), fresh.report.digest, `${what}: opened at its start and played to its end`);
      opened.dispose();
    }
  }
});

test("free play's leader changes are the story cards' failover measure: a story replayed on the core alone reports the same breakdown", async () => {
  let compared = 0;
  for (const file of files) {
    const { stories } = await bundled(file.id);
    for (const [variant, precomputed] of Object.entries(stories)) {
      // each failover that elected a new leader (a card may say none was)
      const cards = precomputed.measurements.filter((m) => m.kind === 'failover' && m.valueMs !== null);
      if (!cards.length) continue;
      const replayed = await Cluster.replay(precomputed.spec, precomputed.inputs, precomputed.endMs);
      const changes = replayed.leaderChanges();
      for (const card of cards) {
        const change = changes.find((c) => c.measurement.valueMs === card.valueMs);
        assert.ok(change, `${file.id} ${variant}: no leader change measured ${card.valueMs} ms: ${changes.map((c) => c.measurement.text).join(' | ')}`);
        assert.deepEqual(change.measurement.parts, card.parts, `${file.id} ${variant}`);
        compared++;
      }
      replayed.dispose();
    }
  }
  assert.ok(compared >= 5, `${compared} failovers compared`);
});
