// Putting the later chunk's parts in place (it comes with that chunk, later.ts; the
// element's later-chunk.ts loads it): the quorum, invariants, network, leader-changes and
// settings panels into the slots that hold their places, the logs and the metadata images
// into theirs, the timeline's failover marks, hit-testing and explain popover, the node
// menu and the summary beside the live region, the image card over the ring, the export
// menu beside its button; the dialogs (help, share), the crash banner's content and the
// completion card wait there until asked for.

import type { Cluster, LeaderChange } from '../../api.js';
import type { Store } from '../common/store.js';
import type { NodeInfo } from '../common/types.js';
import { Images } from '../panels/images.js';
import { LeaderChangesPanel } from '../panels/leader-changes.js';
import { Logs } from '../panels/logs.js';
import { NetworkPanel } from '../panels/network.js';
import { SettingsPanel } from '../panels/settings.js';
import { InvariantsPanel, QuorumPanel } from '../panels/state-panels.js';
import { Summary } from '../panels/summary.js';
import { ImageCard } from '../ring/image-card.js';
import { NodeMenu } from '../ring/node-menu.js';
import { crashBody } from '../shell/crash-banner.js';
import { Dialogs } from '../shell/dialogs.js';
import { ExportMenu } from '../shell/export-menu.js';
import { openHelp } from '../shell/help.js';
import { openShare } from '../shell/share-dialog.js';
import * as card from '../story/card.js';
import { ExplainPopover } from '../timeline/explain.js';
import { drawFailovers } from '../timeline/failovers.js';
import * as pointer from '../timeline/pointer.js';
import type { Tuning } from './runs.js';
import type { Views } from './views.js';

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
  /**
   * The parts are in place: the panels show the run at once (not only at the next frame
   * that redraws them, up to a tenth of a second later while playing), and a frame is
   * asked for (the other parts draw in it).
   */
  mounted(parts: LaterParts): void;
  /** The run's leader changes, measured by the core. */
  leaderChanges(): readonly LeaderChange[];
  seek(t: number): void;
  /** The settings of the run on screen, and starting again with others. */
  tuning(): Tuning;
  applyTuning(t: Tuning): void;
  inStory(): boolean;
}

/** The places the panels hold until they arrive (the element lays them out). */
export interface LaterSlots {
  quorum: HTMLElement;
  invariants: HTMLElement;
  changes: HTMLElement;
  settings: HTMLElement;
  network: HTMLElement;
}

/** The later chunk's parts, once in place. */
export interface LaterParts {
  menu: NodeMenu;
  summary: Summary;
  quorum: QuorumPanel;
  invariants: InvariantsPanel;
  changes: LeaderChangesPanel;
  settings: SettingsPanel;
  network: NetworkPanel;
  imageCard: ImageCard;
  dialogs: Dialogs;
  exportMenu: ExportMenu;
  openHelp: typeof openHelp;
  openShare: typeof openShare;
  crashBody: typeof crashBody;
  card: typeof card;
}

/** Builds the parts and puts them in place (the slots' elements are replaced). */
export function mount(slots: LaterSlots, host: LaterHost): LaterParts {
  const views = host.views();
  const panelHost = views.panelHost;
  const quorum = new QuorumPanel(panelHost);
  const invariants = new InvariantsPanel(panelHost);
  const changes = new LeaderChangesPanel({ leaderChanges: () => host.leaderChanges(), seek: (t) => host.seek(t) });
  const settings = new SettingsPanel({ tuning: () => host.tuning(), applyTuning: (t) => host.applyTuning(t), inStory: () => host.inStory() });
  settings.sync();
  slots.quorum.replaceWith(quorum.el);
  slots.invariants.replaceWith(invariants.el);
  slots.changes.replaceWith(changes.el);
  slots.settings.replaceWith(settings.el);
  const network = new NetworkPanel(panelHost, views.faults);
  // inert while the core loads, as its place was
  network.el.inert = slots.network.inert;
  slots.network.replaceWith(network.el);
  views.faults.mountNetwork(network);
  const menu = new NodeMenu({
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
    membershipLocked: () => {
      const o = host.cluster()?.options;
      if (!o || o.quorum === 'dynamic') return null;
      // KIP-853: only a quorum bootstrapped with kraft.version 1 (3.9 and later, dynamic) takes AddRaftVoter/RemoveRaftVoter
      return (o.kafkaRelease ?? 'legacy') === 'legacy'
        ? 'This run models no Kafka release: voters change only in a dynamic quorum, Kafka 3.9 and later (Settings)'
        : 'A static quorum: controller.quorum.voters fixes the voters (kraft.version 0); choose a dynamic quorum in Settings';
    },
    lastSeq: () => host.cluster()?.lastSeq ?? 0,
    adminAnswer: (since, voter) => {
      const c = host.cluster();
      if (!c) return { answer: null, scanned: since };
      // a page a frame: reopening the menu long after the request reads the run in steps
      const events = c.events({ since, limit: 5_000, text: false });
      const answer = events.find((e) => e.type === 'admin' && e.voter === voter);
      return { answer: answer?.type === 'admin' ? { seq: answer.seq, error: answer.error } : null, scanned: events.at(-1)?.seq ?? since };
    },
  });
  views.logs.mount(Logs);
  views.images.mount(Images);
  views.timeline.drawFailovers = drawFailovers;
  views.timeline.mountPointing({ pointer, explainer: new ExplainPopover() });
  views.timeline.invalidate();
  const summary = new Summary(host.store, views.timeline, views.logs);
  const imageCard = new ImageCard({
    image: (id, limit) => host.cluster()?.image(id, { limit }) ?? null,
    ring: () => views.ring.size(),
    reserve: (px) => views.ring.reserveTop(px),
    showAll: () => views.images.showAll(),
  });
  views.ring.el.append(imageCard.el);
  host.live().before(menu.el);
  host.live().after(summary.el);
  const dialogs = new Dialogs(host.root());
  const exportMenu = new ExportMenu({ cluster: () => host.cluster(), scenarioId: () => host.scenarioId(), timeline: views.timeline }, host.exportBox());
  return { menu, summary, quorum, invariants, changes, settings, network, imageCard, dialogs, exportMenu, openHelp, openShare, crashBody, card };
}
