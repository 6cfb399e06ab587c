// Builds the npm package: web/src (TypeScript) + web/pkg (wasm-bindgen output, from
// scripts/build-wasm.sh) -> web/dist: ESM bundles for the browser (index.js) and Node
// (node.js), the wasm beside them, and .d.ts declarations.
//   node web/build.mjs

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeStoryModules } from '../scripts/stories.mjs';

const web = dirname(fileURLToPath(import.meta.url));
const root = join(web, '..');
const dist = join(web, 'dist');
const wasm = join(web, 'pkg', 'kraft_playground_bg.wasm');
const fullWasm = join(web, 'pkg', 'kraft_playground_full_bg.wasm');

if (!existsSync(wasm) || !existsSync(fullWasm)) {
  console.error('web/build.mjs: web/pkg is missing; run scripts/build-wasm.sh first');
  process.exit(1);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// KP_KEEP_NAMES=1: minified but with the source's names, for a CPU profile of a page's
// load (scripts/bench-load.mjs --profile)
const minify = process.env.KP_KEEP_NAMES ? { minifyWhitespace: true, minifySyntax: true } : { minify: true };
const common = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: { index: join(web, 'src/index.ts') },
  outdir: dist,
  platform: 'neutral',
  ...minify, // what pages download; the source map keeps it debuggable
  plugins: [
    {
      // init()'s import of the share-link codec stays an import of dist/link.js (below),
      // which a bundler keeps apart as a chunk of its own
      name: 'link-apart',
      setup(b) {
        b.onResolve({ filter: /^\.\/link\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './link.js', external: true } : undefined));
      },
    },
  ],
});
// The share-link codec (src/link.ts, with fflate's DEFLATE), which the browser entry
// imports in init(): what a page draws first does not wait for it.
await build({
  ...common,
  entryPoints: { link: join(web, 'src/link.ts') },
  outdir: dist,
  platform: 'neutral',
  ...minify,
});
await build({
  ...common,
  entryPoints: { node: join(web, 'src/node.ts') },
  outdir: dist,
  platform: 'node',
});
copyFileSync(wasm, join(dist, 'kraft_playground_bg.wasm'));
// The full engine's bindings, loaded by the browser entry only when a scenario file or a
// sweep runs (Node's bundle has them inside).
await build({
  ...common,
  entryPoints: { engine: join(web, 'pkg/kraft_playground_full_factory.js') },
  outdir: dist,
  platform: 'neutral',
  ...minify,
});
copyFileSync(fullWasm, join(dist, 'kraft_playground_full_bg.wasm'));

// The <kraft-playground> element (src/ui/, defines itself on import): it shares the
// API module above, loads its stylesheet and the scenario library from beside itself.
// What its first frame does not need (src/ui/later.ts) is a chunk of its own, imported
// after that frame: element-*.js beside it (esbuild also puts what the two share in one).
await build({
  ...common,
  entryPoints: { element: join(web, 'src/ui/define.ts') },
  outdir: dist,
  platform: 'browser',
  ...minify,
  splitting: true,
  chunkNames: 'element-[name]-[hash]',
  plugins: [
    {
      name: 'share-the-api',
      setup(b) {
        // the package's own API module (src/api.ts or src/index.ts, from any folder of src/ui/)
        const shared = new Set([join(web, 'src/api.js'), join(web, 'src/index.js')]);
        b.onResolve({ filter: /(^|\/)(api|index)\.js$/ }, (args) => (shared.has(resolve(args.resolveDir, args.path)) ? { path: './index.js', external: true } : undefined));
      },
    },
  ],
});
// The stylesheet, its features' files (@import) bundled in and minified: the element's
// first frame waits for it (comments and spaces were a fifth of its gzip).
const css = await build({ entryPoints: [join(web, 'src/ui/kraft-playground.css')], bundle: true, minify: true, write: false, logLevel: 'warning' });
writeFileSync(join(dist, 'kraft-playground.css'), css.outputFiles[0].text);
// The styles of what the element loads after its first frame (src/ui/later.css): fetched
// with its later chunk, beside the stylesheet above.
const laterCss = await build({ entryPoints: [join(web, 'src/ui/later.css')], bundle: true, minify: true, write: false, logLevel: 'warning' });
writeFileSync(join(dist, 'kraft-playground-later.css'), laterCss.outputFiles[0].text);
{
  const dir = join(root, 'scenarios');
  const list = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
    .filter((s) => typeof s.id === 'string')
    .map((file) => ({ id: file.id, title: typeof file.title === 'string' ? file.title : file.id, file }));
  // Each story precomputed by the engine just built, for the core to replay.
  const kp = await import(join(dist, 'node.js'));
  await writeStoryModules(dist, list, kp);
}

// Declarations (tsc also type-checks the sources here).
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(web, 'tsconfig.json')], {
  stdio: 'inherit',
});
// The raw-bindings module is internal; no public declaration may point into web/pkg.
rmSync(join(dist, 'core.d.ts'), { force: true });
for (const f of readdirSync(dist).filter((f) => f.endsWith('.d.ts'))) {
  if (/from ['"]\.\.\/pkg|from ['"]\.\/core\.js/.test(readFileSync(join(dist, f), 'utf8'))) {
    console.error(`web/build.mjs: dist/${f} refers to internal modules; keep wasm-bindgen types out of the public API`);
    process.exit(1);
  }
}

const size = (f) => readFileSync(join(dist, f)).length;
console.log(
  `web/build.mjs: dist/index.js ${size('index.js')} B, dist/node.js ${size('node.js')} B, dist/element.js ${size('element.js')} B, ` +
    `dist/kraft_playground_bg.wasm ${size('kraft_playground_bg.wasm')} B, dist/kraft_playground_full_bg.wasm ${size('kraft_playground_full_bg.wasm')} B`,
);
