#!/usr/bin/env node
import { readFile, stat } from 'node:fs/promises';
// A tiny static server for the built site (www/dist), with node:http only.
//   node scripts/serve.mjs [dir]      PORT=8080 by default; PORT=0 picks a free port
// Prints the address it listens on. Sends a strict Content-Security-Policy, so the
// site is tested the way strict-CSP documentation pages would embed it. With GZIP=1 it
// answers in gzip when the client accepts it (as a docs site would; the bench measures
// transfers and load times that way).
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(process.argv[2] ?? join(fileURLToPath(new URL('.', import.meta.url)), '..', 'www', 'dist'));
const port = process.env.PORT === undefined ? 8080 : Number(process.env.PORT);
const host = process.env.HOST ?? '127.0.0.1';
const gzip = process.env.GZIP === '1';
/** Path -> gzip body, made once per file. */
const gzipped = new Map();

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  'frame-ancestors *',
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

async function exists(p) {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

const server = createServer(async (req, res) => {
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    let path;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('bad request: malformed %-escape in the path');
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let target = file;
    if (!(await exists(target)) && (await exists(`${target}.html`))) target += '.html';
    if (!(await exists(target))) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    const zip = gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    if (zip && !gzipped.has(target)) gzipped.set(target, gzipSync(await readFile(target), { level: 9 }));
    const body = zip ? gzipped.get(target) : await readFile(target);
    res.writeHead(200, {
      'Content-Type': TYPES[extname(target)] ?? 'application/octet-stream',
      'Content-Length': body.length,
      ...(zip ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    res.writeHead(500).end(String(e));
  }
});

server.listen(port, host, () => {
  const a = server.address();
  const shown = host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : host;
  console.log(`KRaft Playground: http://${shown}:${a.port}/  (serving ${root})`);
});
