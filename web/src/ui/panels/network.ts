// The network panel (layout="full", below the stage): latency, duplication, the client
// workload and the safety switches. It comes with the later chunk (later.ts) and joins
// the fault dock (faults.ts), which applies the network as both say it.

import { h } from '../common/dom.js';
import { switches } from '../common/types.js';
import { type FaultsPanel, MAX_DUPLICATE_PCT, type NetworkInputs, type PanelHost, tidyLatency } from './faults.js';

export class NetworkPanel implements NetworkInputs {
  readonly el: HTMLElement;
  readonly #host: PanelHost;
  readonly #dup: HTMLInputElement;
  readonly #dupOut: HTMLOutputElement;
  readonly #latMin: HTMLInputElement;
  readonly #latMax: HTMLInputElement;
  readonly #workload: HTMLSelectElement;
  readonly #switches = new Map<string, HTMLInputElement>();

  constructor(host: PanelHost, faults: FaultsPanel) {
    this.#host = host;
    this.#dup = h('input', { type: 'range', min: '0', max: String(MAX_DUPLICATE_PCT), step: '1', value: '0', 'aria-label': 'Duplication percent' });
    this.#dupOut = h('output', null, '0%');
    this.#dup.addEventListener('input', () => {
      this.#dupOut.value = `${this.#dup.value}%`;
    });
    faults.settling(this.#dup);
    this.#latMin = h('input', { type: 'number', min: '1', max: '5000', step: '1', value: '60', 'aria-label': 'Latency minimum ms', class: 'kp-num' });
    this.#latMax = h('input', { type: 'number', min: '1', max: '5000', step: '1', value: '140', 'aria-label': 'Latency maximum ms', class: 'kp-num' });
    this.#latMin.addEventListener('change', () => faults.applyNet());
    this.#latMax.addEventListener('change', () => faults.applyNet());
    this.#workload = h('select', { 'aria-label': 'Client writes per second' });
    for (const v of [0, 1, 2, 5, 10, 20, 50, 100, 200]) this.#workload.appendChild(h('option', { value: String(v) }, v === 0 ? 'none' : `${v} writes/s`));
    this.#workload.addEventListener('change', () => host.setWorkload(Number(this.#workload.value)));
    const sw = h('div', { class: 'kp-switches' });
    for (const [name, expl] of switches()) {
      const box = h('input', { type: 'checkbox', 'data-switch': name });
      box.addEventListener('change', () => host.setUnsafe([...this.#switches].filter(([, b]) => b.checked).map(([n]) => n)));
      this.#switches.set(name, box);
      sw.appendChild(h('label', { class: 'kp-switch' }, box, h('span', null, h('code', null, name), h('span', { class: 'kp-expl' }, expl))));
    }
    this.el = h(
      'section',
      { class: 'kp-panel kp-network', 'aria-label': 'Network and workload' },
      h('h2', null, 'Network and workload'),
      h(
        'div',
        { class: 'kp-field kp-grid2' },
        h('label', null, h('span', { class: 'kp-label' }, 'Duplication'), this.#dup, this.#dupOut),
        h('div', null, h('span', { class: 'kp-label' }, 'Latency (ms)'), h('span', { class: 'kp-row' }, this.#latMin, '–', this.#latMax)),
        h('label', null, h('span', { class: 'kp-label' }, 'Client workload'), this.#workload),
      ),
      h(
        'details',
        { class: 'kp-unsafe', open: true },
        h('summary', null, 'Safety switches (unsafe mode)'),
        h('p', { class: 'kp-note' }, "Turn off one of KRaft's rules and watch the checker catch what breaks. Changing a switch starts the run again with the same seed."),
        sw,
      ),
    );
  }

  values(): { latencyMs: [number, number]; duplicate: number } {
    const [lo, hi] = tidyLatency(Number(this.#latMin.value), Number(this.#latMax.value));
    this.#latMin.value = String(lo);
    this.#latMax.value = String(hi);
    return { latencyMs: [lo, hi], duplicate: Number(this.#dup.value) / 100 };
  }

  sync(): void {
    const p = this.#host.network();
    this.#dup.value = String(Math.round(p.duplicate * 100));
    this.#dupOut.value = `${this.#dup.value}%`;
    this.#latMin.value = String(p.latencyMs[0]);
    this.#latMax.value = String(p.latencyMs[1]);
    const w = this.#host.workload();
    if (![...this.#workload.options].some((o) => o.value === String(w))) this.#workload.appendChild(h('option', { value: String(w) }, `${w} writes/s`));
    this.#workload.value = String(w);
    const on = new Set(this.#host.unsafe());
    for (const [name, box] of this.#switches) box.checked = on.has(name);
  }
}
