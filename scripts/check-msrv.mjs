#!/usr/bin/env node
// The declared rust-version (Cargo.toml's [workspace.package]) must be one that can build
// the lock file: no package in the graph may declare a newer one. clippy's
// incompatible_msrv lint (npm test runs clippy) checks our own code's std APIs against it.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const meta = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--locked'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }));
const parse = (v) => v.split('.').map(Number);
const newer = (a, b) => {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};
const members = new Set(meta.workspace_members);
const ours = meta.packages.filter((p) => members.has(p.id));
const declared = ours[0]?.rust_version;
if (!declared || ours.some((p) => p.rust_version !== declared)) {
  console.error(`check-msrv: every workspace crate must inherit one rust-version (got ${ours.map((p) => `${p.name} ${p.rust_version}`).join(', ')})`);
  process.exit(1);
}
const over = meta.packages.filter((p) => p.rust_version && newer(p.rust_version, declared));
if (over.length) {
  console.error(`check-msrv: rust-version ${declared} is below what these packages need:`);
  for (const p of over) console.error(`  ${p.name} ${p.version}: rust-version ${p.rust_version}`);
  process.exit(1);
}
console.log(`check-msrv: rust-version ${declared}; no package in the lock file needs a newer one (${meta.packages.length} packages)`);
