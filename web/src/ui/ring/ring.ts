// The cluster view, the stage's big picture: voters on a ring, observers (brokers) in
// rows beneath, messages in flight between them (tap one: what it is and why it was
// sent), links that are down, and each node's state, epoch, timer, LEO and HW (its
// label, labels.ts, placed by plan.ts). Every node is also a real button (keyboard,
// touch, tests) that opens its actions.

import { SPAN } from '../../api.js';
import { clamp, h } from '../common/dom.js';
import { hasMeanings, nodeTip } from '../common/glossary.js';
import type { LaneView, Store } from '../common/store.js';
import { fitCanvas, type Theme } from '../common/theme.js';
import { isResponse, type LogRecord, type NodeInfo, RPC_KINDS } from '../common/types.js';
import { drawNode } from './draw-node.js';
import { NodeLabels, TAIL } from './labels.js';
import { DETAILS, type Detail, heightFor, planRing, type RingPlan } from './plan.js';

export interface RingHost {
  now(): number;
  theme(): Theme;
  nodes(): NodeInfo[];
  openNode(id: number, anchor: HTMLElement): void;
  hiddenGroups(): Set<number>;
  /** directed links that are down now (the cluster's downLinks()) */
  downLinks(): [number, number][];
  /** records of node `id` in [from, from + limit) */
  records(id: number, from: number, limit: number): LogRecord[];
  /** why the event `seq` happened, in the core's words */
  explain(seq: number): string | null;
  /** Shows the element's popover that explains what is tapped (the timeline's; `opener` gets focus back on close). */
  showExplain(title: string, event: string, why: string, x: number, y: number, opener: HTMLElement): void;
}

/** Groups of nodes that can talk both ways (partitions), from the down links. */
export function linkGroups(n: number, down: [number, number][]): { groups: number[]; isDown: (a: number, b: number) => boolean } {
  const m = new Uint8Array(n * n);
  for (const [a, b] of down) if (a < n && b < n) m[a * n + b] = 1;
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    if (parent[x] !== x) parent[x] = find(parent[x]);
    return parent[x];
  };
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (!m[a * n + b] && !m[b * n + a]) parent[find(a)] = find(b);
  const roots = new Map<number, number>();
  const groups = parent.map((_, i) => {
    const r = find(i);
    if (!roots.has(r)) roots.set(r, roots.size);
    return roots.get(r)!;
  });
  return { groups, isDown: (a, b) => m[a * n + b] === 1 };
}

/** The most ✕ of dropped messages shown at once. */
const MAX_FLASHES = 60;

const GROUP_COLORS = ['#2563eb', '#d97706', '#9333ea', '#0d9488', '#db2777', '#65a30d'];
/** Clusters up to this size get their logs' tails in the labels (the bench's 11 nodes do not). */
const TAILS_UP_TO = 7;
/** How near a tap must land to a message to pick it (px). */
const TAP_PX = 16;
/** The least wall time between two updates of the labels' text (ms). */
const LABELS_MS = 100;

export class Ring {
  readonly el: HTMLDivElement;
  private canvas: HTMLCanvasElement;
  private layer: HTMLDivElement;
  private labels = new NodeLabels();
  private buttons: HTMLButtonElement[] = [];
  /** Whether the buttons' tooltips were drawn with the glossary's meanings. */
  private titledWithMeanings = false;
  private w = 320;
  private hgt = 300;
  /** The band at the top kept clear (px). */
  private top = 0;
  private plan: RingPlan = { spots: [], labels: [], captions: [], detail: 'full' };
  private flashes: { x: number; y: number; until: number }[] = [];
  /** ids of messages just dropped, whose ✕ is placed at the next frame (from the present's lanes) */
  private drops: number[] = [];
  private lastSig = '';
  /** The messages as last drawn, three numbers each: x, y and the row in the lanes drawn (no object per message per frame). */
  private drawnMsgs: number[] = [];
  /** The names a story gives records ("X"), by `offset:epoch`. */
  private names = new Map<string, string>();
  /** Per node: the log tail shown, and what it was read for. */
  private tails: { sig: string; records: LogRecord[] }[] = [];
  /** What the last drawing showed: redraw only when one of these changed (or when invalidated). */
  private drawn: { now: number; lanes: LaneView; nodes: NodeInfo[]; down: [number, number][]; theme: Theme } | null = null;
  /** The labels have not shown the last drawing yet, and when they last changed (wall ms). */
  private labelsDue = false;
  private labelsAt = Number.NEGATIVE_INFINITY;
  /** Called when the ring needs drawing again (the element then asks for a frame). */
  onChange: () => void = () => {};
  /**
   * Called with the heights the view wants at its width for this cluster: with room for
   * each node's state (a phone's stacked stage gives it that), and the least it fits in
   * at all (a wide stage never gives it less).
   */
  onWantHeight: (roomy: number, least: number) => void = () => {};
  /** The width and cluster the wanted heights were worked out for. */
  private wanted = '';
  private wantTimer = 0;

  constructor(
    private store: Store,
    private host: RingHost,
  ) {
    this.canvas = h('canvas', { class: 'kp-ring-canvas', 'aria-hidden': 'true' });
    this.layer = h('div', { class: 'kp-ring-layer' }, this.labels.el);
    this.el = h('div', { class: 'kp-ring' }, this.canvas, this.layer);
    this.canvas.addEventListener('click', (e) => this.tapMessage(e));
  }

  /** Its size (what an overlay is placed in). */
  size(): { w: number; h: number } {
    return { w: this.w, h: this.hgt };
  }

  /** Keeps the top `px` clear of nodes (a card over it: the nodes make room, none is covered). */
  reserveTop(px: number): void {
    if (px === this.top) return;
    this.top = px;
    this.lastSig = '';
    this.invalidate();
  }

  /** Something it shows changed that it cannot see for itself (the legend, the theme). */
  invalidate(): void {
    this.drawn = null;
    this.onChange();
  }

  resize(w: number, hgt: number): void {
    if (w === this.w && hgt === this.hgt) return;
    this.w = w;
    this.hgt = hgt;
    this.lastSig = '';
    this.invalidate();
  }

  /** The records a story names (none in free play): a label's tail shows them by name. */
  setRecordNames(names: Record<string, { offset: number; epoch: number }>): void {
    this.names = new Map(Object.entries(names).map(([name, r]) => [`${r.offset}:${r.epoch}`, name]));
    this.tails = [];
    this.lastSig = '';
    this.invalidate();
  }

  /** Remember which messages died, to flash an ✕ where each died for a moment (wall time). */
  noteDrops(ids: number[]): void {
    // no more than the flashes kept
    this.drops = this.drops.concat(ids).slice(-MAX_FLASHES);
    this.onChange();
  }

  /** Places the ✕ of the messages noted as dropped. */
  private placeDrops(lanes: LaneView): void {
    const now = performance.now();
    const msgs = lanes.msgs;
    for (const id of this.drops.splice(0)) {
      // a message just dropped was sent recently: search from the newest
      let i = msgs.length - 1;
      while (i >= 0 && msgs.id(i) !== id) i--;
      if (i < 0) continue;
      const m = msgs.at(i);
      const a = this.plan.spots[m.from];
      const b = this.plan.spots[m.to];
      if (!a || !b) continue;
      const span = m.arrives - m.sent;
      const f = span > 0 ? clamp((m.end - m.sent) / span, 0.12, 1) : 0.12;
      this.flashes.push({ x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f, until: now + 700 });
    }
    if (this.flashes.length > MAX_FLASHES) this.flashes.splice(0, this.flashes.length - MAX_FLASHES);
  }

  /** Plans where nodes and labels go: for this size, these roles, and offsets this many digits long. */
  private layout(nodes: NodeInfo[], digits: number): void {
    const th = this.host.theme();
    const roles = nodes.map((n) => n.role);
    const details: readonly Detail[] = nodes.length <= TAILS_UP_TO ? DETAILS : DETAILS.filter((d) => d !== 'log');
    const size = (d: Detail) => this.labels.size(d, digits, th);
    this.plan = shifted(planRing(this.w, Math.max(0, this.hgt - this.top), roles, details, size), this.top);
    this.labels.place(
      nodes.map((n) => n.id),
      this.plan.labels,
      this.plan.detail,
    );
    this.tails = [];
    // what the view wants depends on its width and the cluster only (offsets of 4 digits
    // assumed): worked out again when those change, not as LEOs grow
    const shape = `${this.w}:${roles.join()}`;
    if (shape !== this.wanted) {
      this.wanted = shape;
      // a search of many plans (tens of ms for 15 nodes): after this frame, not in it
      clearTimeout(this.wantTimer);
      this.wantTimer = window.setTimeout(() => {
        const wide = (d: Detail) => this.labels.size(d, 4, th);
        this.onWantHeight(heightFor(this.w, roles, 300, 600, true, wide), heightFor(this.w, roles, 160, 800, false, wide));
      }, 0);
    }
  }

  /** Draws if anything it shows changed; returns whether it animates (an ✕ fading) and wants the next frame. */
  frame(): boolean {
    const nodes = this.host.nodes();
    let most = 0;
    for (const n of nodes) most = Math.max(most, n.leo);
    const digits = String(most).length;
    const sig = `${this.w}x${this.hgt}-${this.top}:${digits}:${nodes.map((n) => n.role[0]).join('')}`;
    if (sig !== this.lastSig) {
      this.layout(nodes, digits);
      this.syncButtons(nodes);
      this.lastSig = sig;
      this.drawn = null;
      // new labels are empty: filled in this frame
      this.labelsAt = Number.NEGATIVE_INFINITY;
    }
    const now = this.host.now();
    const down = this.host.downLinks();
    const theme = this.host.theme();
    const lanes = this.store.present(now);
    if (this.drops.length) this.placeDrops(lanes);
    const d = this.drawn;
    const same = d && d.now === now && d.lanes === lanes && d.nodes === nodes && d.down === down && d.theme === theme;
    if (same && !this.flashes.length && !this.labelsDue) return false;
    if (!same) {
      this.draw(nodes, lanes);
      this.drawn = { now, lanes, nodes, down, theme };
      this.labelsDue = true;
    } else if (this.flashes.length) this.draw(nodes, lanes);
    // the labels' text at most every LABELS_MS of wall time (at 100x the offsets change
    // every frame, faster than anyone reads, and each change restyles the labels); the
    // last values always show: a frame is asked for until they do
    const wall = performance.now();
    if (this.labelsDue && wall - this.labelsAt >= LABELS_MS) {
      this.labelsDue = false;
      this.labelsAt = wall;
      this.updateButtons(nodes);
      this.labels.update(
        nodes,
        theme,
        (n) => this.tailOf(n),
        (r) => this.names.get(`${r.offset}:${r.epoch}`),
      );
    }
    return this.flashes.length > 0 || this.labelsDue;
  }

  /** Node `n`'s last records, read again only when its log may have changed. */
  private tailOf(n: NodeInfo): LogRecord[] | null {
    const sig = `${n.leo}|${n.logStart}|${n.lastEpoch}`;
    const had = this.tails[n.id];
    if (had?.sig === sig) return had.records;
    const from = Math.max(n.logStart, n.leo - TAIL);
    const records = n.leo > from ? this.host.records(n.id, from, TAIL) : [];
    this.tails[n.id] = { sig, records };
    return records;
  }

  private syncButtons(nodes: NodeInfo[]): void {
    for (const b of this.buttons) b.remove();
    this.buttons = nodes.map((n) => {
      const b = h('button', { class: 'kp-node-btn', type: 'button', 'data-node': String(n.id) });
      b.addEventListener('click', () => this.host.openNode(n.id, b));
      const p = this.plan.spots[n.id];
      if (p) {
        b.style.left = `${p.x - p.r - 4}px`;
        b.style.top = `${p.y - p.r - 4}px`;
        b.style.width = b.style.height = `${2 * p.r + 8}px`;
      }
      this.layer.appendChild(b);
      return b;
    });
  }

  private updateButtons(nodes: NodeInfo[]): void {
    // the tooltips drawn before the glossary's meanings arrived are drawn again
    const retitle = this.titledWithMeanings !== hasMeanings();
    this.titledWithMeanings = hasMeanings();
    nodes.forEach((n, i) => {
      const b = this.buttons[i];
      if (!b) return;
      const label = `n${n.id} ${n.role}, ${n.state}, epoch ${n.epoch}, LEO ${n.leo}, HW ${n.hw ?? 'none'}. Open actions`;
      if (b.getAttribute('aria-label') !== label) b.setAttribute('aria-label', label);
      if (b.dataset.state !== n.state || retitle) {
        b.dataset.state = n.state;
        b.title = nodeTip(n.role, n.state);
      }
    });
  }

  /** A tap on a message in flight: what it is and why it was sent. */
  private tapMessage(e: MouseEvent): void {
    const drawn = this.drawnMsgs;
    let best = -1;
    let bestD = TAP_PX;
    for (let k = 0; k < drawn.length; k += 3) {
      const d = Math.hypot(drawn[k] - e.offsetX, drawn[k + 1] - e.offsetY);
      if (d < bestD) {
        best = k;
        bestD = d;
      }
    }
    const lanes = this.drawn?.lanes;
    if (best < 0 || !lanes) return;
    const m = lanes.msgs.at(drawn[best + 2]);
    const why = this.host.explain(m.seq) ?? 'No explanation recorded for this message.';
    const r = this.canvas.getBoundingClientRect();
    this.host.showExplain(`${RPC_KINDS[m.rpc]} n${m.from} → n${m.to}`, this.store.summaryOf(m), why, r.left + drawn[best], r.top + drawn[best + 1], this.el);
  }

  private draw(nodes: NodeInfo[], lanes: LaneView): void {
    const th = this.host.theme();
    const ctx = fitCanvas(this.canvas, this.w, this.hgt);
    const now = this.host.now();
    ctx.clearRect(0, 0, this.w, this.hgt);
    const N = nodes.length;
    const spots = this.plan.spots;
    const { groups, isDown } = linkGroups(N, this.host.downLinks());

    // partition groups: a halo per group (only when there is more than one)
    if (groups.some((g) => g !== 0)) {
      for (const n of nodes) {
        const p = spots[n.id];
        if (!p) continue;
        ctx.fillStyle = GROUP_COLORS[groups[n.id] % GROUP_COLORS.length] + (th.dark ? '33' : '22');
        ctx.beginPath();
        ctx.arc(p.x, p.y, p.r * 1.45, 0, Math.PI * 2);
        ctx.fill();
      }
    }
    // faint mesh of the links that are up (observers only ever talk to voters)
    ctx.strokeStyle = th.grid;
    ctx.lineWidth = 1.5;
    for (let a = 0; a < N; a++) {
      for (let b = a + 1; b < N; b++) {
        const pa = spots[a];
        const pb = spots[b];
        if (!pa || !pb) continue;
        if (isDown(a, b) || isDown(b, a) || (nodes[a]?.role === 'observer' && nodes[b]?.role === 'observer')) continue;
        ctx.beginPath();
        ctx.moveTo(pa.x, pa.y);
        ctx.lineTo(pb.x, pb.y);
        ctx.stroke();
      }
    }
    this.drawDownLinks(ctx, th, nodes, isDown);
    this.drawMessages(ctx, th, now, lanes);
    const wall = performance.now();
    this.flashes = this.flashes.filter((f) => f.until > wall);
    for (const f of this.flashes) {
      ctx.globalAlpha = clamp((f.until - wall) / 700, 0, 1);
      cross(ctx, f.x, f.y, 7, th.danger, th.bg);
      ctx.globalAlpha = 1;
    }
    ctx.fillStyle = th.muted;
    ctx.font = `11px ${th.font}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    if (spots.length && nodes.some((n) => n.role === 'observer')) for (const c of this.plan.captions) ctx.fillText(c.text, c.box.x, c.box.y);
    for (const n of nodes) {
      const p = spots[n.id];
      if (p) drawNode(ctx, th, n, p, now);
    }
  }

  /** Links down: both ways (an ✕ in the middle) or one way (the ✕ near the receiver). */
  private drawDownLinks(ctx: CanvasRenderingContext2D, th: Theme, nodes: NodeInfo[], isDown: (a: number, b: number) => boolean): void {
    const N = nodes.length;
    ctx.setLineDash([5, 5]);
    for (let a = 0; a < N; a++) {
      for (let b = 0; b < N; b++) {
        if (a === b || !isDown(a, b)) continue;
        const both = isDown(b, a);
        if (both && a > b) continue;
        if (nodes[a]?.role === 'observer' && nodes[b]?.role === 'observer') continue;
        const pa = this.plan.spots[a];
        const pb = this.plan.spots[b];
        if (!pa || !pb) continue;
        ctx.strokeStyle = th.danger;
        ctx.globalAlpha = 0.55;
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(pa.x, pa.y);
        ctx.lineTo(pb.x, pb.y);
        ctx.stroke();
        ctx.globalAlpha = 1;
        const f = both ? 0.5 : 0.72;
        ctx.setLineDash([]);
        cross(ctx, pa.x + (pb.x - pa.x) * f, pa.y + (pb.y - pa.y) * f, 5, th.danger, th.bg);
        ctx.setLineDash([5, 5]);
      }
    }
    ctx.setLineDash([]);
  }

  /**
   * Messages in flight, rim to rim: a request a filled dot, a response a ring, each with a
   * short trail, sized to the nodes so they can be followed and tapped.
   */
  private drawMessages(ctx: CanvasRenderingContext2D, th: Theme, now: number, lanes: LaneView): void {
    const hidden = this.host.hiddenGroups();
    const [i0, i1] = lanes.msgRange(now, now);
    const msgs = lanes.msgs;
    const spots = this.plan.spots;
    this.drawnMsgs.length = 0;
    for (let i = i0; i < i1; i++) {
      if (msgs.sent(i) > now) break;
      // the filter reads the numbers; an object only for what is drawn
      const end = msgs.num(i, SPAN.end);
      const endT = end === Infinity ? msgs.num(i, SPAN.arrives) : end;
      if (endT <= now || hidden.has(msgs.num(i, SPAN.rpc) >> 1)) continue;
      const m = msgs.at(i);
      const pa = spots[m.from];
      const pb = spots[m.to];
      if (!pa || !pb) continue;
      const span = m.arrives - m.sent;
      const f = span > 0 ? clamp((now - m.sent) / span, 0, 1) : 1;
      const dx = pb.x - pa.x;
      const dy = pb.y - pa.y;
      const len = Math.hypot(dx, dy) || 1;
      const ux = dx / len;
      const uy = dy / len;
      const size = clamp(Math.min(pa.r, pb.r) * 0.2, 3.5, 6.5);
      // a little to the side, so a request and its response on one link do not overlap
      const off = size + 1;
      const sx = pa.x + ux * pa.r;
      const sy = pa.y + uy * pa.r;
      const x = sx + (pb.x - ux * pb.r - sx) * f - uy * off;
      const y = sy + (pb.y - uy * pb.r - sy) * f + ux * off;
      const color = m.failed ? th.danger : th.rpc[m.rpc >> 1];
      const resp = isResponse(RPC_KINDS[m.rpc]);
      ctx.strokeStyle = color;
      ctx.lineWidth = 2.5;
      ctx.globalAlpha = 0.45;
      ctx.beginPath();
      ctx.moveTo(x - ux * size * 3.5, y - uy * size * 3.5);
      ctx.lineTo(x, y);
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fillStyle = resp ? th.bg : color;
      ctx.beginPath();
      ctx.arc(x, y, resp ? size - 1 : size, 0, Math.PI * 2);
      ctx.fill();
      if (resp) ctx.stroke();
      this.drawnMsgs.push(x, y, i);
    }
  }
}

/** The plan moved down by `dy` (below a band kept clear). */
function shifted(p: RingPlan, dy: number): RingPlan {
  if (!dy) return p;
  const down = <T extends { y: number }>(b: T): T => ({ ...b, y: b.y + dy });
  return { ...p, spots: p.spots.map(down), labels: p.labels.map(down), captions: p.captions.map((c) => ({ ...c, box: down(c.box) })) };
}

/** An ✕ with a halo in the background's colour, so it reads on any line. */
function cross(ctx: CanvasRenderingContext2D, x: number, y: number, k: number, color: string, bg: string): void {
  ctx.strokeStyle = bg;
  ctx.lineWidth = 4;
  ctx.beginPath();
  ctx.moveTo(x - k, y - k);
  ctx.lineTo(x + k, y + k);
  ctx.moveTo(x + k, y - k);
  ctx.lineTo(x - k, y + k);
  ctx.stroke();
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.stroke();
}
