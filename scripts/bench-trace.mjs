// `npm run bench`: the paths that must stay linear (wall times, never pass/fail).
//   1. a 100 KB caption, formatted by the core (in a scenario report) and by the element
//   2. events({ since: 1000, limit: 10 }) after ten minutes of a heavy cluster
//   3. the CLI printing the whole trace of a heavy scenario, 240 s and 600 s, text and JSON
// The heavy cluster: 5 voters + 3 observers at 1,000 writes/s, a voter crashing every
// minute (about 4,000 events per simulated second: ten minutes pass the in-memory window
// of 200,000 events many times over).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import * as kp from '../web/dist/node.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'web/bin/kraft-playground.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'kp-bench-trace-'));
// 500 writes/s: at 1,000 the logs reach the 256 MiB budget at about 520 s, since records
// live until the 60 s retention cleaner and the checkpoints hold them meanwhile.
const heavy = { voters: 5, observers: 3, writesPerSecond: 500, seed: 1 };

function timed(fn) {
  const t = performance.now();
  const value = fn();
  return { value, ms: performance.now() - t };
}

function heavyScenario(ms) {
  const steps = [];
  for (let t = 30_000; t + 20_000 <= ms; t += 60_000) {
    const node = ((t / 60_000) % 5) | 0;
    steps.push({ at: t, action: 'crash', node }, { at: t + 15_000, action: 'restart', node });
  }
  const s = { id: 'bench-heavy', title: 'bench: heavy', summary: 'heavy', cluster: heavy, durationMs: ms, steps, expect: [] };
  const file = join(tmp, `heavy-${ms / 1000}.json`);
  writeFileSync(file, JSON.stringify(s));
  return file;
}

try {
  await kp.init();

  // 1. Only the last star is not half of a `**`: the worst case of the first (quadratic) rule.
  const caption = `${'**b** '.repeat(100_000 / 6)}*em*`;
  const scenario = (c) => JSON.stringify({ id: 'cap', title: 't', summary: 's', cluster: { voters: 1 }, durationMs: 10, steps: [{ after: 0, caption: c }], expect: [] });
  const base = timed(() => kp.runScenarioSync(scenario('x'), {}).cluster.dispose()).ms;
  const core = timed(() => kp.runScenarioSync(scenario(caption), {}).cluster.dispose()).ms;
  const outfile = join(tmp, 'markup.mjs');
  await build({ entryPoints: [join(root, 'web/src/ui/story/markup.ts')], outfile, bundle: true, format: 'esm', logLevel: 'warning' });
  const { spans } = await import(pathToFileURL(outfile).href);
  const element = timed(() => spans(caption));
  console.log(`100 KB caption: core (scenario report) ${(core - base).toFixed(1)} ms, element ${element.ms.toFixed(1)} ms (${element.value.length} runs)`);

  // 2. A short page of old events after a long run.
  const c = kp.Cluster.createSync(heavy);
  const run = timed(() => {
    for (let minute = 0; minute < 10; minute++) {
      c.advance(30_000).crash(minute % 5);
      c.advance(15_000).restart(minute % 5);
      c.advance(15_000);
    }
  });
  const page = (since) => {
    const times = [1, 2, 3].map(() => timed(() => c.events({ since, limit: 10 })));
    return `${times
      .map((t) => t.ms)
      .sort((a, b) => a - b)[1]
      .toFixed(1)} ms`;
  };
  console.log(
    `ten heavy minutes (${c.lastSeq} events) in ${(run.ms / 1000).toFixed(1)} s; events({ since, limit: 10 }) median of 3: ` +
      `since 1000 ${page(1000)}, since ${c.lastSeq >> 1} ${page(c.lastSeq >> 1)}`,
  );
  c.dispose();

  // 3. The CLI printing whole traces (to /dev/null).
  for (const seconds of [240, 600]) {
    const file = heavyScenario(seconds * 1000);
    const parts = [];
    let events = '?';
    for (const [name, args] of [
      ['--quiet', ['--quiet']],
      ['text', []],
      ['json', ['--format', 'json']],
    ]) {
      const fd = openSync('/dev/null', 'w');
      const r = timed(() => spawnSync(process.execPath, [bin, 'run', file, ...args], { stdio: ['ignore', name === '--quiet' ? 'pipe' : fd, 'pipe'], encoding: 'utf8' }));
      closeSync(fd);
      if (name === '--quiet') events = /, (\d+) events,/.exec(r.value.stdout)?.[1] ?? '?';
      parts.push(`${name} ${r.value.status === 0 ? `${(r.ms / 1000).toFixed(1)} s` : `failed (${r.value.stderr.trim().split('\n').at(-1)})`}`);
    }
    console.log(`CLI run of ${seconds} heavy s (${events} events), whole trace to /dev/null: ${parts.join(', ')}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
