// The shapes the UI reads, all generated from the core's types (generated/wire.ts):
// trace events (crate/sim/src/trace.rs), node views and log records (crate/sim/src/view.rs),
// and the invariants and safety switches with their explanations.

import { Cluster, SPAN_RPCS } from '../../api.js';
import { BAND_STATES, REPAIRS } from '../../generated/wire.js';
import type { EventOf, EventType, InvariantName, LogRecord, NodeInfo, QuorumDescription, RpcKind, SafetySwitch, StateName } from '../../types.js';

export type { LogRecord, NodeInfo, StateName };
export type RpcName = RpcKind;

/**
 * Every invariant the checker watches, with what it protects; every safety switch, with
 * what turning it off does. Read from the core's catalog, which the package's API module
 * carries: the page has their explanations once, not also in the element's code.
 */
export const invariants = (): [InvariantName, string][] => Cluster.__catalog().invariants.map((i) => [i.name, i.explanation]);
export const switches = (): [SafetySwitch, string][] => Cluster.__catalog().switches.map((s) => [s.name, s.explanation]);

/**
 * A trace event as the UI reads it, a discriminated union on `type`: a mark's event (with
 * its `text`), one the player's frames bring (packed: a message's `summary` only when it
 * tells an outcome), or one read for what the highlight rings (without `text`).
 */
export type UiEvent = {
  [T in EventType]: T extends 'send' | 'deliver' ? Omit<EventOf<T>, 'text' | 'summary'> & { summary?: string; text?: string } : Omit<EventOf<T>, 'text'> & { text?: string };
}[EventType];
/** The trace event of one `type`. */
export type UiEventOf<T extends UiEvent['type']> = Extract<UiEvent, { type: T }>;

/** What `cluster.describeQuorum()` returns (the package's type). */
export type QuorumInfo = QuorumDescription;

/** KIP-853's voter-change RPCs: no cluster sends them yet, so the legend leaves them out
 * until the UI draws membership changes (issue 29). */
type VoterChangeGroup = 'AddRaftVoter' | 'RemoveRaftVoter' | 'UpdateRaftVoter' | 'ApiVersions';
/** A legend group: a request kind, whose response shares its colour (dashed). */
export type RpcGroup = Exclude<RpcName, `${string}Response` | VoterChangeGroup>;

/** Every RPC kind in legend order, each request followed by its response: the core's numbering of a message span's `rpc` (`rpcIndex` relies on it). */
export const RPC_KINDS: readonly RpcName[] = SPAN_RPCS;
/** The legend's groups in that order: the requests. */
export const RPC_GROUPS = RPC_KINDS.filter((_, i) => i % 2 === 0) as readonly RpcGroup[];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** Fails to compile when a drawn request kind of the core has no response kind. */
export type LegendCoversEveryRpc = Assert<Same<RpcGroup | `${RpcGroup}Response`, Exclude<RpcName, VoterChangeGroup | `${VoterChangeGroup}Response`>>>;

export function rpcIndex(rpc: string): number {
  const i = RPC_KINDS.indexOf(rpc as RpcName);
  return i < 0 ? 8 : i;
}
export function rpcGroupIndex(rpc: string): number {
  return rpcIndex(rpc) >> 1;
}
export function isResponse(rpc: string): boolean {
  return (rpcIndex(rpc) & 1) === 1;
}

/** Every state a node's band shows, in the core's numbering of a band's `state`. */
export const STATES: readonly StateName[] = BAND_STATES;
export function stateIndex(s: string): number {
  const i = STATES.indexOf(s as StateName);
  return Math.max(i, 0);
}

/** Fault events that undo faults (drawn green, not red): the core's catalog says which. */
const REPAIR_SET: ReadonlySet<string> = new Set(REPAIRS);
export const isRepair = (fault: string | undefined): boolean => REPAIR_SET.has(fault ?? '');

export const NETWORKS: [string, string][] = [
  ['teaching', 'teaching (60–140 ms links)'],
  ['wan', 'wan (20–80 ms links)'],
  ['datacenter', 'datacenter (1–5 ms links)'],
];
