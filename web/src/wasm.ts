/**
 * Loading the WebAssembly core once per page or process. The browser entry fetches
 * `kraft_playground_bg.wasm` next to the module; the Node entry reads the file.
 * @module
 */
import initGlue, { catalog as coreCatalog, type InitInput } from '../pkg/kraft_playground.js';
import type { Catalog } from './types.js';

/** Where the wasm comes from: a URL, a fetch Response, the bytes, or a compiled module. */
export type WasmSource = URL | string | Response | BufferSource | WebAssembly.Module;

let loader: (() => WasmSource | Promise<WasmSource>) | null = null;
let ready: Promise<void> | null = null;
let loaded = false;
let catalogCache: Catalog | null = null;

/** @internal Set by the entry point (browser: fetch; Node: read the file). */
export function setDefaultWasmSource(f: () => WasmSource | Promise<WasmSource>): void {
  loader = f;
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
    await initGlue({ module_or_path: s as InitInput });
    catalogCache = coreCatalog() as Catalog;
    loaded = true;
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
  return loaded;
}

/** @internal Throws when the wasm is not loaded yet. */
export function ensureReady(): void {
  if (!loaded) {
    throw new Error(
      'kraft-playground: the wasm core is not loaded yet; await Cluster.create(...) or await init() first',
    );
  }
}

/** Names and limits of the core: config keys, safety switches, invariants, presets. */
export function catalog(): Catalog {
  ensureReady();
  return catalogCache as Catalog;
}
