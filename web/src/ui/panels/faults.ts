// The fault dock beside the ring (the main faults, and every fault in force with its
// undo), which applies the network with the network panel below (latency, duplication,
// workload, safety switches: network.ts, which comes with the later chunk); and what
// every panel reads of the element (the quorum and invariants panels are
// state-panels.ts's).

import type { Baseline, Cluster, LinkFaults } from '../../api.js';
import { limit } from '../../api.js';
import { clamp, h, setText, toggleClass } from '../common/dom.js';
import type { NodeInfo, QuorumInfo, UiEventOf } from '../common/types.js';

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
  /** Each link fault in force, and what undoing every fault restores (null before a run). */
  linkFaults(): LinkFaults | null;
  baseline(): Baseline | null;
  /** Runs an action on the cluster (see the element's `act`). */
  act(what: string, fn: (c: Cluster) => unknown): unknown;
  /** A client write at the leader, with a toast that says how it went. */
  write(): void;
  network(): NetworkProfile;
  setNetwork(p: NetworkProfile): void;
  workload(): number;
  setWorkload(writesPerSecond: number): void;
  unsafe(): string[];
  setUnsafe(list: string[]): void;
  /** the invariant violations up to now */
  violations(): readonly UiEventOf<'violation'>[];
  /** seek to a violation and highlight its evidence */
  showViolation(v: UiEventOf<'violation'>): void;
  /** whether this run checks StableLeadership (a scenario option; off in free play) */
  checksStableLeadership(): boolean;
}

// ---- faults --------------------------------------------------------------------------------

const GROUPS = ['A', 'B', 'C'];
/** Wall ms after the last arrow-key step of the loss or duplication slider before the change
 * is applied: one recorded action per settled value, not one per key press. */
const KEY_SETTLE_MS = 600;
/** The duplication slider's top, percent. */
export const MAX_DUPLICATE_PCT = 30;
/** A disk at least this slow is shown as slowed (the dock's "Slow disk" sets 400 ms). */
const SLOW_DISK_MS = 400;

/** One fault in force and the action that undoes exactly it. */
export interface ActiveFault {
  /** Stable id: `partition`, `isolate:3`, `cut:0-1`, `slowLink:1-0`, `loss`, `duplicate`, `latency`, `disk:2`, `crash:1`. */
  key: string;
  text: string;
  undo: string;
  run: (c: Cluster) => unknown;
}

const nodeSet = (g: number[]) => `{${g.map((n) => `n${n}`).join(' ')}}`;
const pct = (p: number) => `${Math.round(p * 1000) / 10}%`;
const range = ([lo, hi]: [number, number]) => (lo === hi ? `${lo} ms` : `${lo}–${hi} ms`);

/** Every fault in force, each with its own undo, in the order the dock lists them. */
export function activeFaults(f: LinkFaults, net: NetworkProfile, base: Baseline, nodes: NodeInfo[]): ActiveFault[] {
  const out: ActiveFault[] = [];
  for (const n of nodes) {
    if (n.state === 'crashed') out.push({ key: `crash:${n.id}`, text: `n${n.id} crashed`, undo: 'Restart', run: (c) => c.restart(n.id) });
  }
  if (f.groups.length) out.push({ key: 'partition', text: `Partitioned: ${f.groups.map(nodeSet).join(' | ')}`, undo: 'Heal', run: (c) => c.healPartition() });
  for (const n of f.isolated) out.push({ key: `isolate:${n}`, text: `n${n} isolated`, undo: 'Reconnect', run: (c) => c.reconnect(n) });
  for (const [a, b] of f.cuts) out.push({ key: `cut:${a}-${b}`, text: `Cut one way: n${a}→n${b}`, undo: 'Uncut', run: (c) => c.uncut(a, b) });
  for (const l of f.slowLinks) {
    out.push({ key: `slowLink:${l.from}-${l.to}`, text: `Slow link n${l.from}→n${l.to}: ${range(l.latencyMs)}`, undo: 'Restore', run: (c) => c.clearSlowLink(l.from, l.to) });
  }
  const was = (v: string) => ` (normally ${v})`;
  if (net.loss !== base.network.loss) {
    out.push({ key: 'loss', text: `Loss ${pct(net.loss)}${base.network.loss ? was(pct(base.network.loss)) : ''}`, undo: 'Restore', run: (c) => c.setNetwork({ loss: base.network.loss }) });
  }
  if (net.duplicate !== base.network.duplicate) {
    const text = `Duplication ${pct(net.duplicate)}${base.network.duplicate ? was(pct(base.network.duplicate)) : ''}`;
    out.push({ key: 'duplicate', text, undo: 'Restore', run: (c) => c.setNetwork({ duplicate: base.network.duplicate }) });
  }
  if (net.latencyMs[0] !== base.network.latencyMs[0] || net.latencyMs[1] !== base.network.latencyMs[1]) {
    const latencyMs = base.network.latencyMs;
    out.push({ key: 'latency', text: `Latency ${range(net.latencyMs)}${was(range(latencyMs))}`, undo: 'Restore', run: (c) => c.setNetwork({ latencyMs }) });
  }
  for (const n of nodes) {
    if (n.flushMs !== undefined && n.flushMs !== base.flushMs) {
      out.push({ key: `disk:${n.id}`, text: `n${n.id}'s disk flushes in ${n.flushMs} ms${was(`${base.flushMs} ms`)}`, undo: 'Restore', run: (c) => c.slowDisk(n.id, base.flushMs) });
    }
  }
  return out;
}

/** What "no faults" means for this cluster, in words. */
function allClear(base: Baseline): string {
  const n = base.network;
  const loss = n.loss || n.duplicate ? `loss ${pct(n.loss)}, duplication ${pct(n.duplicate)}` : 'no loss';
  return `No faults: every node up, every link up, ${loss}, latency ${range(n.latencyMs)}, disks flush in ${base.flushMs} ms.`;
}

/** The network panel's side of the network (network.ts, which comes with the later chunk). */
export interface NetworkInputs {
  /** The latency and duplication its inputs say (their values tidied in place). */
  values(): { latencyMs: [number, number]; duplicate: number };
  /** Refresh its inputs from the cluster. */
  sync(): void;
}

/**
 * The faults. `dock` sits beside the ring: actions on a node, partition, one-way cut,
 * loss, and every fault in force with its own undo plus "Clear all". The network panel
 * below (latency, duplication, workload, safety switches; shown with the full layout)
 * joins it when the later chunk arrives (`mountNetwork`).
 */
export class FaultsPanel {
  readonly dock: HTMLElement;
  private chips: HTMLDivElement;
  private groupOf: number[] = [];
  private target: HTMLSelectElement;
  private nodeButtons: { crash: HTMLButtonElement; isolate: HTMLButtonElement; disk: HTMLButtonElement };
  private resign: HTMLButtonElement;
  private cutFrom: HTMLSelectElement;
  private cutTo: HTMLSelectElement;
  private loss: HTMLInputElement;
  private lossOut: HTMLOutputElement;
  /** The network panel, once it is here. */
  private network: NetworkInputs | null = null;
  private linkState: HTMLDivElement;
  private clearAll: HTMLButtonElement;
  private nodeCount = -1;
  private lastState = '-';
  private lastTarget = '-';
  private lastNodes: NodeInfo[] | null = null;
  private lastId = -1;
  /** A keyboard change of the loss/duplication sliders waiting to settle (a timer). */
  private pendingNet = 0;

  constructor(private host: PanelHost) {
    const btn = (label: string, attrs: Record<string, string>, onClick: () => void, cls = '') => {
      const b = h('button', { class: `kp-btn${cls}`, type: 'button', ...attrs }, label);
      b.addEventListener('click', onClick);
      return b;
    };
    // a node and what to do to it
    this.target = h('select', { 'aria-label': 'Node to act on', 'data-fault-target': '' });
    this.target.addEventListener('change', () => this.frame());
    const node = () => Number(this.target.value);
    const info = () => this.host.nodes()[node()];
    this.nodeButtons = {
      crash: btn('Crash', { 'data-fault': 'crash' }, () => {
        const n = info();
        if (!n) return;
        const id = n.id;
        if (n.state === 'crashed') this.host.act('restart', (c) => c.restart(id));
        else this.host.act('crash', (c) => c.crash(id));
      }),
      isolate: btn('Isolate', { 'data-fault': 'isolate' }, () => {
        const id = node();
        if (this.host.linkFaults()?.isolated.includes(id)) this.host.act('reconnect', (c) => c.reconnect(id));
        else this.host.act('isolate', (c) => c.isolate(id));
      }),
      disk: btn('Slow disk', { 'data-fault': 'slow-disk', title: `Flush latency ${SLOW_DISK_MS} ms: the replica blocks while it flushes` }, () => {
        const n = info();
        const base = this.host.baseline();
        if (!n || !base) return;
        const id = n.id;
        const ms = (n.flushMs ?? base.flushMs) >= SLOW_DISK_MS ? base.flushMs : SLOW_DISK_MS;
        this.host.act('slowDisk', (c) => c.slowDisk(id, ms));
      }),
    };
    this.resign = btn('Resign', { 'data-fault': 'resign', title: 'The leader resigns gracefully: EndQuorumEpoch' }, () => this.host.act('resign', (c) => c.resign()));
    const write = btn('Write', { 'data-fault': 'write', title: 'A client writes a metadata record to the leader' }, () => this.host.write());

    this.chips = h('div', { class: 'kp-chips', role: 'group', 'aria-label': 'Partition groups: tap a node to move it to the next group' });
    const applyPartition = btn('Partition', { 'data-action': 'partition' }, () => {
      const groups: number[][] = GROUPS.map(() => []);
      this.groupOf.forEach((g, n) => {
        groups[g].push(n);
      });
      const used = groups.filter((g) => g.length);
      if (used.length > 1) this.host.act('partition', (c) => c.partition(used));
    });
    this.cutFrom = h('select', { 'aria-label': 'Cut from node' });
    this.cutTo = h('select', { 'aria-label': 'Cut to node' });
    const cut = btn('Cut', { 'data-action': 'cut' }, () => {
      const a = Number(this.cutFrom.value);
      const b = Number(this.cutTo.value);
      if (a !== b) this.host.act('cut', (c) => c.cut(a, b));
    });
    this.loss = h('input', { type: 'range', min: '0', max: '50', step: '1', value: '0', 'aria-label': 'Message loss percent' });
    this.lossOut = h('output', null, '0%');
    this.loss.addEventListener('input', () => {
      this.lossOut.value = `${this.loss.value}%`;
    });
    this.settling(this.loss);
    // focusable: with many faults in force it scrolls, and the keyboard scrolls it too
    this.linkState = h('div', { class: 'kp-linkstate', 'data-faults': 'none', tabindex: '0', role: 'group', 'aria-label': 'Faults in force' });
    this.clearAll = btn(
      'Clear all',
      { 'data-action': 'clear-faults', title: 'Heal every link, restore loss, latency, duplication and disks, restart crashed nodes' },
      () => this.host.act('clearFaults', (c) => c.clearFaults()),
      ' kp-btn-ok',
    );
    this.dock = h(
      'section',
      { class: 'kp-card kp-dock kp-faults', 'aria-label': 'Faults' },
      h('div', { class: 'kp-card-h' }, h('b', null, 'Faults'), h('span', null, 'undo each below')),
      h(
        'div',
        { class: 'kp-dock-body' },
        h('div', { class: 'kp-dock-row kp-dock-node' }, this.target, this.nodeButtons.crash, this.nodeButtons.isolate, this.nodeButtons.disk),
        h('div', { class: 'kp-dock-row' }, h('span', { class: 'kp-label' }, 'Leader'), this.resign, write),
        h('div', { class: 'kp-dock-row kp-dock-part' }, h('span', { class: 'kp-label' }, 'Groups'), this.chips, applyPartition),
        h('div', { class: 'kp-dock-row' }, h('span', { class: 'kp-label' }, 'One-way cut'), this.cutFrom, h('span', { 'aria-hidden': 'true' }, '→'), this.cutTo, cut),
        h('label', { class: 'kp-dock-row kp-dock-loss' }, h('span', { class: 'kp-label' }, 'Loss'), this.loss, this.lossOut),
        h('div', { class: 'kp-dock-active' }, h('span', { class: 'kp-label kp-dock-active-h' }, 'In force'), this.clearAll, this.linkState),
      ),
    );
  }

  /**
   * The network as the dock's loss slider and the network panel's inputs say it, applied
   * (before the panel is here: the run's own latency and duplication, as its inputs
   * would show them).
   */
  applyNet(): void {
    let latencyMs: [number, number];
    let duplicate: number;
    if (this.network) ({ latencyMs, duplicate } = this.network.values());
    else {
      const p = this.host.network();
      latencyMs = tidyLatency(p.latencyMs[0], p.latencyMs[1]);
      duplicate = clamp(Math.round(p.duplicate * 100), 0, MAX_DUPLICATE_PCT) / 100;
    }
    this.host.setNetwork({ latencyMs, loss: Number(this.loss.value) / 100, duplicate });
  }

  /**
   * A slider of the network (loss here, duplication in the network panel): a drag fires
   * `change` once, on release, and applies it; each arrow-key step fires one, and those
   * wait until the value settles.
   */
  settling(el: HTMLInputElement): void {
    let byKey = false;
    el.addEventListener('keydown', () => (byKey = true));
    el.addEventListener('pointerdown', () => (byKey = false));
    el.addEventListener('change', () => {
      if (!byKey) {
        this.settle();
        this.applyNet();
        return;
      }
      window.clearTimeout(this.pendingNet);
      this.pendingNet = window.setTimeout(() => this.settle(), KEY_SETTLE_MS);
    });
    el.addEventListener('blur', () => this.settle());
  }

  /** The network panel joins the dock (from the later chunk). */
  mountNetwork(network: NetworkInputs): void {
    this.network = network;
    network.sync();
  }

  /** Applies a slider change still waiting to settle, now (before another action, so actions keep their order). */
  settle(): void {
    if (!this.pendingNet) return;
    window.clearTimeout(this.pendingNet);
    this.pendingNet = 0;
    this.applyNet();
  }

  /** Refresh the controls from the cluster (after a reset, load or action). */
  sync(): void {
    // a change still settling belonged to the run shown before
    window.clearTimeout(this.pendingNet);
    this.pendingNet = 0;
    const nodes = this.host.nodes();
    if (nodes.length !== this.nodeCount) {
      this.nodeCount = nodes.length;
      this.groupOf = nodes.map((n) => (n.id < Math.ceil(nodes.length / 2) ? 0 : 1));
      this.renderChips();
      for (const sel of [this.target, this.cutFrom, this.cutTo]) {
        sel.replaceChildren(...nodes.map((n) => h('option', { value: String(n.id) }, `n${n.id}`)));
      }
      this.cutTo.value = nodes.length > 1 ? '1' : '0';
    }
    const p = this.host.network();
    this.loss.value = String(Math.round(p.loss * 100));
    this.lossOut.value = `${this.loss.value}%`;
    this.network?.sync();
    this.lastNodes = null;
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

  /** Per frame: the node buttons for the chosen node, and the faults in force (rebuilt only when they change). */
  frame(): void {
    // the nodes are re-read whenever anything happens (an event, an action, a seek)
    const nodes = this.host.nodes();
    const id = Number(this.target.value);
    if (nodes === this.lastNodes && id === this.lastId) return;
    const f = this.host.linkFaults();
    const base = this.host.baseline();
    if (!f || !base) return;
    this.lastNodes = nodes;
    this.lastId = id;
    const net = this.host.network();
    const n = nodes[id];
    const leader = nodes.some((x) => x.state === 'leader');
    const targetKey = n ? `${id}:${n.state}:${f.isolated.includes(id)}:${(n.flushMs ?? 0) >= SLOW_DISK_MS}:${leader}` : '';
    if (targetKey !== this.lastTarget) {
      this.lastTarget = targetKey;
      const crashed = n?.state === 'crashed';
      const b = this.nodeButtons;
      setText(b.crash, crashed ? 'Restart' : 'Crash');
      b.crash.dataset.fault = crashed ? 'restart' : 'crash';
      toggleClass(b.crash, 'kp-btn-danger', !crashed);
      const isolated = f.isolated.includes(id);
      setText(b.isolate, isolated ? 'Reconnect' : 'Isolate');
      b.isolate.dataset.fault = isolated ? 'reconnect' : 'isolate';
      const slow = (n?.flushMs ?? 0) >= SLOW_DISK_MS;
      setText(b.disk, slow ? 'Fast disk' : 'Slow disk');
      this.resign.disabled = !leader;
    }
    const active = activeFaults(f, net, base, nodes);
    const key = active.map((a) => `${a.key}=${a.text}`).join('\n') || allClear(base);
    if (key === this.lastState) return;
    this.lastState = key;
    this.linkState.dataset.faults = active.length ? String(active.length) : 'none';
    toggleClass(this.linkState, 'kp-bad', active.length > 0);
    this.clearAll.disabled = active.length === 0;
    if (!active.length) {
      this.linkState.replaceChildren(h('p', { class: 'kp-clear' }, allClear(base)));
      return;
    }
    this.linkState.replaceChildren(
      h(
        'ul',
        { class: 'kp-active-list', 'aria-label': 'Faults in force' },
        ...active.map((a) => {
          const undo = h('button', { class: 'kp-btn kp-btn-sm', type: 'button', 'data-undo': a.key, 'aria-label': `${a.undo}: ${a.text}` }, a.undo);
          undo.addEventListener('click', () => this.host.act(`undo ${a.key}`, a.run));
          return h('li', { 'data-active-fault': a.key }, h('span', null, a.text), undo);
        }),
      ),
    );
  }
}

/**
 * A latency range as the network panel's inputs take it: whole ms within the core's
 * limit (at zero, replicas could answer each other forever within one millisecond), the
 * lower first.
 */
export function tidyLatency(min: number, max: number): [number, number] {
  const l = limit('latencyMs');
  let lo = clamp(Math.round(min || l.min), l.min, l.max);
  let hi = clamp(Math.round(max || l.min), l.min, l.max);
  if (lo > hi) [lo, hi] = [hi, lo];
  return [lo, hi];
}
