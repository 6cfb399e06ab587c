// The caption bar of a scenario: the story's title and step, the caption's text (always
// whole: the bar is as tall as the story's tallest caption), "Continue" while the story
// waits at a stop, the story's summary (a panel over the stage the reader can open again
// at any time; "Read more" when the bar cuts it short before the first step), the
// completion card at its end (over the stage too, so the bar keeps its height; hidden and
// shown again from the bar; card.ts builds it, with the later chunk), and the notice that
// the reader left the script, with the way back.

import type { Cluster } from '../../api.js';
import { fmtT, h, setText, toggleClass } from '../common/dom.js';
import type { Popup } from '../shell/popups.js';
import type { CardPlace, NextStory } from './card.js';
import { renderCaption } from './markup.js';
import { type LoadedScenario, type ScenarioStep, sameStory, type Variant } from './scenarios.js';
import { captioned, isStop, type LeftScript, storyEnd } from './story.js';

/** The completion card's module (card.ts), which comes with the later chunk. */
export type StoryCard = typeof import('./card.js');

export interface CaptionHost {
  /** Play on from the stop the story waits at (or from its start). */
  continue(): void;
  /** The bar's height changed (0: hidden): the stage below makes room for it. */
  resized(px: number): void;
  /** Open the story again at the step the reader left it. */
  returnToScript(at: LeftScript): void;
  /** Open another story (or variant). */
  open(n: NextStory): void;
  /** The story again from its start. */
  replay(): void;
  /** The variants the story's file offers. */
  variants(): Variant[];
  /** Whether the reader completed story `id` (the page's tour knows; else none). */
  completed(id: string): boolean;
  /** The run on screen (the card lists the invariants that fired in it up to now). */
  cluster(): Cluster | null;
  /** Runs `fn` with the completion card's module: at once when the later chunk is here, else once it arrives. */
  withCard(fn: (card: StoryCard) => void): void;
}

export class Caption {
  readonly #text = h('div', { class: 'kp-caption-text', 'aria-live': 'polite' });
  readonly #step = h('span', { class: 'kp-caption-step' });
  readonly #button = h('button', { class: 'kp-btn kp-primary', type: 'button', 'data-action': 'continue' }, 'Continue ▶');
  /** Before the first step, paused (an embed without autoplay): the story starts here, as everywhere. */
  readonly #start = h('button', { class: 'kp-btn kp-primary', type: 'button', 'data-action': 'start', hidden: true }, 'Start ▶');
  readonly #back = h('button', { class: 'kp-btn kp-primary', type: 'button', 'data-action': 'return-to-script', hidden: true }, 'Return to the story');
  readonly #aboutBtn = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'story-summary', 'aria-expanded': 'false' }, 'About this story');
  readonly #about = h('div', { class: 'kp-caption-about', 'data-story-summary': '', hidden: true });
  readonly #card = h('div', { class: 'kp-caption-card', hidden: true });
  readonly #cardBtn = h('button', { class: 'kp-btn kp-primary', type: 'button', 'data-action': 'show-card', 'aria-expanded': 'false', hidden: true }, 'Show the card');
  readonly #body = h('div', { class: 'kp-caption-body' }, this.#step, this.#text);
  readonly el = h(
    'div',
    { class: 'kp-caption', hidden: true, 'data-caption': '' },
    h('div', { class: 'kp-caption-main' }, this.#body),
    h('div', { class: 'kp-caption-actions' }, this.#aboutBtn, this.#back, this.#start, this.#button, this.#cardBtn),
    this.#about,
    this.#card,
  );
  readonly #host: CaptionHost;
  /** What is on screen, as a key (redrawn only when it changes). */
  #shown = '';
  #left: LeftScript | null = null;
  /** Before the first step: the bar's text is the summary itself. */
  #summaryShown = false;
  /** Play was on at the last update: the card goes away when play goes on past the end. */
  #playing = false;
  /** The completion card's place: the card, the button that shows it again, whether the story's end is on screen, where focus was when it took it. */
  readonly #place: CardPlace = { card: this.#card, button: this.#cardBtn, ended: false, opener: null };
  /** The story whose tallest caption sets the bar's height, and the width it was measured at (null: still being measured). */
  #fitted: { s: LoadedScenario; width: number | null } | null = null;
  /** The copies of the bar being measured, one per caption, stacked (beside the bar, until the next layout). */
  #sizer: HTMLElement | null = null;
  /** Reads the stacked copies' height after a layout the page does anyway (a forced layout per caption cost a frame's worth at startup). */
  readonly #sizerObserver = new ResizeObserver((entries) => this.#sized(entries));
  /** The summary is scrolled down (by the reader). */
  #bodyScrolled = false;
  /** The bar's height as last told to the host. */
  #height = -1;

  constructor(host: CaptionHost) {
    this.#host = host;
    this.#button.addEventListener('click', () => host.continue());
    this.#start.addEventListener('click', () => host.continue());
    this.#back.addEventListener('click', () => {
      if (this.#left) host.returnToScript(this.#left);
    });
    this.#aboutBtn.addEventListener('click', () => this.toggleAbout(this.#about.hidden));
    this.#cardBtn.addEventListener('click', () => host.withCard((c) => c.showCard(this.#place, true)));
    this.#card.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      host.withCard((c) => c.hideCard(this.#place));
    });
    this.#body.addEventListener(
      'scroll',
      () => {
        this.#bodyScrolled = this.#body.scrollTop > 0;
        this.#markClipped();
      },
      { passive: true },
    );
    // a new width changes every caption's height: measure again
    new ResizeObserver((entries) => {
      const box = entries[entries.length - 1]?.borderBoxSize[0];
      if (this.#fitted?.width != null && this.#fitted.width !== box?.inlineSize) this.#fitted = null;
      this.#markClipped();
      const height = Math.ceil(box?.blockSize ?? 0);
      if (height !== this.#height) {
        this.#height = height;
        host.resized(height);
      }
    }).observe(this.el);
  }

  /**
   * A summary the bar cuts off says so: a fade at its foot while more lies below (it
   * scrolls), and "Read more" opens all of it. A step's caption is never cut: the bar is
   * as tall as the story's tallest.
   */
  #markClipped(): void {
    const b = this.#body;
    const over = b.scrollHeight > b.clientHeight + 1;
    const clipped = over && b.scrollTop + b.clientHeight < b.scrollHeight - 1;
    b.toggleAttribute('data-clipped', clipped);
    if (this.#summaryShown) this.#aboutBtn.hidden = !over;
  }

  /** Until the run is on screen (the core still loading) Continue cannot act: it waits, disabled. */
  setLoading(on: boolean): void {
    this.#button.disabled = on;
    this.#start.disabled = on;
  }

  /** The summary as a popup a tap elsewhere closes (its button counts as inside). */
  readonly summaryPopup: Popup = {
    open: () => !this.#about.hidden,
    inside: (path) => path.includes(this.#about) || path.includes(this.#aboutBtn),
    close: () => this.toggleAbout(false),
  };

  /** Opens (true) or closes the story's summary. */
  toggleAbout(open: boolean): void {
    this.#about.hidden = !open;
    this.#aboutBtn.setAttribute('aria-expanded', String(open));
  }

  /** Forget what is shown (a new run); the summary panel closes. */
  reset(): void {
    this.#shown = '';
    this.#left = null;
    this.#place.ended = false;
    this.#playing = false;
    this.#place.opener = null;
    this.toggleAbout(false);
    this.#fitted = null;
    this.#dropSizer();
  }

  /**
   * The bar keeps the height of the story's tallest caption, so the stage below never
   * jumps: a copy of the bar per caption (as a step's caption: the step line at its
   * longest, the text, Continue and About beside it; the summary before the first step
   * with Start), stacked in one grid cell beside the bar, as wide as it. The grid is as
   * tall as the tallest; its height is read once the next layout has placed it, before
   * that frame is painted.
   */
  #fit(s: LoadedScenario): void {
    if (this.#fitted && sameStory(this.#fitted.s, s)) return;
    this.#dropSizer();
    const step = `${s.title} · step 10 of 10 · at 00.000s · paused so you can look`;
    const copies = [s.summary || 'Press play to start the story.', ...s.steps.map((st) => st.caption ?? '')].map((text, i) =>
      h(
        'div',
        { class: 'kp-caption' },
        h(
          'div',
          { class: 'kp-caption-main' },
          h(
            'div',
            { class: i === 0 ? 'kp-caption-body kp-caption-summary' : 'kp-caption-body' },
            h('span', { class: 'kp-caption-step' }, step),
            h('div', { class: 'kp-caption-text' }, renderCaption(text)),
          ),
        ),
        h('div', { class: 'kp-caption-actions' }, ...(i === 0 ? [this.#copy(this.#start)] : [this.#copy(this.#aboutBtn), this.#copy(this.#button)])),
      ),
    );
    this.#sizer = h('div', { class: 'kp-caption-sizer', 'aria-hidden': 'true', inert: true }, ...copies);
    this.el.after(this.#sizer);
    this.#sizerObserver.observe(this.#sizer);
    this.#fitted = { s, width: null };
  }

  /** A button of the bar, to be measured: its class and text, none of its attributes. */
  #copy(button: HTMLButtonElement): HTMLButtonElement {
    return h('button', { class: button.className, type: 'button' }, button.textContent ?? '');
  }

  #sized(entries: ResizeObserverEntry[]): void {
    const entry = entries.find((e) => e.target === this.#sizer);
    // its content box: the root's, as wide as the bar's border box
    const box = entry?.contentBoxSize[0];
    // not laid out (the element is not shown): measured when it is
    if (!box || box.blockSize === 0 || !this.#fitted) return;
    // laid out now: what the text fills is known without laying out again
    this.#markClipped();
    this.el.style.minHeight = `${Math.ceil(box.blockSize)}px`;
    this.#fitted.width = box.inlineSize;
    this.#dropSizer();
  }

  #dropSizer(): void {
    if (!this.#sizer) return;
    this.#sizerObserver.unobserve(this.#sizer);
    this.#sizer.remove();
    this.#sizer = null;
  }

  /** Shows the caption of the latest step at or before `now` (redrawn only when that changes, or `force`); `left`: where the reader left the script, if they did. */
  update(s: LoadedScenario | null, now: number, playing: boolean, pausedAtStep: number, force: boolean, left: LeftScript | null): void {
    if (!s) {
      if (!this.el.hidden) this.el.hidden = true;
      this.#shown = '';
      return;
    }
    if (!(this.#fitted && sameStory(this.#fitted.s, s)) && !this.el.hidden) this.#fit(s);
    let cur: ScenarioStep | null = null;
    for (const st of s.steps) if (st.caption && st.t !== null && st.t <= now) cur = st;
    const ended = !left && now >= storyEnd(s);
    // playing on past the end is free play: the card makes way (the bar offers it again)
    if (playing && !this.#playing && ended && this.#place.ended && !this.#card.hidden) this.#host.withCard((c) => c.hideCard(this.#place));
    this.#playing = playing;
    const waiting = !left && !ended && !playing && cur !== null && isStop(cur) && pausedAtStep === cur.index;
    const key = `${s.id}|${s.variant}|${cur ? cur.index : -1}|${waiting}|${ended}|${left ? left.t : ''}|${playing && !cur}`;
    if (!force && key === this.#shown) return;
    this.#shown = key;
    this.#left = left;
    if (this.el.hidden) {
      this.el.hidden = false;
      this.#fit(s);
    }
    this.el.dataset.state = left ? 'left-script' : ended ? 'complete' : waiting ? 'waiting' : 'playing';
    this.el.dataset.end = String(storyEnd(s));
    toggleClass(this.el, 'kp-wait', waiting);
    this.#button.hidden = !waiting;
    this.#back.hidden = !left;
    // before the first step the text is the summary itself
    const summaryShown = !left && !ended && !cur;
    this.#summaryShown = summaryShown;
    this.#start.hidden = !summaryShown || playing || waiting;
    // only the summary is cut short (and then scrolls, by keyboard too)
    toggleClass(this.#body, 'kp-caption-summary', summaryShown);
    if (summaryShown) this.#body.tabIndex = 0;
    else this.#body.removeAttribute('tabindex');
    this.#aboutBtn.hidden = summaryShown;
    setText(this.#aboutBtn, summaryShown ? 'Read more' : 'About this story');
    if (summaryShown) this.toggleAbout(false);
    this.#about.replaceChildren(h('strong', null, 'About this story: '), renderCaption(s.summary || s.title));
    const list = captioned(s);
    const unsafe = s.unsafe.length ? ` · unsafe: ${s.unsafe.join(', ')}` : '';
    const reached = ended && !this.#place.ended;
    this.#place.ended = ended;
    if (!ended) {
      this.#card.hidden = true;
      this.#cardBtn.hidden = true;
      this.#place.opener = null;
    }
    if (left) {
      setText(this.#step, `${s.title} · you left the script${left.number ? ` at step ${left.number} of ${left.of}` : ''}`);
      this.#text.replaceChildren(
        `You acted at ${fmtT(left.t)}, so from here on this is your own run: the story's captions no longer describe it. `,
        left.number ? `Return to the story to see step ${left.number} as written.` : 'Return to the story to start it again.',
      );
      this.#text.dataset.step = '';
      this.#back.textContent = left.number ? `Return to the story at step ${left.number}` : 'Return to the story';
    } else if (ended) {
      setText(this.#step, `${s.title} · complete${unsafe}`);
      this.#text.replaceChildren('The story is over: its card sums up what you saw, the numbers measured in this run and what to try next.');
      this.#host.withCard((card) => {
        // something else is on screen by now (a card that had to wait for its module)
        if (this.#shown !== key) return;
        const next = card.nextStories(s, this.#host.variants(), (id) => this.#host.completed(id));
        const c = this.#host.cluster();
        const fired = c && !c.broken ? card.firedIn(c) : [];
        this.#card.replaceChildren(card.completionCard(s, next, fired, { open: (n) => this.#host.open(n), replay: () => this.#host.replay(), hide: () => card.hideCard(this.#place) }));
        if (reached) card.showCard(this.#place, false);
        else this.#cardBtn.hidden = !this.#card.hidden;
      });
      this.#text.dataset.step = 'end';
    } else if (!cur) {
      setText(this.#step, `${s.title}${unsafe}`);
      this.#text.replaceChildren(renderCaption(s.summary || 'Press play to start the story.'));
      this.#text.dataset.step = '';
    } else {
      setText(this.#step, `${s.title} · step ${list.indexOf(cur) + 1} of ${list.length} · at ${fmtT(cur.t ?? 0)}${waiting ? ' · paused so you can look' : ''}`);
      this.#text.replaceChildren(renderCaption(cur.caption ?? ''));
      this.#text.dataset.step = String(cur.index);
    }
    // back to the top of the new text (setting scrollTop lays the page out: only when the reader scrolled)
    if (this.#bodyScrolled) this.#body.scrollTop = 0;
    // while the bar is being measured (a new story: no layout yet), once it is
    if (!this.#sizer) this.#markClipped();
  }
}
