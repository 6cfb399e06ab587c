// One node of the cluster view, as RaftScope draws a server: a disc in its state's
// colour with its id, epoch and (where it has room) state, the arc of its timer around it (how much is left before
// its fetch or election timeout fires: an operator watches it run down), a thick rim on
// the leader, a red badge while it is blocked in a disk flush, and a cross when crashed.
// Its offsets are its label (labels.ts).

import { clamp } from '../common/dom.js';
import type { Theme } from '../common/theme.js';
import { type NodeInfo, STATES } from '../common/types.js';
import { type Spot, STATE_IN_DISC } from './plan.js';

export function drawNode(ctx: CanvasRenderingContext2D, th: Theme, n: NodeInfo, p: Spot, now: number): void {
  const color = th.state[Math.max(0, STATES.indexOf(n.state))];
  const leader = n.state === 'leader';
  const crashed = n.state === 'crashed';
  if (n.timer && !crashed) {
    const left = clamp((n.timer.deadline - now) / Math.max(1, n.timer.total), 0, 1);
    const arc = p.r + 4.5;
    ctx.lineWidth = clamp(p.r * 0.13, 2.5, 4.5);
    ctx.strokeStyle = th.grid;
    ctx.beginPath();
    ctx.arc(p.x, p.y, arc, 0, Math.PI * 2);
    ctx.stroke();
    ctx.strokeStyle = leader ? th.muted : left < 0.25 ? th.danger : th.fg;
    ctx.beginPath();
    ctx.arc(p.x, p.y, arc, -Math.PI / 2, -Math.PI / 2 + left * Math.PI * 2);
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
    ctx.arc(p.x + p.r * 0.74, p.y - p.r * 0.74, clamp(p.r * 0.2, 4, 7), 0, Math.PI * 2);
    ctx.fill();
  }
  if (crashed) {
    // a faint cross under the text: "crashed" stays readable on it
    ctx.strokeStyle = th.danger;
    ctx.globalAlpha = 0.45;
    ctx.lineWidth = clamp(p.r * 0.12, 2, 4);
    const k = p.r * 0.6;
    ctx.beginPath();
    ctx.moveTo(p.x - k, p.y - k);
    ctx.lineTo(p.x + k, p.y + k);
    ctx.moveTo(p.x + k, p.y - k);
    ctx.lineTo(p.x - k, p.y + k);
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  // the id; the epoch under it, and the state under that, where the disc has room
  ctx.fillStyle = crashed ? th.fg : inkFor(color);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  const says = p.r >= STATE_IN_DISC ? 3 : p.r >= 15 ? 2 : 1;
  ctx.font = `700 ${clamp(p.r * 0.5, 9, 18)}px ${th.font}`;
  ctx.fillText(p.r >= 11 ? `n${n.id}` : String(n.id), p.x, p.y - (says === 3 ? p.r * 0.36 : says === 2 ? p.r * 0.2 : 0));
  if (says >= 2) {
    ctx.font = `${clamp(p.r * 0.36, 9, 13)}px ${th.font}`;
    ctx.fillText(`e${n.epoch}`, p.x, p.y + (says === 3 ? p.r * 0.12 : p.r * 0.38));
  }
  if (says === 3) {
    const state = leader ? '★ leader' : n.state;
    ctx.font = stateFont(ctx, state, p.r, th.font);
    ctx.fillText(state, p.x, p.y + p.r * 0.5);
  }
}

/** The font of a state in a disc: as big as fits the disc's chord there ("prospective" is the widest); measured once per state and size, not per frame. */
const stateFonts = new Map<string, string>();
function stateFont(ctx: CanvasRenderingContext2D, state: string, r: number, family: string): string {
  const key = `${state}|${r}|${family}`;
  let font = stateFonts.get(key);
  if (!font) {
    ctx.font = `600 10px ${family}`;
    const px = Math.min(11, r * 0.3, (10 * 1.6 * r) / ctx.measureText(state).width);
    font = `600 ${px.toFixed(1)}px ${family}`;
    if (stateFonts.size > 200) stateFonts.clear();
    stateFonts.set(key, font);
  }
  return font;
}

/** Dark or white text, whichever reads better on a fill colour (#rrggbb). */
const inkCache = new Map<string, string>();
function inkFor(fill: string): string {
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
