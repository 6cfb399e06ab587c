// Reads the packed bulk form of trace events (crate/sim/src/packed.rs): the packed types as
// numbers laid out by PACKED_ROWS, merged by seq with the others, which come as JSON.
// The readers (generated from the same table, one object literal per event) are in
// generated/packed-readers.ts.

import { READERS, type Reader } from './generated/packed-readers.js';
import { PACKED_ROWS, type PackedRest } from './generated/wire.js';
import type { PackedTraceEvent, PackedType } from './types.js';

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
