// Free play's leader changes: each new leader with the breakdown the leader-crash story's
// completion card shows (failover = detection + election, then first commit; the rounds
// lost to a split vote named), measured by the core (`Cluster.leaderChanges`), newest
// first, each with a way to travel to it. Loaded with later.ts.

import type { LeaderChange } from '../../api.js';
import { fmtT, h, setText } from '../common/dom.js';
import { measurementItem } from '../common/measurement.js';

export interface LeaderChangesHost {
  /** The leader changes of the run up to now (`Cluster.leaderChanges`, read at most a few times a second). */
  leaderChanges(): readonly LeaderChange[];
  seek(t: number): void;
}

/** Changes listed at most (the newest): the panel stays short on a long run. */
const LISTED = 8;

export class LeaderChangesPanel {
  readonly el: HTMLElement;
  readonly #list = h('ol', { class: 'kp-changes', reversed: true });
  readonly #summary = h('p', { class: 'kp-note', role: 'status' });
  readonly #host: LeaderChangesHost;
  #shown: readonly LeaderChange[] | null = null;

  constructor(host: LeaderChangesHost) {
    this.#host = host;
    this.el = h(
      'section',
      { class: 'kp-panel kp-leader-changes', 'aria-label': 'Leader changes' },
      h('h2', null, 'Leader changes ', h('span', { class: 'kp-sub' }, 'failover = detection + election · then first commit')),
      this.#summary,
      this.#list,
    );
  }

  frame(): void {
    const all = this.#host.leaderChanges();
    if (all === this.#shown) return;
    this.#shown = all;
    const failovers = all.filter((c) => c.previous !== null);
    setText(
      this.#summary,
      all.length
        ? `${all.length === 1 ? 'One leader' : `${all.length} leaders`} so far, ${failovers.length === 1 ? 'one' : failovers.length} after a failover.`
        : 'No leader yet: the voters are electing one.',
    );
    this.#list.replaceChildren(
      ...all
        .slice(-LISTED)
        .reverse()
        .map((c) => this.#item(c)),
    );
  }

  #item(c: LeaderChange): HTMLLIElement {
    const li = measurementItem(c.measurement);
    li.dataset.change = String(c.epoch);
    const go = h('button', { class: 'kp-btn kp-btn-sm', type: 'button', 'data-seek-change': String(c.t) }, `Show ${fmtT(c.t)}`);
    go.addEventListener('click', () => this.#host.seek(c.t));
    li.append(go);
    return li;
  }
}
