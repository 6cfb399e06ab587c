// Sharing and exporting a run: the link that reproduces it (the run in the URL's
// fragment), the share dialog, and the export menu (the trace as JSON or text, the
// timeline as a PNG); and the change event that keeps a page's URL in step with the run.

import type { Cluster } from '../../api.js';
import { download, fmtT, h } from '../common/dom.js';
import { icon } from '../common/icons.js';
import type { Settings } from '../playback/controls.js';
import type { LoadedScenario } from '../story/scenarios.js';
import type { Timeline } from '../timeline/timeline.js';
import { copyButton, type Dialogs } from './dialogs.js';
import type { Popup } from './popups.js';
import { changedSettings, withUnit } from './settings-note.js';

/**
 * The page URL that opens a link: the run goes in the fragment (`#run=k2...`), which
 * browsers never send to a server, so no server's limit on the query string applies.
 * `shareBase` is the page (default: this one); a scenario's id and variant go in the
 * query so its captions come back with the run.
 */
export function runUrl(shareBase: string | null, scenario: { id: string; variant: string | null } | null, link: string, speed = 1): string {
  const base = new URL(shareBase || location.href, location.href);
  base.search = '';
  base.hash = '';
  if (scenario) {
    base.searchParams.set('scenario', scenario.id);
    if (scenario.variant) base.searchParams.set('variant', scenario.variant);
  }
  // the playback speed is not part of the run: it rides in the query, as the page reads it
  if (speed !== 1) base.searchParams.set('speed', String(speed));
  base.hash = `run=${link}`;
  return base.href;
}

/** The detail of the element's `kraft-playground:change` event: what a page needs to keep its URL in step with the run. */
export interface ChangeDetail {
  /** The scenario on screen (its id and variant, the seed it was asked for), or null in free play. */
  scenario: string | null;
  variant: string | null;
  scenarioSeed: number | null;
  seed: number;
  voters: number;
  observers: number;
  network: string;
  unsafe: string[];
  /** Actions taken so far: above 0, only a share link reproduces the run. */
  actions: number;
  /**
   * Whether the fields above (scenario, variant and its seed; or seed, sizes and network)
   * reproduce the run: no actions taken, no safety switch off but a story's own, every
   * setting at its default in free play. Else only a share link ({@link KraftPlayground.shareUrl}) does.
   */
  byParameters: boolean;
}

export function changeDetail(scenario: LoadedScenario | null, settings: Settings, unsafe: string[], c: Cluster | null): ChangeDetail {
  const actions = c ? c.inputs().length : 0;
  const ownUnsafe = scenario?.ownUnsafe ?? [];
  const plainRules = unsafe.every((u) => ownUnsafe.includes(u));
  const plainSettings = !c || !!scenario || changedSettings(c).length === 0;
  return {
    scenario: scenario?.id ?? null,
    variant: scenario?.variant ?? null,
    scenarioSeed: scenario?.seed ?? null,
    seed: settings.seed,
    voters: settings.voters,
    observers: settings.observers,
    network: settings.network,
    unsafe,
    actions,
    byParameters: actions === 0 && plainRules && plainSettings,
  };
}

/** A link to share, read-only and selectable, with its copy button and a way to open it. */
function linkRow(url: string, label: string, attrs: Record<string, string>): { input: HTMLInputElement; row: HTMLElement } {
  const input = h('input', { class: 'kp-share-url', type: 'text', readonly: true, value: url, 'aria-label': label, ...attrs });
  const row = h('div', { class: 'kp-row' }, copyButton(input, 'Copy link'), h('a', { href: url, target: '_blank', rel: 'noopener' }, 'Open in a new tab'));
  return { input, row };
}

/**
 * The share dialog: the link of `c`'s run up to now (`url`), what it carries, a copy
 * button; after a travel back in time (`whole`: the run up to the latest moment it
 * reached), that link too, so either can be shared.
 */
export function openShare(dialogs: Dialogs, c: Cluster, url: string, whole: { url: string; t: number } | null): void {
  const here = linkRow(url, whole ? 'Share link up to here' : 'Share link', { 'data-share-url': '' });
  const changed = changedSettings(c).map(({ key, value, limit }) => `${key} = ${withUnit(value, limit)}`);
  const settings = changed.length ? `the settings (${changed.join(', ')})` : 'the settings';
  const carries = `the seed (${c.seed}), ${settings} and the ${c.inputs().length} action(s) you took`;
  const body: HTMLElement[] = [];
  if (whole) {
    const all = linkRow(whole.url, 'Share link to the whole run', { 'data-share-whole': '' });
    body.push(
      h('h3', null, `Up to here (${fmtT(c.now)})`),
      h('p', null, `This moment: ${carries} so far. Whoever opens it gets the same run, event for event (trace digest ${c.digest()}).`),
      here.input,
      here.row,
      h('h3', null, `The whole run (to ${fmtT(whole.t)})`),
      h('p', null, `Everything recorded, ${c.futureInputs().length} action(s) after this moment included, opened at its end.`),
      all.input,
      all.row,
    );
  } else {
    body.push(h('p', null, `The link carries ${carries}, up to ${fmtT(c.now)}. Whoever opens it gets the same run, event for event (trace digest ${c.digest()}).`), here.input, here.row);
  }
  dialogs.open('Share this run', ...body);
  here.input.select();
}

/** What sharing reads of the element: the run on screen and the element itself (its `share-base`, the target of its events). */
export interface ShareHost {
  el: HTMLElement;
  cluster(): Cluster | null;
  scenario(): LoadedScenario | null;
  settings(): Settings;
  unsafe(): string[];
  speed(): number;
  /** The latest moment of the run recorded (after a travel back, later than now). */
  horizon(): number;
  dialogs(): Dialogs;
}

/** The run on screen as a link: the share URL and dialog, and the `kraft-playground:change` event that keeps a page's URL in step. */
export class Sharing {
  readonly #host: ShareHost;

  constructor(host: ShareHost) {
    this.#host = host;
  }

  /** How many actions the run had when the page was last told of it. */
  emittedActions = -1;

  /** Tells the page which run is on screen. */
  emitChange(): void {
    const host = this.#host;
    const detail = changeDetail(host.scenario(), host.settings(), host.unsafe(), host.cluster());
    this.emittedActions = detail.actions;
    host.el.dispatchEvent(new CustomEvent('kraft-playground:change', { bubbles: true, composed: true, detail }));
  }

  /** The URL that reproduces this run. */
  url(): string {
    const c = this.#host.cluster();
    if (!c) return '';
    return this.runUrl(c.toLink());
  }

  /** The URL of a run link (`link`) on this page. */
  runUrl(link: string): string {
    return runUrl(this.#host.el.getAttribute('share-base'), this.#host.scenario(), link, this.#host.speed());
  }

  open(): void {
    const c = this.#host.cluster();
    if (!c) return;
    const end = this.#host.horizon();
    const whole = end > c.now ? { url: this.runUrl(c.toLink({ until: end })), t: end } : null;
    openShare(this.#host.dialogs(), c, this.url(), whole);
  }
}

export interface ExportHost {
  cluster(): Cluster | null;
  /** The id of the scenario on screen, if any (it names the files). */
  scenarioId(): string | null;
  timeline: Timeline;
}

/** The Export button and its menu. */
export class ExportMenu {
  readonly #button = h(
    'button',
    { class: 'kp-btn', type: 'button', 'aria-haspopup': 'true', 'aria-expanded': 'false', 'data-action': 'export', 'aria-label': 'Export' },
    icon('download'),
    h('span', { class: 'kp-btn-label' }, 'Export'),
  );
  readonly #menu: HTMLDivElement;
  readonly el: HTMLDivElement;
  readonly #host: ExportHost;

  constructor(host: ExportHost) {
    this.#host = host;
    this.#menu = h(
      'div',
      { class: 'kp-export-menu', hidden: true, role: 'menu' },
      menuItem('Trace as JSON', () => this.#json()),
      menuItem('Trace as text', () => this.#text()),
      menuItem('Timeline as PNG', () => this.#png()),
    );
    this.#button.addEventListener('click', () => {
      this.#menu.hidden = !this.#menu.hidden;
      this.#button.setAttribute('aria-expanded', String(!this.#menu.hidden));
    });
    // an item's action done, the menu closes and focus goes back to its button (not lost with the hidden item)
    this.#menu.addEventListener('click', () => this.close(true));
    this.el = h('div', { class: 'kp-export' }, this.#button, this.#menu);
  }

  /** Closes the menu; `returnFocus` (Escape, an item chosen) puts focus back on its button. */
  close(returnFocus = false): void {
    if (this.#menu.hidden) return;
    const inside = this.#menu.contains((this.el.getRootNode() as ShadowRoot | Document).activeElement);
    this.#menu.hidden = true;
    this.#button.setAttribute('aria-expanded', 'false');
    if (returnFocus && inside) this.#button.focus({ preventScroll: true });
  }

  /** A pointer went down somewhere (`path`): outside the menu and its button, that closes it. */
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
    const canvas = this.#host.timeline.exportCanvas(Math.max(2, Math.min(3, window.devicePixelRatio || 1)));
    canvas.toBlob((b) => {
      if (b) download(`${this.#fileBase(c)}-timeline.png`, b);
    }, 'image/png');
  }
}

function menuItem(label: string, fn: () => void): HTMLButtonElement {
  const b = h('button', { class: 'kp-btn', type: 'button', role: 'menuitem' }, label);
  b.addEventListener('click', fn);
  return b;
}
