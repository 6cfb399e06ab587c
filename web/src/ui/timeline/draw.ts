// Drawing the timeline, one layer at a time: the axis, the gutter of node names, the
// state bands, the HW and LEO step lines, the message arrows, the marks and their flags.
// Each function draws what the window shows of the core's lanes onto the layer's canvas.

import { SPAN } from '../../api.js';
import type { FocusMessage } from '../../generated/wire.js';
import { clamp, fmtShort } from '../common/dom.js';
import { type LaneView, type Msg, type Steps, type Store, upperBound as upper } from '../common/store.js';
import type { Theme } from '../common/theme.js';
import { isRepair, isResponse, RPC_GROUPS, RPC_KINDS, STATES } from '../common/types.js';
import { AXIS_H, GUTTER, type TimelineGeometry } from './geometry.js';
import type { Flag, HitArrow, HitMark } from './hits.js';

/** line widths per RPC group (PreVote, Vote, Begin, End, Fetch, FetchSnapshot) */
const REQ_W = [2, 2.2, 1.9, 2, 1.1, 1.6];
const RESP_W = [1.3, 1.4, 1.1, 1.3, 0.9, 1.1];

/** How much of its colour an arrow keeps while a stop names other messages. */
const DIMMED = 0.18;
/** How much thicker a named message's arrow is. */
const NAMED_EXTRA_W = 1.4;

/** The messages a story's stop names, in the stop's window [t0, t1]. */
export interface NamedMessages {
  messages: readonly FocusMessage[];
  t0: number;
  t1: number;
}

/** Whether an arrow is one the stop names: its exchange's kind, between the nodes said (a response goes back to the request's sender), in the window. */
export function isNamed(m: Msg, named: NamedMessages): boolean {
  const endT = m.end === Infinity ? m.arrives : m.end;
  if (m.sent > named.t1 || endT < named.t0) return false;
  const resp = (m.rpc & 1) === 1;
  const asker = resp ? m.to : m.from;
  const answerer = resp ? m.from : m.to;
  return named.messages.some((f) => RPC_GROUPS.indexOf(f.kind as (typeof RPC_GROUPS)[number]) === m.rpc >> 1 && (f.from ?? asker) === asker && (f.to ?? answerer) === answerer);
}

/** What one frame draws with. */
export interface Layer {
  ctx: CanvasRenderingContext2D;
  th: Theme;
  g: TimelineGeometry;
  /** what the core projected for the window */
  lanes: LaneView;
  /** asked for the events the highlight rings */
  store: Store;
  /** the window [t0, t1] and the present, simulated ms */
  t0: number;
  t1: number;
  now: number;
  hatch: CanvasPattern | null;
  hiddenGroups: ReadonlySet<number>;
  /** seqs drawn highlighted (a violation's evidence) */
  highlight: ReadonlySet<number>;
  /** seq of the message under the pointer (drawn bold) */
  hoverSeq: number;
  /** at a stop naming messages: those (drawn emphasized; the others dimmed) */
  named: NamedMessages | null;
  nodeLabel(n: number): string;
  isObserver(n: number): boolean;
}

/** The diagonal hatching of crashed spans and of forgotten history. */
export function makeHatch(ctx: CanvasRenderingContext2D, dark: boolean): CanvasPattern | null {
  const c = document.createElement('canvas');
  c.width = c.height = 8;
  const x = c.getContext('2d')!;
  x.strokeStyle = dark ? 'rgba(148,163,184,0.55)' : 'rgba(71,85,105,0.5)';
  x.lineWidth = 1.5;
  x.beginPath();
  x.moveTo(0, 8);
  x.lineTo(8, 0);
  x.moveTo(-2, 2);
  x.lineTo(2, -2);
  x.moveTo(6, 10);
  x.lineTo(10, 6);
  x.stroke();
  return ctx.createPattern(c, 'repeat');
}

export function drawAxis(L: Layer): void {
  const { ctx, th, t0, t1 } = L;
  ctx.fillStyle = th.bg;
  ctx.fillRect(0, 0, L.g.w, AXIS_H);
  const span = t1 - t0;
  const target = span / Math.max(1, L.g.plotW / 90);
  const pow = 10 ** Math.floor(Math.log10(Math.max(target, 0.001)));
  let step = pow;
  for (const m of [1, 2, 5, 10]) {
    if (pow * m >= target) {
      step = pow * m;
      break;
    }
  }
  step = Math.max(step, 1);
  ctx.font = `11px ${th.font}`;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'center';
  for (let t = Math.ceil(Math.max(0, t0) / step) * step; t <= t1; t += step) {
    const x = L.g.xOf(t);
    if (x < GUTTER) continue;
    ctx.fillStyle = th.grid;
    ctx.fillRect(Math.round(x), AXIS_H, 1, L.g.hgt - AXIS_H);
    // a label half under the lane names' gutter would show only its end ("s" for "1s")
    const label = fmtShort(t);
    if (x - ctx.measureText(label).width / 2 < GUTTER) continue;
    ctx.fillStyle = th.muted;
    ctx.fillText(label, x, 8);
  }
  const first = L.lanes.from;
  if (Math.max(0, t0) < first && L.lanes.to >= 0) {
    // zoomed out further than one projection of the core reaches: it holds the later part
    const xe = Math.min(L.g.w, L.g.xOf(first));
    ctx.fillStyle = L.hatch ?? th.lane;
    ctx.globalAlpha = 0.35;
    ctx.fillRect(GUTTER, AXIS_H, xe - GUTTER, L.g.hgt - AXIS_H);
    ctx.globalAlpha = 1;
    if (xe - GUTTER > 150) {
      ctx.fillStyle = th.muted;
      ctx.font = `11px ${th.font}`;
      ctx.textAlign = 'center';
      ctx.fillText('not drawn at this zoom: zoom in', (GUTTER + xe) / 2, AXIS_H + 12);
    }
  }
  if (t0 < 0) {
    // before the run started
    ctx.fillStyle = th.dark ? 'rgba(255,255,255,0.03)' : 'rgba(15,23,42,0.03)';
    ctx.fillRect(GUTTER, AXIS_H, L.g.xOf(0) - GUTTER, L.g.hgt);
  }
}

export function drawGutter(L: Layer): void {
  const { ctx, th, now } = L;
  ctx.fillStyle = th.bg;
  ctx.fillRect(0, AXIS_H, GUTTER, L.g.hgt - AXIS_H);
  ctx.fillRect(0, 0, GUTTER, AXIS_H);
  const lh = L.g.laneH();
  for (let n = 0; n < L.lanes.nodes; n++) {
    const mid = L.g.laneMid(n);
    const s = L.lanes.stateAt(n, now);
    const st = s ? s.state : 0;
    ctx.fillStyle = th.state[st];
    ctx.beginPath();
    ctx.arc(10, mid, 5, 0, Math.PI * 2);
    ctx.fill();
    if (st === 3) {
      ctx.strokeStyle = th.fg;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(10, mid, 7.5, 0, Math.PI * 2);
      ctx.stroke();
    }
    ctx.fillStyle = th.fg;
    ctx.font = `600 12px ${th.font}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.fillText(L.nodeLabel(n), 20, mid);
    if (lh > 30) {
      ctx.fillStyle = th.muted;
      ctx.font = `10px ${th.font}`;
      ctx.fillText(L.isObserver(n) ? 'obs' : 'voter', 20, mid + 13);
    }
  }
  ctx.strokeStyle = th.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(GUTTER - 0.5, AXIS_H);
  ctx.lineTo(GUTTER - 0.5, L.g.hgt);
  ctx.stroke();
}

export function drawBands(L: Layer): void {
  const { ctx, th, t0, t1, now } = L;
  const bandH = Math.max(5, Math.min(10, L.g.laneH() * 0.22));
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  const horizon = Math.max(now, L.lanes.horizon);
  for (let n = 0; n < L.lanes.nodes; n++) {
    const segs = L.lanes.states[n];
    const ts = L.lanes.stateT[n];
    const mid = L.g.laneMid(n);
    let i = Math.max(0, upper(ts, t0) - 1);
    for (; i < segs.length; i++) {
      const s = segs[i];
      if (s.t > t1) break;
      const end = i + 1 < segs.length ? segs[i + 1].t : horizon;
      const xa = Math.max(GUTTER - 2, L.g.xOf(s.t));
      const xb = Math.min(L.g.w + 2, L.g.xOf(end));
      if (xb < GUTTER) continue;
      const leader = s.state === 3;
      const bh = leader ? bandH + 3 : bandH;
      if (s.state === 6) {
        ctx.fillStyle = L.hatch ?? th.state[6];
        ctx.fillRect(xa, mid - bh / 2 - 2, Math.max(1, xb - xa), bh + 4);
      } else {
        ctx.fillStyle = th.state[s.state];
        ctx.fillRect(xa, mid - bh / 2, Math.max(1, xb - xa), bh);
      }
      const prev = i > 0 ? segs[i - 1] : undefined;
      if (prev && prev.epoch !== s.epoch && s.state !== 6) {
        // epoch change: a tick across the lane
        ctx.fillStyle = th.fg;
        ctx.fillRect(Math.round(xa), mid - bh / 2 - 5, 1.5, bh + 10);
      }
      const lx = Math.max(xa, GUTTER) + 3;
      const wpx = xb - lx;
      if (wpx > 16) {
        ctx.font = `${leader ? '600 ' : ''}10px ${th.font}`;
        for (const label of [`${STATES[s.state]} e${s.epoch}`, `${short(STATES[s.state])} e${s.epoch}`, `e${s.epoch}`]) {
          if (ctx.measureText(label).width + 4 <= wpx) {
            ctx.fillStyle = leader ? th.fg : th.muted;
            ctx.fillText(label, lx, mid - bh / 2 - 3);
            break;
          }
        }
      }
    }
  }
}

/** Each node's HW (solid, labelled) and LEO (dashed) as step lines on one scale. */
export function drawHw(L: Layer): void {
  const { th, t0, t1, now } = L;
  const lh = L.g.laneH();
  if (lh < 26) return;
  // one scale for every lane and both lines, over the visible window
  let lo = Infinity;
  let hi = -Infinity;
  for (const series of [L.lanes.hw, L.lanes.leo]) {
    for (const s of series) {
      const a = Math.max(0, s.upper(t0) - 1);
      const b = s.upper(t1);
      for (let i = a; i < b; i++) {
        const v = s.v(i);
        if (Number.isNaN(v)) continue;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
  }
  if (lo === Infinity) return;
  const scale = { lo, hi, t0, t1, horizon: Math.max(now, L.lanes.horizon) };
  L.ctx.font = `9px ${th.mono}`;
  L.ctx.textBaseline = 'bottom';
  L.ctx.textAlign = 'left';
  const hwColor = th.dark ? '#22d3ee' : '#0e7490';
  const leoColor = th.dark ? 'rgba(148, 163, 184, 0.7)' : 'rgba(71, 85, 105, 0.55)';
  drawSteps(L, L.lanes.leo, scale, leoColor, [3, 3], false);
  drawSteps(L, L.lanes.hw, scale, hwColor, [], true);
}

function drawSteps(L: Layer, series: Steps[], sc: { lo: number; hi: number; t0: number; t1: number; horizon: number }, color: string, dash: number[], labels: boolean): void {
  const ctx = L.ctx;
  const lh = L.g.laneH();
  ctx.lineWidth = labels ? 1.5 : 1;
  ctx.setLineDash(dash);
  for (let n = 0; n < series.length; n++) {
    const s = series[n];
    const mid = L.g.laneMid(n);
    const bot = L.g.laneTop(n) + lh - 3;
    const top = mid + 9;
    if (bot - top < 6) continue;
    const y = (v: number) => (sc.hi === sc.lo ? (top + bot) / 2 : bot - ((v - sc.lo) / (sc.hi - sc.lo)) * (bot - top));
    const a = Math.max(0, s.upper(sc.t0) - 1);
    ctx.strokeStyle = color;
    ctx.beginPath();
    let open = false;
    let lastLabelX = -1e9;
    for (let i = a; i < s.length; i++) {
      const t = s.t(i);
      if (t > sc.t1) break;
      const v = s.v(i);
      const xa = Math.max(GUTTER - 2, L.g.xOf(t));
      const xb = Math.min(L.g.w + 2, L.g.xOf(i + 1 < s.length ? s.t(i + 1) : sc.horizon));
      if (Number.isNaN(v)) {
        open = false;
        continue;
      }
      const yy = y(v);
      if (!open) ctx.moveTo(xa, yy);
      else ctx.lineTo(xa, yy);
      ctx.lineTo(xb, yy);
      open = true;
      if (labels && xb - xa > 18 && xa - lastLabelX > 22 && xa >= GUTTER) {
        ctx.fillStyle = color;
        ctx.fillText(String(v), xa + 2, yy - 1);
        lastLabelX = xa;
      }
    }
    ctx.stroke();
  }
  ctx.setLineDash([]);
}

/** The message arrows in view (dense ones collapsed per pixel column, link and kind); returns them for hit-testing. */
export function drawMessages(L: Layer): HitArrow[] {
  const { ctx, th, t0, t1, now, lanes } = L;
  const [a, b] = lanes.msgRange(t0, t1);
  const N = lanes.nodes;
  const K = RPC_KINDS.length;
  const lastX = new Float64Array(N * N * K).fill(-1e9);
  const arrows: HitArrow[] = [];
  const headLen = 6;
  let lastNoteX = -1e9;
  let budget = 6000;
  const msgs = lanes.msgs;
  for (let i = a; i < b && budget > 0; i++) {
    // the filters read the numbers; an object only for what is drawn
    const from = msgs.num(i, SPAN.from);
    const to = msgs.num(i, SPAN.to);
    const rpc = msgs.num(i, SPAN.rpc);
    if (from >= N || to >= N) continue;
    const group = rpc >> 1;
    if (L.hiddenGroups.has(group)) continue;
    const end = msgs.num(i, SPAN.end);
    const endT = end === Infinity ? msgs.num(i, SPAN.arrives) : end;
    if (endT < t0) continue;
    const x1 = L.g.xOf(msgs.sent(i));
    const key = (from * N + to) * K + rpc;
    if (x1 - lastX[key] < 1.5 && !L.highlight.has(msgs.seq(i))) continue;
    const m = msgs.at(i);
    lastX[key] = x1;
    budget--;
    const y1 = L.g.laneMid(m.from);
    const yTo = L.g.laneMid(m.to);
    const xArr = L.g.xOf(m.arrives);
    const future = m.sent > now;
    const inFlight = !future && endT > now;
    let x2: number;
    let y2: number;
    const dropped = m.dropped !== '' && m.end <= now;
    if (inFlight) {
      const f = m.arrives > m.sent ? clamp((now - m.sent) / (m.arrives - m.sent), 0, 1) : 1;
      x2 = x1 + (xArr - x1) * f;
      y2 = y1 + (yTo - y1) * f;
    } else if (m.dropped !== '') {
      // where it died: on the way (loss), at once (partition at send), or at arrival
      const span = m.arrives - m.sent;
      let f = span > 0 ? clamp((m.end - m.sent) / span, 0, 1) : 1;
      if (f === 0) f = Math.min(0.25, 14 / Math.max(1, Math.hypot(xArr - x1, yTo - y1)));
      x2 = x1 + (xArr - x1) * f;
      y2 = y1 + (yTo - y1) * f;
    } else {
      x2 = L.g.xOf(endT);
      y2 = yTo;
    }
    const color = m.failed ? th.danger : (th.rpc[group] ?? th.muted);
    const resp = isResponse(RPC_KINDS[m.rpc]);
    const hi = L.highlight.has(m.seq) || L.highlight.has(m.endSeq) || m.seq === L.hoverSeq;
    const quiet = group === 4 ? (resp && m.outcome === 'error' ? 0.3 : 0.62) : 1;
    const named = L.named ? isNamed(m, L.named) : null;
    ctx.globalAlpha = (future ? 0.22 : 1) * (hi || named ? 1 : named === false ? DIMMED : quiet);
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = hi ? 3 : ((resp ? RESP_W : REQ_W)[group] ?? 1.2) + (named ? NAMED_EXTRA_W : 0);
    if (resp) ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x2, y2);
    ctx.stroke();
    if (resp) ctx.setLineDash([]);
    if (inFlight) {
      ctx.beginPath();
      ctx.arc(x2, y2, 3.2, 0, Math.PI * 2);
      ctx.fill();
    } else if (dropped) {
      ctx.strokeStyle = th.danger;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x2 - 4, y2 - 4);
      ctx.lineTo(x2 + 4, y2 + 4);
      ctx.moveTo(x2 + 4, y2 - 4);
      ctx.lineTo(x2 - 4, y2 + 4);
      ctx.stroke();
    } else if (!future || m.end !== Infinity) {
      const ang = Math.atan2(y2 - y1, x2 - x1);
      ctx.beginPath();
      ctx.moveTo(x2, y2);
      ctx.lineTo(x2 - headLen * Math.cos(ang - 0.42), y2 - headLen * Math.sin(ang - 0.42));
      ctx.lineTo(x2 - headLen * Math.cos(ang + 0.42), y2 - headLen * Math.sin(ang + 0.42));
      ctx.closePath();
      ctx.fill();
      if ((m.rpc === 1 || m.rpc === 3) && Math.abs(x2 - x1) + Math.abs(y2 - y1) > 24) {
        const granted = m.outcome === 'granted';
        ctx.font = `bold 10px ${th.font}`;
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        ctx.fillStyle = granted ? th.ok : th.danger;
        ctx.fillText(granted ? '✓' : '✗', x2 + 7, y2 + (y2 > y1 ? 7 : -7));
      } else if (m.rpc === 9 && (m.outcome === 'diverging' || m.outcome === 'snapshot') && Math.abs(x2 - x1) > 10 && x2 - lastNoteX > 70) {
        lastNoteX = x2;
        ctx.font = `bold 9px ${th.font}`;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'middle';
        ctx.fillStyle = th.danger;
        ctx.fillText(m.outcome === 'diverging' ? '↶ diverging' : '⇩ snapshot', x2 + 4, y2 + (y2 > y1 ? 8 : -8));
      }
    }
    ctx.globalAlpha = 1;
    arrows.push({ m, x1, y1, x2, y2 });
  }
  return arrows;
}

/** Width of the columns MarkBoxes files boxes under (CSS px). */
const BOX_COLUMN = 32;

/** Where marks are drawn (boxes, filed by x), so that flags over the lanes keep clear of them. */
export class MarkBoxes {
  /** per column of BOX_COLUMN px: x0, y0, x1, y1 of each box reaching into it */
  readonly #cols: number[][] = [];

  add(x0: number, y0: number, x1: number, y1: number): void {
    for (let c = Math.max(0, Math.floor(x0 / BOX_COLUMN)); c <= Math.floor(x1 / BOX_COLUMN); c++) {
      const col = this.#cols[c] ?? [];
      col.push(x0, y0, x1, y1);
      this.#cols[c] = col;
    }
  }

  /** Whether the rectangle overlaps a mark. */
  overlaps(x0: number, y0: number, x1: number, y1: number): boolean {
    for (let c = Math.max(0, Math.floor(x0 / BOX_COLUMN)); c <= Math.floor(x1 / BOX_COLUMN); c++) {
      const col = this.#cols[c];
      if (!col) continue;
      for (let i = 0; i < col.length; i += 4) if (col[i] < x1 && col[i + 2] > x0 && col[i + 1] < y1 && col[i + 3] > y0) return true;
    }
    return false;
  }
}

/** Leaders, faults, crashes, truncations, snapshots, violations, writes and the highlighted evidence; returns the marks' hit points, where they are drawn, and the flags for the axis row. */
export function drawMarks(L: Layer): { hits: HitMark[]; flags: Flag[]; boxes: MarkBoxes } {
  const { ctx, th, t0, t1, now, lanes } = L;
  const [a, b] = lanes.markRange(t0 - 1, t1 + 1);
  const hits: HitMark[] = [];
  const flags: Flag[] = [];
  const boxes = new MarkBoxes();
  let lastWriteX = -1e9;
  const top = AXIS_H;
  for (let i = a; i < b; i++) {
    const mk = lanes.marks[i];
    const x = L.g.xOf(mk.t);
    const future = mk.t > now;
    ctx.globalAlpha = future ? 0.3 : 1;
    const y = mk.node >= 0 && mk.node < lanes.nodes ? L.g.laneMid(mk.node) : top + 8;
    const hi = L.highlight.has(mk.seq);
    switch (mk.kind) {
      case 'leader': {
        acrossLanes(L, x, th.state[3], 1, [2, 3]);
        flags.push({ x, label: `★ n${mk.ev.node} leads e${mk.ev.epoch}`, mk, color: th.state[3] });
        break;
      }
      case 'fault': {
        const heal = isRepair(mk.ev.fault);
        const color = heal ? th.ok : th.danger;
        acrossLanes(L, x, color, 1.2, [5, 4]);
        const lbl = (mk.ev.detail ?? mk.ev.text ?? '').replace(/^fault /, '');
        flags.push({ x, label: lbl.length > 44 ? `${lbl.slice(0, 43)}…` : lbl, mk, color });
        const affected = mk.ev.nodes ?? [];
        for (const n of affected) if (n < lanes.nodes) hits.push({ mk, x, y: L.g.laneMid(n) });
        break;
      }
      case 'crash':
        glyph(ctx, '✕', x, y, th.danger, 15, hi);
        hits.push({ mk, x, y });
        boxes.add(x - 8, y - 9, x + 8, y + 9);
        break;
      case 'restart':
        glyph(ctx, '↻', x, y, th.ok, 15, hi);
        hits.push({ mk, x, y });
        boxes.add(x - 8, y - 9, x + 8, y + 9);
        break;
      case 'truncate': {
        ctx.fillStyle = th.danger;
        ctx.fillRect(x - 1, y - 11, 2.5, 22);
        ctx.font = `bold 10px ${th.font}`;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'middle';
        const label = `✂ ${mk.ev.fromLeo}→${mk.ev.to}`;
        ctx.fillText(label, x + 4, y + 11);
        hits.push({ mk, x, y });
        boxes.add(x - 2, y - 12, x + 5 + ctx.measureText(label).width, y + 17);
        if (hi) ring(ctx, x, y, th.danger);
        break;
      }
      case 'snapshot':
        ctx.fillStyle = th.rpc[5];
        ctx.fillRect(x - 4, y - 4, 8, 8);
        ctx.fillStyle = '#fff';
        ctx.font = `bold 7px ${th.font}`;
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        ctx.fillText('S', x, y + 0.5);
        hits.push({ mk, x, y });
        boxes.add(x - 5, y - 5, x + 5, y + 5);
        break;
      case 'violation': {
        acrossLanes(L, x, th.danger, 2, []);
        const yy = mk.node >= 0 ? y : top + 10;
        ctx.fillStyle = th.danger;
        ctx.beginPath();
        ctx.moveTo(x, yy - 9);
        ctx.lineTo(x + 8, yy + 6);
        ctx.lineTo(x - 8, yy + 6);
        ctx.closePath();
        ctx.fill();
        ctx.fillStyle = '#fff';
        ctx.font = `bold 10px ${th.font}`;
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        ctx.fillText('!', x, yy + 1);
        hits.push({ mk, x, y: yy });
        boxes.add(x - 9, yy - 10, x + 9, yy + 7);
        break;
      }
      case 'write': {
        if (mk.node < 0 || x - lastWriteX < 3) break;
        lastWriteX = x;
        ctx.fillStyle = mk.ev.accepted ? th.fg : th.danger;
        ctx.fillRect(x - 0.5, y - 15, 1.5, 5);
        hits.push({ mk, x, y: y - 12 });
        boxes.add(x - 1, y - 15, x + 1.5, y - 10);
        break;
      }
      case 'vote':
        // a small dot below the band where the voter decided (green granted, red rejected): tappable to explain
        ctx.fillStyle = mk.ev.granted ? th.state[3] : th.danger;
        ctx.beginPath();
        ctx.arc(x, y + 9, 2.2, 0, Math.PI * 2);
        ctx.fill();
        hits.push({ mk, x, y: y + 9 });
        boxes.add(x - 3, y + 6, x + 3, y + 12);
        if (hi) ring(ctx, x, y, th.danger);
        break;
    }
    if (hi && mk.kind !== 'truncate' && mk.kind !== 'vote') ring(ctx, x, y, th.danger);
    ctx.globalAlpha = 1;
  }
  // evidence events that are not marks (appends, hw moves): rings on their lanes
  if (L.highlight.size) {
    for (const seq of L.highlight) {
      const e = L.store.eventBySeq(seq);
      if (!e || e.t < t0 || e.t > t1) continue;
      const n = 'node' in e && typeof e.node === 'number' ? e.node : -1;
      if (n < 0 || n >= lanes.nodes) continue;
      ring(ctx, L.g.xOf(e.t), L.g.laneMid(n), th.danger);
    }
  }
  return { hits, flags, boxes };
}

/** A vertical line through every lane at x (a new leader, a fault, a violation). */
function acrossLanes(L: Layer, x: number, color: string, width: number, dash: number[]): void {
  const ctx = L.ctx;
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  ctx.moveTo(x, AXIS_H);
  ctx.lineTo(x, L.g.hgt);
  ctx.stroke();
  ctx.setLineDash([]);
}

/** Height of one row of flags. */
const FLAG_ROW_H = 17;

/**
 * Flags (new leaders, faults) at their moment: each starts at its line (or ends there,
 * at the right edge); one that would overlap another goes on the next row down (the
 * axis row first, then over the lanes), never later in time; over the lanes, only on a
 * row clear of the marks (`boxes`), so no label hides a crash, a truncation or a write.
 */
export function drawFlags(L: Layer, flags: Flag[], hits: HitMark[], boxes: MarkBoxes): void {
  const { ctx, th } = L;
  ctx.font = `600 10px ${th.font}`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  const maxRows = Math.max(1, Math.floor((L.g.hgt - AXIS_H) / FLAG_ROW_H));
  const ends: number[] = [];
  const rowTop = (row: number) => (row === 0 ? AXIS_H - FLAG_ROW_H : AXIS_H + 2 + (row - 1) * FLAG_ROW_H);
  for (const f of flags) {
    if (f.x < GUTTER - 2 || f.x > L.g.w) continue;
    const w = ctx.measureText(f.label).width + 10;
    const x = f.x + w > L.g.w ? f.x - w : f.x;
    let row = 0;
    while (row < maxRows && ((ends[row] ?? -Infinity) + 3 > x || (row > 0 && boxes.overlaps(x, rowTop(row), x + w, rowTop(row) + 15)))) row++;
    if (row === maxRows) continue; // no room left: the line (and its tooltip) still shows it
    ends[row] = x + w;
    const top = rowTop(row);
    ctx.fillStyle = f.color;
    roundRect(ctx, x, top, w, 15, 4);
    ctx.fill();
    ctx.fillStyle = th.dark ? '#0b1220' : '#fff';
    ctx.fillText(f.label, x + 5, top + 7.5);
    ctx.fillStyle = f.color;
    if (row === 0) ctx.fillRect(Math.round(f.x), AXIS_H - 3, 1.5, 3);
    hits.push({ mk: f.mk, x: x + w / 2, y: top + 8 });
  }
}

function short(s: string): string {
  return s === 'prospective' ? 'prosp.' : s === 'unattached' ? 'unatt.' : s === 'candidate' ? 'cand.' : s;
}

function glyph(ctx: CanvasRenderingContext2D, g: string, x: number, y: number, color: string, size: number, bold: boolean): void {
  ctx.font = `bold ${size}px system-ui, sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineWidth = 3;
  ctx.strokeStyle = 'rgba(255,255,255,0.8)';
  ctx.strokeText(g, x, y);
  ctx.fillStyle = color;
  ctx.fillText(g, x, y);
  if (bold) ring(ctx, x, y, color);
}

function ring(ctx: CanvasRenderingContext2D, x: number, y: number, color: string): void {
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(x, y, 10, 0, Math.PI * 2);
  ctx.stroke();
}

function roundRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, hh: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.lineTo(x + w - r, y);
  ctx.quadraticCurveTo(x + w, y, x + w, y + r);
  ctx.lineTo(x + w, y + hh - r);
  ctx.quadraticCurveTo(x + w, y + hh, x + w - r, y + hh);
  ctx.lineTo(x + r, y + hh);
  ctx.quadraticCurveTo(x, y + hh, x, y + hh - r);
  ctx.lineTo(x, y + r);
  ctx.quadraticCurveTo(x, y, x + r, y);
  ctx.closePath();
}
