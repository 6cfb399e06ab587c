// Acting on the run: every action (a fault, a node's menu, a key, the network panel, a
// client write) runs on the cluster through here, after any network change still
// settling, and fails into the crash banner rather than an exception. One made while
// seeked back forks the run: the core drops what was recorded after that moment, the
// lanes are asked for again, and a story's script is left there. Also: a violation shown
// where it happened.

import type { Cluster, PackedBatch, Player } from '../../api.js';
import type { UiEventOf } from '../common/types.js';
import type { Playback } from '../playback/playback.js';
import type { Crashes } from '../shell/messages.js';
import { type ScriptPlace, stepTicks } from '../story/story.js';
import type { RunChoice } from './runs.js';
import type { Views } from './views.js';

/** What acting on the run needs of the element. */
export interface ActionHost {
  cluster(): Cluster | null;
  player(): Player<PackedBatch> | null;
  crashes: Crashes;
  play: Playback;
  runs: RunChoice;
  script: ScriptPlace;
  views(): Views;
  toast(text: string): void;
  /** Tells the page which run is on screen. */
  emitChange(): void;
}

export class Actions {
  readonly #host: ActionHost;

  constructor(host: ActionHost) {
    this.#host = host;
  }

  /** Runs `fn` on the cluster as the action `what`; returns what it returned (undefined: no cluster, or it failed). */
  act(what: string, fn: (c: Cluster) => unknown): unknown {
    const host = this.#host;
    const c = host.cluster();
    if (!c || host.crashes.crashed) return undefined;
    const views = host.views();
    // a network change still settling goes first, so actions keep the order they were made in
    if (what !== 'network') views.faults.settle();
    const recorded = c.horizon;
    let out: unknown;
    try {
      out = fn(c);
    } catch (e) {
      host.crashes.failed(what, e);
      return undefined;
    }
    // an action forks the run: the recorded future is gone (the store learns it from the core: `Cluster.forks`)
    if (c.horizon < recorded) {
      host.toast('The run forks here: what was recorded after this moment is replaced.');
      host.play.horizon = c.now;
      if (host.runs.scenario) {
        host.runs.scenario = host.script.fork(host.runs.scenario, c.now);
        views.controls.setTicks(stepTicks(host.runs.scenario), host.play.horizon);
      }
    }
    host.player()?.refresh();
    views.faults.sync();
    host.emitChange();
    return out;
  }

  /** A client write at the leader, with a toast that says how it went. */
  write(): void {
    const r = this.act('write', (c) => c.write()) as { accepted: boolean; offset?: number; reason?: string } | undefined;
    if (r) this.#host.toast(r.accepted ? `Write accepted at offset ${r.offset}` : `Write rejected: ${r.reason}`);
  }

  /** Pauses at a violation and shows it on the timeline with its evidence. */
  showViolation(v: UiEventOf<'violation'>): void {
    const play = this.#host.play;
    const timeline = this.#host.views().timeline;
    play.setPlaying(false);
    play.seek(v.t);
    timeline.highlight = new Set([v.seq, ...(v.evidence ?? [])]);
    timeline.focus(v.t);
    timeline.invalidate();
  }
}
