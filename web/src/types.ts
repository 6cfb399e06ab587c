/**
 * The public types of `kraft-playground`: options, views, trace events.
 * Times are simulated milliseconds; node ids are 0-based (voters `0..V-1`, observers
 * after them).
 *
 * The shapes the core returns are generated from its Rust types into
 * `generated/wire.ts` (`UPDATE=1 cargo test --release --lib wire` rewrites it) and
 * re-exported here under the package's names; what is written here is JavaScript-only:
 * the options the API accepts and their shorthands.
 * @module
 */

import type { KafkaRelease, QuorumConfigKey, RecordBody, SafetySwitch, TraceEvent } from './generated/wire.js';

export type {
  Action,
  Baseline,
  CaptionSpan,
  Catalog,
  ClusterSpec,
  DropReason,
  FaultName,
  InFlightMessage,
  InvariantName,
  KafkaRelease,
  LaneBand,
  LaneMark,
  LaneMarkKind,
  LeaderChange,
  LeaderInfo,
  Limit,
  LinkFaults,
  LogRecord,
  LostRound,
  MetadataImageInfo,
  NetworkState,
  NodeInfo,
  QuorumConfigKey,
  QuorumDescription,
  QuorumStatus,
  RecordBody,
  ReplicationRow,
  Role,
  RpcKind,
  SafetySwitch,
  ScenarioExpectationReport,
  ScenarioMeasurement,
  ScenarioReport,
  ScenarioStepReport,
  ScenarioViolationReport,
  SeedOutcome,
  SnapshotId,
  StateName,
  TimedAction,
  TimerInfo,
  TopicInfo,
  TraceEvent,
  TransitionReason,
  VoteReason,
} from './generated/wire.js';

/** Quorum configuration by key: milliseconds, or bytes for the `*.max.bytes` limits. */
export type QuorumConfig = Partial<Record<QuorumConfigKey, number>>;

/** Named network presets. All keep Kafka's timeouts. */
export type NetworkPreset = 'datacenter' | 'teaching' | 'wan';

/** An explicit network profile. */
export interface NetworkProfile {
  /** One-way latency in ms: a fixed value or a `[min, max]` range (uniform). */
  latencyMs: number | [number, number];
  /** Probability in [0, 1] that a message is lost. Default 0. */
  loss?: number;
  /** Probability in [0, 1] that a message is delivered twice. Default 0. */
  duplicate?: number;
}

/** Options of {@link Cluster.create}. Every field is optional. */
export interface ClusterOptions {
  /** Number of voters (the controller quorum), 1 to 7. Default 3. */
  voters?: number;
  /** Number of observers (brokers), 0 to 8. Default 0. */
  observers?: number;
  /**
   * The seed of every random choice (a safe integer >= 0). Omitted: a random seed from
   * the platform's secure random source, readable back as {@link Cluster.seed}.
   */
  seed?: number;
  /** A preset name or an explicit profile. Default `'datacenter'` (1-5 ms). */
  network?: NetworkPreset | NetworkProfile;
  /** Kafka's `controller.quorum.*` settings, in ms. */
  config?: QuorumConfig;
  /** Safety rules to switch off. Default none (Kafka's behaviour). */
  unsafe?: SafetySwitch[];
  /** Disk flush latency of every node in ms, 0 to 60000. Default 1. */
  flushMs?: number;
  /**
   * Each node snapshots its state machine every this many applied records (0: never, else
   * >= 10), the simulator's stand-in for Kafka's `metadata.log.max.record.bytes.between.snapshots`.
   * A snapshot keeps the log; the cleaner drops old records by retention (`metadata.max.retention.*`).
   * Default 1000.
   */
  snapshotInterval?: number;
  /** Client writes per second from the start, 0 to 1000. Default 0. */
  writesPerSecond?: number;
  /** Also check the StableLeadership invariant (for pre-vote experiments). Default false. */
  stableLeadership?: boolean;
  /**
   * The Kafka release whose raft behaviour the run models where releases differ
   * (`'3.9'`, `'4.0'`, `'4.1'`, `'4.2'`: quorum-state writes cost a flush, voters send
   * UpdateRaftVoter, ...; `catalog().releases` says what each changes). Default
   * `'legacy'`: the playground's model before releases were modelled, which is no Kafka
   * release (a static quorum as before KIP-853, quorum-state writes for free).
   */
  kafkaRelease?: KafkaRelease;
  /**
   * How the controllers were formatted: `'static'` (controller.quorum.voters, the
   * default) or `'dynamic'` (KIP-853, Kafka 3.9+: nodes 0..voters-1 are the initial
   * controllers, the others observers until {@link Cluster.addVoter}). Dynamic needs a
   * `kafkaRelease` of 3.9 or later.
   */
  quorum?: 'static' | 'dynamic';
}

/** The metadata records a client can write (the core's tiny model of Kafka's metadata log). */
export type WritableRecord =
  | { type: 'RegisterBroker'; brokerId: number }
  | { type: 'UnregisterBroker'; brokerId: number }
  | { type: 'CreateTopic'; name: string; partitions: number }
  | { type: 'DeleteTopic'; name: string }
  | { type: 'PartitionChange'; topic: string; partition: number; leader: number };

/** The kind names of records. */
export type RecordKind = RecordBody['type'];

/** The result of {@link Cluster.write}: the precise form of the core's `WriteOutput`. A rejection is not an exception. */
export type WriteResult = { accepted: true; offset: number; node: number } | { accepted: false; reason: string };

/** Fields every event has. */
export type EventBase = Pick<TraceEvent, 'seq' | 't' | 'text'>;

/** A trace event that may lack `text` (`events({ text: false })` or a list of types). */
export type TraceEventMaybeText = { [T in EventType]: Omit<EventOf<T>, 'text'> & { text?: string } }[EventType];

/** The event types {@link Cluster.packedEvents} packs as numbers (`PACKED_ROWS`): without `text` or `summary`. */
export type PackedType = 'send' | 'deliver' | 'drop' | 'disconnect' | 'append' | 'flush' | 'hw';

/**
 * A trace event as {@link Cluster.packedEvents} gives it: a packed type without `text`
 * (and a message without its `summary` unless that tells an outcome), any other maybe
 * with `text`.
 */
export type PackedTraceEvent = {
  [T in EventType]: T extends 'send' | 'deliver'
    ? Omit<EventOf<T>, 'text' | 'summary'> & { summary?: string }
    : T extends PackedType
      ? Omit<EventOf<T>, 'text'>
      : Omit<EventOf<T>, 'text'> & { text?: string };
}[EventType];

/** Filters of {@link Cluster.packedEvents}: as {@link EventQuery}, `text` naming only types that are not packed. */
export interface PackedEventQuery extends Omit<EventQuery, 'text'> {
  text?: boolean | Exclude<EventType, PackedType>[];
}

/** The `type` names of trace events. */
export type EventType = TraceEvent['type'];

/** The trace event of one `type`. */
export type EventOf<T extends EventType> = Extract<TraceEvent, { type: T }>;

/** A message was sent (`dropped` says it will be lost, and why). */
export type SendEvent = EventOf<'send'>;
/** A message arrived. */
export type DeliverEvent = EventOf<'deliver'>;
/** A message died on the way. */
export type DropEvent = EventOf<'drop'>;
/** `node`'s request to `peer` failed fast: `peer`'s process is down (Kafka's BROKER_NOT_AVAILABLE); the failure left `peer` at `sent`. A partitioned peer sends nothing back. */
export type DisconnectEvent = EventOf<'disconnect'>;
/** A node changed state. */
export type StateEvent = EventOf<'state'>;
/** A node wrote its quorum-state file. */
export type PersistEvent = EventOf<'persist'>;
/** A voter decided on a vote or pre-vote request. */
export type VoteEvent = EventOf<'vote'>;
/** Records were appended to a node's log (offsets first..last). */
export type AppendEvent = EventOf<'append'>;
/** A node's log reached the disk up to `offset`. */
export type FlushEvent = EventOf<'flush'>;
/** A node's high watermark moved. */
export type HighWatermarkEvent = EventOf<'hw'>;
/** A node truncated its log (divergence, or replaced by a snapshot when `divergingEpoch` is null). */
export type TruncateEvent = EventOf<'truncate'>;
/** A snapshot was taken, fetched or loaded, or deleted by retention (the log start moved to the next one). */
export type SnapshotEvent = EventOf<'snapshot'>;
/** A node crashed, losing its unflushed records. */
export type CrashEvent = EventOf<'crash'>;
/** A crashed node started again. */
export type RestartEvent = EventOf<'restart'>;
/** A fault or operator action was applied. */
export type FaultEvent = EventOf<'fault'>;
/** A client write was accepted or rejected. */
export type WriteEvent = EventOf<'write'>;
/** An invariant was violated; `evidence` lists the seqs of the events that show it. */
export type ViolationEvent = EventOf<'violation'>;

/** Filters of {@link Cluster.events}. */
export interface EventQuery {
  /** Only events with `seq > since`. */
  since?: number;
  /** Only events with `t >= from`. */
  from?: number;
  /** Only events with `t <= to`. */
  to?: number;
  /** At most this many (the earliest). */
  limit?: number;
  /**
   * Which events carry their one-line `text`: all (`true`, the default), none (`false`),
   * or those of the types listed (e.g. `['state', 'fault']`). Leaving it out of message
   * traffic makes large windows several times cheaper.
   */
  text?: boolean | EventType[];
}

/** Options of {@link Cluster.runUntil}. */
export interface RunUntilOptions {
  /** Give up after this many simulated ms. Default 60000. */
  timeoutMs?: number;
}

/** Options of the chaos sweep. */
export interface SweepOptions {
  /** Simulated seconds per seed, at least 20 (the calm tail alone is 15 s). */
  seconds: number;
  /** Voters, 1 to 7. Default 3. */
  voters?: number;
  /** Observers, 0 to 8. Default 1. */
  observers?: number;
  /** Safety rules to switch off. */
  unsafe?: SafetySwitch[];
}

/** Options of {@link runScenario} / `Cluster.fromScenario`. */
export interface ScenarioOptions {
  /** Run with this seed instead of the scenario's. */
  seed?: number;
  /** Safety rules to switch off on top of the scenario's (and its variant's). */
  unsafe?: SafetySwitch[];
  /** Run one of the scenario's variants (e.g. its unsafe one) by name. */
  variant?: string;
}
