/**
 * The chaos sweep in wasm: seeded random fault schedules with every invariant checked
 * after every event, then a calm tail in which the quorum must make progress.
 * @module
 */
import * as check from './check.js';
import { withEngine } from './core.js';
import type { SafetySwitch, SeedOutcome, SweepOptions } from './types.js';
import { catalog, initEngine, limit } from './wasm.js';

function options(o: unknown): { seconds: number; voters: number; observers: number; unsafe: SafetySwitch[] } {
  const opts = check.object(o, 'sweep options');
  check.keys(opts, ['seconds', 'voters', 'observers', 'unsafe'], 'sweep option');
  const cat = catalog();
  if (opts.seconds === undefined) throw new TypeError(`sweep options need seconds (at least ${limit('chaosSeconds').min})`);
  const names = cat.switches.map((s) => s.name);
  const unsafe = opts.unsafe === undefined ? [] : check.array(opts.unsafe, 'unsafe').map((s, i) => check.oneOf(s, names, `unsafe[${i}] (a safety switch)`));
  // The core checks the ranges against its limits; JS checks only that each is a number it can pass.
  return {
    seconds: check.whole(opts.seconds, 'seconds'),
    voters: opts.voters === undefined ? 3 : check.whole(opts.voters, 'voters', 0, check.U32),
    observers: opts.observers === undefined ? 1 : check.whole(opts.observers, 'observers', 0, check.U32),
    unsafe,
  };
}

/** Runs one seed of the chaos sweep (the same run as the native `sweep` example). */
export async function runChaosSeed(seed: number, opts: SweepOptions): Promise<SeedOutcome> {
  await initEngine();
  return runChaosSeedSync(seed, opts);
}

/** {@link runChaosSeed} once the engine is loaded (`await initEngine()`; Node loads it here). */
export function runChaosSeedSync(seed: number, opts: SweepOptions): SeedOutcome {
  const s = check.whole(seed, 'seed');
  const o = options(opts);
  return withEngine((G) => G.chaosRunSeed(s, o.seconds, o.voters, o.observers, JSON.stringify(o.unsafe))) as SeedOutcome;
}

/**
 * The trace digest of the chaos run for (seed, seconds, voters) with one observer: the
 * same value `cargo run --example digest` prints natively.
 */
export async function chaosDigest(seed: number, seconds: number, voters: number): Promise<string> {
  await initEngine();
  const o = options({ seconds, voters });
  const s = check.whole(seed, 'seed');
  return withEngine((G) => G.chaosDigest(s, o.seconds, o.voters));
}
