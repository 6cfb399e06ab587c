/**
 * The `<kraft-playground>` custom element and the package API it is built on.
 * `defineElement()` registers the element (the `element` entry does it on import).
 * @module
 */
import { KraftPlayground } from './element.js';

export * from '../api.js';
export { COURSE, type CoursePart, type CourseStory, courseStories, courseStory } from './course.js';
export { KraftPlayground } from './element.js';
export { registerScenarios, type ScenarioEntry, scenarioList } from './scenarios.js';
export type { ChangeDetail } from './share.js';
export type { StoryDetail } from './story-progress.js';

/** Registers `<kraft-playground>` (once). */
export function defineElement(name = 'kraft-playground'): void {
  if (!customElements.get(name)) customElements.define(name, name === 'kraft-playground' ? KraftPlayground : class extends KraftPlayground {});
}
