// Making the runs the element shows: from a share link (with its scenario's captions, if
// the link names one), or free play from settings. Loading a scenario is scenarios.ts's.

import { Cluster } from '../api.js';
import { show } from './attributes.js';
import type { Settings } from './controls.js';
import { findScenario, type LoadedScenario, loadScenario, scenarioList } from './scenarios.js';

export interface LinkRun {
  cluster: Cluster;
  settings: Settings;
  unsafe: string[];
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
      captions = { ...s, cluster: null, futureEvents: undefined };
      s.cluster?.dispose();
    } catch {
      /* captions are optional for a link */
    }
  }
  return { cluster: c, settings, unsafe, captions };
}

/** Client writes per second of a free-play run from its start: enough for the logs and the HW to move, few enough to follow each record. */
const FREE_PLAY_WRITES_PER_SECOND = 2;

/** A fresh free-play run, with a light client workload (the Faults panel changes it). */
export function freeRun(s: Settings, unsafe: string[]): Promise<Cluster> {
  return Cluster.create({
    voters: s.voters,
    observers: s.observers,
    seed: s.seed,
    network: s.network as 'teaching',
    unsafe: unsafe as never[],
    writesPerSecond: FREE_PLAY_WRITES_PER_SECOND,
  });
}

/** The notice for a scenario id the library does not have. */
export function unknownScenario(id: string): string {
  const known = scenarioList().map((s) => s.id);
  return `There is no scenario ${show(id)}.${known.length ? ` Known scenarios: ${known.join(', ')}.` : ''} Showing a free-play cluster instead.`;
}
