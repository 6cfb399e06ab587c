// The space-time diagram: one lane per node, time left to right. Draws only what the
// window shows: binary searches find the messages, state segments and marks in view, and
// dense arrows collapse to one per pixel column per link and kind.

import { clamp, fmtShort, fmtT, h } from './dom.js';
import { type Mark, type Msg, type Steps, type Store, upperBound as upper } from './store.js';
import { fitCanvas, type Theme } from './theme.js';
import { isResponse, RPC_GROUPS, RPC_KINDS, STATES } from './types.js';

const AXIS_H = 38;
const GUTTER = 46;
const MIN_MS_PER_PX = 0.02;
/** line widths per RPC group (PreVote, Vote, Begin, End, Fetch, FetchSnapshot) */
const REQ_W = [2, 2.2, 1.9, 2, 1.1, 1.6];
const RESP_W = [1.3, 1.4, 1.1, 1.3, 0.9, 1.1];
const MAX_MS_PER_PX = 5000;

interface HitArrow {
  m: Msg;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}
interface HitMark {
  mk: Mark;
  x: number;
  y: number;
}

export interface TimelineHost {
  now(): number;
  theme(): Theme;
  /** the user asked to seek to t (double click / tap on the axis) */
  seek(t: number): void;
  nodeLabel(n: number): string;
  isObserver(n: number): boolean;
}

export class Timeline {
  readonly el: HTMLDivElement;
  readonly canvas: HTMLCanvasElement;
  private tip: HTMLDivElement;
  private followBtn: HTMLButtonElement;
  private ctx!: CanvasRenderingContext2D;
  private w = 600;
  private hgt = 300;
  /** ms per CSS pixel */
  msPerPx = 3.5;
  /** time at the left edge of the plot */
  t0 = 0;
  follow = true;
  hiddenGroups = new Set<number>();
  highlight = new Set<number>();
  wheelZooms = true;
  private arrows: HitArrow[] = [];
  private markHits: HitMark[] = [];
  private flags: { x: number; label: string; mk: Mark; color: string }[] = [];
  private hover: { x: number; y: number } | null = null;
  private hoverKey = '';
  /** seq of the message under the pointer (drawn bold) */
  private hoverSeq = -1;
  private pinned = false;
  private drag: { x: number; t0: number; moved: boolean; id: number } | null = null;
  private pointers = new Map<number, { x: number; y: number }>();
  private pinch: { d: number; ms: number; cx: number } | null = null;
  private dirty = true;
  private lastVersion = -1;
  private lastNow = -1;
  private hatch: CanvasPattern | null = null;
  private hatchDark: boolean | null = null;
  /** time of the last frame's draw, ms of CPU (for the benchmark) */
  lastDrawMs = 0;

  constructor(
    private store: Store,
    private host: TimelineHost,
  ) {
    this.canvas = h('canvas', { class: 'kp-tl-canvas', 'aria-hidden': 'true' });
    this.tip = h('div', { class: 'kp-tip', role: 'tooltip', hidden: true });
    this.followBtn = h('button', { class: 'kp-follow', type: 'button', hidden: true, title: 'Follow the present (F)', onclick: () => this.setFollow(true) }, 'Follow now ▸');
    const zoomIn = h('button', { class: 'kp-zoom', type: 'button', title: 'Zoom in (Z)', 'aria-label': 'Zoom in', onclick: () => this.zoomBy(0.5) }, '+');
    const zoomOut = h('button', { class: 'kp-zoom', type: 'button', title: 'Zoom out (X)', 'aria-label': 'Zoom out', onclick: () => this.zoomBy(2) }, '−');
    const fit = h('button', { class: 'kp-zoom', type: 'button', title: 'Show the whole run', 'aria-label': 'Show the whole run', onclick: () => this.fitAll() }, '⤢');
    this.el = h('div', { class: 'kp-tl' }, this.canvas, h('div', { class: 'kp-tl-tools' }, this.followBtn, zoomOut, zoomIn, fit), this.tip);
    this.bind();
  }

  invalidate(): void {
    this.dirty = true;
  }

  setFollow(on: boolean): void {
    this.follow = on;
    this.followBtn.hidden = on;
    this.dirty = true;
  }

  get plotW(): number {
    return Math.max(10, this.w - GUTTER);
  }

  /** Centre the view on t and stop following. */
  focus(t: number): void {
    this.setFollow(false);
    this.t0 = t - (this.plotW * this.msPerPx) / 2;
    this.dirty = true;
  }

  zoomBy(f: number, anchorX?: number): void {
    this.zoomed = true;
    const ax = anchorX ?? (this.follow ? this.xOf(this.host.now()) - GUTTER : this.plotW / 2);
    const tAt = this.t0 + ax * this.msPerPx;
    this.msPerPx = clamp(this.msPerPx * f, MIN_MS_PER_PX, MAX_MS_PER_PX);
    this.t0 = tAt - ax * this.msPerPx;
    this.dirty = true;
  }

  fitAll(): void {
    this.zoomed = true;
    const end = Math.max(this.store.lastT, this.host.now(), 1000);
    this.msPerPx = clamp((end * 1.04) / this.plotW, MIN_MS_PER_PX, MAX_MS_PER_PX);
    this.t0 = 0;
    this.setFollow(false);
  }

  /** The visible window [t0, t1] in simulated ms. */
  window(): [number, number] {
    return [this.t0, this.t0 + this.plotW * this.msPerPx];
  }

  xOf(t: number): number {
    return GUTTER + (t - this.t0) / this.msPerPx;
  }

  private laneH(): number {
    return (this.hgt - AXIS_H - 4) / Math.max(1, this.store.nodes);
  }
  private laneTop(n: number): number {
    return AXIS_H + n * this.laneH();
  }
  private laneMid(n: number): number {
    return this.laneTop(n) + Math.min(this.laneH() * 0.42, 26);
  }

  private zoomed = false;

  resize(w: number, hgt: number): void {
    if (w === this.w && hgt === this.hgt) return;
    // until the user zooms, show about 3.5 s whatever the width
    if (!this.zoomed) this.msPerPx = clamp(3500 / Math.max(100, w - GUTTER), 2.5, 12);
    const keepRight = this.t0 + this.plotW * this.msPerPx;
    this.w = w;
    this.hgt = hgt;
    if (!this.follow) this.t0 = keepRight - this.plotW * this.msPerPx;
    this.dirty = true;
  }

  /** Draws if anything changed; returns whether it drew. */
  frame(): boolean {
    const now = this.host.now();
    if (this.follow) {
      // keep "now" at 86% of the width, but never leave the plot empty before t = 0
      const t0 = Math.max(now - this.plotW * 0.86 * this.msPerPx, -this.plotW * 0.01 * this.msPerPx);
      if (t0 !== this.t0) {
        this.t0 = t0;
        this.dirty = true;
      }
    }
    if (!this.dirty && this.store.version === this.lastVersion && now === this.lastNow) return false;
    const start = performance.now();
    this.draw(now);
    this.lastVersion = this.store.version;
    this.lastNow = now;
    this.dirty = false;
    this.lastDrawMs = performance.now() - start;
    return true;
  }

  private draw(now: number): void {
    const th = this.host.theme();
    const ctx = (this.ctx = fitCanvas(this.canvas, this.w, this.hgt));
    const [t0, t1] = this.window();
    const N = this.store.nodes;
    const lh = this.laneH();
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, this.w, this.hgt);
    if (!this.hatch || this.hatchDark !== th.dark) this.makeHatch(th);

    // Lanes
    for (let n = 0; n < N; n++) {
      const top = this.laneTop(n);
      if (n % 2 === 0) {
        ctx.fillStyle = th.lane;
        ctx.fillRect(GUTTER, top, this.plotW, lh);
      }
    }
    this.drawAxis(th, t0, t1);
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, AXIS_H, this.plotW, this.hgt - AXIS_H);
    ctx.clip();

    const xNow = this.xOf(now);
    this.drawBands(th, t0, t1, now);
    this.drawHw(th, t0, t1, now);
    this.drawMessages(th, t0, t1, now);
    this.drawMarks(th, t0, t1, now);
    // Recorded future (after a seek back): a veil.
    if (xNow < this.w) {
      ctx.fillStyle = th.dark ? 'rgba(13,20,36,0.55)' : 'rgba(248,250,252,0.62)';
      ctx.fillRect(Math.max(GUTTER, xNow), AXIS_H, this.w, this.hgt);
      if (this.store.lastT > now + 50 && this.w - xNow > 150) {
        ctx.fillStyle = th.muted;
        ctx.font = `italic 11px ${th.font}`;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'top';
        ctx.fillText('recorded future: plays back the same unless you act', Math.max(GUTTER, xNow) + 8, AXIS_H + 3);
      }
    }


    // Now line
    if (xNow >= GUTTER && xNow <= this.w) {
      ctx.strokeStyle = th.now;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(xNow, AXIS_H);
      ctx.lineTo(xNow, this.hgt);
      ctx.stroke();
    }
    ctx.restore();
    this.drawFlags(th);
    if (xNow >= GUTTER && xNow <= this.w) {
      ctx.fillStyle = th.now;
      ctx.beginPath();
      ctx.moveTo(xNow - 5, AXIS_H - 7);
      ctx.lineTo(xNow + 5, AXIS_H - 7);
      ctx.lineTo(xNow, AXIS_H);
      ctx.fill();
    }
    this.drawGutter(th, now);
    this.updateTip();
  }

  private makeHatch(th: Theme): void {
    const c = document.createElement('canvas');
    c.width = c.height = 8;
    const x = c.getContext('2d')!;
    x.strokeStyle = th.dark ? 'rgba(148,163,184,0.55)' : 'rgba(71,85,105,0.5)';
    x.lineWidth = 1.5;
    x.beginPath();
    x.moveTo(0, 8);
    x.lineTo(8, 0);
    x.moveTo(-2, 2);
    x.lineTo(2, -2);
    x.moveTo(6, 10);
    x.lineTo(10, 6);
    x.stroke();
    this.hatch = this.ctx.createPattern(c, 'repeat');
    this.hatchDark = th.dark;
  }

  private drawAxis(th: Theme, t0: number, t1: number): void {
    const ctx = this.ctx;
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, this.w, AXIS_H);
    const span = t1 - t0;
    const target = span / Math.max(1, this.plotW / 90);
    const pow = Math.pow(10, Math.floor(Math.log10(Math.max(target, 0.001))));
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
      const x = this.xOf(t);
      if (x < GUTTER) continue;
      ctx.fillStyle = th.grid;
      ctx.fillRect(Math.round(x), AXIS_H, 1, this.hgt - AXIS_H);
      ctx.fillStyle = th.muted;
      ctx.fillText(fmtShort(t), x, 8);
    }
    if (this.store.firstT > 0 && t0 < this.store.firstT) {
      // history no longer held in the page (long runs keep the recent part)
      const xe = Math.min(this.w, this.xOf(this.store.firstT));
      ctx.fillStyle = this.hatch ?? th.lane;
      ctx.globalAlpha = 0.35;
      ctx.fillRect(GUTTER, AXIS_H, xe - GUTTER, this.hgt - AXIS_H);
      ctx.globalAlpha = 1;
      if (xe - GUTTER > 150) {
        ctx.fillStyle = th.muted;
        ctx.font = `11px ${th.font}`;
        ctx.textAlign = 'center';
        ctx.fillText('older history not kept in the page', (GUTTER + xe) / 2, AXIS_H + 12);
      }
    }
    if (t0 < 0) {
      // before the run started
      ctx.fillStyle = th.dark ? 'rgba(255,255,255,0.03)' : 'rgba(15,23,42,0.03)';
      ctx.fillRect(GUTTER, AXIS_H, this.xOf(0) - GUTTER, this.hgt);
    }
  }

  private drawGutter(th: Theme, now: number): void {
    const ctx = this.ctx;
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, AXIS_H, GUTTER, this.hgt - AXIS_H);
    ctx.fillRect(0, 0, GUTTER, AXIS_H);
    const lh = this.laneH();
    for (let n = 0; n < this.store.nodes; n++) {
      const mid = this.laneMid(n);
      const s = this.store.stateAt(n, now);
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
      ctx.fillText(this.host.nodeLabel(n), 20, mid);
      if (lh > 30) {
        ctx.fillStyle = th.muted;
        ctx.font = `10px ${th.font}`;
        ctx.fillText(this.host.isObserver(n) ? 'obs' : 'voter', 20, mid + 13);
      }
    }
    ctx.strokeStyle = th.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(GUTTER - 0.5, AXIS_H);
    ctx.lineTo(GUTTER - 0.5, this.hgt);
    ctx.stroke();
  }

  private drawBands(th: Theme, t0: number, t1: number, now: number): void {
    const ctx = this.ctx;
    const bandH = Math.max(5, Math.min(10, this.laneH() * 0.22));
    ctx.textBaseline = 'alphabetic';
    ctx.textAlign = 'left';
    const horizon = Math.max(now, this.store.lastT);
    for (let n = 0; n < this.store.nodes; n++) {
      const segs = this.store.states[n];
      const ts = this.store.stateT[n];
      const mid = this.laneMid(n);
      let i = Math.max(0, upper(ts, t0) - 1);
      for (; i < segs.length; i++) {
        const s = segs[i];
        if (s.t > t1) break;
        const end = i + 1 < segs.length ? segs[i + 1].t : horizon;
        const xa = Math.max(GUTTER - 2, this.xOf(s.t));
        const xb = Math.min(this.w + 2, this.xOf(end));
        if (xb < GUTTER) continue;
        const leader = s.state === 3;
        const bh = leader ? bandH + 3 : bandH;
        if (s.state === 6) {
          ctx.fillStyle = this.hatch ?? th.state[6];
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
  private drawHw(th: Theme, t0: number, t1: number, now: number): void {
    const lh = this.laneH();
    if (lh < 26) return;
    // one scale for every lane and both lines, over the visible window
    let lo = Infinity;
    let hi = -Infinity;
    for (const series of [this.store.hw, this.store.leo]) {
      for (let n = 0; n < this.store.nodes; n++) {
        const s = series[n];
        const a = Math.max(0, upper(s.t, t0) - 1);
        const b = upper(s.t, t1);
        for (let i = a; i < b; i++) {
          const v = s.v[i];
          if (Number.isNaN(v)) continue;
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
    }
    if (lo === Infinity) return;
    const scale = { lo, hi, t0, t1, horizon: Math.max(now, this.store.lastT) };
    this.ctx.font = `9px ${th.mono}`;
    this.ctx.textBaseline = 'bottom';
    this.ctx.textAlign = 'left';
    const hwColor = th.dark ? '#22d3ee' : '#0e7490';
    const leoColor = th.dark ? 'rgba(148, 163, 184, 0.7)' : 'rgba(71, 85, 105, 0.55)';
    this.drawSteps(this.store.leo, scale, leoColor, [3, 3], false);
    this.drawSteps(this.store.hw, scale, hwColor, [], true);
  }

  private drawSteps(
    series: Steps[],
    sc: { lo: number; hi: number; t0: number; t1: number; horizon: number },
    color: string,
    dash: number[],
    labels: boolean,
  ): void {
    const ctx = this.ctx;
    const lh = this.laneH();
    ctx.lineWidth = labels ? 1.5 : 1;
    ctx.setLineDash(dash);
    for (let n = 0; n < this.store.nodes; n++) {
      const s = series[n];
      const mid = this.laneMid(n);
      const bot = this.laneTop(n) + lh - 3;
      const top = mid + 9;
      if (bot - top < 6) continue;
      const y = (v: number) => (sc.hi === sc.lo ? (top + bot) / 2 : bot - ((v - sc.lo) / (sc.hi - sc.lo)) * (bot - top));
      const a = Math.max(0, upper(s.t, sc.t0) - 1);
      ctx.strokeStyle = color;
      ctx.beginPath();
      let open = false;
      let lastLabelX = -1e9;
      for (let i = a; i < s.t.length; i++) {
        const t = s.t[i];
        if (t > sc.t1) break;
        const v = s.v[i];
        const xa = Math.max(GUTTER - 2, this.xOf(t));
        const xb = Math.min(this.w + 2, this.xOf(i + 1 < s.t.length ? s.t[i + 1] : sc.horizon));
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


  private drawMessages(th: Theme, t0: number, t1: number, now: number): void {
    const ctx = this.ctx;
    const store = this.store;
    const [a, b] = store.msgRange(t0, t1);
    const N = store.nodes;
    const K = RPC_KINDS.length;
    const lastX = new Float64Array(N * N * K).fill(-1e9);
    this.arrows = [];
    const headLen = 6;
    let lastNoteX = -1e9;
    let budget = 6000;
    for (let i = a; i < b && budget > 0; i++) {
      const m = store.msgs[i];
      if (m.from >= N || m.to >= N) continue;
      const group = m.rpc >> 1;
      if (this.hiddenGroups.has(group)) continue;
      const endT = m.end === Infinity ? m.arrives : m.end;
      if (endT < t0) continue;
      const x1 = this.xOf(m.sent);
      const key = (m.from * N + m.to) * K + m.rpc;
      if (x1 - lastX[key] < 1.5 && !this.highlight.has(m.seq)) continue;
      lastX[key] = x1;
      budget--;
      const y1 = this.laneMid(m.from);
      const yTo = this.laneMid(m.to);
      const xArr = this.xOf(m.arrives);
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
        x2 = this.xOf(endT);
        y2 = yTo;
      }
      const color = m.failed ? th.danger : th.rpc[group] ?? th.muted;
      const resp = isResponse(RPC_KINDS[m.rpc]);
      const hi = this.highlight.has(m.seq) || this.highlight.has(m.endSeq) || m.seq === this.hoverSeq;
      const quiet = group === 4 ? (resp && m.summary.startsWith('error') ? 0.3 : 0.62) : 1;
      ctx.globalAlpha = (future ? 0.22 : 1) * (hi ? 1 : quiet);
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = hi ? 3 : (resp ? RESP_W : REQ_W)[group] ?? 1.2;
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
          const granted = m.summary.startsWith('granted=true');
          ctx.font = `bold 10px ${th.font}`;
          ctx.textAlign = 'center';
          ctx.textBaseline = 'middle';
          ctx.fillStyle = granted ? th.ok : th.danger;
          ctx.fillText(granted ? '✓' : '✗', x2 + 7, y2 + (y2 > y1 ? 7 : -7));
        } else if (m.rpc === 9 && /diverging|snapshot=/.test(m.summary) && Math.abs(x2 - x1) > 10 && x2 - lastNoteX > 70) {
          lastNoteX = x2;
          ctx.font = `bold 9px ${th.font}`;
          ctx.textAlign = 'left';
          ctx.textBaseline = 'middle';
          ctx.fillStyle = th.danger;
          ctx.fillText(m.summary.includes('diverging') ? '↶ diverging' : '⇩ snapshot', x2 + 4, y2 + (y2 > y1 ? 8 : -8));
        }
      }
      ctx.globalAlpha = 1;
      this.arrows.push({ m, x1, y1, x2, y2 });
    }
  }

  private drawMarks(th: Theme, t0: number, t1: number, now: number): void {
    const ctx = this.ctx;
    const store = this.store;
    const [a, b] = store.markRange(t0 - 1, t1 + 1);
    this.markHits = [];
    this.flags = [];
    let lastWriteX = -1e9;
    const top = AXIS_H;
    for (let i = a; i < b; i++) {
      const mk = store.marks[i];
      const x = this.xOf(mk.t);
      const future = mk.t > now;
      ctx.globalAlpha = future ? 0.3 : 1;
      const y = mk.node >= 0 && mk.node < store.nodes ? this.laneMid(mk.node) : top + 8;
      const hi = this.highlight.has(mk.seq);
      switch (mk.kind) {
        case 'leader': {
          ctx.strokeStyle = th.state[3];
          ctx.lineWidth = 1;
          ctx.setLineDash([2, 3]);
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, this.hgt);
          ctx.stroke();
          ctx.setLineDash([]);
          this.flags.push({ x, label: `★ n${mk.ev.node} leads e${mk.ev.epoch}`, mk, color: th.state[3] });
          break;
        }
        case 'fault': {
          const heal = mk.ev.fault === 'heal';
          const color = heal ? th.ok : th.danger;
          ctx.strokeStyle = color;
          ctx.lineWidth = 1.2;
          ctx.setLineDash([5, 4]);
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, this.hgt);
          ctx.stroke();
          ctx.setLineDash([]);
          const lbl = (mk.ev.detail ?? mk.ev.text ?? '').replace(/^fault /, '');
          this.flags.push({ x, label: lbl.length > 44 ? lbl.slice(0, 43) + '…' : lbl, mk, color });
          const affected = mk.ev.nodes ?? [];
          for (const n of affected) if (n < store.nodes) this.markHits.push({ mk, x, y: this.laneMid(n) });
          break;
        }
        case 'crash':
          glyph(ctx, '✕', x, y, th.danger, 15, hi);
          this.markHits.push({ mk, x, y });
          break;
        case 'restart':
          glyph(ctx, '↻', x, y, th.ok, 15, hi);
          this.markHits.push({ mk, x, y });
          break;
        case 'truncate': {
          ctx.fillStyle = th.danger;
          ctx.fillRect(x - 1, y - 11, 2.5, 22);
          ctx.font = `bold 10px ${th.font}`;
          ctx.textAlign = 'left';
          ctx.textBaseline = 'middle';
          ctx.fillText(`✂ ${mk.ev.fromLeo}→${mk.ev.to}`, x + 4, y + 11);
          this.markHits.push({ mk, x, y });
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
          this.markHits.push({ mk, x, y });
          break;
        case 'violation': {
          ctx.strokeStyle = th.danger;
          ctx.lineWidth = 2;
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, this.hgt);
          ctx.stroke();
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
          this.markHits.push({ mk, x, y: yy });
          break;
        }
        case 'write': {
          if (mk.node < 0 || x - lastWriteX < 3) break;
          lastWriteX = x;
          ctx.fillStyle = mk.ev.accepted ? th.fg : th.danger;
          ctx.fillRect(x - 0.5, y - 15, 1.5, 5);
          if (mk.ev.accepted === false) this.markHits.push({ mk, x, y: y - 12 });
          break;
        }
        case 'vote':
          if (hi) ring(ctx, x, y, th.danger);
          break;
      }
      if (hi && mk.kind !== 'truncate' && mk.kind !== 'vote') ring(ctx, x, y, th.danger);
      ctx.globalAlpha = 1;
    }
    // evidence events that are not marks (appends, hw moves): rings on their lanes
    if (this.highlight.size) {
      for (const seq of this.highlight) {
        const e = this.findEvent(seq);
        if (!e || e.t < t0 || e.t > t1) continue;
        const n = 'node' in e && typeof e.node === 'number' ? e.node : -1;
        if (n < 0 || n >= store.nodes) continue;
        ring(ctx, this.xOf(e.t), this.laneMid(n), th.danger);
      }
    }
  }

  /** New-leader flags in the axis row, left to right, never overlapping. */
  private drawFlags(th: Theme): void {
    const ctx = this.ctx;
    ctx.font = `600 10px ${th.font}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    let end = -1e9;
    for (const f of this.flags) {
      if (f.x < GUTTER - 2 || f.x > this.w) continue;
      const w = ctx.measureText(f.label).width + 10;
      const x = Math.max(f.x, end + 3);
      if (x > this.w) break;
      ctx.fillStyle = f.color;
      roundRect(ctx, x, AXIS_H - 17, w, 15, 4);
      ctx.fill();
      ctx.fillStyle = th.dark ? '#0b1220' : '#fff';
      ctx.fillText(f.label, x + 5, AXIS_H - 9.5);
      ctx.fillStyle = f.color;
      ctx.fillRect(Math.round(f.x), AXIS_H - 3, 1.5, 3);
      end = x + w;
      this.markHits.push({ mk: f.mk, x: x + w / 2, y: AXIS_H - 9 });
    }
  }

  private findEvent(seq: number) {
    const evs = this.store.events;
    let lo = 0;
    let hi = evs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (evs[mid].seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return evs[lo] && evs[lo].seq === seq ? evs[lo] : undefined;
  }

  // ---- interaction ---------------------------------------------------------------

  private bind(): void {
    const c = this.canvas;
    c.addEventListener('pointerdown', (e) => {
      c.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
      if (this.pointers.size === 2) {
        const [p, q] = [...this.pointers.values()];
        this.pinch = { d: Math.hypot(p.x - q.x, p.y - q.y), ms: this.msPerPx, cx: (p.x + q.x) / 2 };
        this.drag = null;
      } else {
        this.drag = { x: e.offsetX, t0: this.t0, moved: false, id: e.pointerId };
      }
    });
    c.addEventListener('pointermove', (e) => {
      if (this.pointers.has(e.pointerId)) this.pointers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
      if (this.pinch && this.pointers.size === 2) {
        const [p, q] = [...this.pointers.values()];
        const d = Math.max(10, Math.hypot(p.x - q.x, p.y - q.y));
        const ax = this.pinch.cx - GUTTER;
        const tAt = this.t0 + ax * this.msPerPx;
        this.msPerPx = clamp((this.pinch.ms * this.pinch.d) / d, MIN_MS_PER_PX, MAX_MS_PER_PX);
        this.zoomed = true;
        this.t0 = tAt - ax * this.msPerPx;
        this.setFollow(false);
        return;
      }
      if (this.drag && this.drag.id === e.pointerId) {
        const dx = e.offsetX - this.drag.x;
        if (Math.abs(dx) > 4) this.drag.moved = true;
        if (this.drag.moved) {
          this.t0 = this.drag.t0 - dx * this.msPerPx;
          this.setFollow(false);
          this.hover = null;
          this.dirty = true;
          return;
        }
      }
      if (e.pointerType === 'mouse' && !this.pinned) {
        this.hover = { x: e.offsetX, y: e.offsetY };
        this.updateTip();
      }
    });
    const up = (e: PointerEvent) => {
      this.pointers.delete(e.pointerId);
      if (this.pointers.size < 2) this.pinch = null;
      const d = this.drag;
      if (d && d.id === e.pointerId) {
        this.drag = null;
        if (!d.moved && e.type === 'pointerup') {
          if (e.offsetY < AXIS_H && e.offsetX > GUTTER) {
            this.host.seek(Math.max(0, Math.round(this.t0 + (e.offsetX - GUTTER) * this.msPerPx)));
            return;
          }
          // tap / click: pin the details of what is under it (or unpin)
          this.hover = { x: e.offsetX, y: e.offsetY };
          this.pinned = false;
          this.hoverKey = '';
          this.updateTip();
          this.pinned = !this.tip.hidden;
        }
      }
    };
    c.addEventListener('pointerup', up);
    c.addEventListener('pointercancel', up);
    c.addEventListener('pointerleave', () => {
      if (!this.pinned) {
        this.hover = null;
        this.updateTip();
      }
    });
    c.addEventListener(
      'wheel',
      (e) => {
        const zoom = e.ctrlKey || e.metaKey || (this.wheelZooms && !e.shiftKey && Math.abs(e.deltaY) > Math.abs(e.deltaX));
        if (zoom) {
          e.preventDefault();
          this.zoomBy(Math.exp(clamp(e.deltaY, -100, 100) * 0.006), e.offsetX - GUTTER);
        } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          e.preventDefault();
          this.t0 += (e.shiftKey ? e.deltaY : e.deltaX) * this.msPerPx;
          this.setFollow(false);
        }
      },
      { passive: false },
    );
  }

  private updateTip(): void {
    const p = this.hover;
    if (!p) {
      this.tip.hidden = true;
      this.hoverKey = '';
      if (this.hoverSeq !== -1) {
        this.hoverSeq = -1;
        this.dirty = true;
      }
      return;
    }
    let best: { d: number; lines: string[]; key: string } | null = null;
    for (const mk of this.markHits) {
      const d = Math.hypot(mk.x - p.x, mk.y - p.y);
      if (d < 10 && (!best || d < best.d)) best = { d, lines: markLines(mk.mk), key: `m${mk.mk.seq}` };
    }
    if (!best) {
      for (const a of this.arrows) {
        const d = segDist(p.x, p.y, a.x1, a.y1, a.x2, a.y2);
        if (d < 6 && (!best || d < best.d)) best = { d, lines: msgLines(a.m, this.host.now()), key: `a${a.m.seq}` };
      }
    }
    if (!best) {
      this.tip.hidden = true;
      this.hoverKey = '';
      this.pinned = false;
      if (this.hoverSeq !== -1) {
        this.hoverSeq = -1;
        this.dirty = true;
      }
      return;
    }
    if (best.key !== this.hoverKey) {
      this.hoverKey = best.key;
      const seq = best.key.startsWith('a') ? Number(best.key.slice(1)) : -1;
      if (seq !== this.hoverSeq) {
        this.hoverSeq = seq;
        this.dirty = true;
      }
      this.tip.replaceChildren(...best.lines.map((l, i) => h('div', { class: i === 0 ? 'kp-tip-h' : '' }, l)));
    }
    this.tip.hidden = false;
    const tw = this.tip.offsetWidth;
    const x = p.x + 14 + tw > this.w ? p.x - tw - 10 : p.x + 14;
    this.tip.style.left = `${Math.max(0, x)}px`;
    this.tip.style.top = `${clamp(p.y + 12, 0, Math.max(0, this.hgt - this.tip.offsetHeight))}px`;
  }

  /** A one-line description of what the plot shows, for the text summary. */
  describeWindow(): string {
    const [t0, t1] = this.window();
    return `Timeline ${fmtT(Math.max(0, t0))} to ${fmtT(Math.max(0, t1))}${this.follow ? ', following now' : ''}`;
  }

  legend(onToggle?: () => void): HTMLElement {
    const items = RPC_GROUPS.map((g, i) => {
      const b = h('button', { class: 'kp-legend-item', type: 'button', 'aria-pressed': 'true', title: `Show or hide ${g} arrows`, 'data-rpc': g }, h('span', { class: `kp-swatch kp-rpc-${g}` }), label(g));
      b.addEventListener('click', () => {
        const on = this.hiddenGroups.has(i);
        if (on) this.hiddenGroups.delete(i);
        else this.hiddenGroups.add(i);
        b.setAttribute('aria-pressed', String(on));
        this.dirty = true;
        onToggle?.();
      });
      return b;
    });
    return h(
      'div',
      { class: 'kp-legend', role: 'group', 'aria-label': 'Message kinds' },
      ...items,
      h('span', { class: 'kp-legend-note' }, 'dashed: response · ✕ dropped · red: refused, the peer is down · ✂ truncation · — HW · ┄ LEO'),
    );
  }
}

function label(g: string): string {
  return g === 'BeginQuorumEpoch' ? 'BeginQuorumEpoch' : g === 'EndQuorumEpoch' ? 'EndQuorumEpoch' : g;
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

