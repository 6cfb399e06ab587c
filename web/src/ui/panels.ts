// The DOM panels: `kafka-metadata-quorum describe`, the invariants, and the faults.

import { limit } from '../api.js';
import { clamp, fmtT, h, setText, toggleClass } from './dom.js';
import { term } from './glossary.js';
import { linkGroups } from './ring.js';
import type { Store } from './store.js';
import { INVARIANTS, type NodeInfo, type QuorumInfo, SWITCHES, type UiEventOf } from './types.js';

export interface NetworkProfile {
  latencyMs: [number, number];
  loss: number;
  duplicate: number;
}

export interface PanelHost {
  now(): number;
  nodes(): NodeInfo[];
  quorum(): QuorumInfo | null;
  downLinks(): [number, number][];
  partition(groups: number[][]): void;
  cut(from: number, to: number): void;
  heal(): void;
  network(): NetworkProfile;
  setNetwork(p: NetworkProfile): void;
  workload(): number;
  setWorkload(writesPerSecond: number): void;
  unsafe(): string[];
  setUnsafe(list: string[]): void;
  /** seek to a violation and highlight its evidence */
  showViolation(v: UiEventOf<'violation'>): void;
  /** whether this run checks StableLeadership (a scenario option; off in free play) */
  checksStableLeadership(): boolean;
}

// ---- quorum ----------------------------------------------------------------------------

export class QuorumPanel {
  readonly el: HTMLElement;
  private status: HTMLPreElement;
  private repl: HTMLPreElement;
  private last = '';

  constructor(private host: PanelHost) {
    // focusable: a keyboard can scroll them when their lines are wider than the panel
    this.status = h('pre', { class: 'kp-pre', 'data-quorum': 'status', 'aria-live': 'off', tabindex: '0' });
    this.repl = h('pre', { class: 'kp-pre', 'data-quorum': 'replication', tabindex: '0' });
    this.el = h(
      'section',
      { class: 'kp-panel kp-quorum', 'aria-label': 'kafka-metadata-quorum describe' },
      h('h3', null, 'Quorum ', h('span', { class: 'kp-sub' }, 'as kafka-metadata-quorum prints it · ', term('epoch', 'LeaderEpoch'), ' · ', term('hw', 'HighWatermark'))),
      h('div', { class: 'kp-cmd' }, '$ kafka-metadata-quorum describe --status'),
      this.status,
      h('div', { class: 'kp-cmd' }, '$ kafka-metadata-quorum describe --replication'),
      this.repl,
    );
  }

  frame(): void {
    const q = this.host.quorum();
    const key = q ? JSON.stringify(q) : 'none';
    if (key === this.last) return;
    this.last = key;
    if (!q) {
      setText(this.status, 'Error: no leader. The quorum is electing one (or cannot: no majority).');
      setText(this.repl, '');
      toggleClass(this.status, 'kp-err', true);
      return;
    }
    toggleClass(this.status, 'kp-err', false);
    const s = q.status;
    setText(
      this.status,
      [
        ['ClusterId', s.clusterId],
        ['LeaderId', s.leaderId],
        ['LeaderEpoch', s.leaderEpoch],
        ['HighWatermark', s.highWatermark],
        ['MaxFollowerLag', s.maxFollowerLag],
        ['MaxFollowerLagTimeMs', s.maxFollowerLagTimeMs],
        ['CurrentVoters', `[${s.currentVoters.join(',')}]`],
        ['CurrentObservers', `[${s.currentObservers.join(',')}]`],
      ]
        .map(([k, v]) => `${(`${k}:`).padEnd(24)}${v}`)
        .join('\n'),
    );
    const head = ['NodeId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'LastCaughtUpTimestamp', 'Status'];
    const rows = q.replication.map((r) => [r.nodeId, r.logEndOffset, r.lag, r.lastFetchTimestamp, r.lastCaughtUpTimestamp, r.status].map(String));
    const widths = head.map((hd, i) => Math.max(hd.length, ...rows.map((r) => r[i].length)) + 2);
    setText(
      this.repl,
      [head, ...rows]
        .map((r) =>
          r
            .map((c, i) => c.padEnd(widths[i]))
            .join('')
            .trimEnd(),
        )
        .join('\n'),
    );
  }
}

// ---- invariants --------------------------------------------------------------------------

export class InvariantsPanel {
  readonly el: HTMLElement;
  private items = new Map<string, { li: HTMLLIElement; state: HTMLSpanElement; body: HTMLDivElement }>();
  private summary: HTMLParagraphElement;
  private lastCount = -1;
  private lastNow = -1;
  private lastStable: boolean | null = null;

  constructor(
    private store: Store,
    private host: PanelHost,
  ) {
    const ul = h('ul', { class: 'kp-inv-list' });
    for (const [name, expl] of INVARIANTS) {
      const state = h('span', { class: 'kp-inv-state', 'aria-hidden': 'true' }, '✓');
      const body = h('div', { class: 'kp-inv-body' });
      const li = h('li', { class: 'kp-inv', 'data-invariant': name }, state, h('div', null, h('div', { class: 'kp-inv-name' }, name), h('div', { class: 'kp-inv-expl' }, expl), body));
      ul.appendChild(li);
      this.items.set(name, { li, state, body });
    }
    this.summary = h('p', { class: 'kp-inv-summary', 'data-invariants': 'ok', role: 'status' }, 'All invariants hold.');
    this.el = h(
      'section',
      { class: 'kp-panel kp-invariants', 'aria-label': 'Invariants' },
      h('h3', null, 'Invariants ', h('span', { class: 'kp-sub' }, 'checked after every event')),
      this.summary,
      ul,
    );
  }

  frame(): void {
    const now = this.host.now();
    const vs = this.store.violations.filter((v) => v.t <= now);
    const stable = this.host.checksStableLeadership();
    if (vs.length === this.lastCount && (vs.length === 0 || now === this.lastNow) && stable === this.lastStable) return;
    this.lastStable = stable;
    this.lastCount = vs.length;
    this.lastNow = now;
    const by = new Map<string, UiEventOf<'violation'>[]>();
    for (const v of vs) {
      const k = v.invariant ?? '?';
      if (!by.has(k)) by.set(k, []);
      by.get(k)!.push(v);
    }
    for (const [name, it] of this.items) {
      const list = by.get(name) ?? [];
      const bad = list.length > 0;
      toggleClass(it.li, 'kp-bad', bad);
      // not checked in this run: no ✓ that would claim it holds
      const unchecked = name === 'StableLeadership' && !stable && !bad;
      setText(it.state, bad ? '✗' : unchecked ? '–' : '✓');
      it.li.dataset.state = bad ? 'violated' : unchecked ? 'unchecked' : 'ok';
      toggleClass(it.li, 'kp-unchecked', unchecked);
      if (!bad) {
        if (it.body.firstChild) it.body.replaceChildren();
        continue;
      }
      const first = list[0];
      const btn = h('button', { class: 'kp-btn kp-btn-danger', type: 'button', 'data-seek-violation': String(first.seq) }, `Show the moment (${fmtT(first.t)})`);
      btn.addEventListener('click', () => this.host.showViolation(first));
      const ev = first.evidence ?? [];
      const parts: HTMLElement[] = [h('div', { class: 'kp-inv-detail' }, first.detail ?? first.text)];
      if (ev.length) parts.push(h('div', { class: 'kp-inv-ev' }, `Evidence: events ${ev.join(', ')}`));
      if (list.length > 1) parts.push(h('div', { class: 'kp-inv-ev' }, `${list.length - 1} more violation(s) later`));
      parts.push(btn);
      it.body.replaceChildren(...parts);
    }
    const n = vs.length;
    this.summary.dataset.invariants = n ? 'violated' : 'ok';
    toggleClass(this.summary, 'kp-bad', n > 0);
    setText(this.summary, n ? `${n} violation${n > 1 ? 's' : ''} of ${by.size} invariant${by.size > 1 ? 's' : ''}. Safety switches off let it happen.` : 'All invariants hold.');
  }
}

// ---- faults --------------------------------------------------------------------------------

const GROUPS = ['A', 'B', 'C'];
/** Wall ms after the last arrow-key step of the loss or duplication slider before the change
 * is applied: one recorded action per settled value, not one per key press. */
const KEY_SETTLE_MS = 600;

export class FaultsPanel {
  readonly el: HTMLElement;
  private chips: HTMLDivElement;
  private groupOf: number[] = [];
  private cutFrom: HTMLSelectElement;
  private cutTo: HTMLSelectElement;
  private loss: HTMLInputElement;
  private lossOut: HTMLOutputElement;
  private dup: HTMLInputElement;
  private dupOut: HTMLOutputElement;
  private latMin: HTMLInputElement;
  private latMax: HTMLInputElement;
  private workload: HTMLSelectElement;
  private switches = new Map<string, HTMLInputElement>();
  private linkState: HTMLParagraphElement;
  private nodeCount = -1;
  /** A keyboard change of the loss/duplication sliders waiting to settle (a timer). */
  private pendingNet = 0;
  private applyNet: () => void = () => {};

  constructor(private host: PanelHost) {
    this.chips = h('div', { class: 'kp-chips', role: 'group', 'aria-label': 'Partition groups: tap a node to move it to the next group' });
    const applyPartition = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'partition' }, 'Partition');
    applyPartition.addEventListener('click', () => {
      const groups: number[][] = GROUPS.map(() => []);
      this.groupOf.forEach((g, n) => {
        groups[g].push(n);
      });
      const used = groups.filter((g) => g.length);
      if (used.length > 1) this.host.partition(used);
    });
    const heal = h('button', { class: 'kp-btn kp-btn-ok', type: 'button', 'data-action': 'heal' }, 'Heal all links');
    heal.addEventListener('click', () => this.host.heal());
    this.cutFrom = h('select', { 'aria-label': 'Cut from node' });
    this.cutTo = h('select', { 'aria-label': 'Cut to node' });
    const cut = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'cut' }, 'Cut');
    cut.addEventListener('click', () => {
      const a = Number(this.cutFrom.value);
      const b = Number(this.cutTo.value);
      if (a !== b) this.host.cut(a, b);
    });
    this.loss = h('input', { type: 'range', min: '0', max: '50', step: '1', value: '0', 'aria-label': 'Message loss percent' });
    this.lossOut = h('output', null, '0%');
    this.dup = h('input', { type: 'range', min: '0', max: '30', step: '1', value: '0', 'aria-label': 'Duplication percent' });
    this.dupOut = h('output', null, '0%');
    this.latMin = h('input', { type: 'number', min: '1', max: '5000', step: '1', value: '60', 'aria-label': 'Latency minimum ms', class: 'kp-num' });
    this.latMax = h('input', { type: 'number', min: '1', max: '5000', step: '1', value: '140', 'aria-label': 'Latency maximum ms', class: 'kp-num' });
    const applyNet = () => {
      // The core's latency limit (at zero, replicas could answer each other forever
      // within one millisecond).
      const { min, max } = limit('latencyMs');
      let lo = clamp(Math.round(Number(this.latMin.value) || min), min, max);
      let hi = clamp(Math.round(Number(this.latMax.value) || min), min, max);
      if (lo > hi) [lo, hi] = [hi, lo];
      this.latMin.value = String(lo);
      this.latMax.value = String(hi);
      this.host.setNetwork({ latencyMs: [lo, hi], loss: Number(this.loss.value) / 100, duplicate: Number(this.dup.value) / 100 });
    };
    this.applyNet = applyNet;
    for (const el of [this.loss, this.dup]) {
      let byKey = false;
      el.addEventListener('input', () => {
        this.lossOut.value = `${this.loss.value}%`;
        this.dupOut.value = `${this.dup.value}%`;
      });
      el.addEventListener('keydown', () => (byKey = true));
      el.addEventListener('pointerdown', () => (byKey = false));
      // A drag fires `change` once, on release; each arrow-key step fires one: those wait
      // until the value settles.
      el.addEventListener('change', () => {
        if (!byKey) {
          this.settle();
          applyNet();
          return;
        }
        window.clearTimeout(this.pendingNet);
        this.pendingNet = window.setTimeout(() => this.settle(), KEY_SETTLE_MS);
      });
      el.addEventListener('blur', () => this.settle());
    }
    this.latMin.addEventListener('change', applyNet);
    this.latMax.addEventListener('change', applyNet);
    this.workload = h('select', { 'aria-label': 'Client writes per second' });
    for (const v of [0, 1, 2, 5, 10, 20, 50, 100, 200]) this.workload.appendChild(h('option', { value: String(v) }, v === 0 ? 'none' : `${v} writes/s`));
    this.workload.addEventListener('change', () => this.host.setWorkload(Number(this.workload.value)));
    const sw = h('div', { class: 'kp-switches' });
    for (const [name, expl] of SWITCHES) {
      const box = h('input', { type: 'checkbox', 'data-switch': name });
      box.addEventListener('change', () => this.host.setUnsafe([...this.switches].filter(([, b]) => b.checked).map(([n]) => n)));
      this.switches.set(name, box);
      sw.appendChild(h('label', { class: 'kp-switch' }, box, h('span', null, h('code', null, name), h('span', { class: 'kp-expl' }, expl))));
    }
    this.linkState = h('p', { class: 'kp-linkstate', role: 'status' });
    this.el = h(
      'section',
      { class: 'kp-panel kp-faults', 'aria-label': 'Faults' },
      h('h3', null, 'Faults'),
      h('div', { class: 'kp-field' }, h('div', { class: 'kp-label' }, 'Partition: tap nodes to put them in groups A, B, C'), this.chips, h('div', { class: 'kp-row' }, applyPartition, heal)),
      h('div', { class: 'kp-field' }, h('div', { class: 'kp-label' }, 'One-way cut: messages from → to are lost'), h('div', { class: 'kp-row' }, this.cutFrom, h('span', null, '→'), this.cutTo, cut)),
      this.linkState,
      h(
        'div',
        { class: 'kp-field kp-grid2' },
        h('label', null, h('span', { class: 'kp-label' }, 'Loss'), this.loss, this.lossOut),
        h('label', null, h('span', { class: 'kp-label' }, 'Duplication'), this.dup, this.dupOut),
        h('div', null, h('span', { class: 'kp-label' }, 'Latency (ms)'), h('span', { class: 'kp-row' }, this.latMin, '–', this.latMax)),
        h('label', null, h('span', { class: 'kp-label' }, 'Client workload'), this.workload),
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

  /** Applies a slider change still waiting to settle, now (before another action, so actions keep their order). */
  settle(): void {
    if (!this.pendingNet) return;
    window.clearTimeout(this.pendingNet);
    this.pendingNet = 0;
    this.applyNet();
  }

  /** Refresh the controls from the cluster (after a reset or load). */
  sync(): void {
    // a change still settling belonged to the run shown before
    window.clearTimeout(this.pendingNet);
    this.pendingNet = 0;
    const nodes = this.host.nodes();
    if (nodes.length !== this.nodeCount) {
      this.nodeCount = nodes.length;
      this.groupOf = nodes.map((n) => (n.id < Math.ceil(nodes.length / 2) ? 0 : 1));
      this.renderChips();
      for (const sel of [this.cutFrom, this.cutTo]) {
        sel.replaceChildren(...nodes.map((n) => h('option', { value: String(n.id) }, `n${n.id}`)));
      }
      this.cutTo.value = nodes.length > 1 ? '1' : '0';
    }
    const p = this.host.network();
    this.loss.value = String(Math.round(p.loss * 100));
    this.dup.value = String(Math.round(p.duplicate * 100));
    this.lossOut.value = `${this.loss.value}%`;
    this.dupOut.value = `${this.dup.value}%`;
    this.latMin.value = String(p.latencyMs[0]);
    this.latMax.value = String(p.latencyMs[1]);
    const w = this.host.workload();
    if (![...this.workload.options].some((o) => o.value === String(w))) this.workload.appendChild(h('option', { value: String(w) }, `${w} writes/s`));
    this.workload.value = String(w);
    const on = new Set(this.host.unsafe());
    for (const [name, box] of this.switches) box.checked = on.has(name);
  }

  private renderChips(): void {
    this.chips.replaceChildren(
      ...this.groupOf.map((g, n) => {
        const b = h('button', { class: `kp-chip kp-g${g}`, type: 'button', 'data-chip': String(n), 'aria-label': `n${n} ${GROUPS[g]}: in group ${GROUPS[g]}` }, `n${n} `, h('b', null, GROUPS[g]));
        b.addEventListener('click', () => {
          this.groupOf[n] = (this.groupOf[n] + 1) % GROUPS.length;
          this.renderChips();
        });
        return b;
      }),
    );
  }

  /** What the network looks like now, in words. */
  frame(): void {
    const down = this.host.downLinks();
    const key = down.map(([a, b]) => `${a}-${b}`).join(',');
    if (key === this.lastDown) return;
    this.lastDown = key;
    const n = this.host.nodes().length;
    const { groups, isDown } = linkGroups(n, down);
    const parts: string[] = [];
    if (groups.some((g) => g !== 0)) {
      const by = new Map<number, number[]>();
      groups.forEach((g, i) => {
        if (!by.has(g)) by.set(g, []);
        by.get(g)!.push(i);
      });
      parts.push(`Partitioned: ${[...by.values()].map((g) => `{${g.map((i) => `n${i}`).join(' ')}}`).join(' | ')}`);
    }
    const oneWay: string[] = [];
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (a !== b && isDown(a, b) && !isDown(b, a)) oneWay.push(`n${a}→n${b}`);
    if (oneWay.length) parts.push(`Cut one way: ${oneWay.join(', ')}`);
    setText(this.linkState, parts.length ? parts.join('. ') : 'All links up.');
    toggleClass(this.linkState, 'kp-bad', parts.length > 0);
  }
  private lastDown = '-';
}
