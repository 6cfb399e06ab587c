// A story's outline while the core loads: a precomputed story's caption bar, name and
// step ticks, from its module alone, so the reader can start reading and the stage is
// not pushed down when the run comes (nor is that work left for the frame that shows
// it). The latest request wins; the run that follows keeps the caption bar when it is
// the same story.

import { type LoadedScenario, openableScenario, outlineScenario, sameStory } from './scenarios.js';

/** What showing an outline needs of the element. */
export interface OutlineHost {
  /** Whether a run is on screen already (an outline then comes too late). */
  hasRun(): boolean;
  /** Shows the outline: the picker's choice, the caption bar and the step ticks. */
  show(s: LoadedScenario): void;
}

export class StoryOutline {
  /** The story on screen before its run, and the request (story, variant, seed) shown or on its way. */
  #shown: LoadedScenario | null = null;
  #key: string | null = null;
  readonly #host: OutlineHost;

  constructor(host: OutlineHost) {
    this.#host = host;
  }

  /** Shows the outline of the story `id` (with its variant and seed), unless a run comes first. */
  async show(id: string, variant: string | null, seed: number | null): Promise<void> {
    const entry = openableScenario(id);
    if (!entry) return;
    // the latest request wins; the same one again (boot after the early outline) is under way
    const key = `${id} ${variant} ${seed}`;
    if (this.#key === key) return;
    this.#key = key;
    const s = await outlineScenario(entry, { variant, seed }).catch(() => null);
    if (!s || this.#host.hasRun() || this.#key !== key) return;
    this.#shown = s;
    this.#host.show(s);
  }

  /** A run goes on screen: whether it is the story outlined (its caption bar stays). The outline is done with either way. */
  takenBy(run: LoadedScenario | null): boolean {
    const outlined = sameStory(this.#shown, run);
    this.#shown = null;
    this.#key = null;
    return outlined;
  }
}
