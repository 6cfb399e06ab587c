// The on-ramp beside the playground: the course's stories as cards, part by part, each
// with one line and the reader's progress (new, seen, completed), the story on screen
// marked; free play one click away; a way to reset progress and to fold the list away.

import { COURSE, type CourseStory, courseStories, nextInCourse } from 'kraft-playground/element';
import type { Progress, StoryState } from './progress.js';

const FOLDED_KEY = 'kraft-playground:course-folded';
/** Too narrow for the course beside the playground (site.css puts it above, folded). */
const NARROW = '(max-width: 1099px)';

export interface CourseHost {
  openStory(id: string): void;
  freePlay(): void;
  /** The list was folded away or opened again. */
  folded(on: boolean): void;
}

type Attrs = Record<string, string | boolean>;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === true) e.setAttribute(k, '');
    else if (v !== false) e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

const MARK: Record<StoryState, string> = { new: '', seen: '', completed: '✓' };
const SAID: Record<StoryState, string> = { new: 'not started', seen: 'seen', completed: 'completed' };

export class Course {
  readonly #root: HTMLElement;
  readonly #progress: Progress;
  readonly #host: CourseHost;
  readonly #cards = new Map<string, HTMLButtonElement>();
  readonly #parts = new Map<string, { details: HTMLDetailsElement; count: HTMLElement }>();
  readonly #count = el('span', { class: 'course-count', 'data-course-count': '' });
  readonly #bar = el('span', { class: 'course-bar-fill' });
  readonly #freePlay = el('button', { class: 'course-free', type: 'button', 'data-course-action': 'free-play', id: 'free-play' }, 'Free play');
  readonly #unfold = el('button', { class: 'course-unfold', type: 'button', 'data-course-action': 'unfold', 'aria-expanded': 'false' });
  #current: string | null | undefined = undefined;
  #folded = false;

  constructor(root: HTMLElement, progress: Progress, host: CourseHost) {
    this.#root = root;
    this.#progress = progress;
    this.#host = host;
    // folded as the reader left it; at first beside the playground where there is room
    // for it, and folded to one line above it where there is not (a phone)
    let saved: string | null = null;
    try {
      saved = localStorage.getItem(FOLDED_KEY);
    } catch {
      // storage refused
    }
    this.#folded = saved === null ? matchMedia(NARROW).matches : saved === '1';
    this.#build();
    this.refresh();
    this.#applyFold();
  }

  /**
   * The story to read after `after` (null: from the start of the tour, the first not
   * completed), or null when all are completed: what a story's completion card names
   * next too (`nextInCourse`).
   */
  next(after: string | null = null): string | null {
    return nextInCourse(after, (id) => this.#progress.state(id) === 'completed');
  }

  /** Opens the tour if it is folded, and puts focus on Free play (the page's skip link). */
  focusFreePlay(): void {
    if (this.#folded) this.#setFolded(false);
    this.#freePlay.focus();
  }

  /** The run on screen: a story's id, or null in free play. */
  showCurrent(id: string | null): void {
    if (id === this.#current) return;
    this.#current = id;
    for (const [sid, card] of this.#cards) {
      if (sid === id) card.setAttribute('aria-current', 'true');
      else card.removeAttribute('aria-current');
    }
    this.#freePlay.setAttribute('aria-pressed', String(id === null));
    this.#markNext();
    // open: the part of the story on screen, the part of the story after it, and the
    // part of the first story of the path not completed
    for (const shown of [id, this.next(id), this.next()]) {
      const part = COURSE.find((p) => p.stories.some((s) => s.id === shown));
      const d = part && this.#parts.get(part.id)?.details;
      if (d) d.open = true;
    }
  }

  /** Redraws the marks and counts from the progress. */
  refresh(): void {
    const all = courseStories();
    const completed = all.filter((s) => this.#progress.state(s.id) === 'completed').length;
    this.#count.textContent = `${completed} of ${all.length} completed`;
    this.#bar.style.width = `${(100 * completed) / Math.max(1, all.length)}%`;
    for (const part of COURSE) {
      const done = part.stories.filter((s) => this.#progress.state(s.id) === 'completed').length;
      const p = this.#parts.get(part.id);
      if (p) p.count.textContent = `${done}/${part.stories.length}`;
    }
    for (const s of all) {
      const card = this.#cards.get(s.id);
      if (!card) continue;
      const st = this.#progress.state(s.id);
      card.dataset.progress = st;
      card.querySelector('.course-mark')!.textContent = MARK[st];
      card.querySelector('.course-said')!.textContent = `, ${SAID[st]}`;
    }
    this.#unfold.textContent = `Guided tour · ${completed}/${all.length} completed`;
    this.#markNext();
  }

  /** The next story after the one on screen (the one its completion card names) carries a "next" tag. */
  #markNext(): void {
    const next = this.next(this.#current ?? null);
    for (const [id, card] of this.#cards) card.toggleAttribute('data-next', id === next && id !== this.#current);
  }

  #build(): void {
    this.#freePlay.title = 'A fresh cluster with a light client workload, all yours to break';
    this.#freePlay.addEventListener('click', () => this.#host.freePlay());
    const reset = el('button', { class: 'course-link', type: 'button', 'data-course-action': 'reset' }, 'Reset progress');
    reset.addEventListener('click', () => {
      this.#progress.reset();
      this.refresh();
    });
    const fold = el('button', { class: 'course-link', type: 'button', 'data-course-action': 'fold', 'aria-expanded': 'true' }, 'Hide');
    fold.addEventListener('click', () => this.#setFolded(true));
    this.#unfold.addEventListener('click', () => this.#setFolded(false));

    const head = el(
      'div',
      { class: 'course-head' },
      el('div', { class: 'course-title' }, el('h2', null, 'Guided tour'), fold),
      el('p', { class: 'course-intro' }, `You know Raft; here is how KRaft does it, in ${courseStories().length} short stories. Each is a live run: pause it, rewind it, break it.`),
      el('div', { class: 'course-progress' }, el('span', { class: 'course-bar', 'aria-hidden': 'true' }, this.#bar), this.#count),
    );
    const parts = COURSE.map((part, i) => {
      const count = el('span', { class: 'course-part-count' });
      const cards = el('ol', { class: 'course-cards' }, ...part.stories.map((s) => el('li', null, this.#card(s))));
      const details = el(
        'details',
        { class: 'course-part', 'data-part': part.id },
        el('summary', null, el('span', { class: 'course-part-title' }, `${i + 1} · ${part.title}`), count, el('span', { class: 'course-part-about' }, part.about)),
        cards,
      );
      this.#parts.set(part.id, { details, count });
      return details;
    });
    const free = el('div', { class: 'course-free-row' }, this.#freePlay, el('span', { class: 'course-free-note' }, 'break your own cluster'));
    const foot = el('div', { class: 'course-foot' }, reset);
    const body = el('div', { class: 'course-body' }, head, free, ...parts, foot);
    this.#root.replaceChildren(this.#unfold, body);
  }

  #card(s: CourseStory): HTMLButtonElement {
    const card = el(
      'button',
      { class: 'course-card', type: 'button', 'data-story': s.id },
      el('span', { class: 'course-mark', 'aria-hidden': 'true' }),
      el('span', { class: 'course-name' }, s.name, el('span', { class: 'course-said site-sr-only' })),
      el('span', { class: 'course-line' }, s.line),
    );
    card.addEventListener('click', () => this.#host.openStory(s.id));
    this.#cards.set(s.id, card);
    return card;
  }

  #setFolded(on: boolean): void {
    this.#folded = on;
    try {
      localStorage.setItem(FOLDED_KEY, on ? '1' : '0');
    } catch {
      // refused: folded for this page only
    }
    this.#applyFold();
    (on ? this.#unfold : this.#freePlay).focus();
  }

  #applyFold(): void {
    this.#root.toggleAttribute('data-folded', this.#folded);
    this.#unfold.setAttribute('aria-expanded', String(!this.#folded));
    this.#host.folded(this.#folded);
  }
}
