#!/usr/bin/env node
// Startup benchmark (not a test):
//   1. Node: `await init()` of the package's Node entry (web/dist/node.js), each in a
//      fresh process (the compiled module is cached within a process).
//   2. Chromium: the built site's main page (www/dist via scripts/serve.mjs) on a
//      throttled network (CDP Network.emulateNetworkConditions), each load in a fresh
//      browser context (empty cache): the time until the ring has drawn a running
//      cluster (the first frame after the cluster's clock has moved, its stylesheet
//      applied), the bytes transferred until then, and how often and how early the wasm
//      was requested.
//   node scripts/bench-startup.mjs [--node-runs 15] [--runs 5] [--mbps 10] [--rtt 40] [--json FILE]
//     [--site DIR] [--node-entry FILE]   (another build to compare with, e.g. main's)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { loadToFirstFrame, root, serve, watchFirstFrame } from '../test/browser/harness.mjs';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const nodeRuns = Number(arg('node-runs', 15));
const runs = Number(arg('runs', 5));
const mbps = Number(arg('mbps', 10));
const rtt = Number(arg('rtt', 40));
const jsonOut = arg('json', null);
const site = arg('site', undefined);
const nodeEntry = arg('node-entry', join(root, 'web/dist/node.js'));

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { runs: s.length, median: s[Math.floor((s.length - 1) / 2)], best: s[0], worst: s[s.length - 1] };
};
const ms = (o) => `median ${o.median.toFixed(1)} ms (best ${o.best.toFixed(1)}, worst ${o.worst.toFixed(1)}, ${o.runs} runs)`;

// ---- 1. Node init -------------------------------------------------------------------------
const entry = pathToFileURL(nodeEntry).href;
const probe = `const m = await import(${JSON.stringify(entry)}); const t = performance.now(); await m.init(); console.log(performance.now() - t);`;
const initMs = [];
for (let i = 0; i < nodeRuns; i++) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench-startup: the Node probe failed: ${r.stderr}`);
  initMs.push(Number(r.stdout.trim()));
}
const node = stats(initMs);
console.log(`bench-startup: Node init() (${nodeEntry}, fresh process each): ${ms(node)}`);

// ---- 2. Chromium, throttled -----------------------------------------------------------------
// What had arrived by the first frame with a running cluster (`watchFirstFrame` in the page).
function arrivedByFirstFrame() {
  const t = window.__firstFrameMs;
  const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  const done = entries.filter((e) => e.responseEnd > 0 && e.responseEnd <= t);
  const wasm = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm'));
  const script = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/kraft-playground.js'));
  return {
    ms: t,
    bytes: done.reduce((s, e) => s + e.transferSize, 0),
    files: done.length,
    wasmEntries: wasm.length,
    wasmStart: wasm[0]?.startTime ?? null,
    wasmEnd: wasm[0]?.responseEnd ?? null,
    scriptEnd: script?.responseEnd ?? null,
  };
}

const server = await serve(site);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const loads = [];
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: rtt,
      downloadThroughput: (mbps * 1e6) / 8,
      uploadThroughput: (mbps * 1e6) / 8,
    });
    // The network log: every request the page made for the wasm, and what was sent.
    const wasmRequests = [];
    const encodings = {};
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.request.url.endsWith('.wasm')) wasmRequests.push(e.request.url);
    });
    cdp.on('Network.responseReceived', (e) => {
      const enc = e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? 'identity';
      encodings[enc] = (encodings[enc] ?? 0) + 1;
    });
    await page.addInitScript(watchFirstFrame);
    await loadToFirstFrame(page, server.url);
    const r = await page.evaluate(arrivedByFirstFrame);
    loads.push({ ...r, wasmRequests: wasmRequests.length, encodings });
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
const frame = stats(loads.map((l) => l.ms));
const bytes = stats(loads.map((l) => l.bytes));
const last = loads[loads.length - 1];
console.log(`bench-startup: Chromium at ${mbps} Mbps / ${rtt} ms RTT, main page (${site ?? 'www/dist'}), empty cache:`);
console.log(`  first frame (ring drawn, cluster running): ${ms(frame)}`);
console.log(`  transferred until then: median ${(bytes.median / 1000).toFixed(1)} kB (${last.files} responses, encodings ${JSON.stringify(last.encodings)})`);
console.log(
  `  wasm requests per load: ${[...new Set(loads.map((l) => l.wasmRequests))].join(', ')}; wasm requested at ${stats(loads.map((l) => l.wasmStart)).median.toFixed(0)} ms ` +
    `and arrived at ${stats(loads.map((l) => l.wasmEnd)).median.toFixed(0)} ms (kraft-playground.js arrived at ${stats(loads.map((l) => l.scriptEnd)).median.toFixed(0)} ms)`,
);
if (jsonOut) {
  writeFileSync(
    jsonOut,
    `${JSON.stringify(
      {
        targets: { nodeInitMs: 10, firstFrameMs: 450 },
        nodeInitMs: node,
        network: { mbps, rttMs: rtt },
        firstFrameMs: frame,
        bytesUntilFirstFrame: bytes,
        wasmRequestsPerLoad: loads.map((l) => l.wasmRequests),
        wasmStartMs: loads.map((l) => l.wasmStart),
        wasmEndMs: loads.map((l) => l.wasmEnd),
        scriptEndMs: loads.map((l) => l.scriptEnd),
      },
      null,
      2,
    )}\n`,
  );
}
