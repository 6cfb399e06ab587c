// How the site is delivered: the precompressed files the build ships for static hosts,
// the dev server's content negotiation and caching headers (scripts/serve.mjs), and the
// early wasm fetch in Chromium (requested once, with the page, not after the scripts).
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { holdBack, launch, loadToFirstFrame, root, serve, shotPath, watchFirstFrame } from './harness.mjs';

const dist = join(root, 'www', 'dist');
const COMPRESSIBLE = new Set(['.js', '.css', '.wasm', '.html', '.json', '.svg']);

/**
 * What comes with the element's later chunk, not with the code its first frame waits for,
 * each by a string only it has: the logs, the node menu, the dialogs (help, share), the
 * keys' table, the export menu, a crashed core's report, what is under the pointer on the
 * timeline and the popover that explains it, the completion card, the network panel, the
 * summary's description of the timeline, what the glossary's words mean (the tooltips),
 * the metadata images' block below the logs, the timeline's tooltip and the keyboard's
 * selection there, and the timeline's PNG export.
 */
const LATER_CODE = [
  ['the logs', 'kp-logs-canvas'],
  ['the node menu', 'Node actions'],
  ['the dialogs', 'kp-dialog-head'],
  ['the help', 'How to read the playground'],
  ["the keys' table", 'travel back / forward 1 s'],
  ['the share dialog', 'Share this run'],
  ['the export menu', 'kp-export-menu'],
  ["a crashed core's report", 'data-repro-url'],
  ["the timeline's hit-testing", 'not sent yet (recorded future)'],
  ['the explain popover', 'kp-explain-why'],
  ['the completion card', 'data-story-complete'],
  ['the network panel', 'Safety switches (unsafe mode)'],
  ["the summary's window", 'too many messages in view to count'],
  ["the glossary's meanings", 'A number that only goes up, with at most one leader each'],
  ["the metadata images' block", 'what the records it applied add up to'],
  ["the timeline's tooltip", 'kp-tip-h'],
  ["the timeline's PNG export", '-timeline.png'],
];
/** The rules of what comes later, in kraft-playground-later.css and not in kraft-playground.css. */
const LATER_STYLES = [
  '.kp-dialog{',
  '.kp-menu{',
  '.kp-export-menu{',
  '.kp-explain{',
  '.kp-tip{',
  '.kp-caption-card{',
  '.kp-done-cols{',
  '.kp-inv-summary{',
  '.kp-switch{',
  '.kp-cfg-row{',
  '.kp-glossary{',
  '.kp-image-card{',
  '.kp-crash-body{',
  '.kp-images{',
];

/** GET (or `method`) `path` from `base`; resolves to { status, headers, body } (body as received, not decoded). */
function get(base, path, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const varyHasEncoding = (h) => (h.vary ?? '').split(',').some((v) => v.trim().toLowerCase() === 'accept-encoding');

describe('the built site ships precompressed files', () => {
  test('every js, css, wasm, html, json and svg file has a .br and a .gz beside it that decompress to its bytes', () => {
    const files = readdirSync(dist).filter((f) => COMPRESSIBLE.has(extname(f)));
    for (const need of ['index.html', 'embed.html', 'kraft-playground.js', 'scenarios.js', 'site.css', 'kraft-playground.css', 'kraft_playground_bg.wasm']) {
      assert.ok(files.includes(need), `www/dist/${need} is missing`);
    }
    for (const f of files) {
      const raw = readFileSync(join(dist, f));
      let br;
      let gz;
      try {
        br = readFileSync(join(dist, `${f}.br`));
        gz = readFileSync(join(dist, `${f}.gz`));
      } catch {
        assert.fail(`www/dist/${f} has no .br or no .gz beside it`);
      }
      assert.ok(brotliDecompressSync(br).equals(raw), `${f}.br does not decompress to ${f}`);
      assert.ok(gunzipSync(gz).equals(raw), `${f}.gz does not decompress to ${f}`);
      if (raw.length > 1000) assert.ok(br.length < raw.length && gz.length < raw.length, `${f}: compressing it did not make it smaller`);
      // scripts/precompress.mjs: the gzip is Zopfli's, smaller than zlib's best
      if (raw.length > 10_000) assert.ok(gz.length < gzipSync(raw, { level: 9 }).length, `${f}.gz is no smaller than gzip -9`);
    }
  });
});

let server;
before(async () => {
  server = await serve();
});
after(() => server?.stop());

describe('scripts/serve.mjs', () => {
  const wasm = () => readFileSync(join(dist, 'kraft_playground_bg.wasm'));

  test('sends brotli when the client accepts it, as application/wasm, varying on Accept-Encoding', async () => {
    const r = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], 'br');
    assert.equal(r.headers['content-type'], 'application/wasm');
    assert.ok(varyHasEncoding(r.headers), `Vary: ${r.headers.vary}`);
    assert.equal(Number(r.headers['content-length']), r.body.length);
    assert.ok(brotliDecompressSync(r.body).equals(wasm()));
    assert.ok(r.body.length < wasm().length / 2, `${r.body.length} B brotli for ${wasm().length} B`);
  });

  test('sends gzip when only gzip is accepted, or brotli is refused', async () => {
    for (const ae of ['gzip', 'gzip, deflate', 'br;q=0, gzip', 'x-gzip']) {
      const r = await get(server.url, 'kraft-playground.js', { 'Accept-Encoding': ae });
      assert.equal(r.status, 200, ae);
      assert.equal(r.headers['content-encoding'], 'gzip', `Accept-Encoding: ${ae}`);
      assert.equal(r.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.ok(varyHasEncoding(r.headers));
      assert.ok(gunzipSync(r.body).equals(readFileSync(join(dist, 'kraft-playground.js'))), ae);
    }
  });

  test('sends the bytes as they are when no compression is accepted', async () => {
    for (const headers of [{}, { 'Accept-Encoding': 'identity' }, { 'Accept-Encoding': 'deflate' }, { 'Accept-Encoding': 'br;q=0, gzip;q=0' }]) {
      const r = await get(server.url, 'kraft_playground_bg.wasm', headers);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], undefined, JSON.stringify(headers));
      assert.ok(varyHasEncoding(r.headers));
      assert.equal(r.headers['content-type'], 'application/wasm');
      assert.ok(r.body.equals(wasm()), JSON.stringify(headers));
    }
  });

  test('HTML is never cached without revalidating; names without a content hash are revalidated too', async () => {
    for (const path of ['', 'index.html', 'embed.html']) {
      const r = await get(server.url, path, { 'Accept-Encoding': 'br' });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(r.headers['cache-control'], 'no-cache', path);
      assert.equal(r.headers['content-encoding'], 'br');
      assert.ok(brotliDecompressSync(r.body).equals(readFileSync(join(dist, path || 'index.html'))));
    }
    for (const path of ['kraft-playground.js', 'kraft_playground_bg.wasm', 'site.css', 'scenarios.js']) {
      const r = await get(server.url, path, { 'Accept-Encoding': 'gzip' });
      assert.equal(r.headers['cache-control'], 'no-cache', path);
    }
  });

  test('the pages carry the strict Content-Security-Policy; what they load does not repeat it', async () => {
    for (const path of ['', 'index.html', 'embed.html']) {
      const r = await get(server.url, path, { 'Accept-Encoding': 'br' });
      assert.match(r.headers['content-security-policy'] ?? '', /script-src 'self' 'wasm-unsafe-eval'/, path);
    }
    for (const path of ['kraft-playground.js', 'kraft_playground_bg.wasm', 'site.css', 'kraft-playground.css']) {
      const r = await get(server.url, path, { 'Accept-Encoding': 'gzip' });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-security-policy'], undefined, path);
    }
  });

  test('revalidation: a matching ETag or an unchanged Last-Modified gets 304 with no body', async () => {
    for (const ae of ['br', 'gzip', 'identity']) {
      const first = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': ae });
      const etag = first.headers.etag;
      assert.match(etag ?? '', /^"[^"]+"$/, `a strong ETag (${ae})`);
      assert.ok(first.headers['last-modified'], 'Last-Modified');
      const again = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': ae, 'If-None-Match': etag });
      assert.equal(again.status, 304, ae);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers.etag, etag);
      assert.equal(again.headers['cache-control'], 'no-cache');
      assert.ok(varyHasEncoding(again.headers));
      const listed = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': ae, 'If-None-Match': `"nope", W/${etag}` });
      assert.equal(listed.status, 304, 'a weak match in a list');
      const since = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': ae, 'If-Modified-Since': first.headers['last-modified'] });
      assert.equal(since.status, 304, `If-Modified-Since (${ae})`);
    }
    const br = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': 'br' });
    const gz = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': 'gzip' });
    assert.notEqual(br.headers.etag, gz.headers.etag, 'each encoding is its own representation');
    const cross = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': 'gzip', 'If-None-Match': br.headers.etag });
    assert.equal(cross.status, 200, 'the brotli ETag does not validate the gzip body');
    const stale = await get(server.url, 'kraft_playground_bg.wasm', { 'Accept-Encoding': 'br', 'If-None-Match': '"something-else"', 'If-Modified-Since': br.headers['last-modified'] });
    assert.equal(stale.status, 200, 'If-None-Match wins over If-Modified-Since');
  });

  test('HEAD sends the headers of GET and no body', async () => {
    const g = await get(server.url, 'scenarios.js', { 'Accept-Encoding': 'br' });
    const h = await get(server.url, 'scenarios.js', { 'Accept-Encoding': 'br' }, 'HEAD');
    assert.equal(h.status, 200);
    assert.equal(h.body.length, 0);
    for (const k of ['content-type', 'content-encoding', 'content-length', 'etag', 'cache-control', 'vary']) assert.equal(h.headers[k], g.headers[k], k);
  });

  test('long-lived immutable caching only for content-hashed names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kp-serve-'));
    try {
      writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>');
      writeFileSync(join(dir, 'app.js'), 'export {};\n');
      writeFileSync(join(dir, 'app-3f9a0c1d.js'), 'export {};\n');
      writeFileSync(join(dir, 'chunk-Q2ZK7LMX.js'), 'export {};\n');
      writeFileSync(join(dir, 'core.5d41402abc4b2a76.wasm'), Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]));
      writeFileSync(join(dir, 'kraft-playground.css'), ':root{}\n');
      const s = await serve(dir);
      try {
        for (const f of ['app-3f9a0c1d.js', 'chunk-Q2ZK7LMX.js', 'core.5d41402abc4b2a76.wasm']) {
          const r = await get(s.url, f);
          assert.equal(r.status, 200, f);
          assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable', f);
        }
        for (const f of ['', 'index.html', 'app.js', 'kraft-playground.css']) {
          const r = await get(s.url, f);
          assert.equal(r.status, 200, f);
          assert.equal(r.headers['cache-control'], 'no-cache', f);
        }
        // Nothing precompressed here: served as it is, whatever is accepted.
        const r = await get(s.url, 'app.js', { 'Accept-Encoding': 'br, gzip' });
        assert.equal(r.headers['content-encoding'], undefined);
        assert.equal(r.body.toString(), 'export {};\n');
      } finally {
        s.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the wasm is fetched with the page', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(() => browser?.close());

  for (const path of ['', 'embed.html']) {
    test(`${path || 'index.html'}: one request for the wasm, compressed, started before the element's script arrived`, async () => {
      const page = await browser.context.newPage();
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      // Some latency, so that "before the script arrived" means something on loopback.
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: -1, uploadThroughput: -1 });
      const wasmRequests = [];
      const encodings = [];
      cdp.on('Network.requestWillBeSent', (e) => {
        if (e.request.url.endsWith('.wasm')) wasmRequests.push(e.request.url);
      });
      cdp.on('Network.responseReceived', (e) => {
        if (e.response.url.endsWith('.wasm')) encodings.push(e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding']);
      });
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        // a preload the page did not use, or used with the wrong mode, is reported here
        if (m.type() === 'error' || /preload/i.test(m.text())) errors.push(m.text());
      });
      await page.goto(server.url + path);
      await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
      await page.evaluate(() => document.querySelector('kraft-playground').ready);
      await page.waitForTimeout(200);
      const timing = await page.evaluate(() => {
        const r = performance.getEntriesByType('resource');
        return {
          wasm: r.filter((e) => e.name.endsWith('.wasm')).map((e) => ({ start: e.startTime, initiator: e.initiatorType })),
          scriptEnd: r.find((e) => e.name.endsWith('/kraft-playground.js'))?.responseEnd,
        };
      });
      await page.close();
      assert.deepEqual(errors, []);
      assert.equal(wasmRequests.length, 1, `the network log: ${JSON.stringify(wasmRequests)}`);
      assert.equal(timing.wasm.length, 1, JSON.stringify(timing.wasm));
      assert.equal(timing.wasm[0].initiator, 'link', 'requested by the page’s preload');
      assert.ok(timing.wasm[0].start < timing.scriptEnd, `wasm requested at ${timing.wasm[0].start} ms, kraft-playground.js arrived at ${timing.scriptEnd} ms`);
      assert.deepEqual(encodings, ['br']);
    });
  }

  test("index.html: the core compiles while the element's script downloads (early-core.js), and the element takes that compile", async () => {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const release = await holdBack(page, /\/kraft-playground\.js$/);
    // (the page's load event waits for the held module)
    await page.goto(server.url, { waitUntil: 'commit' });
    await page.waitForFunction(() => self.kraftPlaygroundCore !== undefined);
    // the element's module has not arrived, and the core is compiled already
    const early = await page.evaluate(async () => (await self.kraftPlaygroundCore) instanceof WebAssembly.Module);
    assert.equal(early, true);
    assert.equal(await page.evaluate(() => customElements.get('kraft-playground')), undefined, 'the element is still on its way');
    release();
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster?.now > 0, null, { timeout: 30_000 });
    const wasmRequests = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm')).length);
    await page.close();
    assert.equal(wasmRequests, 1, 'the element used the compile the page started');
    assert.deepEqual(errors, []);
  });

  /**
   * Loads index.html traced (its scripts as built, or with their first line, the compile
   * hint, cut) and counts the functions the renderer's main thread compiled lazily, at
   * their first call, until the first frame (V8's V8.CompileCode trace events).
   */
  async function lazyCompilesUntilFirstFrame(cutHint) {
    const page = await browser.context.newPage();
    if (cutHint) {
      await page.route(/\/(kraft-playground[^/]*|page)\.js$/, async (route) => {
        const r = await route.fetch();
        const body = (await r.text()).replace(/^\/\/# allFunctionsCalledOnLoad\n/, '');
        const { 'content-encoding': _, 'content-length': __, ...headers } = r.headers();
        await route.fulfill({ status: r.status(), headers, body });
      });
    }
    await page.addInitScript(watchFirstFrame);
    const cdp = await browser.context.newCDPSession(page);
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: ['devtools.timeline', 'blink.user_timing', 'disabled-by-default-v8.compile'] } });
    const firstFrameMs = await loadToFirstFrame(page, server.url);
    await cdp.send('Tracing.end');
    await done;
    await page.close();
    const parse = events.find((e) => e.name === 'ParseHTML' && e.args?.beginData?.url?.startsWith(server.url));
    const nav = events.find((e) => e.name === 'navigationStart' && e.pid === parse.pid);
    const until = nav.ts + firstFrameMs * 1000;
    return events.filter((e) => e.name === 'V8.CompileCode' && e.pid === parse.pid && e.tid === parse.tid && e.ts <= until).length;
  }

  test("index.html: the scripts that run before the first frame are compiled on the thread that streams them in, not function by function on the page's main thread", async () => {
    const hinted = await lazyCompilesUntilFirstFrame(false);
    const cut = await lazyCompilesUntilFirstFrame(true);
    // www/build.mjs: the explicit compile hint; measured 21-42 against 540-579 without it
    assert.ok(cut > 200, `without the compile hint the main thread compiled only ${cut} functions: the trace does not show what this test needs`);
    assert.ok(hinted * 4 < cut, `the main thread compiled ${hinted} functions lazily before the first frame (${cut} without the hint)`);
  });

  test('index.html: where the server does not say application/wasm (no streaming compile), the element compiles the fetched bytes', async () => {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.route(/kraft_playground_bg\.wasm$/, async (route) => {
      const r = await route.fetch();
      await route.fulfill({ response: r, headers: { ...r.headers(), 'content-type': 'application/octet-stream' } });
    });
    await page.goto(server.url);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster?.now > 0, null, { timeout: 30_000 });
    const early = await page.evaluate(() =>
      self.kraftPlaygroundCore.then(
        () => 'compiled',
        () => 'refused',
      ),
    );
    await page.close();
    assert.equal(early, 'refused', 'streaming compilation needs application/wasm');
    assert.deepEqual(errors, []);
  });

  test('index.html: the story the on-ramp opens is requested with the page, not once the wasm has arrived', async () => {
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: -1, uploadThroughput: -1 });
    await page.goto(server.url);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    const timing = await page.evaluate(() => {
      const r = performance.getEntriesByType('resource');
      return { story: r.filter((e) => e.name.endsWith('/story-first-election.js')).map((e) => e.startTime), wasmEnd: r.find((e) => e.name.endsWith('.wasm'))?.responseEnd };
    });
    await page.close();
    assert.equal(timing.story.length, 1, JSON.stringify(timing));
    assert.ok(timing.story[0] < timing.wasmEnd, `story-first-election.js requested at ${timing.story[0]} ms, the wasm arrived at ${timing.wasmEnd} ms`);
  });
});

/**
 * Installed with `page.addInitScript`: notes in `window.__firstPlaying` what the first
 * frame drawn after play started showed (after that frame's rendering): the clock, the
 * caption bar's height and the stage's top.
 */
function watchFirstPlayingFrame() {
  const tick = () => {
    const el = document.querySelector('kraft-playground');
    const root = el?.shadowRoot?.querySelector('.kp-root');
    if (el?.hasAttribute('data-playing') && root?.classList.contains('kp-ready') && root.querySelector('[data-node]')) {
      window.__firstPlaying = {
        now: el.cluster.now,
        bar: root.querySelector('[data-caption]').getBoundingClientRect().height,
        stage: root.querySelector('.kp-stage').getBoundingClientRect().top,
      };
      return;
    }
    requestAnimationFrame(() => setTimeout(tick, 0));
  };
  requestAnimationFrame(() => setTimeout(tick, 0));
}

describe('the first frame after play starts', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(() => browser?.close());

  test('index.html: the on-ramp story is already running in the first frame drawn after it starts playing, its caption bar at its full height', async () => {
    // The regression: that frame counted its wall time from its own timestamp, from before
    // play started (loading the story delayed it), so it showed the clock at 0 still and
    // the running cluster came a frame later.
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(watchFirstPlayingFrame);
    await page.goto(server.url);
    await page.waitForFunction(() => window.__firstPlaying !== undefined, null, { timeout: 60_000 });
    const first = await page.evaluate(() => window.__firstPlaying);
    assert.ok(first.now > 0, `the first frame after play started showed the clock at ${first.now} ms`);
    // the bar already has the height of the story's tallest caption: nothing below it moves
    // once the story waits at its first stop, another caption shown
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').dataset.state === 'waiting', null, { timeout: 30_000 });
    const later = await page.evaluate(() => {
      const root = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-root');
      return {
        bar: root.querySelector('[data-caption]').getBoundingClientRect().height,
        stage: root.querySelector('.kp-stage').getBoundingClientRect().top,
        sizers: root.querySelectorAll('.kp-caption-sizer').length,
      };
    });
    await page.close();
    assert.deepEqual({ bar: first.bar, stage: first.stage }, { bar: later.bar, stage: later.stage });
    assert.equal(later.sizers, 0, 'the copies measured for the bar are gone');
    assert.deepEqual(errors, []);
  });

  test("index.html: while the core loads, the on-ramp story's caption bar, name and step ticks are on screen before the core arrives, at full height; the run comes without moving the stage", async () => {
    // The regression: the bar (and the ticks) appeared only with the run, pushing the
    // stage down under the reader; and building them was left to the frame that shows it.
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const release = await holdBack(page, /\.wasm$/);
    await page.addInitScript(watchFirstPlayingFrame);
    await page.goto(server.url);
    // the bar is measured once laid out (its copies gone): then it has its height
    await page.waitForFunction(() => {
      const root = document.querySelector('kraft-playground')?.shadowRoot?.querySelector('.kp-root');
      const bar = root?.querySelector('[data-caption]');
      return root?.classList.contains('kp-ready') && bar && !bar.hidden && root.querySelectorAll('.kp-caption-sizer').length === 0;
    });
    const loading = await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      const root = el.shadowRoot.querySelector('.kp-root');
      return {
        cluster: el.cluster,
        loading: root.hasAttribute('data-loading'),
        step: root.querySelector('.kp-caption-step').textContent,
        text: root.querySelector('.kp-caption-text').textContent,
        continueDisabled: root.querySelector('[data-action="continue"]').disabled,
        picked: root.querySelector('.kp-scenario').value,
        ticks: root.querySelectorAll('.kp-tick').length,
        bar: root.querySelector('[data-caption]').getBoundingClientRect().height,
        stage: root.querySelector('.kp-stage').getBoundingClientRect().top,
      };
    });
    assert.equal(loading.cluster, null, 'the core is still on its way');
    assert.ok(loading.loading);
    assert.match(loading.step, /^First election · step 1 of \d+/);
    assert.match(loading.text, /Unattached/);
    assert.ok(loading.continueDisabled, 'Continue waits for the core');
    assert.equal(loading.picked, 'first-election');
    assert.ok(loading.ticks > 0, 'the steps are marked on the scrubber');
    await page.screenshot({ path: shotPath('loading-story.png') });
    release();
    await page.waitForFunction(() => window.__firstPlaying !== undefined, null, { timeout: 60_000 });
    const first = await page.evaluate(() => window.__firstPlaying);
    const ticks = await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('.kp-tick').length);
    await page.close();
    assert.deepEqual({ bar: first.bar, stage: first.stage }, { bar: loading.bar, stage: loading.stage }, 'the bar and the stage did not move');
    assert.equal(ticks, loading.ticks);
    assert.deepEqual(errors, []);
  });
});

describe('what the first frame does not need comes after it', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(() => browser?.close());

  test('index.html: the story is requested while the wasm is still on its way; the later chunk and the library only once a running cluster is drawn', async () => {
    const page = await browser.context.newPage();
    const requested = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    // the wasm is held back until the story has been asked for (or 5 s have passed)
    let storyWhileHeld = false;
    await page.route(/\.wasm$/, async (route) => {
      for (let i = 0; i < 50 && !requested.some((p) => p.endsWith('/story-first-election.js')); i++) await new Promise((r) => setTimeout(r, 100));
      storyWhileHeld = requested.some((p) => p.endsWith('/story-first-election.js'));
      await route.continue();
    });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(watchFirstFrame);
    await page.goto(server.url);
    await page.waitForFunction(() => window.__firstFrameMs !== undefined, null, { timeout: 60_000 });
    // the panels of the later chunk arrive on their own, without any interaction
    await page.locator('kraft-playground [data-quorum="status"]').waitFor({ timeout: 30_000 });
    // then the library is listed in the picker (every story and variant, beside free play)
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('.kp-scenario option').length > 20);
    const t = await page.evaluate(() => ({
      frame: window.__firstFrameMs,
      later: performance.getEntriesByType('resource').find((e) => /-later-[^/]*\.js$/.test(e.name))?.startTime,
      laterStyles: performance.getEntriesByType('resource').find((e) => e.name.endsWith('/kraft-playground-later.css'))?.startTime,
      library: performance.getEntriesByType('resource').find((e) => e.name.endsWith('/scenarios.js'))?.startTime,
      link: performance.getEntriesByType('resource').find((e) => e.name.endsWith('/link.js'))?.startTime,
    }));
    await page.close();
    assert.deepEqual(errors, []);
    assert.ok(storyWhileHeld, `the story was not requested before the wasm had arrived: ${requested.join(', ')}`);
    assert.ok(t.later > t.frame, `the later chunk was requested at ${t.later} ms, before the first frame (${t.frame} ms)`);
    assert.ok(t.laterStyles > t.frame, `kraft-playground-later.css was requested at ${t.laterStyles} ms, before the first frame (${t.frame} ms)`);
    assert.ok(t.library > t.frame, `scenarios.js was requested at ${t.library} ms, before the first frame (${t.frame} ms)`);
    assert.ok(t.link > t.frame, `link.js was requested at ${t.link} ms, before the first frame (${t.frame} ms)`);
  });

  test("the element's module, its static chunks and its stylesheet hold none of what comes later; the later chunk and its stylesheet do", () => {
    const read = (f) => readFileSync(join(dist, f), 'utf8');
    const element = read('kraft-playground.js');
    // what the module imports statically (the pages preload it beside the module), and the chunk it imports after its first frame
    const statics = [...element.matchAll(/from\s*"\.\/([^"]+\.js)"/g)].map((m) => m[1]);
    const later = [...element.matchAll(/import\(\s*"\.\/([^"]+\.js)"\s*\)/g)].map((m) => m[1]);
    assert.ok(statics.length > 0 && later.length === 1 && /-later-/.test(later[0]), `static chunks ${statics}, later ${later}`);
    const first = [element, ...statics.map(read)].join('\n');
    const laterCode = later.map(read).join('\n');
    for (const [what, marker] of LATER_CODE) {
      assert.ok(!first.includes(marker), `${what} (${marker}) is in the code the first frame waits for`);
      assert.ok(laterCode.includes(marker), `${what} (${marker}) is not in the later chunk`);
    }
    // the share-link codec (its DEFLATE) is a module of its own, imported after the first frame
    assert.ok(!first.includes('is not base64url') && read('link.js').includes('is not base64url'), 'the link codec is in the code the first frame waits for');
    const styles = read('kraft-playground.css');
    const laterStyles = read('kraft-playground-later.css');
    for (const rule of LATER_STYLES) {
      assert.ok(!styles.includes(rule), `kraft-playground.css has ${rule}`);
      assert.ok(laterStyles.includes(rule), `kraft-playground-later.css lacks ${rule}`);
    }
  });

  test("the link codec comes after the first frame: held back, the run is drawn and `ready` waits for it; then the run's link is made", async () => {
    const page = await browser.context.newPage();
    const release = await holdBack(page, /\/link\.js$/);
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(watchFirstFrame);
    await page.goto(`${server.url}?seed=42`);
    await page.waitForFunction(() => window.__firstFrameMs !== undefined, null, { timeout: 60_000 });
    await page.evaluate(() => {
      window.__ready = false;
      document.querySelector('kraft-playground').ready.then(() => {
        window.__ready = true;
      });
    });
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.__ready), false, 'ready before the link codec arrived');
    release();
    await page.waitForFunction(() => window.__ready, null, { timeout: 10_000 });
    assert.match(await page.evaluate(() => document.querySelector('kraft-playground').shareUrl()), /#run=k2\./);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the logs come with the later chunk: held back, their panel waits empty; once it arrives they are drawn', async () => {
    // their code is not in the element module the first frame waits for
    assert.ok(!readFileSync(join(dist, 'kraft-playground.js'), 'utf8').includes('kp-logs-canvas'), 'kraft-playground.js holds the logs');
    const page = await browser.context.newPage();
    const release = await holdBack(page, /-later-[^/]*\.js$/);
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(watchFirstFrame);
    await page.goto(`${server.url}?seed=42`);
    await page.waitForFunction(() => window.__firstFrameMs !== undefined, null, { timeout: 60_000 });
    assert.equal(await page.locator('kraft-playground .kp-logs-panel .kp-logs').count(), 1, 'the logs have their place');
    assert.equal(await page.locator('kraft-playground .kp-logs-canvas').count(), 0, 'no logs yet: their chunk is held back');
    release();
    await page.locator('kraft-playground .kp-logs-canvas').waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-logs-canvas').getBoundingClientRect().height > 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('help asked for before its chunk has arrived opens once it does; a node tapped then opens its menu', async () => {
    const page = await browser.context.newPage();
    let release;
    const held = new Promise((r) => {
      release = r;
    });
    let asked = 0;
    await page.route(/-later-[^/]*\.js$/, async (route) => {
      asked++;
      await held;
      await route.continue();
    });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}?seed=42`);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    await page.evaluate(() => document.querySelector('kraft-playground').ready);
    await page.waitForFunction(() => true);
    await page.locator('kraft-playground [data-action="help"]').click();
    await page.waitForTimeout(300);
    assert.ok(asked >= 1, 'the chunk was asked for');
    assert.equal(await page.locator('kraft-playground dialog.kp-dialog').count(), 0, 'no help yet: its chunk is held back');
    release();
    await page.locator('kraft-playground dialog.kp-dialog').waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await page.locator('kraft-playground dialog.kp-dialog h2').textContent(), /How to read the playground/);
    await page.locator('kraft-playground dialog.kp-dialog [data-action="close"]').click();
    await page.locator('kraft-playground .kp-node-btn[data-node="0"]').click();
    await page.locator('kraft-playground .kp-menu').waitFor({ state: 'visible' });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("Export, the timeline's keys and Share used before their chunk has arrived act, in that order, once it does", async () => {
    const page = await browser.context.newPage();
    let release;
    const held = new Promise((r) => {
      release = r;
    });
    await page.route(/-later-[^/]*\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}?seed=42&autoplay=0`);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    await page.evaluate(() => document.querySelector('kraft-playground').ready);
    await page.locator('kraft-playground [data-action="export"]').click();
    const tl = page.locator('kraft-playground .kp-tl');
    await tl.focus();
    await page.keyboard.press('ArrowDown');
    await page.locator('kraft-playground [data-action="share"]').click();
    await page.waitForTimeout(300);
    assert.equal(await page.locator('kraft-playground .kp-export-menu').count(), 0, 'no export menu yet: its chunk is held back');
    assert.ok(await page.locator('kraft-playground .kp-tl > .kp-tip').isHidden(), 'no tooltip yet');
    assert.equal(await page.locator('kraft-playground dialog.kp-dialog').count(), 0, 'no share dialog yet');
    release();
    await page.locator('kraft-playground dialog.kp-dialog').waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await page.locator('kraft-playground [data-share-url]').inputValue(), /#run=k2\./);
    assert.ok(await page.locator('kraft-playground .kp-export-menu').isVisible(), 'the export menu opened');
    assert.equal(await page.locator('kraft-playground [data-action="export"]').getAttribute('aria-expanded'), 'true');
    assert.ok(await page.locator('kraft-playground .kp-tl > .kp-tip').isVisible(), 'the key picked an event on the timeline');
    assert.ok((await page.locator('kraft-playground .kp-tl > .kp-tip .kp-tip-h').textContent()).length > 0);
    await page.locator('kraft-playground dialog.kp-dialog [data-action="close"]').click();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
