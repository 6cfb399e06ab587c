// The UI's memory of a run: every trace event received, indexed for drawing only the
// visible window (binary searches over time-sorted arrays). Events may run ahead of the
// cluster's "now" after a seek back; they are the recorded future and are redrawn
// faded. A new action while seeked back forks the run: the store drops everything after
// the cluster's last event.

import type { Cluster } from '../cluster.js';
import type { EventType, PackedEventQuery, PackedType } from '../types.js';
import { rpcIndex, stateIndex, type UiEvent, type UiEventOf } from './types.js';

export interface Msg {
  id: number;
  from: number;
  to: number;
  /** index into RPC_KINDS */
  rpc: number;
  epoch: number;
  /** what it carried, in a line; undefined until asked of the cluster (`Store.summaryOf`) */
  summary?: string;
  sent: number;
  arrives: number;
  /** time of delivery or drop; Infinity while unknown */
  end: number;
  /** '' when delivered or in flight, else the drop reason */
  dropped: string;
  /** the drop was planned at send (partition: dies at once; loss: halfway) */
  planned: string;
  dup: boolean;
  /** a connection failure travelling back to the requester (a 'disconnect' event) */
  failed: boolean;
  seq: number;
  endSeq: number;
}

/** A marked event: its kind says which event it is (a `leader` mark is a `state` event). */
export type Mark = {
  t: number;
  seq: number;
  /** -1: the whole cluster */
  node: number;
} & ({ kind: 'leader'; ev: UiEventOf<'state'> } | { [K in MarkedType]: { kind: K; ev: UiEventOf<K> } }[MarkedType]);
type MarkedType = 'truncate' | 'crash' | 'restart' | 'snapshot' | 'violation' | 'fault' | 'write' | 'vote';

/** A step series per node: times and values (NaN = no value, the line breaks). */
export class Steps {
  t: number[] = [];
  v: number[] = [];
  push(t: number, v: number): void {
    const n = this.t.length;
    if (n && this.t[n - 1] === t) {
      this.v[n - 1] = v;
      return;
    }
    if (n && (this.v[n - 1] === v || (Number.isNaN(v) && Number.isNaN(this.v[n - 1])))) return;
    this.t.push(t);
    this.v.push(v);
  }
  /** value at time t (the last step at or before t) */
  at(t: number, dflt = NaN): number {
    const i = upperBound(this.t, t) - 1;
    return i < 0 ? dflt : this.v[i];
  }
}

export interface StateSeg {
  t: number;
  state: number;
  epoch: number;
  leader: number;
  seq: number;
  reason: string;
}

/** At most this many removed records of one truncation are shown (a snapshot can replace a whole log). */
const MAX_GHOSTS = 1000;
/** How far back (events) to look for the appends that wrote the removed records. */
const MAX_GHOST_SCAN = 200_000;

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

/**
 * The events whose text the UI shows (marks and leader changes in tooltips, labels and
 * the accessible summary; violations, faults): it draws messages, appends, flushes and
 * HW from their fields, and formatting their text would be most of a window's cost.
 */
export const STORE_TEXT: Exclude<EventType, PackedType>[] = ['state', 'truncate', 'crash', 'restart', 'snapshot', 'violation', 'fault', 'write', 'vote'];

/** How much history a scrub step reloads at least when it lands outside what the store holds (the timeline shows 3.5 s unzoomed). */
export const SCRUB_WINDOW_MS = 10_000;

/**
 * A frame with more new events than this (a jump far forward) reloads the window instead
 * (`Store.takeFrame`): taking every event of a long jump costs more than the window. Well
 * above what a frame at 100x brings (10 s of a busy cluster, ~20,000), so playing never reloads.
 */
export const MAX_FRAME_EVENTS = 50_000;

/** What the UI asks the cluster for to draw the `spanMs` before `now`: the packed form, text on `STORE_TEXT` only. */
export function windowQuery(now: number, spanMs = SCRUB_WINDOW_MS): PackedEventQuery {
  return { from: Math.max(0, now - spanMs), to: now, text: STORE_TEXT };
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const m = /\d+/.exec(v);
    return m ? Number(m[0]) : -1;
  }
  return -1;
}

/** Fields one form of an event may leave out: `text`, and a message's `summary` (`Cluster.packedEvents`). */
const OPTIONAL_FIELDS = new Set(['text', 'summary']);

/**
 * The same event, whether or not either carries `text` or a message's `summary` (the UI
 * fetches message traffic without them): every other field equal (arrays and objects by
 * their JSON), and those too where both have them.
 */
export function sameEvent(a: UiEvent, b: UiEvent): boolean {
  if (a.seq !== b.seq || a.type !== b.type) return false;
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => !OPTIONAL_FIELDS.has(k));
  if (keys.length !== Object.keys(y).filter((k) => !OPTIONAL_FIELDS.has(k)).length) return false;
  if ('summary' in x && 'summary' in y && x.summary !== y.summary) return false;
  return keys.every((k) => x[k] === y[k] || (typeof x[k] === 'object' && x[k] !== null && JSON.stringify(x[k]) === JSON.stringify(y[k])));
}

/** The steps of `st` from time `t` on, starting with value `v` there (NaN: none) as a rebuild from `t` would. */
function restart(st: Steps, t: number, v: number): Steps {
  const out = new Steps();
  if (!Number.isNaN(v)) out.push(t, v);
  for (let i = lowerBound(st.t, t); i < st.t.length; i++) out.push(st.t[i], st.v[i]);
  return out;
}

export class Store {
  nodes = 0;
  events: UiEvent[] = [];
  eventT: number[] = [];
  msgs: Msg[] = [];
  msgSent: number[] = [];
  /** the longest send-to-end span seen, to bound window queries */
  maxSpan = 1;
  private open = new Map<number, Msg>();
  states: StateSeg[][] = [];
  stateT: number[][] = [];
  hw: Steps[] = [];
  leo: Steps[] = [];
  marks: Mark[] = [];
  markT: number[] = [];
  leaders: { t: number; node: number; epoch: number; seq: number }[] = [];
  violations: UiEventOf<'violation'>[] = [];
  /** faults as applied, for the network view */
  faults: UiEventOf<'fault'>[] = [];
  lastSeq = -1;
  /** bumped on every change that needs a redraw of history */
  version = 0;
  private leoNow: number[] = [];
  /** per truncation event (seq): the epochs of the records it removed */
  private removed = new Map<number, (number | null)[]>();

  /** Where a message's summary comes from when its event came without one (`Store.summaryOf`). */
  cluster: Pick<Cluster, 'events'> | null = null;

  /** Events before this time are no longer held (see compact). */
  firstT = 0;
  /** What the nodes looked like where the held events start (after a compaction). */
  private seed: {
    states: (StateSeg | undefined)[];
    hw: number[];
    leo: number[];
    t: number;
    faults: UiEventOf<'fault'>[];
    violations: UiEventOf<'violation'>[];
    leaders: { t: number; node: number; epoch: number; seq: number }[];
  } | null = null;

  reset(nodes: number): void {
    this.seed = null;
    this.firstT = 0;
    this.clear(nodes);
  }

  private clear(nodes: number): void {
    this.nodes = nodes;
    this.events = [];
    this.eventT = [];
    this.msgs = [];
    this.msgSent = [];
    this.maxSpan = 1;
    this.open.clear();
    this.states = [];
    this.stateT = [];
    this.hw = [];
    this.leo = [];
    this.leoNow = [];
    for (let i = 0; i < nodes; i++) {
      this.states.push([]);
      this.stateT.push([]);
      this.hw.push(new Steps());
      this.leo.push(new Steps());
      this.leoNow.push(0);
    }
    this.marks = [];
    this.markT = [];
    this.leaders = [];
    this.violations = [];
    this.faults = [];
    this.lastSeq = -1;
    this.removed.clear();
    this.version++;
  }

  /**
   * Holds only the `spanMs` before the cluster's now (10 s at least), read again from the
   * cluster (what a jump outside the held history needs); earlier is shown as not held.
   */
  reload(c: Pick<Cluster, 'now' | 'nodeCount' | 'packedEvents'>, spanMs: number): void {
    const q = windowQuery(c.now, Math.max(SCRUB_WINDOW_MS, spanMs));
    this.reset(c.nodeCount);
    this.add(c.packedEvents(q));
    this.firstT = q.from ?? 0;
  }

  /**
   * Takes a player's frame (the UI's listener; the bench's scrub step): its events, or
   * after a reset that left what is held (back before it, or on past it), the
   * `spanMs` before now again.
   */
  takeFrame(c: Pick<Cluster, 'now' | 'nodeCount' | 'lastSeq' | 'packedEvents'>, events: readonly UiEvent[], reset: boolean, spanMs: number): void {
    if (reset && (c.now < this.firstT || c.lastSeq > this.lastSeq)) this.reload(c, spanMs);
    this.merge(events);
  }

  /** Adds events in seq order; ones already held (replayed after a seek) are skipped. Returns how many were new. */
  add(evs: readonly UiEvent[]): number {
    let fresh = 0;
    for (let i = 0; i < evs.length; i++) {
      const e = evs[i];
      if (e.seq <= this.lastSeq) continue;
      this.ingest(e);
      fresh++;
    }
    if (fresh) this.version++;
    return fresh;
  }

  /**
   * Takes the events the player just made. After a seek back the store already holds
   * them (the recorded future): if the first differs from what is held there, the run
   * forked and what was held from there on goes first. Compacts afterwards.
   */
  merge(events: readonly UiEvent[]): void {
    if (!events.length) return;
    const first = events[0];
    if (first.seq <= this.lastSeq) {
      const held = this.events[this.events.length - 1 - (this.lastSeq - first.seq)];
      if (!held || !sameEvent(held, first)) this.truncateAfter(first.seq - 1);
    }
    this.add(events);
    this.compact();
  }

  /** Forgets every event after `seq` (the run forked there). */
  truncateAfter(seq: number): void {
    if (seq >= this.lastSeq) return;
    let to = this.events.length;
    while (to > 0 && this.events[to - 1].seq > seq) to--;
    this.rebuild(0, to);
  }

  /**
   * Keeps memory bounded on long runs: past `max` events, forget the older half (the
   * nodes' states, HW and LEO where the kept part starts are remembered, and every
   * fault, leader and violation). The timeline shows the forgotten part as such.
   */
  compact(max = 150_000): boolean {
    if (this.events.length <= max) return false;
    let from = this.events.length - Math.floor(max / 2);
    // cut between two milliseconds, never inside one
    while (from > 0 && this.eventT[from - 1] === this.eventT[from]) from--;
    if (from <= 0) return false;
    this.dropBefore(from);
    return true;
  }

  /** Remembers what the nodes looked like just before event `from` (where the held events will start). */
  private seedAt(from: number): void {
    const cut = this.events[from];
    const before = cut.t - 0.5;
    this.seed = {
      states: this.states.map((segs) => {
        let i = segs.length - 1;
        while (i >= 0 && segs[i].seq >= cut.seq) i--;
        return i >= 0 ? segs[i] : undefined;
      }),
      hw: this.hw.map((st) => st.at(before)),
      leo: this.leo.map((st) => st.at(before, 0)),
      t: cut.t,
      faults: this.faults.filter((f) => f.seq < cut.seq),
      violations: this.violations.filter((f) => f.seq < cut.seq),
      leaders: this.leaders.filter((f) => f.seq < cut.seq),
    };
  }

  /**
   * Forgets the events before `from` in place: what `rebuild(from, end)` would hold, by
   * slicing the indexes instead of taking every kept event in again (which cost a frame
   * or several on a long run at speed).
   */
  private dropBefore(from: number): void {
    this.seedAt(from);
    const seed = this.seed!;
    const cutSeq = this.events[from].seq;
    this.events = this.events.slice(from);
    this.eventT = this.eventT.slice(from);
    // a message is held when its send (or its disconnect) is
    this.msgs = this.msgs.filter((m) => m.seq >= cutSeq);
    this.msgSent = this.msgs.map((m) => m.sent);
    for (const [id, m] of this.open) if (m.seq < cutSeq) this.open.delete(id);
    for (let n = 0; n < this.nodes; n++) {
      const sg = seed.states[n];
      const keepFrom = sg ? this.states[n].indexOf(sg) : 0;
      this.states[n] = this.states[n].slice(keepFrom);
      this.stateT[n] = this.stateT[n].slice(keepFrom);
      this.hw[n] = restart(this.hw[n], seed.t, seed.hw[n]);
      this.leo[n] = restart(this.leo[n], seed.t, seed.leo[n]);
    }
    const m0 = lowerBound(
      this.marks.map((m) => m.seq),
      cutSeq,
    );
    this.marks = this.marks.slice(m0);
    this.markT = this.markT.slice(m0);
    // faults, violations and leaders are all kept (the seed holds the older ones)
    this.firstT = seed.t;
    this.version++;
  }

  private rebuild(from: number, to: number): void {
    const kept = this.events.slice(from, to);
    if (from > 0) this.seedAt(from);
    const seed = this.seed;
    this.clear(this.nodes);
    if (seed) {
      this.firstT = seed.t;
      for (let n = 0; n < this.nodes; n++) {
        const sg = seed.states[n];
        if (sg) {
          this.states[n].push(sg);
          this.stateT[n].push(sg.t);
        }
        if (!Number.isNaN(seed.hw[n])) this.hw[n].push(seed.t, seed.hw[n]);
        this.leo[n].push(seed.t, seed.leo[n]);
        this.leoNow[n] = seed.leo[n];
      }
      this.faults = [...seed.faults];
      this.violations = [...seed.violations];
      this.leaders = [...seed.leaders];
    }
    for (const e of kept) this.ingest(e);
    this.version++;
  }

  /** Seq of the last event at or before time t (-1 if none). */
  lastSeqAt(t: number): number {
    const i = upperBound(this.eventT, t) - 1;
    return i < 0 ? -1 : this.events[i].seq;
  }

  get lastT(): number {
    const n = this.eventT.length;
    return n ? this.eventT[n - 1] : 0;
  }

  private ingest(e: UiEvent): void {
    this.events.push(e);
    this.eventT.push(e.t);
    this.lastSeq = e.seq;
    const t = e.t;
    switch (e.type) {
      case 'send': {
        const m: Msg = {
          id: e.msg ?? e.seq,
          from: num(e.from),
          to: num(e.to),
          rpc: rpcIndex(e.rpc ?? ''),
          epoch: e.epoch ?? 0,
          summary: e.summary,
          sent: t,
          arrives: e.arrives ?? t,
          end: Infinity,
          dropped: '',
          planned: e.dropped ?? '',
          dup: false,
          failed: false,
          seq: e.seq,
          endSeq: -1,
        };
        this.msgs.push(m);
        this.msgSent.push(t);
        this.open.set(m.id, m);
        this.maxSpan = Math.max(this.maxSpan, m.arrives - t);
        break;
      }
      case 'deliver':
      case 'drop': {
        const m = this.open.get(e.msg ?? -1);
        if (m) {
          this.open.delete(m.id);
          m.end = t;
          m.endSeq = e.seq;
          m.dup = e.type === 'deliver' && e.duplicate;
          if (e.type === 'drop') m.dropped = e.reason ?? 'dropped';
          this.maxSpan = Math.max(this.maxSpan, t - m.sent);
        }
        break;
      }
      case 'disconnect': {
        // Drawn as a short failed arrow from the dead peer back to the requester. It left
        // the peer before later sends: insert it where its send time keeps msgSent sorted.
        const sent = e.sent ?? t;
        const m: Msg = {
          id: -e.seq,
          from: num(e.peer),
          to: num(e.node),
          rpc: rpcIndex(e.rpc ?? ''),
          epoch: 0,
          summary: 'disconnected: BROKER_NOT_AVAILABLE',
          sent,
          arrives: t,
          end: t,
          dropped: '',
          planned: '',
          dup: false,
          failed: true,
          seq: e.seq,
          endSeq: e.seq,
        };
        const at = upperBound(this.msgSent, sent);
        this.msgs.splice(at, 0, m);
        this.msgSent.splice(at, 0, sent);
        this.maxSpan = Math.max(this.maxSpan, t - sent);
        break;
      }
      case 'state': {
        const n = num(e.node);
        if (n < 0 || n >= this.nodes) break;
        const to = stateIndex(String(e.to));
        this.pushState(n, { t, state: to, epoch: e.epoch ?? 0, leader: e.leader ?? -1, seq: e.seq, reason: e.reason ?? '' });
        if (e.to === 'leader') {
          this.leaders.push({ t, node: n, epoch: e.epoch ?? 0, seq: e.seq });
          this.mark(t, e, -1, 'leader');
        }
        if (e.to === 'leader' || e.to === 'resigned') {
          // Kafka carries no HW into Leader or Resigned (QuorumState.transitionToLeader):
          // the node has none until its next 'hw' event.
          this.hw[n].push(t, NaN);
        }
        break;
      }
      case 'crash': {
        const n = num(e.node);
        if (n < 0 || n >= this.nodes) break;
        const prev = this.states[n][this.states[n].length - 1];
        this.pushState(n, { t, state: stateIndex('crashed'), epoch: prev ? prev.epoch : 0, leader: -1, seq: e.seq, reason: 'crash' });
        this.hw[n].push(t, NaN);
        this.leoNow[n] = Math.max(0, this.leoNow[n] - (e.lostRecords ?? 0));
        this.leo[n].push(t, this.leoNow[n]);
        this.mark(t, e, n, 'crash');
        break;
      }
      case 'restart':
        this.mark(t, e, num(e.node), 'restart');
        break;
      case 'hw': {
        const n = num(e.node);
        if (n >= 0 && n < this.nodes) this.hw[n].push(t, e.new ?? NaN);
        break;
      }
      case 'append': {
        const n = num(e.node);
        if (n >= 0 && n < this.nodes) {
          this.leoNow[n] = (e.last ?? 0) + 1;
          this.leo[n].push(t, this.leoNow[n]);
        }
        break;
      }
      case 'truncate': {
        const n = num(e.node);
        if (n >= 0 && n < this.nodes) {
          this.leoNow[n] = e.to === undefined ? this.leoNow[n] : Number(e.to);
          this.leo[n].push(t, this.leoNow[n]);
        }
        this.mark(t, e, n, 'truncate');
        break;
      }
      case 'snapshot': {
        const n = num(e.node);
        if ((e.action === 'fetched' || e.action === 'loaded') && n >= 0 && n < this.nodes && e.endOffset !== undefined) {
          this.leoNow[n] = Math.max(this.leoNow[n], e.endOffset);
          this.leo[n].push(t, this.leoNow[n]);
          this.hw[n].push(t, e.endOffset);
        }
        this.mark(t, e, n, 'snapshot');
        break;
      }
      case 'fault':
        this.faults.push(e);
        this.mark(t, e, -1, 'fault');
        break;
      case 'violation':
        this.violations.push(e);
        this.mark(t, e, e.node ?? -1, 'violation');
        break;
      case 'write':
        this.mark(t, e, e.node ?? -1, 'write');
        break;
      case 'vote':
        this.mark(t, e, num(e.node), 'vote');
        break;
      default:
        break;
    }
  }

  private pushState(n: number, seg: StateSeg): void {
    const arr = this.states[n];
    const last = arr[arr.length - 1];
    if (last && last.t === seg.t) {
      arr.pop();
      this.stateT[n].pop();
    }
    arr.push(seg);
    this.stateT[n].push(seg.t);
  }

  private mark<K extends Mark['kind']>(t: number, ev: Extract<Mark, { kind: K }>['ev'], node: number, kind: K): void {
    // The signature pairs `kind` with its event type; TS cannot correlate them in the literal.
    this.marks.push({ t, seq: ev.seq, node, kind, ev } as Mark);
    this.markT.push(t);
  }

  /**
   * A message's summary: what its send event carried, else asked of the cluster once
   * (packed windows leave it out; only a tooltip or an explanation shows it).
   */
  summaryOf(m: Msg): string {
    if (m.summary === undefined) {
      const [e] = this.cluster?.events({ since: m.seq - 1, limit: 1, text: false }) ?? [];
      m.summary = e && e.seq === m.seq && (e.type === 'send' || e.type === 'deliver') ? e.summary : '';
    }
    return m.summary;
  }

  /** The state segment of a node at time t. */
  stateAt(n: number, t: number): StateSeg | undefined {
    const i = upperBound(this.stateT[n] ?? [], t) - 1;
    return i < 0 ? undefined : this.states[n][i];
  }

  /** Index range of messages that may be visible in [t0, t1]. */
  msgRange(t0: number, t1: number): [number, number] {
    return [lowerBound(this.msgSent, t0 - this.maxSpan - 1), upperBound(this.msgSent, t1)];
  }

  /**
   * The messages whose arrows lie in [t0, t1], counted per RPC kind (index into
   * RPC_KINDS), leaving out the groups in `hidden`; `dropped`: those lost on the way.
   * At most `limit` messages near the window are looked at: `more` says there are others.
   */
  messageCounts(t0: number, t1: number, hidden: ReadonlySet<number>, limit: number): { byKind: number[]; dropped: number; more: boolean } {
    const [a, b] = this.msgRange(t0, t1);
    const byKind: number[] = [];
    let dropped = 0;
    for (let i = a; i < Math.min(b, a + limit); i++) {
      const m = this.msgs[i];
      if (hidden.has(m.rpc >> 1) || (m.end === Infinity ? m.arrives : m.end) < t0) continue;
      byKind[m.rpc] = (byKind[m.rpc] ?? 0) + 1;
      if (m.dropped !== '') dropped++;
    }
    return { byKind, dropped, more: b - a > limit };
  }

  markRange(t0: number, t1: number): [number, number] {
    return [lowerBound(this.markT, t0), upperBound(this.markT, t1)];
  }

  eventRange(t0: number, t1: number): [number, number] {
    return [lowerBound(this.eventT, t0), upperBound(this.eventT, t1)];
  }

  /**
   * The records node `n` removed by its truncations in [t0, t1]: offset, the epoch it
   * had (from the append that wrote it, null when that is no longer held) and when it
   * was removed; a later truncation of an offset wins. Derived from history only, so
   * the same at a moment however it was reached.
   */
  truncated(n: number, t0: number, t1: number): { offset: number; epoch: number | null; t: number }[] {
    const [a, b] = this.markRange(t0, t1);
    const byOffset = new Map<number, { offset: number; epoch: number | null; t: number }>();
    for (let i = a; i < b; i++) {
      const m = this.marks[i];
      if (m.kind !== 'truncate' || m.node !== n) continue;
      const to = Number(m.ev.to ?? 0);
      const epochs = this.removedEpochs(m.ev, n, to, Math.min(Number(m.ev.fromLeo ?? to), to + MAX_GHOSTS));
      epochs.forEach((epoch, k) => {
        byOffset.set(to + k, { offset: to + k, epoch, t: m.t });
      });
    }
    return [...byOffset.values()].sort((x, y) => x.offset - y.offset);
  }

  /** Epochs of node `n`'s offsets [from, to) just before truncation event `ev` (cached: history does not change). */
  private removedEpochs(ev: UiEvent, n: number, from: number, to: number): (number | null)[] {
    const hit = this.removed.get(ev.seq);
    if (hit) return hit;
    const out: (number | null)[] = Array.from({ length: Math.max(0, to - from) }, () => null);
    let left = out.length;
    let end = this.events.length - 1 - (this.lastSeq - ev.seq);
    if (this.events[end] !== ev) end = this.events.indexOf(ev);
    for (let i = end - 1; i >= 0 && left > 0 && end - i <= MAX_GHOST_SCAN; i--) {
      const e = this.events[i];
      if (e.type !== 'append' || e.node !== n) continue;
      for (let o = Math.max(from, Number(e.first)); o <= Math.min(to - 1, Number(e.last)); o++) {
        if (out[o - from] === null) {
          out[o - from] = Number(e.epoch);
          left--;
        }
      }
    }
    this.removed.set(ev.seq, out);
    return out;
  }

  /** The leader (highest epoch) as of time t, from the state history. */
  leaderAt(t: number): { node: number; epoch: number } | null {
    let best: { node: number; epoch: number } | null = null;
    for (let n = 0; n < this.nodes; n++) {
      const s = this.stateAt(n, t);
      if (s && s.state === 3 && (!best || s.epoch > best.epoch)) best = { node: n, epoch: s.epoch };
    }
    return best;
  }
}
