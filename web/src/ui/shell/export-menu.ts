// The export menu (the trace as JSON or text, the timeline as a PNG): built beside its
// button (share.ts's exportButton) when the later chunk (later.ts) arrives.

import type { Cluster } from '../../api.js';
import { download, h } from '../common/dom.js';
import { GUTTER } from '../timeline/geometry.js';
import type { Timeline } from '../timeline/timeline.js';
import type { Popup } from './popups.js';

export interface ExportHost {
  cluster(): Cluster | null;
  /** The id of the scenario on screen, if any (it names the files). */
  scenarioId(): string | null;
  timeline: Timeline;
}

/** The Export button's menu: put in its box (`el`, with the button) when it arrives. */
export class ExportMenu {
  readonly #button: HTMLButtonElement;
  readonly #menu: HTMLDivElement;
  readonly el: HTMLElement;
  readonly #host: ExportHost;

  constructor(host: ExportHost, el: HTMLElement) {
    this.#host = host;
    this.el = el;
    this.#button = el.querySelector('button') as HTMLButtonElement;
    this.#menu = h(
      'div',
      { class: 'kp-export-menu', hidden: true, role: 'menu' },
      menuItem('Trace as JSON', () => this.#json()),
      menuItem('Trace as text', () => this.#text()),
      menuItem('Timeline as PNG', () => this.#png()),
    );
    // an item's action done, the menu closes and focus goes back to its button (not lost with the hidden item)
    this.#menu.addEventListener('click', () => this.close(true));
    el.append(this.#menu);
  }

  /** Opens the menu, or closes it (its button's click). */
  toggle(): void {
    this.#menu.hidden = !this.#menu.hidden;
    this.#button.setAttribute('aria-expanded', String(!this.#menu.hidden));
  }

  /** Closes the menu; `returnFocus` (Escape, an item chosen) puts focus back on its button. */
  close(returnFocus = false): void {
    if (this.#menu.hidden) return;
    const inside = this.#menu.contains((this.el.getRootNode() as ShadowRoot | Document).activeElement);
    this.#menu.hidden = true;
    this.#button.setAttribute('aria-expanded', 'false');
    if (returnFocus && inside) this.#button.focus({ preventScroll: true });
  }

  /** The menu as a popup a tap elsewhere closes (its button counts as inside). */
  readonly popup: Popup = {
    open: () => !this.#menu.hidden,
    inside: (path) => path.includes(this.#menu) || path.includes(this.#button),
    close: () => this.close(),
  };

  #fileBase(c: Cluster): string {
    return `kraft-${this.#host.scenarioId() ?? 'run'}-seed${c.seed}-${c.now}ms`;
  }

  #json(): void {
    const c = this.#host.cluster();
    if (!c) return;
    download(`${this.#fileBase(c)}.json`, new Blob([JSON.stringify({ link: c.toLink(), digest: c.digest(), options: c.options, events: c.events() }, null, 1)], { type: 'application/json' }));
  }

  #text(): void {
    const c = this.#host.cluster();
    if (!c) return;
    download(`${this.#fileBase(c)}.txt`, new Blob([c.text()], { type: 'text/plain' }));
  }

  #png(): void {
    const c = this.#host.cluster();
    if (!c) return;
    // the whole run, at the screen's density (at least 2x, for print)
    const canvas = wholeRun(this.#host.timeline, Math.max(2, Math.min(3, window.devicePixelRatio || 1)));
    canvas.toBlob((b) => {
      if (b) download(`${this.#fileBase(c)}-timeline.png`, b);
    }, 'image/png');
  }
}

/** The widest PNG export, in device pixels (browsers refuse much larger canvases). */
const MAX_EXPORT_PX = 16_000;

/**
 * The whole run (t = 0 to its end) on a canvas of its own, `scale` device px per CSS
 * px: at the timeline's current zoom where that fits in MAX_EXPORT_PX, else zoomed out
 * to fit. The timeline on screen keeps its window.
 */
export function wholeRun(tl: Timeline, scale: number): HTMLCanvasElement {
  const g = tl.geo;
  const saved = { w: g.w, t0: g.t0, msPerPx: g.msPerPx };
  const now = tl.host.now();
  const span = Math.max(tl.lanes?.horizon ?? 0, now, 1000) * 1.02;
  const out = document.createElement('canvas');
  try {
    g.msPerPx = Math.max(g.msPerPx, span / (Math.floor(MAX_EXPORT_PX / scale) - GUTTER));
    g.t0 = 0;
    g.w = GUTTER + Math.ceil(span / g.msPerPx);
    const [t0, t1] = g.window();
    tl.draw(now, tl.store.window(t0, t1, now), out, scale);
  } finally {
    Object.assign(g, saved);
    tl.dirty = true;
  }
  return out;
}

function menuItem(label: string, fn: () => void): HTMLButtonElement {
  const b = h('button', { class: 'kp-btn', type: 'button', role: 'menuitem' }, label);
  b.addEventListener('click', fn);
  return b;
}
