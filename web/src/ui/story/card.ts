// The completion card at a story's end: what the story showed (each step's lesson), the
// invariants that fired, its measured numbers, and the stories to try next. Shown once a
// story is over: it comes with the later chunk (later.ts); the caption bar (caption.ts)
// asks for it.

import type { Cluster } from '../../api.js';
import { fmtT, h } from '../common/dom.js';
import { measurementItem } from '../common/measurement.js';
import { invariants } from '../common/types.js';
import { courseStory, nextInCourse } from './course.js';
import { renderCaption } from './markup.js';
import type { LoadedScenario } from './scenarios.js';
import { captioned } from './story.js';

/** The stories to try after `s`: its own unsafe variants first, then the next story of the course. */
export interface NextStory {
  id: string;
  variant: string | null;
  title: string;
}

/**
 * The stories to try after `s`: its own variants first, then the course's next story
 * (`completed`: the reader's progress, as the page's tour keeps it: the card and the
 * tour name the same story).
 */
export function nextStories(s: LoadedScenario, variants: { name: string; title: string }[], completed: (id: string) => boolean = () => false): NextStory[] {
  const out: NextStory[] = [];
  if (s.variant) out.push({ id: s.id, variant: null, title: `The safe version: ${s.title.replace(/ without.*$/, '')}` });
  for (const v of variants) if (v.name !== s.variant) out.push({ id: s.id, variant: v.name, title: `Its unsafe variant: ${v.title}` });
  const nextId = courseStory(s.id) ? nextInCourse(s.id, completed) : null;
  const next = nextId ? courseStory(nextId)?.story : undefined;
  if (next) out.push({ id: next.id, variant: null, title: `Next story: ${next.name}. ${next.line}` });
  return out;
}

/** A caption's sentences (a sentence ends at `.`, `!` or `?` before a space or the end). */
function sentences(text: string): string[] {
  return (
    text
      .match(/[\s\S]*?[.!?][*)"'`]*(?=\s|$)|[\s\S]+$/g)
      ?.map((x) => x.trim())
      .filter(Boolean) ?? [text]
  );
}

/**
 * What the card recalls of a step: what happened (its first sentence) and its lesson,
 * which a caption states last ("**X is not committed.**"), with "…" for what lies between.
 */
export function lessonOf(caption: string): string {
  const list = sentences(caption);
  if (list.length <= 2) return list.join(' ');
  return `${list[0]} … ${list[list.length - 1]}`;
}

/** What the completion card's buttons do. */
export interface CardActions {
  open(n: NextStory): void;
  replay(): void;
  /** Put the card away (the caption bar offers it again). */
  hide(): void;
}

/** An invariant the checker found violated in the run, and when first. */
export interface Fired {
  invariant: string;
  t: number;
  explanation: string;
}

/** What each invariant protects, by name. */
const INVARIANT_TEXT = new Map<string, string>(invariants());

/** The invariants `c`'s checker found violated up to now, each once, with the first time. */
export function firedIn(c: Cluster): Fired[] {
  const now = c.now;
  const out: Fired[] = [];
  for (const v of c.violations()) {
    if (v.t > now || out.some((f) => f.invariant === v.invariant)) continue;
    out.push({ invariant: v.invariant, t: v.t, explanation: INVARIANT_TEXT.get(v.invariant) ?? '' });
  }
  return out;
}

/**
 * The completion card: what the story showed (each step's lesson), the invariants that
 * fired (an unsafe variant shows what breaks), its measured numbers, and what to try
 * next. Its heading takes focus (tabindex -1) when the card opens for a reader who is
 * using the element.
 */
export function completionCard(s: LoadedScenario, next: NextStory[], fired: Fired[], on: CardActions): HTMLElement {
  const saw = h('ol', { class: 'kp-done-saw' }, ...captioned(s).map((st) => h('li', null, h('span', { class: 'kp-done-t' }, fmtT(st.t ?? 0)), ' ', renderCaption(lessonOf(st.caption ?? '')))));
  const numbers = s.measurements.map(measurementItem);
  const broken = fired.map((f) => h('li', { 'data-fired': f.invariant }, h('strong', null, f.invariant), ` at ${fmtT(f.t)}`, h('span', { class: 'kp-done-detail' }, f.explanation)));
  const tries = next.map((n) => h('li', null, h('button', { class: 'kp-btn', type: 'button', 'data-try': n.variant ? `${n.id}:${n.variant}` : n.id, onclick: () => on.open(n) }, n.title)));
  const id = `kp-done-h-${s.id}${s.variant ? `-${s.variant}` : ''}`;
  return h(
    'section',
    { class: 'kp-done', 'data-story-complete': s.variant ? `${s.id}:${s.variant}` : s.id, role: 'dialog', 'aria-labelledby': id },
    h(
      'div',
      { class: 'kp-done-head' },
      h('h2', { id, tabindex: '-1' }, `Story complete: ${s.title}`),
      h('button', { class: 'kp-btn', type: 'button', 'data-action': 'replay-story', onclick: on.replay }, 'Replay this story'),
      h(
        'button',
        { class: 'kp-btn', type: 'button', 'data-action': 'hide-card', title: 'Hide the card (Esc); the caption bar shows it again', onclick: on.hide },
        'Hide',
        h('span', { 'aria-hidden': 'true' }, ' ✕'),
      ),
    ),
    h(
      'div',
      { class: 'kp-done-cols' },
      // across the card: each step with its lesson takes room
      h('div', { class: 'kp-done-col kp-done-saw-col' }, h('h3', null, 'What you saw'), saw),
      ...(broken.length || numbers.length
        ? [
            h(
              'div',
              { class: 'kp-done-col' },
              ...(broken.length ? [h('h3', null, 'Invariants that fired'), h('ul', { class: 'kp-done-numbers kp-done-fired' }, ...broken)] : []),
              ...(numbers.length ? [h('h3', null, 'Measured in this run'), h('ul', { class: 'kp-done-numbers' }, ...numbers)] : []),
            ),
          ]
        : []),
      h(
        'div',
        { class: 'kp-done-col' },
        h('h3', null, 'Try next'),
        h('ul', { class: 'kp-done-next' }, ...tries),
        h('p', { class: 'kp-done-hint' }, 'Play goes on past the end as free play: hide the card and act on the cluster to see what changes.'),
      ),
    ),
  );
}

/** The completion card's place in the caption bar (caption.ts): the card, the bar's button that shows it again, and their state. */
export interface CardPlace {
  readonly card: HTMLElement;
  readonly button: HTMLButtonElement;
  /** The story's end is on screen (its card shown, or hidden by the reader). */
  ended: boolean;
  /** Where focus was when the card took it: it goes back there when the card is hidden. */
  opener: HTMLElement | null;
}

/**
 * Shows the completion card. Its heading takes focus when focus is already inside the
 * element (`focus`: or when the reader asked for it), never from the page around it,
 * and without scrolling the page.
 */
export function showCard(p: CardPlace, focus: boolean): void {
  p.card.hidden = false;
  p.button.hidden = true;
  p.button.setAttribute('aria-expanded', 'true');
  const active = (p.card.getRootNode() as Document | ShadowRoot).activeElement as HTMLElement | null;
  if (!focus && !active) return;
  p.opener = active && !p.card.contains(active) ? active : p.button;
  const heading = p.card.querySelector<HTMLElement>('h2');
  heading?.focus({ preventScroll: true });
  // the reader is in the element: a card that opens above the window (a phone scrolled
  // down to the controls) is brought into view from its top
  if (heading && heading.getBoundingClientRect().top < 0) p.card.scrollIntoView({ block: 'start' });
}

/** Puts the card away (the bar offers it again); focus, if it was in the card, goes back where it came from. */
export function hideCard(p: CardPlace): void {
  const root = p.card.getRootNode() as Document | ShadowRoot;
  const hadFocus = p.card.contains(root.activeElement);
  p.card.hidden = true;
  p.button.hidden = !p.ended;
  p.button.setAttribute('aria-expanded', 'false');
  const back = p.opener?.isConnected && p.opener.checkVisibility() ? p.opener : p.button;
  p.opener = null;
  if (hadFocus) back.focus({ preventScroll: true });
}
