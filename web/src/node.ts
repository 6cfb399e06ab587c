/**
 * `kraft-playground` for Node: the same API as the browser entry; the wasm is read
 * from the file next to this module.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { setDefaultWasmSource } from './wasm.js';

setDefaultWasmSource(() => readFile(new URL('./kraft_playground_bg.wasm', import.meta.url)));

export * from './api.js';
