// The lanes the timeline and the panels draw, as the core serves them (`Cluster.lanes`):
// its projection of the window on screen and of the present moment, each kept until the
// window moves past it or the run changes under it, with the lookups drawing needs
// (binary searches). It models nothing of the run itself: the bands, steps, marks and
// message spans, the recorded future after a seek back and a fork are the core's.

import { type Cluster, type LaneWindow, limit, SPAN, SPAN_DROPS, SPAN_FLAGS, SPAN_OUTCOMES, STEP } from '../../api.js';
import { stateIndex, type UiEvent, type UiEventOf } from './types.js';

/** How far back the present's lanes reach: the logs show the records a truncation removed for this long. */
export const PRESENT_MS = 4000;

export interface Msg {
  /** a connection failure: minus its seq */
  id: number;
  from: number;
  to: number;
  /** index into RPC_KINDS */
  rpc: number;
  epoch: number;
  sent: number;
  arrives: number;
  /** time of delivery or drop; Infinity while unknown */
  end: number;
  /** '' when delivered or in flight, else the drop reason */
  dropped: string;
  /** the drop the network planned at send (partition: dies at once; loss: halfway) */
  planned: string;
  dup: boolean;
  /** a connection failure travelling back to the requester (a 'disconnect' event) */
  failed: boolean;
  /** what its summary says that the timeline draws (`SPAN_OUTCOMES`) */
  outcome: string;
  /** its send (or failure) event; 0: sent before what the core read for the window */
  seq: number;
  endSeq: number;
}

/** A marked event: its kind says which event it is (a `leader` mark is a `state` event). */
export type Mark = {
  t: number;
  seq: number;
  /** -1: the whole cluster */
  node: number;
  /** a truncation: the epochs of the records it removed, from its `to` on (null: not known) */
  removed: readonly (number | null)[];
} & ({ kind: 'leader'; ev: UiEventOf<'state'> } | { [K in MarkedType]: { kind: K; ev: UiEventOf<K> } }[MarkedType]);
type MarkedType = 'truncate' | 'crash' | 'restart' | 'snapshot' | 'violation' | 'fault' | 'write' | 'vote';

/** A node's state from `t` on, as its band on the timeline. */
export interface StateSeg {
  t: number;
  /** index into STATES */
  state: number;
  from: number;
  epoch: number;
  /** -1: none */
  leader: number;
  /** the `state` (or `crash`) event that began it */
  seq: number;
  reason: string;
  /** a crash: the HW the node last had */
  hw: number | null;
}

/** A record removed by a truncation at simulated time `t` (epoch null: not known any more). */
export interface Ghost {
  offset: number;
  epoch: number | null;
  t: number;
}

export function upperBound(a: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function lowerBound(a: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A node's HW or LEO steps as the core sent them (`STEP.width` numbers a step; value NaN: none, the line breaks). */
export class Steps {
  readonly length: number;
  constructor(private readonly a: Float64Array) {
    this.length = a.length / STEP.width;
  }
  t(i: number): number {
    return this.a[i * STEP.width + STEP.t];
  }
  v(i: number): number {
    return this.a[i * STEP.width + STEP.value];
  }
  /** The event that set step `i`. */
  seq(i: number): number {
    return this.a[i * STEP.width + STEP.seq];
  }
  /** Index of the first step after time `t`. */
  upper(t: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.t(mid) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  /** value at t (the last step at or before t) */
  at(t: number, dflt = NaN): number {
    const i = this.upper(t) - 1;
    return i < 0 ? dflt : this.v(i);
  }
}

/** The message spans as the core sent them, by send time: numbers each, a `Msg` built when asked (`at`). */
export class Messages {
  readonly length: number;
  constructor(private readonly rows: Float64Array) {
    this.length = rows.length / SPAN.width;
  }
  /** Field `f` (of `SPAN`) of message `i`. */
  num(i: number, f: number): number {
    return this.rows[i * SPAN.width + f];
  }
  sent(i: number): number {
    return this.num(i, SPAN.sent);
  }
  id(i: number): number {
    return this.num(i, SPAN.msg);
  }
  seq(i: number): number {
    return this.num(i, SPAN.seq);
  }
  /** Message `i` as an object (a fresh one). */
  at(i: number): Msg {
    const n = (f: number) => this.num(i, f);
    const flags = n(SPAN.flags);
    const drop = (k: number) => (k < 0 ? '' : SPAN_DROPS[k]);
    return {
      id: n(SPAN.msg),
      from: n(SPAN.from),
      to: n(SPAN.to),
      rpc: n(SPAN.rpc),
      epoch: n(SPAN.epoch),
      sent: n(SPAN.sent),
      arrives: n(SPAN.arrives),
      end: n(SPAN.end),
      dropped: drop(n(SPAN.dropped)),
      planned: drop(n(SPAN.planned)),
      dup: (flags & SPAN_FLAGS.duplicate) !== 0,
      failed: (flags & SPAN_FLAGS.failed) !== 0,
      outcome: SPAN_OUTCOMES[n(SPAN.outcome)],
      seq: n(SPAN.seq),
      endSeq: n(SPAN.endSeq),
    };
  }
  /** Index of the first message sent after `t` (`after`), or at or after it. */
  bound(t: number, after: boolean): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const sent = this.sent(mid);
      if (sent < t || (after && sent === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** One projection of the core, with the lookups drawing needs. */
export class LaneView {
  readonly from: number;
  readonly to: number;
  /** the end of the recorded run: bands and steps run on to it */
  readonly horizon: number;
  readonly states: StateSeg[][];
  readonly stateT: number[][];
  readonly hw: Steps[];
  readonly leo: Steps[];
  readonly msgs: Messages;
  readonly marks: Mark[];
  readonly markT: number[];
  /** the longest a message lasted (send to end, or to arrival while unknown): how long before a window a send still shows in it */
  readonly maxSpan: number;

  constructor(w: LaneWindow) {
    this.from = w.from;
    this.to = w.to;
    this.horizon = w.horizon;
    this.states = w.lanes.map((l) =>
      l.bands.map((b) => ({ t: b.t, state: stateIndex(b.state), from: stateIndex(b.from), epoch: b.epoch, leader: b.leader ?? -1, seq: b.seq, reason: b.reason ?? 'crash', hw: b.hw })),
    );
    this.stateT = this.states.map((segs) => segs.map((s) => s.t));
    this.hw = w.lanes.map((l) => new Steps(l.hw));
    this.leo = w.lanes.map((l) => new Steps(l.leo));
    this.msgs = new Messages(w.spans);
    // The mark's kind names its event's type (a `leader` mark: a `state` event).
    this.marks = w.marks.map((m) => ({ t: m.event.t, seq: m.event.seq, node: m.node ?? -1, kind: m.kind, ev: m.event, removed: m.removed }) as Mark);
    this.markT = this.marks.map((m) => m.t);
    let maxSpan = 1;
    for (let i = 0; i < this.msgs.length; i++) {
      const end = this.msgs.num(i, SPAN.end);
      maxSpan = Math.max(maxSpan, (end === Infinity ? this.msgs.num(i, SPAN.arrives) : end) - this.msgs.sent(i));
    }
    this.maxSpan = maxSpan;
  }

  get nodes(): number {
    return this.states.length;
  }

  /** Whether it holds [t0, t1]. */
  covers(t0: number, t1: number): boolean {
    return this.from <= t0 && t1 <= this.to;
  }

  /** The state segment of a node at time t. */
  stateAt(n: number, t: number): StateSeg | undefined {
    const i = upperBound(this.stateT[n] ?? [], t) - 1;
    return i < 0 ? undefined : this.states[n][i];
  }

  /** Index range of messages that may be visible in [t0, t1]. */
  msgRange(t0: number, t1: number): [number, number] {
    return [this.msgs.bound(t0 - this.maxSpan - 1, false), this.msgs.bound(t1, true)];
  }

  markRange(t0: number, t1: number): [number, number] {
    return [lowerBound(this.markT, t0), upperBound(this.markT, t1)];
  }

  /**
   * The messages whose arrows lie in [t0, t1], counted per RPC kind (index into
   * RPC_KINDS), leaving out the groups in `hidden`; `dropped`: those lost on the way.
   * At most `limit` messages near the window are looked at: `more` says there are others.
   */
  messageCounts(t0: number, t1: number, hidden: ReadonlySet<number>, limit: number): { byKind: number[]; dropped: number; more: boolean } {
    const [a, b] = this.msgRange(t0, t1);
    const msgs = this.msgs;
    const byKind: number[] = [];
    let dropped = 0;
    for (let i = a; i < Math.min(b, a + limit); i++) {
      const rpc = msgs.num(i, SPAN.rpc);
      const end = msgs.num(i, SPAN.end);
      if (hidden.has(rpc >> 1) || (end === Infinity ? msgs.num(i, SPAN.arrives) : end) < t0) continue;
      byKind[rpc] = (byKind[rpc] ?? 0) + 1;
      if (msgs.num(i, SPAN.dropped) >= 0) dropped++;
    }
    return { byKind, dropped, more: b - a > limit };
  }

  /** The records node `n` removed by its truncations in [t0, t1], by offset; a later truncation of an offset wins. */
  truncated(n: number, t0: number, t1: number): Ghost[] {
    const [a, b] = this.markRange(t0, t1);
    const byOffset = new Map<number, Ghost>();
    for (let i = a; i < b; i++) {
      const m = this.marks[i];
      if (m.kind !== 'truncate' || m.node !== n) continue;
      const to = Number(m.ev.to ?? 0);
      m.removed.forEach((epoch, k) => {
        byOffset.set(to + k, { offset: to + k, epoch, t: m.t });
      });
    }
    return [...byOffset.values()].sort((x, y) => x.offset - y.offset);
  }
}

/** No lanes: before a cluster, or when the core cannot answer. */
const NO_LANES = new LaneView({ from: 0, to: -1, horizon: 0, lanes: [], spans: new Float64Array(0), marks: [] });

/**
 * The lanes the views draw, each projection kept until the window moves past it or the
 * run changes under it; a view redraws when it is handed another `LaneView`.
 */
export class Store {
  #cluster: Pick<Cluster, 'lanes' | 'lastSeq' | 'horizon' | 'forks' | 'events' | 'nodeCount'> | null = null;
  #timeline = NO_LANES;
  #present = NO_LANES;
  /** The run as last asked: its last seq (-1: ask again), the end of what it recorded, its forks. */
  #seq = -1;
  #horizon = 0;
  #forks = 0;
  /** The widest window asked for: the span limit, halved each time a window held more events than one projection reads. */
  #spanCap = 0;
  /** Message summaries asked of the cluster, by the send's seq; events by seq (for the highlight's rings). */
  #summaries = new Map<number, string>();
  #events = new Map<number, UiEvent | null>();

  /** Shows the lanes of `c` from now on. */
  attach(c: Pick<Cluster, 'lanes' | 'lastSeq' | 'horizon' | 'forks' | 'events' | 'nodeCount'>): void {
    this.#cluster = c;
    this.#spanCap = limit('lanesSpanMs').max;
    this.#seq = -1;
    this.#horizon = 0;
    this.#forks = 0;
    this.#timeline = this.#present = NO_LANES;
    this.#summaries.clear();
    this.#events.clear();
  }

  get nodes(): number {
    return this.#cluster?.nodeCount ?? 0;
  }

  /**
   * The lanes of [t0, t1] (the timeline's window) and, when `now` is in it, of the
   * present too (one projection for both). While the run stands still, a margin of half
   * the window each side lets the view pan without asking again.
   */
  window(t0: number, t1: number, now: number): LaneView {
    const still = this.#sync();
    const lo = Math.max(0, Math.floor(t0));
    const hi = Math.max(lo, Math.ceil(t1));
    if (this.#timeline.covers(lo, hi)) return this.#timeline;
    const from = now >= lo && now <= hi ? Math.min(lo, now - PRESENT_MS) : lo;
    const margin = still ? (hi - lo) / 2 : 0;
    this.#timeline = this.#project(from - margin, hi + margin) ?? this.#timeline;
    return this.#timeline;
  }

  /** The lanes of the present moment: the [now - PRESENT_MS, now] the panels and the ring show. */
  present(now: number): LaneView {
    this.#sync();
    const lo = Math.max(0, now - PRESENT_MS);
    if (this.#timeline.covers(lo, now)) return this.#timeline;
    if (!this.#present.covers(lo, now)) this.#present = this.#project(lo, now) ?? this.#present;
    return this.#present;
  }

  /**
   * Whether the run stands as it was when last asked (its last seq, horizon and forks).
   * When it moved (a frame played, a seek), lanes stay if they end before what was
   * recorded when they were projected and before what is recorded now: those are the same
   * run's still. An action taken before the horizon forks the recorded run from its moment
   * on (whoever took it: the element, a page's own call), which the core counts: then
   * everything goes, summaries and events by seq too (the seqs after it are other events).
   */
  #sync(): boolean {
    const c = this.#cluster;
    let seq: number;
    let horizon: number;
    let forks: number;
    try {
      seq = c?.lastSeq ?? -1;
      horizon = c?.horizon ?? 0;
      forks = c?.forks ?? 0;
    } catch {
      /* a crashed core: what was drawn stays */
      return true;
    }
    if (seq === this.#seq && horizon === this.#horizon && forks === this.#forks) return true;
    const forked = forks !== this.#forks;
    this.#seq = seq;
    this.#horizon = horizon;
    this.#forks = forks;
    if (forked) {
      this.#timeline = this.#present = NO_LANES;
      this.#summaries.clear();
      this.#events.clear();
      return false;
    }
    const recorded = (v: LaneView) => (v.to < Math.min(v.horizon, horizon) ? v : NO_LANES);
    this.#timeline = recorded(this.#timeline);
    this.#present = recorded(this.#present);
    return false;
  }

  /** The core's lanes of [from, to], at most the span cap wide (kept at the right); null when it cannot answer. */
  #project(from: number, to: number): LaneView | null {
    const c = this.#cluster;
    if (!c) return null;
    const hi = Math.max(0, Math.ceil(to));
    for (;;) {
      const lo = Math.max(0, Math.floor(from), hi - this.#spanCap);
      try {
        return new LaneView(c.lanes({ from: lo, to: hi }));
      } catch (e) {
        // a window that holds more events than one projection reads: narrower from now on
        if (!(e instanceof RangeError) || hi - lo < 2) return null;
        this.#spanCap = Math.floor((hi - lo) / 2);
      }
    }
  }

  /**
   * A message's summary, asked of the cluster once (the lanes carry only what it says
   * that the timeline draws; a tooltip or an explanation shows the rest).
   */
  summaryOf(m: Msg): string {
    let s = this.#summaries.get(m.seq);
    if (s === undefined) {
      const [e] = m.seq > 0 ? (this.#cluster?.events({ since: m.seq - 1, limit: 1, text: false }) ?? []) : [];
      s = e && e.seq === m.seq && (e.type === 'send' || e.type === 'deliver') ? e.summary : '';
      this.#summaries.set(m.seq, s);
    }
    return s;
  }

  /** The event with this seq (asked of the cluster once; undefined: none), for what the highlight rings. */
  eventBySeq(seq: number): UiEvent | undefined {
    let e = this.#events.get(seq);
    if (e === undefined) {
      const [got] = this.#cluster?.events({ since: seq - 1, limit: 1, text: false }) ?? [];
      e = got && got.seq === seq ? (got as UiEvent) : null;
      this.#events.set(seq, e);
    }
    return e ?? undefined;
  }
}
