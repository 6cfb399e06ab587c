// The scenario picker of the top bar: "Free play", each scenario of the library and its
// variants. An option's value is `id` or `id|variant`.

import { h } from './dom.js';
import { scenarioList, variantsOf } from './scenarios.js';

export class ScenarioPicker {
  readonly el = h('select', { class: 'kp-scenario', 'aria-label': 'Scenario' });

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
    const opts: HTMLOptionElement[] = [h('option', { value: '' }, 'Free play')];
    list.forEach((s, i) => {
      opts.push(h('option', { value: s.id }, `${i + 1}. ${s.title}`));
      for (const v of variantsOf(s)) opts.push(h('option', { value: value(s.id, v.name) }, `${i + 1}′. ${v.title}`));
    });
    this.el.replaceChildren(...opts);
    this.el.hidden = list.length === 0;
  }

  /** Shows `id` (with `variant`) as picked, or free play for null. */
  show(id: string | null, variant: string | null = null): void {
    this.el.value = id ? value(id, variant) : '';
  }
}

function value(id: string, variant: string | null | undefined): string {
  return variant ? `${id}|${variant}` : id;
}
