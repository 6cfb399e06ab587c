// `npm run bench`: peak wasm memory of the memory bench cases (crate/sim/benches/memory.rs)
// in the npm package. Each case runs in its own process (an instance never shrinks).
//   node scripts/bench-memory.mjs [hour|topics|no-snapshots]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const which = process.argv[2];
if (!which) {
  for (const c of ['hour', 'topics', 'no-snapshots']) {
    process.stdout.write(execFileSync(process.execPath, [here, c], { encoding: 'utf8' }));
  }
  process.exit(0);
}
const { Cluster } = await import(new URL('../web/dist/node.js', import.meta.url).href);
const started = performance.now();
let c;
let peak = 0;
const runFor = (ms) => {
  const end = c.now + ms;
  while (c.now < end) {
    c.advance(Math.min(1000, end - c.now));
    peak = Math.max(peak, c.__wasmMemoryBytes());
  }
};
let outcome = 'finished';
try {
  if (which === 'hour') {
    c = await Cluster.create({ voters: 7, seed: 42, writesPerSecond: 20 });
    for (let minute = 0; minute < 60; minute++) {
      runFor(30_000);
      c.crash(minute % 7);
      runFor(30_000);
      c.restart(minute % 7);
    }
  } else if (which === 'topics') {
    c = await Cluster.create({ voters: 7, observers: 8, seed: 7 });
    runFor(5_000);
    for (let i = 0; i < 40; i++) {
      c.write({ type: 'CreateTopic', name: `big-${i}`, partitions: 10_000 });
      runFor(100);
    }
    runFor(3_600_000);
  } else {
    c = await Cluster.create({ voters: 3, seed: 3, writesPerSecond: 1000, snapshotInterval: 0 });
    runFor(600_000);
  }
} catch (e) {
  outcome = `stopped: ${e.message}`;
}
const wall = (performance.now() - started) / 1000;
console.log(`${which} (wasm): ${Math.round(c.now / 1000)} simulated s in ${wall.toFixed(1)} s wall, peak wasm memory ${Math.round(peak / 2 ** 20)} MiB, ${outcome}`);
