// Reads the packed bulk form of trace events (crate/sim/src/packed.rs): the packed types as
// numbers laid out by PACKED_ROWS, merged by seq with the others, which come as JSON.
// One object literal per event (a fixed shape per type): building objects by field name
// from the layout table cost twice as much.

import { PACKED_ROWS, type PackedRest } from './generated/wire.js';
import type { EventOf, PackedTraceEvent, PackedType } from './types.js';

/** Reads the row whose fields start at `i` (after code, seq and t) into `out`; returns where the next row starts. */
type Reader = (out: PackedTraceEvent[], r: Float64Array, i: number, names: string[]) => number;
/** A field's type (the core's enum names arrive as indexes into the result's `names`). */
type As<T extends PackedType, K extends keyof EventOf<T>> = EventOf<T>[K];

const READERS: Record<PackedType, Reader> = {
  send: (out, r, i, n) => {
    out.push({
      seq: r[i - 2],
      t: r[i - 1],
      type: 'send',
      msg: r[i],
      from: r[i + 1],
      to: r[i + 2],
      rpc: n[r[i + 3]] as As<'send', 'rpc'>,
      epoch: r[i + 4],
      arrives: r[i + 5],
      dropped: r[i + 6] < 0 ? null : (n[r[i + 6]] as As<'send', 'dropped'>),
    });
    return i + 7;
  },
  deliver: (out, r, i, n) => {
    out.push({
      seq: r[i - 2],
      t: r[i - 1],
      type: 'deliver',
      msg: r[i],
      from: r[i + 1],
      to: r[i + 2],
      rpc: n[r[i + 3]] as As<'deliver', 'rpc'>,
      epoch: r[i + 4],
      sent: r[i + 5],
      duplicate: r[i + 6] === 1,
    });
    return i + 7;
  },
  drop: (out, r, i, n) => {
    out.push({
      seq: r[i - 2],
      t: r[i - 1],
      type: 'drop',
      msg: r[i],
      from: r[i + 1],
      to: r[i + 2],
      rpc: n[r[i + 3]] as As<'drop', 'rpc'>,
      epoch: r[i + 4],
      sent: r[i + 5],
      reason: n[r[i + 6]] as As<'drop', 'reason'>,
    });
    return i + 7;
  },
  disconnect: (out, r, i, n) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'disconnect', node: r[i], peer: r[i + 1], rpc: n[r[i + 2]] as As<'disconnect', 'rpc'>, sent: r[i + 3] });
    return i + 4;
  },
  append: (out, r, i, n) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'append', node: r[i], first: r[i + 1], last: r[i + 2], epoch: r[i + 3], kind: n[r[i + 4]] });
    return i + 5;
  },
  flush: (out, r, i) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'flush', node: r[i], offset: r[i + 1] });
    return i + 2;
  },
  hw: (out, r, i) => {
    const count = r[i + 3];
    // a loop, not Array.from(r.subarray(...)): no view object, no iterator
    const majority: number[] = new Array(count);
    for (let k = 0; k < count; k++) majority[k] = r[i + 4 + k];
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'hw', node: r[i], old: Number.isNaN(r[i + 1]) ? null : r[i + 1], new: r[i + 2], majority });
    return i + 4 + count;
  },
};

/** The reader of each row code, in the core's order. */
const BY_CODE: Reader[] = PACKED_ROWS.map(([type]) => {
  const read = READERS[type as PackedType];
  if (!read) throw new Error(`the core packs ${type} events, which this package cannot read`);
  return read;
});

/** The type of each row code, in the core's order. */
export const PACKED_TYPES: readonly PackedType[] = PACKED_ROWS.map(([type]) => type as PackedType);

/** The packed result as it crossed: its rows (a copy, no longer a view of the core's memory) and the rest. */
export interface PackedBatch {
  numbers: Float64Array;
  rest: PackedRest;
}

/** The row starting at `i` (its code) read as its event. */
export function readRow(numbers: Float64Array, i: number, names: string[]): PackedTraceEvent {
  const out: PackedTraceEvent[] = [];
  BY_CODE[numbers[i]](out, numbers, i + 3, names);
  return out[0];
}

/** Per row code: its fixed width (code, seq, t and a number per field), and where a list field's count is (-1: none). */
const WIDTH = PACKED_ROWS.map(([, fields]) => 3 + fields.length);
const LIST_AT = PACKED_ROWS.map(([, fields]) => {
  const k = fields.findIndex(([, kind]) => kind === 'list');
  return k < 0 ? -1 : 3 + k;
});

/** Where the row starting at `i` ends (the next row starts). */
export function rowEnd(numbers: Float64Array, i: number): number {
  const code = numbers[i];
  const list = LIST_AT[code];
  return i + WIDTH[code] + (list < 0 ? 0 : numbers[i + list]);
}

/** The seq of a batch's last event (-1: none). */
export function lastSeqOf(b: PackedBatch): number {
  let last = b.rest.events.length ? b.rest.events[b.rest.events.length - 1].seq : -1;
  let row = -1;
  for (let i = 0; i < b.numbers.length; i = rowEnd(b.numbers, i)) row = i;
  if (row >= 0) last = Math.max(last, b.numbers[row + 1]);
  return last;
}

/** The events of a packed result, oldest first: the rows of `numbers` merged by seq with `rest.events`. */
export function unpack(numbers: Float64Array, rest: PackedRest): PackedTraceEvent[] {
  const others = rest.events;
  const names = rest.names;
  const out: PackedTraceEvent[] = [];
  let j = 0;
  for (let i = 0; i < numbers.length; ) {
    const seq = numbers[i + 1];
    while (j < others.length && others[j].seq < seq) out.push(others[j++]);
    i = BY_CODE[numbers[i]](out, numbers, i + 3, names);
  }
  while (j < others.length) out.push(others[j++]);
  return out;
}
