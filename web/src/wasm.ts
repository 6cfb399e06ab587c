/**
 * Loading the WebAssembly core, and on demand the full engine. The core
 * (`kraft_playground_bg.wasm`) is the simulation: free play, links, the built-in stories
 * (precomputed at build time). The full engine (`kraft_playground_full_bg.wasm`) adds the
 * scenario engine and the chaos sweep; it is loaded only when a scenario file is run or a
 * sweep. The browser entry fetches `kraft_playground_bg.wasm`
 * next to the module (a page can start that fetch early with
 * `<link rel="preload" href=".../kraft_playground_bg.wasm" as="fetch" crossorigin>`:
 * this fetch then takes the preloaded response); the Node entry reads and compiles
 * the file synchronously. Each module is compiled once; an
 * instance serves every cluster until one of them traps, and then a new instance of
 * the same module serves the clusters created after it.
 * @module
 */

import { createGlue, type Glue } from '../pkg/kraft_playground_factory.js';
import type { Glue as EngineGlue } from '../pkg/kraft_playground_full_factory.js';
import { CATALOG } from './generated/wire.js';
import { hasLinks, loadLinks } from './links.js';
import type { Catalog, Limit } from './types.js';

/** Where the wasm comes from: a URL, a fetch Response, the bytes, or a compiled module. */
/**
 * Where the core comes from: a URL, a fetched response, its bytes, a compiled module, or a
 * promise of a response or a module (a fetch or compile the page started itself, e.g. from
 * an inline script, so it compiles while it downloads).
 */
export type WasmSource = URL | string | Response | BufferSource | WebAssembly.Module | Promise<Response | WebAssembly.Module>;

/** @internal How the full engine (the core plus the scenario engine and the chaos sweep) is loaded. */
export interface EngineLoader {
  /** Loads its bindings and names its wasm (the browser: a dynamic import and a URL). */
  load(): Promise<{ createGlue: () => EngineGlue; source: WasmSource }>;
  /** Node: the same, synchronously, so the `...Sync` functions work without an await. */
  loadSync?(): { createGlue: () => EngineGlue; module: WebAssembly.Module };
}

/** One wasm module and its instances: a trap retires an instance, the next work gets a fresh one. */
class Instances<G extends Glue> {
  module: WebAssembly.Module | null = null;
  make: (() => G) | null = null;
  /** The instance new work goes to (null after a trap until the next one is made). */
  current: G | null = null;

  start(make: () => G, module: WebAssembly.Module): G {
    const glue = make();
    // Instantiating a compiled module is quick; done synchronously it skips the task
    // hops of WebAssembly.instantiate.
    glue.initSync({ module });
    this.make = make;
    this.module = module;
    this.current = glue;
    return glue;
  }

  fresh(): G {
    if (this.current === null) {
      const glue = (this.make as () => G)();
      glue.initSync({ module: this.module as WebAssembly.Module });
      this.current = glue;
    }
    return this.current;
  }
}

let loader: (() => WasmSource | Promise<WasmSource>) | null = null;
let engineLoader: EngineLoader | null = null;
let ready: Promise<void> | null = null;
let coreReady: Promise<void> | null = null;
let engineReady: Promise<void> | null = null;
const core = new Instances<Glue>();
const engine = new Instances<EngineGlue>();
const retired = new WeakSet<Glue>();

/** @internal Set by the entry point (browser: fetch; Node: read the files). */
export function setDefaultWasmSource(f: () => WasmSource | Promise<WasmSource>, engineFrom: EngineLoader): void {
  loader = f;
  engineLoader = engineFrom;
}

async function compile(s: WasmSource): Promise<WebAssembly.Module> {
  if (s instanceof Promise) return compile(await s);
  if (s instanceof WebAssembly.Module) return s;
  const r = typeof s === 'string' || s instanceof URL ? await fetch(s) : s;
  if (typeof Response === 'function' && r instanceof Response) {
    if (!r.ok) throw new Error(`kraft-playground: failed to fetch the wasm: ${r.status} ${r.statusText} (${r.url})`);
    // Compile while the bytes arrive (streaming needs the server to say application/wasm).
    const type = r.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
    if (type === 'application/wasm' && typeof WebAssembly.compileStreaming === 'function') return WebAssembly.compileStreaming(r);
    return WebAssembly.compile(await r.arrayBuffer());
  }
  return WebAssembly.compile(r as BufferSource);
}

/** Runs `load` once; a failed load lets a later call try again. */
function once(get: () => Promise<void> | null, set: (p: Promise<void> | null) => void, load: () => Promise<void>): Promise<void> {
  const had = get();
  if (had) return had;
  const p = load();
  set(p);
  p.catch(() => {
    if (get() === p) set(null);
  });
  return p;
}

/**
 * Loads and instantiates the WebAssembly core (the simulation, without the scenario
 * engine), and beside it the share-link codec (`toLink`, `fromLink`; a module of its
 * own in the browser). Called for you by `Cluster.create`, `Cluster.replay` and
 * `Cluster.fromLink`; call it yourself before the `...Sync` functions, to load the wasm
 * from somewhere else (a bundler's asset URL, a CDN, bytes you already have) or to load
 * it early. Later calls return the same promise.
 */
export function init(source?: WasmSource): Promise<void> {
  return once(
    () => ready,
    (p) => {
      ready = p;
    },
    async () => {
      await Promise.all([initCore(source), loadLinks()]);
    },
  );
}

/**
 * @internal The core alone, without the link codec (`Cluster.__initCore`). Later calls
 * return the same promise.
 */
export function initCore(source?: WasmSource): Promise<void> {
  return once(
    () => coreReady,
    (p) => {
      coreReady = p;
    },
    async () => {
      const s = source ?? (loader ? await loader() : undefined);
      if (s === undefined) {
        throw new Error('kraft-playground: no way to load the wasm here; call init(urlOrBytes) first');
      }
      const module = await compile(s);
      core.start(createGlue, module);
    },
  );
}

/**
 * Loads the full engine: the core plus the scenario engine and the chaos sweep
 * (`kraft_playground_full_bg.wasm`, about half again the core's size), which
 * `runScenario`, `Cluster.fromScenario` and the sweep need. They call it for you; the
 * page's free play and built-in stories never do. `source` loads that wasm from
 * somewhere else. Later calls return the same promise.
 */
export function initEngine(source?: WasmSource): Promise<void> {
  return once(
    () => engineReady,
    (p) => {
      engineReady = p;
    },
    async () => {
      await init();
      if (engine.module) return;
      if (engineLoader === null) throw new Error('kraft-playground: no way to load the scenario engine here');
      const { createGlue: make, source: own } = await engineLoader.load();
      engine.start(make, await compile(source ?? own));
    },
  );
}

/** True once {@link init} has finished. */
export function isReady(): boolean {
  return core.module !== null && hasLinks();
}

/** @internal Throws when the wasm is not loaded yet. */
export function ensureReady(): void {
  if (core.module === null) {
    throw new Error('kraft-playground: the wasm core is not loaded yet; await Cluster.create(...) or await init() first');
  }
}

/** @internal The instance new work goes to: a new one after the last one trapped. */
export function freshGlue(): Glue {
  ensureReady();
  return core.fresh();
}

/**
 * @internal The full engine's instance new work goes to. Node loads the engine here
 * when it is not loaded yet; elsewhere it must have been loaded ({@link initEngine}).
 */
export function freshEngineGlue(): EngineGlue {
  ensureReady();
  if (engine.module === null) {
    const sync = engineLoader?.loadSync?.();
    if (sync === undefined) {
      throw new Error('kraft-playground: the scenario engine is not loaded yet; await runScenario(...) or await initEngine() first');
    }
    engine.start(sync.createGlue, sync.module);
  }
  return engine.fresh();
}

/** @internal Retires an instance that trapped: nothing new is created in it. */
export function retire(glue: Glue): void {
  retired.add(glue);
  if (core.current === glue) core.current = null;
  if (engine.current === glue) engine.current = null;
}

/** @internal True once `glue` has trapped. */
export function isRetired(glue: Glue): boolean {
  return retired.has(glue);
}

/** Names and limits of the core: config keys, safety switches, invariants, presets. */
export function catalog(): Catalog {
  ensureReady();
  return CATALOG;
}

/** The core's limit named `key` (`voters`, `latencyMs`, `advanceMs`, ...), from the catalog. */
export function limit(key: string): Limit & { max: number } {
  const found = catalog().limits.find((l) => l.key === key);
  if (found === undefined) throw new Error(`the core's catalog has no limit '${key}' (a bug in kraft-playground)`);
  return { ...found, max: found.max ?? Number.MAX_SAFE_INTEGER };
}
