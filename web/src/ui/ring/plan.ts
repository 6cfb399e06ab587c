// Where the cluster view puts each node and its label: voters on a ring (an ellipse in
// a wide box), observers in rows beneath, every label beside its own node and clear of
// every other label and node, for any cluster the core allows (1-7 voters, 0-8
// observers) in any box it is given. The richest labels that fit with nodes big enough
// to read win: a label with the node's log tail, else state and offsets, else offsets
// alone; at each, the nodes as big as they can be while nothing overlaps.

/** A node as drawn: its centre and radius, in the view's pixels. */
export interface Spot {
  x: number;
  y: number;
  r: number;
}

/** A box in the view's pixels. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * How much a label says. A node at least `STATE_IN_DISC` in radius says its state itself
 * (draw-node.ts), and its label: its offsets on one line and its log's tail (`log`), its
 * offsets on one line (`full`) or one over the other (`narrow`). A smaller node's label
 * says its state over its offsets (`named`), or at the least its offsets (`compact`).
 */
export type Detail = 'log' | 'full' | 'narrow' | 'named' | 'compact';

/** Every detail, richest first. */
export const DETAILS: readonly Detail[] = ['log', 'full', 'narrow', 'named', 'compact'];

/** The radius from which a node's disc has room for its state. */
export const STATE_IN_DISC = 24;

/** The view as planned: spots and labels by node id, and the captions of the two groups that found room. */
export interface RingPlan {
  spots: Spot[];
  labels: Box[];
  captions: { text: string; box: Box }[];
  detail: Detail;
}

/** Room kept between anything and the view's edge, and between labels and what they could touch (px). */
const PAD = 4;
const GAP = 4;
/** How far a label sits from its node's rim: clear of the timer arc drawn around it. */
const LABEL_OFF = 9;
/** The timer arc's reach beyond the node's rim. */
const ARC = 7;
const CAPTION_H = 13;
/** Node radii: the largest, and the smallest each detail accepts before a plainer label is tried. */
const R_MAX = 34;
const R_MIN: Record<Detail, number> = { log: STATE_IN_DISC, full: STATE_IN_DISC, narrow: STATE_IN_DISC, named: 12, compact: 9 };
/** How much wider than tall the voters' ring may be. */
const ELLIPSE = 2.2;

/**
 * Plans the view for nodes of `roles` (by id) in a `w` x `h` box. `label` gives a label's
 * size at each detail; `details` are tried in order, the first that fits wins: voters on
 * a ring, or where no ring fits (a short, wide box), in rows like the observers.
 */
export function planRing(w: number, h: number, roles: readonly string[], details: readonly Detail[], label: (d: Detail) => { w: number; h: number }): RingPlan {
  // a ring, its labels as rich as fit; else (a short, wide box) rows
  const order: [boolean, Detail][] = [...details.map((d): [boolean, Detail] => [true, d]), ...details.map((d): [boolean, Detail] => [false, d])];
  for (const [ring, detail] of order) {
    const size = label(detail);
    // the biggest nodes that fit (smaller nodes leave a ring more room, or less: each is tried)
    for (let r = Math.min(R_MAX, Math.min(w, h) / 9); r >= R_MIN[detail]; r -= 2) {
      const plan = place(w, h, roles, size, r, detail, ring);
      if (fits(plan, w, h)) return plan;
    }
  }
  return place(w, h, roles, label('compact'), R_MIN.compact, 'compact', false);
}

/**
 * The least height between `min` and `max` (in steps of 20 px) at which a view `w` wide
 * fits these nodes: `roomy`, with labels as rich as the tallest would give and nodes
 * nearly as big (a phone's stacked ring grows with the cluster), else at all (what a
 * wide stage never goes below). `max` when none does.
 */
export function heightFor(w: number, roles: readonly string[], min: number, max: number, roomy: boolean, label: (d: Detail) => { w: number; h: number }): number {
  const tallest = planRing(w, max, roles, DETAILS, label);
  const r = Math.min(tallest.spots[0]?.r ?? 0, STATE_IN_DISC + 4);
  for (let h = min; h < max; h += 20) {
    const p = planRing(w, h, roles, DETAILS, label);
    if (fits(p, w, h) && (!roomy || (p.detail === tallest.detail && (p.spots[0]?.r ?? 0) >= r))) return h;
  }
  return max;
}

function place(w: number, h: number, roles: readonly string[], size: { w: number; h: number }, r: number, detail: Detail, ring: boolean): RingPlan {
  const voters = roles.flatMap((role, id) => (role === 'observer' ? [] : [id]));
  const observers = roles.flatMap((role, id) => (role === 'observer' ? [id] : []));
  const plan: RingPlan = { spots: [], labels: [], captions: [], detail };
  // observers: rows at the foot, as many to a row as their labels allow
  let bottom = h - PAD;
  if (observers.length) {
    const top = bottom - rowsHeight(observers.length, w, Math.max(8, r * 0.8), size);
    inRows(plan, observers, w, top, Math.max(8, r * 0.8), size);
    plan.captions.push({ text: 'observers (brokers)', box: { x: PAD, y: top - CAPTION_H, w: 110, h: CAPTION_H } });
    bottom = top - CAPTION_H - GAP;
  }
  if (voters.length) {
    plan.captions.push({ text: 'voters (controllers)', box: { x: PAD, y: PAD, w: 112, h: CAPTION_H } });
    if (ring) onRing(plan, voters, w, bottom, r, size);
    else inRows(plan, voters, w, PAD + CAPTION_H + GAP, r, size);
  }
  plan.captions = plan.captions.filter((c) => clearOf(c.box, -1, plan.spots, plan.labels));
  return plan;
}

/** How many nodes a row holds, each with its label, and how tall a row is. */
function rowShape(w: number, r: number, size: { w: number; h: number }): { cell: number; perRow: number; rowH: number } {
  const cell = Math.max(size.w, 2 * (r + ARC)) + GAP * 2;
  return { cell, perRow: Math.max(1, Math.floor((w - 2 * PAD + GAP) / cell)), rowH: ARC + 2 * r + LABEL_OFF + size.h + GAP };
}

function rowsHeight(count: number, w: number, r: number, size: { w: number; h: number }): number {
  const { perRow, rowH } = rowShape(w, r, size);
  return Math.ceil(count / perRow) * rowH;
}

/** Nodes `ids` in rows from `top` down, centred, each label under its node. */
function inRows(plan: RingPlan, ids: number[], w: number, top: number, r: number, size: { w: number; h: number }): void {
  const { cell, perRow, rowH } = rowShape(w, r, size);
  ids.forEach((id, i) => {
    const row = Math.floor(i / perRow);
    const inRow = Math.min(perRow, ids.length - row * perRow);
    const k = i - row * perRow;
    const step = Math.min(cell * 1.6, (w - 2 * PAD - cell) / Math.max(1, inRow - 1));
    const s = { x: w / 2 + (k - (inRow - 1) / 2) * (inRow > 1 ? step : 0), y: top + row * rowH + ARC + r, r };
    plan.spots[id] = s;
    plan.labels[id] = below(s, size, w);
  });
}

/**
 * Voters on a ring (an ellipse in a wide box; two side by side) above `bottom`, each label
 * under its node or, where that would touch another, outside beside it or above it.
 */
function onRing(plan: RingPlan, ids: number[], w: number, bottom: number, r: number, size: { w: number; h: number }): void {
  const n = ids.length;
  const angle = (i: number) => (n === 2 ? Math.PI : -Math.PI / 2) + (i * 2 * Math.PI) / n;
  // how far the lowest node sits below the centre, and the widest one from it, per unit of radius
  let low = 0;
  let wide = 0;
  for (let i = 0; i < n; i++) {
    low = Math.max(low, Math.sin(angle(i)));
    wide = Math.max(wide, Math.abs(Math.cos(angle(i))));
  }
  const top = PAD + ARC;
  const byHeight = Math.max(0, (bottom - top - r - r - LABEL_OFF - size.h) / (1 + low));
  const byWidth = wide > 0 ? Math.max(0, (w / 2 - PAD - Math.max(r + ARC, size.w / 2)) / wide) : Number.POSITIVE_INFINITY;
  const ry = n === 2 ? 0 : Math.min(byHeight, byWidth);
  const rx = n === 2 ? Math.min(byWidth, 3 * r + size.w) : Math.min(byWidth, ry * ELLIPSE);
  // centred in the room it has
  const used = top + r + ry * (1 + low) + r + LABEL_OFF + size.h;
  const cy = top + r + ry + Math.max(0, (bottom - used) / 2);
  ids.forEach((id, i) => {
    plan.spots[id] = { x: w / 2 + rx * Math.cos(angle(i)), y: cy + ry * Math.sin(angle(i)), r };
  });
  for (const id of ids) {
    const s = plan.spots[id];
    // never towards the middle, where it would read as another node's
    const out = s.x > w / 2 + 1 ? [side(s, size, 1)] : s.x < w / 2 - 1 ? [side(s, size, -1)] : [];
    const tries = [below(s, size, w), ...out, above(s, size, w)];
    plan.labels[id] = tries.find((b) => inside(b, w, bottom) && clearOf(b, id, plan.spots, plan.labels)) ?? tries[0];
  }
}

function below(s: Spot, size: { w: number; h: number }, w: number): Box {
  return { x: Math.max(PAD, Math.min(w - PAD - size.w, s.x - size.w / 2)), y: s.y + s.r + LABEL_OFF, w: size.w, h: size.h };
}

function above(s: Spot, size: { w: number; h: number }, w: number): Box {
  return { x: Math.max(PAD, Math.min(w - PAD - size.w, s.x - size.w / 2)), y: s.y - s.r - LABEL_OFF - size.h, w: size.w, h: size.h };
}

function side(s: Spot, size: { w: number; h: number }, dir: 1 | -1): Box {
  const x = dir > 0 ? s.x + s.r + LABEL_OFF : s.x - s.r - LABEL_OFF - size.w;
  return { x, y: s.y - size.h / 2, w: size.w, h: size.h };
}

function inside(b: Box, w: number, h: number): boolean {
  return b.x >= 0 && b.y >= 0 && b.x + b.w <= w && b.y + b.h <= h;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP;
}

/** A node's circle with its timer arc, as a box. */
function disc(s: Spot): Box {
  const k = s.r + ARC;
  return { x: s.x - k, y: s.y - k, w: 2 * k, h: 2 * k };
}

/** Whether box `b` (node `own`'s label, or -1) stays clear of every other node and every label placed so far. */
function clearOf(b: Box, own: number, spots: Spot[], labels: Box[]): boolean {
  for (let id = 0; id < spots.length; id++) {
    if (id !== own && spots[id] && overlaps(b, disc(spots[id]))) return false;
    if (id !== own && labels[id] && overlaps(b, labels[id])) return false;
  }
  return true;
}

/** Nothing overlaps and everything is inside the box. */
function fits(p: RingPlan, w: number, h: number): boolean {
  const ids = p.spots.flatMap((s, id) => (s ? [id] : []));
  const discs = p.spots.map((s) => (s ? disc(s) : null));
  for (const a of ids) {
    const sa = p.spots[a];
    if (!inside(discs[a]!, w, h) || !inside(p.labels[a], w, h)) return false;
    for (const b of ids) {
      if (b === a) continue;
      const sb = p.spots[b];
      if (Math.hypot(sa.x - sb.x, sa.y - sb.y) < sa.r + sb.r + 2 * ARC) return false;
      if (overlaps(p.labels[a], discs[b]!)) return false;
      if (b > a && overlaps(p.labels[a], p.labels[b])) return false;
    }
  }
  return true;
}
