#!/usr/bin/env node
// Startup benchmark (not a test): the main page in headless Chromium throttled to
// 10 Mbps down and up with 40 ms round trips (CDP network emulation), served in gzip
// (or brotli with --encoding br: the page asks for it explicitly).
// Measures, per cold load (empty cache), the time from navigation until the first
// animation frame in which a running cluster is drawn (the element holds a cluster whose
// clock has moved, has drawn its nodes, and its stylesheet has applied; the main page
// autoplays), and the bytes transferred until then (what the element loads after that
// frame is not counted); reports the median load.
// Interleaved with those loads, the same count of the host's floor: a page that makes
// the main page's requests (its head, scripts preloaded instead of run) and draws one
// canvas once they have all arrived. What the page's own work adds is the difference.
//   node scripts/bench-load.mjs [--loads 3] [--encoding gzip|br] [--json] [--site DIR]
//     (--site: another build to compare with, e.g. main's www/dist)
//   node scripts/bench-load.mjs --against DIR [--loads 12] [--site DIR]
//     A/B: cold loads of DIR (A) and of the site (B) in interleaved pairs, the order
//     alternating; prints each pair and the medians of A, B and B-A. A change to the
//     page's startup moves the first frame by less than one load's spread (+-50 ms on a
//     shared 2-core host), so it is judged by the paired difference, not by two benches.
//     Its own noise: a build against a copy of itself gave B-A medians of -9 to +20 ms in
//     runs of 6-8 pairs on an AMD EPYC host, and -6 and -20 ms in runs of 24 pairs on an
//     Intel host 2.6x slower; an effect below about 20-30 ms is not seen this way.
//   node scripts/bench-load.mjs --phases [--loads 5] [--site DIR]
//     Where a load's time goes, per cold load and as medians (ms since navigation): the
//     element's module and the wasm arrived, the module graph ran (the element defined),
//     DOMContentLoaded, the early compile resolved, the element ready, the first frame;
//     the main thread's long tasks; and on Linux the CPU time of each Chromium process
//     kind during the load (read from /proc), which says whether the host's cores were
//     saturated (the first frame then waits on CPU, not on the network).
//   node scripts/bench-load.mjs --profile [--loads 3] [--site DIR] [--top 30] [--under NAME]
//     The renderer main thread's CPU profile from navigation to the first frame (sampled
//     every 0.2 ms), as mean ms per load: the functions by self time and by inclusive
//     time, and with --under NAME the call tree below each function of that name
//     ("(program)" is the browser's own work on that thread: style, layout, paint,
//     parsing and compiling). Build with the source's names for it:
//     KP_KEEP_NAMES=1 node web/build.mjs && KP_KEEP_NAMES=1 node www/build.mjs
//     (then build again without it).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, loadToFirstFrame, serve, watchFirstFrame } from '../test/browser/harness.mjs';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const loads = Number(arg('loads', 3));
const encoding = arg('encoding', 'gzip');
const json = process.argv.includes('--json');
const site = arg('site', undefined);
const against = arg('against', undefined);
const phases = process.argv.includes('--phases');
const profile = process.argv.includes('--profile');
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/**
 * The site's files and floor.html: the main page's head with each module script turned
 * into a modulepreload, and a script that draws a canvas once every request the main
 * page makes before its first frame (`want`, by path) has finished.
 */
function floorSite(dir, want) {
  const out = mkdtempSync(join(tmpdir(), 'kp-floor-'));
  for (const f of readdirSync(dir)) symlinkSync(join(dir, f), join(out, f));
  const head = readFileSync(join(dir, 'index.html'), 'utf8')
    .match(/<head>([\s\S]*)<\/head>/)[1]
    .replace(/<script type="module" src="([^"]+)"><\/script>/g, '<link rel="modulepreload" href="$1">');
  const img = want.filter((p) => p.endsWith('.svg')).map((p) => `<img src="${p.slice(1)}" alt="" width="28" height="28">`);
  // what the main page's scripts asked for before its first frame was seen (the story;
  // on a slow load, what it asks for just after that frame): asked for here by the head
  const inHead = new Set([...head.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => `/${m[1]}`));
  const more = want
    .filter((p) => p !== '/' && !p.endsWith('.svg') && !inHead.has(p))
    .map((p) => (p.endsWith('.js') ? `<link rel="modulepreload" href="${p.slice(1)}">` : `<link rel="preload" href="${p.slice(1)}" as="fetch" crossorigin>`));
  writeFileSync(
    join(out, 'floor.html'),
    `<!doctype html>\n<html lang="en">\n<head>${head}${more.join('')}<script type="module" src="floor.js"></script>\n</head>\n<body>${img.join('')}<canvas width="600" height="300"></canvas></body>\n</html>\n`,
  );
  writeFileSync(
    join(out, 'floor.js'),
    `const want = new Set(${JSON.stringify(want.filter((p) => p !== '/'))});
const drawn = () => requestAnimationFrame(() => {
  document.querySelector('canvas').getContext('2d').fillRect(10, 10, 100, 50);
  requestAnimationFrame(() => setTimeout(() => { window.__firstFrameMs = performance.now(); console.debug('kraft-playground: first frame'); }, 0));
});
new PerformanceObserver((l, o) => {
  for (const e of l.getEntries()) want.delete(new URL(e.name).pathname);
  if (want.size === 0) { o.disconnect(); drawn(); }
}).observe({ type: 'resource', buffered: true });
`,
  );
  return out;
}

/**
 * --phases: the page's milestones, recorded from an init script (nothing in the page
 * changes): the early compile the pages' first script publishes, the element's `ready`,
 * DOMContentLoaded and the long tasks.
 */
function watchPhases() {
  const p = { longTasks: [] };
  window.__phases = p;
  const now = () => Math.round(performance.now());
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) p.longTasks.push([Math.round(e.startTime), Math.round(e.duration)]);
  }).observe({ type: 'longtask', buffered: true });
  document.addEventListener('DOMContentLoaded', () => {
    p.domContentLoaded = now();
  });
  let core;
  Object.defineProperty(self, 'kraftPlaygroundCore', {
    configurable: true,
    get: () => core,
    set: (v) => {
      core = v;
      v.then(
        () => {
          p.compiled = now();
        },
        () => {},
      );
    },
  });
  customElements.whenDefined('kraft-playground').then(() => {
    p.defined = now();
    document.querySelector('kraft-playground')?.ready.then(() => {
      p.ready = now();
    });
  });
}

/** CPU time (ms) so far of each thread on this machine, by process kind; null off Linux. */
function cpuByThread() {
  if (!existsSync('/proc/self/task')) return null;
  const out = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/chrom/.test(cmd) && Number(pid) !== process.pid) continue;
      const type =
        Number(pid) === process.pid
          ? 'node (this bench)'
          : (cmd
              .match(/--utility-sub-type=([\w.]+)/)?.[1]
              .split('.')
              .pop() ??
            cmd.match(/--type=([\w-]+)/)?.[1] ??
            'browser');
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // the renderer's main thread apart from its other threads
        const kind = type === 'renderer' ? (tid === pid ? 'renderer main thread' : 'renderer, other threads') : type;
        out.set(`${pid}/${tid}`, { kind, ms: (Number(f[11]) + Number(f[12])) * 10 });
      }
    } catch {
      /* the process ended meanwhile */
    }
  }
  return out;
}

/** One cold load of `url` in a fresh browser: its first frame (ms) and the responses finished by then. */
async function coldLoad(url, probe) {
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
    if (probe) await page.addInitScript(watchFirstFrame);
    if (phases) await page.addInitScript(watchPhases);
    let navigatedAt = null;
    cdp.on('Network.requestWillBeSent', (e) => {
      if (navigatedAt === null) navigatedAt = e.timestamp;
    });
    const cpuBefore = phases ? cpuByThread() : null;
    if (profile) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    const firstFrameMs = await loadToFirstFrame(page, url);
    const cpuAfter = phases ? cpuByThread() : null;
    const cpuProfile = profile ? (await cdp.send('Profiler.stop')).profile : null;
    // Every response finished before the first frame (CDP times are seconds).
    const drawnAt = navigatedAt + firstFrameMs / 1000;
    const before = [...requests.values()].filter((r) => r.done !== null && r.done <= drawnAt);
    const marks = phases ? await page.evaluate(() => window.__phases) : null;
    const cpu = {};
    for (const [k, { kind, ms }] of cpuAfter ?? []) cpu[kind] = (cpu[kind] ?? 0) + ms - (cpuBefore.get(k)?.ms ?? 0);
    return { firstFrameMs, before, navigatedAt, marks, cpu: cpuAfter ? cpu : null, cpuProfile };
  } finally {
    await close();
  }
}

/** --against: interleaved pairs of cold loads, A (that build) then B (the site) or B then A. */
async function compare() {
  const a = await serve(against);
  const b = await serve(site);
  try {
    await coldLoad(a.url, true);
    await coldLoad(b.url, true);
    const pairs = [];
    for (let i = 0; i < loads; i++) {
      const order = i % 2 === 0 ? [a, b] : [b, a];
      const ms = new Map();
      for (const s of order) ms.set(s, (await coldLoad(s.url, true)).firstFrameMs);
      const pair = { a: ms.get(a), b: ms.get(b) };
      pairs.push(pair);
      console.log(`  pair ${i + 1}: A ${Math.round(pair.a)} ms, B ${Math.round(pair.b)} ms, B-A ${Math.round(pair.b - pair.a)} ms`);
    }
    const m = (f) => Math.round(median(pairs.map(f)));
    const worse = pairs.filter((p) => p.b > p.a).length;
    console.log(`bench-load A/B, ${loads} pairs: A ${m((p) => p.a)} ms, B ${m((p) => p.b)} ms, B-A ${m((p) => p.b - p.a)} ms (B slower in ${worse} of ${loads})`);
  } finally {
    a.stop();
    b.stop();
  }
}
if (against) {
  await compare();
  process.exit(0);
}

/** --phases: each load's milestones and CPU, then the medians. */
async function phaseLoads() {
  const s = await serve(site);
  try {
    await coldLoad(s.url, true);
    const rows = [];
    for (let i = 0; i < loads; i++) {
      const { firstFrameMs, before, navigatedAt, marks, cpu } = await coldLoad(s.url, true);
      const at = (suffix) => {
        const r = before.find((x) => new URL(x.url).pathname.endsWith(suffix));
        return r ? Math.round((r.done - navigatedAt) * 1000) : null;
      };
      const row = {
        'element module arrived': at('/kraft-playground.js'),
        'wasm arrived': at('.wasm'),
        'element defined': marks.defined ?? null,
        DOMContentLoaded: marks.domContentLoaded ?? null,
        'core compiled': marks.compiled ?? null,
        'element ready': marks.ready ?? null,
        'first frame': Math.round(firstFrameMs),
      };
      rows.push({ row, cpu });
      console.log(
        `  load ${i + 1}: ${Object.entries(row)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
      console.log(`    long tasks (start+ms): ${marks.longTasks.map(([a, d]) => `${a}+${d}`).join(' ') || 'none'}`);
      if (cpu)
        console.log(
          `    CPU ms: ${Object.entries(cpu)
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        );
    }
    const med = (f) => median(rows.map(f).filter((v) => v !== null && v !== undefined));
    console.log(`bench-load phases, medians of ${loads} cold loads (ms since navigation):`);
    for (const k of Object.keys(rows[0].row)) console.log(`  ${k.padEnd(24)} ${med((r) => r.row[k])}`);
    if (rows[0].cpu) {
      const kinds = [...new Set(rows.flatMap((r) => Object.keys(r.cpu)))];
      const total = med((r) => Object.values(r.cpu).reduce((a, b) => a + b, 0));
      console.log(`  CPU during a load, median ms (of ${med((r) => r.row['first frame'])} ms x ${availableParallelism()} cores; 10 ms ticks): all ${total}`);
      for (const k of kinds.sort((a, b) => med((r) => r.cpu[b] ?? 0) - med((r) => r.cpu[a] ?? 0))) console.log(`    ${k.padEnd(24)} ${med((r) => r.cpu[k] ?? 0)}`);
    }
  } finally {
    s.stop();
  }
}
if (phases) {
  await phaseLoads();
  process.exit(0);
}

/**
 * --profile: each sample from navigation to the first frame charged to its function
 * (self) and once to each function on its stack (inclusive); sums over the loads.
 */
async function profileLoads() {
  const top = Number(arg('top', 30));
  const under = arg('under', undefined);
  const self = new Map();
  const inclusive = new Map();
  const trees = [];
  const busy = [];
  const s = await serve(site);
  try {
    await coldLoad(s.url, true);
    for (let i = 0; i < loads; i++) {
      const { firstFrameMs, navigatedAt, cpuProfile: p } = await coldLoad(s.url, true);
      const node = new Map(p.nodes.map((n) => [n.id, n]));
      const parent = new Map();
      for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
      const name = (id) => {
        const f = node.get(id).callFrame;
        return `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
      };
      // CDP's profile and network clocks are the same monotonic clock (µs and s)
      const from = navigatedAt * 1e6;
      const to = from + firstFrameMs * 1000;
      const nodeMs = new Map();
      let t = p.startTime;
      let total = 0;
      for (let k = 0; k < p.samples.length - 1; k++) {
        t += p.timeDeltas[k];
        const ms = p.timeDeltas[k + 1] / 1000;
        const id = p.samples[k];
        if (t < from || t > to || node.get(id).callFrame.functionName === '(idle)') continue;
        total += ms;
        self.set(name(id), (self.get(name(id)) ?? 0) + ms);
        const onStack = new Set();
        for (let q = id; q !== undefined; q = parent.get(q)) {
          nodeMs.set(q, (nodeMs.get(q) ?? 0) + ms);
          onStack.add(name(q));
        }
        for (const f of onStack) inclusive.set(f, (inclusive.get(f) ?? 0) + ms);
      }
      busy.push(total);
      console.log(`  load ${i + 1}: first frame ${Math.round(firstFrameMs)} ms, main thread busy ${Math.round(total)} ms`);
      if (under) trees.push({ node, parent, nodeMs, name });
    }
  } finally {
    s.stop();
  }
  const mean = (ms) => (ms / loads).toFixed(1).padStart(7);
  const list = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([f, ms]) => `  ${mean(ms)}  ${f}`)
      .join('\n');
  console.log(`bench-load profile, ${loads} cold loads, navigation to first frame: main thread busy ${Math.round(median(busy))} ms (median)`);
  console.log(`self time, mean ms per load:\n${list(self)}`);
  console.log(`inclusive time, mean ms per load:\n${list(inclusive)}`);
  // the call tree below NAME, summed over the loads (6 deep; calls of 1 ms a load or more)
  const below = new Map();
  const walk = (t, id, path) => {
    const ms = t.nodeMs.get(id) ?? 0;
    if (ms < 0.5 || path.length > 6) return;
    const key = [...path, t.name(id)].join(' > ');
    below.set(key, (below.get(key) ?? 0) + ms);
    for (const c of t.node.get(id).children ?? []) walk(t, c, [...path, t.name(id)]);
  };
  const isUnder = (t, id) => t.node.get(id).callFrame.functionName === under;
  for (const t of trees) {
    for (const id of t.node.keys()) {
      // the outermost call of NAME only: a recursive one is inside its tree already
      let outer = isUnder(t, id);
      for (let q = t.parent.get(id); outer && q !== undefined; q = t.parent.get(q)) outer = !isUnder(t, q);
      if (outer) walk(t, id, []);
    }
  }
  if (under) {
    const rows = [...below].filter(([, ms]) => ms >= loads).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    console.log(`below ${under}, mean ms per load:`);
    for (const [path, ms] of rows) {
      const parts = path.split(' > ');
      console.log(`  ${mean(ms)}  ${'  '.repeat(parts.length - 1)}${parts.at(-1)}`);
    }
  }
}
if (profile) {
  await profileLoads();
  process.exit(0);
}

const server = await serve(site);
let floor = null;
let floorDir = null;
try {
  // One load first to warm the server's file cache (not part of a measurement); its
  // requests are what the floor page makes.
  const warm = await coldLoad(server.url, true);
  floorDir = floorSite(
    resolve(site ?? join(fileURLToPath(import.meta.url), '../../www/dist')),
    warm.before.map((r) => new URL(r.url).pathname),
  );
  floor = await serve(floorDir);
  const results = [];
  const floors = [];
  for (let i = 0; i < loads; i++) {
    const { firstFrameMs, before, navigatedAt } = await coldLoad(server.url, true);
    const wasm = before.find((r) => r.url.endsWith('.wasm'));
    results.push({
      firstFrameMs,
      transferBytes: before.reduce((s, r) => s + r.bytes, 0),
      requests: before.length,
      wasmGzipBytes: wasm?.bytes ?? null,
      wasmFile: wasm ? new URL(wasm.url).pathname.slice(1) : null,
      timeline: before.map((r) => `${new URL(r.url).pathname} ${Math.round((r.done - navigatedAt) * 1000)} ms`),
    });
    floors.push((await coldLoad(`${floor.url}floor.html`, false)).firstFrameMs);
  }
  results.sort((a, b) => a.firstFrameMs - b.firstFrameMs);
  floors.sort((a, b) => a - b);
  const mid = results[Math.floor(results.length / 2)];
  const floorMs = median(floors);
  if (json) console.log(JSON.stringify({ ...mid, loads: results.map((r) => Math.round(r.firstFrameMs)), floorMs, floors: floors.map(Math.round) }));
  else {
    console.log(`bench-load: 10 Mbps / 40 ms RTT, ${encoding}, ${loads} cold loads`);
    console.log(`  first frame of a running cluster: ${results.map((r) => `${Math.round(r.firstFrameMs)} ms`).join(', ')}`);
    console.log(`  the floor (the same requests, nothing run, one canvas drawn): ${floors.map((f) => `${Math.round(f)} ms`).join(', ')}`);
    console.log(`  transferred until then (median load): ${mid.transferBytes} B in ${mid.requests} requests; ${mid.wasmFile}: ${mid.wasmGzipBytes} B`);
    console.log(`  finished (median load): ${mid.timeline.join(', ')}`);
  }
} finally {
  server.stop();
  floor?.stop();
  if (floorDir) rmSync(floorDir, { recursive: true, force: true });
}
