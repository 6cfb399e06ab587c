// The browser build in a real browser (Debian's Chromium through playwright-core), with
// no bundler: the page imports dist/index.js, which fetches the wasm next to it. The
// trace digest must equal the one Node computes for the same run.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Cluster } from '../dist/node.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.map': 'application/json' };

async function script(c) {
  c.runUntil((x) => x.leader() !== null, { timeoutMs: 10_000 });
  c.write({ type: 'CreateTopic', name: 'orders', partitions: 3 });
  c.crash(c.leader().id);
  c.advance(5_000);
  c.partition([
    [0, 1],
    [2, 3],
  ]);
  c.advance(3_000);
  c.heal();
  c.advance(3_000);
  return { leader: c.leader(), digest: c.digest(), link: c.toLink() };
}

test('dist/index.js in Chromium, without a bundler', { skip: chromium ? false : 'no chromium here', timeout: 120_000 }, async (t) => {
  const { chromium: pw } = await import('playwright-core');
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    if (path === '/favicon.ico') {
      res.writeHead(204);
      return res.end();
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>kraft-playground</title>');
    }
    const file = join(dist, path);
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const browser = await pw.launch({ executablePath: chromium, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  const requested = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  const inBrowser = await page.evaluate(`(async () => {
    const { Cluster, Player } = await import('/index.js');
    const c = await Cluster.create({ voters: 3, observers: 1, seed: 42 });
    const script = ${script.toString()};
    const out = await script(c);
    // The real requestAnimationFrame loop.
    const p = new Player(c, { speed: 10 });
    let frames = 0;
    p.subscribe(() => frames++);
    const t0 = c.now;
    p.play();
    await new Promise((r) => setTimeout(r, 300));
    p.pause();
    return { ...out, frames, moved: c.now - t0 };
  })()`);
  assert.deepEqual(errors, []);
  // the share-link codec is a module of its own, which init() (in Cluster.create) loaded
  assert.ok(requested.includes('/link.js'), `requested: ${requested}`);
  const inNode = await script(await Cluster.create({ voters: 3, observers: 1, seed: 42 }));
  assert.equal(inBrowser.digest, inNode.digest, 'browser and Node agree');
  assert.deepEqual(inBrowser.leader, inNode.leader);
  assert.equal(inBrowser.link, inNode.link);
  assert.ok(inBrowser.frames >= 3, `${inBrowser.frames} animation frames`);
  assert.ok(inBrowser.moved > 0);
});
