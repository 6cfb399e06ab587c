#!/usr/bin/env node
// A small static server for the built site (www/dist), with node:http only.
//   node scripts/serve.mjs [dir]      PORT=8080 by default; PORT=0 picks a free port
// Prints the address it listens on. Sends a strict Content-Security-Policy with each
// page, so the site is tested the way strict-CSP documentation pages would embed it.
// Serves what a good static host would: the precompressed `F.br` / `F.gz` the build
// writes beside F, chosen by Accept-Encoding (Vary: Accept-Encoding); a strong ETag
// and Last-Modified per representation, answered with 304 when they still match;
// `no-cache` (always revalidate) except for content-hashed names (`name-<hash>.ext` or
// `name.<hash>.ext`), which never change and are cached for a year as immutable.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPRESSIBLE } from './precompress.mjs';

const root = resolve(process.argv[2] ?? join(fileURLToPath(new URL('.', import.meta.url)), '..', 'www', 'dist'));
const port = process.env.PORT === undefined ? 8080 : Number(process.env.PORT);
const host = process.env.HOST ?? '127.0.0.1';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
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

/** Codings we have files for, in the order we prefer them when the client has no preference. */
const CODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
];

// esbuild's [hash] (8 characters of upper-case base32) or 8+ hex digits, as the last
// part of the name before its extension.
const HASHED = /[.-](?:[A-Z2-7]{8}|[0-9a-f]{8,})\.[A-Za-z0-9]+$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Accept-Encoding -> Map(coding -> q). Missing header: only identity (what curl and tests mean). */
function acceptedCodings(header) {
  const q = new Map();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    q.set(name === 'x-gzip' ? 'gzip' : name, Number.isFinite(weight) ? weight : 0);
  }
  return q;
}

/** The coding to send: the highest q among those on disk, ties going to CODINGS' order; identity last. */
function chooseCoding(header, available) {
  const q = acceptedCodings(header);
  const weight = (c) => q.get(c) ?? q.get('*') ?? 0;
  let best = null;
  for (const [coding] of CODINGS) {
    if (!available.has(coding) || weight(coding) <= 0) continue;
    if (best === null || weight(coding) > weight(best)) best = coding;
  }
  const identity = q.get('identity') ?? (q.has('*') ? weight('*') : 1);
  return best !== null && weight(best) >= identity ? best : 'identity';
}

async function fileStat(p) {
  try {
    const s = await stat(p);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/** ETag per file, kept while its size and mtime stay the same. */
const etags = new Map();
function etagOf(path, s, body) {
  const known = etags.get(path);
  if (known && known.size === s.size && known.mtimeMs === s.mtimeMs) return known.etag;
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  etags.set(path, { size: s.size, mtimeMs: s.mtimeMs, etag });
  return etag;
}

/** RFC 9110 13.1.2: weak comparison against a list, or `*`. */
function noneMatch(header, etag) {
  if (header.trim() === '*') return true;
  const strip = (t) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => strip(t) === strip(etag));
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
    let original = await fileStat(target);
    if (!original && (await fileStat(`${target}.html`))) {
      target += '.html';
      original = await fileStat(target);
    }
    if (!original) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    const ext = extname(target);
    const compressible = COMPRESSIBLE.has(ext);
    // The precompressed siblings that are at least as new as the file itself.
    const variants = new Map([['identity', { path: target, stat: original }]]);
    if (compressible) {
      for (const [coding, suffix] of CODINGS) {
        const s = await fileStat(target + suffix);
        if (s && s.mtimeMs >= original.mtimeMs) variants.set(coding, { path: target + suffix, stat: s });
      }
    }
    const coding = chooseCoding(req.headers['accept-encoding'], variants);
    const chosen = variants.get(coding);
    const body = await readFile(chosen.path);
    const etag = etagOf(chosen.path, chosen.stat, body);
    const lastModified = new Date(Math.floor(chosen.stat.mtimeMs / 1000) * 1000);
    const headers = {
      'Content-Type': TYPES[ext] ?? 'application/octet-stream',
      'Cache-Control': ext !== '.html' && HASHED.test(target) ? IMMUTABLE : 'no-cache',
      ETag: etag,
      'Last-Modified': lastModified.toUTCString(),
      'X-Content-Type-Options': 'nosniff',
    };
    // A policy governs the document it comes with (or a worker's script; the site starts
    // none): on a script, style or wasm response it would only cost bytes, about 0.6 KB
    // on each of the ten requests before the first frame.
    if (ext === '.html') headers['Content-Security-Policy'] = CSP;
    if (compressible) headers.Vary = 'Accept-Encoding';
    if (coding !== 'identity') headers['Content-Encoding'] = coding;

    const inm = req.headers['if-none-match'];
    const ims = Date.parse(req.headers['if-modified-since'] ?? '');
    const fresh = inm !== undefined ? noneMatch(inm, etag) : Number.isFinite(ims) && lastModified.getTime() <= ims;
    if (fresh) {
      // RFC 9110 15.4.5: the validators, caching and Vary; not the body's metadata.
      for (const k of ['Content-Type', 'Content-Encoding', 'Content-Security-Policy']) delete headers[k];
      res.writeHead(304, headers).end();
      return;
    }
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
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
