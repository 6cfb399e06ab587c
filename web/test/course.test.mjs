// The guided path (web/src/ui/story/course.ts) places every scenario of the library exactly
// once, and the Raft-to-KRaft glossary (web/src/ui/common/glossary.ts) maps each Raft word a
// newcomer brings. Both are bundled from source with esbuild (they need no DOM to read).

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const src = (f) => fileURLToPath(new URL(`../src/ui/${f}`, import.meta.url));
const scenariosDir = fileURLToPath(new URL('../../scenarios/', import.meta.url));

async function load(file) {
  const dir = mkdtempSync(join(tmpdir(), 'kp-course-'));
  try {
    const outfile = join(dir, 'm.mjs');
    await build({ entryPoints: [src(file)], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
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
  const { GLOSSARY, RPC_TERMS, tip, nodeTip } = await load('common/glossary.ts');
  const entries = Object.values(GLOSSARY);
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
  assert.match(GLOSSARY.fetch.text, /Pull, not push/);
  // tooltips are the table's own entries
  assert.equal(tip('hw'), `${GLOSSARY.hw.kraft} (Raft: ${GLOSSARY.hw.raft}). ${GLOSSARY.hw.text}`);
  for (const [rpc, key] of Object.entries(RPC_TERMS)) assert.ok(GLOSSARY[key], `${rpc} has an entry`);
  assert.match(nodeTip('observer', 'follower'), /learner/);
  assert.match(nodeTip('voter', 'prospective'), /Pre-Vote/);
  assert.doesNotMatch(nodeTip('voter', 'leader'), /learner/);
});
