/**
 * `Player`: the animation loop that advances a cluster in (scaled) real time and tells
 * listeners what happened each frame.
 * @module
 */
import * as check from './check.js';
import type { Cluster } from './cluster.js';
import { lastSeqOf, type PackedBatch } from './packed.js';
import type { PackedEventQuery, PackedTraceEvent, TraceEvent } from './types.js';

/** What listeners get each frame (`E`: {@link PackedTraceEvent} with the `packed` option). */
export interface PlayerFrame<E extends TraceEvent | PackedTraceEvent | PackedBatch = TraceEvent> {
  /** Events that happened since the previous frame, oldest first (with the `packed.batches` option: the pages they came in). */
  events: E[];
  /** Simulated time now (ms). */
  now: number;
  /**
   * True when the trace went back in time (a seek back), or moved on by more than the
   * `maxEvents` option (a seek far forward): drop what you drew and re-read what you
   * show with `cluster.events({ from, to })`. `events` is empty then.
   */
  reset: boolean;
  playing: boolean;
  speed: number;
  /** Set when advancing the cluster failed; the player has paused. */
  error?: Error;
}

/** A frame listener. */
export type PlayerListener<E extends TraceEvent | PackedTraceEvent | PackedBatch = TraceEvent> = (frame: PlayerFrame<E>) => void;

/** A frame scheduler (requestAnimationFrame-like). */
export interface FrameScheduler {
  request(callback: () => void): unknown;
  cancel(handle: unknown): void;
}

/** Options of {@link Player}. */
export interface PlayerOptions {
  /** Simulated ms per wall ms, 0.1 to 100. Default 1. */
  speed?: number;
  /** Wall time one frame may account for at most (ms), so a stalled tab does not jump ahead. Default 100. */
  maxFrameMs?: number;
  /** The wall clock in ms. Default `performance.now()`. Only pacing depends on it, never the run itself. */
  clock?: () => number;
  /** The frame scheduler. Default `requestAnimationFrame`, or a 16 ms `setTimeout` where there is none (Node). */
  scheduler?: FrameScheduler;
  /**
   * Frames carry events in the packed form, as `cluster.packedEvents({ since, text })`
   * gives them (no message summaries; text only on the types `text` names). Default:
   * as `cluster.events({ since })`, every event with its text. With `batches`, frames
   * carry the pages as `cluster.packedBatch` gives them (the rows still numbers), for a
   * reader that keeps them so.
   */
  packed?: { text?: PackedEventQuery['text']; batches?: boolean };
  /**
   * A frame that would carry more events than this carries none and says `reset`
   * instead (re-reading a window is cheaper than taking a long jump's every event).
   * Default: no limit.
   */
  maxEvents?: number;
  /**
   * A seek forward by more simulated ms than this (a number, or a function asked at each
   * seek) carries no events and says `reset` instead: a reader that shows only the time
   * before now re-reads that rather than every event of the jump. Default: no limit.
   */
  maxSeekMs?: number | (() => number);
}

function defaultScheduler(): FrameScheduler {
  const g = globalThis as unknown as {
    requestAnimationFrame?: (cb: () => void) => number;
    cancelAnimationFrame?: (h: number) => void;
  };
  if (typeof g.requestAnimationFrame === 'function' && typeof g.cancelAnimationFrame === 'function') {
    const raf = g.requestAnimationFrame.bind(globalThis);
    const caf = g.cancelAnimationFrame.bind(globalThis);
    return { request: (cb) => raf(cb), cancel: (h) => caf(h as number) };
  }
  return {
    request: (cb) => setTimeout(cb, 16),
    cancel: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
}

/**
 * Plays a {@link Cluster}: each animation frame advances it by `speed` x the wall time
 * elapsed and calls the listeners with the new events. Pause, step (to the next moment
 * something happens), change speed (log scale, 0.1x to 100x) and seek (time travel).
 *
 * @example
 * ```js
 * const player = new Player(cluster, { speed: 2 });
 * const stop = player.subscribe(({ events, now }) => draw(events, now));
 * player.play();
 * ```
 */
export class Player<E extends TraceEvent | PackedTraceEvent | PackedBatch = TraceEvent> {
  /** Slowest speed (simulated ms per wall ms). */
  static readonly MIN_SPEED = 0.1;
  /** Fastest speed. */
  static readonly MAX_SPEED = 100;

  /** Speed for a slider position in [0, 1] on a log scale: 0 -> 0.1x, 0.5 -> ~3.2x, 1 -> 100x. */
  static speedFromSlider(position: number): number {
    const p = check.probability(position, 'slider position');
    const s = Player.MIN_SPEED * (Player.MAX_SPEED / Player.MIN_SPEED) ** p;
    return Math.min(Player.MAX_SPEED, Math.max(Player.MIN_SPEED, s));
  }

  /** The slider position in [0, 1] of a speed (inverse of {@link Player.speedFromSlider}). */
  static sliderFromSpeed(speed: number): number {
    const s = checkSpeed(speed);
    return Math.log(s / Player.MIN_SPEED) / Math.log(Player.MAX_SPEED / Player.MIN_SPEED);
  }

  readonly #cluster: Cluster;
  readonly #listeners = new Set<PlayerListener<E>>();
  readonly #clock: () => number;
  readonly #scheduler: FrameScheduler;
  readonly #maxFrameMs: number;
  readonly #maxEvents: number;
  readonly #maxSeekMs: () => number;
  /** The events since `cursor`, a page of them as the options ask, and the seq of its last event (null: none). */
  readonly #page: (cursor: number) => { items: E[]; last: number } | null;
  #speed: number;
  #playing = false;
  #handle: unknown = null;
  #lastWall = 0;
  #carry = 0;
  #lastSeq: number;
  #lastNow: number;
  #destroyed = false;

  constructor(cluster: Cluster, options: PlayerOptions = {}) {
    if (typeof cluster !== 'object' || cluster === null || typeof cluster.advance !== 'function') {
      throw new TypeError(`Player needs a Cluster, got ${check.show(cluster)}`);
    }
    const o = check.object(options, 'Player options');
    check.keys(o, ['speed', 'maxFrameMs', 'clock', 'scheduler', 'packed', 'maxEvents', 'maxSeekMs'], 'Player option');
    this.#cluster = cluster;
    this.#speed = o.speed === undefined ? 1 : checkSpeed(o.speed);
    this.#maxFrameMs = o.maxFrameMs === undefined ? 100 : check.whole(o.maxFrameMs, 'maxFrameMs', 1, 60_000);
    if (o.clock !== undefined && typeof o.clock !== 'function') throw new TypeError('clock must be a function');
    this.#clock = (o.clock as () => number) ?? (() => performance.now());
    if (o.scheduler !== undefined) {
      const s = o.scheduler as FrameScheduler;
      if (typeof s?.request !== 'function' || typeof s?.cancel !== 'function') {
        throw new TypeError('scheduler must have request(callback) and cancel(handle)');
      }
    }
    this.#scheduler = (o.scheduler as FrameScheduler) ?? defaultScheduler();
    this.#maxEvents = o.maxEvents === undefined ? Number.POSITIVE_INFINITY : check.whole(o.maxEvents, 'maxEvents', 1);
    if (typeof o.maxSeekMs === 'function') {
      const ask = o.maxSeekMs as () => number;
      this.#maxSeekMs = () => check.whole(ask(), 'maxSeekMs', 0);
    } else {
      const ms = o.maxSeekMs === undefined ? Number.POSITIVE_INFINITY : check.whole(o.maxSeekMs, 'maxSeekMs', 0);
      this.#maxSeekMs = () => ms;
    }
    const events = (items: E[]) => (items.length ? { items, last: (items[items.length - 1] as TraceEvent).seq } : null);
    if (o.packed === undefined) {
      this.#page = (since) => events(cluster.events({ since }) as E[]);
    } else {
      const p = check.object(o.packed, 'packed option');
      check.keys(p, ['text', 'batches'], 'packed option field');
      const text = p.text as PackedEventQuery['text'];
      // asked once now, so a bad `text` is refused here rather than on a frame
      cluster.packedEvents({ since: cluster.lastSeq, text });
      if (p.batches !== undefined && typeof p.batches !== 'boolean') throw new TypeError(`packed.batches must be a boolean, got ${check.show(p.batches)}`);
      if (p.batches) {
        this.#page = (since) => {
          const batch = cluster.packedBatch({ since, text });
          const last = lastSeqOf(batch);
          return last < 0 ? null : { items: [batch as E], last };
        };
      } else {
        this.#page = (since) => events(cluster.packedEvents({ since, text }) as E[]);
      }
    }
    this.#lastSeq = cluster.lastSeq;
    this.#lastNow = cluster.now;
  }

  /** The cluster being played. */
  get cluster(): Cluster {
    return this.#cluster;
  }
  get playing(): boolean {
    return this.#playing;
  }
  /** Simulated ms per wall ms, 0.1 to 100. */
  get speed(): number {
    return this.#speed;
  }
  set speed(v: number) {
    this.#speed = checkSpeed(v);
  }

  /** Sets the speed; returns the player. */
  setSpeed(v: number): this {
    this.speed = v;
    return this;
  }

  /**
   * Calls `listener` after every frame (and after step, seek and refresh) with the new
   * events. Returns a function that unsubscribes.
   */
  subscribe(listener: PlayerListener<E>): () => void {
    if (typeof listener !== 'function') throw new TypeError(`a listener must be a function, got ${check.show(listener)}`);
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Starts the loop. */
  play(): this {
    this.#alive();
    if (this.#playing) return this;
    this.#playing = true;
    this.#lastWall = this.#clock();
    this.#handle = this.#scheduler.request(this.#frame);
    return this;
  }

  /** Stops the loop (the cluster keeps its state). */
  pause(): this {
    if (!this.#playing) return this;
    this.#playing = false;
    if (this.#handle !== null) this.#scheduler.cancel(this.#handle);
    this.#handle = null;
    this.#carry = 0;
    this.#emit({});
    return this;
  }

  /** Play if paused, pause if playing. */
  toggle(): this {
    return this.#playing ? this.pause() : this.play();
  }

  /** Pauses and runs to the next moment something happens. Returns false when nothing is scheduled. */
  step(): boolean {
    this.#alive();
    if (this.#playing) this.pause();
    let moved = false;
    try {
      moved = this.#cluster.step();
    } catch (e) {
      this.#emit({ error: e as Error });
      throw e;
    }
    this.#emit({});
    return moved;
  }

  /** Moves the cluster to simulated time `t` (back or forward) and tells the listeners. */
  seek(t: number): this {
    this.#alive();
    this.#cluster.seek(t);
    this.#carry = 0;
    this.#emit({}, true);
    return this;
  }

  /**
   * Advances by `speed` x `wallMs` (fractions carry over to the next frame) and notifies
   * the listeners. The loop calls this every frame; call it yourself to drive the
   * player by hand.
   */
  tick(wallMs: number): PlayerFrame<E> {
    this.#alive();
    this.#carry += this.#simMs(wallMs, 'tick');
    const ms = Math.floor(this.#carry);
    this.#carry -= ms;
    if (ms > 0) {
      try {
        this.#cluster.advance(ms);
      } catch (e) {
        this.pause();
        return this.#emit({ error: e as Error });
      }
    }
    return this.#emit({});
  }

  /**
   * The simulated time (ms) `tick(wallMs)` would advance the cluster to: whole ms, with
   * the fractions earlier ticks carried, so it can be up to 1 ms past `now + speed x wallMs`.
   * A caller that must not pass a moment (a pause) checks this, not its own sum.
   */
  reach(wallMs: number): number {
    return this.#cluster.now + Math.floor(this.#carry + this.#simMs(wallMs, 'reach'));
  }

  #simMs(wallMs: number, what: string): number {
    if (typeof wallMs !== 'number' || !Number.isFinite(wallMs) || wallMs < 0) {
      throw new RangeError(`${what}(wallMs) needs a finite number >= 0, got ${check.show(wallMs)}`);
    }
    return this.#speed * Math.min(wallMs, this.#maxFrameMs);
  }

  /** Tells the listeners about events that appeared without the player (actions taken while paused). */
  refresh(): PlayerFrame<E> {
    this.#alive();
    return this.#emit({});
  }

  /** Stops the loop and drops the listeners. */
  destroy(): void {
    this.pause();
    this.#listeners.clear();
    this.#destroyed = true;
  }

  #alive(): void {
    if (this.#destroyed) throw new Error('this player was destroyed');
  }

  #frame = (): void => {
    this.#handle = null;
    if (!this.#playing) return;
    const wall = this.#clock();
    const elapsed = Math.max(0, wall - this.#lastWall);
    this.#lastWall = wall;
    this.tick(elapsed);
    if (this.#playing) this.#handle = this.#scheduler.request(this.#frame);
  };

  #emit(extra: { error?: Error }, seek = false): PlayerFrame<E> {
    let events: E[] = [];
    let reset = false;
    let now = this.#lastNow;
    if (!this.#cluster.broken) {
      try {
        now = this.#cluster.now;
        const last = this.#cluster.lastSeq;
        if (last < this.#lastSeq || now < this.#lastNow || last - this.#lastSeq > this.#maxEvents || (seek && now - this.#lastNow > this.#maxSeekMs())) {
          reset = true;
        } else {
          // The core returns at most 100,000 events per query: page until caught up.
          for (let cursor = this.#lastSeq; cursor < last; ) {
            const page = this.#page(cursor);
            if (page === null) break;
            events = events.length === 0 ? page.items : events.concat(page.items);
            cursor = page.last;
          }
        }
        this.#lastSeq = last;
        this.#lastNow = now;
      } catch (e) {
        extra = { error: e as Error };
      }
    }
    const frame: PlayerFrame<E> = { events, now, reset, playing: this.#playing, speed: this.#speed, ...extra };
    for (const l of [...this.#listeners]) {
      try {
        l(frame);
      } catch (e) {
        // A failing listener must not stop the loop or the other listeners: report it
        // the way the platform reports uncaught errors.
        const report = (globalThis as { reportError?: (e: unknown) => void }).reportError;
        if (typeof report === 'function') report(e);
        else
          queueMicrotask(() => {
            throw e;
          });
      }
    }
    return frame;
  }
}

function checkSpeed(v: unknown): number {
  if (typeof v !== 'number') throw new TypeError(`speed must be a number, got ${check.show(v)}`);
  if (!Number.isFinite(v) || v < Player.MIN_SPEED || v > Player.MAX_SPEED) {
    throw new RangeError(`speed must be between ${Player.MIN_SPEED} and ${Player.MAX_SPEED}, got ${v}`);
  }
  return v;
}
