// The scenario library as the element sees it: a registry of scenario files (the site
// bundles scenarios/*.json at build time and registers them) and the loader that runs
// one through the package API and rewinds it, so its whole story is the recorded
// future the reader plays through, with captions at the steps' times.

import * as api from '../api.js';
import { Cluster } from '../api.js';
import type { Settings } from './controls.js';
import type { UiEvent } from './types.js';

export interface ScenarioEntry {
  id: string;
  title: string;
  /** the scenario file, parsed JSON */
  file: unknown;
}

export interface ScenarioStep {
  index: number;
  /** when it happened in the run (null: it never did) */
  t: number | null;
  caption: string | null;
  pause: boolean;
  label: string | null;
}

export interface LoadedScenario {
  id: string;
  title: string;
  summary: string;
  settings: Partial<Settings>;
  unsafe: string[];
  steps: ScenarioStep[];
  endMs: number;
  cluster: Cluster | null;
  futureEvents?: UiEvent[];
}

const registry = new Map<string, ScenarioEntry>();

/** Adds scenario files to the picker (the site does this with the bundled library). */
export function registerScenarios(list: ScenarioEntry[]): void {
  for (const s of list) {
    if (typeof s.id === 'string' && /^[a-z0-9][a-z0-9-]{0,63}$/.test(s.id)) registry.set(s.id, s);
  }
}

export function scenarioList(): ScenarioEntry[] {
  return [...registry.values()];
}

export function findScenario(id: string): ScenarioEntry | undefined {
  return registry.get(id);
}

interface StepReport {
  index: number;
  label?: string | null;
  t?: number | null;
  caption?: string | null;
  pause?: boolean;
}
interface ScenarioReport {
  id: string;
  title: string;
  summary?: string;
  endMs: number;
  steps: StepReport[];
  spec: Record<string, unknown>;
  inputs: unknown[];
}

type Runner = (file: unknown) => Promise<{ report: ScenarioReport; cluster: Cluster }>;

/** How the package API runs a scenario and hands back its run (found at runtime). */
function runner(): Runner {
  const a = api as unknown as Record<string, unknown>;
  const C = Cluster as unknown as Record<string, unknown>;
  if (typeof C.fromScenario === 'function') {
    return async (file) => {
      const r = (await (C.fromScenario as (f: unknown) => Promise<{ cluster: Cluster; report: ScenarioReport } | Cluster>)(file)) as
        | { cluster: Cluster; report: ScenarioReport }
        | Cluster;
      if (r instanceof Cluster) {
        const rep = (r as unknown as { scenarioReport?: ScenarioReport }).scenarioReport;
        if (!rep) throw new Error('the package returned no scenario report');
        return { report: rep, cluster: r };
      }
      return r;
    };
  }
  if (typeof a.runScenario === 'function') {
    return async (file) => (a.runScenario as Runner)(file);
  }
  throw new Error('this version of the package cannot run scenarios');
}

/**
 * Runs the scenario to its end, keeps every event, and rewinds to the start: playing
 * forward replays the recorded steps, event for event.
 */
export async function loadScenario(entry: ScenarioEntry): Promise<LoadedScenario> {
  const { report, cluster } = await runner()(entry.file);
  const futureEvents = cluster.events() as unknown as UiEvent[];
  cluster.seek(0);
  const spec = report.spec as { voters?: number; observers?: number; seed?: number; network?: unknown; unsafe?: string[] };
  return {
    id: entry.id,
    title: report.title || entry.title,
    summary: report.summary ?? '',
    settings: {
      voters: spec.voters,
      observers: spec.observers ?? 0,
      seed: spec.seed ?? 0,
      network: typeof spec.network === 'string' ? spec.network : 'custom',
    },
    unsafe: spec.unsafe ?? [],
    steps: report.steps.map((s) => ({
      index: s.index,
      t: s.t ?? null,
      caption: s.caption ?? null,
      pause: !!s.pause,
      label: s.label ?? null,
    })),
    endMs: report.endMs,
    cluster,
    futureEvents,
  };
}
