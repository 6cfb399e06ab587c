// What the views read of the cluster between events: the nodes, the down links, the
// invariant violations and the quorum description, re-read when events arrive (the quorum
// also every 250 ms, for its lag-in-time figures); and its present, which outlives a
// crashed core.

import type { Cluster, ViolationEvent } from '../../api.js';
import type { NodeInfo, QuorumInfo } from '../common/types.js';

export class ClusterSnapshot {
  nodes: NodeInfo[] = [];
  quorum: QuorumInfo | null = null;
  down: [number, number][] = [];
  /** the violations up to now */
  violations: ViolationEvent[] = [];
  #quorumAt = -1;
  #lastNow = 0;

  /** The present of `c` (ms; 0 with no cluster), or the last one read once its core has crashed. */
  now(c: Cluster | null): number {
    try {
      if (c) this.#lastNow = c.now;
      else return 0;
    } catch {
      /* a crashed core: the last time seen */
    }
    return this.#lastNow;
  }

  /** Re-reads from `c` (`changed`: events arrived); throws what the cluster throws. */
  refresh(c: Cluster, changed: boolean): void {
    this.nodes = c.nodes({ records: false }) as unknown as NodeInfo[];
    if (changed) {
      this.down = c.downLinks();
      this.violations = c.violations();
    }
    const wall = performance.now();
    if (changed || wall - this.#quorumAt > 250) {
      this.quorum = c.describeQuorum();
      this.#quorumAt = wall;
    }
  }
}
