// The built-in stories, precomputed at build time: each scenario file (and each of its
// variants) run once by the full engine, kept as the part of its report a story plays
// from (`story`: spec, inputs with every `until` resolved to a time, steps with their
// captions, pauses and focus at their moments, the outcome, the digest, the measured
// numbers and the names its captions give records). The page replays a
// story on the core alone (`Cluster.replay(spec, inputs, endMs)`), so it never loads
// the engine for one; web/test/stories.test.mjs checks each against a fresh run by digest.
//
// The library is written as modules beside the element: `scenarios.js`, the picker's
// outline of every file (`{ id, title, file: outline, bundled: true }`), and one
// `story-ID.js` per file (`file`, the whole scenario file; `stories`, its runs: the
// file's own under "", each variant's under its name), fetched when that story opens.
//   import { writeStoryModules } from './scripts/stories.mjs'; await writeStoryModules(dir, files, kp)
// `files`: [{ id, title, file }]; `kp`: the built package for Node (web/dist/node.js).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the page plays a story from: the report without its expectations' detail (the measurements and record names are for its completion card and logs). */
export function story(report) {
  const { title, variant, seed, unsafe, passed, endMs, spec, inputs, events, digest, measurements, recordNames } = report;
  const steps = report.steps.map(({ index, t, caption, pause, label, focus }) => ({ index, t, caption, pause, label, focus }));
  return { title, variant, seed, unsafe, passed, endMs, steps, spec, inputs, events, digest, measurements, recordNames };
}

const variantsOf = (file) => (Array.isArray(file.variants) ? file.variants.filter((v) => typeof v?.name === 'string') : []);

/** What the picker reads of a file before it is opened (web/src/ui/story/scenarios.ts). */
export function outline(file) {
  const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o?.[k] !== undefined).map((k) => [k, o[k]]));
  return {
    ...pick(file, ['id', 'title', 'summary', 'order']),
    cluster: pick(file.cluster, ['unsafe']),
    variants: variantsOf(file).map((v) => pick(v, ['name', 'title', 'summary', 'unsafe'])),
  };
}

/** Each file's runs: the file's own under "" and each variant's under its name. */
export async function storiesOf(file, kp) {
  const stories = {};
  for (const variant of ['', ...variantsOf(file).map((v) => v.name)]) {
    const run = await kp.runScenario(file, variant ? { variant } : {});
    stories[variant] = story(run.report);
    run.cluster.dispose();
  }
  return stories;
}

/** Writes `scenarios.js` and each `story-ID.js` into `dir`. */
export async function writeStoryModules(dir, list, kp) {
  const index = list.map((e) => ({ id: e.id, title: e.title, file: outline(e.file), bundled: true }));
  writeFileSync(join(dir, 'scenarios.js'), `export const scenarios = ${JSON.stringify(index)};\n`);
  for (const e of list) {
    const stories = await storiesOf(e.file, kp);
    writeFileSync(join(dir, `story-${e.id}.js`), `export const file = ${JSON.stringify(e.file)};\nexport const stories = ${JSON.stringify(stories)};\n`);
  }
}
