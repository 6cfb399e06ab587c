// The frame loop: requestAnimationFrame callbacks only while there is something to show.
// Playing, it runs every frame with the wall time since the last (capped, so a stalled
// tab does not jump); paused, it draws one frame when asked (an event, a seek, a hover, a
// resize) and then stops, so an idle page does no work. It never runs while the page is
// hidden or the element is off-screen. Also: the pacer that keeps a frame of play within
// its budget (and the badge that says when that caps the speed), what each frame draws,
// where a frame of play must stop in a story (its pause steps and its end), and the
// timings benchmarks read.

import { h } from '../common/dom.js';
import type { LoadedScenario, ScenarioStep } from '../story/scenarios.js';
import { isStop, storyEnd } from '../story/story.js';
import { speedLabel } from './controls.js';

/** The longest stretch of wall time one frame plays (ms). */
const MAX_FRAME_MS = 100;
/** The longest gap between frames that counts as falling behind (a longer one is a suspended machine). */
const MAX_GAP_MS = 1000;
/** One display frame (ms, at 60 Hz): how long after its callback a frame reaches the screen. */
const DISPLAY_FRAME_MS = 1000 / 60;

export class FrameLoop {
  /**
   * Draws one frame that plays `elapsedMs` of wall time (capped); `gapMs` is the wall time
   * since the last frame in fact (what real time asked for). Returns whether it wants the
   * next frame too.
   */
  readonly #onFrame: (elapsedMs: number, gapMs: number) => boolean;
  #raf = 0;
  #lastWall = 0;
  /** Play (re)started since the last frame: the next frame counts from that moment, not from a frame's timestamp. */
  #restarted = false;
  #connected = false;
  #pageVisible = true;
  #onScreen = true;
  #frameTimes: number[] = [];
  #profile: Record<string, number[]> | null = null;
  #observer: IntersectionObserver | null = null;
  #onVisibility = () => {
    this.#pageVisible = !document.hidden;
    this.#wakeOrSleep();
  };

  constructor(onFrame: (elapsedMs: number, gapMs: number) => boolean) {
    this.#onFrame = onFrame;
  }

  /** Starts watching whether `el` can be seen and draws a first frame. */
  connect(el: Element): void {
    if (this.#connected) return;
    this.#connected = true;
    this.#pageVisible = !document.hidden;
    document.addEventListener('visibilitychange', this.#onVisibility);
    if (typeof IntersectionObserver === 'function') {
      this.#observer = new IntersectionObserver((entries) => {
        const last = entries[entries.length - 1];
        if (!last) return;
        this.#onScreen = last.isIntersecting;
        this.#wakeOrSleep();
      });
      this.#observer.observe(el);
    }
    this.request();
  }

  disconnect(): void {
    this.#connected = false;
    document.removeEventListener('visibilitychange', this.#onVisibility);
    this.#observer?.disconnect();
    this.#observer = null;
    this.#cancel();
  }

  /** Whether frames can be drawn now (connected, the page visible, the element on screen). */
  get visible(): boolean {
    return this.#connected && this.#pageVisible && this.#onScreen;
  }

  /** Asks for a frame (something changed, or play started); a no-op while one is pending or nothing can be seen. */
  request(): void {
    if (this.#raf || !this.visible) return;
    this.#lastWall = performance.now();
    this.#raf = requestAnimationFrame(this.#loop);
  }

  #loop = (wall: number): void => {
    this.#raf = 0;
    // The first frame after Play plays the wall time from Play until it is on screen (a
    // display frame after this callback). Its timestamp, when the frame began, can be
    // before Play (a long task delayed the callback): counted from there, the frame
    // would show the very moment Play was pressed, still.
    const at = this.#restarted ? Math.max(wall, performance.now()) : wall;
    const gap = Math.max(0, Math.min(MAX_GAP_MS, at - this.#lastWall + (this.#restarted ? DISPLAY_FRAME_MS : 0)));
    this.#restarted = false;
    this.#lastWall = at;
    const more = this.#onFrame(Math.min(MAX_FRAME_MS, gap), gap);
    if (more && this.visible && !this.#raf) this.#raf = requestAnimationFrame(this.#loop);
  };

  #wakeOrSleep(): void {
    if (this.visible) this.request();
    else this.#cancel();
  }

  #cancel(): void {
    if (this.#raf) cancelAnimationFrame(this.#raf);
    this.#raf = 0;
  }

  /** Counts the next frame's elapsed time from now (play starts or stops). */
  restartClock(): void {
    this.#lastWall = performance.now();
    this.#restarted = true;
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

/** What a frame of play draws besides advancing: nothing, the picture (ring and timeline), or the panels beside it too. */
export enum Drawing {
  None = 0,
  Picture = 1,
  Panels = 2,
}

/** How often the panels beside the picture are redrawn while playing (wall ms). */
const PLAYING_PANELS_MS = 100;
/** How often the picture is redrawn while playing at a capped speed (wall ms): the frames between go to the simulation. */
const CAPPED_PICTURE_MS = 30;

/**
 * What each frame draws. While playing, the panels beside the picture follow a few times
 * a second (at speed they are a blur anyway, and reading the logs from the core is a
 * large part of a frame); paused, every frame shows the moment exactly. When the core
 * cannot keep up, every other frame or so advances only.
 */
export class DrawingSchedule {
  /** When the panels beside the picture were last drawn while playing (wall ms). */
  #panelsAt = 0;
  /** When the picture was last drawn while playing (wall ms). */
  #pictureAt = 0;

  /** What the frame starting at `t0` (wall ms) draws; `capped`: the pacer caps the speed. */
  next(t0: number, playing: boolean, capped: boolean): Drawing {
    const picture = !playing || !capped || t0 - this.#pictureAt >= CAPPED_PICTURE_MS;
    const panels = picture && (!playing || t0 - this.#panelsAt >= PLAYING_PANELS_MS);
    if (playing && picture) this.#pictureAt = t0;
    if (playing && panels) this.#panelsAt = t0;
    return panels ? Drawing.Panels : picture ? Drawing.Picture : Drawing.None;
  }
}

/** Wall ms a whole frame may take (advance + draw) so that frames stay smooth. */
const FRAME_BUDGET_MS = 5;
/** The least wall time the advance always gets, however long drawing took. */
const MIN_ADVANCE_MS = 1.5;
/** The window over which the achieved speed is judged (wall ms). */
const SPEED_WINDOW_MS = 1000;

/**
 * Keeps a frame of play within its budget: from what advancing cost in recent frames
 * (wall ms per simulated ms) and what drawing costs, how much simulated time this frame
 * may advance. What does not fit is dropped, not owed (a debt would only grow), and the
 * speed actually achieved over the last second is reported so the UI can say it is capped.
 */
export class Pacer {
  /** Wall ms per simulated ms of advancing (smoothed); 0 until measured. */
  #costPerSimMs = 0;
  /** Wall ms of drawing a frame (smoothed), by what it draws (Drawing). */
  #drawMs = [0, 0, 0];
  #window: { wall: number; wanted: number; played: number }[] = [];
  #capped: number | null = null;

  /** Simulated ms this frame may advance, of the `wantedSimMs` asked for, before `drawing`. */
  allowance(wantedSimMs: number, drawing: Drawing): number {
    if (this.#costPerSimMs <= 0) return Math.min(wantedSimMs, 100);
    const budget = Math.max(MIN_ADVANCE_MS, FRAME_BUDGET_MS - this.#drawMs[drawing]);
    return Math.min(wantedSimMs, Math.max(1, budget / this.#costPerSimMs));
  }

  /** What a frame of play did: `wallMs` elapsed since the last, `wantedSimMs` real time asked for in it, `playedSimMs` advanced in `advanceMs` of work, then `drawMs` of `drawing`. */
  record(wallMs: number, wantedSimMs: number, playedSimMs: number, advanceMs: number, drawMs: number, drawing: Drawing): void {
    if (playedSimMs >= 1) {
      // One frame stalled by something else (a collection, another tab) counts as at most
      // 3x the usual. Cheaper is believed sooner: a frame's fixed costs make small advances
      // look dear, and believing that slowly would keep the advances small.
      const est = this.#costPerSimMs;
      const c = advanceMs / playedSimMs;
      const k = c < est ? 0.6 : 0.3;
      this.#costPerSimMs = est <= 0 ? c : est * (1 - k) + Math.min(c, 3 * est) * k;
    }
    this.#drawMs[drawing] = this.#drawMs[drawing] * 0.8 + drawMs * 0.2;
    const w = this.#window;
    w.push({ wall: wallMs, wanted: wantedSimMs, played: playedSimMs });
    let wall = 0;
    for (const f of w) wall += f.wall;
    while (w.length > 1 && wall - w[0].wall >= SPEED_WINDOW_MS) wall -= w.shift()!.wall;
    if (wall < SPEED_WINDOW_MS / 2) return;
    let wanted = 0;
    let played = 0;
    for (const f of w) {
      wanted += f.wanted;
      played += f.played;
    }
    // hysteresis: capped below 90% of the speed asked for, no longer once back above 97%
    const ratio = wanted > 0 ? played / wanted : 1;
    if (ratio < 0.9) this.#capped = played / wall;
    else if (ratio > 0.97) this.#capped = null;
    else if (this.#capped !== null) this.#capped = played / wall;
  }

  /** The speed achieved over the last second when it falls short of the speed asked for, else null. */
  get capped(): number | null {
    return this.#capped;
  }

  /** Play stopped or the speed changed: judge afresh. */
  reset(): void {
    this.#window = [];
    this.#capped = null;
  }
}

/** The badge that says so when the core cannot keep up with the speed asked for (the pacer caps each frame's advance). */
export class CappedBadge {
  readonly el = h('span', { class: 'kp-capped', role: 'status', hidden: true });
  #text = '';
  #at = 0;

  /** `capped`: the speed the pacer holds play to (null: not capped, or paused); `speed`: the speed asked for. */
  update(capped: number | null, speed: number): void {
    const text = capped === null ? '' : `capped at ${speedLabel(capped)}`;
    if (text === this.#text) return;
    // the figure changes at most once a second (appearing and going away at once)
    const wall = performance.now();
    if (text && this.#text && wall - this.#at < 1000) return;
    this.#at = wall;
    this.#text = text;
    this.el.textContent = text;
    this.el.title = text ? `The simulation cannot keep up with ${speedLabel(speed)} here: it plays at about ${speedLabel(capped ?? 0)}` : '';
    this.el.hidden = !text;
  }
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
