// Calls a page makes on `el.cluster` itself (`cluster.crash(0)`, `advance`, `seek`) while
// the element is paused: nothing of the element's own asked for a frame, so this draws
// them, once the page's script is done. Playing, the next frame shows them anyway.

import type { Cluster } from '../../api.js';

export interface PageCallsHost {
  cluster(): Cluster | null;
  playing(): boolean;
  /** The player reads what happened; the panels follow. */
  refresh(): void;
  /** How many actions the run had when the page was last told of it (its change event). */
  emittedActions(): number;
  emitChange(): void;
  /** Asks for a frame. */
  request(): void;
}

export class PageCalls {
  readonly #host: PageCallsHost;
  /** A call is waiting to be drawn (one microtask draws all of a script's calls). */
  #pending = false;

  constructor(host: PageCallsHost) {
    this.#host = host;
  }

  /** A call moved `c` (its time or its input log): drawn after the script that made it, if paused. */
  moved(c: Cluster): void {
    if (this.#pending || this.#host.playing()) return;
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      const host = this.#host;
      if (host.cluster() !== c || c.broken) return;
      host.refresh();
      // an action of the page's own: the page's address and listeners follow the run
      if (c.inputs().length !== host.emittedActions()) host.emitChange();
      host.request();
    });
  }
}
