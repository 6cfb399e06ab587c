// The node menu: what a node is doing (role, state, epoch, offsets, its timer) and what
// can be done to it (crash or restart, isolate, resign, write, a slow or wiped disk, and
// in a dynamic quorum (KIP-853) add-controller or remove-controller).

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
  /** Why the voters cannot change in this run (a static quorum, a release before 3.9), or null: they can. */
  membershipLocked(): string | null;
  /** The seq of the last event so far. */
  lastSeq(): number;
  /** The first `admin` answer about `voter` after event `since`, or null; `scanned`: the last seq looked at. */
  adminAnswer(since: number, voter: number): { answer: { seq: number; error: string } | null; scanned: number };
}

/** The last add-controller or remove-controller sent from this menu. */
interface Pending {
  node: number;
  request: string;
  /** simulated ms it was sent at (a seek before it drops it) */
  t: number;
  /** the last seq already searched for the answer */
  since: number;
  /** its answer is shown (kept until a seek goes back before the request) */
  answered: boolean;
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
  /** what the last membership request from the menu came to */
  readonly #admin = h('p', { class: 'kp-menu-why', 'data-admin': '', 'aria-live': 'polite' });
  #pending: Pending | null = null;

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
    const voter = n.role === 'voter';
    const locked = this.#host.membershipLocked();
    const key = `${id}:${crashed}:${leader}:${isolated}:${slow}:${voter}:${locked}`;
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
        this.#admin,
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
          voter
            ? btn('Remove from voters', 'remove-controller', () => this.#membership(id, 'remove-controller'), {
                disabled: locked !== null,
                title: locked ?? 'kafka-metadata-quorum.sh remove-controller: RemoveRaftVoter to the leader',
              })
            : btn('Add as voter', 'add-controller', () => this.#membership(id, 'add-controller'), {
                disabled: locked !== null,
                title: locked ?? 'kafka-metadata-quorum.sh add-controller: AddRaftVoter to the leader',
              }),
        ),
      );
      if (had !== null) this.#refocus(had);
    }
    facts.forEach((f, i) => {
      setText(this.#facts[i], f);
    });
    this.#answer();
    const seq = this.#host.stateSeq(id);
    if (seq !== this.#whySeq) {
      this.#whySeq = seq;
      const why = seq > 0 ? this.#host.explain(seq) : null;
      setText(this.#why, why ? `Why ${n.state}: ${why}` : '');
    }
  }

  /** Sends add-controller or remove-controller for node `id` through the element's `act`, and says so until the answer comes. */
  #membership(id: number, request: 'add-controller' | 'remove-controller'): void {
    const since = this.#host.lastSeq();
    const t = this.#host.now();
    const sent = this.#host.act(request === 'add-controller' ? 'addVoter' : 'removeVoter', (c) => (request === 'add-controller' ? c.addVoter(id) : c.removeVoter(id)));
    if (sent === undefined) return;
    // the answer may come in this same millisecond (no leader: REQUEST_TIMED_OUT at once)
    this.#pending = { node: id, request, t, since, answered: false };
    setText(this.#admin, `${request} n${id}: sent, waiting for the answer…`);
    this.#answer();
  }

  /** Shows the admin answer to the pending request once the trace has it: NONE, or Kafka's error code with the core's sentence naming its rule. */
  #answer(): void {
    const p = this.#pending;
    if (!p) return;
    if (this.#host.now() < p.t) {
      // sought back before the request: it was never sent in the run on screen
      this.#pending = null;
      setText(this.#admin, '');
      return;
    }
    if (p.answered) return;
    const { answer, scanned } = this.#host.adminAnswer(p.since, p.node);
    p.since = scanned;
    if (!answer) return;
    p.answered = true;
    const why = this.#host.explain(answer.seq) ?? '';
    const outcome = answer.error === 'NONE' ? 'NONE: committed' : `refused, ${answer.error}`;
    setText(this.#admin, `${p.request} n${p.node}: ${outcome}. ${why}`);
  }
}
