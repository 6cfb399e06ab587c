#!/usr/bin/env node
// No import circles: within each Rust crate, no module reaches one that reaches it back
// (`crate::x` and `super::x` paths, test modules aside; a parent and its child modules
// are one unit; a macro's `$crate::x` resolves where it expands, so it is no import), and no TypeScript module in web/src imports one that imports it back
// (type-only imports included). Cargo keeps the crates themselves acyclic.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function files(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p, ext);
    return p.endsWith(ext) ? [p] : [];
  });
}

/** Every cycle in `edges` (a Map of node -> Set of nodes), each once, as a list. */
function cycles(edges) {
  const found = new Map();
  const walk = (start, node, path) => {
    for (const next of edges.get(node) ?? []) {
      if (next === start) {
        const key = [...path].sort().join(' ');
        if (!found.has(key)) found.set(key, [...path, start]);
      } else if (!path.includes(next) && next > start) walk(start, next, [...path, next]);
    }
  };
  for (const node of edges.keys()) walk(node, node, [node]);
  return [...found.values()];
}

function rustModules(src) {
  const names = new Map();
  for (const f of files(src, '.rs')) {
    let m = relative(src, f).replace(/\.rs$/, '');
    if (m.endsWith('/mod')) m = m.slice(0, -4);
    names.set(m === 'lib' ? '' : m, f);
  }
  const top = (m) => m.split('/')[0];
  const edges = new Map();
  for (const [m, f] of names) {
    const text = readFileSync(f, 'utf8').split(/#\[cfg\((?:all\()?test[^\]]*\]\s*\n\s*mod tests/)[0];
    const deps = edges.get(top(m)) ?? new Set();
    const base = m.includes('/') ? m.split('/').slice(0, -1).join('/') : '';
    for (const [, path] of text.matchAll(/(?<!\$)\bcrate::([a-z_]+)/g)) deps.add(path);
    for (const [, path] of text.matchAll(/\bsuper::([a-z_]+)/g)) deps.add(top(base ? `${base}/${path}` : path));
    edges.set(top(m), deps);
  }
  for (const [m, deps] of edges) for (const d of deps) if (d === m || !edges.has(d)) deps.delete(d);
  return edges;
}

function tsModules(src) {
  const edges = new Map();
  for (const f of files(src, '.ts')) {
    const deps = new Set();
    for (const [, spec] of readFileSync(f, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
      deps.add(relative(src, resolve(dirname(f), spec.replace(/\.js$/, '.ts'))));
    }
    edges.set(relative(src, f), deps);
  }
  return edges;
}

let bad = 0;
const crates = readdirSync(join(root, 'crate')).filter((c) => statSync(join(root, 'crate', c, 'src')).isDirectory());
for (const c of crates) {
  for (const cyc of cycles(rustModules(join(root, 'crate', c, 'src')))) {
    console.error(`check-cycles: crate/${c}: ${cyc.join(' -> ')}`);
    bad++;
  }
}
for (const cyc of cycles(tsModules(join(root, 'web/src')))) {
  console.error(`check-cycles: web/src: ${cyc.join(' -> ')}`);
  bad++;
}
if (bad) process.exit(1);
console.log(`check-cycles: no import circles in ${crates.length} crates or web/src`);
