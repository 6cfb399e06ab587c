// The later chunk (later.ts) in the element: loaded at an idle moment after the first
// frame, or at once when something in it is asked for sooner (a failed load is tried
// again at the next ask), and its parts built and put in place: the quorum, invariants,
// leader-changes and settings panels into the slots that hold their places, the logs into theirs, the
// node menu and the summary beside the live region, the image card over the ring, the
// export menu beside its button; the dialogs (help, share) and the crash banner's
// content wait there until asked for.

import type { Cluster, LeaderChange } from '../../api.js';
import { h } from '../common/dom.js';
import type { Store } from '../common/store.js';
import type { NodeInfo } from '../common/types.js';
import type { Tuning } from './runs.js';
import type { Views } from './views.js';

/** The chunk of what the first frame does not need (later.ts). */
type Later = typeof import('../later.js');
export type LaterParts = {
  menu: InstanceType<Later['NodeMenu']>;
  summary: InstanceType<Later['Summary']>;
  quorum: InstanceType<Later['QuorumPanel']>;
  invariants: InstanceType<Later['InvariantsPanel']>;
  changes: InstanceType<Later['LeaderChangesPanel']>;
  settings: InstanceType<Later['SettingsPanel']>;
  network: InstanceType<Later['NetworkPanel']>;
  imageCard: InstanceType<Later['ImageCard']>;
  dialogs: InstanceType<Later['Dialogs']>;
  exportMenu: InstanceType<Later['ExportMenu']>;
  openHelp: Later['openHelp'];
  openShare: Later['openShare'];
  crashBody: Later['crashBody'];
  card: Later['card'];
};
/** How long after the first frame the later chunk may wait for an idle moment, in ms. */
const LATER_WITHIN_MS = 300;

/** What the later chunk's parts need of the element. */
export interface LaterHost {
  views(): Views;
  store: Store;
  nodes(): NodeInfo[];
  cluster(): Cluster | null;
  now(): number;
  /** Runs an action on the cluster (see the element's `act`). */
  act(what: string, fn: (c: Cluster) => unknown): unknown;
  /** A client write at the leader, with a toast that says how it went. */
  write(): void;
  /** The live region: the node menu goes before it, the summary after it. */
  live(): HTMLElement;
  /** The root of the element's shadow tree: the dialogs open in it. */
  root(): HTMLElement;
  /** Loads the stylesheet of the chunk's parts (kraft-playground-later.css); resolves once it has applied, or failed. */
  styles(): Promise<void>;
  /** The Export button's box: its menu goes in it. */
  exportBox(): HTMLElement;
  /** The id of the scenario on screen, if any (it names the exported files). */
  scenarioId(): string | null;
  toast(text: string): void;
  /** Asks for a frame (the parts just put in place draw in it). */
  request(): void;
  /** The run's leader changes, measured by the core. */
  leaderChanges(): readonly LeaderChange[];
  seek(t: number): void;
  /** The settings of the run on screen, and starting again with others. */
  tuning(): Tuning;
  applyTuning(t: Tuning): void;
  inStory(): boolean;
}

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
      // the parts go in place once their styles have applied
      const p = Promise.all([import('../later.js'), this.#host.styles()]).then(([module]) => this.#mount(module));
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

  #mount(module: Later): LaterParts {
    const host = this.#host;
    const views = host.views();
    const panelHost = views.panelHost;
    const quorum = new module.QuorumPanel(panelHost);
    const invariants = new module.InvariantsPanel(panelHost);
    const changes = new module.LeaderChangesPanel({ leaderChanges: () => host.leaderChanges(), seek: (t) => host.seek(t) });
    const settings = new module.SettingsPanel({ tuning: () => host.tuning(), applyTuning: (t) => host.applyTuning(t), inStory: () => host.inStory() });
    settings.sync();
    this.slots.quorum.replaceWith(quorum.el);
    this.slots.invariants.replaceWith(invariants.el);
    this.slots.changes.replaceWith(changes.el);
    this.slots.settings.replaceWith(settings.el);
    const network = new module.NetworkPanel(panelHost, views.faults);
    // inert while the core loads, as its place was
    network.el.inert = this.slots.network.inert;
    this.slots.network.replaceWith(network.el);
    views.faults.mountNetwork(network);
    const menu = new module.NodeMenu({
      nodes: () => host.nodes(),
      isolated: () => host.cluster()?.linkFaults().isolated ?? [],
      now: () => host.now(),
      act: (what, fn) => host.act(what, fn),
      write: () => host.write(),
      stateSeq: (id) => {
        const now = host.now();
        return host.store.present(now).stateAt(id, now)?.seq ?? -1;
      },
      explain: (seq) => host.cluster()?.explain(seq) ?? null,
    });
    views.logs.mount(module.Logs);
    views.timeline.drawFailovers = module.drawFailovers;
    views.timeline.mountPointing({ hitAt: module.hitAt, allHits: module.allHits, stepHits: module.stepHits, explainer: new module.ExplainPopover() });
    views.timeline.invalidate();
    const summary = new module.Summary(host.store, views.timeline, views.logs);
    const imageCard = new module.ImageCard({
      image: (id, limit) => host.cluster()?.image(id, { limit }) ?? null,
      ring: () => views.ring.size(),
      reserve: (px) => views.ring.reserveTop(px),
      showAll: () => views.images.showAll(),
    });
    views.ring.el.append(imageCard.el);
    host.live().before(menu.el);
    host.live().after(summary.el);
    const dialogs = new module.Dialogs(host.root());
    const exportMenu = new module.ExportMenu({ cluster: () => host.cluster(), scenarioId: () => host.scenarioId(), timeline: views.timeline }, host.exportBox());
    this.parts = {
      menu,
      summary,
      quorum,
      invariants,
      changes,
      settings,
      network,
      imageCard,
      dialogs,
      exportMenu,
      openHelp: module.openHelp,
      openShare: module.openShare,
      crashBody: module.crashBody,
      card: module.card,
    };
    host.request();
    return this.parts;
  }
}
