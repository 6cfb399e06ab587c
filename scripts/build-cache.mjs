// The build's input hashes and stamps (scripts/build.mjs). A step's inputs are files,
// directories (walked here, not through git: a fresh clone and a dirty tree hash alike)
// and facts (a tool's version, an environment variable); each is digested, and the step's
// hash is the digest of all of them in sorted order. After a step succeeds its stamp
// (JSON: that hash, each input's digest, and the size of every output file) is written
// beside its outputs; the step is up to date while its inputs hash the same and every
// output the stamp lists is still there at its size.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** File and directory names never walked: installs, build outputs, VCS data. */
export const EXCLUDED = new Set(['node_modules', 'target', 'dist', 'pkg', '.git', '.cache', 'test-results']);
export const STAMP = '.build-stamp';

const sha = (data) => createHash('sha256').update(data).digest('hex');
const posix = (p) => p.split(sep).join('/');

/** Every file under `dir` (or `dir` itself if a file), as paths relative to `root`, sorted. */
export function walk(root, dir) {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  if (statSync(abs).isFile()) return [posix(dir)];
  const files = [];
  const visit = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (EXCLUDED.has(e.name) || e.name === STAMP) continue;
      const p = join(d, e.name);
      // symbolic links are followed only when they name a file
      if (e.isDirectory()) visit(p);
      else if (e.isFile() || (e.isSymbolicLink() && statSync(p, { throwIfNoEntry: false })?.isFile())) files.push(posix(relative(root, p)));
    }
  };
  visit(abs);
  return files.sort();
}

/**
 * Digests of a step's inputs: `paths` (files or directories under `root`; a missing one
 * counts as missing, so its appearance changes the hash) and `facts` ({ name: string }).
 * Returns { hash, inputs } where inputs maps `file:PATH`, `missing:PATH` and `fact:NAME`
 * to digests.
 */
export function hashInputs(root, paths, facts = {}) {
  const inputs = {};
  for (const p of paths) {
    const files = walk(root, p);
    if (files.length === 0) inputs[`missing:${posix(p)}`] = '';
    for (const f of files) inputs[`file:${f}`] = sha(readFileSync(join(root, f)));
  }
  for (const [name, value] of Object.entries(facts)) inputs[`fact:${name}`] = sha(String(value));
  const keys = Object.keys(inputs).sort();
  const hash = sha(keys.map((k) => `${k}\0${inputs[k]}\n`).join(''));
  return { hash, inputs };
}

/** The size of every file in an output directory (the stamp excluded), by relative path. */
export function outputSizes(dir) {
  const sizes = {};
  if (!existsSync(dir)) return sizes;
  const visit = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === STAMP) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) visit(p);
      else sizes[posix(relative(dir, p))] = statSync(p).size;
    }
  };
  visit(dir);
  return sizes;
}

export function writeStamp(dir, { hash, inputs }) {
  const stamp = { hash, inputs, outputs: outputSizes(dir) };
  writeFileSync(join(dir, STAMP), `${JSON.stringify(stamp, null, 1)}\n`);
}

/**
 * Why the step writing `dir` must run, or null when it is up to date: no stamp, an output
 * it lists gone or resized, a `required` output missing, or which inputs changed.
 */
export function staleReason(dir, { hash, inputs }, required = [], label = dir) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(dir, STAMP), 'utf8'));
  } catch {
    return `no stamp (${posix(join(label, STAMP))})`;
  }
  const missing = required.filter((f) => !existsSync(join(dir, f)));
  if (missing.length) return `output missing: ${missing.join(', ')}`;
  for (const [f, size] of Object.entries(stamp.outputs ?? {})) {
    const s = statSync(join(dir, f), { throwIfNoEntry: false });
    if (!s) return `output missing: ${f}`;
    if (s.size !== size) return `output changed since the build: ${f}`;
  }
  if (stamp.hash === hash) return null;
  const old = stamp.inputs ?? {};
  // a path that appeared shows as its new files, not also as a missing input gone
  const changed = [...new Set([...Object.keys(old), ...Object.keys(inputs)])].filter((k) => old[k] !== inputs[k] && !(k.startsWith('missing:') && !(k in inputs))).sort();
  const name = (k) => {
    const [kind, ...rest] = k.split(':');
    const what = rest.join(':');
    if (kind === 'fact') return what;
    if (kind === 'missing') return `${what} (now missing)`;
    return `${what}${!(k in old) ? ' (new)' : !(k in inputs) ? ' (gone)' : ''}`;
  };
  if (changed.length === 0) return 'inputs changed';
  const shown = changed.slice(0, 5).map(name).join(', ');
  return `inputs changed: ${shown}${changed.length > 5 ? ` and ${changed.length - 5} more` : ''}`;
}
