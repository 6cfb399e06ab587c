// How far the reader is through a story's script: the captions passed, and whether the
// last one has been reached. The element reports each change as its
// `kraft-playground:story` event (the site's on-ramp keeps progress with it).

import type { LoadedScenario } from './scenarios.js';

/** The detail of the element's `kraft-playground:story` event. */
export interface StoryDetail {
  scenario: string;
  variant: string | null;
  /** Captions reached so far (0 before the first). */
  step: number;
  /** Captions in the story's script. */
  steps: number;
  /** The last caption of the script has been reached, by playing or travelling there, without leaving the script before it. */
  complete: boolean;
}

export class StoryProgress {
  /** The captions of the script as loaded: acting forks the run and drops the steps still to come, which then cannot be reached. */
  #total = 0;
  #last = '';

  /** A new run on screen. */
  reset(s: LoadedScenario | null): void {
    this.#total = s ? s.steps.filter((st) => st.caption && st.t !== null).length : 0;
    this.#last = '';
  }

  /** The reader's position in `s` at `now`, when it differs from the last one reported; else null. */
  update(s: LoadedScenario | null, now: number): StoryDetail | null {
    if (!s || this.#total === 0) return null;
    let step = 0;
    for (const st of s.steps) if (st.caption && st.t !== null && st.t <= now) step++;
    const detail: StoryDetail = { scenario: s.id, variant: s.variant, step, steps: this.#total, complete: step >= this.#total };
    const key = `${s.id}|${s.variant}|${step}|${this.#total}`;
    if (key === this.#last) return null;
    this.#last = key;
    return detail;
  }
}
