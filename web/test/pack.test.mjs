// The published shape: `npm pack` web/, install the tarball into an empty project,
// and use it the ways people will: import from Node, run the bin, type-check against
// the .d.ts, load the browser build from bytes, and bundle it with esbuild.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('..', import.meta.url));
const root = join(web, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${[cmd, ...args].join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

test('npm pack -> install into an empty project -> it works', { timeout: 600_000 }, async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'kraft-playground-pack-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));

  const packed = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', tmp], web));
  const files = packed[0].files.map((f) => f.path).sort();
  for (const f of [
    'package.json',
    'README.md',
    'bin/kraft-playground.mjs',
    'dist/index.js',
    'dist/node.js',
    'dist/index.d.ts',
    'dist/types.d.ts',
    'dist/kraft_playground_bg.wasm',
    'dist/kraft_playground_full_bg.wasm',
    'dist/engine.js',
    // the element's stylesheets: its first frame's, and the one its later chunk loads
    'dist/kraft-playground.css',
    'dist/kraft-playground-later.css',
  ]) {
    assert.ok(files.includes(f), `the tarball has ${f}`);
  }
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('pkg/')), 'no sources or tests');
  const tarball = join(tmp, packed[0].filename);

  const app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run(npm, ['install', '--no-audit', '--no-fund', '--offline', tarball], app);

  // Node: import by name, elect a leader, write, share a link.
  writeFileSync(
    join(app, 'main.mjs'),
    `import { Cluster, runScenario } from 'kraft-playground';
const c = await Cluster.create({ voters: 3, observers: 1, seed: 42 });
const ok = c.runUntil((x) => x.leader() !== null, { timeoutMs: 10000 });
const w = c.write({ type: 'CreateTopic', name: 'orders', partitions: 3 });
c.advance(1000);
const d = await Cluster.fromLink(c.toLink());
const s = await runScenario({ id: 'x', title: 't', summary: 's', cluster: { voters: 3 }, durationMs: 3000, steps: [] });
console.log(JSON.stringify({ ok, leader: c.leader(), w, same: d.digest() === c.digest(), hw: c.describeQuorum().status.highWatermark, scenario: s.report.digest === s.cluster.digest() }));
`,
  );
  const out = JSON.parse(run(process.execPath, ['main.mjs'], app));
  assert.equal(out.ok, true);
  assert.ok(out.leader.epoch >= 1);
  assert.equal(out.w.accepted, true);
  assert.equal(out.same, true);
  assert.ok(out.hw >= 2);
  assert.equal(out.scenario, true, 'runScenario loads the full engine');

  // The bin.
  const bin = join(app, 'node_modules', '.bin', 'kraft-playground');
  assert.match(run(bin, ['--version'], app), /^\d+\.\d+\.\d+/);
  assert.match(run(bin, ['sweep', '--seeds', '1', '--seconds', '20'], app), /1 passed, 0 failed/);

  // Types: a consumer's TypeScript checks against the shipped declarations.
  writeFileSync(
    join(app, 'check.ts'),
    `import { Cluster, Player, type TraceEvent, type NodeInfo, type WriteResult, type ClusterOptions } from 'kraft-playground';
const opts: ClusterOptions = { voters: 3, seed: 1, network: 'teaching', config: { 'controller.quorum.fetch.timeout.ms': 3000 }, unsafe: ['no-pre-vote'] };
async function main(): Promise<void> {
  const c: Cluster = await Cluster.create(opts);
  const nodes: NodeInfo[] = c.nodes();
  const events: TraceEvent[] = c.events({ since: 0 });
  for (const e of events) {
    if (e.type === 'vote') { const g: boolean = e.granted; void g; }
    if (e.type === 'state') { const to: 'leader' | string = e.to; void to; }
  }
  const w: WriteResult = c.write({ type: 'CreateTopic', name: 'orders', partitions: 3 });
  if (w.accepted) { const o: number = w.offset; void o; } else { const r: string = w.reason; void r; }
  const p = new Player(c, { speed: 10 });
  p.subscribe((f) => f.events.length);
  void nodes;
  // @ts-expect-error: not a Kafka config key
  await Cluster.create({ config: { 'fetch.timeout': 5 } });
  // @ts-expect-error: not a safety switch
  await Cluster.create({ unsafe: ['yolo'] });
  // @ts-expect-error: LeaderChange is not writable
  c.write({ type: 'LeaderChange', leader: 0, voters: [0] });
}
void main;
`,
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { noEmit: true, strict: true, skipLibCheck: false, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [] },
      files: ['check.ts'],
    }),
  );
  run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);

  // The browser build, given the wasm bytes (what a page does with init(url)).
  writeFileSync(
    join(app, 'browser.mjs'),
    `import { readFileSync } from 'node:fs';
import { init, initEngine, Cluster, runScenarioSync } from './node_modules/kraft-playground/dist/index.js';
await init(readFileSync('./node_modules/kraft-playground/dist/kraft_playground_bg.wasm'));
const c = Cluster.createSync({ seed: 42, voters: 3, observers: 1 });
c.runUntil((x) => x.leader() !== null, { timeoutMs: 10000 });
console.log(c.leader().id);
const file = { id: 'x', title: 't', summary: 's', cluster: { voters: 3 }, durationMs: 3000, steps: [] };
try { runScenarioSync(file); } catch (e) { console.log(e.message); }
// the engine's bindings come from dist/engine.js beside the module; the wasm as bytes here
await initEngine(readFileSync('./node_modules/kraft-playground/dist/kraft_playground_full_bg.wasm'));
console.log(runScenarioSync(file).report.passed);
`,
  );
  assert.match(run(process.execPath, ['browser.mjs'], app), /^\d\n.*the scenario engine is not loaded yet.*\ntrue\n$/);

  // A bundler: esbuild resolves the browser build and keeps the wasm URL relative.
  writeFileSync(join(app, 'page.js'), `import { Cluster } from 'kraft-playground';\nCluster.create({ seed: 1 }).then((c) => c.advance(1000));\n`);
  const esbuild = join(root, 'node_modules', '.bin', 'esbuild');
  run(esbuild, ['page.js', '--bundle', '--format=esm', '--platform=browser', '--outfile=out/page.js'], app);
  const bundled = readFileSync(join(app, 'out', 'page.js'), 'utf8');
  assert.match(bundled, /new URL\("\.\/kraft_playground_bg\.wasm", import\.meta\.url\)/);
  assert.doesNotMatch(bundled, /node:fs/);
  assert.ok(readdirSync(join(app, 'node_modules', 'kraft-playground', 'dist')).includes('kraft_playground_bg.wasm'));

  // The element ships in chunks (what its first frame does not need comes later): every
  // module it imports, statically or not, is in the tarball, and a bundler follows them.
  const installed = join(app, 'node_modules', 'kraft-playground', 'dist');
  const imported = (file) => [...readFileSync(join(installed, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*["'](\.\/[^"']+\.js)["']/g)].map((m) => m[1].slice(2));
  const chunks = new Set();
  for (const queue = ['element.js']; queue.length; ) {
    for (const f of imported(queue.pop())) {
      if (chunks.has(f)) continue;
      assert.ok(files.includes(`dist/${f}`), `the tarball has dist/${f}, which the element imports`);
      chunks.add(f);
      queue.push(f);
    }
  }
  assert.ok(
    [...chunks].some((f) => /^element-later-/.test(f)),
    `the element imports its later chunk: ${[...chunks]}`,
  );
  writeFileSync(join(app, 'docs.js'), `import 'kraft-playground/element';\n`);
  run(esbuild, ['docs.js', '--bundle', '--format=esm', '--splitting', '--platform=browser', '--outdir=out/docs'], app);
  assert.ok(readdirSync(join(app, 'out', 'docs')).length >= 2, 'the bundler keeps the later chunk apart');
});
