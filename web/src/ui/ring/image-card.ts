// The metadata image card: at a story's stop that talks about the images, the named
// nodes' images at the top of the cluster view, which makes room for it (its nodes move
// down and shrink, none is covered), so they are in view without scrolling (the full
// block sits below the logs, in the full layout only). Nodes whose images are
// the same share one entry, so "n3's image equals n2's" reads as one. Read from the core
// at the current moment; gone when the stop is left.

import type { MetadataImageInfo } from '../../types.js';
import { h, setText } from '../common/dom.js';
import { term } from '../common/glossary.js';
import { list } from '../panels/images.js';

export interface ImageCardHost {
  /** Node `id`'s image now, at most `limit` of each list (null: crashed, or no cluster). */
  image(id: number, limit: number): MetadataImageInfo | null;
  /** The cluster view's size. */
  ring(): { w: number; h: number };
  /** Keeps the top `px` of the cluster view clear of nodes (0: none). */
  reserve(px: number): void;
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
  /** The band at the top of the cluster view it takes (px). */
  #reserved = 0;

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
    this.#reserve(0);
    // focus would fall to <body>: back to the stage it sat over
    const root = this.el.getRootNode() as ShadowRoot | Document;
    const had = this.el.contains(root.activeElement);
    this.el.hidden = true;
    if (had) (this.el.closest('.kp-ring-card') as HTMLElement | null)?.querySelector<HTMLElement>('.kp-node-btn')?.focus();
  }

  /** Re-reads the images when shown and something changed, and keeps the room it takes on the cluster view. */
  frame(): void {
    const show = this.#focus !== '' && !this.#hidden;
    if (this.el.hidden === show) this.el.hidden = !show;
    if (!show) {
      this.#reserve(0);
      return;
    }
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

  /** At the top of the cluster view, across it: the view keeps that band clear of its nodes. */
  #place(ring: { w: number; h: number }): void {
    const width = Math.max(0, Math.min(ring.w - 2 * MARGIN, 420));
    this.el.style.width = `${width}px`;
    this.el.style.maxHeight = `${Math.max(0, ring.h / 2 - 2 * MARGIN)}px`;
    this.el.style.left = `${(ring.w - width) / 2}px`;
    this.el.style.top = `${MARGIN}px`;
    this.#reserve(this.el.offsetHeight + 2 * MARGIN);
  }

  #reserve(px: number): void {
    if (px === this.#reserved) return;
    this.#reserved = px;
    this.#host.reserve(px);
  }
}
