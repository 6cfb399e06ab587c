#!/usr/bin/env node
// Startup benchmark (not a test): the main page in headless Chromium throttled to
// 10 Mbps down and up with 40 ms round trips (CDP network emulation), served in gzip
// (or brotli with --encoding br: the page asks for it explicitly).
// Measures, per cold load (empty cache), the time from navigation until the first
// animation frame in which a running cluster is drawn (the element holds a cluster whose
// clock has moved, has drawn its nodes, and its stylesheet has applied; the main page
// autoplays), and the bytes transferred until then (what the element loads after that
// frame is not counted); reports the median load.
//   node scripts/bench-load.mjs [--loads 3] [--encoding gzip|br] [--json] [--site DIR]
//     (--site: another build to compare with, e.g. main's www/dist)
import { launch, loadToFirstFrame, serve, watchFirstFrame } from '../test/browser/harness.mjs';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const loads = Number(arg('loads', 3));
const encoding = arg('encoding', 'gzip');
const json = process.argv.includes('--json');
const site = arg('site', undefined);

const server = await serve(site);
try {
  const results = [];
  // One load first to warm the server's file cache (not part of a measurement).
  for (let i = 0; i <= loads; i++) {
    const { context, close } = await launch();
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': encoding } });
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 40,
        downloadThroughput: 10e6 / 8,
        uploadThroughput: 10e6 / 8,
      });
      const requests = new Map();
      cdp.on('Network.responseReceived', (e) => requests.set(e.requestId, { url: e.response.url, bytes: 0, done: null }));
      cdp.on('Network.loadingFinished', (e) => {
        const r = requests.get(e.requestId);
        if (r) Object.assign(r, { bytes: e.encodedDataLength, done: e.timestamp });
      });
      await page.addInitScript(watchFirstFrame);
      let navigatedAt = null;
      cdp.on('Network.requestWillBeSent', (e) => {
        if (navigatedAt === null) navigatedAt = e.timestamp;
      });
      const firstFrameMs = await loadToFirstFrame(page, server.url);
      // Bytes of every response finished before the first frame (CDP times are seconds).
      const drawnAt = navigatedAt + firstFrameMs / 1000;
      const before = [...requests.values()].filter((r) => r.done !== null && r.done <= drawnAt);
      const wasm = before.find((r) => r.url.endsWith('.wasm'));
      if (i > 0) {
        results.push({
          firstFrameMs,
          transferBytes: before.reduce((s, r) => s + r.bytes, 0),
          requests: before.length,
          wasmGzipBytes: wasm?.bytes ?? null,
          wasmFile: wasm ? new URL(wasm.url).pathname.slice(1) : null,
          timeline: before.map((r) => `${new URL(r.url).pathname} ${Math.round((r.done - navigatedAt) * 1000)} ms`),
        });
      }
    } finally {
      await close();
    }
  }
  results.sort((a, b) => a.firstFrameMs - b.firstFrameMs);
  const mid = results[Math.floor(results.length / 2)];
  if (json) console.log(JSON.stringify({ ...mid, loads: results.map((r) => Math.round(r.firstFrameMs)) }));
  else {
    console.log(`bench-load: 10 Mbps / 40 ms RTT, ${encoding}, ${loads} cold loads`);
    console.log(`  first frame of a running cluster: ${results.map((r) => `${Math.round(r.firstFrameMs)} ms`).join(', ')}`);
    console.log(`  transferred until then (median load): ${mid.transferBytes} B in ${mid.requests} requests; ${mid.wasmFile}: ${mid.wasmGzipBytes} B`);
    console.log(`  finished (median load): ${mid.timeline.join(', ')}`);
  }
} finally {
  server.stop();
}
