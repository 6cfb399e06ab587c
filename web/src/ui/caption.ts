// The caption bar of a scenario: the story's title and step, the caption's text, and
// "Continue" while the story waits at a pause step.

import { fmtT, h, setText, toggleClass } from './dom.js';
import { renderCaption } from './markup.js';
import type { LoadedScenario, ScenarioStep } from './scenarios.js';

export class Caption {
  readonly #text = h('div', { class: 'kp-caption-text', 'aria-live': 'polite' });
  readonly #step = h('span', { class: 'kp-caption-step' });
  readonly #button = h('button', { class: 'kp-btn kp-primary', type: 'button', 'data-action': 'continue' }, 'Continue ▶');
  readonly el = h('div', { class: 'kp-caption', hidden: true, 'data-caption': '' }, h('div', { class: 'kp-caption-body' }, this.#step, this.#text), this.#button);
  /** What is on screen: step index * 2 + waiting, or -2 for nothing yet. */
  #shown = -2;
  /** The story whose tallest caption sets the bar's height, and the width it was measured at. */
  #fitted: { s: LoadedScenario; width: number } | null = null;

  constructor(onContinue: () => void) {
    this.#button.addEventListener('click', onContinue);
    // a new width changes every caption's height: measure again
    new ResizeObserver(() => {
      if (this.#fitted && this.#fitted.width !== this.el.clientWidth) this.#fitted = null;
    }).observe(this.el);
  }

  /** Forget what is shown (a new run). */
  reset(): void {
    this.#shown = -2;
    this.#fitted = null;
  }

  /** The bar keeps the height of the story's tallest caption, so the stage below never jumps. */
  #fit(s: LoadedScenario): void {
    if (this.#fitted?.s === s) return;
    const shown = [...this.#text.childNodes];
    const step = this.#step.textContent;
    const button = this.#button.hidden;
    this.el.style.minHeight = '';
    this.#button.hidden = false;
    setText(this.#step, `${s.title} · step 10 of 10 · at 00.000s · paused so you can look`);
    let tallest = 0;
    for (const text of [s.summary || 'Press play to start the story.', ...s.steps.map((st) => st.caption ?? '')]) {
      this.#text.replaceChildren(renderCaption(text));
      tallest = Math.max(tallest, this.el.getBoundingClientRect().height);
    }
    this.#text.replaceChildren(...shown);
    setText(this.#step, step ?? '');
    this.#button.hidden = button;
    this.el.style.minHeight = `${Math.ceil(tallest)}px`;
    this.#fitted = { s, width: this.el.clientWidth };
  }

  /** Shows the caption of the latest step at or before `now` (redrawn only when that changes, or `force`). */
  update(s: LoadedScenario | null, now: number, playing: boolean, pausedAtStep: number, force: boolean): void {
    if (!s) {
      if (!this.el.hidden) this.el.hidden = true;
      this.#shown = -2;
      return;
    }
    if (this.#fitted?.s !== s && !this.el.hidden) this.#fit(s);
    let cur: ScenarioStep | null = null;
    for (const st of s.steps) if (st.caption && st.t !== null && st.t <= now) cur = st;
    const idx = cur ? cur.index : -1;
    const waiting = !playing && cur !== null && cur.pause && pausedAtStep === cur.index;
    const key = idx * 2 + (waiting ? 1 : 0);
    if (!force && key === this.#shown) return;
    this.#shown = key;
    if (this.el.hidden) {
      this.el.hidden = false;
      this.#fit(s);
    }
    toggleClass(this.el, 'kp-wait', waiting);
    this.#button.hidden = !waiting;
    const captioned = s.steps.filter((st) => st.caption);
    if (!cur) {
      setText(this.#step, `${s.title}${s.unsafe.length ? ` · unsafe: ${s.unsafe.join(', ')}` : ''}`);
      this.#text.replaceChildren(renderCaption(s.summary || 'Press play to start the story.'));
      this.#text.dataset.step = '';
    } else {
      setText(this.#step, `${s.title} · step ${captioned.indexOf(cur) + 1} of ${captioned.length} · at ${fmtT(cur.t ?? 0)}${waiting ? ' · paused so you can look' : ''}`);
      this.#text.replaceChildren(renderCaption(cur.caption ?? ''));
      this.#text.dataset.step = String(cur.index);
    }
  }
}
