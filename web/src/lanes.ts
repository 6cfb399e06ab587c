// Reads the timeline's lanes as they cross from the core (crate/sim/src/lanes.rs): all
// numbers (a header, the spans, each lane's bands and HW and LEO steps, the marks), laid
// out by the generated field lists, but the marks' events, which come as JSON.

import { BAND_FIELDS, BAND_REASONS, BAND_STATES, LANES_HEADER, type LaneBand, type LaneMark, MARK_KINDS, type PackedRest, SPAN_FIELDS, STEP_FIELDS, type TraceEvent } from './generated/wire.js';

export { SPAN_DROPS, SPAN_FLAGS, SPAN_OUTCOMES, SPAN_RPCS } from './generated/wire.js';

/** Where a field is among a row's numbers; a field the core does not send is a stale package. */
function indexes<const K extends string>(fields: readonly string[], names: readonly K[]): Record<K | 'width', number> {
  const out: Record<string, number> = { width: fields.length };
  for (const name of names) {
    const i = fields.indexOf(name);
    if (i < 0) throw new Error(`the core's lanes have no ${name} field: this package does not match its core`);
    out[name] = i;
  }
  return out as Record<K | 'width', number>;
}

const HEADER = indexes(LANES_HEADER, ['from', 'to', 'horizon', 'spans', 'lanes', 'marks']);
const BAND = indexes(BAND_FIELDS, ['t', 'seq', 'state', 'from', 'epoch', 'leader', 'reason', 'hw']);
/**
 * Where each number of a span is (`width` numbers a span): `msg` (a connection failure:
 * minus its seq), `rpc` (an index into `SPAN_RPCS`), `end` (Infinity while unknown),
 * `dropped`/`planned` (into `SPAN_DROPS`, -1 none), `flags` (`SPAN_FLAGS`), `outcome`
 * (into `SPAN_OUTCOMES`), `endSeq` (-1 none).
 */
export const SPAN = indexes(SPAN_FIELDS, ['msg', 'from', 'to', 'rpc', 'epoch', 'sent', 'arrives', 'end', 'dropped', 'planned', 'flags', 'outcome', 'seq', 'endSeq']);
/** Where each number of a step is (`width` numbers a step; `value` NaN for none). */
export const STEP = indexes(STEP_FIELDS, ['t', 'value', 'seq']);

/** One node's lane in a window. */
export interface LaneSeries {
  /** Its states from the one in force at the window's start. */
  bands: LaneBand[];
  /** Its HW and LEO steps from the values at the window's start, `STEP.width` numbers each. */
  hw: Float64Array;
  leo: Float64Array;
}

/** What {@link Cluster.lanes} returns: the timeline's lanes over [from, to]. */
export interface LaneWindow {
  from: number;
  to: number;
  /** The end of the recorded run (now, or later after a seek back): the last band and step of each lane run on to it. */
  horizon: number;
  lanes: LaneSeries[];
  /** The messages crossing the window, by send time, `SPAN.width` numbers each. */
  spans: Float64Array;
  /** The marked events, in order. */
  marks: LaneMark[];
}

/** Reads the lanes from a view of the core's numbers (what it keeps is copied out) and the marks' events. */
export function readLanes(n: Float64Array, rest: PackedRest): LaneWindow {
  let at = HEADER.width;
  const take = (count: number, width: number): Float64Array => {
    at += count * width;
    return n.slice(at - count * width, at);
  };
  const orNull = (v: number, none: boolean): number | null => (none ? null : v);
  const spans = take(n[HEADER.spans], SPAN.width);
  const lanes: LaneSeries[] = [];
  for (let l = 0; l < n[HEADER.lanes]; l++) {
    const [count, hw, leo] = [n[at], n[at + 1], n[at + 2]];
    at += 3;
    const bands: LaneBand[] = [];
    for (let k = 0; k < count; k++, at += BAND.width) {
      const b = (f: keyof typeof BAND) => n[at + BAND[f]];
      bands.push({
        t: b('t'),
        seq: b('seq'),
        state: BAND_STATES[b('state')],
        from: BAND_STATES[b('from')],
        epoch: b('epoch'),
        leader: orNull(b('leader'), b('leader') < 0),
        reason: b('reason') < 0 ? null : BAND_REASONS[b('reason')],
        hw: orNull(b('hw'), Number.isNaN(b('hw'))),
      });
    }
    lanes.push({ bands, hw: take(hw, STEP.width), leo: take(leo, STEP.width) });
  }
  const marks: LaneMark[] = [];
  for (let k = 0; k < n[HEADER.marks]; k++) {
    const count = n[at + 2];
    const removed = Array.from(n.subarray(at + 3, at + 3 + count), (e) => orNull(e, Number.isNaN(e)));
    marks.push({ kind: MARK_KINDS[n[at]], node: orNull(n[at + 1], n[at + 1] < 0), event: rest.events[k] as TraceEvent, removed });
    at += 3 + count;
  }
  return { from: n[HEADER.from], to: n[HEADER.to], horizon: n[HEADER.horizon], lanes, spans, marks };
}
