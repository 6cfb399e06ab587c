// Each leader change's measured parts on the timeline, as the core measured them
// (`Cluster.leaderChanges`): a bar along the foot of the lanes from what took the old
// leader away to the new leader's first commit, one colour a part (detection, election,
// first commit), each part named with its length where it fits (shortened, or its length
// alone, where it does not), the rounds lost to a split vote beside the election.

import type { LeaderChange } from '../../generated/wire.js';
import { fmtT } from '../common/dom.js';
import type { Layer } from './draw.js';
import { GUTTER } from './geometry.js';

/** Height of the bar (CSS px): the lanes leave this much free at their foot. */
const BAR_H = 4;

/** A part's name where its full name does not fit. */
const SHORT: Record<string, string> = { detection: 'detect', election: 'elect', 'first commit': 'commit', 'election timeout': 'timeout' };

/** The colour of a part: detection as a prospective node, the election as a candidate, the commit as a committed record. */
function colour(L: Layer, part: string): string {
  if (part === 'election') return L.th.state[2];
  if (part === 'first commit') return L.th.ok;
  return L.th.state[1];
}

/** Draws the parts of every change in the window; returns what was drawn, for tests and tools (`t:part=ms,...;...`). */
export function drawFailovers(L: Layer, changes: readonly LeaderChange[]): string {
  const { ctx, th, g, t0, t1 } = L;
  const drawn: string[] = [];
  const y = g.hgt - BAR_H;
  ctx.font = `600 10px ${th.font}`;
  ctx.textBaseline = 'bottom';
  ctx.textAlign = 'left';
  for (const c of changes) {
    const parts = c.measurement.parts;
    if (!parts.length) continue;
    // the parts lead up to the new leader (detection, election), then follow it (first commit)
    const before = parts.filter((p) => p.name !== 'first commit').reduce((sum, p) => sum + p.ms, 0);
    let at = c.t - before;
    const end = at + parts.reduce((sum, p) => sum + p.ms, 0);
    if (end < t0 || at > t1) continue;
    drawn.push(`${c.t}:${parts.map((p) => `${p.name}=${p.ms}`).join(',')}`);
    for (const p of parts) {
      const x0 = Math.max(GUTTER, g.xOf(at));
      const x1 = Math.min(g.w, g.xOf(at + p.ms));
      at += p.ms;
      if (x1 <= x0) continue;
      ctx.fillStyle = colour(L, p.name);
      ctx.fillRect(x0, y, Math.max(1.5, x1 - x0), BAR_H);
      // the longest label that fits the part: named in full, shortened, or its length alone
      const lost = p.name === 'election' ? c.lostRounds.map((r) => (r.candidates.length > 1 ? `split vote e${r.epoch}` : `e${r.epoch} lost`)) : [];
      const secs = `${(p.ms / 1000).toFixed(2)}s`;
      const labels = [`${p.name} ${fmtT(p.ms)}${lost.length ? ` (${lost.join(', ')})` : ''}`, `${SHORT[p.name] ?? p.name} ${secs}${lost.length ? ' (split)' : ''}`, secs];
      const label = labels.find((l) => ctx.measureText(l).width + 6 <= x1 - x0);
      if (!label) continue;
      const w = ctx.measureText(label).width;
      ctx.fillStyle = th.bg;
      ctx.globalAlpha = 0.85;
      ctx.fillRect(x0 + 1, y - 13, w + 4, 13);
      ctx.globalAlpha = 1;
      // the text in the foreground colour (a light part's colour would not read), the bar below says which part
      ctx.fillStyle = th.fg;
      ctx.fillText(label, x0 + 3, y - 1);
    }
  }
  return drawn.join(';');
}
