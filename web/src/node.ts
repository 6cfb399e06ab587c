/**
 * `kraft-playground` for Node: the same API as the browser entry; the wasm is read
 * from the file next to this module and compiled synchronously.
 * @module
 */
import { readFileSync } from 'node:fs';
import { setDefaultWasmSource } from './wasm.js';

// Compiled synchronously: in Node that takes a quarter of the time of the asynchronous
// WebAssembly.compile and instantiate (scripts/bench-startup.mjs).
setDefaultWasmSource(() => new WebAssembly.Module(readFileSync(new URL('./kraft_playground_bg.wasm', import.meta.url))));

export * from './api.js';
