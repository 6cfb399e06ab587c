// Hit-testing the timeline: what is under the pointer (a mark within 10 px, else an
// arrow within 6 px) and the lines of its tooltip.

import { clamp, fmtT } from '../common/dom.js';
import { type LaneView, type Mark, type Msg, upperBound } from '../common/store.js';
import { isRepair, RPC_KINDS, STATES } from '../common/types.js';
import type { TimelineGeometry } from './geometry.js';

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
/** A state change or an HW step as drawn: a short vertical span at x (CSS px). */
export interface HitStep {
  /** the event it stands for */
  seq: number;
  x: number;
  y0: number;
  y1: number;
  lines: string[];
}

/** What a hit names: its tooltip lines, a key (`m`/`s`/`a` + seq) and the event that explains it. */
export interface Hit {
  lines: string[];
  key: string;
  seq: number;
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

/** A message's summary line, fetched when first shown (`Store.summaryOf`). */
export type SummaryOf = (m: Msg) => string;

/** What is under (x, y): a mark within 10 px, else a state change or HW step within 5 px, else an arrow within 6 px; or null. */
export function hitAt(x: number, y: number, marks: HitMark[], steps: HitStep[], arrows: HitArrow[], now: number, summary: SummaryOf): Hit | null {
  let best: (Hit & { d: number }) | null = null;
  for (const mk of marks) {
    const d = Math.hypot(mk.x - x, mk.y - y);
    if (d < 10 && (!best || d < best.d)) best = { d, ...markHit(mk) };
  }
  if (!best) {
    for (const s of steps) {
      const d = Math.abs(s.x - x);
      if (d < 5 && y >= s.y0 && y <= s.y1 && (!best || d < best.d)) best = { d, ...stepHit(s) };
    }
  }
  if (!best) {
    let nearest: HitArrow | null = null;
    let dMin = 6;
    for (const a of arrows) {
      const d = segDist(x, y, a.x1, a.y1, a.x2, a.y2);
      if (d < dMin) {
        nearest = a;
        dMin = d;
      }
    }
    if (nearest) return arrowHit(nearest, now, summary);
  }
  return best;
}

/**
 * Every event in view once, left to right (what the keyboard steps through): a mark
 * drawn on several lanes (a fault) counts once, and a mark wins over the state change
 * it stands for (a new leader).
 */
export function allHits(marks: HitMark[], steps: HitStep[], arrows: HitArrow[], now: number, summary: SummaryOf): Hit[] {
  const seen = new Set<number>();
  const out = [...marks.map(markHit), ...steps.map(stepHit), ...arrows.map((a) => arrowHit(a, now, summary))].filter((x) => !seen.has(x.seq) && seen.add(x.seq));
  return out.sort((a, b) => a.x - b.x || a.y - b.y);
}

function markHit(mk: HitMark): Hit {
  return { lines: markLines(mk.mk), key: `m${mk.mk.seq}`, seq: mk.mk.seq, x: mk.x, y: mk.y };
}
function stepHit(s: HitStep): Hit {
  return { lines: s.lines, key: `s${s.seq}`, seq: s.seq, x: s.x, y: (s.y0 + s.y1) / 2 };
}
/**
 * An arrow stands for its delivery, drop or failure once that happened, else for its
 * send. Its lines are made when read (they may ask the cluster for the summary).
 */
function arrowHit(a: HitArrow, now: number, summary: SummaryOf): Hit {
  const m = a.m;
  const ended = m.end !== Infinity && m.end <= now && m.endSeq > 0;
  return {
    get lines() {
      return msgLines(m, now, summary(m));
    },
    key: `a${m.seq}`,
    seq: ended ? m.endSeq : m.seq,
    x: (a.x1 + a.x2) / 2,
    y: (a.y1 + a.y2) / 2,
  };
}

/** The state changes (on the state band) and HW steps (below it) in [t0, t1]: hittable like marks. */
export function stepHits(lanes: LaneView, g: TimelineGeometry, t0: number, t1: number): HitStep[] {
  const out: HitStep[] = [];
  for (let n = 0; n < lanes.nodes; n++) {
    const mid = g.laneMid(n);
    const bottom = g.laneTop(n) + g.laneH();
    const segs = lanes.states[n];
    for (let i = Math.max(0, upperBound(lanes.stateT[n], t0) - 1); i < segs.length && segs[i].t <= t1; i++) {
      const s = segs[i];
      if (s.t < t0 || s.seq <= 0) continue;
      out.push({
        seq: s.seq,
        x: g.xOf(s.t),
        y0: mid - 8,
        y1: mid + 8,
        lines: [`State: ${STATES[s.state]}`, `n${n} ${STATES[s.state]} in epoch ${s.epoch} (${s.reason})`, `at ${fmtT(s.t)} (event ${s.seq})`],
      });
    }
    const hw = lanes.hw[n];
    for (let i = hw.upper(t0 - 1); i < hw.length && hw.t(i) <= t1; i++) {
      const [t, v, seq] = [hw.t(i), hw.v(i), hw.seq(i)];
      // a step at the window's edge began earlier: it is no change there
      if (!Number.isNaN(v) && t > lanes.from) out.push({ seq, x: g.xOf(t), y0: mid + 8, y1: bottom, lines: ['High watermark', `n${n} HW → ${v}`, `at ${fmtT(t)} (event ${seq})`] });
    }
  }
  return out;
}

function segDist(px: number, py: number, x1: number, y1: number, x2: number, y2: number): number {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const l2 = dx * dx + dy * dy;
  const t = l2 ? clamp(((px - x1) * dx + (py - y1) * dy) / l2, 0, 1) : 0;
  return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
}

function msgLines(m: Msg, now: number, summary: string): string[] {
  const kind = RPC_KINDS[m.rpc];
  const lines = [`${kind}  n${m.from} → n${m.to}  epoch ${m.epoch}`];
  if (summary) lines.push(summary);
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
    fault: mk.kind !== 'fault' ? 'Fault' : mk.ev.fault === 'heal' ? 'Network healed' : isRepair(mk.ev.fault) ? 'Fault undone' : 'Fault',
    crash: 'Crash',
    restart: 'Restart',
    truncate: 'Truncation',
    snapshot: 'Snapshot',
    violation: `Invariant violated: ${mk.kind === 'violation' ? mk.ev.invariant : ''}`,
    write: 'Client write',
    vote: 'Vote',
  };
  const lines = [title[mk.kind], e.text ?? '', `at ${fmtT(e.t)} (event ${e.seq})`];
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
