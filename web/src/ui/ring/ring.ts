// The cluster view: voters on a ring, observers (brokers) in a row beneath, messages in
// flight between them, links that are down, and each node's role, epoch, timer, LEO and
// HW. Every node is also a real button (keyboard, touch, tests) that opens its actions.

import { clamp, h } from '../common/dom.js';
import { nodeTip } from '../common/glossary.js';
import { MSG, type Store } from '../common/store.js';
import { fitCanvas, type Theme } from '../common/theme.js';
import { isResponse, type NodeInfo, RPC_KINDS, STATES } from '../common/types.js';

export interface RingHost {
  now(): number;
  theme(): Theme;
  nodes(): NodeInfo[];
  openNode(id: number, anchor: HTMLElement): void;
  hiddenGroups(): Set<number>;
  /** directed links that are down now (the cluster's downLinks()) */
  downLinks(): [number, number][];
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

interface Pos {
  x: number;
  y: number;
  r: number;
}

const GROUP_COLORS = ['#2563eb', '#d97706', '#9333ea', '#0d9488', '#db2777', '#65a30d'];

export class Ring {
  readonly el: HTMLDivElement;
  private canvas: HTMLCanvasElement;
  private layer: HTMLDivElement;
  private buttons: HTMLButtonElement[] = [];
  private w = 320;
  private hgt = 300;
  private pos: Pos[] = [];
  /** y of the observers' row label, or -1 */
  private obsLabelY = -1;
  private flashes: { x: number; y: number; until: number; color: string }[] = [];
  private lastSig = '';
  /** What the last drawing showed: redraw only when one of these changed (or when invalidated). */
  private drawn: { now: number; version: number; nodes: NodeInfo[]; down: [number, number][]; theme: Theme } | null = null;
  /** Called when the ring needs drawing again (the element then asks for a frame). */
  onChange: () => void = () => {};

  constructor(
    private store: Store,
    private host: RingHost,
  ) {
    this.canvas = h('canvas', { class: 'kp-ring-canvas', 'aria-hidden': 'true' });
    this.layer = h('div', { class: 'kp-ring-layer' });
    this.el = h('div', { class: 'kp-ring' }, this.canvas, this.layer);
  }

  /** Its size and where each node is drawn (as laid out by the last frame): what an overlay keeps clear of. */
  geometry(): { w: number; h: number; spots: readonly (Pos | undefined)[] } {
    return { w: this.w, h: this.hgt, spots: this.pos };
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

  /** Remember where messages died, to flash an ✕ there for a moment (wall time). */
  noteDrops(ids: number[]): void {
    const now = performance.now();
    const msgs = this.store.msgs;
    for (const id of ids) {
      // a message just dropped was sent recently: search from the newest
      let i = msgs.length - 1;
      while (i >= 0 && msgs.id(i) !== id) i--;
      if (i < 0) continue;
      const m = msgs.at(i);
      const a = this.pos[m.from];
      const b = this.pos[m.to];
      if (!a || !b) continue;
      const span = m.arrives - m.sent;
      const f = span > 0 ? clamp((m.end - m.sent) / span, 0.12, 1) : 0.12;
      this.flashes.push({ x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f, until: now + 700, color: '' });
    }
    if (this.flashes.length > 60) this.flashes.splice(0, this.flashes.length - 60);
    this.onChange();
  }

  private layout(nodes: NodeInfo[]): void {
    const voters = nodes.filter((n) => n.role !== 'observer');
    const obs = nodes.filter((n) => n.role === 'observer');
    const cx = this.w / 2;
    const r = clamp(Math.min(this.w, this.hgt) / 12, 14, 27);
    const ro = clamp(r * 0.78, 12, 21);
    const obsRow = obs.length ? 2 * ro + 40 : 0;
    const ringH = this.hgt - obsRow;
    // room above for the leader's star, below for each node's caption
    const top = 20;
    const below = 30;
    const R = Math.max(r * 1.4, Math.min(this.w * 0.36, (ringH - top - below - 2 * r) / 2));
    const cy = top + r + R;
    this.pos = [];
    voters.forEach((n, i) => {
      const a = -Math.PI / 2 + (i * 2 * Math.PI) / voters.length;
      this.pos[n.id] = voters.length === 1 ? { x: cx, y: ringH / 2, r } : { x: cx + R * Math.cos(a), y: cy + R * Math.sin(a), r };
    });
    const span = Math.min(this.w - 2 * ro - 30, (obs.length - 1) * Math.max(70, 2 * ro + 40));
    obs.forEach((n, i) => {
      const x = obs.length === 1 ? cx : cx - span / 2 + (i * span) / (obs.length - 1);
      this.pos[n.id] = { x, y: this.hgt - below - ro - 2, r: ro };
    });
    this.obsLabelY = obs.length ? this.hgt - below - 2 * ro - 14 : -1;
  }

  /** Draws if anything it shows changed; returns whether it animates (an ✕ fading) and wants the next frame. */
  frame(): boolean {
    const nodes = this.host.nodes();
    const sig = `${this.w}x${this.hgt}:${nodes.map((n) => n.role[0]).join('')}`;
    if (sig !== this.lastSig) {
      this.layout(nodes);
      this.syncButtons(nodes);
      this.lastSig = sig;
      this.drawn = null;
    }
    const now = this.host.now();
    const down = this.host.downLinks();
    const theme = this.host.theme();
    const d = this.drawn;
    const same = d && d.now === now && d.version === this.store.version && d.nodes === nodes && d.down === down && d.theme === theme;
    if (same && !this.flashes.length) return false;
    this.draw(nodes);
    this.drawn = { now, version: this.store.version, nodes, down, theme };
    if (!same) this.updateButtons(nodes);
    return this.flashes.length > 0;
  }

  private syncButtons(nodes: NodeInfo[]): void {
    this.layer.replaceChildren();
    this.buttons = nodes.map((n) => {
      const b = h('button', { class: 'kp-node-btn', type: 'button', 'data-node': String(n.id) });
      b.addEventListener('click', () => this.host.openNode(n.id, b));
      const p = this.pos[n.id];
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
    nodes.forEach((n, i) => {
      const b = this.buttons[i];
      if (!b) return;
      const label = `n${n.id} ${n.role}, ${n.state}, epoch ${n.epoch}, LEO ${n.leo}, HW ${n.hw ?? 'none'}. Open actions`;
      if (b.getAttribute('aria-label') !== label) b.setAttribute('aria-label', label);
      if (b.dataset.state !== n.state) {
        b.dataset.state = n.state;
        b.title = nodeTip(n.role, n.state);
      }
    });
  }

  private draw(nodes: NodeInfo[]): void {
    const th = this.host.theme();
    const ctx = fitCanvas(this.canvas, this.w, this.hgt);
    const now = this.host.now();
    ctx.clearRect(0, 0, this.w, this.hgt);
    const N = nodes.length;
    const { groups, isDown } = linkGroups(N, this.host.downLinks());

    // partition groups: a halo per group (only when there is more than one)
    if (groups.some((g) => g !== 0)) {
      for (const n of nodes) {
        const p = this.pos[n.id];
        if (!p) continue;
        ctx.fillStyle = GROUP_COLORS[groups[n.id] % GROUP_COLORS.length] + (th.dark ? '33' : '22');
        ctx.beginPath();
        ctx.arc(p.x, p.y, p.r + 13, 0, Math.PI * 2);
        ctx.fill();
      }
    }
    // faint mesh of the links that are up (observers only ever talk to voters)
    ctx.strokeStyle = th.grid;
    ctx.lineWidth = 1;
    for (let a = 0; a < N; a++) {
      for (let b = a + 1; b < N; b++) {
        const pa = this.pos[a];
        const pb = this.pos[b];
        if (!pa || !pb) continue;
        if (isDown(a, b) || isDown(b, a) || (nodes[a]?.role === 'observer' && nodes[b]?.role === 'observer')) continue;
        ctx.beginPath();
        ctx.moveTo(pa.x, pa.y);
        ctx.lineTo(pb.x, pb.y);
        ctx.stroke();
      }
    }
    // links down: both ways (an ✕ in the middle) or one way (the ✕ near the receiver)
    ctx.setLineDash([4, 4]);
    for (let a = 0; a < N; a++) {
      for (let b = 0; b < N; b++) {
        if (a === b || !isDown(a, b)) continue;
        const both = isDown(b, a);
        if (both && a > b) continue;
        if (nodes[a]?.role === 'observer' && nodes[b]?.role === 'observer') continue;
        const pa = this.pos[a];
        const pb = this.pos[b];
        if (!pa || !pb) continue;
        ctx.strokeStyle = th.danger;
        ctx.globalAlpha = 0.55;
        ctx.lineWidth = 1.2;
        ctx.beginPath();
        ctx.moveTo(pa.x, pa.y);
        ctx.lineTo(pb.x, pb.y);
        ctx.stroke();
        ctx.globalAlpha = 1;
        const f = both ? 0.5 : 0.72;
        const mx = pa.x + (pb.x - pa.x) * f;
        const my = pa.y + (pb.y - pa.y) * f;
        ctx.setLineDash([]);
        cross(ctx, mx, my, 4, th.danger, th.bg);
        ctx.setLineDash([4, 4]);
      }
    }
    ctx.setLineDash([]);

    // messages in flight
    const hidden = this.host.hiddenGroups();
    const [i0, i1] = this.store.msgRange(now, now);
    const msgs = this.store.msgs;
    for (let i = i0; i < i1; i++) {
      if (msgs.sent(i) > now) break;
      // the filter reads the numbers; an object only for what is drawn
      const end = msgs.num(i, MSG.end);
      const endT = end === Infinity ? msgs.num(i, MSG.arrives) : end;
      if (endT <= now || hidden.has(msgs.num(i, MSG.rpc) >> 1)) continue;
      const m = msgs.at(i);
      const pa = this.pos[m.from];
      const pb = this.pos[m.to];
      if (!pa || !pb) continue;
      const span = m.arrives - m.sent;
      const f = span > 0 ? clamp((now - m.sent) / span, 0, 1) : 1;
      const dx = pb.x - pa.x;
      const dy = pb.y - pa.y;
      const len = Math.hypot(dx, dy) || 1;
      const ux = dx / len;
      const uy = dy / len;
      // travel from rim to rim, with a small sideways offset so requests and replies
      // on the same link do not overlap
      const sx = pa.x + ux * pa.r;
      const sy = pa.y + uy * pa.r;
      const ex = pb.x - ux * pb.r;
      const ey = pb.y - uy * pb.r;
      const off = 4;
      const x = sx + (ex - sx) * f - uy * off;
      const y = sy + (ey - sy) * f + ux * off;
      const color = m.failed ? th.danger : th.rpc[m.rpc >> 1];
      const resp = isResponse(RPC_KINDS[m.rpc]);
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.globalAlpha = 0.5;
      ctx.beginPath();
      ctx.moveTo(x - ux * 12, y - uy * 12);
      ctx.lineTo(x, y);
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fillStyle = resp ? th.bg : color;
      ctx.beginPath();
      ctx.arc(x, y, resp ? 3.6 : 4.2, 0, Math.PI * 2);
      ctx.fill();
      if (resp) {
        ctx.lineWidth = 2;
        ctx.stroke();
      }
    }
    const wall = performance.now();
    this.flashes = this.flashes.filter((f) => f.until > wall);
    for (const f of this.flashes) {
      ctx.globalAlpha = clamp((f.until - wall) / 700, 0, 1);
      cross(ctx, f.x, f.y, 6, th.danger, th.bg);
      ctx.globalAlpha = 1;
    }

    if (this.obsLabelY > 0) {
      ctx.fillStyle = th.muted;
      ctx.font = `10px ${th.font}`;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText('observers (brokers)', 8, this.obsLabelY);
      ctx.fillText('voters (controllers)', 8, 10);
    }
    // nodes
    for (const n of nodes) {
      const p = this.pos[n.id];
      if (!p) continue;
      this.drawNode(ctx, th, n, p, now);
    }
  }

  private drawNode(ctx: CanvasRenderingContext2D, th: Theme, n: NodeInfo, p: Pos, now: number): void {
    const si = Math.max(0, STATES.indexOf(n.state));
    const color = th.state[si];
    const leader = n.state === 'leader';
    const crashed = n.state === 'crashed';
    // timer arc: how much of the state's timer is left
    if (n.timer && !crashed) {
      const left = clamp((n.timer.deadline - now) / Math.max(1, n.timer.total), 0, 1);
      ctx.strokeStyle = th.grid;
      ctx.lineWidth = 3.5;
      ctx.beginPath();
      ctx.arc(p.x, p.y, p.r + 5, 0, Math.PI * 2);
      ctx.stroke();
      ctx.strokeStyle = leader ? th.muted : left < 0.25 ? th.danger : th.fg;
      ctx.beginPath();
      ctx.arc(p.x, p.y, p.r + 5, -Math.PI / 2, -Math.PI / 2 + left * Math.PI * 2);
      ctx.stroke();
    }
    ctx.fillStyle = crashed ? th.panel : color;
    ctx.beginPath();
    ctx.arc(p.x, p.y, p.r, 0, Math.PI * 2);
    ctx.fill();
    ctx.lineWidth = leader ? 3 : 1.5;
    ctx.strokeStyle = crashed ? th.muted : leader ? th.fg : color;
    if (crashed) ctx.setLineDash([3, 3]);
    ctx.stroke();
    ctx.setLineDash([]);
    if (n.busyUntil && n.busyUntil > now && !crashed) {
      // blocked in a flush: a small disk badge
      ctx.fillStyle = th.danger;
      ctx.beginPath();
      ctx.arc(p.x + p.r * 0.78, p.y - p.r * 0.78, 5, 0, Math.PI * 2);
      ctx.fill();
    }
    ctx.fillStyle = crashed ? th.muted : inkFor(color);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const big = p.r >= 20;
    ctx.font = `700 ${big ? 14 : 11}px ${th.font}`;
    ctx.fillText(`n${n.id}`, p.x, p.y - (big ? 6 : 4));
    ctx.font = `${big ? 11 : 9}px ${th.font}`;
    ctx.fillText(crashed ? 'down' : `e${n.epoch}`, p.x, p.y + (big ? 8 : 6));
    if (leader) {
      ctx.font = `14px ${th.font}`;
      ctx.fillStyle = th.state[3];
      ctx.fillText('★', p.x, p.y - p.r - 14);
    }
    if (crashed) {
      ctx.strokeStyle = th.danger;
      ctx.lineWidth = 2.5;
      const k = p.r * 0.55;
      ctx.beginPath();
      ctx.moveTo(p.x - k, p.y - k);
      ctx.lineTo(p.x + k, p.y + k);
      ctx.moveTo(p.x + k, p.y - k);
      ctx.lineTo(p.x - k, p.y + k);
      ctx.stroke();
    }
    // caption under the node
    ctx.fillStyle = th.fg;
    ctx.font = `600 10px ${th.font}`;
    ctx.textBaseline = 'top';
    const y0 = p.y + p.r + 8;
    ctx.fillText(n.state, p.x, y0);
    ctx.fillStyle = th.muted;
    ctx.font = `10px ${th.mono}`;
    ctx.fillText(`LEO ${n.leo} HW ${n.hw ?? '–'}`, p.x, y0 + 12);
  }
}

/** Dark or white text, whichever reads better on a fill colour (#rrggbb). */
const inkCache = new Map<string, string>();
export function inkFor(fill: string): string {
  let ink = inkCache.get(fill);
  if (ink) return ink;
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(fill.trim());
  if (!m) return '#0f172a';
  const lin = (hex: string) => {
    const c = parseInt(hex, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
  ink = l > 0.4 ? '#0f172a' : '#ffffff';
  inkCache.set(fill, ink);
  return ink;
}

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
