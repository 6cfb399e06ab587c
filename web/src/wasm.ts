/**
 * Loading the WebAssembly core. The browser entry fetches `kraft_playground_bg.wasm`
 * next to the module (a page can start that fetch early with
 * `<link rel="preload" href=".../kraft_playground_bg.wasm" as="fetch" crossorigin>`:
 * this fetch then takes the preloaded response); the Node entry reads and compiles
 * the file synchronously. The module is compiled once; an
 * instance serves every cluster until one of them traps, and then a new instance of
 * the same module serves the clusters created after it.
 * @module
 */
import { createGlue, type Glue } from '../pkg/kraft_playground_factory.js';
import type { Catalog, Limit } from './types.js';

/** Where the wasm comes from: a URL, a fetch Response, the bytes, or a compiled module. */
export type WasmSource = URL | string | Response | BufferSource | WebAssembly.Module;

let loader: (() => WasmSource | Promise<WasmSource>) | null = null;
let ready: Promise<void> | null = null;
let compiled: WebAssembly.Module | null = null;
/** The instance new clusters go to (null after a trap until the next one is made). */
let current: Glue | null = null;
const retired = new WeakSet<Glue>();
let catalogCache: Catalog | null = null;

/** @internal Set by the entry point (browser: fetch; Node: read the file). */
export function setDefaultWasmSource(f: () => WasmSource | Promise<WasmSource>): void {
  loader = f;
}

async function compile(s: WasmSource): Promise<WebAssembly.Module> {
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

/**
 * Loads and instantiates the WebAssembly core. Called for you by `Cluster.create` and
 * `Cluster.fromLink`; call it yourself only to load the wasm from somewhere else (a
 * bundler's asset URL, a CDN, bytes you already have) or to load it early. Later calls
 * return the same promise.
 */
export function init(source?: WasmSource): Promise<void> {
  if (ready) return ready;
  const p = (async () => {
    const s = source ?? (loader ? await loader() : undefined);
    if (s === undefined) {
      throw new Error('kraft-playground: no way to load the wasm here; call init(urlOrBytes) first');
    }
    const module = await compile(s);
    const glue = createGlue();
    // Instantiating a compiled module is quick; done synchronously it skips the task
    // hops of WebAssembly.instantiate.
    glue.initSync({ module });
    catalogCache = glue.catalog() as Catalog;
    compiled = module;
    current = glue;
  })();
  ready = p;
  p.catch(() => {
    // Let a later call try again (say, with an explicit source).
    if (ready === p) ready = null;
  });
  return p;
}

/** True once {@link init} has finished. */
export function isReady(): boolean {
  return compiled !== null;
}

/** @internal Throws when the wasm is not loaded yet. */
export function ensureReady(): void {
  if (compiled === null) {
    throw new Error('kraft-playground: the wasm core is not loaded yet; await Cluster.create(...) or await init() first');
  }
}

/** @internal The instance new work goes to: a new one after the last one trapped. */
export function freshGlue(): Glue {
  ensureReady();
  if (current === null) {
    const glue = createGlue();
    glue.initSync({ module: compiled as WebAssembly.Module });
    current = glue;
  }
  return current;
}

/** @internal Retires an instance that trapped: nothing new is created in it. */
export function retire(glue: Glue): void {
  retired.add(glue);
  if (current === glue) current = null;
}

/** @internal True once `glue` has trapped. */
export function isRetired(glue: Glue): boolean {
  return retired.has(glue);
}

/** Names and limits of the core: config keys, safety switches, invariants, presets. */
export function catalog(): Catalog {
  ensureReady();
  return catalogCache as Catalog;
}

/** The core's limit named `key` (`voters`, `latencyMs`, `advanceMs`, ...), from the catalog. */
export function limit(key: string): Limit & { max: number } {
  const found = catalog().limits.find((l) => l.key === key);
  if (found === undefined) throw new Error(`the core's catalog has no limit '${key}' (a bug in kraft-playground)`);
  return { ...found, max: found.max ?? Number.MAX_SAFE_INTEGER };
}
