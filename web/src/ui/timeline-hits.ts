// Hit-testing the timeline: what is under the pointer (a mark within 10 px, else an
// arrow within 6 px) and the lines of its tooltip.

import { clamp, fmtT } from './dom.js';
import type { Mark, Msg } from './store.js';
import { RPC_KINDS } from './types.js';

/** A message arrow as drawn (CSS px). */
export interface HitArrow {
  m: Msg;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}
/** A mark's glyph or flag as drawn (CSS px). */
export interface HitMark {
  mk: Mark;
  x: number;
  y: number;
}
/** A flag for the axis row (a new leader, a fault). */
export interface Flag {
  x: number;
  label: string;
  mk: Mark;
  color: string;
}

/** What is under (x, y): its tooltip lines and a key naming it (`m<seq>` a mark, `a<seq>` an arrow), or null. */
export function hitAt(x: number, y: number, marks: HitMark[], arrows: HitArrow[], now: number): { lines: string[]; key: string } | null {
  let best: { d: number; lines: string[]; key: string } | null = null;
  for (const mk of marks) {
    const d = Math.hypot(mk.x - x, mk.y - y);
    if (d < 10 && (!best || d < best.d)) best = { d, lines: markLines(mk.mk), key: `m${mk.mk.seq}` };
  }
  if (!best) {
    for (const a of arrows) {
      const d = segDist(x, y, a.x1, a.y1, a.x2, a.y2);
      if (d < 6 && (!best || d < best.d)) best = { d, lines: msgLines(a.m, now), key: `a${a.m.seq}` };
    }
  }
  return best;
}

function segDist(px: number, py: number, x1: number, y1: number, x2: number, y2: number): number {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const l2 = dx * dx + dy * dy;
  const t = l2 ? clamp(((px - x1) * dx + (py - y1) * dy) / l2, 0, 1) : 0;
  return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
}

function msgLines(m: Msg, now: number): string[] {
  const kind = RPC_KINDS[m.rpc];
  const lines = [`${kind}  n${m.from} → n${m.to}  epoch ${m.epoch}`];
  if (m.summary) lines.push(m.summary);
  let fate: string;
  if (m.end === Infinity || m.end > now) {
    fate = m.sent > now ? 'not sent yet (recorded future)' : `in flight, due at ${fmtT(m.arrives)}`;
  } else if (m.failed) {
    fate = `the connection failed at ${fmtT(m.end)}: n${m.from} is down, n${m.to} backs off retry.backoff.ms`;
  } else if (m.dropped) {
    fate = `dropped at ${fmtT(m.end)}: ${m.dropped === 'loss' ? 'lost by the network' : m.dropped === 'partition' ? 'the link is down' : 'the receiver is down'}`;
  } else {
    fate = `delivered at ${fmtT(m.end)} (${Math.round(m.end - m.sent)} ms)${m.dup ? ', a duplicate' : ''}`;
  }
  lines.push(`sent at ${fmtT(m.sent)}`, fate, `message #${m.id}`);
  return lines;
}

function markLines(mk: Mark): string[] {
  const e = mk.ev;
  const title: Record<Mark['kind'], string> = {
    leader: 'New leader',
    fault: mk.kind === 'fault' && mk.ev.fault === 'heal' ? 'Network healed' : 'Fault',
    crash: 'Crash',
    restart: 'Restart',
    truncate: 'Truncation',
    snapshot: 'Snapshot',
    violation: `Invariant violated: ${mk.kind === 'violation' ? mk.ev.invariant : ''}`,
    write: 'Client write',
    vote: 'Vote',
  };
  const lines = [title[mk.kind], e.text, `at ${fmtT(e.t)} (event ${e.seq})`];
  if (mk.kind === 'truncate') {
    const e = mk.ev;
    lines.push(
      e.divergingEpoch !== null && e.divergingEpoch !== undefined
        ? `the leader said its log diverges after epoch ${e.divergingEpoch}: records ${e.to}..${(e.fromLeo ?? 1) - 1} are removed`
        : 'the log was replaced by a snapshot',
    );
  }
  if (mk.kind === 'crash' && mk.ev.lostRecords) lines.push(`${mk.ev.lostRecords} unflushed record(s) lost`);
  return lines;
}
