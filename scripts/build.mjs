#!/usr/bin/env node
// `npm run build`: every build step, in order, each skipped while its inputs are unchanged.
//   node scripts/build.mjs                   wasm -> package -> site
//   node scripts/build.mjs --through package the steps up to and including that one
//   node scripts/build.mjs --dry-run         which steps would run and why; runs none
//   KP_FORCE_BUILD=1 node scripts/build.mjs  every step, whatever the stamps say
// Before a step runs its inputs are hashed (scripts/build-cache.mjs: every file under its
// input paths, node_modules, target, dist and pkg left out, plus the versions of the tools
// it runs); after it succeeds the hash is written to a stamp beside its outputs
// (web/pkg/.build-stamp, web/dist/.build-stamp, www/dist/.build-stamp). A step whose stamp
// matches and whose outputs are all there is skipped; once one step runs, every later step
// runs too. A step's script writes its output directory afresh, so running it by hand
// (bash scripts/build-wasm.sh, node web/build.mjs) removes its stamp and the next build
// reruns it and what follows. A step whose script is missing fails the build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashInputs, STAMP, staleReason, writeStamp } from './build-cache.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, PATH: `${join(homedir(), '.cargo', 'bin')}${delimiter}${process.env.PATH}` };

/** A command's first line of output, or `none` when it cannot run (then the step reports the error). */
const version = (cmd, args = ['--version']) => {
  try {
    return execFileSync(cmd, args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'none';
  }
};
/** An npm package's installed version (node_modules), or `none`. */
const npmVersion = (name) => {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'none';
  }
};
/** The Cargo workspace's member directories (root Cargo.toml; `dir/*` globs expanded). */
const cargoMembers = () => {
  const toml = existsSync(join(root, 'Cargo.toml')) ? readFileSync(join(root, 'Cargo.toml'), 'utf8') : '';
  const list = /^\s*members\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? '';
  return [...list.matchAll(/"([^"]+)"/g)].flatMap(([, m]) => {
    if (!m.endsWith('/*')) return [m];
    const dir = m.slice(0, -2);
    return existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => `${dir}/${e.name}`)
      : [];
  });
};
const scriptsMatching = (re) =>
  readdirSync(join(root, 'scripts'))
    .filter((f) => re.test(f))
    .map((f) => `scripts/${f}`);

const steps = [
  {
    name: 'wasm',
    what: 'the Rust core -> web/pkg (cargo, wasm-bindgen, wasm-opt)',
    cmd: 'bash',
    script: 'scripts/build-wasm.sh',
    out: 'web/pkg',
    required: ['kraft_playground_bg.wasm', 'kraft_playground_full_bg.wasm', 'kraft_playground_factory.js', 'kraft_playground_full_factory.js'],
    inputs: () => [
      ...new Set(['crate', ...cargoMembers()]),
      'Cargo.toml',
      'Cargo.lock',
      '.cargo/config.toml',
      'rust-toolchain',
      'rust-toolchain.toml',
      'scripts/build-wasm.sh',
      ...scriptsMatching(/^wasm-.*\.mjs$/),
    ],
    facts: () => ({
      rustc: version('rustc', ['--version', '--verbose']),
      'wasm-bindgen': version('wasm-bindgen'),
      binaryen: npmVersion('binaryen'),
      RUSTFLAGS: process.env.RUSTFLAGS ?? '',
    }),
  },
  {
    name: 'package',
    what: 'web/src + web/pkg -> web/dist (esbuild, tsc declarations)',
    cmd: process.execPath,
    script: 'web/build.mjs',
    out: 'web/dist',
    required: ['index.js', 'node.js', 'element.js', 'engine.js', 'link.js', 'index.d.ts', 'kraft_playground_bg.wasm', 'kraft_playground_full_bg.wasm'],
    inputs: () => ['web/src', 'web/build.mjs', 'web/package.json', 'web/tsconfig.json', 'web/pkg', 'scenarios', 'scripts/stories.mjs'],
    facts: () => ({ node: process.version, esbuild: npmVersion('esbuild'), typescript: npmVersion('typescript'), KP_KEEP_NAMES: process.env.KP_KEEP_NAMES ?? '' }),
  },
  {
    name: 'site',
    what: 'www + web/dist -> www/dist',
    cmd: process.execPath,
    script: 'www/build.mjs',
    out: 'www/dist',
    required: ['index.html', 'embed.html', 'kraft-playground.js', 'link.js', 'kraft_playground_bg.wasm', 'kraft_playground_bg.wasm.br'],
    inputs: () => ['www/src', 'www/public', 'www/build.mjs', 'www/tsconfig.json', 'web/dist', 'web/package.json', 'scenarios', 'scripts/stories.mjs', 'scripts/precompress.mjs'],
    facts: () => ({
      node: process.version,
      esbuild: npmVersion('esbuild'),
      typescript: npmVersion('typescript'),
      zopfli: npmVersion('@gfx/zopfli'),
      KP_KEEP_NAMES: process.env.KP_KEEP_NAMES ?? '',
    }),
  },
];

const fail = (message) => {
  console.error(`build: ${message}`);
  process.exit(1);
};

const throughArg = process.argv.indexOf('--through');
const through = throughArg > 0 ? process.argv[throughArg + 1] : steps.at(-1).name;
const last = steps.findIndex((s) => s.name === through);
if (last < 0) fail(`--through ${through}: no such step (${steps.map((s) => s.name).join(', ')})`);

// Every step's script first: a missing one is a broken checkout, not a step to skip.
const missing = steps.slice(0, last + 1).filter((s) => !existsSync(join(root, s.script)));
if (missing.length) fail(`missing build script(s): ${missing.map((s) => `${s.script} (the ${s.name} step)`).join(', ')}`);

const force = process.env.KP_FORCE_BUILD === '1';
const dryRun = process.argv.includes('--dry-run');
let ran = null;
for (const step of steps.slice(0, last + 1)) {
  const started = performance.now();
  // hashed now, after the steps before it wrote what it reads
  const hashed = hashInputs(root, step.inputs(), step.facts());
  const out = join(root, step.out);
  const reason = force ? 'KP_FORCE_BUILD=1' : ran ? `the ${ran} step ${dryRun ? 'would run' : 'ran'} before it` : staleReason(out, hashed, step.required, step.out);
  if (reason === null) {
    const ms = Math.round(performance.now() - started);
    console.log(`build: ${step.name}: up to date, skipped (inputs hash ${hashed.hash.slice(0, 12)} = ${step.out}/${STAMP}; checked in ${ms} ms)`);
    continue;
  }
  if (dryRun) {
    console.log(`build: ${step.name}: would run (${reason})`);
    ran = step.name;
    continue;
  }
  console.log(`build: ${step.name}: ${step.what} (${reason})`);
  // a step that fails half way must not leave the last build's stamp beside its outputs
  rmSync(join(out, STAMP), { force: true });
  try {
    execFileSync(step.cmd, [step.script], { cwd: root, env, stdio: 'inherit' });
  } catch (e) {
    fail(`the ${step.name} step failed (${step.script}: ${e.status === null ? `signal ${e.signal}` : `exit ${e.status}`})`);
  }
  if (!existsSync(out)) fail(`the ${step.name} step did not write ${step.out}`);
  writeStamp(out, hashed);
  ran = step.name;
  console.log(`build: ${step.name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
