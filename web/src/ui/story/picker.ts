// The compact scenario picker of the top bar (what an embed has; the site's main page
// has the on-ramp's cards instead): free play, then the stories in the course's order,
// one group per part, each followed by its variants; stories the course does not place
// (registered by a page) come last. An option's value is `id` or `id|variant`.

import { h } from '../common/dom.js';
import { COURSE, courseStory } from './course.js';
import { type ScenarioEntry, scenarioList, variantsOf } from './scenarios.js';

export class ScenarioPicker {
  readonly el = h('select', { class: 'kp-scenario', 'aria-label': 'Story', part: 'picker' });
  /** What is shown as picked (kept across a refill). */
  #value = '';

  /** `onPick` gets the id (and variant) chosen, or null for free play. */
  constructor(onPick: (id: string | null, variant: string | null) => void) {
    this.el.addEventListener('change', () => {
      const [id, variant] = this.el.value.split('|');
      onPick(id || null, variant ?? null);
    });
  }

  /** Lists the scenarios registered now (hidden when there are none). */
  fill(): void {
    const list = scenarioList();
    const byId = new Map(list.map((s) => [s.id, s]));
    const options = (s: ScenarioEntry, name: string): HTMLOptionElement[] => [
      h('option', { value: s.id }, name),
      ...variantsOf(s).map((v) => h('option', { value: value(s.id, v.name) }, `  ↳ ${v.title}`)),
    ];
    const groups: HTMLElement[] = [h('option', { value: '' }, 'Free play')];
    for (const part of COURSE) {
      const here = part.stories.filter((st) => byId.has(st.id));
      if (here.length) groups.push(h('optgroup', { label: part.title }, ...here.flatMap((st) => options(byId.get(st.id)!, st.name))));
    }
    const others = list.filter((s) => !courseStory(s.id));
    if (others.length) groups.push(h('optgroup', { label: 'More stories' }, ...others.flatMap((s) => options(s, s.title))));
    this.el.replaceChildren(...groups);
    this.el.hidden = list.length === 0;
    this.#select();
  }

  /**
   * Shows `id` (with `variant`) as picked, or free play for null; a story opened before
   * the library is listed (scenarios.ts's `openableScenario`) has an option of its own until then.
   */
  show(id: string | null, variant: string | null = null): void {
    this.#value = id ? value(id, variant) : '';
    this.#select();
  }

  #select(): void {
    const v = this.#value;
    if (v && ![...this.el.options].some((o) => o.value === v)) {
      const [id, variant] = v.split('|');
      this.el.append(h('option', { value: v }, variant ? `  ↳ ${variant}` : (courseStory(id)?.story.name ?? id)));
    }
    this.el.value = v;
  }
}

function value(id: string, variant: string | null | undefined): string {
  return variant ? `${id}|${variant}` : id;
}
