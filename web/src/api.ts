/**
 * Everything the package exports (both entry points re-export this).
 * @module
 */

export { chaosDigest, runChaosSeed, runChaosSeedSync } from './chaos.js';
export type { ScenarioRun } from './cluster.js';
export { Cluster, MAX_ADVANCE_MS, runScenario, runScenarioSync, ScenarioError } from './cluster.js';
export type { LaneSeries, LaneWindow } from './lanes.js';
export { SPAN, SPAN_DROPS, SPAN_FLAGS, SPAN_OUTCOMES, SPAN_RPCS, STEP } from './lanes.js';
export { LINK_FORMAT } from './links.js';
export type { PackedBatch } from './packed.js';
/**
 * @internal The packed trace's reader, for the element (its own bundle would carry a
 * second copy of what this module has): not part of the API.
 */
export { PACKED_TYPES as __PACKED_TYPES, readRow as __readRow, rowEnd as __rowEnd } from './packed.js';
export type { FrameScheduler, PlayerFrame, PlayerListener, PlayerOptions } from './player.js';
export { Player } from './player.js';
export * from './types.js';
export type { WasmSource } from './wasm.js';
export { catalog, init, initEngine, isReady, limit } from './wasm.js';
