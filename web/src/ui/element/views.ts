// The element's views (the timeline, the cluster ring, the logs, the faults panels, the
// playback controls), each built with the narrow host it needs from one host the element
// provides; and the host of the quorum and invariants panels, which come later (later.ts).

import type { Baseline, Cluster, LeaderChange } from '../../api.js';
import type { Store } from '../common/store.js';
import type { Theme } from '../common/theme.js';
import type { NodeInfo, QuorumInfo, UiEventOf } from '../common/types.js';
import { FaultsPanel, type NetworkProfile, type PanelHost } from '../panels/faults.js';
import { ImagesSlot } from '../panels/images-slot.js';
import { LogsSlot } from '../panels/logs-slot.js';
import { Controls, type Settings } from '../playback/controls.js';
import type { Playback } from '../playback/playback.js';
import { Ring } from '../ring/ring.js';
import { Timeline } from '../timeline/timeline.js';

export interface ViewsHost {
  now(): number;
  theme(): Theme;
  cluster(): Cluster | null;
  nodes(): NodeInfo[];
  quorum(): QuorumInfo | null;
  downLinks(): [number, number][];
  /** Runs an action on the cluster (see the element's `act`). */
  act(what: string, fn: (c: Cluster) => unknown): unknown;
  /** A client write at the leader, with a toast that says how it went. */
  write(): void;
  /** A node's button on the ring was tapped. */
  openNode(id: number, anchor: HTMLElement): void;
  unsafe(): string[];
  setUnsafe(list: string[]): void;
  /** the invariant violations up to now */
  violations(): readonly UiEventOf<'violation'>[];
  showViolation(v: UiEventOf<'violation'>): void;
  settings(): Settings;
  applySettings(s: Settings): void;
  reset(): void;
  /** The run's leader changes, measured by the core (the timeline marks them). */
  leaderChanges(): readonly LeaderChange[];
  /** Runs `fn` once the later chunk is here (at once when it is). */
  later(what: string, fn: () => void): void;
}

export interface Views {
  timeline: Timeline;
  ring: Ring;
  /** The logs' place; the logs themselves come with the later chunk. */
  logs: LogsSlot;
  /** The metadata images' place; the block itself comes with the later chunk. */
  images: ImagesSlot;
  faults: FaultsPanel;
  /** What the panels read of the run (the quorum and invariants panels too, once loaded). */
  panelHost: PanelHost;
  controls: Controls;
}

export function buildViews(store: Store, play: Playback, host: ViewsHost): Views {
  const drawing = { now: () => host.now(), theme: () => host.theme() };
  const timeline = new Timeline(store, {
    ...drawing,
    seek: (t) => play.seek(t),
    nodeLabel: (n) => `n${n}`,
    isObserver: (n) => host.nodes()[n]?.role === 'observer',
    explain: (seq) => host.cluster()?.explain(seq) ?? null,
    failovers: () => host.leaderChanges(),
    later: (what, fn) => host.later(what, fn),
  });
  const records = (id: number, from: number, limit: number) => {
    try {
      const c = host.cluster();
      return c ? c.log(id, { from, limit }) : [];
    } catch {
      return [];
    }
  };
  const ring = new Ring(store, {
    ...drawing,
    nodes: () => host.nodes(),
    openNode: (id, anchor) => host.openNode(id, anchor),
    hiddenGroups: () => timeline.hiddenGroups,
    downLinks: () => host.downLinks(),
    records,
    explain: (seq) => host.cluster()?.explain(seq) ?? null,
    showExplain: (title, event, why, x, y, opener) => host.later('The explanation', () => timeline.explainer?.show(title, event, why, x, y, opener)),
  });
  const logs = new LogsSlot({
    ...drawing,
    nodes: () => host.nodes(),
    lastHw: (id) => {
      const now = host.now();
      return store.present(now).stateAt(id, now)?.hw ?? null;
    },
    truncated: (id, t0, t1) => store.present(host.now()).truncated(id, t0, t1),
    records,
  });
  const images = new ImagesSlot({
    nodes: () => host.nodes(),
    image: (id, limit) => host.cluster()?.image(id, { limit }) ?? null,
  });
  // a cluster's options and baseline never change: read once per cluster
  const stableChecked = new WeakMap<object, boolean>();
  const baselines = new WeakMap<Cluster, Baseline>();
  const panelHost: PanelHost = {
    now: () => host.now(),
    nodes: () => host.nodes(),
    quorum: () => host.quorum(),
    downLinks: () => host.downLinks(),
    linkFaults: () => host.cluster()?.linkFaults() ?? null,
    baseline: () => {
      const c = host.cluster();
      if (!c) return null;
      if (!baselines.has(c)) baselines.set(c, c.baseline());
      return baselines.get(c) ?? null;
    },
    act: (what: string, fn: (c: Cluster) => unknown) => host.act(what, fn),
    write: () => host.write(),
    network: (): NetworkProfile => {
      const c = host.cluster();
      return c ? c.network() : { latencyMs: [60, 140], loss: 0, duplicate: 0 };
    },
    setNetwork: (p: NetworkProfile) => host.act('network', (c) => c.setNetwork(p)),
    workload: () => {
      const c = host.cluster();
      return c ? c.writesPerSecond : 0;
    },
    setWorkload: (w: number) => host.act('workload', (c) => c.setWorkload({ writesPerSecond: w })),
    unsafe: () => host.unsafe(),
    setUnsafe: (list: string[]) => host.setUnsafe(list),
    violations: () => host.violations(),
    showViolation: (v: UiEventOf<'violation'>) => host.showViolation(v),
    checksStableLeadership: () => {
      const c = host.cluster();
      if (!c) return false;
      let on = stableChecked.get(c);
      if (on === undefined) {
        on = !!c.options.stableLeadership;
        stableChecked.set(c, on);
      }
      return on;
    },
  };
  const controls = new Controls(
    {
      playing: () => play.playing,
      setPlaying: (on) => play.setPlaying(on),
      step: () => play.step(),
      speed: () => play.speed,
      setSpeed: (s) => play.setSpeed(s),
      now: () => host.now(),
      horizon: () => play.horizon,
      seek: (t) => play.seek(t),
      reset: () => host.reset(),
      settings: () => host.settings(),
      applySettings: (s) => host.applySettings(s),
      randomSeed: () => Math.floor(Math.random() * 1_000_000),
    },
    false,
  );
  return {
    timeline,
    ring,
    logs,
    images,
    faults: new FaultsPanel(panelHost),
    panelHost,
    controls,
  };
}
