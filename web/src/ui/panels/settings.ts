// The operator's console: every config key (Kafka's `controller.quorum.*` timers and
// limits, the snapshot and retention keys, the simulator's own `sim.*` knob) and the
// simulator's disk and snapshot options, each with its value, unit, default and range
// from the core's catalog (`CONFIG_KEYS` and `LIMITS` in Rust: nothing is declared here).
// Applying them starts free play again with the same seed and sizes. Loaded with later.ts.

import type { Limit } from '../../api.js';
import { catalog, limit } from '../../api.js';
import { h, setText } from '../common/dom.js';
import type { Tuning } from '../element/runs.js';
import { withUnit } from '../shell/settings-note.js';

export interface SettingsHost {
  /** The settings of the run on screen. */
  tuning(): Tuning;
  /** Starts free play again with these settings. */
  applyTuning(t: Tuning): void;
  /** Whether a story is on screen (its settings are its file's: applying leaves it). */
  inStory(): boolean;
}

/** The simulator's options the console sets besides the config keys (`ClusterOptions`). */
const OPTIONS = ['flushMs', 'snapshotInterval'] as const;

/** Why `v` is not a value of `l`, in the core's words (null: it is one). */
export function outOfRange(v: number, l: Limit): string | null {
  const max = l.max ?? Number.MAX_SAFE_INTEGER;
  if (Number.isInteger(v) && ((v >= l.min && v <= max) || (v === 0 && l.zeroTurnsOff))) return null;
  const range = `between ${l.min} and ${max}${l.unit ? ` ${l.unit}` : ''}`;
  return `${l.key} must be ${l.zeroTurnsOff ? `0 (off) or ${range}` : range}, got ${Number.isFinite(v) ? v : 'nothing'}`;
}

export class SettingsPanel {
  readonly el: HTMLElement;
  readonly #inputs = new Map<string, { input: HTMLInputElement; limit: Limit }>();
  readonly #status = h('p', { class: 'kp-note', role: 'status', 'data-settings-status': '' });
  readonly #apply = h('button', { class: 'kp-btn kp-primary', type: 'button', 'data-action': 'apply-settings' }, 'Apply: start again');
  readonly #host: SettingsHost;
  /** The Kafka release the run models (the catalog's, legacy first). */
  readonly #release = h('select', { class: 'kp-select', 'data-setting': 'kafkaRelease', 'aria-label': 'Kafka release' });
  /** Static or dynamic quorum (KIP-853: dynamic from 3.9). */
  readonly #quorum = h('select', { class: 'kp-select', 'data-setting': 'quorum', 'aria-label': 'Quorum' });

  constructor(host: SettingsHost) {
    this.#host = host;
    const cat = catalog();
    const groups: [string, Limit[]][] = [
      ["Kafka's quorum timers and limits", cat.configKeys.filter((l) => l.key.startsWith('controller.quorum.'))],
      ['Snapshots and retention (scaled down for a playground)', cat.configKeys.filter((l) => l.key.startsWith('metadata.'))],
      ['The simulator only', [...cat.configKeys.filter((l) => l.key.startsWith('sim.')), ...OPTIONS.map((k) => limit(k))]],
    ];
    const defaults = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'default-settings' }, "Kafka's defaults");
    defaults.addEventListener('click', () => {
      for (const { input, limit: l } of this.#inputs.values()) input.value = String(l.default ?? 0);
      this.#check();
    });
    this.#apply.addEventListener('click', () => {
      if (this.#check()) this.#host.applyTuning(this.#read());
    });
    for (const r of cat.releases) this.#release.append(h('option', { value: r.name, title: r.explanation }, r.name));
    this.#quorum.append(h('option', { value: 'static' }, 'static (controller.quorum.voters)'), h('option', { value: 'dynamic' }, 'dynamic (KIP-853)'));
    this.#release.addEventListener('change', () => this.#check());
    this.#quorum.addEventListener('change', () => this.#check());
    const release = h(
      'fieldset',
      { class: 'kp-cfg-group' },
      h('legend', null, 'Kafka release and quorum'),
      h('label', { class: 'kp-cfg-row' }, h('code', { class: 'kp-cfg-key' }, 'kafkaRelease'), this.#release),
      h('label', { class: 'kp-cfg-row' }, h('code', { class: 'kp-cfg-key' }, 'quorum'), this.#quorum),
    );
    this.el = h(
      'section',
      { class: 'kp-panel kp-settings-panel', 'aria-label': 'Quorum settings' },
      h('h2', null, 'Settings ', h('span', { class: 'kp-sub' }, 'controller.quorum.* and the simulator · applying starts the run again, same seed')),
      release,
      ...groups.map(([title, list]) => h('fieldset', { class: 'kp-cfg-group' }, h('legend', null, title), ...list.map((l) => this.#row(l)))),
      this.#status,
      h('div', { class: 'kp-row' }, this.#apply, defaults),
    );
  }

  #row(l: Limit): HTMLElement {
    const max = l.max ?? Number.MAX_SAFE_INTEGER;
    const about = `kp-cfg-${l.key.replace(/[^A-Za-z0-9]/g, '-')}`;
    const input = h('input', {
      type: 'number',
      class: 'kp-num',
      min: String(l.zeroTurnsOff ? 0 : l.min),
      max: String(max),
      step: '1',
      'data-config-key': l.key,
      'aria-label': l.key,
      'aria-describedby': about,
    });
    input.addEventListener('input', () => this.#check());
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && this.#check()) this.#host.applyTuning(this.#read());
    });
    this.#inputs.set(l.key, { input, limit: l });
    const kafka = l.key.startsWith('controller.quorum.') ? "Kafka's default" : 'default';
    return h(
      'label',
      { class: 'kp-cfg-row', title: l.description },
      h('code', { class: 'kp-cfg-key' }, l.key),
      input,
      h('span', { class: 'kp-cfg-unit' }, l.unit ?? ''),
      h('span', { class: 'kp-cfg-default', id: about }, `${kafka} ${withUnit(l.default ?? 0, l)}; ${l.description}`),
    );
  }

  /** The values of the run on screen, back in the inputs. */
  sync(): void {
    const t = this.#host.tuning();
    this.#release.value = t.kafkaRelease ?? 'legacy';
    this.#quorum.value = t.quorum ?? 'static';
    for (const [key, { input, limit: l }] of this.#inputs) {
      const v = (OPTIONS as readonly string[]).includes(key) ? t[key as (typeof OPTIONS)[number]] : t.config[key];
      input.value = String(v ?? l.default ?? 0);
    }
    this.#check();
  }

  /** Marks each input that differs from its default or is out of its range; says what is wrong, or what applying does. */
  #check(): boolean {
    const problems: string[] = [];
    for (const { input, limit: l } of this.#inputs.values()) {
      const v = input.value.trim() === '' ? Number.NaN : Number(input.value);
      const problem = outOfRange(v, l);
      input.setCustomValidity(problem ?? '');
      input.toggleAttribute('aria-invalid', !!problem);
      input.closest('label')?.toggleAttribute('data-changed', !problem && v !== l.default);
      if (problem) problems.push(problem);
    }
    // KIP-853: a dynamic quorum needs kraft.version 1, which 3.9 introduced
    const dynamicOption = this.#quorum.options[1];
    const legacy = this.#release.value === 'legacy';
    dynamicOption.disabled = legacy;
    dynamicOption.title = legacy ? 'A dynamic quorum needs a Kafka release, 3.9 or later (KIP-853, kraft.version 1)' : '';
    if (legacy) this.#quorum.value = 'static';
    this.#apply.disabled = problems.length > 0;
    const story = this.#host.inStory() ? ' A story keeps its own settings: applying these leaves it for free play.' : '';
    setText(this.#status, problems.length ? `${problems.join('; ')}.` : `Within every range.${story}`);
    this.#status.classList.toggle('kp-err', problems.length > 0);
    return problems.length === 0;
  }

  /** What the inputs say, as a run's tuning: only what differs from the defaults. */
  #read(): Tuning {
    const t: Tuning = { config: {} };
    if (this.#release.value !== 'legacy') t.kafkaRelease = this.#release.value as NonNullable<Tuning['kafkaRelease']>;
    if (this.#quorum.value === 'dynamic') t.quorum = 'dynamic';
    for (const [key, { input, limit: l }] of this.#inputs) {
      const v = Number(input.value);
      if (v === l.default) continue;
      if (key === 'flushMs' || key === 'snapshotInterval') t[key] = v;
      else t.config[key] = v;
    }
    return t;
  }
}
