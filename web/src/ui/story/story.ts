// A story's script as the reader meets it: where it stops (every captioned step, and
// its end), what each stop shows (the timeline window and the nodes the caption names),
// the completion card at its end, and the notice when the reader acts and so leaves the
// script. It reads the scenario's steps, focus and report as data, however they were made.

import type { Cluster } from '../../api.js';
import type { FocusMessage } from '../../generated/wire.js';
import { fmtT, h } from '../common/dom.js';
import { measurementItem } from '../common/measurement.js';
import { INVARIANTS } from '../common/types.js';
import { courseStory, nextInCourse } from './course.js';
import { renderCaption } from './markup.js';
import type { LoadedScenario, ScenarioStep } from './scenarios.js';

/** How long a story runs past its last step, so its outcome is on screen (ms). */
export const STORY_TAIL_MS = 1500;
/** The timeline window around a stop that names no width (ms). */
const DEFAULT_WINDOW_MS = 4000;
/** How much of the window lies before the moment: what led up to it. */
const LEAD_IN = 0.7;

/** The story stops here: a pause step, or any step with a caption (each caption's moment is looked at). */
export function isStop(st: ScenarioStep): boolean {
  return st.t !== null && (st.pause || st.caption !== null);
}

/** When the script is over: a moment after its last step (never past the recorded run). */
export function storyEnd(s: LoadedScenario): number {
  let last = 0;
  for (const st of s.steps) if (st.t !== null) last = Math.max(last, st.t);
  return Math.min(s.endMs, last + STORY_TAIL_MS);
}

/** The captioned steps of the script, in order. */
export function captioned(s: LoadedScenario): ScenarioStep[] {
  return s.steps.filter((st) => st.caption && st.t !== null);
}

/** What a stop shows: the timeline window [t0, t1] holding its moment, and the nodes and messages its caption names. */
export function stopView(st: ScenarioStep): { t0: number; t1: number; nodes: number[]; messages: FocusMessage[] } {
  const t = st.t ?? 0;
  const w = st.focus?.windowMs ?? DEFAULT_WINDOW_MS;
  const t0 = Math.max(0, t - w * LEAD_IN);
  return { t0, t1: t0 + w, nodes: st.focus?.nodes ?? [], messages: st.focus?.messages ?? [] };
}

/** Where the reader left the script: the captioned step they had reached and when they acted. */
export interface LeftScript {
  /** the step to return to (its index), or -1 when they acted before the first caption */
  step: number;
  /** its number among the captions (1-based; 0 before the first) */
  number: number;
  /** captions in the script */
  of: number;
  t: number;
}

export function leftScriptAt(s: LoadedScenario, t: number): LeftScript {
  const list = captioned(s);
  let number = 0;
  let step = -1;
  list.forEach((st, i) => {
    if ((st.t ?? 0) <= t) {
      number = i + 1;
      step = st.index;
    }
  });
  return { step, number, of: list.length, t };
}

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
const INVARIANT_TEXT = new Map<string, string>(INVARIANTS);

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

/** The stop the story waits at when it stands at `t` (its very start, say), if any. */
export function stopAt(s: LoadedScenario | null, t: number): ScenarioStep | undefined {
  return s?.steps.find((st) => isStop(st) && st.t === t);
}

/** The scrubber's ticks: the story's captioned steps still in this run. */
export function stepTicks(s: LoadedScenario | null): { t: number; label: string }[] {
  return (s?.steps ?? []).filter((st) => st.t !== null && st.caption).map((st) => ({ t: st.t!, label: st.caption ?? '' }));
}

/** What a stop changes on the timeline. */
export interface StopTimeline {
  highlightNodes: Set<number>;
  nameMessages(messages: readonly FocusMessage[], t0?: number, t1?: number): void;
  showWindow(t0: number, t1: number): void;
  setFollow(on: boolean): void;
  invalidate(): void;
}

/**
 * The reader's place in a story's script: where they left it by acting, and the stop
 * the timeline is focused on.
 */
export class ScriptPlace {
  /** Where the reader left the story's script by acting (null: still on it, or free play). */
  left: LeftScript | null = null;
  /** The stop whose moment the timeline shows (-1: none). */
  #focusedStep = -1;

  /** A new run: on the script, nothing focused. */
  reset(): void {
    this.left = null;
    this.#focusedStep = -1;
  }

  /** The reader acted at `now`: they leave the script there, and the steps still to come cannot happen in this run. */
  fork(s: LoadedScenario, now: number): LoadedScenario {
    this.left ??= leftScriptAt(s, now);
    return { ...s, steps: s.steps.filter((st) => st.t !== null && st.t <= now) };
  }

  /** At a stop, the timeline shows its moment and highlights the nodes its caption names; playing on follows the present again. */
  focusStop(tl: StopTimeline, s: LoadedScenario | null, playing: boolean, pausedAtStep: number): void {
    const at = playing || this.left ? -1 : pausedAtStep;
    if (at === this.#focusedStep) return;
    const st = at >= 0 ? s?.steps.find((x) => x.index === at) : undefined;
    if (st) {
      const v = stopView(st);
      tl.showWindow(v.t0, v.t1);
      tl.highlightNodes = new Set(v.nodes);
      tl.nameMessages(v.messages, v.t0, v.t1);
    } else {
      tl.highlightNodes.clear();
      tl.nameMessages([]);
      if (playing) tl.setFollow(true);
    }
    this.#focusedStep = st ? at : -1;
    tl.invalidate();
  }
}
