// The logs panel's place until the logs' code arrives with the later chunk (later.ts):
// it keeps what the element tells the logs before then (the story's record names, the
// width) and hands it over, so the first frame waits for none of that code.

import { h } from '../common/dom.js';
import type { NodeInfo } from '../common/types.js';
import type { Logs, LogsHost } from './logs.js';

type RecordNames = Record<string, { offset: number; epoch: number }>;

export class LogsSlot {
  readonly #place = h('div', { class: 'kp-logs' });
  #logs: Logs | null = null;
  #names: RecordNames = {};
  #width: number | null = null;
  /** Called when the logs need drawing again (the element then asks for a frame). */
  onChange: () => void = () => {};

  constructor(private readonly host: LogsHost) {}

  /** The logs once they are here, else their empty place in the panel. */
  get el(): HTMLElement {
    return this.#logs?.el ?? this.#place;
  }

  /** Puts the logs (their class, from the later chunk) in their place, told what they missed. */
  mount(LogsView: typeof Logs): void {
    const logs = new LogsView(this.host);
    logs.onChange = () => this.onChange();
    logs.setRecordNames(this.#names);
    if (this.#width !== null) logs.resize(this.#width);
    this.#place.replaceWith(logs.el);
    this.#logs = logs;
    this.onChange();
  }

  /** The records a story names (none in free play). */
  setRecordNames(names: RecordNames): void {
    this.#names = names;
    this.#logs?.setRecordNames(names);
  }

  resize(w: number): void {
    this.#width = w;
    this.#logs?.resize(w);
  }

  invalidate(): void {
    this.#logs?.invalidate();
  }

  reload(): void {
    this.#logs?.reload();
  }

  frame(): void {
    this.#logs?.frame();
  }

  describe(nodes: NodeInfo[]): string[] {
    return this.#logs?.describe(nodes) ?? [];
  }
}
