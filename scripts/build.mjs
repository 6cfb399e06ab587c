#!/usr/bin/env node
// `npm run build`: every build step, in order. Each step is a command; a step whose
// script does not exist yet is skipped with a note.
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

for (const [name, cmd, args] of steps) {
  if (!existsSync(join(root, args[0]))) {
    console.log(`build: skipping ${name} (${args[0]} not there yet)`);
    continue;
  }
  console.log(`build: ${name}`);
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
}
