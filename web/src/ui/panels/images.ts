// The metadata image of every node, as the core holds it at the current moment (so the
// same however you got there: live, replayed or after a seek): its applied offset, its
// brokers and its topics with their partition leaders. A story's stop that talks about
// the images opens the block and marks the nodes its caption names.

import type { MetadataImageInfo } from '../../types.js';
import { h, setText, toggleClass } from '../common/dom.js';
import { term } from '../common/glossary.js';
import type { NodeInfo } from '../common/types.js';

export interface ImagesHost {
  nodes(): NodeInfo[];
  /** Node `id`'s image now, at most `limit` of each list (null: crashed, or no cluster). */
  image(id: number, limit: number): MetadataImageInfo | null;
}

/** How many brokers, topics and partition leaders per topic a row shows. */
const SHOWN = 6;

/** `a, b, c +4 more` from the first items of a list of `count`. */
export function list(items: string[], count: number, sep = ', '): string {
  const more = count - items.length;
  return `${items.join(sep)}${more > 0 ? ` +${more} more` : ''}` || 'none';
}

/** A row's cells: applied offset, brokers, topics (each with its partition leaders). */
function cells(img: MetadataImageInfo | null): [string, string, string] {
  if (!img) return ['–', 'crashed: the image is rebuilt from its snapshot and log at restart', ''];
  const topics = img.topics.map((t) => `${t.name} → ${list(t.partitionLeaders.map(String), t.partitions, ' ')}`);
  return [String(img.appliedOffset), list(img.brokers.map(String), img.brokerCount), list(topics, img.topicCount, '; ')];
}

export class Images {
  readonly #rows = h('tbody');
  readonly el = h(
    'details',
    { class: 'kp-images', 'data-images': '' },
    // no glossary button inside the summary (axe: nested-interactive): the 'applied offset' heading carries it
    h('summary', null, 'Metadata image', h('span', { class: 'kp-sub' }, ' per node: what the records it applied add up to')),
    h(
      'table',
      { class: 'kp-images-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'node'),
          h('th', { scope: 'col' }, term('image', 'applied offset')),
          h('th', { scope: 'col' }, 'brokers'),
          h('th', { scope: 'col' }, 'topics → partition leaders'),
        ),
      ),
      this.#rows,
    ),
  );
  readonly #host: ImagesHost;
  #stale = true;
  /** The nodes a story's stop marks (as a key), and whether that stop opened the block. */
  #focus = '';
  #opened = false;

  constructor(host: ImagesHost) {
    this.#host = host;
    this.el.addEventListener('toggle', () => {
      if (this.el.open) this.invalidate();
    });
  }

  /** Something may have changed (events arrived, a seek, a new run). */
  invalidate(): void {
    this.#stale = true;
  }

  /** A stop that talks about the images of `nodes` opens the block and marks them; null: no such stop (a block that stop opened closes again). */
  showStop(nodes: number[] | null): void {
    const key = nodes ? nodes.join(',') : '';
    if (key === this.#focus) return;
    this.#focus = key;
    if (nodes) {
      if (!this.el.open) {
        this.el.open = true;
        this.#opened = true;
      }
    } else if (this.#opened) {
      this.el.open = false;
      this.#opened = false;
    }
    this.#stale = true;
    this.frame();
  }

  /** Opens the block and moves focus to it (the image card's "All images"). */
  showAll(): void {
    this.el.open = true;
    this.#stale = true;
    this.frame();
    this.el.querySelector('summary')?.focus();
  }

  /** Re-reads the images when open and something changed; touches the DOM only where a row differs. */
  frame(): void {
    if (!this.el.open || !this.#stale) return;
    this.#stale = false;
    const nodes = this.#host.nodes();
    const marked = new Set(this.#focus ? this.#focus.split(',').map(Number) : []);
    while (this.#rows.children.length > nodes.length) this.#rows.lastElementChild?.remove();
    nodes.forEach((n, i) => {
      let row = this.#rows.children[i] as HTMLTableRowElement | undefined;
      if (!row) {
        row = h('tr', null, h('th', { scope: 'row' }), h('td'), h('td'), h('td'));
        this.#rows.append(row);
      }
      row.dataset.node = String(n.id);
      toggleClass(row, 'kp-images-marked', marked.has(n.id));
      const texts = [`n${n.id}${n.role === 'observer' ? ' (observer)' : ''}`, ...cells(this.#host.image(n.id, SHOWN))];
      texts.forEach((t, j) => {
        setText(row.children[j], t);
      });
    });
  }
}
