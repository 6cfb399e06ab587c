//! The event vocabulary: every happening in a run is one small `Event`. The UI, the
//! CLI, the tests and the invariant checker all read these. Text is produced only when
//! asked (`Display`), one line per event, for people to read and diff.

use crate::protocol::election::VoteDecision;
use crate::protocol::rpc::{MessageSummary, RpcKind, SnapshotId};
use crate::protocol::{Epoch, NodeId, Offset, Reason, StateName};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub seq: u64,
    /// Simulated time in milliseconds.
    pub t: u64,
    pub kind: EventKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// Lost by the network (the loss probability).
    Loss,
    /// The link was down: a partition, isolation or one-way cut.
    Partition,
    /// The receiver was crashed when it arrived.
    NodeDown,
}

impl DropReason {
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Loss => "loss",
            DropReason::Partition => "partition",
            DropReason::NodeDown => "node-down",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SnapshotAction {
    Taken,
    Fetched,
    Loaded,
    /// Retention dropped it, and the records before the next snapshot: the log start moved.
    Deleted,
}

impl SnapshotAction {
    pub fn name(self) -> &'static str {
        match self {
            SnapshotAction::Taken => "taken",
            SnapshotAction::Fetched => "fetched",
            SnapshotAction::Loaded => "loaded",
            SnapshotAction::Deleted => "deleted",
        }
    }
}

/// The named safety properties the checker watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Invariant {
    SingleLeader,
    MonotonicEpoch,
    MonotonicHighWatermark,
    MajorityReachedHighWatermark,
    SnapshotAtLogStart,
    LeaderNeverLoadSnapshot,
    ConsistentCommittedData,
    LogMatching,
    LeaderCompleteness,
    NoTruncationBelowHighWatermark,
    StableLeadership,
}

impl Invariant {
    pub const ALL: [Invariant; 11] = [
        Invariant::SingleLeader,
        Invariant::MonotonicEpoch,
        Invariant::MonotonicHighWatermark,
        Invariant::MajorityReachedHighWatermark,
        Invariant::SnapshotAtLogStart,
        Invariant::LeaderNeverLoadSnapshot,
        Invariant::ConsistentCommittedData,
        Invariant::LogMatching,
        Invariant::LeaderCompleteness,
        Invariant::NoTruncationBelowHighWatermark,
        Invariant::StableLeadership,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Invariant::SingleLeader => "SingleLeader",
            Invariant::MonotonicEpoch => "MonotonicEpoch",
            Invariant::MonotonicHighWatermark => "MonotonicHighWatermark",
            Invariant::MajorityReachedHighWatermark => "MajorityReachedHighWatermark",
            Invariant::SnapshotAtLogStart => "SnapshotAtLogStart",
            Invariant::LeaderNeverLoadSnapshot => "LeaderNeverLoadSnapshot",
            Invariant::ConsistentCommittedData => "ConsistentCommittedData",
            Invariant::LogMatching => "LogMatching",
            Invariant::LeaderCompleteness => "LeaderCompleteness",
            Invariant::NoTruncationBelowHighWatermark => "NoTruncationBelowHighWatermark",
            Invariant::StableLeadership => "StableLeadership",
        }
    }

    pub fn parse(name: &str) -> Option<Invariant> {
        Invariant::ALL.iter().copied().find(|i| i.name() == name)
    }

    /// What it protects, in one line.
    pub fn explanation(self) -> &'static str {
        match self {
            Invariant::SingleLeader => "no two different leaders are ever recorded for one epoch",
            Invariant::MonotonicEpoch => "a node's persisted epoch never decreases and matches its in-memory epoch",
            Invariant::MonotonicHighWatermark => "the HW of the highest-epoch leader never decreases",
            Invariant::MajorityReachedHighWatermark => "a majority of voters hold every record below the leader's HW",
            Invariant::SnapshotAtLogStart => "a log that starts above 0 starts exactly at a valid snapshot",
            Invariant::LeaderNeverLoadSnapshot => "a leader never loads a snapshot into its state machine",
            Invariant::ConsistentCommittedData => {
                "no two nodes ever expose different records at one offset below their HW"
            }
            Invariant::LogMatching => "the same (offset, epoch) on two logs means the same record and the same prefix",
            Invariant::LeaderCompleteness => "every committed record is in the log of every later leader",
            Invariant::NoTruncationBelowHighWatermark => "no node truncates records below its own HW",
            Invariant::StableLeadership => {
                "after the first leader, leadership never changes while a majority is connected"
            }
        }
    }
}

/// A user action or fault, as the trace records it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    Isolate(NodeId),
    Partition(Vec<Vec<NodeId>>),
    Cut { from: NodeId, to: NodeId },
    Uncut { from: NodeId, to: NodeId },
    SlowLink { from: NodeId, to: NodeId, min_ms: u64, max_ms: u64 },
    Heal,
    Network { latency_min_ms: u64, latency_max_ms: u64, loss_ppm: u32, duplicate_ppm: u32 },
    SlowDisk { node: NodeId, flush_ms: u64 },
    Workload { writes_per_second: u32 },
    Resign(NodeId),
    Wipe(NodeId),
    // The undo actions come last: the trace digest hashes the variant's position.
    Reconnect(NodeId),
    HealPartition,
    ClearSlowLink { from: NodeId, to: NodeId },
}

#[derive(Clone, Debug, PartialEq, Hash)]
pub enum EventKind {
    Send {
        msg: u64,
        from: NodeId,
        to: NodeId,
        rpc: RpcKind,
        epoch: Epoch,
        summary: MessageSummary,
        arrives: u64,
        dropped: Option<DropReason>,
    },
    Deliver {
        msg: u64,
        from: NodeId,
        to: NodeId,
        rpc: RpcKind,
        epoch: Epoch,
        summary: MessageSummary,
        sent: u64,
        duplicate: bool,
    },
    Drop {
        msg: u64,
        from: NodeId,
        to: NodeId,
        rpc: RpcKind,
        epoch: Epoch,
        sent: u64,
        reason: DropReason,
    },
    /// `node` learns that its request to `peer` failed: the connection was refused or
    /// reset because `peer`'s process is down (Kafka: a BROKER_NOT_AVAILABLE response).
    /// The failure left `peer` at `sent`.
    Disconnect {
        node: NodeId,
        peer: NodeId,
        rpc: RpcKind,
        sent: u64,
    },
    State {
        node: NodeId,
        from: StateName,
        to: StateName,
        epoch: Epoch,
        leader: Option<NodeId>,
        voted: Option<NodeId>,
        reason: Reason,
    },
    Persist {
        node: NodeId,
        epoch: Epoch,
        leader: Option<NodeId>,
        voted: Option<NodeId>,
    },
    Vote {
        node: NodeId,
        candidate: NodeId,
        epoch: Epoch,
        pre_vote: bool,
        decision: VoteDecision,
    },
    Append {
        node: NodeId,
        first: Offset,
        last: Offset,
        epoch: Epoch,
        kind: &'static str,
    },
    Flush {
        node: NodeId,
        offset: Offset,
    },
    HighWatermark {
        node: NodeId,
        old: Option<Offset>,
        new: Offset,
    },
    Truncate {
        node: NodeId,
        from_leo: Offset,
        to: Offset,
        diverging_epoch: Option<Epoch>,
        hw: Option<Offset>,
    },
    Snapshot {
        node: NodeId,
        action: SnapshotAction,
        id: SnapshotId,
    },
    Crash {
        node: NodeId,
        lost_records: u64,
    },
    Restart {
        node: NodeId,
    },
    Fault(FaultKind),
    Write {
        node: Option<NodeId>,
        accepted: bool,
        offset: Option<Offset>,
        kind: &'static str,
    },
    Violation {
        invariant: Invariant,
        node: Option<NodeId>,
        detail: Box<str>,
        evidence: Box<[u64]>,
    },
}

impl EventKind {
    /// Short type name (the `type` field of the JSON form).
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::Send { .. } => "send",
            EventKind::Deliver { .. } => "deliver",
            EventKind::Drop { .. } => "drop",
            EventKind::Disconnect { .. } => "disconnect",
            EventKind::State { .. } => "state",
            EventKind::Persist { .. } => "persist",
            EventKind::Vote { .. } => "vote",
            EventKind::Append { .. } => "append",
            EventKind::Flush { .. } => "flush",
            EventKind::HighWatermark { .. } => "hw",
            EventKind::Truncate { .. } => "truncate",
            EventKind::Snapshot { .. } => "snapshot",
            EventKind::Crash { .. } => "crash",
            EventKind::Restart { .. } => "restart",
            EventKind::Fault(_) => "fault",
            EventKind::Write { .. } => "write",
            EventKind::Violation { .. } => "violation",
        }
    }

    /// The node an event is about (the sender for messages).
    pub fn node(&self) -> Option<NodeId> {
        match self {
            EventKind::Send { from, .. } | EventKind::Drop { from, .. } => Some(*from),
            EventKind::Deliver { to, .. } => Some(*to),
            EventKind::State { node, .. }
            | EventKind::Disconnect { node, .. }
            | EventKind::Persist { node, .. }
            | EventKind::Vote { node, .. }
            | EventKind::Append { node, .. }
            | EventKind::Flush { node, .. }
            | EventKind::HighWatermark { node, .. }
            | EventKind::Truncate { node, .. }
            | EventKind::Snapshot { node, .. }
            | EventKind::Crash { node, .. }
            | EventKind::Restart { node } => Some(*node),
            EventKind::Write { node, .. } | EventKind::Violation { node, .. } => *node,
            EventKind::Fault(_) => None,
        }
    }
}

fn opt(o: Option<u64>) -> OptFmt {
    OptFmt(o)
}
struct OptFmt(Option<u64>);
impl fmt::Display for OptFmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v}"),
            None => f.write_str("-"),
        }
    }
}

/// Milliseconds as seconds with three decimals: `12.345s`.
pub struct Seconds(pub u64);
impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}s", self.0 / 1000, self.0 % 1000)
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::Isolate(n) => write!(f, "isolate n{n}"),
            FaultKind::Partition(groups) => {
                f.write_str("partition")?;
                for g in groups {
                    f.write_str(" [")?;
                    for (i, n) in g.iter().enumerate() {
                        if i > 0 {
                            f.write_str(",")?;
                        }
                        write!(f, "n{n}")?;
                    }
                    f.write_str("]")?;
                }
                Ok(())
            }
            FaultKind::Cut { from, to } => write!(f, "cut n{from} -> n{to}"),
            FaultKind::Uncut { from, to } => write!(f, "uncut n{from} -> n{to}"),
            FaultKind::SlowLink { from, to, min_ms, max_ms } => {
                write!(f, "link n{from} -> n{to} latency={min_ms}..{max_ms}ms")
            }
            FaultKind::ClearSlowLink { from, to } => write!(f, "link n{from} -> n{to} latency=network"),
            FaultKind::Reconnect(n) => write!(f, "reconnect n{n}"),
            FaultKind::HealPartition => f.write_str("heal partition"),
            FaultKind::Heal => f.write_str("heal"),
            FaultKind::Network { latency_min_ms, latency_max_ms, loss_ppm, duplicate_ppm } => write!(
                f,
                "network latency={latency_min_ms}..{latency_max_ms}ms loss={}.{:02}% duplicate={}.{:02}%",
                loss_ppm / 10_000,
                loss_ppm % 10_000 / 100,
                duplicate_ppm / 10_000,
                duplicate_ppm % 10_000 / 100
            ),
            FaultKind::SlowDisk { node, flush_ms } => write!(f, "disk n{node} flush={flush_ms}ms"),
            FaultKind::Workload { writes_per_second } => write!(f, "workload {writes_per_second} writes/s"),
            FaultKind::Resign(n) => write!(f, "resign n{n}"),
            FaultKind::Wipe(n) => write!(f, "wipe n{n} (disk lost)"),
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>6}.{:03}s {:>7} ", self.t / 1000, self.t % 1000, self.seq)?;
        write!(f, "{}", self.kind)
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventKind::Send { msg, from, to, rpc, epoch, summary, arrives, dropped } => {
                write!(f, "n{from} -> n{to} {} e{epoch} {summary} #{msg}", rpc.name())?;
                match dropped {
                    Some(r) => write!(f, " (will drop: {})", r.name()),
                    None => write!(f, " (arrives {})", Seconds(*arrives)),
                }
            }
            EventKind::Deliver { msg, from, to, rpc, epoch, summary, sent, duplicate } => {
                write!(f, "n{to} <- n{from} {} e{epoch} {summary} #{msg} (sent {})", rpc.name(), Seconds(*sent))?;
                if *duplicate {
                    f.write_str(" duplicate")?;
                }
                Ok(())
            }
            EventKind::Drop { msg, from, to, rpc, epoch, sent, reason } => {
                write!(
                    f,
                    "n{from} -x n{to} {} e{epoch} #{msg} dropped: {} (sent {})",
                    rpc.name(),
                    reason.name(),
                    Seconds(*sent)
                )
            }
            EventKind::Disconnect { node, peer, rpc, sent } => write!(
                f,
                "n{node} x- n{peer} {} disconnected: BROKER_NOT_AVAILABLE (reset {})",
                rpc.name(),
                Seconds(*sent)
            ),
            EventKind::State { node, from, to, epoch, leader, voted, reason } => write!(
                f,
                "n{node} {} -> {} e{epoch} leader={} votedFor={} ({})",
                from.name(),
                to.name(),
                opt(leader.map(u64::from)),
                opt(voted.map(u64::from)),
                reason.name()
            ),
            EventKind::Persist { node, epoch, leader, voted } => write!(
                f,
                "n{node} quorum-state epoch={epoch} leader={} votedFor={}",
                opt(leader.map(u64::from)),
                opt(voted.map(u64::from))
            ),
            EventKind::Vote { node, candidate, epoch, pre_vote, decision } => write!(
                f,
                "n{node} {} for n{candidate} e{epoch}: {}",
                if *pre_vote { "pre-vote" } else { "vote" },
                decision.describe()
            ),
            EventKind::Append { node, first, last, epoch, kind } => {
                if first == last {
                    write!(f, "n{node} append {first} e{epoch} {kind}")
                } else {
                    write!(f, "n{node} append {first}..{last} e{epoch} {kind}..")
                }
            }
            EventKind::Flush { node, offset } => write!(f, "n{node} flush to {offset}"),
            EventKind::HighWatermark { node, old, new } => {
                write!(f, "n{node} hw {} -> {new}", opt(*old))
            }
            EventKind::Truncate { node, from_leo, to, diverging_epoch, hw } => {
                write!(f, "n{node} truncate {from_leo} -> {to}")?;
                match diverging_epoch {
                    Some(e) => write!(f, " (diverging epoch {e})")?,
                    None => f.write_str(" (snapshot)")?,
                }
                write!(f, " hw={}", opt(*hw))
            }
            EventKind::Snapshot { node, action, id } => {
                write!(f, "n{node} snapshot {} end={} e{}", action.name(), id.end_offset, id.epoch)
            }
            EventKind::Crash { node, lost_records } => {
                write!(f, "n{node} crash (lost {lost_records} unflushed records)")
            }
            EventKind::Restart { node } => write!(f, "n{node} restart"),
            EventKind::Fault(k) => write!(f, "fault {k}"),
            EventKind::Write { node, accepted, offset, kind } => match (accepted, node, offset) {
                (true, Some(n), Some(o)) => {
                    write!(f, "client write {kind} -> n{n} accepted at offset {o}")
                }
                (_, Some(n), _) => {
                    write!(f, "client write {kind} -> n{n} rejected: not the leader")
                }
                _ => write!(f, "client write {kind} rejected: no leader"),
            },
            EventKind::Violation { invariant, node, detail, evidence } => {
                write!(f, "VIOLATION {}", invariant.name())?;
                if let Some(n) = node {
                    write!(f, " at n{n}")?;
                }
                write!(f, ": {detail}")?;
                if !evidence.is_empty() {
                    f.write_str(" (events")?;
                    for e in evidence.iter() {
                        write!(f, " {e}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
        }
    }
}

/// A running hash over every field of every event: what two runs must agree on. It
/// hashes the events' binary form (integers as little-endian words, whatever the
/// platform's word size) rather than their text, which would cost more than simulating
/// them. The mixing step is FxHash's (rotate, xor, multiply): fast, not cryptographic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest(u64);

const DIGEST_SEED: u64 = 0xcbf2_9ce4_8422_2325;
const DIGEST_MUL: u64 = 0x517c_c1b7_2722_0a95;

impl Default for Digest {
    fn default() -> Self {
        Digest(DIGEST_SEED)
    }
}

impl Digest {
    pub fn add(&mut self, event: &Event) {
        use std::hash::Hash;
        event.seq.hash(self);
        event.t.hash(self);
        event.kind.hash(self);
    }
    pub fn value(self) -> u64 {
        self.0
    }
    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(DIGEST_MUL);
    }
}

impl std::hash::Hasher for Digest {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
        }
    }
    // Every integer is widened to one word, so 32-bit wasm and 64-bit native agree
    // (lengths and enum discriminants arrive as usize/isize).
    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }
    fn write_u16(&mut self, i: u16) {
        self.mix(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.mix(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
    fn write_isize(&mut self, i: isize) {
        self.mix(i as i64 as u64);
    }
}

// ---- JSON form (what the npm package and `--format json` give) -------------------------

use serde::ser::{Serialize, SerializeMap, Serializer};

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("seq", &self.seq)?;
        m.serialize_entry("t", &self.t)?;
        m.serialize_entry("type", self.kind.type_name())?;
        match &self.kind {
            EventKind::Send { msg, from, to, rpc, epoch, summary, arrives, dropped } => {
                m.serialize_entry("msg", msg)?;
                m.serialize_entry("from", from)?;
                m.serialize_entry("to", to)?;
                m.serialize_entry("rpc", rpc.name())?;
                m.serialize_entry("epoch", epoch)?;
                m.serialize_entry("summary", &summary.to_string())?;
                m.serialize_entry("arrives", arrives)?;
                m.serialize_entry("dropped", &dropped.map(|d| d.name()))?;
            }
            EventKind::Deliver { msg, from, to, rpc, epoch, summary, sent, duplicate } => {
                m.serialize_entry("msg", msg)?;
                m.serialize_entry("from", from)?;
                m.serialize_entry("to", to)?;
                m.serialize_entry("rpc", rpc.name())?;
                m.serialize_entry("epoch", epoch)?;
                m.serialize_entry("summary", &summary.to_string())?;
                m.serialize_entry("sent", sent)?;
                m.serialize_entry("duplicate", duplicate)?;
            }
            EventKind::Drop { msg, from, to, rpc, epoch, sent, reason } => {
                m.serialize_entry("msg", msg)?;
                m.serialize_entry("from", from)?;
                m.serialize_entry("to", to)?;
                m.serialize_entry("rpc", rpc.name())?;
                m.serialize_entry("epoch", epoch)?;
                m.serialize_entry("sent", sent)?;
                m.serialize_entry("reason", reason.name())?;
            }
            EventKind::Disconnect { node, peer, rpc, sent } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("peer", peer)?;
                m.serialize_entry("rpc", rpc.name())?;
                m.serialize_entry("sent", sent)?;
            }
            EventKind::State { node, from, to, epoch, leader, voted, reason } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("from", from.name())?;
                m.serialize_entry("to", to.name())?;
                m.serialize_entry("epoch", epoch)?;
                m.serialize_entry("leader", leader)?;
                m.serialize_entry("votedFor", voted)?;
                m.serialize_entry("reason", reason.name())?;
            }
            EventKind::Persist { node, epoch, leader, voted } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("epoch", epoch)?;
                m.serialize_entry("leader", leader)?;
                m.serialize_entry("votedFor", voted)?;
            }
            EventKind::Vote { node, candidate, epoch, pre_vote, decision } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("candidate", candidate)?;
                m.serialize_entry("epoch", epoch)?;
                m.serialize_entry("preVote", pre_vote)?;
                m.serialize_entry("granted", &decision.granted())?;
                m.serialize_entry("reason", decision.name())?;
                m.serialize_entry("detail", &decision.describe())?;
            }
            EventKind::Append { node, first, last, epoch, kind } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("first", first)?;
                m.serialize_entry("last", last)?;
                m.serialize_entry("epoch", epoch)?;
                m.serialize_entry("kind", kind)?;
            }
            EventKind::Flush { node, offset } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("offset", offset)?;
            }
            EventKind::HighWatermark { node, old, new } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("old", old)?;
                m.serialize_entry("new", new)?;
            }
            EventKind::Truncate { node, from_leo, to, diverging_epoch, hw } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("fromLeo", from_leo)?;
                m.serialize_entry("to", to)?;
                m.serialize_entry("divergingEpoch", diverging_epoch)?;
                m.serialize_entry("hw", hw)?;
            }
            EventKind::Snapshot { node, action, id } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("action", action.name())?;
                m.serialize_entry("endOffset", &id.end_offset)?;
                m.serialize_entry("epoch", &id.epoch)?;
            }
            EventKind::Crash { node, lost_records } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("lostRecords", lost_records)?;
            }
            EventKind::Restart { node } => m.serialize_entry("node", node)?,
            EventKind::Fault(k) => {
                let (name, nodes): (&str, Vec<NodeId>) = match k {
                    FaultKind::Isolate(n) => ("isolate", vec![*n]),
                    FaultKind::Partition(g) => ("partition", g.iter().flatten().copied().collect()),
                    FaultKind::Cut { from, to } => ("cut", vec![*from, *to]),
                    FaultKind::Uncut { from, to } => ("uncut", vec![*from, *to]),
                    FaultKind::SlowLink { from, to, .. } => ("slowLink", vec![*from, *to]),
                    FaultKind::ClearSlowLink { from, to } => ("clearSlowLink", vec![*from, *to]),
                    FaultKind::Reconnect(n) => ("reconnect", vec![*n]),
                    FaultKind::HealPartition => ("healPartition", vec![]),
                    FaultKind::Heal => ("heal", vec![]),
                    FaultKind::Network { .. } => ("network", vec![]),
                    FaultKind::SlowDisk { node, .. } => ("slowDisk", vec![*node]),
                    FaultKind::Workload { .. } => ("workload", vec![]),
                    FaultKind::Resign(n) => ("resign", vec![*n]),
                    FaultKind::Wipe(n) => ("wipe", vec![*n]),
                };
                m.serialize_entry("fault", name)?;
                m.serialize_entry("nodes", &nodes)?;
                m.serialize_entry("detail", &k.to_string())?;
            }
            EventKind::Write { node, accepted, offset, kind } => {
                m.serialize_entry("node", node)?;
                m.serialize_entry("accepted", accepted)?;
                m.serialize_entry("offset", offset)?;
                m.serialize_entry("kind", kind)?;
            }
            EventKind::Violation { invariant, node, detail, evidence } => {
                m.serialize_entry("invariant", invariant.name())?;
                m.serialize_entry("node", node)?;
                m.serialize_entry("detail", detail)?;
                m.serialize_entry("evidence", evidence)?;
            }
        }
        m.serialize_entry("text", &self.kind.to_string())?;
        m.end()
    }
}
