// The element's frames: what the player's new events change (the snapshot, the views to
// redraw, the ring's marks and the announcements), and drawing what changed: the picture
// first (the timeline, the ring), the panels beside it when asked, then the controls, the
// status line, the caption and the later chunk's parts; each part timed for a profile
// (FrameLoop.laps).

import type { Cluster, PackedBatch } from '../../api.js';
import type { FrameLoop } from '../playback/frame-loop.js';
import type { Playback } from '../playback/playback.js';
import type { Announcer, StatusLine } from '../shell/messages.js';
import type { LaterParts } from './later-chunk.js';
import { reactTo } from './reactions.js';
import type { ClusterSnapshot } from './snapshot.js';
import type { Views } from './views.js';

/** What drawing a frame reads of the element. */
export interface FrameDrawHost {
  cluster(): Cluster | null;
  views(): Views;
  later(): LaterParts | null;
  loop: FrameLoop;
  snap: ClusterSnapshot;
  status: StatusLine;
  live: Announcer;
  play: Playback;
  toast(text: string): void;
  /** Whether the layout shows the logs and the panels below the stage. */
  full(): boolean;
  playing(): boolean;
  /** The end of the story on screen (0: none), for the controls. */
  storyEnd(): number;
  unsafe(): string[];
  /** The caption and what a story's stop shows. */
  updateCaption(): void;
}

export class FrameDraw {
  readonly #host: FrameDrawHost;

  constructor(host: FrameDrawHost) {
    this.#host = host;
  }

  /** The player's listener: new events (or a rewind). */
  events(events: PackedBatch[], reset: boolean): void {
    const c = this.#host.cluster();
    if (!c) return;
    this.#host.loop.request();
    this.#host.loop.timed('onFrame', () => {
      if (reset) this.#host.views().logs.reload();
      if (events.length) reactTo(events, this.#host.live, this.#host.views().ring);
      this.#host.play.horizon = Math.max(this.#host.play.horizon, c.now);
      this.refresh(events.length > 0 || reset);
    });
  }

  /** Re-reads what the panels show from the cluster (`changed`: the views it changed are redrawn). */
  refresh(changed: boolean): void {
    const c = this.#host.cluster();
    if (!c || c.broken) return;
    try {
      this.#host.snap.refresh(c, changed);
    } catch (e) {
      this.#host.toast((e as Error).message);
    }
    if (changed) {
      const views = this.#host.views();
      views.logs.invalidate();
      views.images.invalidate();
      this.#host.later()?.imageCard.invalidate();
      views.timeline.invalidate();
    }
  }

  /** Draws what changed (`panels`: the panels beside the picture too); returns whether something still animates (and wants the next frame). */
  draw(panels: boolean): boolean {
    const host = this.#host;
    const c = host.cluster();
    if (!c) return false;
    const views = host.views();
    const later = host.later();
    const lap = host.loop.laps();
    views.timeline.frame();
    lap('timeline');
    const more = views.ring.frame();
    lap('ring');
    if (panels) views.faults.frame();
    if (host.full() && panels) {
      views.logs.frame();
      views.images.frame();
      lap('logs');
      later?.quorum.frame();
      later?.invariants.frame();
      later?.changes.frame();
      lap('panels');
    }
    views.controls.frame(host.storyEnd());
    host.status.update(c, host.snap.nodes, host.snap.violations, host.unsafe());
    host.updateCaption();
    later?.menu.frame();
    later?.imageCard.frame();
    lap('controls');
    const summary = later?.summary;
    if (!summary) return more;
    // the accessible summary is refreshed a few times a second: until its turn, the next frame is wanted
    const summaryNow = summary.due(host.playing());
    if (summaryNow) {
      summary.update(c, host.snap.nodes);
      lap('summary');
    }
    return more || !summaryNow;
  }
}
