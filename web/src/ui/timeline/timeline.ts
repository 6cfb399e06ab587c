// The space-time diagram: one lane per node, time left to right. Draws only what the
// window shows: binary searches find the messages, state segments and marks in view, and
// dense arrows collapse to one per pixel column per link and kind. What is under the
// pointer (hits.ts, with the tooltip and the keyboard's selection: pointer.ts) and why it
// happened (explain.ts) come with the later chunk: a hover, a tap or a key before it has
// arrived is answered once it has.

import type { FocusMessage, LeaderChange } from '../../generated/wire.js';
import { clamp, h } from '../common/dom.js';
import { RPC_TERMS, term, tip, withMeanings } from '../common/glossary.js';
import type { LaneView, Msg, Store } from '../common/store.js';
import { fitCanvas, type Theme } from '../common/theme.js';
import { RPC_GROUPS } from '../common/types.js';
import { drawAxis, drawBands, drawFlags, drawGutter, drawHw, drawMarks, drawMessages, isNamed, type Layer, makeHatch, type NamedMessages } from './draw.js';
import type { ExplainPopover } from './explain.js';
import { AXIS_H, GUTTER, MAX_MS_PER_PX, MIN_MS_PER_PX, TimelineGeometry } from './geometry.js';
import type { Hit, HitArrow, HitMark, HitStep } from './hits.js';

export interface TimelineHost {
  now(): number;
  theme(): Theme;
  /** the user asked to seek to t (double click / tap on the axis) */
  seek(t: number): void;
  nodeLabel(n: number): string;
  isObserver(n: number): boolean;
  /** Why event `seq` happened (the core's sentence), or null when unknown. */
  explain(seq: number): string | null;
  /** The run's leader changes, measured by the core: each failover's parts are drawn under the axis. */
  failovers(): readonly LeaderChange[];
  /** Runs `fn` once the later chunk is here (at once when it is): a tap or a key before it arrived waits for it. */
  later(what: string, fn: () => void): void;
}

/** What is under the pointer and why it happened (pointer.ts and explain.ts, with the later chunk). */
export interface Pointing {
  /** The tooltip, a tap and the keyboard's selection (pointer.ts). */
  pointer: {
    tap(tl: Timeline, at: { x: number; y: number; clientX: number; clientY: number }, drawn: { marks: HitMark[]; steps: StepSource | null; arrows: HitArrow[]; now: number }): void;
    explain(tl: Timeline, hit: Hit, clientX: number, clientY: number): void;
    stepKeyHit(tl: Timeline, dir: number): void;
    showTip(tl: Timeline, p: { x: number; y: number }): void;
  };
  /** The popover that explains what is tapped (the ring's taps too); it goes in the timeline's box. */
  explainer: ExplainPopover;
}

/** What the state changes and HW steps of the last drawing are read from, once asked for (the geometry as drawn). */
export interface StepSource {
  lanes: LaneView;
  g: TimelineGeometry;
  t0: number;
  t1: number;
  hits: HitStep[] | null;
}

/** The veil's note over the recorded future, longest first: the longest that fits is drawn. */
const FUTURE_NOTES = ['recorded future: plays back the same unless you act', 'recorded future'];

export class Timeline {
  readonly el: HTMLDivElement;
  readonly canvas: HTMLCanvasElement;
  // (the fields below without `private` are pointer.ts's too)
  tip: HTMLDivElement;
  private followBtn: HTMLButtonElement;
  geo: TimelineGeometry;
  follow = true;
  hiddenGroups = new Set<number>();
  highlight = new Set<number>();
  /** Nodes whose lanes are drawn highlighted (what a story's caption names). */
  highlightNodes = new Set<number>();
  /** The messages a story's stop names (null: none; every arrow as usual). */
  private named: NamedMessages | null = null;
  private legendItems: HTMLButtonElement[] = [];
  wheelZooms = true;
  arrows: HitArrow[] = [];
  markHits: HitMark[] = [];
  steps: StepSource | null = null;
  /** the hit the keyboard is on (ArrowUp/ArrowDown); the pointer clears it */
  keyHit: Hit | null = null;
  /** Hit-testing and the explain popover, once the later chunk has put them here (null until then). */
  pointing: Pointing | null = null;
  /** A message's summary for its tooltip or explanation (asked of the cluster once). */
  summaryOf = (m: Msg): string => this.store.summaryOf(m);
  hover: { x: number; y: number } | null = null;
  hoverKey = '';
  /** seq of the message under the pointer (drawn bold) */
  hoverSeq = -1;
  pinned = false;
  private drag: { x: number; t0: number; moved: boolean; id: number } | null = null;
  private pointers = new Map<number, { x: number; y: number }>();
  private pinch: { d: number; ms: number; cx: number } | null = null;
  dirty = true;
  /** the lanes last drawn */
  lanes: LaneView | null = null;
  private lastNow = -1;
  private hatch: CanvasPattern | null = null;
  private hatchDark: boolean | null = null;
  /** time of the last frame's draw, ms of CPU (for the benchmark) */
  lastDrawMs = 0;

  constructor(
    readonly store: Store,
    readonly host: TimelineHost,
  ) {
    this.geo = new TimelineGeometry(() => store.nodes);
    this.canvas = h('canvas', { class: 'kp-tl-canvas', 'aria-hidden': 'true' });
    this.tip = h('div', { class: 'kp-tip', role: 'tooltip', hidden: true });
    this.followBtn = h('button', { class: 'kp-follow', type: 'button', hidden: true, title: 'Follow the present (F)', onclick: () => this.setFollow(true) }, 'Follow now ▸');
    const zoomIn = h('button', { class: 'kp-zoom', type: 'button', title: 'Zoom in (Z)', 'aria-label': 'Zoom in', onclick: () => this.zoomBy(0.5) }, '+');
    const zoomOut = h('button', { class: 'kp-zoom', type: 'button', title: 'Zoom out (X)', 'aria-label': 'Zoom out', onclick: () => this.zoomBy(2) }, '−');
    const fit = h('button', { class: 'kp-zoom', type: 'button', title: 'Show the whole run', 'aria-label': 'Show the whole run', onclick: () => this.fitAll() }, '⤢');
    this.el = h(
      'div',
      { class: 'kp-tl', tabindex: '0', role: 'group', 'aria-label': 'Timeline: ArrowDown and ArrowUp step through the events in view, Enter explains the one selected' },
      this.canvas,
      h('div', { class: 'kp-tl-tools' }, this.followBtn, zoomOut, zoomIn, fit),
      this.tip,
    );
    this.bind();
  }

  /** Called when the timeline needs drawing again (the element then asks for a frame). */
  onChange: () => void = () => {};

  /** Draws the leader changes' measured parts (failovers.ts, which comes with the later chunk); returns what it drew, for tests. */
  drawFailovers: ((L: Layer, changes: readonly LeaderChange[]) => string) | null = null;

  invalidate(): void {
    this.markDirty();
  }

  /** Hit-testing and the explain popover (from the later chunk): a hover waiting for them is answered at the next drawing. */
  mountPointing(p: Pointing): void {
    this.pointing = p;
    this.el.append(p.explainer.el);
    this.markDirty();
  }

  /** The popover that explains what is tapped, once it is here. */
  get explainer(): ExplainPopover | null {
    return this.pointing?.explainer ?? null;
  }

  markDirty(): void {
    this.dirty = true;
    this.onChange();
  }

  setFollow(on: boolean): void {
    this.follow = on;
    this.followBtn.hidden = on;
    this.markDirty();
  }

  get plotW(): number {
    return this.geo.plotW;
  }

  /** How many simulated ms the plot shows across its width. */
  get spanMs(): number {
    const [t0, t1] = this.geo.window();
    return t1 - t0;
  }

  /** Centre the view on t and stop following. */
  focus(t: number): void {
    this.setFollow(false);
    this.geo.t0 = t - (this.plotW * this.geo.msPerPx) / 2;
    this.markDirty();
  }

  /** Shows [t0, t1] (a story's moment and what led to it) and stops following. */
  showWindow(t0: number, t1: number): void {
    this.zoomed = true;
    this.geo.msPerPx = clamp((t1 - t0) / this.plotW, MIN_MS_PER_PX, MAX_MS_PER_PX);
    this.geo.t0 = t0;
    this.setFollow(false);
  }

  zoomBy(f: number, anchorX?: number): void {
    this.zoomed = true;
    const ax = anchorX ?? (this.follow ? this.xOf(this.host.now()) - GUTTER : this.plotW / 2);
    const tAt = this.geo.t0 + ax * this.geo.msPerPx;
    this.geo.msPerPx = clamp(this.geo.msPerPx * f, MIN_MS_PER_PX, MAX_MS_PER_PX);
    this.geo.t0 = tAt - ax * this.geo.msPerPx;
    this.markDirty();
  }

  fitAll(): void {
    this.zoomed = true;
    const end = Math.max(this.lanes?.horizon ?? 0, this.host.now(), 1000);
    this.geo.msPerPx = clamp((end * 1.04) / this.plotW, MIN_MS_PER_PX, MAX_MS_PER_PX);
    this.geo.t0 = 0;
    this.setFollow(false);
  }

  /** The visible window [t0, t1] in simulated ms. */
  window(): [number, number] {
    return this.geo.window();
  }

  xOf(t: number): number {
    return this.geo.xOf(t);
  }

  private zoomed = false;

  resize(w: number, hgt: number): void {
    if (w === this.geo.w && hgt === this.geo.hgt) return;
    // until the user zooms, show about 3.5 s whatever the width
    if (!this.zoomed) this.geo.msPerPx = clamp(3500 / Math.max(100, w - GUTTER), 2.5, 12);
    const keepRight = this.geo.t0 + this.plotW * this.geo.msPerPx;
    this.geo.w = w;
    this.geo.hgt = hgt;
    if (!this.follow) this.geo.t0 = keepRight - this.plotW * this.geo.msPerPx;
    this.markDirty();
  }

  /** Draws if anything changed; returns whether it drew. */
  frame(): boolean {
    const now = this.host.now();
    if (this.follow) {
      // keep "now" at 86% of the width, but never leave the plot empty before t = 0
      const t0 = Math.max(now - this.plotW * 0.86 * this.geo.msPerPx, -this.plotW * 0.01 * this.geo.msPerPx);
      if (t0 !== this.geo.t0) {
        this.geo.t0 = t0;
        this.dirty = true;
      }
    }
    const [t0, t1] = this.geo.window();
    const lanes = this.store.window(t0, t1, now);
    if (!this.dirty && lanes === this.lanes && now === this.lastNow) return false;
    const start = performance.now();
    this.draw(now, lanes);
    this.lanes = lanes;
    this.lastNow = now;
    this.dirty = false;
    this.lastDrawMs = performance.now() - start;
    return true;
  }

  /** Draws `lanes` at `now` on the timeline's canvas, or on `target` at `dpr` (an export: export-menu.ts's `wholeRun`, which then sets `dirty`). */
  draw(now: number, lanes: LaneView, target = this.canvas, dpr?: number): void {
    const th = this.host.theme();
    const g = this.geo;
    const ctx = fitCanvas(target, g.w, g.hgt, dpr);
    const [t0, t1] = g.window();
    const N = this.store.nodes;
    const lh = g.laneH();
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, g.w, g.hgt);
    if (!this.hatch || this.hatchDark !== th.dark) {
      this.hatch = makeHatch(ctx, th.dark);
      this.hatchDark = th.dark;
    }
    const L: Layer = {
      ctx,
      th,
      g,
      lanes,
      store: this.store,
      t0,
      t1,
      now,
      hatch: this.hatch,
      hiddenGroups: this.hiddenGroups,
      highlight: this.highlight,
      hoverSeq: this.hoverSeq,
      named: this.named,
      nodeLabel: (n) => this.host.nodeLabel(n),
      isObserver: (n) => this.host.isObserver(n),
    };

    // Lanes
    for (let n = 0; n < N; n++) {
      const top = g.laneTop(n);
      if (n % 2 === 0) {
        ctx.fillStyle = th.lane;
        ctx.fillRect(GUTTER, top, g.plotW, lh);
      }
      if (this.highlightNodes.has(n)) {
        ctx.fillStyle = th.accent;
        ctx.globalAlpha = 0.12;
        ctx.fillRect(0, top, g.w, lh);
        ctx.globalAlpha = 1;
        ctx.fillRect(0, top, 3, lh);
      }
    }
    drawAxis(L);
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, AXIS_H, g.plotW, g.hgt - AXIS_H);
    ctx.clip();

    const xNow = g.xOf(now);
    drawBands(L);
    drawHw(L);
    // what the state changes and HW steps are (hittable like marks), worked out when first asked for
    const drawn = Object.assign(new TimelineGeometry(() => N), { w: g.w, hgt: g.hgt, msPerPx: g.msPerPx, t0: g.t0 });
    const steps: StepSource = { lanes, g: drawn, t0, t1, hits: null };
    const arrows = drawMessages(L);
    const { hits, flags, boxes } = drawMarks(L);
    // Recorded future (after a seek back): a veil.
    if (xNow < g.w) {
      ctx.fillStyle = th.dark ? 'rgba(13,20,36,0.55)' : 'rgba(248,250,252,0.62)';
      ctx.fillRect(Math.max(GUTTER, xNow), AXIS_H, g.w, g.hgt);
      if (lanes.horizon > now + 50) {
        const x = Math.max(GUTTER, xNow) + 8;
        ctx.font = `italic 11px ${th.font}`;
        // the whole note where it fits, else its first words, else nothing (never cut off)
        let note: { text: string; w: number } | null = null;
        for (const text of FUTURE_NOTES) {
          const w = ctx.measureText(text).width;
          if (x + w + 8 <= g.w) {
            note = { text, w };
            break;
          }
        }
        if (note) {
          // on a chip of the background down to the first lane's band: the role labels
          // above that band sit at the same height, and would show through the text
          const h = Math.max(15, g.laneMid(0) - 8 - AXIS_H);
          ctx.fillStyle = th.bg;
          ctx.fillRect(x - 4, AXIS_H + 1, note.w + 8, h);
          ctx.textAlign = 'left';
          ctx.textBaseline = 'middle';
          ctx.fillStyle = th.muted;
          ctx.fillText(note.text, x, AXIS_H + 1 + h / 2);
        }
      }
    }

    // Now line
    if (xNow >= GUTTER && xNow <= g.w) {
      ctx.strokeStyle = th.now;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(xNow, AXIS_H);
      ctx.lineTo(xNow, g.hgt);
      ctx.stroke();
    }
    ctx.restore();
    drawFlags(L, flags, hits, boxes);
    const failovers = this.drawFailovers?.(L, this.host.failovers()) ?? '';
    if (xNow >= GUTTER && xNow <= g.w) {
      ctx.fillStyle = th.now;
      ctx.beginPath();
      ctx.moveTo(xNow - 5, AXIS_H - 7);
      ctx.lineTo(xNow + 5, AXIS_H - 7);
      ctx.lineTo(xNow, AXIS_H);
      ctx.fill();
    }
    drawGutter(L);
    if (target !== this.canvas) return; // an export: what is on screen keeps its hit points
    this.arrows = arrows;
    this.markHits = hits;
    this.steps = steps;
    this.updateTip();
    // what is drawn, for tests and tools: the window and the highlighted lanes
    this.el.dataset.window = `${Math.round(t0)},${Math.round(t1)}`;
    this.el.dataset.highlightNodes = [...this.highlightNodes].sort((a, b) => a - b).join(',');
    this.el.dataset.failovers = failovers;
    const named = this.named;
    const emphasized = named ? arrows.filter((a) => isNamed(a.m, named)).length : 0;
    this.el.dataset.namedArrows = named ? String(emphasized) : '';
    this.el.dataset.dimmedArrows = named ? String(arrows.length - emphasized) : '';
  }

  /** At a stop: the named messages' arrows in [t0, t1] are drawn emphasized, the others dimmed, and their legend entries marked; none: as usual. */
  nameMessages(messages: readonly FocusMessage[], t0 = 0, t1 = 0): void {
    this.named = messages.length ? { messages, t0, t1 } : null;
    const kinds = new Set<string>(messages.map((m) => m.kind));
    for (const b of this.legendItems) b.classList.toggle('kp-legend-named', kinds.has(b.dataset.rpc ?? ''));
    this.markDirty();
  }

  // ---- interaction ---------------------------------------------------------------

  private bind(): void {
    const c = this.canvas;
    c.addEventListener('pointerdown', (e) => {
      c.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
      if (this.pointers.size === 2) {
        const [p, q] = [...this.pointers.values()];
        this.pinch = { d: Math.hypot(p.x - q.x, p.y - q.y), ms: this.geo.msPerPx, cx: (p.x + q.x) / 2 };
        this.drag = null;
      } else {
        this.drag = { x: e.offsetX, t0: this.geo.t0, moved: false, id: e.pointerId };
      }
    });
    c.addEventListener('pointermove', (e) => {
      if (this.pointers.has(e.pointerId)) this.pointers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
      if (this.pinch && this.pointers.size === 2) {
        const [p, q] = [...this.pointers.values()];
        const d = Math.max(10, Math.hypot(p.x - q.x, p.y - q.y));
        const ax = this.pinch.cx - GUTTER;
        const tAt = this.geo.t0 + ax * this.geo.msPerPx;
        this.geo.msPerPx = clamp((this.pinch.ms * this.pinch.d) / d, MIN_MS_PER_PX, MAX_MS_PER_PX);
        this.zoomed = true;
        this.geo.t0 = tAt - ax * this.geo.msPerPx;
        this.setFollow(false);
        return;
      }
      if (this.drag && this.drag.id === e.pointerId) {
        const dx = e.offsetX - this.drag.x;
        if (Math.abs(dx) > 4) this.drag.moved = true;
        if (this.drag.moved) {
          this.geo.t0 = this.drag.t0 - dx * this.geo.msPerPx;
          this.setFollow(false);
          this.hover = null;
          this.markDirty();
          return;
        }
      }
      if (e.pointerType === 'mouse' && !this.pinned) {
        this.keyHit = null;
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
            this.host.seek(Math.max(0, Math.round(this.geo.t0 + (e.offsetX - GUTTER) * this.geo.msPerPx)));
            return;
          }
          // tap / click: pin the details of what is under it (or unpin), and explain it
          const tap = { x: e.offsetX, y: e.offsetY, clientX: e.clientX, clientY: e.clientY };
          const drawn = { marks: this.markHits, steps: this.steps, arrows: this.arrows, now: this.host.now() };
          this.host.later('The explanation', () => this.pointing?.pointer.tap(this, tap, drawn));
        }
      }
    };
    this.el.addEventListener('keydown', (e) => {
      if (e.target !== this.el) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        e.stopPropagation();
        const dir = e.key === 'ArrowDown' ? 1 : -1;
        this.host.later('The explanation', () => this.pointing?.pointer.stepKeyHit(this, dir));
      } else if (e.key === 'Enter' && this.keyHit) {
        const hit = this.keyHit;
        e.preventDefault();
        e.stopPropagation();
        const r = this.canvas.getBoundingClientRect();
        this.pointing?.pointer.explain(this, hit, r.left + hit.x, r.top + hit.y);
      }
    });
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
          this.geo.t0 += (e.shiftKey ? e.deltaY : e.deltaX) * this.geo.msPerPx;
          this.setFollow(false);
        }
      },
      { passive: false },
    );
  }

  /** The tooltip of what is under the pointer or the keyboard's selection (none: hidden). */
  updateTip(): void {
    if (!this.hover) {
      this.tip.hidden = true;
      this.hoverKey = '';
      if (this.hoverSeq !== -1) {
        this.hoverSeq = -1;
        this.markDirty();
      }
      return;
    }
    // not here yet: the hover is kept, and answered at the drawing after they arrive
    this.pointing?.pointer.showTip(this, this.hover);
  }

  legend(onToggle?: () => void): HTMLElement {
    const items = RPC_GROUPS.map((g, i) => {
      const b = h('button', { class: 'kp-legend-item', type: 'button', 'aria-pressed': 'true', 'data-rpc': g }, h('span', { class: `kp-swatch kp-rpc-${g}` }), label(g));
      withMeanings(() => {
        b.title = `${tip(RPC_TERMS[g])}\n\nClick to show or hide ${g} arrows.`;
      });
      b.addEventListener('click', () => {
        const on = this.hiddenGroups.has(i);
        if (on) this.hiddenGroups.delete(i);
        else this.hiddenGroups.add(i);
        b.setAttribute('aria-pressed', String(on));
        this.markDirty();
        onToggle?.();
      });
      return b;
    });
    this.legendItems = items;
    return h(
      'div',
      { class: 'kp-legend', role: 'group', 'aria-label': 'Message kinds' },
      ...items,
      h(
        'span',
        { class: 'kp-legend-note' },
        'dashed: response · ✕ dropped · red: refused, the peer is down · ',
        term('divergingEpoch', '✂ truncation'),
        ' · ',
        term('hw', '— HW'),
        ' · ',
        term('leo', '┄ LEO'),
      ),
    );
  }
}

function label(g: string): string {
  return g === 'BeginQuorumEpoch' ? 'BeginQuorumEpoch' : g === 'EndQuorumEpoch' ? 'EndQuorumEpoch' : g;
}
