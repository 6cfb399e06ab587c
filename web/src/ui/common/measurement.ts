// One measured number as a list item: its name and value, the core's line with the
// numbers, and its parts (a failover's detection, election and first commit). A story's
// completion card and free play's leader-changes panel show the same measure this way.

import type { ScenarioMeasurement } from '../../types.js';
import { fmtT, h } from './dom.js';

export function measurementItem(m: ScenarioMeasurement): HTMLLIElement {
  const value = m.valueMs !== null ? fmtT(m.valueMs) : m.count !== null ? String(m.count) : null;
  const li = h('li', { 'data-measure': m.kind }, h('strong', null, value !== null ? `${m.name}: ${value}` : m.name), h('span', { class: 'kp-done-detail' }, m.text));
  if (m.parts.length) {
    li.append(h('ul', { class: 'kp-done-parts' }, ...m.parts.map((p) => h('li', { 'data-part': p.name }, `${p.name}: ${fmtT(p.ms)}`))));
  }
  return li;
}
