/**
 * Internal: the raw wasm-bindgen bindings (not part of the public types), one set per
 * wasm instance. A trap (a bug in the core, or its heap full) leaves an instance in an
 * unknown state: it is retired, the clusters on it keep it, and new work gets a fresh
 * instance.
 * @module
 */
import type { Glue } from '../pkg/kraft_playground_factory.js';
import type { Glue as EngineGlue } from '../pkg/kraft_playground_full_factory.js';
import { freshEngineGlue, freshGlue, retire } from './wasm.js';

export type WasmSim = InstanceType<Glue['WasmSim']>;
export type WasmPacked = Glue['WasmPacked']['prototype'];
export type { EngineGlue, Glue };

/** The bindings new work goes to; throws when the wasm is not loaded yet. */
export function raw(): Glue {
  return freshGlue();
}

/** A trap in the core, or wasm-bindgen's errors on an object a trap left poisoned. */
export function isInternalFailure(e: unknown): boolean {
  if (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) return true;
  const m = e instanceof Error ? e.message : '';
  return /recursive use of an object detected|null pointer passed to rust/.test(m);
}

/** How every error about a trap in the core begins. */
export const CORE_CRASHED = 'the simulation core crashed (a bug in kraft-playground)';
/** Most characters of a panic message an error repeats. */
const MAX_PANIC_CHARS = 400;

/**
 * What went wrong, in words: the panic message the core kept, if it left one (read at
 * once: call right after the trap), else the trap's own text ("unreachable" says little).
 */
export function describeFailure(e: unknown, glue: Glue): string {
  let panic: string | null | undefined = null;
  try {
    panic = glue.takePanicMessage();
  } catch {
    /* the instance cannot even say that */
  }
  const mib = Math.round((glue.memory()?.buffer.byteLength ?? 0) / 2 ** 20);
  if (panic) return `${panic.replace(/\s+/g, ' ').slice(0, MAX_PANIC_CHARS)} (with ${mib} MiB of wasm memory)`;
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return `the core trapped (${what}) with ${mib} MiB of wasm memory and no panic message; a bug, or that memory ran out`;
}

/** An internal failure of the core, raised as a plain `Error` that says so. */
export class CoreFailure extends Error {}

/** Runs `fn` on the instance new work goes to; a trap retires that instance. */
export function withCore<T>(fn: (glue: Glue) => T): T {
  return guarded(raw(), fn);
}

/** Runs `fn` on the full engine's instance (scenarios, the sweep); a trap retires it. */
export function withEngine<T>(fn: (glue: EngineGlue) => T): T {
  return guarded(freshEngineGlue(), fn);
}

function guarded<G extends Glue, T>(glue: G, fn: (glue: G) => T): T {
  try {
    return fn(glue);
  } catch (e) {
    if (!isInternalFailure(e)) throw e;
    retire(glue);
    throw new CoreFailure(`${CORE_CRASHED}: ${describeFailure(e, glue)}; new clusters start on a fresh core`, { cause: e });
  }
}
