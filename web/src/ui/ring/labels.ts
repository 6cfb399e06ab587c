// Each node's label on the cluster view: its LEO and HW (and its state, when its disc is
// too small to say it), and where there is room the tail of its log (a cell per record, coloured by epoch, faded above the HW, a
// story's named record by its name). Text above the picture, not in it: a message in
// flight passes under the numbers, never over them. Their sizes are measured from the
// fonts they are set in, so the plan (plan.ts) keeps them apart before they are drawn.

import { h, setText, toggleClass } from '../common/dom.js';
import { epochColor, type Theme } from '../common/theme.js';
import type { LogRecord, NodeInfo } from '../common/types.js';
import type { Box, Detail } from './plan.js';

/** How many of a log's last records a label shows. */
export const TAIL = 6;
/** The label's type, as ring.css sets it (measured with the same fonts). */
const STATE_PX = 12;
const NUM_PX = 11;
const STATE_LINE = 15;
const NUM_LINE = 14;
const CELL = 17;
const PAD_X = 4;
const PAD_Y = 2;

/** What a label shows of one node. */
interface Shown {
  key: string;
  tail: string;
}

export class NodeLabels {
  readonly el = h('div', { class: 'kp-node-labels', 'aria-hidden': 'true' });
  #items: { el: HTMLDivElement; lines: HTMLSpanElement[]; log: HTMLDivElement; shown: Shown }[] = [];
  #detail: Detail = 'full';
  #measure: CanvasRenderingContext2D | null = null;

  /** A label's size at `detail`, for offsets of up to `digits` digits, in the theme's fonts. */
  size(detail: Detail, digits: number, th: Theme): { w: number; h: number } {
    const nines = '9'.repeat(digits);
    const num = `${NUM_PX}px ${th.mono}`;
    const both = this.#width(num, `LEO ${nines} · HW ${nines}`);
    const one = this.#width(num, `LEO ${nines}`);
    const pad = 2 * PAD_X + 2;
    switch (detail) {
      case 'log':
        return { w: Math.max(both, TAIL * CELL) + pad, h: NUM_LINE + CELL + 2 + 2 * PAD_Y };
      case 'full':
        return { w: both + pad, h: NUM_LINE + 2 * PAD_Y };
      case 'narrow':
      case 'compact':
        return { w: one + pad, h: 2 * NUM_LINE + 2 * PAD_Y };
      case 'named':
        return { w: Math.max(this.#width(`600 ${STATE_PX}px ${th.font}`, '★ prospective'), one) + pad, h: STATE_LINE + 2 * NUM_LINE + 2 * PAD_Y };
    }
  }

  #width(font: string, text: string): number {
    this.#measure ??= document.createElement('canvas').getContext('2d');
    if (!this.#measure) return text.length * 7;
    this.#measure.font = font;
    return Math.ceil(this.#measure.measureText(text).width);
  }

  /** Puts a label per node where the plan says (`boxes` by node id). */
  place(ids: number[], boxes: Box[], detail: Detail): void {
    this.#detail = detail;
    this.#items = ids.map((id) => {
      const lines = [h('span', { class: 'kp-node-line' }), h('span', { class: 'kp-node-line kp-node-num' }), h('span', { class: 'kp-node-line kp-node-num' })];
      const log = h('div', { class: 'kp-node-log', hidden: detail !== 'log' });
      const el = h('div', { class: 'kp-node-label', 'data-node-label': String(id), 'data-detail': detail }, ...lines, log);
      const b = boxes[id];
      if (b) {
        el.style.left = `${b.x}px`;
        el.style.top = `${b.y}px`;
        el.style.width = `${b.w}px`;
        el.style.height = `${b.h}px`;
      }
      return { el, lines, log, shown: { key: '', tail: '' } };
    });
    this.el.replaceChildren(...this.#items.map((i) => i.el));
  }

  /**
   * Shows each node's state and offsets, and (at the `log` detail) its tail: `tail(id)`
   * gives the records to show, read only when the node's log may have changed.
   */
  update(nodes: NodeInfo[], th: Theme, tail: (n: NodeInfo) => LogRecord[] | null, nameOf: (r: LogRecord) => string | undefined): void {
    nodes.forEach((n, i) => {
      const item = this.#items[i];
      if (!item) return;
      const star = n.state === 'leader' ? '★ ' : '';
      const hw = n.hw ?? '–';
      const key = `${n.state}|${n.leo}|${hw}`;
      if (item.shown.key !== key) {
        item.shown.key = key;
        const d = this.#detail;
        const leo = `LEO ${n.leo}`;
        const lines = d === 'named' ? [`${star}${n.state}`, leo, `HW ${hw}`] : d === 'log' || d === 'full' ? [`${leo} · HW ${hw}`] : [leo, `HW ${hw}`];
        item.lines.forEach((el, k) => {
          setText(el, lines[k] ?? '');
          el.hidden = k >= lines.length;
        });
        toggleClass(item.lines[0], 'kp-node-num', d !== 'named');
        toggleClass(item.el, 'kp-node-down', n.state === 'crashed');
        if (item.el.dataset.state !== n.state) item.el.dataset.state = n.state;
      }
      if (this.#detail !== 'log') return;
      const records = tail(n);
      if (records) this.#showTail(item, n, records, th, nameOf);
    });
  }

  /** The log's last records as cells: epoch (or the story's name for the record), faded at or above the HW. */
  #showTail(item: { log: HTMLDivElement; shown: Shown }, n: NodeInfo, records: LogRecord[], th: Theme, nameOf: (r: LogRecord) => string | undefined): void {
    const hw = n.hw ?? -1;
    const sig = `${hw}|${th.dark}|${records.map((r) => `${r.offset}:${r.epoch}`).join(',')}`;
    if (item.shown.tail === sig) return;
    item.shown.tail = sig;
    item.log.replaceChildren(
      ...records.map((r) => {
        const name = nameOf(r);
        const cell = h('span', { class: 'kp-node-cell', 'data-offset': String(r.offset), 'data-epoch': String(r.epoch) }, name ?? String(r.epoch));
        cell.style.background = epochColor(r.epoch, th.dark);
        if (r.offset >= hw) cell.classList.add('kp-node-cell-open');
        if (name) cell.classList.add('kp-node-cell-named');
        return cell;
      }),
    );
  }
}
