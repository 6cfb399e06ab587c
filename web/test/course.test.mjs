// The guided path (web/src/ui/story/course.ts) places every scenario of the library exactly
// once, and the Raft-to-KRaft glossary (web/src/ui/common/glossary.ts, glossary-text.ts) maps each Raft word a
// newcomer brings. Both are bundled from source with esbuild (they need no DOM to read).

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const src = (f) => fileURLToPath(new URL(`../src/ui/${f}`, import.meta.url));
const scenariosDir = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/** Bundles `file` of web/src/ui (or, given `contents`, that source as if it were `file`) and imports it. */
async function load(file, contents) {
  const dir = mkdtempSync(join(tmpdir(), 'kp-course-'));
  try {
    const outfile = join(dir, 'm.mjs');
    const input = contents === undefined ? { entryPoints: [src(file)] } : { stdin: { contents, resolveDir: dirname(src(file)), loader: 'ts' } };
    await build({ ...input, outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function libraryIds() {
  return readdirSync(scenariosDir)
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .map((f) => JSON.parse(readFileSync(join(scenariosDir, f), 'utf8')).id)
    .sort();
}

test('the course places every scenario file exactly once, in four parts', async () => {
  const { COURSE, courseStories, courseStory } = await load('story/course.ts');
  const placed = courseStories().map((s) => s.id);
  const twice = placed.filter((id, i) => placed.indexOf(id) !== i);
  assert.deepEqual(twice, [], 'no story is placed twice');
  assert.deepEqual([...placed].sort(), libraryIds(), 'every file in scenarios/ is placed, and nothing else');
  assert.deepEqual(
    COURSE.map((p) => p.title),
    ['Basics', 'Failures', 'Safety', "KRaft's own"],
  );
  assert.equal(placed[0], 'first-election', 'the path starts with the first election');
  for (const part of COURSE) assert.ok(part.stories.length > 0, `${part.id} has stories`);
  for (const s of courseStories()) {
    assert.ok(s.name.length > 0 && s.name.length <= 26, `${s.id}: a short name (${s.name.length} chars)`);
    assert.ok(s.line.length > 0 && s.line.length <= 90 && !s.line.includes('\n'), `${s.id}: one line (${s.line.length} chars)`);
  }
  assert.equal(courseStory('figure-8').part.id, 'safety');
  assert.equal(courseStory('nope'), null);
});

test("what is next: the first story after this one that is not completed, wrapping round; none when all are (the tour and a story's card both ask)", async () => {
  const { courseStories, nextInCourse } = await load('story/course.ts');
  const ids = courseStories().map((s) => s.id);
  const done =
    (...list) =>
    (id) =>
      list.includes(id);
  assert.equal(nextInCourse(null, done()), ids[0], 'a first visit starts the tour');
  assert.equal(nextInCourse(ids[0], done()), ids[1]);
  // after the third story with the first and the fourth completed: the fifth
  assert.equal(nextInCourse(ids[2], done(ids[0], ids[3])), ids[4]);
  // at the end of the course, the ones skipped before it
  assert.equal(nextInCourse(ids.at(-1), done(...ids.slice(1, -1))), ids[0]);
  assert.equal(nextInCourse(ids[1], done(...ids.filter((id) => id !== ids[1]))), null, 'only the story itself was left');
  assert.equal(nextInCourse(null, done(...ids)), null);
});

test('the glossary maps the Raft words a newcomer knows to KRaft words', async () => {
  // the words (drawn with the first frame) and their meanings (the later chunk) as one module
  const { WORDS, MEANINGS, RPC_TERMS, tip, nodeTip, explainTerms } = await load('common/glossary-all.ts', "export * from './glossary.js'; export { MEANINGS } from './glossary-text.js';");
  const entries = Object.keys(WORDS).map((k) => ({ kraft: WORDS[k], ...MEANINGS[k] }));
  // Raft word -> the KRaft word it must map to
  const expected = [
    ['term', 'epoch'],
    ['RequestVote', 'Vote'],
    ['Pre-Vote', 'pre-vote'],
    ['AppendEntries', 'Fetch'],
    ['commitIndex', 'high watermark'],
    ['heartbeat', 'BeginQuorumEpoch'],
    ['election timeout', 'fetch timeout'],
    ['leader lease', 'check-quorum'],
    ['learner', 'observer'],
    ['InstallSnapshot', 'FetchSnapshot'],
    ['leadership transfer', 'resign'],
  ];
  for (const [raft, kraft] of expected) {
    const e = entries.find((x) => x.raft.includes(raft));
    assert.ok(e, `an entry for Raft's ${raft}`);
    assert.ok(e.kraft.includes(kraft), `Raft's ${raft} is KRaft's ${kraft} (got ${e.kraft})`);
    assert.ok(e.text.length > 20 && e.kafka.length > 0, `${kraft}: explained, with where Kafka does it`);
  }
  assert.match(MEANINGS.fetch.text, /Pull, not push/);
  // before the meanings arrive a tooltip is the word alone; then the table's own entry
  assert.equal(tip('hw'), WORDS.hw);
  explainTerms(MEANINGS);
  assert.equal(tip('hw'), `${WORDS.hw} (Raft: ${MEANINGS.hw.raft}). ${MEANINGS.hw.text}`);
  for (const [rpc, key] of Object.entries(RPC_TERMS)) assert.ok(MEANINGS[key], `${rpc} has an entry`);
  assert.match(nodeTip('observer', 'follower'), /learner/);
  assert.match(nodeTip('voter', 'prospective'), /Pre-Vote/);
  assert.doesNotMatch(nodeTip('voter', 'leader'), /learner/);
});
