// Writes `F.br` (brotli, quality 11) and `F.gz` (gzip by Zopfli) beside every compressible
// file F of a directory, for static hosts that serve precompressed files and for
// scripts/serve.mjs. Zopfli writes ordinary gzip, 3-5% smaller than zlib's level 9 (the
// core wasm 162.4 -> 154.1 KB, the element 61.3 -> 59.0 KB), for a few seconds of build:
// what a host that has no brotli serves. Called by www/build.mjs; also a command:
//   node scripts/precompress.mjs DIR
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { gzipAsync } from '@gfx/zopfli';

/** The extensions worth compressing (text, and wasm); images like PNG already are. */
export const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.txt', '.map', '.webmanifest']);

/** Compresses every compressible file directly in `dir`; returns their sizes. */
export async function precompress(dir) {
  const out = [];
  for (const f of readdirSync(dir).sort()) {
    const path = join(dir, f);
    if (!COMPRESSIBLE.has(extname(f)) || !statSync(path).isFile()) continue;
    const raw = readFileSync(path);
    const br = brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: extname(f) === '.wasm' ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    });
    const gz = await gzipAsync(raw, { numiterations: 15 });
    writeFileSync(`${path}.br`, br);
    writeFileSync(`${path}.gz`, gz);
    out.push({ file: f, raw: raw.length, br: br.length, gz: gz.length });
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/precompress.mjs DIR');
    process.exit(2);
  }
  for (const r of await precompress(dir)) console.log(`${r.file.padEnd(30)} ${String(r.raw).padStart(8)} B  ${String(r.gz).padStart(7)} B gzip  ${String(r.br).padStart(7)} B br`);
}
