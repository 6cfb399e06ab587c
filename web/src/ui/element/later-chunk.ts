// The later chunk (later.ts) in the element: loaded at an idle moment after the first
// frame, or at once when something in it is asked for sooner (a failed load is tried
// again at the next ask), with its stylesheet; its parts are then built and put in place
// (later-mount.ts, which comes with it) while the slots here hold the panels' places.

import { Cluster } from '../../api.js';
import { h } from '../common/dom.js';
import type { LaterHost, LaterParts } from './later-mount.js';

export type { LaterHost, LaterParts };

/** How long after the first frame the later chunk may wait for an idle moment, in ms. */
const LATER_WITHIN_MS = 300;

export class LaterChunk {
  /** The chunk's parts, once loaded and in place (null until then). */
  parts: LaterParts | null = null;
  /** Where the quorum and invariants panels go when they arrive. */
  readonly slots = {
    quorum: h('div', { 'data-later': 'quorum' }),
    invariants: h('div', { 'data-later': 'invariants' }),
    changes: h('div', { 'data-later': 'changes' }),
    settings: h('div', { 'data-later': 'settings' }),
    network: h('div', { 'data-later': 'network' }),
  };
  #load: Promise<LaterParts> | null = null;
  readonly #host: LaterHost;

  constructor(host: LaterHost) {
    this.#host = host;
  }

  /** Loads the later chunk (once; a failed load is tried again at the next ask) and puts its parts in place. */
  load(): Promise<LaterParts> {
    if (!this.#load) {
      // the parts go in place once their styles have applied, and the share-link codec
      // that sharing, exporting and the crash report use is here
      const p = Promise.all([import('../later.js'), this.#host.styles(), Cluster.__initLinks()]).then(([module]) => {
        this.parts = module.mount(this.slots, this.#host);
        this.#host.mounted(this.parts);
        return this.parts;
      });
      p.catch(() => {
        if (this.#load === p) this.#load = null;
      });
      this.#load = p;
    }
    return this.#load;
  }

  /** Runs `fn` once the later chunk is here: at once when it is, else when it arrives (nothing asked for is dropped). */
  with(what: string, fn: (parts: LaterParts) => void): void {
    if (this.parts) {
      fn(this.parts);
      return;
    }
    this.load().then(fn, (e: Error) => this.#host.toast(`${what} could not be loaded: ${e.message}`));
  }

  /** After the first frame, at an idle moment: `first`, then the later chunk, so that nothing the reader reaches for waits on it. */
  loadSoon(first: () => void): void {
    requestAnimationFrame(() => {
      const load = () => {
        first();
        void this.load().catch(() => {});
      };
      if (typeof requestIdleCallback === 'function') requestIdleCallback(load, { timeout: LATER_WITHIN_MS });
      else setTimeout(load, 0);
    });
  }
}
