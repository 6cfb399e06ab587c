// Per-node logs, aligned by offset like the Raft paper's figures: one row per node,
// records coloured by epoch, the HW and LEO marked, unflushed records underlined, the
// snapshot boundary hatched, and a truncated suffix shown struck out for a few simulated
// seconds (derived from the history at the current moment, so the same however you got
// there).

import { clamp, h } from '../common/dom.js';
import { type Ghost, PRESENT_MS } from '../common/store.js';
import { epochColor, fitCanvas, type Theme } from '../common/theme.js';
import type { LogRecord, NodeInfo } from '../common/types.js';
import { STATES } from '../common/types.js';

export interface LogsHost {
  now(): number;
  theme(): Theme;
  nodes(): NodeInfo[];
  /** records of node `id` in [from, from + limit) */
  records(id: number, from: number, limit: number): LogRecord[];
  /** the HW a node last had (for a crashed node, which has none now) */
  lastHw(id: number): number | null;
  /** records node `id` removed by truncations in (t0, t1], latest truncation per offset */
  truncated(id: number, t0: number, t1: number): Ghost[];
}

let LABEL_W = 42;
const HEAD_H = 18;
/** How long (simulated ms) a truncated record stays on screen where nothing replaced it: what the present's lanes hold. */
export const GHOST_MS = PRESENT_MS;

export class Logs {
  readonly el: HTMLDivElement;
  private canvas: HTMLCanvasElement;
  private tip: HTMLDivElement;
  private tailBtn: HTMLButtonElement;
  private w = 400;
  private rows: LogRecord[][] = [];
  /** what each row's records were fetched for (skip the fetch when unchanged) */
  private sig: string[] = [];
  /** per node: removed records shown now (offsets at or above its LEO) */
  private ghosts: Ghost[][] = [];
  private lo = 0;
  private cells = 20;
  private cw = 20;
  private rowH = 24;
  /** follow the end of the longest log */
  tail = true;
  private hover: { x: number; y: number } | null = null;
  private drag: { x: number; lo: number } | null = null;
  private stale = true;
  /** The names a story gives records ("X"), by `offset:epoch`: drawn on the record wherever it sits. */
  private names = new Map<string, string>();
  /** Called when the logs need drawing again (the element then asks for a frame). */
  onChange: () => void = () => {};

  constructor(private host: LogsHost) {
    this.canvas = h('canvas', { class: 'kp-logs-canvas', 'aria-hidden': 'true' });
    this.tip = h('div', { class: 'kp-tip', role: 'tooltip', hidden: true });
    this.tailBtn = h('button', { class: 'kp-follow', type: 'button', hidden: true, onclick: () => this.setTail(true) }, 'Latest ▸');
    this.el = h('div', { class: 'kp-logs' }, this.canvas, h('div', { class: 'kp-tl-tools' }, this.tailBtn), this.tip);
    this.bind();
  }

  setTail(on: boolean): void {
    this.tail = on;
    this.tailBtn.hidden = on;
    this.markStale();
  }

  /** The records a story names (none in free play). */
  setRecordNames(names: Record<string, { offset: number; epoch: number }>): void {
    this.names = new Map(Object.entries(names).map(([name, r]) => [`${r.offset}:${r.epoch}`, name]));
    this.markStale();
  }

  /** The story's name for a record, if it has one. */
  nameOf(r: { offset: number; epoch: number }): string | undefined {
    return this.names.get(`${r.offset}:${r.epoch}`);
  }

  /** Call when events arrived (the logs may have changed). */
  invalidate(): void {
    this.markStale();
  }

  private markStale(): void {
    this.stale = true;
    this.onChange();
  }

  /** A new run or a seek: fetch every row again. */
  reload(): void {
    this.sig = [];
    this.markStale();
  }

  resize(w: number): void {
    if (w !== this.w) {
      this.w = w;
      this.markStale();
    }
  }

  /** Draws if anything changed. */
  frame(): void {
    const nodes = this.host.nodes();
    if (!this.stale && !this.hover) return;
    const now = this.host.now();
    if (this.stale) this.ghosts = nodes.map((n) => this.host.truncated(n.id, now - GHOST_MS, now).filter((g) => g.offset >= n.leo));
    const N = nodes.length;
    this.rowH = N > 8 ? 20 : 24;
    const hgt = HEAD_H + N * this.rowH + 6;
    // room for "snap < 1200" beside the names once some log starts at a snapshot
    LABEL_W = nodes.some((n) => n.logStart > 0) ? 92 : 42;
    this.cw = clamp(Math.floor((this.w - LABEL_W - 8) / 24), 12, 26);
    this.cells = Math.max(4, Math.floor((this.w - LABEL_W - 8) / this.cw));
    let maxEnd = 0;
    for (const n of nodes) maxEnd = Math.max(maxEnd, n.leo);
    for (const gs of this.ghosts) for (const g of gs) maxEnd = Math.max(maxEnd, g.offset + 1);
    if (this.tail) this.lo = Math.max(0, maxEnd - this.cells + 1);
    this.lo = clamp(this.lo, 0, Math.max(0, maxEnd - 1));
    if (this.stale) {
      for (const n of nodes) {
        const from = Math.max(this.lo, n.logStart);
        const sig = `${from}:${this.cells}:${n.leo}:${n.logStart}:${n.lastEpoch}:${n.state === 'crashed'}`;
        if (sig !== this.sig[n.id]) {
          this.rows[n.id] = this.host.records(n.id, from, this.cells);
          this.sig[n.id] = sig;
        }
      }
      this.rows.length = N;
    }
    this.stale = false;
    this.draw(nodes, hgt, now);
  }

  private draw(nodes: NodeInfo[], hgt: number, now: number): void {
    const th = this.host.theme();
    const ctx = fitCanvas(this.canvas, this.w, hgt);
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, this.w, hgt);
    const cw = this.cw;
    const x = (off: number) => LABEL_W + (off - this.lo) * cw;
    // header: offsets
    ctx.font = `9px ${th.mono}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = th.muted;
    const every = cw >= 20 ? 5 : 10;
    for (let o = this.lo; o < this.lo + this.cells; o++) {
      if (o % every === 0) ctx.fillText(String(o), x(o) + cw / 2, HEAD_H / 2);
    }
    ctx.textAlign = 'left';
    ctx.fillText('offset', 2, HEAD_H / 2);
    const rh = this.rowH;
    for (const n of nodes) {
      const y = HEAD_H + n.id * rh;
      const cy = y + rh / 2;
      const si = Math.max(0, STATES.indexOf(n.state));
      ctx.fillStyle = th.state[si];
      ctx.beginPath();
      ctx.arc(8, cy, 4, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = th.fg;
      ctx.font = `600 11px ${th.font}`;
      ctx.textAlign = 'left';
      ctx.fillText(`n${n.id}`, 16, cy);
      if (n.logStart > 0) {
        ctx.fillStyle = th.muted;
        ctx.font = `9px ${th.mono}`;
        ctx.fillText(`snap<${n.logStart}`, 36, cy);
      }
      // snapshot / log start
      if (n.logStart > this.lo) {
        const xe = Math.min(x(n.logStart), this.w);
        ctx.fillStyle = th.lane;
        ctx.fillRect(LABEL_W, y + 3, xe - LABEL_W, rh - 6);
        ctx.strokeStyle = th.muted;
        ctx.setLineDash([2, 2]);
        ctx.strokeRect(LABEL_W + 0.5, y + 3.5, xe - LABEL_W - 1, rh - 7);
        ctx.setLineDash([]);
        if (xe - LABEL_W > 60) {
          ctx.fillStyle = th.muted;
          ctx.font = `9px ${th.font}`;
          ctx.textAlign = 'center';
          ctx.fillText(`in the snapshot (< ${n.logStart})`, (LABEL_W + xe) / 2, cy);
        }
      }
      const recs = this.rows[n.id] ?? [];
      const hw = n.hw ?? (n.state === 'crashed' ? (this.host.lastHw(n.id) ?? -1) : -1);
      const flushed = n.flushed ?? n.leo;
      let runStart = -1;
      let runEpoch = -1;
      const label = (endX: number) => {
        if (runStart < 0) return;
        const wpx = endX - runStart;
        if (wpx >= 16) {
          ctx.fillStyle = th.dark ? '#0b1220' : '#0b1220';
          ctx.font = `600 9px ${th.font}`;
          ctx.textAlign = 'center';
          ctx.fillText(wpx >= 28 ? `e${runEpoch}` : String(runEpoch), runStart + wpx / 2, cy);
        }
      };
      for (const r of recs) {
        if (r.offset >= this.lo + this.cells) break;
        const cx = x(r.offset);
        const committed = r.offset < hw;
        const lc = !!r.record && r.record.type === 'LeaderChange';
        ctx.fillStyle = epochColor(r.epoch, th.dark, committed ? 1 : 0.42);
        ctx.fillRect(cx + 1, y + 3, cw - 2, rh - 6);
        if (!committed) {
          ctx.strokeStyle = epochColor(r.epoch, th.dark);
          ctx.lineWidth = 1;
          ctx.strokeRect(cx + 1.5, y + 3.5, cw - 3, rh - 7);
        }
        if (r.offset >= flushed) {
          ctx.fillStyle = th.danger;
          ctx.fillRect(cx + 2, y + rh - 5, cw - 4, 2);
        }
        const name = this.nameOf(r);
        if (name) {
          // a record the story's captions name: its name on it, in a ring
          ctx.strokeStyle = th.fg;
          ctx.lineWidth = 2;
          ctx.strokeRect(cx + 1, y + 2, cw - 2, rh - 4);
          ctx.fillStyle = '#0b1220';
          ctx.font = `700 11px ${th.font}`;
          ctx.textAlign = 'center';
          ctx.fillText(name, cx + cw / 2, cy);
          label(cx);
          runStart = -1;
          continue;
        }
        if (lc) {
          // KRaft's LeaderChange control record starts each epoch
          label(cx);
          runStart = -1;
          ctx.fillStyle = '#0b1220';
          ctx.font = `700 9px ${th.font}`;
          ctx.textAlign = 'center';
          ctx.fillText(cw >= 18 ? `★${r.epoch}` : '★', cx + cw / 2, cy);
          continue;
        }
        if (r.epoch !== runEpoch || runStart < 0) {
          label(cx);
          runStart = cx;
          runEpoch = r.epoch;
        }
      }
      if (recs.length) label(x(Math.min(recs[recs.length - 1].offset + 1, this.lo + this.cells)));
      // a lagging node's log ends left of the window: say so rather than show an empty row
      if (n.leo < this.lo && n.state !== 'crashed' && recs.length === 0) {
        ctx.fillStyle = th.muted;
        ctx.font = `9px ${th.font}`;
        ctx.textAlign = 'left';
        ctx.fillText(`◂ its log ends at offset ${n.leo}, left of this view`, LABEL_W + 4, cy);
      }
      // ghosts of a truncated suffix, fading over GHOST_MS of simulated time
      for (const r of this.ghosts[n.id] ?? []) {
        if (r.offset < this.lo || r.offset >= this.lo + this.cells) continue;
        ctx.globalAlpha = clamp(1 - (now - r.t) / GHOST_MS, 0.15, 1);
        const cx = x(r.offset);
        ctx.strokeStyle = th.danger;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([3, 2]);
        ctx.strokeRect(cx + 1.5, y + 2.5, cw - 3, rh - 5);
        ctx.setLineDash([]);
        ctx.beginPath();
        ctx.moveTo(cx + 2, y + rh - 4);
        ctx.lineTo(cx + cw - 2, y + 4);
        ctx.stroke();
        if (cw >= 14 && r.epoch !== null) {
          ctx.fillStyle = th.danger;
          ctx.font = `9px ${th.font}`;
          ctx.textAlign = 'center';
          ctx.fillText(String(r.epoch), cx + cw / 2, cy);
        }
      }
      ctx.globalAlpha = 1;
      // HW and LEO marks
      if (n.hw !== null && n.hw !== undefined && n.hw >= this.lo && n.hw <= this.lo + this.cells) {
        const hx = x(n.hw);
        ctx.fillStyle = th.dark ? '#22d3ee' : '#0e7490';
        ctx.fillRect(hx - 1, y + 1, 2.5, rh - 2);
      }
      if (n.leo >= this.lo && n.leo <= this.lo + this.cells) {
        const lx = x(n.leo);
        ctx.fillStyle = th.fg;
        ctx.beginPath();
        ctx.moveTo(lx, y + rh - 3);
        ctx.lineTo(lx + 4, y + rh + 1);
        ctx.lineTo(lx - 4, y + rh + 1);
        ctx.closePath();
        ctx.fill();
      }
      if (n.state === 'crashed') {
        ctx.fillStyle = th.dark ? 'rgba(15,23,42,0.55)' : 'rgba(255,255,255,0.55)';
        ctx.fillRect(LABEL_W, y + 1, this.w - LABEL_W, rh - 2);
      }
    }
    this.drawTip(nodes);
  }

  private drawTip(nodes: NodeInfo[]): void {
    const p = this.hover;
    if (!p) {
      this.tip.hidden = true;
      return;
    }
    const row = Math.floor((p.y - HEAD_H) / this.rowH);
    const off = this.lo + Math.floor((p.x - LABEL_W) / this.cw);
    const n = nodes[row];
    if (!n || p.x < LABEL_W) {
      this.tip.hidden = true;
      return;
    }
    const r = (this.rows[n.id] ?? []).find((x) => x.offset === off);
    const lines: string[] = [];
    if (r) {
      const name = this.nameOf(r);
      lines.push(`n${n.id} offset ${r.offset}, epoch ${r.epoch}${name ? `: record ${name} of the story` : ''}`);
      lines.push(describeRecord(r));
      lines.push(r.offset < (n.hw ?? -1) ? 'committed (below the HW)' : 'not committed yet (at or above the HW)');
      if (n.flushed !== undefined && r.offset >= n.flushed) lines.push('not flushed to disk yet: a crash loses it');
    } else if (off < n.logStart) {
      lines.push(`n${n.id}: offsets below ${n.logStart} are in the snapshot`);
    } else {
      lines.push(`n${n.id}: no record at offset ${off}`, `LEO ${n.leo}, HW ${n.hw ?? 'none'}`);
    }
    this.tip.replaceChildren(...lines.map((l, i) => h('div', { class: i === 0 ? 'kp-tip-h' : '' }, l)));
    this.tip.hidden = false;
    const tw = this.tip.offsetWidth;
    this.tip.style.left = `${Math.max(0, p.x + 12 + tw > this.w ? p.x - tw - 8 : p.x + 12)}px`;
    this.tip.style.top = `${p.y + 12}px`;
  }

  private bind(): void {
    const c = this.canvas;
    c.addEventListener('pointerdown', (e) => {
      c.setPointerCapture(e.pointerId);
      this.drag = { x: e.offsetX, lo: this.lo };
      this.hover = { x: e.offsetX, y: e.offsetY };
      this.markStale();
    });
    c.addEventListener('pointermove', (e) => {
      if (this.drag && e.buttons) {
        const d = Math.round((this.drag.x - e.offsetX) / this.cw);
        if (d !== 0) {
          this.lo = Math.max(0, this.drag.lo + d);
          this.setTail(false);
          this.hover = null;
          return;
        }
      }
      this.hover = { x: e.offsetX, y: e.offsetY };
      this.markStale();
    });
    c.addEventListener('pointerup', () => (this.drag = null));
    c.addEventListener('pointerleave', (e) => {
      if (e.pointerType === 'mouse') {
        this.hover = null;
        this.markStale();
      }
    });
  }

  /** A text form of the logs for the accessible summary. */
  describe(nodes: NodeInfo[]): string[] {
    return nodes.map((n) => {
      const recs = this.rows[n.id] ?? [];
      const epochs = recs.map((r) => r.epoch).join(' ');
      const gs = this.ghosts[n.id] ?? [];
      const cut = gs.length ? `; just truncated: offsets ${gs[0].offset}–${gs[gs.length - 1].offset}` : '';
      const lag = n.leo < this.lo ? ` (its log ends at ${n.leo}, before this view)` : '';
      const named = recs.filter((r) => this.nameOf(r)).map((r) => `${this.nameOf(r)} at offset ${r.offset}`);
      return `n${n.id} log: start ${n.logStart}, LEO ${n.leo}, HW ${n.hw ?? 'none'}; epochs of offsets ${this.lo}..: ${epochs || '(empty)'}${lag}${cut}${named.length ? `; named records: ${named.join(', ')}` : ''}`;
    });
  }
}

export function describeRecord(r: LogRecord): string {
  const b = r.record;
  switch (b.type) {
    case 'LeaderChange':
      return `LeaderChange: n${b.leader} leads (control record)`;
    case 'KRaftVersion':
      return `KRaftVersion: kraft.version ${b.kRaftVersion} (control record)`;
    case 'Voters':
      return `Voters: ${b.voters.map((v) => `n${v.voterId}`).join(', ')} (control record)`;
    case 'RegisterBroker':
      return `RegisterBroker ${b.brokerId}`;
    case 'UnregisterBroker':
      return `UnregisterBroker ${b.brokerId}`;
    case 'CreateTopic':
      return `CreateTopic ${b.name} (${b.partitions} partitions)`;
    case 'DeleteTopic':
      return `DeleteTopic ${b.name}`;
    case 'PartitionChange':
      return `PartitionChange ${b.topic}-${b.partition} leader ${b.leader}`;
  }
}
