// Playback: playing or paused, the speed, travelling in time, and where a story waits
// (the pause step it stopped at). The frame loop plays; this keeps the state and the
// rules for changing it.

import type { PackedBatch, Player } from '../../api.js';
import { clamp } from '../common/dom.js';
import type { LoadedScenario } from '../story/scenarios.js';
import { isStop } from '../story/story.js';
import { MAX_SPEED, MIN_SPEED } from './controls.js';

export interface PlaybackHost {
  player(): Player<PackedBatch> | null;
  scenario(): LoadedScenario | null;
  now(): number;
  /** Play may start: a run is loaded and the core has not crashed. */
  canPlay(): boolean;
  /** Play started or stopped. */
  playingChanged(on: boolean): void;
  /** The player moved to another moment. */
  seeked(): void;
  failed(what: string, e: unknown): void;
}

export class Playback {
  readonly #host: PlaybackHost;
  #playing = false;
  /** The speed for the next player (the player's own once there is one). */
  #speed = 1;
  /** The index of the pause step the story waits at (-1: none). */
  pausedAtStep = -1;
  /** The latest moment recorded (ms): the end of the time slider. */
  horizon = 0;

  constructor(host: PlaybackHost) {
    this.#host = host;
  }

  get playing(): boolean {
    return this.#playing;
  }

  setPlaying(on: boolean): void {
    if (on && !this.#host.canPlay()) return;
    this.#playing = on;
    this.#host.playingChanged(on);
  }

  /** Pauses and plays the next event. */
  step(): void {
    this.setPlaying(false);
    try {
      this.#host.player()?.step();
    } catch (e) {
      this.#host.failed('step', e);
    }
  }

  get speed(): number {
    const p = this.#host.player();
    return p ? p.speed : this.#speed;
  }

  setSpeed(s: number): void {
    this.#speed = clamp(s, MIN_SPEED, MAX_SPEED);
    const p = this.#host.player();
    if (p) p.speed = this.#speed;
  }

  /** The speed the next player starts with (the `speed` attribute, already checked). */
  initialSpeed(s: number): void {
    this.#speed = s;
  }

  /**
   * Paused, the story waits at the stop whose moment the player stands at, however it got
   * there (`el.player.seek` too); anywhere else it waits at none, so a seek or a step away
   * leaves the stop.
   */
  syncStop(now: number): void {
    if (this.#playing) return;
    const s = this.#host.scenario();
    if (s?.steps.find((x) => x.index === this.pausedAtStep)?.t === now) return;
    this.pausedAtStep = s?.steps.find((st) => isStop(st) && st.t === now)?.index ?? -1;
  }

  /** Travels to `t` (ms, kept within the run and a minute past its end). */
  seek(t: number): void {
    const p = this.#host.player();
    if (!p) return;
    const target = clamp(Math.round(t), 0, Math.max(this.horizon, this.#host.now()) + 60_000);
    try {
      p.seek(target);
      this.pausedAtStep = -1;
      const s = this.#host.scenario();
      if (s) {
        // landing exactly on a pause step counts as having paused there
        const at = s.steps.find((st) => isStop(st) && st.t === target);
        if (at) this.pausedAtStep = at.index;
      }
    } catch (e) {
      this.#host.failed('travel in time', e);
    }
    this.#host.seeked();
  }
}
