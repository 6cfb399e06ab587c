// The line that says a run's settings are not the defaults: every config key and
// simulator option the run on screen sets, with its value and the default (Kafka's, for
// the `controller.quorum.*` keys), so a share link opened with a 500 ms fetch timeout
// says so wherever it is shown. Defaults and units come from the core's catalog.

import type { Cluster, Limit } from '../../api.js';
import { catalog, limit } from '../../api.js';
import { h } from '../common/dom.js';

/** A value with its unit, as the catalog gives it. */
export function withUnit(v: number, l: Limit): string {
  return l.unit ? `${v} ${l.unit}` : String(v);
}

/** The settings of `c`'s options that differ from the catalog's defaults: each key, its value and the limit that names its default. */
export function changedSettings(c: Cluster): { key: string; value: number; limit: Limit }[] {
  const o = c.options as { config?: Record<string, number>; flushMs?: number; snapshotInterval?: number };
  const out: { key: string; value: number; limit: Limit }[] = [];
  for (const l of catalog().configKeys) {
    const v = o.config?.[l.key];
    if (v !== undefined && v !== l.default) out.push({ key: l.key, value: v, limit: l });
  }
  for (const key of ['flushMs', 'snapshotInterval'] as const) {
    const v = o[key];
    const l = limit(key);
    if (v !== undefined && v !== l.default) out.push({ key, value: v, limit: l });
  }
  return out;
}

/** The Kafka release `c`'s run models, if it names one other than the legacy default (`kafkaRelease`). */
export function releaseSetting(c: Cluster): string | null {
  const r = (c.options as { kafkaRelease?: string }).kafkaRelease;
  return r === undefined || r === 'legacy' ? null : r;
}

export class SettingsNote {
  readonly el = h('p', { class: 'kp-settings-note', 'data-settings-note': '', hidden: true });

  /** Shows what `c`'s settings change (hidden when nothing: every default). */
  update(c: Cluster): void {
    const changed = changedSettings(c);
    const release = releaseSetting(c);
    this.el.hidden = changed.length === 0 && release === null;
    if (this.el.hidden) return;
    const items = changed.map(({ key, value, limit: l }, i) => {
      const kafka = key.startsWith('controller.quorum.') ? "Kafka's default" : 'default';
      return h('span', { 'data-setting-changed': key }, i ? '; ' : '', h('code', null, key), ` = ${withUnit(value, l)} (${kafka}: ${withUnit(l.default ?? 0, l)})`);
    });
    if (release !== null) {
      // what legacy means goes in the tooltip: the line stays one line beside a config key at
      // 1280 px, so a story's observers stay on screen (test/browser/stage.test.mjs)
      const title = "legacy: the playground's own model, before it modelled Kafka's releases";
      items.push(h('span', { 'data-setting-changed': 'kafkaRelease', title }, items.length ? '; ' : '', h('code', null, 'kafkaRelease'), ` = ${release} (default: legacy)`));
    }
    this.el.replaceChildren(h('strong', null, "Settings differ from Kafka's defaults: "), ...items);
  }
}
