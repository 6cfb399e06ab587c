// A story's script as the reader meets it: where it stops (every captioned step, and
// its end), what each stop shows (the timeline window and the nodes the caption names),
// and the notice when the reader acts and so leaves the script (the completion card at
// its end is card.ts's). It reads the scenario's steps, focus and report as data,
// however they were made.

import type { FocusMessage } from '../../generated/wire.js';
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
