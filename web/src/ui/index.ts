/**
 * The `<kraft-playground>` custom element and the package API it is built on.
 * `defineElement()` registers the element (the `element` entry does it on import).
 * @module
 */
import { KraftPlayground } from './element/element.js';

export * from '../api.js';
export { KraftPlayground } from './element/element.js';
export type { ChangeDetail } from './shell/share.js';
export { COURSE, type CoursePart, type CourseProgress, type CourseStory, courseStories, courseStory, nextInCourse } from './story/course.js';
export type { StoryDetail } from './story/progress.js';
export { registerScenarios, type ScenarioEntry, scenarioList } from './story/scenarios.js';

/** Registers `<kraft-playground>` (once). */
export function defineElement(name = 'kraft-playground'): void {
  if (!customElements.get(name)) customElements.define(name, name === 'kraft-playground' ? KraftPlayground : class extends KraftPlayground {});
}
