#!/usr/bin/env node
// `npm run bench`: every number issue 11 sets a target for, measured on the built package
// and site, printed as one table (each number beside its target, met or not) and written
// as JSON to target/bench.json. Speed is measured here, never asserted in tests.
//   node scripts/bench.mjs [--raftscope DIR]     (or RAFTSCOPE=DIR; without it the
//                                                  RaftScope row is skipped)
//   node scripts/bench.mjs --case NAME           one measurement, as JSON (run in its own
//                                                  process: a wasm instance never shrinks)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { loadRaftScope } from './bench-raftscope.mjs';
import { measuredOn, renderTable, writeBenchmarks } from './bench-report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const here = fileURLToPath(import.meta.url);
const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const quantile = (xs, p) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const median = (xs) => quantile(xs, 0.5);
const MIB = 2 ** 20;

/** The reference workload of the throughput target. */
const REFERENCE = { voters: 5, observers: 2, writesPerSecond: 100, network: 'datacenter', stableLeadership: true };

async function pkg() {
  const kp = await import(new URL('../web/dist/node.js', import.meta.url).href);
  await kp.init();
  return kp;
}

/** The UI's store of the core's lanes (web/src/ui/common/store.ts), bundled from source over the built package's API. */
async function uiStore() {
  const dir = mkdtempSync(join(tmpdir(), 'kp-bench-store-'));
  try {
    const outfile = join(dir, 'store.mjs');
    const api = { name: 'the-built-api', setup: (b) => b.onResolve({ filter: /(^|\/)api\.js$/ }, () => ({ path: new URL('../web/dist/node.js', import.meta.url).href, external: true })) };
    await build({ entryPoints: [join(root, 'web/src/ui/common/store.ts')], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning', plugins: [api] });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The window a scrub step draws: the 10 s before now. */
const SCRUB_WINDOW_MS = 10_000;

/** The busy hour of the scrubbing target: 7 voters, 20 writes/s, a crash a minute. */
function busyHour(Cluster) {
  const c = Cluster.createSync({ voters: 7, seed: 42, writesPerSecond: 20 });
  for (let minute = 0; minute < 60; minute++) {
    c.advance(30_000);
    c.crash(minute % 7);
    c.advance(30_000);
    c.restart(minute % 7);
  }
  return c;
}

/**
 * Wasm memory after one `advance(ms)` (an instance never shrinks: this is its peak), and
 * what the run holds at its end, by holder, as the core's memory budget counts it.
 */
async function peakMemory(options, ms) {
  const { Cluster } = await pkg();
  const t = performance.now();
  const c = Cluster.createSync(options);
  c.advance(ms);
  return { peakBytes: c.__wasmMemoryBytes(), wallS: (performance.now() - t) / 1000, held: c.__memoryUsage() };
}

const cases = {
  /**
   * Ours in wasm vs RaftScope's model, interleaved repetitions in one process. Each side
   * is timed in wall time and in this process's CPU time (`process.cpuUsage`: the machine
   * may be shared, and a stall lands on one side of a pair only); the target is judged on
   * the wall ratio, the CPU ratio and the pairs' spread say how far to trust it.
   */
  async throughput() {
    const { Cluster } = await pkg();
    const dir = arg('raftscope') ?? process.env.RAFTSCOPE;
    const raftscope = dir ? loadRaftScope(dir) : null;
    const cpuMs = (u) => (u.user + u.system) / 1000;
    const ours = { wall: [], cpu: [] };
    const theirs = { wall: [], cpu: [] };
    const ratios = { wall: [], cpu: [] };
    let events = 0;
    for (let rep = 0; rep < 7; rep++) {
      const u = process.cpuUsage();
      const t = performance.now();
      const c = Cluster.createSync({ ...REFERENCE, seed: rep + 1 });
      c.advance(60_000);
      const wall = (performance.now() - t) / 1000;
      const cpu = cpuMs(process.cpuUsage(u)) / 1000;
      if (c.violations().length) throw new Error(`the reference run broke an invariant: ${c.violations()[0].text}`);
      events = c.eventCount;
      c.dispose();
      ours.wall.push(60 / wall);
      ours.cpu.push(60 / cpu);
      if (raftscope) {
        const r = raftscope(60);
        if (r.commits < 5_400) throw new Error(`RaftScope's model committed ${r.commits} of 6,000 requests: not the workload`);
        theirs.wall.push(r.simulatedS / (r.wallMs / 1000));
        theirs.cpu.push(r.simulatedS / (r.cpuMs / 1000));
        for (const k of ['wall', 'cpu']) ratios[k].push(ours[k].at(-1) / theirs[k].at(-1));
      }
    }
    // The first repetition of each warms the JIT and the wasm instance up.
    const drop = (xs) => xs.slice(1);
    const summary = (xs) => ({ median: median(drop(xs)), min: Math.min(...drop(xs)), max: Math.max(...drop(xs)) });
    return {
      wasm: median(drop(ours.wall)),
      wasmCpu: median(drop(ours.cpu)),
      events,
      raftscope: raftscope ? median(drop(theirs.wall)) : null,
      raftscopeCpu: raftscope ? median(drop(theirs.cpu)) : null,
      ratio: raftscope ? median(drop(ratios.wall)) : null,
      wallRatio: raftscope ? summary(ratios.wall) : null,
      cpuRatio: raftscope ? summary(ratios.cpu) : null,
      pairs: raftscope ? drop(ratios.wall).length : 0,
    };
  },

  /**
   * Scrub steps in the busy hour, as the UI takes them (web/src/ui/element/element.ts): a
   * Player with the UI's options (a seek's frame carries no events), and after each frame
   * the lanes of the 10 s before now from the store (`Store.window`: the core's projection,
   * or what it holds). Pairs of steps: a jump anywhere (seek, the window's lanes) and a step
   * 10 s forward (seek, its lanes); then 20 steps 11-35 s on, each after a jump (apart from
   * the 80). Each step timed whole, in wall time and in this process's CPU time
   * (`process.cpuUsage`: the machine may be shared); the store's part timed apart; the seek
   * alone, the same window as JSON with every text, and a forward step's events as JSON
   * with every text measured after, so their garbage does not land in the UI's steps.
   */
  async seek() {
    const { Cluster, Player } = await pkg();
    const { Store } = await uiStore();
    const c = busyHour(Cluster);
    const end = c.now;
    const store = new Store();
    store.attach(c);
    let ingestMs = 0;
    let spans = 0;
    const player = new Player(c, { packed: { text: false, batches: true }, maxEvents: 50_000, maxSeekMs: 0, scheduler: { request: () => 0, cancel: () => {} } });
    player.subscribe((f) => {
      const a = performance.now();
      spans += store.window(f.now - SCRUB_WINDOW_MS, f.now, f.now).msgs.length;
      ingestMs += performance.now() - a;
    });
    const cpuMs = (u) => (u.user + u.system) / 1000;
    const steps = { jump: { wall: [], cpu: [], ingest: [] }, forward: { wall: [], cpu: [], ingest: [] }, long: { wall: [], cpu: [], ingest: [] } };
    const step = (kind, t) => {
      ingestMs = 0;
      const u = process.cpuUsage();
      const a = performance.now();
      player.seek(t);
      steps[kind].wall.push(performance.now() - a);
      steps[kind].cpu.push(cpuMs(process.cpuUsage(u)));
      steps[kind].ingest.push(ingestMs);
    };
    let t = 7_919;
    for (let i = 0; i < 40; i++) {
      t = (t * 7_919 + 104_729) % (end - SCRUB_WINDOW_MS);
      step('jump', t);
      step('forward', t + SCRUB_WINDOW_MS);
    }
    // longer steps on (10-35 s), apart from the 80: each after a jump
    for (let i = 0; i < 20; i++) {
      t = (t * 7_919 + 104_729) % (end - 3.5 * SCRUB_WINDOW_MS);
      player.seek(t);
      step('long', t + SCRUB_WINDOW_MS + 1_000 + ((i * 1_237) % (2.5 * SCRUB_WINDOW_MS - 1_000)));
    }
    const seeks = [];
    const withText = [];
    const forwardJson = [];
    for (let i = 0; i < 20; i++) {
      t = (t * 7_919 + 104_729) % (end - SCRUB_WINDOW_MS);
      let a = performance.now();
      c.seek(t);
      seeks.push(performance.now() - a);
      a = performance.now();
      c.events({ from: c.now - SCRUB_WINDOW_MS, to: c.now });
      withText.push(performance.now() - a);
      const since = c.lastSeq;
      a = performance.now();
      c.seek(t + SCRUB_WINDOW_MS);
      for (let cursor = since; cursor < c.lastSeq; ) cursor = c.events({ since: cursor }).at(-1).seq;
      forwardJson.push(performance.now() - a);
    }
    const all = (k) => [...steps.jump[k], ...steps.forward[k]];
    const sum = (xs) => ({ median: median(xs), worst: Math.max(...xs) });
    return {
      median: median(all('wall')),
      worst: Math.max(...all('wall')),
      cpu: sum(all('cpu')),
      jump: { wall: sum(steps.jump.wall), cpu: sum(steps.jump.cpu), ingest: sum(steps.jump.ingest) },
      forward: { wall: sum(steps.forward.wall), cpu: sum(steps.forward.cpu), ingest: sum(steps.forward.ingest) },
      long: { wall: sum(steps.long.wall), cpu: sum(steps.long.cpu) },
      spansPerStep: Math.round(spans / 80),
      seekMedian: median(seeks),
      seekWorst: Math.max(...seeks),
      withTextMedian: median(withText),
      forwardJsonMedian: median(forwardJson),
    };
  },

  /** `init()` in a fresh process (compiling and instantiating the wasm). */
  async init() {
    const t = performance.now();
    const { init } = await import(new URL('../web/dist/node.js', import.meta.url).href);
    const imported = performance.now();
    await init();
    return { init: performance.now() - imported, importMs: imported - t };
  },

  /** Peak wasm memory: an hour of 7 voters at 20 writes/s in one advance. */
  hour: () => peakMemory({ voters: 7, seed: 42, writesPerSecond: 20 }, 3_600_000),

  /** Peak wasm memory: a 24-hour run in one advance (3 voters at 10 writes/s). */
  day: () => peakMemory({ voters: 3, seed: 42, writesPerSecond: 10 }, 86_400_000),
};

const only = arg('case');
if (only) {
  process.stdout.write(JSON.stringify(await cases[only]()));
  process.exit(0);
}

/** One measurement in its own process. */
const run = (name, script = here, args = ['--case', name]) => {
  const extra = arg('raftscope') ? ['--raftscope', arg('raftscope')] : [];
  const out = execFileSync(process.execPath, [script, ...args, ...extra], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').at(-1));
};
const say = (s) => process.stderr.write(`bench: ${s}\n`);

const rows = [];
/** A row: what, the number, its unit, the target (`<=`, `<` or `>=` a bound; none: reported). */
const row = (what, value, unit, op = null, bound = null, note = '') => {
  const met = value === null || op === null ? null : op === '<=' ? value <= bound : op === '<' ? value < bound : value >= bound;
  rows.push({ what, value, unit, target: op ? `${op} ${bound}` : 'reported', met, note });
};
const round = (x, digits = 1) => (x === null ? null : Number(x.toFixed(digits)));

say('throughput, wasm vs RaftScope (interleaved)');
const tp = run('throughput');
row(
  'wasm throughput, reference workload (sim s per wall s)',
  round(tp.wasm, 0),
  'sim s/s',
  null,
  null,
  `${tp.events} events per 60 s run; 5 voters + 2 observers, 100 writes/s, datacenter, all checks, trace`,
);
if (tp.ratio === null) {
  rows.push({
    what: 'RaftScope ratio (ours in wasm / RaftScope model)',
    value: null,
    unit: 'x',
    target: '>= 6',
    met: null,
    note: 'skipped: set RAFTSCOPE=DIR or --raftscope DIR (a checkout of ongardie/raftscope)',
  });
} else {
  const spread = (r) => `${round(r.min, 2)}-${round(r.max, 2)}x`;
  row(
    'RaftScope ratio (ours in wasm / RaftScope model)',
    round(tp.ratio, 2),
    'x',
    '>=',
    6,
    `wall, median of ${tp.pairs} interleaved pairs (spread ${spread(tp.wallRatio)}); CPU ratio ${round(tp.cpuRatio.median, 2)}x (spread ${spread(tp.cpuRatio)}); RaftScope ${round(tp.raftscope, 0)} sim s per wall s, ${round(tp.raftscopeCpu, 0)} per CPU s`,
  );
  Object.assign(rows.at(-1), { wall: tp.wallRatio, cpu: tp.cpuRatio });
}

say('scrub steps in the busy hour');
const sk = run('seek');
const ms = (x) => `${round(x, 1)} ms`;
row(
  'scrub step (seek + the lanes of the 10 s window), busy hour: median',
  round(sk.median),
  'ms',
  '<=',
  20,
  `wall, 40 jumps + 40 steps 10 s on; CPU ${ms(sk.cpu.median)}; ${sk.spansPerStep} message spans per step; seek alone ${round(sk.seekMedian, 2)} ms`,
);
row('scrub step, busy hour: worst', round(sk.worst), 'ms', '<=', 40, `wall; CPU ${ms(sk.cpu.worst)}; seek alone worst ${round(sk.seekWorst, 2)} ms`);
row(
  'scrub jump (seek, the core projects the window)',
  round(sk.jump.wall.median),
  'ms',
  null,
  null,
  `median; worst ${ms(sk.jump.wall.worst)}; CPU ${ms(sk.jump.cpu.median)}, worst ${ms(sk.jump.cpu.worst)}; lanes ${ms(sk.jump.ingest.median)}; window's events as JSON with every text ${ms(sk.withTextMedian)}`,
);
row(
  'scrub step 10 s forward (seek, the core projects the window)',
  round(sk.forward.wall.median),
  'ms',
  null,
  null,
  `median; worst ${ms(sk.forward.wall.worst)}; CPU ${ms(sk.forward.cpu.median)}, worst ${ms(sk.forward.cpu.worst)}; lanes ${ms(sk.forward.ingest.median)}; its events as JSON with every text ${ms(sk.forwardJsonMedian)}`,
);

row(
  'scrub step 11-35 s forward (seek, the core projects the window)',
  round(sk.long.wall.median),
  'ms',
  null,
  null,
  `median of 20; worst ${ms(sk.long.wall.worst)}; CPU ${ms(sk.long.cpu.median)}, worst ${ms(sk.long.cpu.worst)}`,
);

say('frame work at 100x (Chromium)');
const ui = run('ui', join(root, 'scripts/bench-ui.mjs'), ['--voters', '7', '--observers', '4', '--writes', '20', '--speed', '100', '--seconds', '8', '--json']);
row('frame work at 100x, 7 voters + 4 observers, 20 writes/s: p95', round(ui.work.p95), 'ms', '<=', 8, `median ${round(ui.work.median)} ms; ${ui.frames} frames`);
row('frame work at 100x: p99', round(ui.work.p99), 'ms', '<=', 16, `kept ${round(ui.achievedSpeed)}x of 100x`);

say('Node init');
const inits = [];
for (let i = 0; i < 15; i++) inits.push(run('init').init);
row('Node init()', round(median(inits)), 'ms', '<=', 10, `median of 15 fresh processes (${round(Math.min(...inits))}-${round(Math.max(...inits))})`);

say('first frame and transfer at 10 Mbps / 40 ms RTT (Chromium)');
// 11 loads: one load's first frame moves by +-50-100 ms on a shared 2-core host, and the
// median of 7 moved by 30-50 ms between runs minutes apart
const LOADS = 11;
const load = run('load', join(root, 'scripts/bench-load.mjs'), ['--json', '--loads', String(LOADS)]);
row(
  'first frame, 10 Mbps / 40 ms RTT, throttled Chromium',
  round(load.firstFrameMs, 0),
  'ms',
  '<=',
  450,
  `median of ${LOADS} cold loads (${Math.min(...load.loads)}-${Math.max(...load.loads)}), gzip served`,
);
row(
  "first frame's floor on this host: the same requests, nothing run",
  round(load.floorMs, 0),
  'ms',
  null,
  null,
  `median of ${LOADS} loads interleaved with those above (${Math.min(...load.floors)}-${Math.max(...load.floors)}); the page's own work adds ${round(load.firstFrameMs - load.floorMs, 0)} ms`,
);
row('main page transfer until a running cluster is drawn', round(load.transferBytes / 1000), 'KB gzip', '<=', 250, `${load.requests} requests`);
row('core wasm the main page loads', round(load.wasmGzipBytes / 1000), 'KB gzip', '<=', 190, load.wasmFile);

say('peak wasm memory');
/** What a run holds at its end, as the core's memory budget counts it (its estimates per holder, not bytes measured). */
const held = (m) => {
  const mb = (x) => `${round(x / MIB)} MiB`;
  return `held at the end (budget's count): logs ${mb(m.logs)}, images ${mb(m.images)}, checker ${mb(m.checker)}, ${m.checkpointCount} checkpoints ${mb(m.checkpoints)} own, events ${mb(m.events)}`;
};
const hour = run('hour');
row('peak wasm memory, 1 h of 7 voters at 20 writes/s in one advance', round(hour.peakBytes / MIB), 'MiB', '<', 128, `${round(hour.wallS)} s wall; ${held(hour.held)}`);
Object.assign(rows.at(-1), { held: hour.held });
const day = run('day');
row('peak wasm memory, 24 h run in one advance (3 voters, 10 writes/s)', round(day.peakBytes / MIB), 'MiB', null, null, `${round(day.wallS)} s wall; ${held(day.held)}`);
Object.assign(rows.at(-1), { held: day.held });

const native = execFileSync('cargo', ['run', '--release', '-q', '-p', 'kraft-sim', '--example', 'reference', '--', '5'], { cwd: root, encoding: 'utf8' });
const nativeRate = Number(/median (\d+)/.exec(native)?.[1]);
row('native throughput, reference workload (sim s per wall s)', nativeRate, 'sim s/s', null, null, 'cargo run --example reference');

const results = { date: new Date().toISOString(), ...measuredOn(root), rows };
mkdirSync(join(root, 'target'), { recursive: true });
writeFileSync(join(root, 'target/bench.json'), `${JSON.stringify(results, null, 1)}\n`);
writeBenchmarks(join(root, 'target/bench.json'), join(root, 'docs/benchmarks.md'));

console.log(renderTable(rows));
console.log(`(also in target/bench.json and docs/benchmarks.md)`);
