// One frame of play, as the frame loop calls it: the run played on for the wall time
// since the last frame (if playing), within the pacer's allowance and never past a
// story's stop, then what the drawing schedule says this frame draws. A broken core or a
// failed tick stops play and shows the crash. The pacer, the schedule and the capped
// badge are frame-loop.ts's; this puts them together.

import type { Cluster, PackedBatch, Player } from '../../api.js';
import type { LoadedScenario } from '../story/scenarios.js';
import { CappedBadge, Drawing, DrawingSchedule, type FrameLoop, Pacer, stopWithin } from './frame-loop.js';
import type { Playback } from './playback.js';

/** What a frame of play needs of the element. */
export interface FramePlayHost {
  player(): Player<PackedBatch> | null;
  cluster(): Cluster | null;
  /** The story whose stops play stops at (null: free play, or the reader left its script). */
  script(): LoadedScenario | null;
  play: Playback;
  loop: FrameLoop;
  /** The core broke: say so. */
  broken(c: Cluster): void;
  /** Something failed (the core threw): say so. */
  failed(what: string, e: unknown): void;
  /** Draws what changed (`panels`: the panels beside the picture too); returns whether something still animates. */
  draw(panels: boolean): boolean;
}

export class FramePlay {
  readonly pacer = new Pacer();
  /** The badge beside the speed that says when the pacer caps it. */
  readonly capped = new CappedBadge();
  readonly #drawing = new DrawingSchedule();
  readonly #host: FramePlayHost;

  constructor(host: FramePlayHost) {
    this.#host = host;
  }

  /** One frame: play for `elapsed` wall ms (if playing; `gap` ms passed in fact), then draw. Returns whether the next frame is wanted too. */
  run(elapsed: number, gap: number): boolean {
    const host = this.#host;
    const p = host.player();
    const c = host.cluster();
    if (!p || !c) return false;
    if (c.broken) {
      host.broken(c);
      return false;
    }
    const t0 = performance.now();
    const playing = host.play.playing;
    const drawing = this.#drawing.next(t0, playing, this.pacer.capped !== null);
    const picture = drawing !== Drawing.None;
    const panels = drawing === Drawing.Panels;
    let wanted = 0;
    let played = 0;
    if (playing) {
      const now = c.now;
      wanted = elapsed * p.speed;
      const allowed = this.pacer.allowance(wanted, drawing);
      // the player's own reach (whole ms, its carried fractions), so no stop is stepped over
      const stop = stopWithin(host.script(), host.play.pausedAtStep, now, p.reach(allowed / p.speed));
      try {
        if (stop) {
          p.seek(stop.t);
          if (stop.step) host.play.pausedAtStep = stop.step.index;
          host.play.setPlaying(false);
        } else {
          const f = host.loop.timed('tick', () => p.tick(allowed / p.speed));
          if (f.error) throw f.error;
        }
      } catch (e) {
        host.play.setPlaying(false);
        host.failed('The simulation stopped', e);
      }
      if (c.broken) {
        host.broken(c);
        return false;
      }
      played = c.now - now;
    }
    const t1 = performance.now();
    // play that just stopped draws everything at once
    const more = picture || !host.play.playing ? host.draw(panels || !host.play.playing) : false;
    if (playing) {
      const t2 = performance.now();
      host.loop.recordFrame(t2 - t0);
      // judged against real time: frames far apart (a busy machine) fall behind too
      this.pacer.record(gap, gap * p.speed, played, t1 - t0, t2 - t1, drawing);
    }
    this.capped.update(host.play.playing ? this.pacer.capped : null, host.play.speed);
    return host.play.playing || more;
  }
}
