// Making the runs the element shows: from a share link (with its scenario's captions, if
// the link names one), or free play from settings; and which run is on screen, chosen how.
// Loading a scenario is scenarios.ts's.

import { Cluster, type KafkaRelease } from '../../api.js';
import type { Settings } from '../playback/controls.js';
import type { Notices } from '../shell/messages.js';
import type { ScenarioPicker } from '../story/picker.js';
import { findScenario, type LoadedScenario, loadScenario, openableScenario, scenarioList } from '../story/scenarios.js';
import { stopAt } from '../story/story.js';
import { DEFAULTS, show } from './attributes.js';

/**
 * What a free-play run is tuned with besides its settings: config keys (Kafka's
 * `controller.quorum.*`, the simulator's `sim.*`, `metadata.*`) and the simulator's disk
 * and snapshot options. Only what differs from the core's defaults is given, so a link
 * carries only that.
 */
export interface Tuning {
  config: Record<string, number>;
  flushMs?: number;
  snapshotInterval?: number;
  /** The Kafka release the run models (a link's; the settings keep it); absent: legacy. */
  kafkaRelease?: KafkaRelease;
  /** A dynamic quorum (KIP-853, 3.9 and later); absent: static. */
  quorum?: 'dynamic';
}

/** Every setting at the core's default: Kafka's, for the `controller.quorum.*` keys. */
export const DEFAULT_TUNING: Tuning = { config: {} };

/** The tuning a cluster was created with (its options). */
export function tuningOf(c: Cluster): Tuning {
  const o = c.options;
  const t: Tuning = { config: { ...o.config } };
  if (o.flushMs !== undefined) t.flushMs = o.flushMs;
  if (o.snapshotInterval !== undefined) t.snapshotInterval = o.snapshotInterval;
  if (o.kafkaRelease !== undefined && o.kafkaRelease !== 'legacy') t.kafkaRelease = o.kafkaRelease;
  if (o.quorum === 'dynamic') t.quorum = 'dynamic';
  return t;
}

export interface LinkRun {
  cluster: Cluster;
  settings: Settings;
  unsafe: string[];
  tuning: Tuning;
  /** The scenario the link names, for its captions only (the run itself is the link's). */
  captions: LoadedScenario | null;
}

/** Opens a share link; throws when the link cannot be read. Captions are optional: a scenario that fails to load leaves them out. */
export async function openLink(link: string, scenarioId: string | null, variant: string | null): Promise<LinkRun> {
  const c = await Cluster.fromLink(link);
  const o = c.options as { voters?: number; observers?: number; seed?: number; network?: unknown; unsafe?: string[] };
  const settings: Settings = {
    seed: c.seed,
    voters: c.voters,
    observers: c.observers,
    network: typeof o.network === 'string' ? o.network : 'teaching',
  };
  const unsafe = o.unsafe ?? [];
  let captions: LoadedScenario | null = null;
  const entry = scenarioId ? findScenario(scenarioId) : undefined;
  if (entry) {
    try {
      const s = await loadScenario(entry, { variant, seed: c.seed, unsafe });
      captions = { ...s, cluster: null };
      s.cluster?.dispose();
    } catch {
      /* captions are optional for a link */
    }
  }
  return { cluster: c, settings, unsafe, tuning: tuningOf(c), captions };
}

/** Client writes per second of a free-play run from its start: enough for the logs and the HW to move, few enough to follow each record. */
const FREE_PLAY_WRITES_PER_SECOND = 2;

/** A fresh free-play run, with a light client workload (the Faults panel changes it). */
// on the core the boot loaded (`createSync`: `create` would wait for the share-link codec too)
export async function freeRun(s: Settings, unsafe: string[], tuning: Tuning = DEFAULT_TUNING): Promise<Cluster> {
  return Cluster.createSync({
    voters: s.voters,
    observers: s.observers,
    seed: s.seed,
    network: s.network as 'teaching',
    unsafe: unsafe as never[],
    writesPerSecond: FREE_PLAY_WRITES_PER_SECOND,
    ...(Object.keys(tuning.config).length ? { config: tuning.config } : {}),
    ...(tuning.flushMs !== undefined ? { flushMs: tuning.flushMs } : {}),
    ...(tuning.snapshotInterval !== undefined ? { snapshotInterval: tuning.snapshotInterval } : {}),
    ...(tuning.kafkaRelease !== undefined ? { kafkaRelease: tuning.kafkaRelease } : {}),
    ...(tuning.quorum !== undefined ? { quorum: tuning.quorum } : {}),
  });
}

/** The notice for a scenario id the library does not have. */
export function unknownScenario(id: string): string {
  const known = scenarioList().map((s) => s.id);
  return `There is no scenario ${show(id)}.${known.length ? ` Known scenarios: ${known.join(', ')}.` : ''} Showing a free-play cluster instead.`;
}

/** What choosing a run needs of the element. */
export interface RunHost {
  /** Puts a cluster on screen. */
  install(c: Cluster): void;
  /** Whether a cluster is on screen already. */
  hasCluster(): boolean;
  playing(): boolean;
  setPlaying(on: boolean): void;
  /** Moves the run on screen to `t` (ms). */
  seek(t: number): void;
  /** Tells the page which run is on screen. */
  emitChange(): void;
  /** Whether the element plays what it opens at once (its `autoplay` attribute). */
  autoplay(): boolean;
  picker: ScenarioPicker;
  notices: Notices;
}

/**
 * Which run is on screen and how the next one is chosen: a share link, a scenario (with
 * its seed and unsafe rules) or free play from the settings. A load overtaken by a later
 * one is dropped.
 */
export class RunChoice {
  settings: Settings = { ...DEFAULTS };
  unsafe: string[] = [];
  tuning: Tuning = DEFAULT_TUNING;
  scenario: LoadedScenario | null = null;
  #seq = 0;
  readonly #host: RunHost;

  constructor(host: RunHost) {
    this.#host = host;
  }

  /** A share link's run; false (with a notice) when the link cannot be read. */
  async loadLink(link: string, scenarioId: string | null, variant: string | null): Promise<boolean> {
    let run: LinkRun;
    try {
      run = await openLink(link, scenarioId, variant);
    } catch (e) {
      this.#host.notices.problems.push(`This link could not be loaded: ${(e as Error).message}. Showing a default cluster instead.`);
      return false;
    }
    this.settings = run.settings;
    this.unsafe = run.unsafe;
    this.tuning = run.tuning;
    this.scenario = run.captions;
    if (run.captions) this.#host.picker.show(run.captions.id, variant);
    this.#host.install(run.cluster);
    return true;
  }

  /**
   * The picker's choice or a completion card's "Try next": a scenario (and variant),
   * which plays at once where the element autoplays, as a story the page opens does; or
   * free play (null), which starts safe, at Kafka's defaults.
   */
  async pick(id: string | null, variant: string | null): Promise<void> {
    if (!id) {
      this.scenario = null;
      this.unsafe = [];
      this.tuning = DEFAULT_TUNING;
      await this.newRun();
    } else if ((await this.loadScenario(id, variant)) && this.#host.autoplay() && !stopAt(this.scenario, 0)) {
      this.#host.setPlaying(true);
    }
    this.#host.emitChange();
  }

  async loadScenario(id: string, variant: string | null = null, opts: { seed?: number | null; unsafe?: string[] } = {}): Promise<boolean> {
    const entry = openableScenario(id);
    if (!entry) return false;
    const seq = ++this.#seq;
    try {
      const s = await loadScenario(entry, { variant, seed: opts.seed, unsafe: opts.unsafe });
      if (seq !== this.#seq) {
        s.cluster?.dispose();
        return false;
      }
      this.scenario = s;
      this.unsafe = s.unsafe;
      this.settings = { ...this.settings, ...s.settings };
      this.#host.picker.show(id, s.variant);
      // paused (install does not resume a story), unless the page plays it at its change event
      this.#host.install(s.cluster!);
      return true;
    } catch (e) {
      this.#host.notices.problems.push(`The scenario ${show(variant ? `${id}:${variant}` : id)} could not be loaded: ${(e as Error).message}`);
      this.#host.notices.show();
      if (this.#host.hasCluster()) this.#host.picker.show(this.scenario?.id ?? null, this.scenario?.variant);
      return false;
    }
  }

  /** A fresh run from the current settings. */
  async newRun(): Promise<void> {
    const seq = ++this.#seq;
    const s = this.settings;
    try {
      const c = await freeRun(s, this.unsafe, this.tuning);
      if (seq !== this.#seq) {
        c.dispose();
        return;
      }
      this.scenario = null;
      this.#host.picker.show(null);
      this.#host.install(c);
      this.#host.emitChange();
    } catch (e) {
      this.#host.notices.problems.push(`Could not start the simulation: ${(e as Error).message}`);
      this.#host.notices.show();
    }
  }

  /** The safety switches turned off: in a story, the same story without those rules (on top of its own switches); else a fresh run. */
  setUnsafe(list: string[]): void {
    this.unsafe = list;
    const sc = this.scenario;
    if (sc) void this.loadScenario(sc.id, sc.variant, { seed: sc.seed, unsafe: list });
    else void this.newRun();
  }

  /** The settings applied: the same story with another seed when only the seed changed, else free play with them. */
  applySettings(s: Settings): void {
    const sc = this.scenario;
    const old = this.settings;
    this.settings = s;
    if (sc && s.voters === old.voters && s.observers === old.observers && s.network === old.network) {
      // the same story with another seed
      void this.loadScenario(sc.id, sc.variant, { seed: s.seed, unsafe: this.unsafe });
      return;
    }
    this.scenario = null;
    this.#host.picker.show(null);
    void this.newRun();
  }

  /** New settings (config keys, disk and snapshot options): a fresh free-play run with them, the same seed and sizes (a story's run is its file's). */
  applyTuning(t: Tuning): void {
    this.tuning = t;
    if (this.scenario) {
      this.scenario = null;
      this.#host.picker.show(null);
    }
    void this.newRun();
  }

  /** The story reopened at the step the reader left it (`step`: its index). */
  async returnToStep(step: number): Promise<void> {
    const sc = this.scenario;
    if (!sc) return;
    if (!(await this.loadScenario(sc.id, sc.variant, { seed: sc.seed, unsafe: this.unsafe }))) return;
    const t = this.scenario?.steps.find((st) => st.index === step)?.t;
    if (t !== null && t !== undefined) this.#host.seek(t);
    this.#host.emitChange();
  }

  /** The same run from its start (a scenario with its seed and rules; free play from the settings). */
  async reset(): Promise<void> {
    const sc = this.scenario;
    if (sc) {
      await this.loadScenario(sc.id, sc.variant, { seed: sc.seed, unsafe: this.unsafe });
      return;
    }
    const wasPlaying = this.#host.playing();
    await this.newRun();
    if (wasPlaying) this.#host.setPlaying(true);
  }
}
