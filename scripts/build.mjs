#!/usr/bin/env node
// `npm run build`: every build step, in order. Each step is a command; a step whose
// script is missing fails the build before anything runs (a broken checkout, not a step
// to skip).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const steps = [
  ['wasm: the Rust core -> web/pkg (cargo, wasm-bindgen, wasm-opt)', 'bash', ['scripts/build-wasm.sh']],
  ['package: web/src + web/pkg -> web/dist (esbuild, tsc declarations)', process.execPath, ['web/build.mjs']],
  ['site: www -> www/dist', process.execPath, ['www/build.mjs']],
];

const missing = steps.filter(([, , args]) => !existsSync(join(root, args[0])));
if (missing.length) {
  console.error(`build: missing build script(s): ${missing.map(([name, , args]) => `${args[0]} (${name.split(':')[0]} step)`).join(', ')}`);
  process.exit(1);
}

for (const [name, cmd, args] of steps) {
  console.log(`build: ${name}`);
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
}
