// The scenario library as the element sees it: a registry of scenario files (the site
// bundles scenarios/*.json at build time and registers them) and the loader that runs
// one and rewinds it, so its whole story is the recorded future the reader plays
// through, with captions at the steps' times. A built-in story comes precomputed (its
// report, from scripts/stories.mjs) and is replayed on the core alone; any other run
// (a user's own file, another seed, more switches off) loads the engine
// (`Cluster.fromScenario`).

import { Cluster } from '../../api.js';
import type { Focus, RecordName, ScenarioMeasurement } from '../../generated/wire.js';
import type { ScenarioOptions, ScenarioReport } from '../../types.js';
import type { Settings } from '../playback/controls.js';
import { courseStory } from './course.js';

export interface ScenarioEntry {
  id: string;
  title: string;
  /** the scenario file, parsed JSON (a bundled entry: the outline the picker reads, until opened) */
  file: unknown;
  /** a bundled entry: its whole file and runs are in `story-ID.js` beside this module */
  bundled?: boolean;
  /** its runs precomputed at build time: the file's own under "", each variant's under its name */
  stories?: Record<string, Story>;
}

/** A run precomputed at build time (scripts/stories.mjs): what a story plays from. */
export type Story = Pick<ScenarioReport, 'title' | 'seed' | 'unsafe' | 'passed' | 'endMs' | 'spec' | 'inputs' | 'digest' | 'measurements' | 'recordNames'> & {
  steps: Pick<ScenarioReport['steps'][number], 'index' | 't' | 'caption' | 'pause' | 'label' | 'focus'>[];
};

export interface ScenarioStep {
  index: number;
  /** when it happened in the run (null: it never did) */
  t: number | null;
  caption: string | null;
  pause: boolean;
  label: string | null;
  /** what the caption names, for the timeline to zoom to and highlight */
  focus: Focus | null;
}

export interface LoadedScenario {
  id: string;
  variant: string | null;
  title: string;
  summary: string;
  settings: Partial<Settings>;
  /** every switch that is off in this run (the file's, the variant's and the user's) */
  unsafe: string[];
  /** the switches the file (and variant) turn off themselves */
  ownUnsafe: string[];
  /** the seed asked for instead of the file's, if any */
  seed: number | null;
  steps: ScenarioStep[];
  endMs: number;
  passed: boolean;
  /** the numbers the story's report measured (for its completion card) */
  measurements: ScenarioMeasurement[];
  /** the names its captions give records ("X") */
  recordNames: Record<string, RecordName>;
  cluster: Cluster | null;
}

export interface Variant {
  name: string;
  title: string;
}

const registry = new Map<string, ScenarioEntry>();

/** Adds scenario files to the picker (the site does this with the bundled library). */
export function registerScenarios(list: ScenarioEntry[]): void {
  for (const s of list) {
    if (typeof s.id === 'string' && /^[a-z0-9][a-z0-9-]{0,63}$/.test(s.id)) registry.set(s.id, s);
  }
}

let bundled: Promise<void> | null = null;

/**
 * Registers the scenario library that sits next to this module (`scenarios.js`, which
 * the site build writes), once; nothing happens where there is none.
 */
export function loadBundledScenarios(): Promise<void> {
  if (registry.size > 0) return Promise.resolve();
  bundled ??= (async () => {
    try {
      const url = new URL('./scenarios.js', import.meta.url).href;
      const m = (await import(/* @vite-ignore */ url)) as { scenarios?: ScenarioEntry[] };
      if (Array.isArray(m.scenarios)) registerScenarios(m.scenarios);
    } catch {
      // no bundled library here: scenarios can still be registered by hand
    }
  })();
  return bundled;
}

const bundledFiles = new Map<string, Promise<ScenarioEntry>>();

/**
 * The whole entry: a bundled one has only its outline until it is opened, then its file
 * and precomputed runs come from `story-ID.js` beside this module (scripts/stories.mjs).
 */
function complete(entry: ScenarioEntry): Promise<ScenarioEntry> {
  if (!entry.bundled) return Promise.resolve(entry);
  let p = bundledFiles.get(entry.id);
  if (p === undefined) {
    p = (async () => {
      const url = new URL(`./story-${entry.id}.js`, import.meta.url).href;
      const m = (await import(/* @vite-ignore */ url)) as { file: unknown; stories: Record<string, Story> };
      return { id: entry.id, title: entry.title, file: m.file, stories: m.stories };
    })();
    p.catch(() => bundledFiles.delete(entry.id));
    bundledFiles.set(entry.id, p);
  }
  return p;
}

export function scenarioList(): ScenarioEntry[] {
  return [...registry.values()];
}

export function findScenario(id: string): ScenarioEntry | undefined {
  return registry.get(id);
}

/**
 * The entry to open `id` with: the registered one, or, while nothing is registered yet
 * (the library's outline has not arrived), a story the course names, which the library
 * beside this module always has (both come from scenarios/): it opens from its own
 * `story-ID.js`, without waiting for the outline of every other.
 */
export function openableScenario(id: string): ScenarioEntry | undefined {
  const found = registry.get(id);
  if (found || registry.size > 0) return found;
  const named = courseStory(id);
  return named ? { id, title: named.story.name, file: {}, bundled: true } : undefined;
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The variants a scenario file offers (e.g. its unsafe twin). */
export function variantsOf(entry: ScenarioEntry): Variant[] {
  const vs = obj(entry.file).variants;
  if (!Array.isArray(vs)) return [];
  return vs
    .map((v) => obj(v))
    .filter((v) => typeof v.name === 'string')
    .map((v) => ({ name: v.name as string, title: typeof v.title === 'string' ? v.title : (v.name as string) }));
}

/**
 * Starts fetching what opening `entry` needs (a bundled story's module), so that it
 * downloads beside the core instead of after it; a failure shows when it is opened.
 */
export function prefetchScenario(entry: ScenarioEntry): void {
  complete(entry).catch(() => {});
}

/** How `outlined` opens with `opts`: its whole entry, the variant, the options for the engine and, when the file's own run is asked for, its precomputed story. */
interface Opening {
  entry: ScenarioEntry;
  variant: Variant | undefined;
  /** the variant's part of the file (its summary, its switches) */
  vfile: Record<string, unknown>;
  base: ScenarioOptions;
  ownUnsafe: string[];
  story: Story | undefined;
}

async function opening(outlined: ScenarioEntry, opts: { variant?: string | null; seed?: number | null; unsafe?: string[] }): Promise<Opening> {
  const entry = await complete(outlined);
  const file = obj(entry.file);
  const variant = opts.variant ? variantsOf(entry).find((v) => v.name === opts.variant) : undefined;
  if (opts.variant && !variant) {
    const known = variantsOf(entry).map((v) => v.name);
    throw new RangeError(`the scenario has no variant "${opts.variant}"${known.length ? `; its variants: ${known.join(', ')}` : ''}`);
  }
  const base: ScenarioOptions = {};
  if (variant) base.variant = variant.name;
  if (opts.seed !== null && opts.seed !== undefined) base.seed = opts.seed;
  // what the file and variant switch off by themselves
  const vfile = variant ? obj((file.variants as unknown[]).map(obj).find((v) => v.name === variant.name)) : {};
  const ownUnsafe = [...new Set([...arr(obj(file.cluster).unsafe), ...arr(vfile.unsafe)])];
  const extra = (opts.unsafe ?? []).filter((s) => !ownUnsafe.includes(s));
  if (extra.length) base.unsafe = extra as ScenarioOptions['unsafe'];
  // the file's own run (or a variant's) is precomputed; another seed or more switches off is not
  const own = base.seed === undefined && base.unsafe === undefined;
  const story = own ? entry.stories?.[variant?.name ?? ''] : undefined;
  return { entry, variant, vfile, base, ownUnsafe, story };
}

/** The story as the reader sees it, from its report; `cluster` null (no run yet). */
function describe(o: Opening, report: Story | ScenarioReport): LoadedScenario {
  const file = obj(o.entry.file);
  const spec = report.spec as { voters?: number; observers?: number; seed?: number; network?: unknown };
  const summary = typeof o.vfile.summary === 'string' ? o.vfile.summary : typeof file.summary === 'string' ? file.summary : '';
  return {
    id: o.entry.id,
    variant: o.variant?.name ?? null,
    title: o.variant ? o.variant.title : report.title || o.entry.title,
    summary,
    settings: {
      voters: spec.voters,
      observers: spec.observers ?? 0,
      seed: report.seed,
      ...(typeof spec.network === 'string' ? { network: spec.network } : {}),
    },
    unsafe: [...report.unsafe],
    ownUnsafe: o.ownUnsafe,
    seed: o.base.seed ?? null,
    steps: report.steps.map((s) => ({
      index: s.index,
      t: s.t ?? null,
      caption: s.caption ?? null,
      pause: !!s.pause,
      label: s.label ?? null,
      focus: s.focus ?? null,
    })),
    endMs: report.endMs,
    passed: report.passed,
    measurements: report.measurements ?? [],
    recordNames: report.recordNames ?? {},
    cluster: null,
  };
}

/**
 * What opening the scenario shows before its run exists (captions, steps, title; no
 * cluster), when that run is precomputed: the page shows it while the core loads.
 * Null when the run must be computed first (another seed, more switches off).
 */
export async function outlineScenario(outlined: ScenarioEntry, opts: { variant?: string | null; seed?: number | null } = {}): Promise<LoadedScenario | null> {
  const o = await opening(outlined, opts);
  return o.story ? describe(o, o.story) : null;
}

/** Whether two loadings show the same story (the same report: file, variant, seed and switches). */
export function sameStory(a: LoadedScenario | null, b: LoadedScenario | null): boolean {
  return !!a && !!b && a.id === b.id && a.variant === b.variant && a.seed === b.seed && a.unsafe.join() === b.unsafe.join();
}

/**
 * The run at its start, its recorded inputs ahead: playing forward replays the recorded
 * steps, event for event, and the timeline shows them ahead as the recorded future (the
 * core's lanes). A precomputed story opens there without running first; any other
 * scenario runs to its end on the engine and rewinds.
 */
export async function loadScenario(outlined: ScenarioEntry, opts: { variant?: string | null; seed?: number | null; unsafe?: string[] } = {}): Promise<LoadedScenario> {
  const o = await opening(outlined, opts);
  if (o.story) {
    // on the core the element loaded (`replay` would wait for the share-link codec too)
    const cluster = Cluster.replaySync(o.story.spec, o.story.inputs, o.story.endMs, { at: 0 });
    return { ...describe(o, o.story), cluster };
  }
  const { cluster, report } = await Cluster.fromScenario(o.entry.file as object, o.base);
  cluster.seek(0);
  return { ...describe(o, report), cluster };
}

function arr(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
