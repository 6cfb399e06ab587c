// The frame loop: one requestAnimationFrame callback per frame with the wall time since
// the last (capped, so a background tab does not jump), where a frame of play must stop
// in a story (its pause steps and its end), and the timings benchmarks read.

import type { LoadedScenario, ScenarioStep } from './scenarios.js';
import { isStop, storyEnd } from './story.js';

/** The longest stretch of wall time one frame plays (ms). */
const MAX_FRAME_MS = 100;

export class FrameLoop {
  readonly #onFrame: (elapsedMs: number) => void;
  #raf = 0;
  #lastWall = 0;
  #frameTimes: number[] = [];
  #profile: Record<string, number[]> | null = null;

  constructor(onFrame: (elapsedMs: number) => void) {
    this.#onFrame = onFrame;
  }

  start(): void {
    if (this.#raf) return;
    this.#lastWall = performance.now();
    const loop = (wall: number) => {
      this.#raf = requestAnimationFrame(loop);
      const elapsed = Math.max(0, Math.min(MAX_FRAME_MS, wall - this.#lastWall));
      this.#lastWall = wall;
      this.#onFrame(elapsed);
    };
    this.#raf = requestAnimationFrame(loop);
  }

  stop(): void {
    cancelAnimationFrame(this.#raf);
    this.#raf = 0;
  }

  /** Counts the next frame's elapsed time from now (play starts or stops). */
  restartClock(): void {
    this.#lastWall = performance.now();
  }

  /** Records the work of one frame of play (ms). */
  recordFrame(ms: number): void {
    this.#frameTimes.push(ms);
    if (this.#frameTimes.length > 20_000) this.#frameTimes.splice(0, 10_000);
  }

  /** Frame times recorded since the last call. */
  takeFrameTimes(): number[] {
    const t = this.#frameTimes;
    this.#frameTimes = [];
    return t;
  }

  /** Starts (true) or stops (false) timing each part of a frame; returns what was timed. */
  profile(on: boolean): Record<string, number[]> | null {
    const out = this.#profile;
    this.#profile = on ? {} : null;
    return out;
  }

  /** Times `fn` as part `name` when profiling. */
  timed<T>(name: string, fn: () => T): T {
    const P = this.#profile;
    if (!P) return fn();
    const a = performance.now();
    const out = fn();
    record(P, name, performance.now() - a);
    return out;
  }

  /** A stopwatch for consecutive parts of a frame: each call records the time since the last (no-op unless profiling). */
  laps(): (name: string) => void {
    const P = this.#profile;
    if (!P) return () => {};
    let t = performance.now();
    return (name) => {
      const n = performance.now();
      record(P, name, n - t);
      t = n;
    };
  }
}

function record(profile: Record<string, number[]>, name: string, ms: number): void {
  const list = profile[name];
  if (list) list.push(ms);
  else profile[name] = [ms];
}

/** Where a frame of play that would reach `reach` from `now` stops instead: `t` to seek to, and the pause step reached (null: the story's end). */
export interface PlayStop {
  t: number;
  step: ScenarioStep | null;
}

/**
 * A story pauses at its stops (pause and captioned steps) (except the one it is waiting at, `pausedAtStep`) and
 * stops at its end so the reader sees how it came out; free play and a story played past
 * its end go on freely (null).
 */
export function stopWithin(s: LoadedScenario | null, pausedAtStep: number, now: number, reach: number): PlayStop | null {
  if (!s) return null;
  const stop = s.steps.find((st) => isStop(st) && st.t !== null && st.t > now && st.index !== pausedAtStep) ?? null;
  const last = storyEnd(s);
  const end = now < last ? last : null;
  if (stop !== null && stop.t !== null && reach >= stop.t && (end === null || stop.t <= end)) return { t: stop.t, step: stop };
  if (end !== null && reach >= end) return { t: end, step: null };
  return null;
}
