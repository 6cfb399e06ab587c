// The explain popover: tapping an event (or Enter on the focused one) shows why it
// happened, in the sentence the core builds from the event's recorded reason
// (`Cluster.explain`). Focus moves into it; Escape or × closes it and returns focus.

import { clamp, h } from './dom.js';

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

  /**
   * Shows `why` for an event near the viewport point (x, y), kept inside the viewport;
   * `opener` gets focus back on close.
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
    const left = x + 12 + w > vw - 8 ? x - w - 12 : x + 12;
    const top = y + 12 + hgt > vh - 8 ? y - hgt - 12 : y + 12;
    this.el.style.left = `${clamp(left, 8, Math.max(8, vw - w - 8))}px`;
    this.el.style.top = `${clamp(top, 8, Math.max(8, vh - hgt - 8))}px`;
    this.el.focus();
  }

  close(): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    const o = this.opener;
    this.opener = null;
    o?.focus();
  }
}
