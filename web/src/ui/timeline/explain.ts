// The explain popover: tapping an event (or Enter on the focused one) shows why it
// happened, in the sentence the core builds from the event's recorded reason
// (`Cluster.explain`). Focus moves into it; Escape or × closes it and returns focus.

import { clamp, h } from '../common/dom.js';
import type { Popup } from '../shell/popups.js';

/**
 * How far the popover's edge is from the point it explains, px: clear of a mark's bar and
 * its label (11 px each side of the point); the caret spans the first 10 px of it.
 */
const CARET_GAP = 20;
/** Where along its edge the caret sits when the viewport allows, px from the left. */
const CARET_INSET = 24;

export class ExplainPopover {
  readonly el: HTMLDivElement;
  private title: HTMLElement;
  private detail: HTMLElement;
  private sentence: HTMLElement;
  private opener: HTMLElement | null = null;

  constructor() {
    this.title = h('div', { class: 'kp-explain-h', id: `kp-explain-h-${Math.random().toString(36).slice(2, 8)}` });
    this.detail = h('div', { class: 'kp-explain-ev' });
    this.sentence = h('p', { class: 'kp-explain-why' });
    const close = h('button', { class: 'kp-x kp-explain-x', type: 'button', 'aria-label': 'Close the explanation' }, '×');
    close.addEventListener('click', () => this.close());
    this.el = h('div', { class: 'kp-explain', role: 'dialog', 'aria-labelledby': this.title.id, tabindex: '-1', hidden: true }, close, this.title, this.detail, this.sentence);
    this.el.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    });
  }

  get open(): boolean {
    return !this.el.hidden;
  }

  /** As a popup a tap elsewhere closes (focus stays where the tap puts it). */
  readonly popup: Popup = {
    open: () => this.open,
    inside: (path) => path.includes(this.el),
    close: () => this.close(false),
  };

  /**
   * Shows `why` for an event at the viewport point (x, y): below it (above when there is
   * no room), its caret pointing at the point from just clear of the event's mark, kept inside the viewport; `opener` gets
   * focus back on close.
   */
  show(title: string, event: string, why: string, x: number, y: number, opener: HTMLElement): void {
    this.opener = opener;
    this.title.textContent = title;
    this.detail.textContent = event;
    this.sentence.textContent = why;
    this.el.hidden = false;
    const w = this.el.offsetWidth;
    const hgt = this.el.offsetHeight;
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const below = y + CARET_GAP + hgt <= vh - 8 || y - CARET_GAP - hgt < 8;
    const top = clamp(below ? y + CARET_GAP : y - hgt - CARET_GAP, 8, Math.max(8, vh - hgt - 8));
    const left = clamp(x - CARET_INSET, 8, Math.max(8, vw - w - 8));
    this.el.style.left = `${left}px`;
    this.el.style.top = `${top}px`;
    // the caret only where it can reach the point (not when the viewport squeezed the popover over it)
    const reaches = (below ? top === y + CARET_GAP : top === y - hgt - CARET_GAP) && x - left >= CARET_INSET / 2 && x - left <= w - CARET_INSET / 2;
    this.el.dataset.caret = reaches ? (below ? 'up' : 'down') : '';
    this.el.style.setProperty('--kp-caret-x', `${x - left}px`);
    this.el.focus();
  }

  /** Hides it; focus goes back to what opened it (`refocus`), unless a tap elsewhere is taking it there. */
  close(refocus = true): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    const o = this.opener;
    this.opener = null;
    if (refocus) o?.focus();
  }
}
