// Generated from `packed::ROWS` (crate/wasm/src/wire.rs): do not edit.
// `UPDATE=1 cargo test --release --lib wire` rewrites it.

import type { EventOf, PackedTraceEvent, PackedType } from '../types.js';

/** Reads the row whose fields start at `i` (after code, seq and t) into `out`; returns where the next row starts. */
export type Reader = (out: PackedTraceEvent[], r: Float64Array, i: number, names: string[]) => number;
/** A field's type (the core's enum names arrive as indexes into the result's `names`). */
type As<T extends PackedType, K extends keyof EventOf<T>> = EventOf<T>[K];

/** The reader of each packed type. */
export const READERS: Record<PackedType, Reader> = {
  send: (out, r, i, n) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'send', msg: r[i], from: r[i + 1], to: r[i + 2], rpc: n[r[i + 3]] as As<'send', 'rpc'>, epoch: r[i + 4], arrives: r[i + 5], dropped: r[i + 6] < 0 ? null : (n[r[i + 6]] as As<'send', 'dropped'>) });
    return i + 7;
  },
  deliver: (out, r, i, n) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'deliver', msg: r[i], from: r[i + 1], to: r[i + 2], rpc: n[r[i + 3]] as As<'deliver', 'rpc'>, epoch: r[i + 4], sent: r[i + 5], duplicate: r[i + 6] === 1 });
    return i + 7;
  },
  drop: (out, r, i, n) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'drop', msg: r[i], from: r[i + 1], to: r[i + 2], rpc: n[r[i + 3]] as As<'drop', 'rpc'>, epoch: r[i + 4], sent: r[i + 5], reason: n[r[i + 6]] as As<'drop', 'reason'> });
    return i + 7;
  },
  disconnect: (out, r, i, n) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'disconnect', node: r[i], peer: r[i + 1], rpc: n[r[i + 2]] as As<'disconnect', 'rpc'>, sent: r[i + 3] });
    return i + 4;
  },
  append: (out, r, i, n) => {
    out.push({ seq: r[i - 2], t: r[i - 1], type: 'append', node: r[i], first: r[i + 1], last: r[i + 2], epoch: r[i + 3], kind: n[r[i + 4]] as As<'append', 'kind'> });
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
