// Sharing and exporting a run: the link that reproduces it (the run in the URL's
// fragment), the Export button, and the change event that keeps a page's URL in step
// with the run. The share dialog (share-dialog.ts) and the export menu (export-menu.ts)
// come with the later chunk (later.ts).

import type { Cluster } from '../../api.js';
import { h } from '../common/dom.js';
import { icon } from '../common/icons.js';
import type { Settings } from '../playback/controls.js';
import type { LoadedScenario } from '../story/scenarios.js';
import { changedSettings, releaseSetting } from './settings-note.js';

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
  const plainSettings = !c || !!scenario || (changedSettings(c).length === 0 && releaseSetting(c) === null);
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
}

/** Opens the share dialog (share-dialog.ts's `openShare`, its dialogs given). */
export type ShowShare = (c: Cluster, url: string, whole: { url: string; t: number } | null) => void;

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

  /** The share dialog of the run on screen (`show`: the dialog, which comes with the later chunk). */
  open(show: ShowShare): void {
    const c = this.#host.cluster();
    if (!c) return;
    const end = this.#host.horizon();
    const whole = end > c.now ? { url: this.runUrl(c.toLink({ until: end })), t: end } : null;
    show(c, this.url(), whole);
  }
}

/** The Export button, in its box; its menu (export-menu.ts) comes with the later chunk and goes in the box beside it. */
export function exportButton(onClick: () => void): HTMLDivElement {
  const button = h(
    'button',
    { class: 'kp-btn', type: 'button', 'aria-haspopup': 'true', 'aria-expanded': 'false', 'data-action': 'export', 'aria-label': 'Export' },
    icon('download'),
    h('span', { class: 'kp-btn-label' }, 'Export'),
  );
  button.addEventListener('click', onClick);
  return h('div', { class: 'kp-export' }, button);
}
