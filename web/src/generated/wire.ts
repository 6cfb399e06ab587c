// Generated from the Rust types by ts-rs (crate/wasm/src/wire.rs): do not edit.
// `UPDATE=1 cargo test --release --lib wire` rewrites it.

/**
 * The JSON form of an event: `seq`, `t`, its kind's fields (`type` first), then `text`.
 */
export type TraceEvent = { 
/**
 * Sequence number, from 1, strictly increasing.
 */
seq: number, 
/**
 * Simulated time in ms.
 */
t: number, 
/**
 * The one-line text form (what the CLI prints). The digest hashes the events' binary
 * form, not this text.
 */
text: string, } & ({ "type": "send", msg: number, from: number, to: number, rpc: RpcKind, epoch: number, summary: string, arrives: number, dropped: DropReason | null, } | { "type": "deliver", msg: number, from: number, to: number, rpc: RpcKind, epoch: number, summary: string, sent: number, duplicate: boolean, } | { "type": "drop", msg: number, from: number, to: number, rpc: RpcKind, epoch: number, sent: number, reason: DropReason, } | { "type": "disconnect", node: number, peer: number, rpc: RpcKind, sent: number, } | { "type": "state", node: number, from: StateName, to: StateName, epoch: number, leader: number | null, votedFor: number | null, reason: TransitionReason, } | { "type": "persist", node: number, epoch: number, leader: number | null, votedFor: number | null, } | { "type": "vote", node: number, candidate: number, epoch: number, preVote: boolean, granted: boolean, reason: VoteReason, detail: string, } | { "type": "append", node: number, first: number, last: number, epoch: number, kind: string, } | { "type": "flush", node: number, offset: number, } | { "type": "hw", node: number, old: number | null, new: number, 
/**
 * At a leader: the voters whose fetch offsets reached `new` (the majority it
 * counted); empty at a follower, whose HW is the leader's capped by its LEO.
 */
majority: Array<number>, } | { "type": "truncate", node: number, fromLeo: number, to: number, divergingEpoch: number | null, hw: number | null, } | { "type": "snapshot", node: number, action: SnapshotAction, endOffset: number, epoch: number, } | { "type": "crash", node: number, lostRecords: number, } | { "type": "restart", node: number, } | { "type": "fault" } & FaultFields | { "type": "write", node: number | null, accepted: boolean, offset: number | null, kind: string, } | { "type": "violation", invariant: InvariantName, node: number | null, detail: string, evidence: Array<number>, } | { "type": "admin", node: number | null, 
/**
 * `add-controller` or `remove-controller`, as `kafka-metadata-quorum.sh` names them.
 */
request: string, voter: number, error: string, rule: string, });

/**
 * What happened; its JSON form is tagged by `type` (see `EventJson` and `EVENT_FIELDS`).
 */
export type EventKind = { "type": "send", msg: number, from: number, to: number, rpc: RpcKind, epoch: number, summary: string, arrives: number, dropped: DropReason | null, } | { "type": "deliver", msg: number, from: number, to: number, rpc: RpcKind, epoch: number, summary: string, sent: number, duplicate: boolean, } | { "type": "drop", msg: number, from: number, to: number, rpc: RpcKind, epoch: number, sent: number, reason: DropReason, } | { "type": "disconnect", node: number, peer: number, rpc: RpcKind, sent: number, } | { "type": "state", node: number, from: StateName, to: StateName, epoch: number, leader: number | null, votedFor: number | null, reason: TransitionReason, } | { "type": "persist", node: number, epoch: number, leader: number | null, votedFor: number | null, } | { "type": "vote", node: number, candidate: number, epoch: number, preVote: boolean, granted: boolean, reason: VoteReason, detail: string, } | { "type": "append", node: number, first: number, last: number, epoch: number, kind: string, } | { "type": "flush", node: number, offset: number, } | { "type": "hw", node: number, old: number | null, new: number, 
/**
 * At a leader: the voters whose fetch offsets reached `new` (the majority it
 * counted); empty at a follower, whose HW is the leader's capped by its LEO.
 */
majority: Array<number>, } | { "type": "truncate", node: number, fromLeo: number, to: number, divergingEpoch: number | null, hw: number | null, } | { "type": "snapshot", node: number, action: SnapshotAction, endOffset: number, epoch: number, } | { "type": "crash", node: number, lostRecords: number, } | { "type": "restart", node: number, } | { "type": "fault" } & FaultFields | { "type": "write", node: number | null, accepted: boolean, offset: number | null, kind: string, } | { "type": "violation", invariant: InvariantName, node: number | null, detail: string, evidence: Array<number>, } | { "type": "admin", node: number | null, 
/**
 * `add-controller` or `remove-controller`, as `kafka-metadata-quorum.sh` names them.
 */
request: string, voter: number, error: string, rule: string, };

/**
 * The fields a fault adds to a `fault` event.
 */
export type FaultFields = { fault: FaultName, 
/**
 * The nodes it names (a partition: every node of every group).
 */
nodes: Array<number>, detail: string, };

/**
 * Fault and operator action kinds as the trace records them.
 */
export type FaultName = "isolate" | "partition" | "cut" | "uncut" | "slowLink" | "heal" | "network" | "slowDisk" | "workload" | "resign" | "wipe" | "reconnect" | "healPartition" | "clearSlowLink" | "addVoter" | "removeVoter" | "addController";

/**
 * A voter's decision on a (pre-)vote request.
 */
export type VoteReason = "granted" | "granted-again" | "log-not-up-to-date" | "already-voted" | "knows-leader" | "is-leader" | "is-candidate" | "is-resigned" | "follower-has-fetched" | "is-follower" | "stale-epoch" | "invalid-voter-key" | "invalid-request";

/**
 * The JSON half of [`Packed`].
 */
export type PackedRest = { 
/**
 * The strings the packed rows name, by index.
 */
names: Array<string>, 
/**
 * The events that are not packed, oldest first, each with `text` when asked.
 */
events: Array<{ [K in TraceEvent["type"]]: Omit<Extract<TraceEvent, { type: K }>, "text"> & { text?: string } }[TraceEvent["type"]]>, };

/**
 * How one packed field is written as numbers.
 */
export type PackedField = "number" | "maybeNumber" | "flag" | "name" | "maybeName" | "list";

/**
 * The packed event types by code, each with its fields after `seq` and `t` (`packed::ROWS`).
 */
export const PACKED_ROWS: readonly (readonly [TraceEvent["type"], readonly (readonly [string, PackedField])[]])[] = [["send",[["msg","number"],["from","number"],["to","number"],["rpc","name"],["epoch","number"],["arrives","number"],["dropped","maybeName"]]],["deliver",[["msg","number"],["from","number"],["to","number"],["rpc","name"],["epoch","number"],["sent","number"],["duplicate","flag"]]],["drop",[["msg","number"],["from","number"],["to","number"],["rpc","name"],["epoch","number"],["sent","number"],["reason","name"]]],["disconnect",[["node","number"],["peer","number"],["rpc","name"],["sent","number"]]],["append",[["node","number"],["first","number"],["last","number"],["epoch","number"],["kind","name"]]],["flush",[["node","number"],["offset","number"]]],["hw",[["node","number"],["old","maybeNumber"],["new","number"],["majority","list"]]]];

/**
 * A node's state from the event that began it until the next band.
 */
export type LaneBand = { 
/**
 * When it began: the time and seq of its `state` (or `crash`) event.
 */
t: number, seq: number, state: StateName, 
/**
 * The state before it (a crash: the one it crashed in).
 */
from: StateName, epoch: number, leader: number | null, 
/**
 * Why, as its `state` event says; none for a crash.
 */
reason: TransitionReason | null, 
/**
 * A crash: the HW the node last had (a crash forgets it; the logs still mark it).
 */
hw: number | null, };

/**
 * A marked event.
 */
export type LaneMark = { kind: LaneMarkKind, 
/**
 * Its lane; none: the whole cluster (a new leader, a fault).
 */
node: number | null, 
/**
 * With its `text`.
 */
event: TraceEvent, 
/**
 * A truncation: the epochs of the records it removed, from its `to` on (at most
 * `MAX_REMOVED`; none: not known any more).
 */
removed: Array<number | null>, };

/**
 * What the timeline draws a marked event as.
 */
export type LaneMarkKind = "leader" | "truncate" | "crash" | "restart" | "snapshot" | "vote" | "write" | "fault" | "violation";

/**
 * The lanes' numbers begin with these (`lanes::HEADER_FIELDS`); the spans, each lane's bands and steps, and the marks follow.
 */
export const LANES_HEADER: readonly string[] = ["from","to","horizon","spans","lanes","marks"];

/**
 * A span's numbers, in order (`lanes::SPAN_FIELDS`).
 */
export const SPAN_FIELDS: readonly string[] = ["msg","from","to","rpc","epoch","sent","arrives","end","dropped","planned","flags","outcome","seq","endSeq"];

/**
 * A band's numbers, in order (`lanes::BAND_FIELDS`).
 */
export const BAND_FIELDS: readonly string[] = ["t","seq","state","from","epoch","leader","reason","hw"];

/**
 * A step's numbers, in order (`lanes::STEP_FIELDS`; `value` NaN for none).
 */
export const STEP_FIELDS: readonly string[] = ["t","value","seq"];

/**
 * A span's `rpc`: the timeline legend's order, each request followed by its response (`lanes::RPC_ORDER`).
 */
export const SPAN_RPCS: readonly RpcKind[] = ["PreVote","PreVoteResponse","Vote","VoteResponse","BeginQuorumEpoch","BeginQuorumEpochResponse","EndQuorumEpoch","EndQuorumEpochResponse","Fetch","FetchResponse","FetchSnapshot","FetchSnapshotResponse"];

/**
 * A span's `dropped` and `planned` (-1: none).
 */
export const SPAN_DROPS: readonly DropReason[] = ["loss","partition","node-down"];

/**
 * A span's `outcome`: what its summary says that the timeline draws (`lanes::Outcome`).
 */
export const SPAN_OUTCOMES: readonly string[] = ["plain","granted","refused","error","diverging","snapshot"];

/**
 * A band's `state` and `from` (`lanes::STATES`).
 */
export const BAND_STATES: readonly StateName[] = ["unattached","prospective","candidate","leader","follower","resigned","crashed"];

/**
 * A band's `reason` (-1: none).
 */
export const BAND_REASONS: readonly TransitionReason[] = ["startup","restart","election-timeout","fetch-timeout","pre-vote-granted","pre-vote-rejected","pre-vote-timed-out","vote-granted","higher-epoch","leader-discovered","voted-for-candidate","resign","check-quorum-failed","resigned-timeout","removed-from-voters"];

/**
 * A mark's `kind`.
 */
export const MARK_KINDS: readonly LaneMarkKind[] = ["leader","truncate","crash","restart","snapshot","vote","write","fault","violation"];

/**
 * A span's `flags` (`lanes::DUPLICATE`, `lanes::FAILED`).
 */
export const SPAN_FLAGS: { readonly duplicate: number; readonly failed: number } = { duplicate: 1, failed: 2 };

/**
 * The RPC kinds the timeline colours differently.
 */
export type RpcKind = "Vote" | "VoteResponse" | "PreVote" | "PreVoteResponse" | "BeginQuorumEpoch" | "BeginQuorumEpochResponse" | "EndQuorumEpoch" | "EndQuorumEpochResponse" | "Fetch" | "FetchResponse" | "FetchSnapshot" | "FetchSnapshotResponse" | "AddRaftVoter" | "AddRaftVoterResponse" | "RemoveRaftVoter" | "RemoveRaftVoterResponse" | "UpdateRaftVoter" | "UpdateRaftVoterResponse" | "ApiVersions" | "ApiVersionsResponse";

export type DropReason = "loss" | "partition" | "node-down";

export type StateName = "unattached" | "prospective" | "candidate" | "leader" | "follower" | "resigned" | "crashed";

/**
 * Why a replica changed state; shown on the timeline and in the text trace.
 */
export type TransitionReason = "startup" | "restart" | "election-timeout" | "fetch-timeout" | "pre-vote-granted" | "pre-vote-rejected" | "pre-vote-timed-out" | "vote-granted" | "higher-epoch" | "leader-discovered" | "voted-for-candidate" | "resign" | "check-quorum-failed" | "resigned-timeout" | "removed-from-voters";

export type SnapshotAction = "taken" | "fetched" | "loaded" | "deleted";

export type SnapshotId = { endOffset: number, epoch: number, };

/**
 * The named safety properties the checker watches.
 */
export type InvariantName = "SingleLeader" | "MonotonicEpoch" | "MonotonicHighWatermark" | "MajorityReachedHighWatermark" | "SnapshotAtLogStart" | "LeaderNeverLoadSnapshot" | "ConsistentCommittedData" | "LogMatching" | "LeaderCompleteness" | "NoTruncationBelowHighWatermark" | "StableLeadership" | "SingleUncommittedVoterChange" | "OverlappingVoterMajorities" | "LeaderInOwnVoterSet" | "RemovedLeaderResignsAfterCommit";

/**
 * One node as the panels show it (what `Cluster.nodes` returns).
 */
export type NodeInfo = { 
/**
 * Its log records from log start (absent when `nodes({ records: false })`).
 */
records?: Array<LogRecord>, id: number, role: Role, 
/**
 * `crashed` while the process is down (its disk survives).
 */
state: StateName, epoch: number, 
/**
 * The leader it knows for its epoch.
 */
leader: number | null, votedFor: number | null, 
/**
 * Log end offset.
 */
leo: number, 
/**
 * This node's high watermark: a leader's is what its Fetch responses carry (none
 * until it commits a record of its epoch); null before it learns one and while crashed.
 */
hw: number | null, logStart: number, 
/**
 * Offset up to which the log is on disk.
 */
flushed: number, 
/**
 * Epoch of the last record in its log.
 */
lastEpoch: number, 
/**
 * The timer that ends the current state: when it fires, and its full length.
 */
timer: TimerInfo | null, 
/**
 * Blocked in a flush until this time.
 */
busyUntil: number | null, flushMs: number, snapshot: SnapshotId | null, 
/**
 * Offset up to which records are applied to its metadata image.
 */
applied: number, 
/**
 * Brokers and topics in its metadata image.
 */
brokers: number, topics: number, };

/**
 * A node's role in the quorum.
 */
export type Role = "voter" | "observer";

/**
 * The timer that ends a node's current state.
 */
export type TimerInfo = { kind: TimerKind, 
/**
 * When it fires (simulated ms).
 */
deadline: number, 
/**
 * Its full length in ms.
 */
total: number, };

export type TimerKind = "election" | "fetch" | "check-quorum";

/**
 * One record of a node's log.
 */
export type LogRecord = { offset: number, 
/**
 * The leader epoch that wrote it.
 */
epoch: number, 
/**
 * Unique id of the write (two records that look alike are told apart by it).
 */
id: number, record: RecordBody, };

/**
 * A node's metadata image now: the state its applied records add up to (what
 * `Cluster.image` returns). Lists are in ascending order and hold at most the limit
 * asked for; the counts say how many there are in all.
 */
export type MetadataImageInfo = { node: number, 
/**
 * Offset of the next record to apply: every record below it is in the image (a node
 * applies the records below its HW, or loads a snapshot that ends here).
 */
appliedOffset: number, 
/**
 * Registered broker ids.
 */
brokers: Array<number>, brokerCount: number, 
/**
 * Topics by name.
 */
topics: Array<TopicInfo>, topicCount: number, 
/**
 * `LeaderChange` control records applied (one per epoch that wrote one).
 */
leaderChanges: number, };

/**
 * One topic of an image.
 */
export type TopicInfo = { name: string, partitions: number, 
/**
 * The leader (broker id) of each partition, by partition index (the first `limit`).
 */
partitionLeaders: Array<number>, };

/**
 * What a record says. The first three are KRaft's control records: `LeaderChange` opens
 * every epoch; `KRaftVersion` and `Voters` (Kafka's KRaftVersionRecord and VotersRecord,
 * KIP-853) set the kraft.version and the voter set. The rest are metadata records a
 * controller would write.
 */
export type RecordBody = { "type": "LeaderChange", leader: number, voters: Array<number>, grantingVoters: Array<number>, } | { "type": "KRaftVersion", kRaftVersion: KRaftVersion, } | { "type": "Voters", voters: VoterSet, } | { "type": "RegisterBroker", brokerId: number, } | { "type": "UnregisterBroker", brokerId: number, } | { "type": "CreateTopic", name: string, partitions: number, } | { "type": "DeleteTopic", name: string, } | { "type": "PartitionChange", topic: string, partition: number, leader: number, };

/**
 * The voters, ascending by node id, each id once (Kafka keys its map by id, so a new
 * directory id for a voter means RemoveVoter then AddVoter: VoterSet.addVoter refuses a
 * known id).
 */
export type VoterSet = Array<VoterNode>;

/**
 * One voter (Kafka's VoterSet.VoterNode): its key, its listeners and the kraft.version
 * levels its software supports.
 */
export type VoterNode = { voterId: number, voterDirectoryId?: string, endpoints: Endpoints, kRaftVersionFeature: KRaftVersionRange, };

/**
 * A node's listeners (Kafka's Endpoints).
 */
export type Endpoints = Array<Endpoint>;

/**
 * One listener's address (an entry of Kafka's Endpoints).
 */
export type Endpoint = { name: string, host: string, port: number, };

/**
 * The `kraft.version` levels a node's software supports (VotersRecord's
 * KRaftVersionFeature, ApiVersions' supported feature range).
 */
export type KRaftVersionRange = { minSupportedVersion: KRaftVersion, maxSupportedVersion: KRaftVersion, };

/**
 * The `kraft.version` feature level (Kafka's KRaftVersion): 0 is a static voter set,
 * 1 (Kafka 3.9+) one kept in the log and changed by AddRaftVoter and RemoveRaftVoter.
 */
export type KRaftVersion = number;

/**
 * `{ id, epoch }` of the current leader.
 */
export type LeaderInfo = { id: number, epoch: number, };

/**
 * What `describeQuorum` returns (asked of the leader).
 */
export type QuorumDescription = { status: QuorumStatus, replication: Array<ReplicationRow>, };

/**
 * `kafka-metadata-quorum describe --status`. -1 where the tool prints -1.
 */
export type QuorumStatus = { clusterId: string, leaderId: number, leaderEpoch: number, highWatermark: number, maxFollowerLag: number, maxFollowerLagTimeMs: number, currentVoters: Array<number>, currentObservers: Array<number>, };

/**
 * One row of `kafka-metadata-quorum describe --replication`.
 */
export type ReplicationRow = { nodeId: number, logEndOffset: number, lag: number, lastFetchTimestamp: number, lastCaughtUpTimestamp: number, status: ReplicaStatus, };

export type ReplicaStatus = "Leader" | "Follower" | "Observer";

/**
 * What a write action returns: accepted with its node and offset, or rejected with a reason.
 */
export type WriteOutput = { accepted: boolean, node?: number, offset?: number, reason?: string, };

/**
 * The network as it is now (what `Cluster.network` returns).
 */
export type NetworkState = { 
/**
 * One-way latency range in ms, `[min, max]`.
 */
latencyMs: [number, number], 
/**
 * Probability in [0, 1] that a message is lost.
 */
loss: number, 
/**
 * Probability in [0, 1] that a message is delivered twice.
 */
duplicate: number, };

/**
 * What undoing every fault restores: the network and the disk flush latency the cluster
 * was created with (what `Cluster.baseline` returns).
 */
export type Baseline = { network: NetworkState, flushMs: number, };

/**
 * The link faults in force, each as it was made (what `Network::link_faults` returns).
 */
export type LinkFaults = { 
/**
 * The partition's groups (every node in one of them), or empty when not partitioned.
 */
groups: Array<Array<number>>, 
/**
 * Isolated nodes, ascending (cut off from every other node until reconnected).
 */
isolated: Array<number>, 
/**
 * One-way cuts `[from, to]`, oldest first.
 */
cuts: Array<[number, number]>, slowLinks: Array<SlowLinkFault>, };

/**
 * One one-way link with its own latency range.
 */
export type SlowLinkFault = { from: number, to: number, latencyMs: [number, number], };

/**
 * A message on the wire right now.
 */
export type InFlightMessage = { id: number, from: number, to: number, rpc: RpcKind, epoch: number, summary: string, sent: number, arrives: number, duplicate: boolean, };

/**
 * The cluster: voters are nodes 0..voters, observers follow them.
 */
export type ClusterSpec = { voters: number, observers: number, seed: number, 
/**
 * Preset name or explicit profile.
 */
network: NetworkSpec, 
/**
 * Kafka config keys (`controller.quorum.*`) to values in ms.
 */
config: { [key in string]: number }, 
/**
 * Safety switches turned off (unsafe mode), by name.
 */
unsafe: Array<SafetySwitch>, 
/**
 * Disk flush latency of every node, ms.
 */
flushMs: number, 
/**
 * Each node snapshots its state machine every this many applied records (0: never).
 */
snapshotInterval: number, 
/**
 * Client writes per second from the start (0: none).
 */
writesPerSecond: number, 
/**
 * Also check StableLeadership (for scenarios about pre-vote).
 */
stableLeadership: boolean, 
/**
 * The release of the protocol whose behaviour the run models where releases differ,
 * by name; the protocol reads it (`ProtocolSpec::release`). KRaft's are Kafka releases
 * (`kraft_protocol::KafkaRelease`: `3.9`, `4.0`, `4.1`, `4.2`, or `legacy`); absent:
 * the protocol's default (KRaft's `legacy`, the model every run had before).
 */
kafkaRelease?: string, 
/**
 * How the controllers' disks were formatted: a static quorum
 * (`controller.quorum.voters`) or a dynamic one (KIP-853, Kafka 3.9+). Absent:
 * static, what every run before dynamic quorums had, so old links replay as they were.
 */
quorum?: QuorumKind, };

export type NetworkSpec = string | LinkProfileSpec;

/**
 * The JSON form of a link profile: latency range in ms and rates in [0, 1].
 */
export type LinkProfileSpec = { latencyMs: [number, number], loss: number, duplicate: number, };

/**
 * One of KRaft's safety rules, each of which a user may switch off (unsafe mode).
 */
export type SafetySwitch = "hw-before-own-epoch" | "vote-ignores-log" | "no-pre-vote" | "no-check-quorum" | "no-resign-on-restart" | "ack-before-flush" | "multi-voter-change";

/**
 * The Kafka release whose raft behaviour a run models (a cluster spec's `kafkaRelease`),
 * for the behaviours that differ between releases. Everything else follows
 * Kafka's current code in every release, as KRAFT.md says.
 *
 * `Legacy`, the default, is no Kafka release: it is the playground's model from before
 * releases were modelled, which every run made without a release (links, stories, golden
 * traces) replays byte for byte. It runs a static quorum as it was before KIP-853 (a
 * voter never sends UpdateRaftVoter, so the leader's view of the voters never changes)
 * and writes the quorum-state file for free, where every Kafka release blocks its raft
 * thread on an fsync of that file before it acts (FileQuorumStateStore.writeElectionState).
 */
export type KafkaRelease = "legacy" | "3.9" | "4.0" | "4.1" | "4.2";

/**
 * How a quorum is bootstrapped (Kafka's `kafka-storage.sh format`).
 */
export type QuorumKind = "static" | "dynamic";

/**
 * Something a user (or a scenario, or the chaos generator) does to the cluster.
 * Generic in how it names nodes: the sim takes ids (`Action`), a scenario step
 * names them by reference (`Action<NodeRef, Group>`) and resolves them when the
 * step runs.
 */
export type Action<N = number, G = Array<N>> = { "action": "crash", node: N, } | { "action": "wipe", node: N, } | { "action": "restart", node: N, } | { "action": "isolate", node: N, } | { "action": "reconnect", node: N, } | { "action": "partition", groups: Array<G>, } | { "action": "cut", from: N, to: N, } | { "action": "uncut", from: N, to: N, } | { "action": "slowLink", from: N, to: N, latencyMs: [number, number], } | { "action": "clearSlowLink", from: N, to: N, } | { "action": "healPartition" } | { "action": "heal" } | { "action": "network", latencyMs: [number, number], loss: number, duplicate: number, } | { "action": "slowDisk", node: N, flushMs: number, } | { "action": "resign" } | { "action": "addVoter", node: N, } | { "action": "removeVoter", node: N, } | { "action": "addController" } | { "action": "workload", writesPerSecond: number, } | { "action": "write", record?: RecordBody | null, };

/**
 * An action at a simulated time.
 */
export type TimedAction = { t: number, } & ({ "action": "crash", node: number, } | { "action": "wipe", node: number, } | { "action": "restart", node: number, } | { "action": "isolate", node: number, } | { "action": "reconnect", node: number, } | { "action": "partition", groups: Array<Array<number>>, } | { "action": "cut", from: number, to: number, } | { "action": "uncut", from: number, to: number, } | { "action": "slowLink", from: number, to: number, latencyMs: [number, number], } | { "action": "clearSlowLink", from: number, to: number, } | { "action": "healPartition" } | { "action": "heal" } | { "action": "network", latencyMs: [number, number], loss: number, duplicate: number, } | { "action": "slowDisk", node: number, flushMs: number, } | { "action": "resign" } | { "action": "addVoter", node: number, } | { "action": "removeVoter", node: number, } | { "action": "addController" } | { "action": "workload", writesPerSecond: number, } | { "action": "write", record?: RecordBody | null, });

/**
 * One action of the catalog (`ActionKind`).
 */
export type ActionEntry = { name: Action["action"], fields: Array<ActionFieldEntry>, 
/**
 * Recorded in the trace as a `fault` event (crash, restart and write have their own).
 */
fault: boolean, undoes: Action["action"][], doc: string, };

/**
 * One field of an action (`ActionKind::fields`).
 */
export type ActionFieldEntry = { key: string, required: boolean, };

/**
 * Every action as `crate/sim/src/spec.rs` declares it: its fields, whether the trace records it as a `fault` event, and the actions it undoes (a test applies each pair and checks).
 */
export const ACTIONS: readonly ActionEntry[] = [
  {"name":"crash","fields":[{"key":"node","required":true}],"fault":false,"undoes":[],"doc":"Crash the node: it loses what it had not flushed; its disk (log, quorum-state) stays."},
  {"name":"wipe","fields":[{"key":"node","required":true}],"fault":true,"undoes":[],"doc":"Crash the node and lose its whole disk."},
  {"name":"restart","fields":[{"key":"node","required":true}],"fault":false,"undoes":["crash"],"doc":"Restart a crashed node from its disk."},
  {"name":"isolate","fields":[{"key":"node","required":true}],"fault":true,"undoes":[],"doc":"Cut the node off from every other node (both directions)."},
  {"name":"reconnect","fields":[{"key":"node","required":true}],"fault":true,"undoes":["isolate"],"doc":"Undo isolate: the node's links are as before it (its partition group and cuts still apply)."},
  {"name":"partition","fields":[{"key":"groups","required":true}],"fault":true,"undoes":[],"doc":"Split the nodes into groups that only talk within themselves."},
  {"name":"cut","fields":[{"key":"from","required":true},{"key":"to","required":true}],"fault":true,"undoes":[],"doc":"Drop every message from one node to another (one way)."},
  {"name":"uncut","fields":[{"key":"from","required":true},{"key":"to","required":true}],"fault":true,"undoes":["cut"],"doc":"Restore one link a cut took down (one way)."},
  {"name":"slowLink","fields":[{"key":"from","required":true},{"key":"to","required":true},{"key":"latencyMs","required":true}],"fault":true,"undoes":[],"doc":"Give one link (one way) its own latency range [min, max] ms; heal restores the default."},
  {"name":"clearSlowLink","fields":[{"key":"from","required":true},{"key":"to","required":true}],"fault":true,"undoes":["slowLink"],"doc":"Undo slowLink: the link (one way) is back at the network's latency."},
  {"name":"healPartition","fields":[],"fault":true,"undoes":["partition"],"doc":"Undo the partition only (isolations, cuts and slow links stay)."},
  {"name":"heal","fields":[],"fault":true,"undoes":["isolate","partition","cut","slowLink"],"doc":"Undo isolations, partitions, cuts and slow links: every link up again, at the network's latency."},
  {"name":"network","fields":[{"key":"latencyMs","required":true},{"key":"loss","required":false},{"key":"duplicate","required":false}],"fault":true,"undoes":[],"doc":"Change every link's latency range, loss and duplication rates."},
  {"name":"slowDisk","fields":[{"key":"node","required":true},{"key":"flushMs","required":true}],"fault":true,"undoes":[],"doc":"Set how long the node's flushes take (its raft thread is blocked meanwhile)."},
  {"name":"resign","fields":[],"fault":true,"undoes":[],"doc":"The current leader resigns gracefully (EndQuorumEpoch)."},
  {"name":"addVoter","fields":[{"key":"node","required":true}],"fault":true,"undoes":[],"doc":"Ask the leader to add the node to the voters (kafka-metadata-quorum.sh add-controller)."},
  {"name":"removeVoter","fields":[{"key":"node","required":true}],"fault":true,"undoes":[],"doc":"Ask the leader to remove the node from the voters (kafka-metadata-quorum.sh remove-controller)."},
  {"name":"addController","fields":[],"fault":true,"undoes":[],"doc":"Start a new controller formatted with --no-initial-controllers (a dynamic quorum's next node): an observer until addVoter."},
  {"name":"workload","fields":[{"key":"writesPerSecond","required":true}],"fault":true,"undoes":[],"doc":"Set the client write rate (random metadata records)."},
  {"name":"write","fields":[{"key":"record","required":false}],"fault":false,"undoes":[],"doc":"One client write to the current leader (a given record or a random one)."},
];

/**
 * The faults that undo another (`ACTIONS` entries with `undoes`): the timeline draws them as repairs.
 */
export const REPAIRS: readonly FaultName[] = ["reconnect","uncut","clearSlowLink","healPartition","heal"];

export type ScenarioReport = { id: string, title: string, 
/**
 * The variant that was run, if any.
 */
variant: string | null, seed: number, 
/**
 * Safety switches that were off.
 */
unsafe: Array<SafetySwitch>, 
/**
 * Every step happened as written, every expectation held, and every invariant
 * violation was one an expectation asked for.
 */
passed: boolean, 
/**
 * Simulated time at the end of the run (ms).
 */
endMs: number, steps: Array<ScenarioStepReport>, expectations: Array<ScenarioExpectationReport>, violations: Array<ScenarioViolationReport>, measurements: Array<ScenarioMeasurement>, 
/**
 * The names the captions give records (`recordNames`).
 */
recordNames: { [key in string]: RecordName }, 
/**
 * The cluster that ran (seed and switches as used).
 */
spec: ClusterSpec, 
/**
 * The actions with the times they happened and the nodes they hit: with `spec`,
 * `Simulation::replay(spec, inputs, endMs)` reproduces the run exactly.
 */
inputs: Array<TimedAction>, 
/**
 * Number of trace events.
 */
events: number, 
/**
 * Trace digest (hex), as `cluster.digest()` gives it.
 */
digest: string, };

/**
 * One step as it happened.
 */
export type ScenarioStepReport = { index: number, label: string | null, 
/**
 * When it happened (ms); None when the run ended first.
 */
t: number | null, 
/**
 * The action with its nodes resolved (what went into the input log).
 */
action: Action<number, Array<number>> | null, caption: string | null, 
/**
 * The caption as styled runs of text (render each as a text node).
 */
captionSpans: Array<CaptionSpan>, pause: boolean, 
/**
 * What the caption names, for the UI to zoom to and highlight.
 */
focus: Focus | null, ok: boolean, 
/**
 * What happened, e.g. "waited 1.571s until a leader is elected: n0".
 */
note: string, };

/**
 * A run of text in one style.
 */
export type CaptionSpan = { style: CaptionStyle, text: string, };

export type CaptionStyle = "plain" | "bold" | "em" | "code";

export type ScenarioExpectationReport = { index: number, 
/**
 * The key it was written with (`leaderElectedBy`, `failover`, ...).
 */
kind: string, passed: boolean, 
/**
 * One line with the measured numbers.
 */
explanation: string, note: string | null, };

export type ScenarioViolationReport = { seq: number, t: number, invariant: InvariantName, node: number | null, detail: string, 
/**
 * Named by a `violated` expectation (an unsafe variant showing what breaks).
 */
expected: boolean, };

/**
 * A number measured in a run (a scenario's `report`, or a leader change in free play).
 */
export type ScenarioMeasurement = { kind: string, name: string, 
/**
 * One line with the numbers.
 */
text: string, 
/**
 * The main number, when it is a duration.
 */
valueMs: number | null, 
/**
 * The main number, when it is a count.
 */
count: number | null, 
/**
 * The duration split into parts (e.g. detection and election).
 */
parts: Array<MeasurementPart>, };

export type MeasurementPart = { name: string, ms: number, };

/**
 * A new leader, measured: what free play shows for every leader change.
 */
export type LeaderChange = { 
/**
 * Seq of the event that made the new leader.
 */
seq: number, 
/**
 * When it became leader (ms).
 */
t: number, node: number, epoch: number, 
/**
 * The leader before it (none: the first election).
 */
previous: LeaderTerm | null, 
/**
 * What took the previous leader away (`crash n0`, `isolate n0`) and when: where the
 * measure starts. None when no action did (a follower timed out on its own).
 */
cause: Cause | null, 
/**
 * Epochs whose candidates all lost before this one won.
 */
lostRounds: Array<LostRound>, 
/**
 * The breakdown the leader-crash story's card shows: failover = detection +
 * election, then first commit.
 */
measurement: ScenarioMeasurement, };

export type LeaderTerm = { node: number, epoch: number, };

export type Cause = { t: number, text: string, };

/**
 * An epoch in which candidates stood and none won: the votes split between several, or
 * the one candidate was refused; a later round (after a random election timeout) won.
 */
export type LostRound = { epoch: number, 
/**
 * The candidates of that epoch, in the order they stood.
 */
candidates: Array<number>, };

/**
 * What a step's caption names: its nodes and records (by their `recordNames`), and how
 * much of the timeline around the step's moment shows them.
 */
export type Focus = { nodes: Array<number>, records: Array<string>, 
/**
 * The width of the timeline window around the moment (ms).
 */
windowMs: number, 
/**
 * The caption talks about the nodes' metadata images: the UI shows them.
 */
image: boolean, messages: Array<FocusMessage>, };

/**
 * Messages a caption names: the exchanges of one request kind, between the nodes it
 * says (`from` sends the request, `to` answers it; either side unsaid is any node).
 */
export type FocusMessage = { kind: RpcKind, from: number | null, to: number | null, };

/**
 * A record a story names in its captions: the one at this offset, of this epoch.
 */
export type RecordName = { offset: number, epoch: number, };

/**
 * Names and limits the package validates against. Static, so it is generated below
 * into `web/src/generated/wire.ts` as `CATALOG`, which the package carries.
 */
export type Catalog = { version: string, 
/**
 * The quorum config keys with their defaults and ranges.
 */
configKeys: Array<Limit>, 
/**
 * The cluster's other settings and the bounds on calls (`limits::LIMITS`).
 */
limits: Array<Limit>, switches: Array<Named<SafetySwitch>>, 
/**
 * The Kafka releases a run may model (`kafkaRelease`), `legacy` first (the default).
 */
releases: Array<Named<KafkaRelease>>, invariants: Array<Named<InvariantName>>, presets: Array<Preset>, 
/**
 * The spec a cluster gets for every option left out.
 */
defaultSpec: ClusterSpec, };

/**
 * One bounded number: a config key, a cluster setting or a bound on a call.
 */
export type Limit = { 
/**
 * The key or field that carries it (`voters`, `controller.quorum.fetch.timeout.ms`).
 */
key: string, 
/**
 * What it means, in one line (shown in errors, the UI and the README).
 */
description: string, 
/**
 * The value when none is given (none for a bound on a call).
 */
default?: number, min: number, 
/**
 * None: no upper bound.
 */
max: number | null, unit?: Unit, 
/**
 * 0 is accepted too, below `min`: it turns the thing off.
 */
zeroTurnsOff: boolean, };

/**
 * What a limited number counts.
 */
export type Unit = "ms" | "s" | "bytes" | "ppm";

/**
 * A name with what it means.
 */
export type Named<T> = { name: T, explanation: string, };

export type Preset = { name: string, 
/**
 * One-way latency range in ms, `[min, max]`.
 */
latencyMs: [number, number], 
/**
 * Probability in [0, 1] that a message is lost.
 */
loss: number, 
/**
 * Probability in [0, 1] that a message is delivered twice.
 */
duplicate: number, };

/**
 * The outcome of one chaos-sweep seed.
 */
export type SeedOutcome = { seed: number, passed: boolean, 
/**
 * Did the quorum commit new records in the calm tail after healing?
 */
madeProgress: boolean, violations: Array<SeedViolation>, events: number, simulatedMs: number, 
/**
 * The native command that reproduces this seed.
 */
reproduce: string, };

/**
 * An invariant violation a chaos seed found.
 */
export type SeedViolation = { invariant: InvariantName, detail: string, };

/**
 * An error of the wasm API: the JS error it becomes has this `kind`, the message
 * `field: message` (just `message` when `field` is empty) and a `field` property.
 */
export type ApiError = { kind: ApiErrorKind, 
/**
 * The offending field or argument (`voters`, `inputs[3].t`), or empty.
 */
field: string, message: string, };

/**
 * Which JS error an [`ApiError`] becomes.
 */
export type ApiErrorKind = "TypeError" | "RangeError" | "Error";

/**
 * Names and limits of the core (the wire test's `Catalog::new`), what `catalog()` returns.
 */
export const CATALOG: Catalog = {
  "version": "0.1.0",
  "configKeys": [
    {
      "key": "controller.quorum.fetch.timeout.ms",
      "description": "follower fetch timeout before it starts an election",
      "default": 2000,
      "min": 10,
      "max": 600000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.election.timeout.ms",
      "description": "base election timeout, randomised in [T, 2T)",
      "default": 1000,
      "min": 10,
      "max": 600000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.election.backoff.max.ms",
      "description": "cap of the EndQuorumEpoch successor backoff",
      "default": 1000,
      "min": 1,
      "max": 600000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.request.timeout.ms",
      "description": "how long a request may stay unanswered",
      "default": 2000,
      "min": 10,
      "max": 600000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.retry.backoff.ms",
      "description": "wait after an error response",
      "default": 20,
      "min": 0,
      "max": 60000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.append.linger.ms",
      "description": "how long the leader batches writes",
      "default": 25,
      "min": 0,
      "max": 60000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.fetch.max.bytes",
      "description": "most bytes of records one Fetch response carries",
      "default": 1048576,
      "min": 1,
      "max": 67108864,
      "unit": "bytes",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.fetch.snapshot.max.bytes",
      "description": "most bytes of snapshot one FetchSnapshot response carries",
      "default": 1048576,
      "min": 1,
      "max": 67108864,
      "unit": "bytes",
      "zeroTurnsOff": false
    },
    {
      "key": "controller.quorum.auto.join.enable",
      "description": "1: a controller observer adds itself to the voters (Kafka 4.2+, dynamic quorum)",
      "default": 0,
      "min": 0,
      "max": 1,
      "zeroTurnsOff": false
    },
    {
      "key": "sim.fetchMaxWaitMs",
      "description": "simulator only: how long the leader parks an empty Fetch (Kafka: a fixed 500 ms)",
      "default": 500,
      "min": 0,
      "max": 60000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "metadata.log.max.snapshot.interval.ms",
      "description": "snapshot at least this often while records arrive (sim default 1 min)",
      "default": 60000,
      "min": 0,
      "max": 86400000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "metadata.max.retention.bytes",
      "description": "clean old snapshots and records above this size (sim default 256 KiB)",
      "default": 262144,
      "min": 0,
      "max": 67108864,
      "unit": "bytes",
      "zeroTurnsOff": false
    },
    {
      "key": "metadata.max.retention.ms",
      "description": "clean snapshots whose last record is older than this (sim default 5 min)",
      "default": 300000,
      "min": 0,
      "max": 604800000,
      "unit": "ms",
      "zeroTurnsOff": false
    }
  ],
  "limits": [
    {
      "key": "voters",
      "description": "voters of the quorum (nodes 0..voters)",
      "default": 3,
      "min": 1,
      "max": 7,
      "zeroTurnsOff": false
    },
    {
      "key": "observers",
      "description": "observers, nodes after the voters that fetch but do not vote",
      "default": 0,
      "min": 0,
      "max": 8,
      "zeroTurnsOff": false
    },
    {
      "key": "nodes",
      "description": "nodes of a cluster: voters, observers and the controllers addController starts at run time",
      "min": 1,
      "max": 15,
      "zeroTurnsOff": false
    },
    {
      "key": "flushMs",
      "description": "disk flush latency of a node; its replica thread blocks while flushing",
      "default": 1,
      "min": 0,
      "max": 60000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "snapshotInterval",
      "description": "a node snapshots its state machine every this many applied records",
      "default": 1000,
      "min": 10,
      "max": null,
      "zeroTurnsOff": true
    },
    {
      "key": "writesPerSecond",
      "description": "client writes per second of the background workload",
      "default": 0,
      "min": 0,
      "max": 1000,
      "zeroTurnsOff": false
    },
    {
      "key": "latencyMs",
      "description": "one-way latency of a link (at zero, replicas could answer each other forever within one millisecond)",
      "min": 1,
      "max": 60000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "loss",
      "description": "probability a message is lost, given in [0, 1]",
      "default": 0,
      "min": 0,
      "max": 1000000,
      "unit": "ppm",
      "zeroTurnsOff": false
    },
    {
      "key": "duplicate",
      "description": "probability a message is delivered twice, given in [0, 1]",
      "default": 0,
      "min": 0,
      "max": 1000000,
      "unit": "ppm",
      "zeroTurnsOff": false
    },
    {
      "key": "advanceMs",
      "description": "longest one advance or seek may span (a day)",
      "min": 0,
      "max": 86400000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "chaosSeconds",
      "description": "simulated length of one chaos run (its calm tail alone is 15 s)",
      "min": 20,
      "max": 86400,
      "unit": "s",
      "zeroTurnsOff": false
    },
    {
      "key": "durationMs",
      "description": "simulated length of a scenario (a story, not a soak test)",
      "min": 1,
      "max": 600000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "lanesSpanMs",
      "description": "longest window one timeline projection (`lanes`) covers: a story whole",
      "min": 0,
      "max": 600000,
      "unit": "ms",
      "zeroTurnsOff": false
    },
    {
      "key": "lanesEvents",
      "description": "most events one timeline projection (`lanes`) reads in its window: a few frames' work",
      "min": 0,
      "max": 250000,
      "zeroTurnsOff": false
    },
    {
      "key": "partitions",
      "description": "partitions of a topic a CreateTopic record creates",
      "min": 1,
      "max": 10000,
      "zeroTurnsOff": false
    }
  ],
  "switches": [
    {
      "name": "hw-before-own-epoch",
      "explanation": "leader may commit earlier epochs' records before one of its own (Raft figure 8)"
    },
    {
      "name": "vote-ignores-log",
      "explanation": "voters grant votes without checking the candidate's log is up to date"
    },
    {
      "name": "no-pre-vote",
      "explanation": "elections skip the pre-vote round, so a rejoining voter bumps the epoch (KIP-996)"
    },
    {
      "name": "no-check-quorum",
      "explanation": "a leader cut off from the majority never resigns (KAFKA-15489)"
    },
    {
      "name": "no-resign-on-restart",
      "explanation": "a restarted leader resumes leading its old epoch (KAFKA-10527)"
    },
    {
      "name": "ack-before-flush",
      "explanation": "followers report fetch offsets before flushing them to disk"
    },
    {
      "name": "multi-voter-change",
      "explanation": "the leader accepts a second voter change while one is pending or uncommitted, so two voter sets whose majorities need not overlap are in force at once (KAFKA-20740)"
    }
  ],
  "releases": [
    {
      "name": "legacy",
      "explanation": "the playground before releases were modelled (no Kafka release): a static quorum as before KIP-853, and quorum-state writes that cost no flush"
    },
    {
      "name": "3.9",
      "explanation": "quorum-state writes block the raft thread for a flush; a voter sends UpdateRaftVoter when its entry in a kraft.version 1 voter set is out of date; a kraft.version 0 leader answers it UNSUPPORTED_VERSION"
    },
    {
      "name": "4.0",
      "explanation": "quorum-state writes block the raft thread for a flush; a voter sends UpdateRaftVoter when its entry in a kraft.version 1 voter set is out of date; a kraft.version 0 leader answers it UNSUPPORTED_VERSION"
    },
    {
      "name": "4.1",
      "explanation": "as 3.9, and a voter tells each new leader its entry at kraft.version 0 too, which the leader keeps in memory for an upgrade of kraft.version to 1 (KAFKA-16538)"
    },
    {
      "name": "4.2",
      "explanation": "as 4.1, with UpdateRaftVoter every fetch timeout, and controllers that may add themselves to the voters (controller.quorum.auto.join.enable, KIP-1186)"
    }
  ],
  "invariants": [
    {
      "name": "SingleLeader",
      "explanation": "no two different leaders are ever recorded for one epoch"
    },
    {
      "name": "MonotonicEpoch",
      "explanation": "a node's persisted epoch never decreases and matches its in-memory epoch"
    },
    {
      "name": "MonotonicHighWatermark",
      "explanation": "the HW of the highest-epoch leader never decreases"
    },
    {
      "name": "MajorityReachedHighWatermark",
      "explanation": "a majority of voters hold every record below the leader's HW"
    },
    {
      "name": "SnapshotAtLogStart",
      "explanation": "a log that starts above 0 starts exactly at a valid snapshot"
    },
    {
      "name": "LeaderNeverLoadSnapshot",
      "explanation": "a leader never loads a snapshot into its state machine"
    },
    {
      "name": "ConsistentCommittedData",
      "explanation": "no two nodes ever expose different records at one offset below their HW"
    },
    {
      "name": "LogMatching",
      "explanation": "the same (offset, epoch) on two logs means the same record and the same prefix"
    },
    {
      "name": "LeaderCompleteness",
      "explanation": "every committed record is in the log of every leader of the epoch that committed it or a later one"
    },
    {
      "name": "NoTruncationBelowHighWatermark",
      "explanation": "no node truncates records below its own HW"
    },
    {
      "name": "StableLeadership",
      "explanation": "after the first leader, leadership never changes while a majority is connected"
    },
    {
      "name": "SingleUncommittedVoterChange",
      "explanation": "no log holds two voter-set records above the committed offset: one voter change at a time"
    },
    {
      "name": "OverlappingVoterMajorities",
      "explanation": "the committed voter set changes by at most one voter at a time, so old and new majorities overlap"
    },
    {
      "name": "LeaderInOwnVoterSet",
      "explanation": "a replica is elected leader only while it is in its own latest voter set"
    },
    {
      "name": "RemovedLeaderResignsAfterCommit",
      "explanation": "a leader that removed itself from the voters resigns only once that change is committed"
    }
  ],
  "presets": [
    {
      "name": "datacenter",
      "latencyMs": [
        1,
        5
      ],
      "loss": 0.0,
      "duplicate": 0.0
    },
    {
      "name": "teaching",
      "latencyMs": [
        60,
        140
      ],
      "loss": 0.0,
      "duplicate": 0.0
    },
    {
      "name": "wan",
      "latencyMs": [
        20,
        80
      ],
      "loss": 0.0,
      "duplicate": 0.0
    }
  ],
  "defaultSpec": {
    "voters": 3,
    "observers": 0,
    "seed": 0,
    "network": "datacenter",
    "config": {},
    "unsafe": [],
    "flushMs": 1,
    "snapshotInterval": 1000,
    "writesPerSecond": 0,
    "stableLeadership": false
  }
};

/**
 * A quorum config key (`protocol::config::CONFIG_KEYS`): Kafka's `controller.quorum.*` keys, `sim.fetchMaxWaitMs` (a simulator-only knob for the Fetch wait Kafka fixes at 500 ms, `KafkaRaftClient.MAX_FETCH_WAIT_MS`), and Kafka's snapshot and retention keys (`metadata.*`), whose defaults are scaled down for a playground.
 */
export type QuorumConfigKey = "controller.quorum.fetch.timeout.ms" | "controller.quorum.election.timeout.ms" | "controller.quorum.election.backoff.max.ms" | "controller.quorum.request.timeout.ms" | "controller.quorum.retry.backoff.ms" | "controller.quorum.append.linger.ms" | "controller.quorum.fetch.max.bytes" | "controller.quorum.fetch.snapshot.max.bytes" | "controller.quorum.auto.join.enable" | "sim.fetchMaxWaitMs" | "metadata.log.max.snapshot.interval.ms" | "metadata.max.retention.bytes" | "metadata.max.retention.ms";

/**
 * Every invariant the checker watches, with what it protects (`trace::Invariant`).
 */
export const INVARIANTS: readonly (readonly [InvariantName, string])[] = [
  ["SingleLeader", "no two different leaders are ever recorded for one epoch"],
  ["MonotonicEpoch", "a node's persisted epoch never decreases and matches its in-memory epoch"],
  ["MonotonicHighWatermark", "the HW of the highest-epoch leader never decreases"],
  ["MajorityReachedHighWatermark", "a majority of voters hold every record below the leader's HW"],
  ["SnapshotAtLogStart", "a log that starts above 0 starts exactly at a valid snapshot"],
  ["LeaderNeverLoadSnapshot", "a leader never loads a snapshot into its state machine"],
  ["ConsistentCommittedData", "no two nodes ever expose different records at one offset below their HW"],
  ["LogMatching", "the same (offset, epoch) on two logs means the same record and the same prefix"],
  ["LeaderCompleteness", "every committed record is in the log of every leader of the epoch that committed it or a later one"],
  ["NoTruncationBelowHighWatermark", "no node truncates records below its own HW"],
  ["StableLeadership", "after the first leader, leadership never changes while a majority is connected"],
  ["SingleUncommittedVoterChange", "no log holds two voter-set records above the committed offset: one voter change at a time"],
  ["OverlappingVoterMajorities", "the committed voter set changes by at most one voter at a time, so old and new majorities overlap"],
  ["LeaderInOwnVoterSet", "a replica is elected leader only while it is in its own latest voter set"],
  ["RemovedLeaderResignsAfterCommit", "a leader that removed itself from the voters resigns only once that change is committed"],
];

/**
 * Every safety switch, with what turning it off does (`protocol::SafetySwitch`).
 */
export const SWITCHES: readonly (readonly [SafetySwitch, string])[] = [
  ["hw-before-own-epoch", "leader may commit earlier epochs' records before one of its own (Raft figure 8)"],
  ["vote-ignores-log", "voters grant votes without checking the candidate's log is up to date"],
  ["no-pre-vote", "elections skip the pre-vote round, so a rejoining voter bumps the epoch (KIP-996)"],
  ["no-check-quorum", "a leader cut off from the majority never resigns (KAFKA-15489)"],
  ["no-resign-on-restart", "a restarted leader resumes leading its old epoch (KAFKA-10527)"],
  ["ack-before-flush", "followers report fetch offsets before flushing them to disk"],
  ["multi-voter-change", "the leader accepts a second voter change while one is pending or uncommitted, so two voter sets whose majorities need not overlap are in force at once (KAFKA-20740)"],
];

/**
 * Every Kafka release a run may model, with what it changes (`protocol::KafkaRelease`); `legacy`, the default, is the playground's model before releases, no Kafka release.
 */
export const RELEASES: readonly (readonly [KafkaRelease, string])[] = [
  ["legacy", "the playground before releases were modelled (no Kafka release): a static quorum as before KIP-853, and quorum-state writes that cost no flush"],
  ["3.9", "quorum-state writes block the raft thread for a flush; a voter sends UpdateRaftVoter when its entry in a kraft.version 1 voter set is out of date; a kraft.version 0 leader answers it UNSUPPORTED_VERSION"],
  ["4.0", "quorum-state writes block the raft thread for a flush; a voter sends UpdateRaftVoter when its entry in a kraft.version 1 voter set is out of date; a kraft.version 0 leader answers it UNSUPPORTED_VERSION"],
  ["4.1", "as 3.9, and a voter tells each new leader its entry at kraft.version 0 too, which the leader keeps in memory for an upgrade of kraft.version to 1 (KAFKA-16538)"],
  ["4.2", "as 4.1, with UpdateRaftVoter every fetch timeout, and controllers that may add themselves to the voters (controller.quorum.auto.join.enable, KIP-1186)"],
];

/**
 * Most characters of user input an error message repeats (`messages::MAX_ECHO_CHARS`).
 */
export const MAX_ECHO_CHARS: number = 80;
