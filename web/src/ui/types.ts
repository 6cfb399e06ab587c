// The shapes the UI reads: trace events are the package's generated `TraceEvent`
// (crate/src/trace.rs); node views are kept structural and local (crate/src/sim/view.rs)
// so the UI depends only on the fields it draws.

import type { QuorumDescription, RpcKind, StateName, TraceEvent } from '../types.js';

export type { StateName };
export type RpcName = RpcKind;

/** Any trace event: a discriminated union on `type`. */
export type UiEvent = TraceEvent;
/** The trace event of one `type`. */
export type UiEventOf<T extends UiEvent['type']> = Extract<UiEvent, { type: T }>;

export interface TimerView {
  kind: string;
  deadline: number;
  total: number;
}

export interface LogRecord {
  offset: number;
  epoch: number;
  id?: number;
  record?: { type: string; [k: string]: unknown };
}

export interface NodeInfo {
  id: number;
  role: 'voter' | 'observer';
  state: StateName;
  epoch: number;
  leader?: number | null;
  votedFor?: number | null;
  leo: number;
  hw: number | null;
  logStart: number;
  flushed?: number;
  lastEpoch?: number;
  timer?: TimerView | null;
  busyUntil?: number | null;
  flushMs?: number;
  snapshot?: { endOffset: number; epoch: number } | null;
  applied?: number;
  brokers?: number;
  topics?: number;
  log?: LogRecord[];
}

/** What `cluster.describeQuorum()` returns (the package's type). */
export type QuorumInfo = QuorumDescription;

export const RPC_KINDS: RpcName[] = [
  'PreVote',
  'PreVoteResponse',
  'Vote',
  'VoteResponse',
  'BeginQuorumEpoch',
  'BeginQuorumEpochResponse',
  'EndQuorumEpoch',
  'EndQuorumEpochResponse',
  'Fetch',
  'FetchResponse',
  'FetchSnapshot',
  'FetchSnapshotResponse',
];

/** Legend groups: a request and its response share a colour (responses are dashed). */
export const RPC_GROUPS = ['PreVote', 'Vote', 'BeginQuorumEpoch', 'EndQuorumEpoch', 'Fetch', 'FetchSnapshot'] as const;
export type RpcGroup = (typeof RPC_GROUPS)[number];

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

export const STATES: StateName[] = ['unattached', 'prospective', 'candidate', 'leader', 'follower', 'resigned', 'crashed'];
export function stateIndex(s: string): number {
  const i = STATES.indexOf(s as StateName);
  return Math.max(i, 0);
}

/** The invariants the checker watches, with what each protects (crate/src/trace.rs). */
export const INVARIANTS: [string, string][] = [
  ['SingleLeader', 'no two different leaders are ever recorded for one epoch'],
  ['MonotonicEpoch', "a node's persisted epoch never decreases and matches its in-memory epoch"],
  ['MonotonicHighWatermark', 'the HW of the highest-epoch leader never decreases'],
  ['MajorityReachedHighWatermark', "a majority of voters hold every record below the leader's HW"],
  ['SnapshotAtLogStart', 'a log that starts above 0 starts exactly at a valid snapshot'],
  ['LeaderNeverLoadSnapshot', 'a leader never loads a snapshot into its state machine'],
  ['ConsistentCommittedData', 'no two nodes ever expose different records at one offset below their HW'],
  ['LogMatching', 'the same (offset, epoch) on two logs means the same record and the same prefix'],
  ['LeaderCompleteness', 'every committed record is in the log of every later leader'],
  ['NoTruncationBelowHighWatermark', 'no node truncates records below its own HW'],
  ['StableLeadership', 'after the first leader, leadership never changes while a majority is connected (checked only when a scenario asks)'],
];

/** The safety switches (unsafe mode), with what turning each off does. */
export const SWITCHES: [string, string][] = [
  ['hw-before-own-epoch', "leader may commit earlier epochs' records before one of its own (Raft figure 8)"],
  ['vote-ignores-log', "voters grant votes without checking the candidate's log is up to date"],
  ['no-pre-vote', 'elections skip the pre-vote round, so a rejoining voter bumps the epoch (KIP-996)'],
  ['no-check-quorum', 'a leader cut off from the majority never resigns (KAFKA-15489)'],
  ['no-resign-on-restart', 'a restarted leader resumes leading its old epoch (KAFKA-10527)'],
  ['ack-before-flush', 'followers report fetch offsets before flushing them to disk'],
];

export const NETWORKS: [string, string][] = [
  ['teaching', 'teaching (60–140 ms links)'],
  ['wan', 'wan (20–80 ms links)'],
  ['datacenter', 'datacenter (1–5 ms links)'],
];
