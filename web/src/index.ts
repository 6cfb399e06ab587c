/**
 * `kraft-playground`: Kafka's Raft (KRaft) quorum, simulated faithfully and
 * deterministically in WebAssembly. This is the browser (and bundler) entry: the wasm
 * is fetched from `kraft_playground_bg.wasm` next to this module, and the full engine
 * (`engine.js` and `kraft_playground_full_bg.wasm`) only when a scenario file or a sweep
 * is run; the share-link codec (`link.js`) when `init()` runs. Node gets `node.js`.
 * @module
 */
import type { Glue as EngineGlue } from '../pkg/kraft_playground_full_factory.js';
import { setLinkCodec } from './links.js';
import { setDefaultWasmSource } from './wasm.js';

setDefaultWasmSource(() => new URL('./kraft_playground_bg.wasm', import.meta.url), {
  async load() {
    // A URL import, so bundlers leave the engine's bindings out of this bundle.
    const url = new URL('./engine.js', import.meta.url).href;
    const m = (await import(/* @vite-ignore */ /* webpackIgnore: true */ url)) as { createGlue: () => EngineGlue };
    return { createGlue: m.createGlue, source: new URL('./kraft_playground_full_bg.wasm', import.meta.url) };
  },
});

// a module of its own (dist/link.js, the DEFLATE of share links), which init() loads beside the core
setLinkCodec(() => import('./link.js'));

export * from './api.js';
