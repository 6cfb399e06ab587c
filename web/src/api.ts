/**
 * Everything the package exports (both entry points re-export this).
 * @module
 */
export { Cluster, MAX_ADVANCE_MS, ScenarioError, parseScenario, runScenario, runScenarioSync } from './cluster.js';
export type { ScenarioRun } from './cluster.js';
export { Player } from './player.js';
export type { FrameScheduler, PlayerFrame, PlayerListener, PlayerOptions } from './player.js';
export { init, catalog, isReady, limit } from './wasm.js';
export type { WasmSource } from './wasm.js';
export { chaosDigest, runChaosSeed, runChaosSeedSync } from './chaos.js';
export { LINK_FORMAT } from './link.js';
export * from './types.js';
