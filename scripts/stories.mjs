// The built-in stories, precomputed at build time: each scenario file (and each of its
// variants) run once by the full engine, kept as the part of its report a story plays
// from (`story`: spec, inputs with every `until` resolved to a time, steps with their
// captions and pauses at their moments, the outcome, the digest). The page replays a story on the core alone
// (`Cluster.replay(report.spec, report.inputs, report.endMs)`), so it never loads the
// engine for one; web/test/stories.test.mjs checks each against a fresh run by digest.
//   import { storyModule } from './scripts/stories.mjs'; writeFileSync('stories.js', await storyModule(files, kp))
// `files`: [{ id, title, file }]; `kp`: the built package for Node (web/dist/node.js).

/** The variants' names a scenario file offers. */
function variantNames(file) {
  return Array.isArray(file.variants) ? file.variants.filter((v) => typeof v?.name === 'string').map((v) => v.name) : [];
}

/** What the page plays a story from: the report without its expectations' and measurements' detail. */
export function story(report) {
  const { title, variant, seed, unsafe, passed, endMs, spec, inputs, events, digest } = report;
  const steps = report.steps.map(({ index, t, caption, pause, label }) => ({ index, t, caption, pause, label }));
  return { title, variant, seed, unsafe, passed, endMs, steps, spec, inputs, events, digest };
}

/**
 * The module `stories.js` beside `scenarios.js`: `{ [id]: { [variant]: story } }`, the
 * file's own run under "" and each variant's under its name. A separate module, so the
 * page fetches it only when a story is opened.
 */
export async function storyModule(list, kp) {
  const out = {};
  for (const entry of list) {
    const stories = {};
    for (const variant of ['', ...variantNames(entry.file)]) {
      const run = await kp.runScenario(entry.file, variant ? { variant } : {});
      stories[variant] = story(run.report);
      run.cluster.dispose();
    }
    out[entry.id] = stories;
  }
  return `export const stories = ${JSON.stringify(out)};\n`;
}
