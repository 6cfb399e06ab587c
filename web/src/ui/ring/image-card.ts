// The metadata image card: at a story's stop that talks about the images, the named
// nodes' images over the ring, beside those nodes, so they are in view without scrolling
// (the full block sits below the logs, in the full layout only). Nodes whose images are
// the same share one entry, so "n3's image equals n2's" reads as one. Read from the core
// at the current moment; gone when the stop is left.

import type { MetadataImageInfo } from '../../types.js';
import { h, setText } from '../common/dom.js';
import { term } from '../common/glossary.js';
import { list } from '../panels/images.js';

/** A node as the ring draws it: centre and radius, and its label's box, in the ring's pixels. */
interface RingGeometry {
  w: number;
  h: number;
  spots: readonly ({ x: number; y: number; r: number } | undefined)[];
  labels: readonly ({ x: number; y: number; w: number; h: number } | undefined)[];
}

export interface ImageCardHost {
  /** Node `id`'s image now, at most `limit` of each list (null: crashed, or no cluster). */
  image(id: number, limit: number): MetadataImageInfo | null;
  /** The ring's size, where each node is on it and where its label is. */
  ring(): RingGeometry;
  /** Opens the full block (layout=full) and moves focus there. */
  showAll(): void;
}

/** How many brokers, and partition leaders per topic, an entry lists. */
const SHOWN = 4;
/** How many topics an entry names. */
const TOPICS = 2;
/** Room kept around the card inside the ring (px). */
const MARGIN = 4;

/** An entry's three lines: applied offset, brokers, topics. */
function lines(img: MetadataImageInfo | null): [string, string, string] {
  if (!img) return ['–', 'crashed: no image until it restarts', ''];
  const topics = img.topics.slice(0, TOPICS).map((t) => `${t.name} → ${list(t.partitionLeaders.map(String), t.partitions, ' ')}`);
  const rest = img.topicCount > topics.length ? '; …' : '';
  return [
    String(img.appliedOffset),
    `brokers ${list(img.brokers.map(String), img.brokerCount)}`,
    `${img.topicCount} topic${img.topicCount === 1 ? '' : 's'}${topics.length ? `: ${topics.join('; ')}${rest}` : ''}`,
  ];
}

/** How much of box `a` covers box `b` (area, px²). */
function cover(a: { x: number; y: number; width: number; height: number }, b: { x0: number; y0: number; x1: number; y1: number }): number {
  const w = Math.min(a.x + a.width, b.x1) - Math.max(a.x, b.x0);
  const hh = Math.min(a.y + a.height, b.y1) - Math.max(a.y, b.y0);
  return w > 0 && hh > 0 ? w * hh : 0;
}

export class ImageCard {
  readonly #body = h('div', { class: 'kp-image-card-body' });
  readonly el = h(
    'section',
    { class: 'kp-image-card', 'data-image-card': '', 'aria-label': 'Metadata image', hidden: true },
    h(
      'div',
      { class: 'kp-image-card-h' },
      term('image', 'Metadata image'),
      h('span', { class: 'kp-sub' }, 'topic → partition leaders'),
      h('button', { class: 'kp-image-card-all', type: 'button', 'data-action': 'all-images', onclick: () => this.#host.showAll() }, 'All images'),
      h('button', { class: 'kp-image-card-x', type: 'button', 'aria-label': 'Hide the metadata image', title: 'Hide', onclick: () => this.#hide() }, '✕'),
    ),
    this.#body,
  );
  readonly #host: ImageCardHost;
  /** The nodes the stop names (as a key; '' for none), and whether the reader hid the card. */
  #focus = '';
  #hidden = false;
  #stale = true;
  /** The ring's size and the card's content the placement was made for. */
  #placedFor = '';

  constructor(host: ImageCardHost) {
    this.#host = host;
  }

  /** Something may have changed (events arrived, a seek, a new run). */
  invalidate(): void {
    this.#stale = true;
  }

  /** The stop names `nodes` and talks about their images (null: no such stop, and the card goes). */
  showStop(nodes: number[] | null): void {
    const key = nodes ? nodes.join(',') : '';
    if (key === this.#focus) return;
    this.#focus = key;
    this.#hidden = false;
    this.#stale = true;
    this.frame();
  }

  #hide(): void {
    this.#hidden = true;
    // focus would fall to <body>: back to the stage it sat over
    const root = this.el.getRootNode() as ShadowRoot | Document;
    const had = this.el.contains(root.activeElement);
    this.el.hidden = true;
    if (had) (this.el.closest('.kp-ring-card') as HTMLElement | null)?.querySelector<HTMLElement>('.kp-node-btn')?.focus();
  }

  /** Re-reads the images when shown and something changed, and keeps the card beside the named nodes. */
  frame(): void {
    const show = this.#focus !== '' && !this.#hidden;
    if (this.el.hidden === show) this.el.hidden = !show;
    if (!show) return;
    const ring = this.#host.ring();
    if (this.#stale) {
      this.#stale = false;
      this.#render();
    }
    const sig = `${ring.w}x${ring.h}:${this.#body.textContent}`;
    if (sig !== this.#placedFor) {
      this.#placedFor = sig;
      this.#place(ring);
    }
  }

  /** One entry per distinct image among the named nodes, in the order the stop names them. */
  #render(): void {
    const ids = this.#focus.split(',').map(Number);
    const groups: { ids: number[]; text: [string, string, string] }[] = [];
    for (const id of ids) {
      const text = lines(this.#host.image(id, SHOWN));
      const same = groups.find((g) => g.text.join('\n') === text.join('\n'));
      if (same) same.ids.push(id);
      else groups.push({ ids: [id], text });
    }
    const body = this.#body;
    while (body.children.length > groups.length) body.lastElementChild?.remove();
    groups.forEach((g, i) => {
      let entry = body.children[i] as HTMLElement | undefined;
      if (!entry) {
        entry = h(
          'div',
          { class: 'kp-image-card-entry' },
          h('div', null, h('b', { class: 'kp-image-card-who' }), ' applied offset ', h('b', { 'data-applied': '' })),
          h('div', { class: 'kp-image-card-line' }),
          h('div', { class: 'kp-image-card-line' }),
        );
        body.append(entry);
      }
      const key = g.ids.join(',');
      if (entry.dataset.imageNodes !== key) entry.dataset.imageNodes = key;
      const [who, , applied] = entry.children[0].childNodes;
      setText(who, g.ids.map((n) => `n${n}`).join(', '));
      setText(applied, g.text[0]);
      setText(entry.children[1], g.text[1]);
      setText(entry.children[2], g.text[2]);
    });
    const names = ids.map((n) => `n${n}`).join(', ');
    const label = `Metadata image of ${names}`;
    if (this.el.getAttribute('aria-label') !== label) this.el.setAttribute('aria-label', label);
  }

  /**
   * Where on the ring the card covers the least of the named nodes (their circles and
   * labels), then of the others, and lies nearest to the named ones.
   */
  #place(ring: RingGeometry): void {
    const width = Math.max(0, Math.min(ring.w - 2 * MARGIN, 320));
    this.el.style.width = `${width}px`;
    this.el.style.maxHeight = `${Math.max(0, ring.h - 2 * MARGIN)}px`;
    const height = Math.min(this.el.offsetHeight, ring.h - 2 * MARGIN);
    const named = new Set(this.#focus.split(',').map(Number));
    const boxes = ring.spots.flatMap((s, id) => {
      if (!s) return [];
      const l = ring.labels[id] ?? { x: s.x, y: s.y, w: 0, h: 0 };
      const k = s.r + 8;
      const box = { x0: Math.min(s.x - k, l.x), x1: Math.max(s.x + k, l.x + l.w), y0: Math.min(s.y - k, l.y), y1: Math.max(s.y + k, l.y + l.h) };
      return [{ named: named.has(id), x: s.x, y: s.y, ...box }];
    });
    const aim = boxes.filter((b) => b.named);
    let best = { x: MARGIN, y: MARGIN, score: Number.POSITIVE_INFINITY };
    const xs = [...new Set([MARGIN, Math.round((ring.w - width) / 2), ring.w - width - MARGIN])];
    for (const x of xs) {
      for (let y = MARGIN; y <= Math.max(MARGIN, ring.h - height - MARGIN); y += 4) {
        const at = { x, y, width, height };
        let score = 0;
        for (const b of boxes) score += cover(at, b) * (b.named ? 1000 : 10);
        // nearest named node, from the card's middle
        const cx = x + width / 2;
        const cy = y + height / 2;
        if (aim.length) score += Math.min(...aim.map((b) => Math.hypot(b.x - cx, b.y - cy)));
        if (score < best.score) best = { x, y, score };
      }
    }
    this.el.style.left = `${best.x}px`;
    this.el.style.top = `${best.y}px`;
  }
}
