// The UI's memory of a run: every trace event received, indexed for drawing only the
// visible window (binary searches over time-sorted arrays). Message traffic (sends,
// deliveries, drops: nearly all of a run) is held as rows of numbers, not objects (a
// window of live objects made the garbage collector pause for frames); its events and
// messages are built as objects only when asked (what is drawn, hovered, explained). Events may run ahead of the
// cluster's "now" after a seek back; they are the recorded future and are redrawn
// faded. A new action while seeked back forks the run: the store drops everything after
// the cluster's last event.

import type { Cluster } from '../../cluster.js';
import { PACKED_ROWS } from '../../generated/wire.js';
import { PACKED_TYPES, type PackedBatch, readRow, rowEnd } from '../../packed.js';
import type { EventType, NodeInfo, PackedEventQuery, PackedType } from '../../types.js';
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
  /** its `state` (or `crash`) event; 0 when that is not held (the state in force where a reloaded window starts) */
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

/**
 * Where the newest `keep` of two lists sorted by distinct seqs start: `[i, j]` such that
 * `a` from `i` and `b` from `j` are those `keep`, found by binary search (a compaction
 * of a long run must not walk the half it keeps).
 */
export function splitNewest(a: (i: number) => number, na: number, b: (j: number) => number, nb: number, keep: number): [number, number] {
  const drop = Math.max(0, na + nb - keep);
  // i of `a` dropped, `drop - i` of `b`: the last dropped of each before the first kept of the other
  let lo = Math.max(0, drop - nb);
  let hi = Math.min(na, drop);
  while (lo < hi) {
    const i = (lo + hi) >> 1;
    // too few of `a` dropped while a kept one of `a` is older than a dropped one of `b`
    if (a(i) < b(drop - i - 1)) lo = i + 1;
    else hi = i;
  }
  return [lo, drop - lo];
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
  const i = lowerBound(st.t, t);
  if (i === st.t.length) return out;
  out.push(st.t[i], st.v[i]);
  // past the first, the steps are already as push leaves them: copied whole
  out.t = out.t.concat(st.t.slice(i + 1));
  out.v = out.v.concat(st.v.slice(i + 1));
  return out;
}

/** A batch's first event (by seq), as an object. */
function firstOf(b: PackedBatch): UiEvent | undefined {
  const other = b.rest.events[0] as UiEvent | undefined;
  if (!b.numbers.length || (other && other.seq < b.numbers[1])) return other;
  return readRow(b.numbers, 0, b.rest.names) as UiEvent;
}

/**
 * The packed types held as rows of numbers (`Rows`): all but connection failures, which
 * are few and drawn as messages inserted by their send time (`Messages`).
 */
type RowType = Exclude<PackedType, 'disconnect'>;
const code = (type: RowType): number => PACKED_TYPES.indexOf(type);
const [SEND, DELIVER, DROP, APPEND, FLUSH, HW] = (['send', 'deliver', 'drop', 'append', 'flush', 'hw'] as const).map(code);
const IN_ROWS = PACKED_TYPES.map((_, c) => [SEND, DELIVER, DROP, APPEND, FLUSH, HW].includes(c));
/** Where a field of a row is (from its start: code, seq and t come first). */
const field = (c: number, name: string): number => 3 + PACKED_ROWS[c][1].findIndex(([n]) => n === name);
const F = {
  msg: field(SEND, 'msg'),
  from: field(SEND, 'from'),
  to: field(SEND, 'to'),
  rpc: field(SEND, 'rpc'),
  epoch: field(SEND, 'epoch'),
  arrives: field(SEND, 'arrives'),
  planned: field(SEND, 'dropped'),
  deliverMsg: field(DELIVER, 'msg'),
  duplicate: field(DELIVER, 'duplicate'),
  dropMsg: field(DROP, 'msg'),
  reason: field(DROP, 'reason'),
  appendNode: field(APPEND, 'node'),
  appendFirst: field(APPEND, 'first'),
  appendLast: field(APPEND, 'last'),
  appendEpoch: field(APPEND, 'epoch'),
  hwNode: field(HW, 'node'),
  hwNew: field(HW, 'new'),
};

/** A growable array of numbers. */
class Numbers {
  a = new Float64Array(1024);
  n = 0;
  /** Room for `k` more. */
  reserve(k: number): void {
    if (this.n + k <= this.a.length) return;
    const b = new Float64Array(Math.max(this.a.length * 2, this.n + k));
    b.set(this.a.subarray(0, this.n));
    this.a = b;
  }
  /** Forgets the first `k`. */
  dropFirst(k: number): void {
    this.a.copyWithin(0, k, this.n);
    this.n -= k;
  }
}

/** Strings the rows name, by index (the store's own: each batch has its own indexes). */
class Names {
  readonly list: string[] = [];
  readonly #index = new Map<string, number>();
  of(s: string): number {
    let i = this.#index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.#index.set(s, i);
    }
    return i;
  }
}

/** Events held as rows of numbers, oldest first: laid out as the core packs them, names as the store's `Names`. */
export class Rows {
  readonly rows = new Numbers();
  /** where each row starts */
  readonly starts = new Numbers();
  constructor(private readonly names: Names) {}
  get length(): number {
    return this.starts.n;
  }
  /** Where row `k` starts in `rows.a`. */
  at(k: number): number {
    return this.starts.a[k];
  }
  seq(k: number): number {
    return this.rows.a[this.starts.a[k] + 1];
  }
  t(k: number): number {
    return this.rows.a[this.starts.a[k] + 2];
  }
  /** Index of the first row with seq >= `seq`. */
  lowerBound(seq: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.seq(mid) < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  /** Index of the first row after time `t`. */
  upperBoundT(t: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.t(mid) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  /** Row `k` as its event (a send with its summary, when known). */
  event(k: number, summaries: ReadonlyMap<number, string>): UiEvent {
    const e = readRow(this.rows.a, this.at(k), this.names.list) as UiEvent;
    const summary = e.type === 'send' ? summaries.get(e.seq) : undefined;
    if (summary !== undefined) (e as UiEventOf<'send'>).summary = summary;
    return e;
  }
  /** Appends the row at `i` of `numbers` (names indexed by `names`); returns its index. */
  pushRow(numbers: Float64Array, i: number, names: ArrayLike<number>): number {
    const c = numbers[i];
    const end = rowEnd(numbers, i);
    this.rows.reserve(end - i);
    const a = this.rows.a;
    const o = this.rows.n;
    // a loop, not set(subarray): no view object per row
    for (let j = i; j < end; j++) a[o + j - i] = numbers[j];
    const fields = PACKED_ROWS[c][1];
    for (let j = 0; j < fields.length; j++) {
      const kind = fields[j][1];
      const v = a[o + 3 + j];
      if (kind === 'name' || (kind === 'maybeName' && v >= 0)) a[o + 3 + j] = names[v];
    }
    this.rows.n = o + end - i;
    return this.#start(o);
  }
  /** Appends an event given as an object (of a type held in rows); returns its index. */
  pushEvent(e: UiEventOf<RowType>): number {
    const c = PACKED_TYPES.indexOf(e.type);
    const x = e as unknown as Record<string, unknown>;
    const v: number[] = [c, e.seq, e.t];
    for (const [name, kind] of PACKED_ROWS[c][1]) {
      const f = x[name];
      if (kind === 'list') v.push((f as number[]).length, ...(f as number[]));
      else if (kind === 'flag') v.push(f ? 1 : 0);
      else if (kind === 'name') v.push(this.names.of(String(f)));
      else if (kind === 'maybeName') v.push(f == null ? -1 : this.names.of(String(f)));
      else if (kind === 'maybeNumber') v.push(f == null ? NaN : Number(f));
      else v.push(Number(f));
    }
    this.rows.reserve(v.length);
    const o = this.rows.n;
    this.rows.a.set(v, o);
    this.rows.n = o + v.length;
    return this.#start(o);
  }
  #start(o: number): number {
    this.starts.reserve(1);
    this.starts.a[this.starts.n] = o;
    return this.starts.n++;
  }
  clear(): void {
    this.rows.n = 0;
    this.starts.n = 0;
  }
  /** Forgets the rows before row `k`. */
  dropFirst(k: number): void {
    if (k === 0) return;
    const off = k < this.length ? this.at(k) : this.rows.n;
    this.rows.dropFirst(off);
    this.starts.dropFirst(k);
    const s = this.starts.a;
    for (let j = 0; j < this.starts.n; j++) s[j] -= off;
  }
}

/** A message's fields in its row of `Messages` (`Messages.num`). */
export const MSG = { id: 0, from: 1, to: 2, rpc: 3, epoch: 4, sent: 5, arrives: 6, end: 7, dropped: 8, planned: 9, flags: 10, seq: 11, endSeq: 12 };
const M = MSG;
const MW = 13;
const DUP = 1;
const FAILED = 2;
const DISCONNECTED = 'disconnected: BROKER_NOT_AVAILABLE';
/** A message's row being written (`Store.ingestRow`, a disconnect). */
const MSG_SCRATCH = new Float64Array(MW);

/** The messages held, sorted by send time: a row of numbers each, a `Msg` built when asked (`at`). */
export class Messages {
  readonly rows = new Numbers();
  /** summaries known, by the send's seq */
  readonly summaries = new Map<number, string>();
  constructor(private readonly names: Names) {}
  get length(): number {
    return this.rows.n / MW;
  }
  /** Field `f` (of `MSG`) of message `i`. */
  num(i: number, f: number): number {
    return this.rows.a[i * MW + f];
  }
  sent(i: number): number {
    return this.rows.a[i * MW + M.sent];
  }
  id(i: number): number {
    return this.rows.a[i * MW + M.id];
  }
  seq(i: number): number {
    return this.rows.a[i * MW + M.seq];
  }
  /** Message `i` as an object (a fresh one: changing it changes nothing held). */
  at(i: number): Msg {
    const a = this.rows.a;
    const o = i * MW;
    const flags = a[o + M.flags];
    const failed = (flags & FAILED) !== 0;
    const seq = a[o + M.seq];
    return {
      id: a[o + M.id],
      from: a[o + M.from],
      to: a[o + M.to],
      rpc: a[o + M.rpc],
      epoch: a[o + M.epoch],
      summary: failed ? DISCONNECTED : this.summaries.get(seq),
      sent: a[o + M.sent],
      arrives: a[o + M.arrives],
      end: a[o + M.end],
      dropped: a[o + M.dropped] < 0 ? '' : this.names.list[a[o + M.dropped]],
      planned: a[o + M.planned] < 0 ? '' : this.names.list[a[o + M.planned]],
      dup: (flags & DUP) !== 0,
      failed,
      seq,
      endSeq: a[o + M.endSeq],
    };
  }
  clear(): void {
    this.rows.n = 0;
    this.summaries.clear();
  }
  /** Inserts a message at index `at` (the end by default); `v` by the fields of `M`. */
  insert(v: ArrayLike<number>, at = this.length): void {
    this.rows.reserve(MW);
    const a = this.rows.a;
    if (at < this.length) a.copyWithin((at + 1) * MW, at * MW, this.rows.n);
    a.set(v, at * MW);
    this.rows.n += MW;
  }
  /** Message `i` ended at `t` (event `seq`): delivered (maybe a duplicate) or dropped (`reason`: a name index). */
  end(i: number, t: number, seq: number, dup: boolean, reason: number): void {
    const o = i * MW;
    const a = this.rows.a;
    a[o + M.end] = t;
    a[o + M.endSeq] = seq;
    a[o + M.flags] = (a[o + M.flags] & ~DUP) | (dup ? DUP : 0);
    if (reason >= 0) a[o + M.dropped] = reason;
  }
  /** Keeps only the messages whose send (or disconnect) is at `seq` or later; returns each old index's new one (-1: gone). */
  keepFrom(seq: number): Int32Array {
    const n = this.length;
    const moved = new Int32Array(n).fill(-1);
    const a = this.rows.a;
    let w = 0;
    // each run of kept messages moves in one copy (after a compaction's cut, most are one run)
    for (let i = 0; i < n; ) {
      if (a[i * MW + M.seq] < seq) {
        i++;
        continue;
      }
      let j = i;
      for (; j < n && a[j * MW + M.seq] >= seq; j++) moved[j] = w + j - i;
      if (w !== i) a.copyWithin(w * MW, i * MW, j * MW);
      w += j - i;
      i = j;
    }
    this.rows.n = w * MW;
    for (const k of this.summaries.keys()) if (k < seq) this.summaries.delete(k);
    return moved;
  }
}

export class Store {
  nodes = 0;
  /** The events that are not message traffic (objects), oldest first, and their times. */
  others: UiEvent[] = [];
  otherT: number[] = [];
  readonly #names = new Names();
  /** The events of the packed types held (message traffic, appends, flushes, HW moves: most of a run), oldest first. */
  readonly rows = new Rows(this.#names);
  /** The messages drawn (from the sends and connection failures), sorted by send time. */
  readonly msgs = new Messages(this.#names);
  /** the longest send-to-end span seen, to bound window queries */
  maxSpan = 1;
  /** the messages in flight, by id: their index in `msgs` */
  private open = new Map<number, number>();
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
    this.others = [];
    this.otherT = [];
    // the same buffers again: new ones on every jump kept the full collector busy
    this.rows.clear();
    this.msgs.clear();
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

  /** How many events are held. */
  get eventCount(): number {
    return this.others.length + this.rows.length;
  }

  /** The held event with this seq, as an object (undefined: not held). */
  eventBySeq(seq: number): UiEvent | undefined {
    const o = this.otherIndex(seq);
    if (o < this.others.length && this.others[o].seq === seq) return this.others[o];
    const k = this.rows.lowerBound(seq);
    return k < this.rows.length && this.rows.seq(k) === seq ? this.rows.event(k, this.msgs.summaries) : undefined;
  }

  /** Index in `others` of the first event with seq >= `seq`. */
  private otherIndex(seq: number): number {
    let lo = 0;
    let hi = this.others.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.others[mid].seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The seq and time of the held event just before seq `seq` (null: none). */
  private before(seq: number): { seq: number; t: number } | null {
    const o = this.otherIndex(seq) - 1;
    const k = this.rows.lowerBound(seq) - 1;
    const os = o >= 0 ? this.others[o].seq : -Infinity;
    const ks = k >= 0 ? this.rows.seq(k) : -Infinity;
    if (o < 0 && k < 0) return null;
    return os > ks ? { seq: os, t: this.otherT[o] } : { seq: ks, t: this.rows.t(k) };
  }

  /**
   * Holds only the `spanMs` before the cluster's now (10 s at least), read again from the
   * cluster (what a jump outside the held history needs); earlier is shown as not held.
   */
  reload(c: Pick<Cluster, 'now' | 'nodeCount' | 'packedBatch' | 'nodesAt'>, spanMs: number): void {
    const q = windowQuery(c.now, Math.max(SCRUB_WINDOW_MS, spanMs));
    const from = q.from ?? 0;
    this.reset(c.nodeCount);
    // the nodes as they were just before the window (its events at `from` come on top)
    if (from > 0) this.seedFrom(from, c.nodesAt(from - 1));
    this.addBatch(c.packedBatch(q));
    this.firstT = from;
  }

  /** Starts the held history at `t` with the nodes as `nodes` (the cluster's `nodesAt`) says they were just before it. */
  private seedFrom(t: number, nodes: readonly NodeInfo[]): void {
    this.seed = {
      // seq 0: the event that started the state is not held
      states: nodes.map((v) => {
        const crashed = v.state === 'crashed';
        return { t, state: stateIndex(v.state), epoch: v.epoch, leader: crashed ? -1 : (v.leader ?? -1), seq: 0, reason: '' };
      }),
      hw: nodes.map((v) => v.hw ?? NaN),
      leo: nodes.map((v) => v.leo),
      t,
      faults: [],
      violations: [],
      leaders: [],
    };
    this.startFromSeed();
  }

  /**
   * Takes a player's frame (the UI's listener; the bench's scrub step): its events (as
   * objects, or the batches of a player with `packed.batches`), or after a reset that
   * left what is held (back before it, or on past it), the `spanMs` before now again.
   */
  takeFrame(c: Pick<Cluster, 'now' | 'nodeCount' | 'lastSeq' | 'packedBatch' | 'nodesAt'>, events: readonly UiEvent[] | readonly PackedBatch[], reset: boolean, spanMs: number): void {
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

  /** Takes `e` in unless it is held already; 1 if it was new. */
  private ingestNew(e: UiEvent): number {
    if (e.seq <= this.lastSeq) return 0;
    this.ingest(e);
    return 1;
  }

  /** `add` for a packed batch as it crossed: its message rows stay numbers. Returns how many were new. */
  addBatch(b: PackedBatch): number {
    const { numbers, rest } = b;
    const names = rest.names.map((s) => this.#names.of(s));
    const others = rest.events as UiEvent[];
    let fresh = 0;
    let j = 0;
    for (let i = 0; i < numbers.length; ) {
      const seq = numbers[i + 1];
      for (; j < others.length && others[j].seq < seq; j++) fresh += this.ingestNew(others[j]);
      const end = rowEnd(numbers, i);
      if (seq > this.lastSeq) {
        const code = numbers[i];
        if (IN_ROWS[code]) this.ingestRow(this.rows.pushRow(numbers, i, names));
        else this.ingest(readRow(numbers, i, rest.names) as UiEvent);
        fresh++;
      }
      i = end;
    }
    for (; j < others.length; j++) fresh += this.ingestNew(others[j]);
    if (fresh) this.version++;
    return fresh;
  }

  /**
   * Takes the events the player just made (objects, or batches). After a seek back the
   * store already holds them (the recorded future): if the first differs from what is
   * held there, the run forked and what was held from there on goes first. Compacts afterwards.
   */
  merge(events: readonly UiEvent[] | readonly PackedBatch[]): void {
    if (!events.length) return;
    const batches = 'numbers' in events[0];
    const first = batches ? firstOf(events[0] as PackedBatch) : (events[0] as UiEvent);
    if (!first) return;
    if (first.seq <= this.lastSeq) {
      const held = this.eventBySeq(first.seq);
      if (!held || !sameEvent(held, first)) this.truncateAfter(first.seq - 1);
    }
    if (batches) for (const b of events as readonly PackedBatch[]) this.addBatch(b);
    else this.add(events as readonly UiEvent[]);
    this.compact();
  }

  /** Forgets every event after `seq` (the run forked there). */
  truncateAfter(seq: number): void {
    if (seq >= this.lastSeq) return;
    this.rebuild(null, seq);
  }

  /**
   * Keeps memory bounded on long runs: past `max` events, forget the older half (the
   * nodes' states, HW and LEO where the kept part starts are remembered, and every
   * fault, leader and violation). The timeline shows the forgotten part as such.
   */
  compact(max = 150_000): boolean {
    if (this.eventCount <= max) return false;
    // the first event kept: the newest half of both kinds together
    const [o, k] = splitNewest(
      (i) => this.others[i].seq,
      this.others.length,
      (i) => this.rows.seq(i),
      this.rows.length,
      Math.floor(max / 2),
    );
    const next = (): { seq: number; t: number } =>
      o < this.others.length && (k >= this.rows.length || this.others[o].seq < this.rows.seq(k)) ? { seq: this.others[o].seq, t: this.otherT[o] } : { seq: this.rows.seq(k), t: this.rows.t(k) };
    let cut = next();
    // cut between two milliseconds, never inside one
    for (let prev = this.before(cut.seq); prev && prev.t === cut.t; prev = this.before(cut.seq)) cut = prev;
    if (!this.before(cut.seq)) return false;
    this.dropBefore(cut);
    return true;
  }

  /** Remembers what the nodes looked like just before event `cut` (where the held events will start). */
  private seedAt(cut: { seq: number; t: number }): void {
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
   * Forgets the events before `cut` in place: what `rebuild(cut, lastSeq)` would hold, by
   * slicing the indexes instead of taking every kept event in again (which cost a frame
   * or several on a long run at speed).
   */
  private dropBefore(cut: { seq: number; t: number }): void {
    this.seedAt(cut);
    const seed = this.seed!;
    const cutSeq = cut.seq;
    const o = this.otherIndex(cutSeq);
    this.others = this.others.slice(o);
    this.otherT = this.otherT.slice(o);
    this.rows.dropFirst(this.rows.lowerBound(cutSeq));
    // a message is held when its send (or its disconnect) is
    const moved = this.msgs.keepFrom(cutSeq);
    for (const [id, i] of this.open) {
      if (moved[i] < 0) this.open.delete(id);
      else this.open.set(id, moved[i]);
    }
    for (let n = 0; n < this.nodes; n++) {
      const sg = seed.states[n];
      const keepFrom = sg ? this.states[n].indexOf(sg) : 0;
      this.states[n] = this.states[n].slice(keepFrom);
      this.stateT[n] = this.stateT[n].slice(keepFrom);
      this.hw[n] = restart(this.hw[n], seed.t, seed.hw[n]);
      this.leo[n] = restart(this.leo[n], seed.t, seed.leo[n]);
    }
    // the cut is where a millisecond starts: the marks before it are those before its time
    const m0 = lowerBound(this.markT, seed.t);
    this.marks = this.marks.slice(m0);
    this.markT = this.markT.slice(m0);
    // faults, violations and leaders are all kept (the seed holds the older ones)
    this.firstT = seed.t;
    this.version++;
  }

  /** Holds only the events from `from` (null: the first held; else remembering the nodes there) to seq `to`, taken in again. */
  private rebuild(from: { seq: number; t: number } | null, to: number): void {
    const fromSeq = from ? from.seq : -Infinity;
    const others = this.others.slice(this.otherIndex(fromSeq), this.otherIndex(to + 1));
    const ev = this.rows;
    const [k0, k1] = [ev.lowerBound(fromSeq), ev.lowerBound(to + 1)];
    const rows = ev.rows.a.slice(k0 < ev.length ? ev.at(k0) : ev.rows.n, k1 < ev.length ? ev.at(k1) : ev.rows.n);
    const summaries = new Map(this.msgs.summaries);
    if (from && this.before(from.seq)) this.seedAt(from);
    this.clear(this.nodes);
    this.startFromSeed();
    // the rows already hold the store's name indexes
    const same = this.#names.list.map((_, i) => i);
    let j = 0;
    for (let i = 0; i < rows.length; i = rowEnd(rows, i)) {
      for (; j < others.length && others[j].seq < rows[i + 1]; j++) this.ingest(others[j]);
      const k = this.rows.pushRow(rows, i, same);
      const summary = summaries.get(rows[i + 1]);
      if (summary !== undefined) this.msgs.summaries.set(rows[i + 1], summary);
      this.ingestRow(k);
    }
    for (; j < others.length; j++) this.ingest(others[j]);
    this.version++;
  }

  /** Holds, in a store just cleared, what the nodes looked like where the held events start (the seed), if there is one. */
  private startFromSeed(): void {
    const seed = this.seed;
    if (!seed) return;
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

  get lastT(): number {
    const o = this.others.length;
    const k = this.rows.length;
    if (!o && !k) return 0;
    if (!k) return this.otherT[o - 1];
    if (!o) return this.rows.t(k - 1);
    return this.others[o - 1].seq > this.rows.seq(k - 1) ? this.otherT[o - 1] : this.rows.t(k - 1);
  }

  private ingest(e: UiEvent): void {
    if (e.type !== 'disconnect' && IN_ROWS[PACKED_TYPES.indexOf(e.type as PackedType)]) {
      const k = this.rows.pushEvent(e as UiEventOf<RowType>);
      if (e.type === 'send' && e.summary !== undefined) this.msgs.summaries.set(e.seq, e.summary);
      this.ingestRow(k);
      return;
    }
    this.others.push(e);
    this.otherT.push(e.t);
    this.lastSeq = e.seq;
    const t = e.t;
    switch (e.type) {
      case 'disconnect': {
        // Drawn as a short failed arrow from the dead peer back to the requester. It left
        // the peer before later sends: insert it where its send time keeps the messages sorted.
        const sent = e.sent ?? t;
        const at = this.msgBound(sent, true);
        const none = -1;
        const row = MSG_SCRATCH;
        row[M.id] = -e.seq;
        row[M.from] = num(e.peer);
        row[M.to] = num(e.node);
        row[M.rpc] = rpcIndex(e.rpc ?? '');
        row[M.epoch] = 0;
        row[M.sent] = sent;
        row[M.arrives] = t;
        row[M.end] = t;
        row[M.dropped] = none;
        row[M.planned] = none;
        row[M.flags] = FAILED;
        row[M.seq] = e.seq;
        row[M.endSeq] = e.seq;
        this.msgs.insert(row, at);
        for (const [id, i] of this.open) if (i >= at) this.open.set(id, i + 1);
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

  /** Takes in row `k`: a send opens a message, a delivery or drop ends it, an append moves the LEO, an HW event the HW. */
  private ingestRow(k: number): void {
    const a = this.rows.rows.a;
    const o = this.rows.at(k);
    const code = a[o];
    const seq = a[o + 1];
    const t = a[o + 2];
    this.lastSeq = seq;
    if (code === SEND) {
      const id = a[o + F.msg];
      const arrives = a[o + F.arrives];
      const m = MSG_SCRATCH;
      m[M.id] = id;
      m[M.from] = a[o + F.from];
      m[M.to] = a[o + F.to];
      m[M.rpc] = rpcIndex(this.#names.list[a[o + F.rpc]]);
      m[M.epoch] = a[o + F.epoch];
      m[M.sent] = t;
      m[M.arrives] = arrives;
      m[M.end] = Infinity;
      m[M.dropped] = -1;
      m[M.planned] = a[o + F.planned];
      m[M.flags] = 0;
      m[M.seq] = seq;
      m[M.endSeq] = -1;
      this.open.set(id, this.msgs.length);
      this.msgs.insert(m);
      this.maxSpan = Math.max(this.maxSpan, arrives - t);
    } else if (code === DELIVER || code === DROP) {
      const i = this.open.get(a[o + (code === DELIVER ? F.deliverMsg : F.dropMsg)]);
      if (i === undefined) return;
      this.open.delete(this.msgs.id(i));
      this.msgs.end(i, t, seq, code === DELIVER && a[o + F.duplicate] === 1, code === DROP ? a[o + F.reason] : -1);
      this.maxSpan = Math.max(this.maxSpan, t - this.msgs.sent(i));
    } else if (code === HW) {
      const n = a[o + F.hwNode];
      if (n >= 0 && n < this.nodes) this.hw[n].push(t, a[o + F.hwNew]);
    } else if (code === APPEND) {
      const n = a[o + F.appendNode];
      if (n >= 0 && n < this.nodes) {
        this.leoNow[n] = a[o + F.appendLast] + 1;
        this.leo[n].push(t, this.leoNow[n]);
      }
    }
  }

  /** Index of the first message sent after `t` (`after`), or at or after it. */
  private msgBound(t: number, after: boolean): number {
    let lo = 0;
    let hi = this.msgs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const sent = this.msgs.sent(mid);
      if (sent < t || (after && sent === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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
      this.msgs.summaries.set(m.seq, m.summary);
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
    return [this.msgBound(t0 - this.maxSpan - 1, false), this.msgBound(t1, true)];
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
      const rpc = msgs.num(i, MSG.rpc);
      const end = msgs.num(i, MSG.end);
      if (hidden.has(rpc >> 1) || (end === Infinity ? msgs.num(i, MSG.arrives) : end) < t0) continue;
      byKind[rpc] = (byKind[rpc] ?? 0) + 1;
      if (msgs.num(i, MSG.dropped) >= 0) dropped++;
    }
    return { byKind, dropped, more: b - a > limit };
  }

  markRange(t0: number, t1: number): [number, number] {
    return [lowerBound(this.markT, t0), upperBound(this.markT, t1)];
  }

  /** Index range of `others` in [t0, t1]. */
  otherRange(t0: number, t1: number): [number, number] {
    return [lowerBound(this.otherT, t0), upperBound(this.otherT, t1)];
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
    const a = this.rows.rows.a;
    for (let k = this.rows.lowerBound(ev.seq) - 1; k >= 0 && left > 0 && ev.seq - this.rows.seq(k) <= MAX_GHOST_SCAN; k--) {
      const r = this.rows.at(k);
      if (a[r] !== APPEND || a[r + F.appendNode] !== n) continue;
      for (let o = Math.max(from, a[r + F.appendFirst]); o <= Math.min(to - 1, a[r + F.appendLast]); o++) {
        if (out[o - from] === null) {
          out[o - from] = a[r + F.appendEpoch];
          left--;
        }
      }
    }
    this.removed.set(ev.seq, out);
    return out;
  }

  /** The seq of node `n`'s last `hw` event at time `t` (-1: none; a step keeps the last value at its time). */
  hwSeqAt(n: number, t: number): number {
    const a = this.rows.rows.a;
    for (let k = this.rows.upperBoundT(t) - 1; k >= 0 && this.rows.t(k) === t; k--) {
      const r = this.rows.at(k);
      if (a[r] === HW && a[r + F.hwNode] === n) return a[r + 1];
    }
    return -1;
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
