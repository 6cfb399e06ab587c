// What the element tells the reader outside the views: the notice area (settings that
// could not be used), short-lived toasts, the status line, the live region that
// announces notable events to screen readers, and the banner of a crashed core (with
// what a crash, or any other failure, does to the element).

import type { Cluster } from '../../api.js';
import { fmtT, h, setText, toggleClass } from '../common/dom.js';
import { tip, withMeanings } from '../common/glossary.js';
import type { NodeInfo, UiEvent } from '../common/types.js';

/** The notice area: problems of this boot, and notices the page added (`addNotice`). */
export class Notices {
  readonly el = h('div', { class: 'kp-notice', role: 'alert', hidden: true });
  /** Problems found by the current boot (replaced by the next one). */
  problems: string[] = [];
  #added: string[] = [];

  add(text: string): void {
    this.#added.push(text);
  }

  show(): void {
    const all = [...this.problems, ...this.#added];
    if (!all.length) {
      this.el.hidden = true;
      return;
    }
    const close = h('button', { class: 'kp-x', type: 'button', 'aria-label': 'Dismiss' }, '×');
    close.addEventListener('click', () => {
      this.el.hidden = true;
      this.problems = [];
      this.#added = [];
    });
    this.el.replaceChildren(h('div', null, h('strong', null, 'Some settings could not be used:'), h('ul', null, ...all.map((p) => h('li', null, p)))), close);
    this.el.hidden = false;
  }
}

/** One toast at a time, at the bottom of `root`, for 2.6 s. */
export class Toaster {
  readonly #root: HTMLElement;
  #el: HTMLDivElement | null = null;

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  show(text: string): void {
    this.#el?.remove();
    const t = h('div', { class: 'kp-toast', role: 'status' }, text);
    this.#el = t;
    this.#root.appendChild(t);
    setTimeout(() => t.remove(), 2600);
  }
}

/** The polite live region: each text once per run, the last 8 kept. */
export class Announcer {
  readonly el = h('div', { class: 'kp-sr-only', 'aria-live': 'polite', 'data-live': '' });
  readonly #said = new Set<string>();

  announce(text: string): void {
    if (this.#said.has(text)) return;
    this.#said.add(text);
    this.el.appendChild(h('div', null, text));
    while (this.el.childNodes.length > 8) this.el.firstChild!.remove();
  }

  /** A new run: anything may be said again. */
  clear(): void {
    this.#said.clear();
  }
}

/** What the live region says when `e` crosses "now", if anything. */
export function announcement(e: UiEvent): string | null {
  switch (e.type) {
    case 'state':
      return e.to === 'leader' ? `${fmtT(e.t)}: n${e.node} became leader of epoch ${e.epoch}.` : null;
    case 'crash':
      return `${fmtT(e.t)}: n${e.node} crashed.`;
    case 'restart':
      return `${fmtT(e.t)}: n${e.node} restarted.`;
    case 'violation':
      return `${fmtT(e.t)}: invariant ${e.invariant} violated. ${e.detail ?? ''}`;
    default:
      return null;
  }
}

/** The status line of the top bar: the leader, its epoch and HW, violations, unsafe switches. */
export class StatusLine {
  readonly el = h('div', { class: 'kp-status', role: 'status', 'data-leader': '' }, h('span', { class: 'kp-dot' }), h('span', { class: 'kp-status-text' }, 'Starting…'));

  constructor() {
    // its tooltip: what its words mean (the Raft names of epoch and HW)
    withMeanings(() => {
      this.el.title = [tip('epoch'), tip('hw')].join('\n\n');
    });
  }

  update(c: Cluster, nodes: NodeInfo[], violations: readonly unknown[], unsafe: string[]): void {
    let text: string;
    let leaderAttr = '';
    let leader: { id: number; epoch: number } | null = null;
    try {
      leader = c.leader();
    } catch {
      /* broken */
    }
    // an old leader that has not heard of the new epoch still acts as leader (no check-quorum)
    const leading = nodes.filter((n) => n.state === 'leader');
    if (leading.length > 1) {
      text = `${leading.length} nodes act as leader: ${leading.map((n) => `n${n.id} (epoch ${n.epoch})`).join(', ')}`;
      leaderAttr = String(leader?.id ?? '');
    } else if (leader) {
      const ln = nodes[leader.id];
      text = `Leader n${leader.id} · epoch ${leader.epoch} · HW ${ln?.hw ?? '–'}`;
      leaderAttr = String(leader.id);
    } else {
      const maxEpoch = Math.max(0, ...nodes.map((n) => n.epoch));
      text = `No leader · epoch ${maxEpoch} · electing`;
    }
    const vs = violations.length;
    if (vs) text += ` · ⚠ ${vs} violation${vs > 1 ? 's' : ''}`;
    if (unsafe.length) text += ` · unsafe: ${unsafe.join(', ')}`;
    setText(this.el.lastChild!, text);
    delete this.el.dataset.loading;
    if (this.el.dataset.leader !== leaderAttr) this.el.dataset.leader = leaderAttr;
    this.el.dataset.epoch = String(leader?.epoch ?? '');
    toggleClass(this.el, 'kp-bad', vs > 0);
  }

  /** The wasm core is not loaded yet: the controls wait for it. */
  loading(): void {
    setText(this.el.lastChild!, 'Loading the simulation core…');
    this.el.dataset.loading = '';
  }

  /** The wasm core could not be loaded: the controls stay disabled. */
  unavailable(): void {
    setText(this.el.lastChild!, 'Simulation core not loaded');
    delete this.el.dataset.loading;
    toggleClass(this.el, 'kp-bad', true);
  }

  crashed(): void {
    setText(this.el.lastChild!, 'Core crashed · start again');
    this.el.dataset.leader = '';
    toggleClass(this.el, 'kp-bad', true);
  }
}

/** The crash banner's content (crash-banner.ts's `crashBody`, which comes with the later chunk). */
export type CrashBody = (c: Cluster, url: string, startAgain: () => void) => HTMLElement;

/**
 * The banner of a crashed core (a bug): what failed, the link of the run up to its last
 * good moment (`url`) and a way to start again. Its content is built by `crashBody`,
 * which `withBody` hands over (at once when the later chunk is here, else once it arrives).
 */
export class CrashBanner {
  readonly el = h('div', { class: 'kp-crash', role: 'alert', hidden: true, 'data-crash': '' });
  readonly #withBody: (fn: (body: CrashBody) => void) => void;
  /** Counts the banners shown and cleared: a banner still waiting for its content is dropped once cleared. */
  #shown = 0;

  constructor(withBody: (fn: (body: CrashBody) => void) => void) {
    this.#withBody = withBody;
  }

  /** `url`: made with the content (the link codec comes after the first frame, before the later chunk). */
  show(c: Cluster, url: () => string, startAgain: () => void): void {
    const shown = ++this.#shown;
    this.#withBody((body) => {
      if (shown !== this.#shown) return;
      this.el.replaceChildren(body(c, url(), startAgain));
      this.el.hidden = false;
    });
  }

  clear(): void {
    this.#shown++;
    this.el.hidden = true;
    this.el.replaceChildren();
  }
}

/** What the crash handling needs of the element. */
export interface CrashHost {
  cluster(): Cluster | null;
  toast(text: string): void;
  /** Stops play and closes the menu and dialogs. */
  halt(): void;
  /** Marks the element crashed (true) or not, so its controls stop or take input again. */
  mark(on: boolean): void;
  /** The share URL of a run link. */
  runUrl(link: string): string;
  /** Runs `fn` with the banner's content builder (once the later chunk is here). */
  crashBody(fn: (body: CrashBody) => void): void;
  startAgain(): void;
  status: StatusLine;
  live: Announcer;
}

/** When something fails: a crash of the core gets the banner (and stops the controls until a new run), anything else a toast. */
export class Crashes {
  readonly banner: CrashBanner;
  #crashed = false;

  readonly #host: CrashHost;

  constructor(host: CrashHost) {
    this.#host = host;
    this.banner = new CrashBanner((fn) => host.crashBody(fn));
  }

  get crashed(): boolean {
    return this.#crashed;
  }

  /** An action or a frame failed. */
  failed(what: string, e: unknown): void {
    const c = this.#host.cluster();
    if (c?.broken) this.show(c);
    else this.#host.toast(`${what}: ${(e as Error).message}`);
  }

  /**
   * The core crashed (a bug): say so, offer the link of the run up to its last good
   * moment and a way to start again; the controls stop until then.
   */
  show(c: Cluster): void {
    if (this.#crashed) return;
    this.#crashed = true;
    this.#host.halt();
    this.banner.show(
      c,
      () => this.#host.runUrl(c.reproductionLink()),
      () => this.#host.startAgain(),
    );
    this.#host.mark(true);
    this.#host.status.crashed();
    this.#host.live.announce('The simulation core crashed; the run has stopped.');
  }

  /** A new run is on screen. */
  clear(): void {
    if (!this.#crashed) return;
    this.#crashed = false;
    this.banner.clear();
    this.#host.mark(false);
  }
}
