// What the timeline shows of what is under the pointer or the keyboard's selection: the
// tooltip, a tap (pinning it, and explaining an event) and ArrowUp/ArrowDown through the
// events in view. Comes with the later chunk (timeline.ts's `Pointing`); the timeline
// keeps the state (the hover, the pinned tooltip, the selection) and its hit points.

import { clamp, h } from '../common/dom.js';
import { allHits, type Hit, type HitArrow, type HitMark, type HitStep, hitAt, stepHits } from './hits.js';
import type { StepSource, Timeline } from './timeline.js';

/** The state changes and HW steps of the drawing `s` (worked out once). */
function stepsOf(s: StepSource | null): HitStep[] {
  if (!s) return [];
  s.hits ??= stepHits(s.lanes, s.g, s.t0, s.t1);
  return s.hits;
}

/** A tap at `at` on what was `drawn` then: its tooltip pinned (or unpinned) and, on an event, the popover that explains it. */
export function tap(tl: Timeline, at: { x: number; y: number; clientX: number; clientY: number }, drawn: { marks: HitMark[]; steps: StepSource | null; arrows: HitArrow[]; now: number }): void {
  tl.keyHit = null;
  tl.hover = { x: at.x, y: at.y };
  tl.pinned = false;
  tl.hoverKey = '';
  tl.updateTip();
  tl.pinned = !tl.tip.hidden;
  const hit = hitAt(at.x, at.y, drawn.marks, stepsOf(drawn.steps), drawn.arrows, drawn.now, tl.summaryOf);
  if (hit) explain(tl, hit, at.clientX, at.clientY);
}

/** Opens the popover with the core's sentence for what `hit` stands for. */
export function explain(tl: Timeline, hit: Hit, clientX: number, clientY: number): void {
  const why = tl.host.explain(hit.seq);
  const p = tl.pointing;
  if (why === null || !p) return;
  tl.tip.hidden = true;
  tl.pinned = false;
  p.explainer.show(hit.lines[0], hit.lines[1] ?? '', why, clientX, clientY, tl.el);
}

/** Moves the keyboard selection to the next (+1) or previous (-1) event in view and shows its tooltip. */
export function stepKeyHit(tl: Timeline, dir: number): void {
  const hits = allHits(tl.markHits, stepsOf(tl.steps), tl.arrows, tl.host.now(), tl.summaryOf);
  if (!hits.length) return;
  const i = hits.findIndex((x) => x.key === tl.keyHit?.key);
  const next = hits[i < 0 ? (dir > 0 ? 0 : hits.length - 1) : (i + dir + hits.length) % hits.length];
  tl.keyHit = next;
  tl.hover = { x: next.x, y: next.y };
  tl.hoverKey = '';
  tl.pinned = false;
  tl.updateTip();
  tl.pinned = true;
}

/** The tooltip of what is at `p` (the pointer) or the keyboard's selection, or none there. */
export function showTip(tl: Timeline, p: { x: number; y: number }): void {
  const best = tl.keyHit ?? hitAt(p.x, p.y, tl.markHits, stepsOf(tl.steps), tl.arrows, tl.host.now(), tl.summaryOf);
  const tip = tl.tip;
  if (!best) {
    tip.hidden = true;
    tl.hoverKey = '';
    tl.pinned = false;
    if (tl.hoverSeq !== -1) {
      tl.hoverSeq = -1;
      tl.markDirty();
    }
    return;
  }
  if (best.key !== tl.hoverKey) {
    tl.hoverKey = best.key;
    const seq = best.key.startsWith('a') ? Number(best.key.slice(1)) : -1;
    if (seq !== tl.hoverSeq) {
      tl.hoverSeq = seq;
      tl.markDirty();
    }
    tip.replaceChildren(...best.lines.map((l, i) => h('div', { class: i === 0 ? 'kp-tip-h' : '' }, l)));
  }
  tip.hidden = false;
  // where the hit is, in canvas px (what a tap there would select)
  tip.dataset.at = `${Math.round(best.x)},${Math.round(best.y)}`;
  const tw = tip.offsetWidth;
  const x = p.x + 14 + tw > tl.geo.w ? p.x - tw - 10 : p.x + 14;
  tip.style.left = `${Math.max(0, x)}px`;
  tip.style.top = `${clamp(p.y + 12, 0, Math.max(0, tl.geo.hgt - tip.offsetHeight))}px`;
}
