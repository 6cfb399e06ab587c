#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
// Builds the static site into www/dist: the <kraft-playground> element with the package
// API (one bundle, also usable by any page), the scenario library (scenarios/*.json,
// bundled as a module), the two pages and their small scripts, the stylesheets, the
// wasm. No CDN, no inline script or style: works offline and under a strict CSP.
// The site uses the npm package as a user would: its `kraft-playground/element` entry,
// stylesheet and wasm, from the built package (web/dist, `node web/build.mjs`).
//   node www/build.mjs
import { build, transform } from 'esbuild';
import { precompress } from '../scripts/precompress.mjs';
import { writeStoryModules } from '../scripts/stories.mjs';

const www = dirname(fileURLToPath(import.meta.url));
const root = join(www, '..');
const dist = join(www, 'dist');
// The package's files, resolved through its exports as any dependent resolves them.
const fromPackage = (name) => fileURLToPath(import.meta.resolve(`kraft-playground/${name}`));
const wasm = fromPackage('kraft_playground_bg.wasm');

if (!existsSync(wasm)) {
  console.error('www/build.mjs: the package is not built (web/dist); run node web/build.mjs first');
  process.exit(1);
}

// Type-check the page scripts against the package's declarations (esbuild only strips types).
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(www, 'tsconfig.json')], { stdio: 'inherit' });

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// The scenario library: [{ id, title, file }] (scripts/stories.mjs writes its modules).
function scenarioList() {
  const dir = join(root, 'scenarios');
  const list = [];
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.json') || f === 'schema.json' || f.startsWith('_')) continue;
      const file = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      if (typeof file !== 'object' || file === null || typeof file.id !== 'string') {
        console.error(`www/build.mjs: scenarios/${f} has no id; skipped`);
        continue;
      }
      list.push({ id: file.id, title: typeof file.title === 'string' ? file.title : file.id, file });
    }
  }
  // A stable order: the order of the library's numbering if the files carry one.
  list.sort((a, b) => (a.file.order ?? 1e9) - (b.file.order ?? 1e9) || 0);
  return list;
}

const common = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  // KP_KEEP_NAMES=1: minified but with the source's names, for a CPU profile of a load
  // (scripts/bench-load.mjs --profile)
  ...(process.env.KP_KEEP_NAMES ? { minifyWhitespace: true, minifySyntax: true } : { minify: true }),
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  charset: 'utf8',
};

// 1. the element + the API: dist/kraft-playground.js (defines <kraft-playground> on
//    import; loads ./scenarios.js beside it when a scenario is asked for), and its
//    chunks: what it imports after its first frame, and what that shares with it
//    (kraft-playground-chunk-*.js, which the pages preload beside it).
const element = await build({
  ...common,
  entryPoints: { 'kraft-playground': fromPackage('element') },
  outdir: dist,
  platform: 'browser',
  splitting: true,
  chunkNames: 'kraft-playground-[name]-[hash]',
  metafile: true,
  plugins: [
    {
      // the share-link codec the API's init() imports: the package's own module, copied
      // beside (4.); as a chunk here it would split esbuild's helpers into one more
      // module the first frame waits for
      name: 'link-as-is',
      setup(b) {
        b.onResolve({ filter: /^\.\/link\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './link.js', external: true } : undefined));
      },
    },
  ],
});
const staticChunks = element.metafile.outputs[`${relative(root, dist)}/kraft-playground.js`].imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => basename(i.path));

// 2. the scenarios: dist/scenarios.js (the outline) and dist/story-ID.js (file and runs)
// Each story precomputed by the package's engine, for the page's core to replay.
const list = scenarioList();
await writeStoryModules(dist, list, await import('kraft-playground'));

// 3. the pages' scripts, importing the element module (1.) at run time
const shared = {
  name: 'site-externals',
  setup(b) {
    b.onResolve({ filter: /^kraft-playground\/element$/ }, () => ({ path: './kraft-playground.js', external: true }));
  },
};
await build({
  ...common,
  entryPoints: { page: join(www, 'src/page.ts'), embed: join(www, 'src/embed.ts'), 'early-core': join(www, 'src/early-core.ts') },
  outdir: dist,
  platform: 'browser',
  plugins: [shared],
});

// Chromium (136 and later) compiles a script whose first line is this comment on the
// thread that streams it in, all its functions at once, instead of each on the main
// thread at its first call: for what runs before the first frame (the element's module,
// its static chunks, the pages' scripts), not for the chunk loaded after that frame.
const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';
for (const f of ['kraft-playground.js', ...staticChunks, 'page.js', 'embed.js']) {
  writeFileSync(join(dist, f), COMPILE_HINT + readFileSync(join(dist, f), 'utf8'));
}

// 4. static files; the pages preload the chunks the element module imports statically
//    (found only once that module has arrived, they would come a round trip later)
const ELEMENT_PRELOAD = '<link rel="modulepreload" href="kraft-playground.js">';
for (const f of readdirSync(join(www, 'public'))) {
  if (f.endsWith('.css')) {
    // minified: the page's first paint waits for it
    const css = await transform(readFileSync(join(www, 'public', f), 'utf8'), { loader: 'css', minify: true });
    writeFileSync(join(dist, f), css.code);
    continue;
  }
  if (!f.endsWith('.html')) {
    copyFileSync(join(www, 'public', f), join(dist, f));
    continue;
  }
  const html = readFileSync(join(www, 'public', f), 'utf8');
  const at = html.indexOf(ELEMENT_PRELOAD);
  if (at < 0) throw new Error(`www/build.mjs: public/${f} has no ${ELEMENT_PRELOAD}`);
  const indent = html.slice(html.lastIndexOf('\n', at) + 1, at);
  const preloads = staticChunks.map((c) => `\n${indent}<link rel="modulepreload" href="${c}">`).join('');
  writeFileSync(join(dist, f), html.slice(0, at + ELEMENT_PRELOAD.length) + preloads + html.slice(at + ELEMENT_PRELOAD.length));
}
copyFileSync(fromPackage('kraft-playground.css'), join(dist, 'kraft-playground.css'));
// the styles of what the element loads after its first frame, fetched with its later chunk
copyFileSync(fromPackage('kraft-playground-later.css'), join(dist, 'kraft-playground-later.css'));
copyFileSync(wasm, join(dist, 'kraft_playground_bg.wasm'));
// the share-link codec, fetched after the element's first frame
copyFileSync(join(dirname(fromPackage('element')), 'link.js'), join(dist, 'link.js'));
// the full engine, fetched only when a reader opens their own scenario file
copyFileSync(fromPackage('engine.js'), join(dist, 'engine.js'));
copyFileSync(fromPackage('kraft_playground_full_bg.wasm'), join(dist, 'kraft_playground_full_bg.wasm'));

// 5. precompressed copies (.br, .gz) beside each text file and the wasm, for static
//    hosts and scripts/serve.mjs
const sizes = new Map((await precompress(dist)).map((r) => [r.file, r]));

// Sizes: what a visitor downloads for the main page until its first story plays
// (brotli, as browsers ask for it; gzip where brotli is not offered). The library's
// outline (scenarios.js) and the element's later chunk come after that.
const page = ['index.html', 'site.css', 'page.js', 'kraft-playground.js', ...staticChunks, 'story-first-election.js', 'kraft-playground.css', 'kraft_playground_bg.wasm', 'favicon.svg'];
const total = { raw: 0, gz: 0, br: 0 };
const rows = [];
const row = (name, r) => `  ${name.padEnd(36)} ${String(r.raw).padStart(8)} B  ${String(r.gz).padStart(7)} B gzip  ${String(r.br).padStart(7)} B br`;
for (const f of page) {
  const r = sizes.get(f);
  for (const k of ['raw', 'gz', 'br']) total[k] += r[k];
  rows.push(row(f, r));
}
console.log(`www/build.mjs: www/dist with ${list.length} scenario(s)\n${rows.join('\n')}\n${row('main page total', total)}`);
