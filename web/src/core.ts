/**
 * Internal: the raw wasm-bindgen bindings (not part of the public types).
 * @module
 */
import * as glue from '../pkg/kraft_playground.js';
import { ensureReady } from './wasm.js';

/** The raw bindings; throws when the wasm is not loaded yet. */
export function raw(): typeof glue {
  ensureReady();
  return glue;
}

export type WasmSim = glue.WasmSim;
