// The node menu: what a node is doing (role, state, epoch, offsets, its timer) and what
// can be done to it (crash or restart, isolate, resign, write, a slow or wiped disk).

import type { Cluster } from '../../api.js';
import { clamp, h, setText } from '../common/dom.js';
import type { NodeInfo } from '../common/types.js';
import type { Popup } from '../shell/popups.js';

export interface NodeMenuHost {
  nodes(): NodeInfo[];
  /** Nodes isolated now (each undone by its own reconnect). */
  isolated(): number[];
  now(): number;
  /** Runs an action on the cluster (see the element's `act`). */
  act(what: string, fn: (c: Cluster) => unknown): unknown;
  /** A client write at the leader, with a toast that says how it went. */
  write(): void;
  /** The seq of the state change that put node `id` in its current state (-1: none). */
  stateSeq(id: number): number;
  /** Why event `seq` happened (the core's sentence), or null. */
  explain(seq: number): string | null;
}

export class NodeMenu {
  readonly el = h('div', { class: 'kp-menu', hidden: true, role: 'dialog', 'aria-label': 'Node actions' });
  readonly #host: NodeMenuHost;
  #node = -1;
  #anchor: HTMLElement | null = null;
  /** Which set of buttons is built (they are rebuilt when it changes). */
  #key = '';
  #facts: HTMLDivElement[] = [];
  readonly #why = h('p', { class: 'kp-menu-why' });
  /** seq of the state change #why explains */
  #whySeq = -1;

  constructor(host: NodeMenuHost) {
    this.#host = host;
  }

  /** Opens the menu of node `id` beside its button `anchor` (a second tap closes it); `root` is the element's box to stay within. */
  open(id: number, anchor: HTMLElement, root: HTMLElement): void {
    if (this.#node === id && !this.el.hidden) {
      this.close();
      return;
    }
    this.#anchor?.setAttribute('aria-expanded', 'false');
    this.#node = id;
    this.#anchor = anchor;
    anchor.setAttribute('aria-expanded', 'true');
    this.el.hidden = false;
    this.#key = '';
    this.#whySeq = -1;
    this.frame();
    const r = anchor.getBoundingClientRect();
    const box = root.getBoundingClientRect();
    const mw = this.el.offsetWidth;
    let left = r.right - box.left + 6;
    if (left + mw > box.width - 4) left = r.left - box.left - mw - 6;
    if (left < 4) left = clamp(r.left - box.left + r.width / 2 - mw / 2, 4, Math.max(4, box.width - mw - 4));
    const narrow = box.width < 560;
    this.el.classList.toggle('kp-menu-wide', narrow);
    this.el.style.left = `${narrow ? 8 : left}px`;
    const top = narrow ? r.bottom - box.top + 8 : Math.max(4, r.top - box.top - 10);
    this.el.style.top = `${top}px`;
    // inside the viewport (a phone): the page scrolls it into view where it can, else it moves up
    this.el.scrollIntoView({ block: 'nearest' });
    const vh = window.visualViewport?.height ?? window.innerHeight;
    const over = this.el.getBoundingClientRect().bottom - (vh - 8);
    if (over > 0) this.el.style.top = `${Math.max(top - over, 8 - root.getBoundingClientRect().top)}px`;
    (this.el.querySelector('button') as HTMLButtonElement | null)?.focus({ preventScroll: true });
  }

  /** The menu as a popup a tap elsewhere closes (a tap on a node opens that node's instead). */
  readonly popup: Popup = {
    open: () => !this.el.hidden,
    inside: (path) => path.includes(this.el) || path.some((n) => n instanceof HTMLElement && n.classList.contains('kp-node-btn')),
    close: () => this.close(),
  };

  /** Closes the menu; `returnFocus` (Escape) puts focus back on the node's button. */
  close(returnFocus = false): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    this.#anchor?.setAttribute('aria-expanded', 'false');
    if (returnFocus && this.#anchor?.isConnected) this.#anchor.focus({ preventScroll: true });
    this.#node = -1;
  }

  /** Focus on the button of `action`, or its counterpart (Crash and Restart), or the first one that can be pressed. */
  #refocus(action: string): void {
    const buttons = [...this.el.querySelectorAll<HTMLButtonElement>('button[data-node-action]')];
    const twin: Record<string, string> = { crash: 'restart', restart: 'crash', isolate: 'reconnect', reconnect: 'isolate' };
    const b = buttons.find((x) => x.dataset.nodeAction === action && !x.disabled) ?? buttons.find((x) => x.dataset.nodeAction === twin[action] && !x.disabled) ?? buttons.find((x) => !x.disabled);
    b?.focus({ preventScroll: true });
  }

  /** Facts updated in place every frame; buttons rebuilt only when the set of actions
   * changes (so a click never lands on a replaced button). */
  frame(): void {
    if (this.el.hidden) return;
    const nodes = this.#host.nodes();
    const n = nodes[this.#node];
    if (!n) return;
    const isolated = this.#host.isolated().includes(n.id);
    const crashed = n.state === 'crashed';
    const leader = n.state === 'leader';
    const slow = (n.flushMs ?? 1) >= 100;
    const id = n.id;
    const facts = [
      `${n.role} · ${n.state} · epoch ${n.epoch}`,
      `LEO ${n.leo} · HW ${n.hw ?? '–'} · flushed ${n.flushed ?? '–'}`,
      `leader ${n.leader ?? '–'} · votedFor ${n.votedFor ?? '–'}`,
      n.timer ? `${n.timer.kind} timer: ${Math.max(0, n.timer.deadline - this.#host.now())} ms left` : 'no timer running',
      `disk flush: ${n.flushMs ?? 1} ms`,
      crashed ? 'metadata image: none while crashed' : `metadata image: applied offset ${n.applied} · ${n.brokers} brokers · ${n.topics} topics`,
    ];
    const key = `${id}:${crashed}:${leader}:${isolated}:${slow}`;
    if (key !== this.#key) {
      this.#key = key;
      // an action that changes the buttons (Crash becomes Restart) keeps focus in the menu, so Escape still closes it
      const focused = (this.el.getRootNode() as ShadowRoot | Document).activeElement;
      const had = focused instanceof HTMLElement && this.el.contains(focused) ? (focused.dataset.nodeAction ?? '') : null;
      const btn = (label: string, action: string, fn: () => void, opts: { danger?: boolean; disabled?: boolean; title?: string } = {}) => {
        const b = h('button', { class: `kp-btn${opts.danger ? ' kp-btn-danger' : ''}`, type: 'button', 'data-node-action': action, disabled: !!opts.disabled, title: opts.title }, label);
        b.addEventListener('click', () => fn());
        return b;
      };
      this.#facts = facts.map(() => h('div'));
      this.el.replaceChildren(
        h('h2', null, `Node n${id}`),
        h('div', { class: 'kp-menu-facts' }, ...this.#facts),
        this.#why,
        h(
          'div',
          { class: 'kp-menu-actions' },
          crashed ? btn('↻ Restart', 'restart', () => this.#host.act('restart', (c) => c.restart(id))) : btn('✕ Crash', 'crash', () => this.#host.act('crash', (c) => c.crash(id)), { danger: true }),
          isolated
            ? btn('Reconnect', 'reconnect', () => this.#host.act('reconnect', (c) => c.reconnect(id)), { title: "Undo the isolation: only this node's links come back" })
            : btn('Isolate', 'isolate', () => this.#host.act('isolate', (c) => c.isolate(id)), { disabled: crashed }),
          btn('Resign', 'resign', () => this.#host.act('resign', (c) => c.resign()), { disabled: !leader, title: leader ? 'Graceful resignation: EndQuorumEpoch' : 'Only the leader can resign' }),
          btn('Write', 'write', () => this.#host.write(), { disabled: !leader, title: leader ? 'A client writes a metadata record' : 'Writes go to the leader' }),
          btn(slow ? 'Fast disk' : 'Slow disk', 'slow-disk', () => this.#host.act('slowDisk', (c) => c.slowDisk(id, slow ? 1 : 400)), {
            title: 'Flush latency 400 ms: the replica blocks while it flushes',
          }),
          btn('Wipe disk', 'wipe', () => this.#host.act('wipe', (c) => c.wipe(id)), { danger: true, title: 'Crash and lose the whole disk' }),
        ),
      );
      if (had !== null) this.#refocus(had);
    }
    facts.forEach((f, i) => {
      setText(this.#facts[i], f);
    });
    const seq = this.#host.stateSeq(id);
    if (seq !== this.#whySeq) {
      this.#whySeq = seq;
      const why = seq > 0 ? this.#host.explain(seq) : null;
      setText(this.#why, why ? `Why ${n.state}: ${why}` : '');
    }
  }
}
