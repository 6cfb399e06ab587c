/**
 * `kraft-playground` for Node: the same API as the browser entry; the wasm is read
 * from the file next to this module and compiled synchronously, and so is the full
 * engine (`kraft_playground_full_bg.wasm`) the first time a scenario file or a sweep runs.
 * @module
 */
import { readFileSync } from 'node:fs';
import { createGlue } from '../pkg/kraft_playground_full_factory.js';
import * as link from './link.js';
import { setLinkCodec } from './links.js';
import { setDefaultWasmSource } from './wasm.js';

// Compiled synchronously: in Node that takes a quarter of the time of the asynchronous
// WebAssembly.compile and instantiate (scripts/bench-startup.mjs).
const compiled = (file: string) => new WebAssembly.Module(readFileSync(new URL(file, import.meta.url)));
const engine = () => ({ createGlue, module: compiled('./kraft_playground_full_bg.wasm') });
setDefaultWasmSource(() => compiled('./kraft_playground_bg.wasm'), { load: async () => ({ createGlue, source: engine().module }), loadSync: engine });
setLinkCodec(link);

export * from './api.js';
