/**
 * `kraft-playground`: Kafka's Raft (KRaft) quorum, simulated faithfully and
 * deterministically in WebAssembly. This is the browser (and bundler) entry: the wasm
 * is fetched from `kraft_playground_bg.wasm` next to this module. Node gets `node.js`.
 * @module
 */
import { setDefaultWasmSource } from './wasm.js';

setDefaultWasmSource(() => new URL('./kraft_playground_bg.wasm', import.meta.url));

export * from './api.js';
