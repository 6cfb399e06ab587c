// The run's leader changes as the core measures them (`Cluster.leaderChanges`), read once
// per change of the run and, while it plays, at most a few times a second: the timeline
// and the leader-changes panel both draw from this one copy.

import type { Cluster, LeaderChange } from '../../api.js';

/** How often the changes are read again while the run plays (ms of wall time). */
const PLAYING_EVERY_MS = 250;

export class LeaderChanges {
  #cluster: Cluster | null = null;
  #seq = -1;
  #at = 0;
  #list: readonly LeaderChange[] = [];

  /** The changes of `c` up to now (the same array while nothing changed). */
  get(c: Cluster | null, playing: boolean): readonly LeaderChange[] {
    if (!c || c.broken) return [];
    const wall = performance.now();
    if (c === this.#cluster && playing && wall - this.#at < PLAYING_EVERY_MS) return this.#list;
    const seq = c.lastSeq;
    if (c === this.#cluster && seq === this.#seq) return this.#list;
    this.#cluster = c;
    this.#seq = seq;
    this.#at = wall;
    this.#list = c.leaderChanges();
    return this.#list;
  }
}
