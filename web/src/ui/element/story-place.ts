// What the story on screen shows at the reader's place, each frame: the stop playback
// waits at, the timeline's focus on it, the metadata images a stop talks about, the
// caption, and the `kraft-playground:story` event when the reader passes a step.

import type { Playback } from '../playback/playback.js';
import type { Caption } from '../story/caption.js';
import type { StoryProgress } from '../story/progress.js';
import type { LoadedScenario } from '../story/scenarios.js';
import type { ScriptPlace } from '../story/story.js';
import type { LaterChunk } from './later-chunk.js';
import type { Views } from './views.js';

/** What the story's place reads of the element. */
export interface StoryPlaceHost {
  el: HTMLElement;
  play: Playback;
  script: ScriptPlace;
  progress: StoryProgress;
  later: LaterChunk;
  scenario(): LoadedScenario | null;
  views(): Views;
  caption(): Caption;
  now(): number;
}

/** Shows the story's place (`force`: the caption redrawn even where it has not moved). */
export function showStoryPlace(host: StoryPlaceHost, force: boolean): void {
  const { play, script, later } = host;
  const scenario = host.scenario();
  const views = host.views();
  play.syncStop(host.now());
  script.focusStop(views.timeline, scenario, play.playing, play.pausedAtStep);
  // a stop whose caption talks about metadata images shows them: on the ring (the card,
  // which comes with the later chunk: a frame once it is here) and in the block
  const at = play.playing || script.left ? -1 : play.pausedAtStep;
  const focus = at >= 0 ? scenario?.steps.find((st) => st.index === at)?.focus : undefined;
  const imaged = focus?.image ? focus.nodes : null;
  views.images.showStop(imaged);
  if (later.parts) later.parts.imageCard.showStop(imaged);
  else if (imaged) void later.load().catch(() => {});
  host.caption().update(scenario, host.now(), play.playing, play.pausedAtStep, force, script.left);
  const story = host.progress.update(scenario, host.now());
  if (story) host.el.dispatchEvent(new CustomEvent('kraft-playground:story', { bubbles: true, composed: true, detail: story }));
}
