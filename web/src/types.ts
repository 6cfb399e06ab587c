/**
 * The public types of `kraft-playground`: options, views, trace events.
 * Times are simulated milliseconds; node ids are 0-based (voters `0..V-1`, observers
 * after them).
 * @module
 */

/**
 * The configuration keys the simulator understands: Kafka's `controller.quorum.*` keys,
 * `sim.fetchMaxWaitMs`, a simulator-only knob for the Fetch wait Kafka fixes at
 * 500 ms (`KafkaRaftClient.MAX_FETCH_WAIT_MS`), and Kafka's snapshot and retention keys
 * (`metadata.*`), whose defaults are scaled down for a playground: 1 min, 256 KiB and
 * 5 min (Kafka: 1 h, 100 MiB, 7 days).
 */
export type QuorumConfigKey =
  | 'controller.quorum.fetch.timeout.ms'
  | 'controller.quorum.election.timeout.ms'
  | 'controller.quorum.election.backoff.max.ms'
  | 'controller.quorum.request.timeout.ms'
  | 'controller.quorum.retry.backoff.ms'
  | 'controller.quorum.append.linger.ms'
  | 'controller.quorum.fetch.max.bytes'
  | 'controller.quorum.fetch.snapshot.max.bytes'
  | 'sim.fetchMaxWaitMs'
  | 'metadata.log.max.snapshot.interval.ms'
  | 'metadata.max.retention.bytes'
  | 'metadata.max.retention.ms';

/** Quorum configuration by key: milliseconds, or bytes for the `*.max.bytes` limits. */
export type QuorumConfig = Partial<Record<QuorumConfigKey, number>>;

/**
 * KRaft safety rules that can be switched off ("unsafe mode") to watch what breaks.
 * - `hw-before-own-epoch`: the leader may commit earlier epochs' records before one of its own (Raft figure 8)
 * - `vote-ignores-log`: votes are granted without checking the candidate's log is up to date
 * - `no-pre-vote`: elections skip the pre-vote round (KIP-996)
 * - `no-check-quorum`: a leader cut off from the majority never resigns (KAFKA-15489)
 * - `no-resign-on-restart`: a restarted leader resumes leading its old epoch (KAFKA-10527)
 * - `ack-before-flush`: followers report fetch offsets before flushing them to disk
 */
export type SafetySwitch =
  | 'hw-before-own-epoch'
  | 'vote-ignores-log'
  | 'no-pre-vote'
  | 'no-check-quorum'
  | 'no-resign-on-restart'
  | 'ack-before-flush';

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

/** The network as it is now (what {@link Cluster.network} returns). */
export interface NetworkState {
  latencyMs: [number, number];
  loss: number;
  duplicate: number;
}

/** Each link fault in force, as it was made (see {@link Cluster.linkFaults}). */
export interface LinkFaults {
  /** The partition's groups (every node in one), or empty when the network is not partitioned. */
  groups: number[][];
  /** Isolated nodes (cut off from every other node until reconnected). */
  isolated: number[];
  /** One-way cuts `[from, to]`, oldest first. */
  cuts: [number, number][];
  /** One-way links with their own latency. */
  slowLinks: { from: number; to: number; latencyMs: [number, number] }[];
}

/** What undoing every fault restores: the cluster's network and disk flush latency as created. */
export interface Baseline {
  network: NetworkState;
  flushMs: number;
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
}

/** Replica states. `crashed` means the process is down (its disk survives). */
export type StateName =
  | 'unattached'
  | 'prospective'
  | 'candidate'
  | 'leader'
  | 'follower'
  | 'resigned'
  | 'crashed';

/** A node's role in the quorum. */
export type Role = 'voter' | 'observer';

/** The metadata records a client can write (the core's tiny model of Kafka's metadata log). */
export type WritableRecord =
  | { type: 'RegisterBroker'; brokerId: number }
  | { type: 'UnregisterBroker'; brokerId: number }
  | { type: 'CreateTopic'; name: string; partitions: number }
  | { type: 'DeleteTopic'; name: string }
  | { type: 'PartitionChange'; topic: string; partition: number; leader: number };

/** Any record body in a log: the writable ones plus KRaft's LeaderChange control record. */
export type RecordBody = WritableRecord | { type: 'LeaderChange'; leader: number; voters: number[] };

/** The kind names of records. */
export type RecordKind = RecordBody['type'];

/** One record of a node's log. */
export interface LogRecord {
  offset: number;
  /** The leader epoch that wrote it. */
  epoch: number;
  /** Unique id of the write (two records that look alike are told apart by it). */
  id: number;
  record: RecordBody;
}

/** A snapshot id: the state machine image below `endOffset`, taken in `epoch`. */
export interface SnapshotId {
  endOffset: number;
  epoch: number;
}

/** The timer that ends a node's current state. */
export interface TimerInfo {
  kind: 'election' | 'fetch' | 'check-quorum';
  /** When it fires (simulated ms). */
  deadline: number;
  /** Its full length in ms. */
  total: number;
}

/** One node as the panels show it (what {@link Cluster.nodes} returns). */
export interface NodeInfo {
  id: number;
  role: Role;
  state: StateName;
  epoch: number;
  /** The leader it knows for its epoch. */
  leader: number | null;
  votedFor: number | null;
  /** Log end offset. */
  leo: number;
  /** This node's high watermark: a leader's is what its Fetch responses carry (none until it commits a record of its epoch); null before it learns one and while crashed. */
  hw: number | null;
  logStart: number;
  /** Offset up to which the log is on disk. */
  flushed: number;
  /** Epoch of the last record in its log. */
  lastEpoch: number;
  timer: TimerInfo | null;
  /** Blocked in a disk flush until this time, or null. */
  busyUntil: number | null;
  flushMs: number;
  snapshot: SnapshotId | null;
  /** Offset up to which records are applied to its metadata image. */
  applied: number;
  /** Brokers and topics in its metadata image. */
  brokers: number;
  topics: number;
  /** Its log records from log start (absent when `nodes({ records: false })`). */
  records?: LogRecord[];
}

/** `{ id, epoch }` of the current leader. */
export interface LeaderInfo {
  id: number;
  epoch: number;
}

/** `kafka-metadata-quorum describe --status`. -1 where the tool prints -1. */
export interface QuorumStatus {
  clusterId: string;
  leaderId: number;
  leaderEpoch: number;
  highWatermark: number;
  maxFollowerLag: number;
  maxFollowerLagTimeMs: number;
  currentVoters: number[];
  currentObservers: number[];
}

/** One row of `kafka-metadata-quorum describe --replication`. */
export interface ReplicationRow {
  nodeId: number;
  logEndOffset: number;
  lag: number;
  lastFetchTimestamp: number;
  lastCaughtUpTimestamp: number;
  status: 'Leader' | 'Follower' | 'Observer';
}

/** What {@link Cluster.describeQuorum} returns (asked of the leader). */
export interface QuorumDescription {
  status: QuorumStatus;
  replication: ReplicationRow[];
}

/** The result of {@link Cluster.write}. A rejection is not an exception. */
export type WriteResult =
  | { accepted: true; offset: number; node: number }
  | { accepted: false; reason: string };

/** A message on the wire right now. */
export interface InFlightMessage {
  id: number;
  from: number;
  to: number;
  rpc: RpcKind;
  epoch: number;
  summary: string;
  sent: number;
  arrives: number;
  duplicate: boolean;
}

/** KRaft RPC kinds (pre-votes are Vote requests with `preVote` set, shown apart). */
export type RpcKind =
  | 'Vote'
  | 'VoteResponse'
  | 'PreVote'
  | 'PreVoteResponse'
  | 'BeginQuorumEpoch'
  | 'BeginQuorumEpochResponse'
  | 'EndQuorumEpoch'
  | 'EndQuorumEpochResponse'
  | 'Fetch'
  | 'FetchResponse'
  | 'FetchSnapshot'
  | 'FetchSnapshotResponse';

/** Why a message was dropped. */
export type DropReason = 'loss' | 'partition' | 'node-down';

/** Why a node changed state. */
export type TransitionReason =
  | 'startup'
  | 'restart'
  | 'election-timeout'
  | 'fetch-timeout'
  | 'pre-vote-granted'
  | 'pre-vote-rejected'
  | 'pre-vote-timed-out'
  | 'vote-granted'
  | 'higher-epoch'
  | 'leader-discovered'
  | 'voted-for-candidate'
  | 'resign'
  | 'check-quorum-failed'
  | 'resigned-timeout';

/** A voter's decision on a (pre-)vote request. */
export type VoteReason =
  | 'granted'
  | 'granted-again'
  | 'log-not-up-to-date'
  | 'already-voted'
  | 'knows-leader'
  | 'is-leader'
  | 'is-candidate'
  | 'is-resigned'
  | 'follower-has-fetched'
  | 'is-follower'
  | 'stale-epoch'
  | 'not-a-voter'
  | 'invalid-request';

/** The safety invariants the checker watches after every event. */
export type InvariantName =
  | 'SingleLeader'
  | 'MonotonicEpoch'
  | 'MonotonicHighWatermark'
  | 'MajorityReachedHighWatermark'
  | 'SnapshotAtLogStart'
  | 'LeaderNeverLoadSnapshot'
  | 'ConsistentCommittedData'
  | 'LogMatching'
  | 'LeaderCompleteness'
  | 'NoTruncationBelowHighWatermark'
  | 'StableLeadership';

/** Fault and operator action kinds as the trace records them. */
export type FaultName =
  | 'isolate'
  | 'reconnect'
  | 'partition'
  | 'healPartition'
  | 'cut'
  | 'uncut'
  | 'slowLink'
  | 'clearSlowLink'
  | 'heal'
  | 'network'
  | 'slowDisk'
  | 'workload'
  | 'resign'
  | 'wipe';

/** Fields every event has. */
export interface EventBase {
  /** Sequence number, from 1, strictly increasing. */
  seq: number;
  /** Simulated time in ms. */
  t: number;
  /** The one-line text form (what the CLI prints and the digest hashes). */
  text: string;
}

/** A message was sent (`dropped` says it will be lost, and why). */
export interface SendEvent extends EventBase {
  type: 'send';
  msg: number;
  from: number;
  to: number;
  rpc: RpcKind;
  epoch: number;
  summary: string;
  arrives: number;
  dropped: DropReason | null;
}

/** A message arrived. */
export interface DeliverEvent extends EventBase {
  type: 'deliver';
  msg: number;
  from: number;
  to: number;
  rpc: RpcKind;
  epoch: number;
  summary: string;
  sent: number;
  duplicate: boolean;
}

/** A message died on the way. */
export interface DropEvent extends EventBase {
  type: 'drop';
  msg: number;
  from: number;
  to: number;
  rpc: RpcKind;
  epoch: number;
  sent: number;
  reason: DropReason;
}

/**
 * `node`'s request to `peer` failed fast: the connection was refused or reset because
 * `peer`'s process is down (Kafka's BROKER_NOT_AVAILABLE); the failure left `peer` at `sent`.
 * The node backs off `retry.backoff.ms` and retries. A partitioned peer sends nothing back.
 */
export interface DisconnectEvent extends EventBase {
  type: 'disconnect';
  node: number;
  peer: number;
  rpc: RpcKind;
  sent: number;
}

/** A node changed state. */
export interface StateEvent extends EventBase {
  type: 'state';
  node: number;
  from: StateName;
  to: StateName;
  epoch: number;
  leader: number | null;
  votedFor: number | null;
  reason: TransitionReason;
}

/** A node wrote its quorum-state file. */
export interface PersistEvent extends EventBase {
  type: 'persist';
  node: number;
  epoch: number;
  leader: number | null;
  votedFor: number | null;
}

/** A voter decided on a vote or pre-vote request. */
export interface VoteEvent extends EventBase {
  type: 'vote';
  node: number;
  candidate: number;
  epoch: number;
  preVote: boolean;
  granted: boolean;
  reason: VoteReason;
  detail: string;
}

/** Records were appended to a node's log (offsets first..last). */
export interface AppendEvent extends EventBase {
  type: 'append';
  node: number;
  first: number;
  last: number;
  epoch: number;
  kind: string;
}

/** A node's log reached the disk up to `offset`. */
export interface FlushEvent extends EventBase {
  type: 'flush';
  node: number;
  offset: number;
}

/** A node's high watermark moved. */
export interface HighWatermarkEvent extends EventBase {
  type: 'hw';
  node: number;
  old: number | null;
  new: number;
}

/** A node truncated its log (divergence, or replaced by a snapshot when `divergingEpoch` is null). */
export interface TruncateEvent extends EventBase {
  type: 'truncate';
  node: number;
  fromLeo: number;
  to: number;
  divergingEpoch: number | null;
  hw: number | null;
}

/** A snapshot was taken, fetched or loaded, or deleted by retention (the log start moved to the next one). */
export interface SnapshotEvent extends EventBase {
  type: 'snapshot';
  node: number;
  action: 'taken' | 'fetched' | 'loaded' | 'deleted';
  endOffset: number;
  epoch: number;
}

/** A node crashed, losing its unflushed records. */
export interface CrashEvent extends EventBase {
  type: 'crash';
  node: number;
  lostRecords: number;
}

/** A crashed node started again. */
export interface RestartEvent extends EventBase {
  type: 'restart';
  node: number;
}

/** A fault or operator action was applied. */
export interface FaultEvent extends EventBase {
  type: 'fault';
  fault: FaultName;
  nodes: number[];
  detail: string;
}

/** A client write was accepted or rejected. */
export interface WriteEvent extends EventBase {
  type: 'write';
  node: number | null;
  accepted: boolean;
  offset: number | null;
  kind: string;
}

/** An invariant was violated; `evidence` lists the seqs of the events that show it. */
export interface ViolationEvent extends EventBase {
  type: 'violation';
  invariant: InvariantName;
  node: number | null;
  detail: string;
  evidence: number[];
}

/** Every trace event: a discriminated union on `type`. */
export type TraceEvent =
  | SendEvent
  | DeliverEvent
  | DropEvent
  | DisconnectEvent
  | StateEvent
  | PersistEvent
  | VoteEvent
  | AppendEvent
  | FlushEvent
  | HighWatermarkEvent
  | TruncateEvent
  | SnapshotEvent
  | CrashEvent
  | RestartEvent
  | FaultEvent
  | WriteEvent
  | ViolationEvent;

/** The `type` names of trace events. */
export type EventType = TraceEvent['type'];

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
}

/** A user action as the input log records it (what a link carries). */
export type Action =
  | { action: 'crash'; node: number }
  | { action: 'wipe'; node: number }
  | { action: 'restart'; node: number }
  | { action: 'isolate'; node: number }
  | { action: 'reconnect'; node: number }
  | { action: 'partition'; groups: number[][] }
  | { action: 'healPartition' }
  | { action: 'cut'; from: number; to: number }
  | { action: 'uncut'; from: number; to: number }
  | { action: 'slowLink'; from: number; to: number; latencyMs: [number, number] }
  | { action: 'clearSlowLink'; from: number; to: number }
  | { action: 'heal' }
  | { action: 'network'; latencyMs: [number, number]; loss?: number; duplicate?: number }
  | { action: 'slowDisk'; node: number; flushMs: number }
  | { action: 'resign' }
  | { action: 'workload'; writesPerSecond: number }
  | { action: 'write'; record?: WritableRecord };

/** An action at a simulated time. */
export type TimedAction = Action & { t: number };

/** Options of {@link Cluster.runUntil}. */
export interface RunUntilOptions {
  /** Give up after this many simulated ms. Default 60000. */
  timeoutMs?: number;
}

/** One bounded number (a config key, a cluster option or a bound on a call) from the core's table of limits. */
export interface Limit {
  /** The option, field or config key it bounds (`voters`, `controller.quorum.fetch.timeout.ms`). */
  key: string;
  /** What it means, in one line. */
  description: string;
  /** The value when none is given (absent for a bound on a call). */
  default?: number;
  min: number;
  /** null: no upper bound. */
  max: number | null;
  unit?: 'ms' | 's' | 'bytes' | 'ppm';
  /** 0 is accepted too, below `min`: it turns the thing off. */
  zeroTurnsOff: boolean;
}

/** Names and limits of the core: the package reads its bounds from here. */
export interface Catalog {
  version: string;
  configKeys: (Limit & { key: QuorumConfigKey; default: number; max: number })[];
  /** The cluster's other options and the bounds on calls: voters, observers, flushMs, latencyMs, advanceMs, ... */
  limits: Limit[];
  switches: { name: SafetySwitch; explanation: string }[];
  invariants: { name: InvariantName; explanation: string }[];
  presets: ({ name: NetworkPreset } & NetworkState)[];
}

/** The outcome of one chaos-sweep seed. */
export interface SeedOutcome {
  seed: number;
  passed: boolean;
  /** Did the quorum commit new records in the calm tail after healing? */
  madeProgress: boolean;
  violations: { invariant: InvariantName; detail: string }[];
  events: number;
  simulatedMs: number;
  /** The native command that reproduces this seed. */
  reproduce: string;
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

/** A run of caption text in one style (render each as a text node, never as HTML). */
export interface CaptionSpan {
  style: 'plain' | 'bold' | 'em' | 'code';
  text: string;
}

/** One scenario step as it happened. */
export interface ScenarioStepReport {
  index: number;
  label: string | null;
  /** When it happened (ms); null when the run ended first. */
  t: number | null;
  /** The action with its nodes resolved (what went into the input log). */
  action: Action | null;
  caption: string | null;
  captionSpans: CaptionSpan[];
  /** The scenario asks the UI to pause here. */
  pause: boolean;
  ok: boolean;
  /** What happened, e.g. "waited 1.571s until a leader is elected: n0". */
  note: string;
}

/** One expectation with its verdict. */
export interface ScenarioExpectationReport {
  index: number;
  /** The key it was written with (`leaderElectedBy`, `failover`, ...). */
  kind: string;
  passed: boolean;
  /** One line with the measured numbers. */
  explanation: string;
  note: string | null;
}

/** An invariant violation seen in a scenario run. */
export interface ScenarioViolationReport {
  seq: number;
  t: number;
  invariant: InvariantName;
  node: number | null;
  detail: string;
  /** Asked for by a `violated` expectation (an unsafe variant showing what breaks). */
  expected: boolean;
}

/** A measurement the scenario asked for. */
export interface ScenarioMeasurement {
  kind: string;
  name: string;
  text: string;
  valueMs: number | null;
  count: number | null;
  parts: { name: string; ms: number }[];
}

/** What a scenario run reports. */
export interface ScenarioReport {
  id: string;
  title: string;
  variant: string | null;
  seed: number;
  unsafe: SafetySwitch[];
  /** Every step happened, every expectation held, no unexpected invariant violation. */
  passed: boolean;
  /** Simulated time at the end of the run (ms). */
  endMs: number;
  steps: ScenarioStepReport[];
  expectations: ScenarioExpectationReport[];
  violations: ScenarioViolationReport[];
  measurements: ScenarioMeasurement[];
  /** The cluster that ran (seed and switches as used). */
  spec: ClusterOptions;
  /** The resolved input log: with `spec`, it replays the run exactly. */
  inputs: TimedAction[];
  /** Number of trace events. */
  events: number;
  /** Trace digest, as `cluster.digest()` gives it. */
  digest: string;
}
