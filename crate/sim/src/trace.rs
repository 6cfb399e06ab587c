//! The event vocabulary: every happening in a run is one small `Event`. The UI, the
//! CLI, the tests and the invariant checker all read these. Text is produced only when
//! asked (`Display`), one line per event, for people to read and diff.
//!
//! The world's own words (faults, drops, crashes, violations) are declared here; what a
//! replica says (its RPC kinds and message summaries, state names, transition reasons
//! and vote decisions) is its protocol's vocabulary (`kraft_boundary::Protocol`), so an
//! event is generic over the protocol. KRaft's is the default, and the JSON form and
//! the generated TypeScript types are KRaft's.

use crate::spec::Action;
use crate::vocab::FaultCx;
use kraft_boundary::{Epoch, Named, NodeId, Offset, Protocol, SnapshotId, Verdict};
use kraft_protocol::KRaft;
use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct Event<P: Protocol = KRaft> {
    pub seq: u64,
    /// Simulated time in milliseconds.
    pub t: u64,
    pub kind: EventKind<P>,
}

crate::named! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
    #[serde(rename_all = "kebab-case")]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum DropReason {
        /// Lost by the network (the loss probability).
        Loss = "loss",
        /// The link was down: a partition, isolation or one-way cut.
        Partition = "partition",
        /// The receiver was crashed when it arrived.
        NodeDown = "node-down",
    }
}

crate::named! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
    #[serde(rename_all = "lowercase")]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum SnapshotAction {
        Taken = "taken",
        Fetched = "fetched",
        Loaded = "loaded",
        /// Retention dropped it, and the records before the next snapshot: the log start moved.
        Deleted = "deleted",
    }
}

crate::named! {
    /// The named safety properties the checker watches.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "InvariantName"))]
    pub enum Invariant {
        SingleLeader = "SingleLeader",
        MonotonicEpoch = "MonotonicEpoch",
        MonotonicHighWatermark = "MonotonicHighWatermark",
        MajorityReachedHighWatermark = "MajorityReachedHighWatermark",
        SnapshotAtLogStart = "SnapshotAtLogStart",
        LeaderNeverLoadSnapshot = "LeaderNeverLoadSnapshot",
        ConsistentCommittedData = "ConsistentCommittedData",
        LogMatching = "LogMatching",
        LeaderCompleteness = "LeaderCompleteness",
        NoTruncationBelowHighWatermark = "NoTruncationBelowHighWatermark",
        StableLeadership = "StableLeadership",
        SingleUncommittedVoterChange = "SingleUncommittedVoterChange",
        OverlappingVoterMajorities = "OverlappingVoterMajorities",
        LeaderInOwnVoterSet = "LeaderInOwnVoterSet",
        RemovedLeaderResignsAfterCommit = "RemovedLeaderResignsAfterCommit",
    }
}

impl Invariant {
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
            Invariant::LeaderCompleteness => {
                "every committed record is in the log of every leader of the epoch that committed it or a later one"
            }
            Invariant::NoTruncationBelowHighWatermark => "no node truncates records below its own HW",
            Invariant::StableLeadership => {
                "after the first leader, leadership never changes while a majority is connected"
            }
            Invariant::SingleUncommittedVoterChange => {
                "no log holds two voter-set records above the committed offset: one voter change at a time"
            }
            Invariant::OverlappingVoterMajorities => {
                "the committed voter set changes by at most one voter at a time, so old and new majorities overlap"
            }
            Invariant::LeaderInOwnVoterSet => {
                "a replica is elected leader only while it is in its own latest voter set"
            }
            Invariant::RemovedLeaderResignsAfterCommit => {
                "a leader that removed itself from the voters resigns only once that change is committed"
            }
        }
    }
}

/// A user action or fault, as the trace records it: the action as the world applied it
/// (nodes resolved to ids) and, for one aimed at "the leader" (`resign`), the leader it
/// found. Its name, nodes, texts and digest words all come from the action's one
/// declaration (`spec.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub action: Action,
    pub leader: Option<NodeId>,
    /// The node it started (`addController`: the next id).
    pub added: Option<NodeId>,
}

impl Fault {
    pub fn new(action: Action) -> Fault {
        debug_assert!(action.kind().is_fault(), "{} is not recorded as a fault", action.kind().name());
        Fault { action, leader: None, added: None }
    }
}

/// The words the trace's first, hand-written fault enum hashed: its variant position (kept
/// per action as `trace_position`), then its fields, then the resigning leader.
impl std::hash::Hash for Fault {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.action.kind().trace_position().unwrap_or(-1).hash(h);
        self.action.digest_fields(h);
        if let Some(l) = self.leader {
            l.hash(h);
        }
        if let Some(n) = self.added {
            n.hash(h);
        }
    }
}

/// What happened; its JSON form is tagged by `type` (see `EventJson` and `EVENT_FIELDS`).
// Hashed into the trace's digest field by field in declaration order, variants by
// position, with each protocol word as its protocol declares it.
#[derive(Clone, Debug, PartialEq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "lowercase", rename_all_fields = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(concrete(P = KRaft)))]
pub enum EventKind<P: Protocol = KRaft> {
    Send {
        msg: u64,
        from: NodeId,
        to: NodeId,
        rpc: P::Rpc,
        epoch: Epoch,
        #[serde(serialize_with = "as_text")]
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        summary: P::Summary,
        arrives: u64,
        dropped: Option<DropReason>,
    },
    Deliver {
        msg: u64,
        from: NodeId,
        to: NodeId,
        rpc: P::Rpc,
        epoch: Epoch,
        #[serde(serialize_with = "as_text")]
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        summary: P::Summary,
        sent: u64,
        duplicate: bool,
    },
    Drop {
        msg: u64,
        from: NodeId,
        to: NodeId,
        rpc: P::Rpc,
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
        rpc: P::Rpc,
        sent: u64,
    },
    State {
        node: NodeId,
        from: P::State,
        to: P::State,
        epoch: Epoch,
        leader: Option<NodeId>,
        #[serde(rename = "votedFor")]
        voted: Option<NodeId>,
        reason: P::Reason,
    },
    Persist {
        node: NodeId,
        epoch: Epoch,
        leader: Option<NodeId>,
        #[serde(rename = "votedFor")]
        voted: Option<NodeId>,
    },
    Vote {
        node: NodeId,
        candidate: NodeId,
        epoch: Epoch,
        pre_vote: bool,
        /// Serialized as `granted`, `reason` and `detail` (`kraft_boundary::Verdict`).
        #[serde(flatten)]
        decision: P::Decision,
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
    #[serde(rename = "hw")]
    HighWatermark {
        node: NodeId,
        old: Option<Offset>,
        new: Offset,
        /// At a leader: the voters whose fetch offsets reached `new` (the majority it
        /// counted); empty at a follower, whose HW is the leader's capped by its LEO.
        majority: Box<[NodeId]>,
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
        #[serde(flatten)]
        id: SnapshotId,
    },
    Crash {
        node: NodeId,
        lost_records: u64,
    },
    Restart {
        node: NodeId,
    },
    Fault(
        #[serde(serialize_with = "fault_json")]
        #[cfg_attr(feature = "ts", ts(as = "FaultJson<'static>"))]
        Box<Fault>,
    ),
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
    /// The admin client's voter change (`addVoter`, `removeVoter`) was answered: by `node`,
    /// the leader it was sent to, or at once when there was no leader to send it to
    /// (`node` None). `error` is the protocol's name for the outcome (Kafka's error code;
    /// `NONE`: the new voter set committed), `rule` the rule that refused (empty on success).
    Admin {
        node: Option<NodeId>,
        /// `add-controller` or `remove-controller`, as `kafka-metadata-quorum.sh` names them.
        request: &'static str,
        voter: NodeId,
        error: &'static str,
        rule: &'static str,
    },
}

impl<P: Protocol> EventKind<P> {
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
            EventKind::Admin { .. } => "admin",
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
            EventKind::Write { node, .. } | EventKind::Violation { node, .. } | EventKind::Admin { node, .. } => *node,
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

impl Fault {
    /// The `fault` field of its JSON form (its action's name).
    pub fn name(&self) -> &'static str {
        self.action.kind().name()
    }

    /// The nodes it names, in order (the resigning leader, or the node it started, last).
    pub fn nodes(&self) -> Vec<NodeId> {
        let mut out = self.action.nodes();
        out.extend(self.leader);
        out.extend(self.added);
        out
    }

    fn cx(&self) -> FaultCx {
        FaultCx { leader: self.leader, added: self.added }
    }

    /// Why it happened and what it changes.
    pub fn explanation(&self) -> String {
        self.action.fault_explanation(&self.cx()).unwrap_or_default()
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.action.fault_text(&self.cx()).unwrap_or_default())
    }
}

impl<P: Protocol> fmt::Display for Event<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>6}.{:03}s {:>7} ", self.t / 1000, self.t % 1000, self.seq)?;
        write!(f, "{}", self.kind)
    }
}

impl<P: Protocol> fmt::Display for EventKind<P> {
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
            EventKind::HighWatermark { node, old, new, .. } => {
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
            EventKind::Admin { node, request, voter, error, rule } => {
                write!(f, "admin {request} n{voter}")?;
                match node {
                    Some(n) => write!(f, " -> n{n}: {error}")?,
                    None => write!(f, ": {error}")?,
                }
                if !rule.is_empty() {
                    write!(f, " ({rule})")?;
                }
                Ok(())
            }
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
    pub fn add<P: Protocol>(&mut self, event: &Event<P>) {
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

/// The JSON form of an event: `seq`, `t`, its kind's fields (`type` first), then `text`.
#[derive(Serialize)]
#[serde(bound = "")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TraceEvent", concrete(P = KRaft), bound = "EventKind<P>: ts_rs::TS"))]
pub struct EventJson<'a, P: Protocol = KRaft> {
    /// Sequence number, from 1, strictly increasing.
    seq: u64,
    /// Simulated time in ms.
    t: u64,
    #[serde(flatten)]
    kind: &'a EventKind<P>,
    /// The one-line text form (what the CLI prints). The digest hashes the events' binary
    /// form, not this text.
    #[serde(serialize_with = "as_text")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    text: &'a EventKind<P>,
}

impl<P: Protocol> Serialize for Event<P> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        EventJson { seq: self.seq, t: self.t, kind: &self.kind, text: &self.kind }.serialize(s)
    }
}

/// An event's JSON form, with its `text` or without.
pub struct EventText<'a, P: Protocol = KRaft> {
    pub event: &'a Event<P>,
    pub text: bool,
}

/// An event's JSON form without `text`.
#[derive(Serialize)]
#[serde(bound = "")]
struct BareEvent<'a, P: Protocol> {
    seq: u64,
    t: u64,
    #[serde(flatten)]
    kind: &'a EventKind<P>,
}

impl<P: Protocol> Serialize for EventText<'_, P> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.event;
        if self.text {
            e.serialize(s)
        } else {
            BareEvent { seq: e.seq, t: e.t, kind: &e.kind }.serialize(s)
        }
    }
}

/// A value as its `Display` text (serde_json writes it straight into the output).
fn as_text<T: fmt::Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// The fields a fault adds to a `fault` event.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "FaultFields"))]
pub struct FaultJson<'a> {
    #[cfg_attr(feature = "ts", ts(type = "FaultName"))]
    fault: &'static str,
    /// The nodes it names (a partition: every node of every group).
    nodes: Vec<NodeId>,
    #[serde(serialize_with = "as_text")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    detail: &'a Fault,
}

fn fault_json<S: Serializer>(k: &Fault, s: S) -> Result<S::Ok, S::Error> {
    FaultJson { fault: k.name(), nodes: k.nodes(), detail: k }.serialize(s)
}

/// The fields of each event type's JSON form besides `seq`, `t`, `type` and `text`, in
/// the order they are written: what event patterns in scenarios may name. Generated from
/// what serialization emits for `samples::events()`, one row per `EventKind` variant in
/// order: `event_fields_are_what_serialization_emits` fails when it is stale and
/// `UPDATE=1 cargo test -p kraft-sim --lib event_fields` rewrites the rows, so a new
/// field needs no edit here. A const, so reading it costs nothing at run time.
pub const EVENT_FIELDS: &[(&str, &[&str])] = &[
    // generated: event fields
    ("send", &["msg", "from", "to", "rpc", "epoch", "summary", "arrives", "dropped"]),
    ("deliver", &["msg", "from", "to", "rpc", "epoch", "summary", "sent", "duplicate"]),
    ("drop", &["msg", "from", "to", "rpc", "epoch", "sent", "reason"]),
    ("disconnect", &["node", "peer", "rpc", "sent"]),
    ("state", &["node", "from", "to", "epoch", "leader", "votedFor", "reason"]),
    ("persist", &["node", "epoch", "leader", "votedFor"]),
    ("vote", &["node", "candidate", "epoch", "preVote", "granted", "reason", "detail"]),
    ("append", &["node", "first", "last", "epoch", "kind"]),
    ("flush", &["node", "offset"]),
    ("hw", &["node", "old", "new", "majority"]),
    ("truncate", &["node", "fromLeo", "to", "divergingEpoch", "hw"]),
    ("snapshot", &["node", "action", "endOffset", "epoch"]),
    ("crash", &["node", "lostRecords"]),
    ("restart", &["node"]),
    ("fault", &["fault", "nodes", "detail"]),
    ("write", &["node", "accepted", "offset", "kind"]),
    ("violation", &["invariant", "node", "detail", "evidence"]),
    ("admin", &["node", "request", "voter", "error", "rule"]),
    // end of generated event fields
];

#[cfg(any(test, feature = "ts"))]
pub mod samples {
    //! One value of every variant of the event vocabulary, in KRaft's words, for the tests
    //! that check the JSON form and for the generated TypeScript name unions. Each list is
    //! guarded by an exhaustive match, so a new variant fails to compile until it has a
    //! sample here.
    use super::*;
    use kraft_protocol::election::VoteDecision;
    use kraft_protocol::rpc::{ErrorCode, MessageSummary, RpcKind};
    use kraft_protocol::{Reason, StateName};

    /// Every fault action's sample, as the trace records it (a resignation found n0).
    pub fn faults() -> Vec<Fault> {
        let fault = |action: Action| {
            let leader = matches!(action.subject(), Some(crate::vocab::Subject::Leader)).then_some(0);
            let added = matches!(action, Action::AddController).then_some(5);
            Fault { action, leader, added }
        };
        Action::samples().into_iter().filter(|a| a.kind().is_fault()).map(fault).collect()
    }

    pub fn decisions() -> Vec<VoteDecision> {
        use VoteDecision::*;
        let all = vec![
            Granted,
            GrantedAgain,
            LogNotUpToDate,
            AlreadyVoted(2),
            KnowsLeader(1),
            IsLeader,
            IsCandidate,
            IsResigned,
            FollowerHasFetched(0),
            IsFollower(0),
            StaleEpoch,
            InvalidVoterKey,
            InvalidRequest,
        ];
        let arm = |d: &VoteDecision| match d {
            Granted => 0,
            GrantedAgain => 1,
            LogNotUpToDate => 2,
            AlreadyVoted(_) => 3,
            KnowsLeader(_) => 4,
            IsLeader => 5,
            IsCandidate => 6,
            IsResigned => 7,
            FollowerHasFetched(_) => 8,
            IsFollower(_) => 9,
            StaleEpoch => 10,
            InvalidVoterKey => 11,
            InvalidRequest => 12,
        };
        assert!(all.iter().map(arm).eq(0..all.len()), "one decision sample per variant, in order");
        all
    }

    pub fn events() -> Vec<EventKind> {
        let summary = MessageSummary::Ack { error: ErrorCode::None, leader: Some(0) };
        let all = vec![
            EventKind::Send {
                msg: 7,
                from: 0,
                to: 1,
                rpc: RpcKind::Fetch,
                epoch: 2,
                summary,
                arrives: 12,
                dropped: Some(DropReason::Loss),
            },
            EventKind::Deliver {
                msg: 7,
                from: 0,
                to: 1,
                rpc: RpcKind::Fetch,
                epoch: 2,
                summary,
                sent: 9,
                duplicate: false,
            },
            EventKind::Drop {
                msg: 7,
                from: 0,
                to: 1,
                rpc: RpcKind::Vote,
                epoch: 2,
                sent: 9,
                reason: DropReason::NodeDown,
            },
            EventKind::Disconnect { node: 0, peer: 1, rpc: RpcKind::Fetch, sent: 9 },
            EventKind::State {
                node: 1,
                from: StateName::Follower,
                to: StateName::Prospective,
                epoch: 2,
                leader: None,
                voted: Some(1),
                reason: Reason::FetchTimeout,
            },
            EventKind::Persist { node: 1, epoch: 3, leader: None, voted: Some(1) },
            EventKind::Vote {
                node: 0,
                candidate: 1,
                epoch: 3,
                pre_vote: true,
                decision: VoteDecision::AlreadyVoted(2),
            },
            EventKind::Append { node: 0, first: 4, last: 6, epoch: 3, kind: "CreateTopic" },
            EventKind::Flush { node: 0, offset: 7 },
            EventKind::HighWatermark { node: 0, old: None, new: 7, majority: vec![0, 2].into() },
            EventKind::Truncate { node: 2, from_leo: 9, to: 7, diverging_epoch: Some(2), hw: Some(5) },
            EventKind::Snapshot {
                node: 1,
                action: SnapshotAction::Deleted,
                id: SnapshotId { end_offset: 1000, epoch: 2 },
            },
            EventKind::Crash { node: 2, lost_records: 3 },
            EventKind::Restart { node: 2 },
            EventKind::Fault(Box::new(Fault::new(Action::Partition { groups: vec![vec![0, 1], vec![2]] }))),
            EventKind::Write { node: Some(0), accepted: true, offset: Some(8), kind: "RegisterBroker" },
            EventKind::Violation {
                invariant: Invariant::LogMatching,
                node: Some(1),
                detail: "two records at offset 4".into(),
                evidence: vec![3, 5].into(),
            },
            EventKind::Admin {
                node: Some(0),
                request: "add-controller",
                voter: 3,
                error: "REQUEST_TIMED_OUT",
                rule: "the new voter is not caught up",
            },
        ];
        let arm = |k: &EventKind| match k {
            EventKind::Send { .. } => 0,
            EventKind::Deliver { .. } => 1,
            EventKind::Drop { .. } => 2,
            EventKind::Disconnect { .. } => 3,
            EventKind::State { .. } => 4,
            EventKind::Persist { .. } => 5,
            EventKind::Vote { .. } => 6,
            EventKind::Append { .. } => 7,
            EventKind::Flush { .. } => 8,
            EventKind::HighWatermark { .. } => 9,
            EventKind::Truncate { .. } => 10,
            EventKind::Snapshot { .. } => 11,
            EventKind::Crash { .. } => 12,
            EventKind::Restart { .. } => 13,
            EventKind::Fault(_) => 14,
            EventKind::Write { .. } => 15,
            EventKind::Violation { .. } => 16,
            EventKind::Admin { .. } => 17,
        };
        assert!(all.iter().map(arm).eq(0..all.len()), "one event sample per variant, in order");
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraft_protocol::rpc::MessageSummary;
    use serde_json::Value;

    /// Every event is moved through the trace pipeline several times: its size is part of
    /// the simulator's speed (it was 128 bytes while the summary took 80).
    #[test]
    fn events_and_summaries_stay_small() {
        assert_eq!(std::mem::size_of::<MessageSummary>(), 32);
        assert_eq!(std::mem::size_of::<Event>(), 80);
    }

    /// The summary's compact layout hashes the very words its first (derived, 80-byte)
    /// layout did, so digests recorded before it still match.
    #[test]
    fn summary_digest_words_match_the_first_layout() {
        use kraft_protocol::rpc::{DivergingEpoch, ErrorCode, FetchOutcome};
        #[derive(Hash)]
        #[allow(dead_code)] // only the variants a sample needs are built
        enum FirstLayout {
            Vote {
                last_epoch: Epoch,
                last_offset: Offset,
            },
            VoteResponse {
                granted: bool,
                error: ErrorCode,
                leader: Option<NodeId>,
            },
            BeginQuorumEpoch,
            EndQuorumEpoch {
                first_successor: Option<NodeId>,
                successors: u8,
            },
            Ack {
                error: ErrorCode,
                leader: Option<NodeId>,
            },
            Fetch {
                offset: Offset,
                last_epoch: Epoch,
                hw: Option<Offset>,
            },
            FetchResponse {
                error: ErrorCode,
                hw: Option<Offset>,
                records: u32,
                first_offset: Offset,
                diverging: Option<DivergingEpoch>,
                snapshot: Option<SnapshotId>,
            },
            FetchSnapshot {
                snapshot: SnapshotId,
                position: u64,
            },
            FetchSnapshotResponse {
                error: ErrorCode,
                position: u64,
                chunk: u64,
                size: u64,
            },
        }
        fn words(v: &impl std::hash::Hash) -> u64 {
            let mut d = Digest::default();
            v.hash(&mut d);
            d.value()
        }
        let snap = SnapshotId { end_offset: 40, epoch: 3 };
        let e = ErrorCode::FencedLeaderEpoch;
        let pairs = [
            (
                MessageSummary::Vote { last_epoch: 2, last_offset: 9 },
                FirstLayout::Vote { last_epoch: 2, last_offset: 9 },
            ),
            (
                MessageSummary::VoteResponse { granted: true, error: e, leader: Some(2) },
                FirstLayout::VoteResponse { granted: true, error: e, leader: Some(2) },
            ),
            (MessageSummary::BeginQuorumEpoch, FirstLayout::BeginQuorumEpoch),
            (
                MessageSummary::EndQuorumEpoch { first_successor: Some(4), successors: 3 },
                FirstLayout::EndQuorumEpoch { first_successor: Some(4), successors: 3 },
            ),
            (MessageSummary::Ack { error: e, leader: None }, FirstLayout::Ack { error: e, leader: None }),
            (
                MessageSummary::Fetch { offset: 7, last_epoch: 2, hw: Some(5) },
                FirstLayout::Fetch { offset: 7, last_epoch: 2, hw: Some(5) },
            ),
            (
                MessageSummary::FetchResponse {
                    error: ErrorCode::None,
                    hw_known: true,
                    hw: 5,
                    outcome: FetchOutcome::Records { first_offset: 6, count: 3 },
                },
                FirstLayout::FetchResponse {
                    error: ErrorCode::None,
                    hw: Some(5),
                    records: 3,
                    first_offset: 6,
                    diverging: None,
                    snapshot: None,
                },
            ),
            (
                MessageSummary::FetchResponse {
                    error: e,
                    hw_known: false,
                    hw: 0,
                    outcome: FetchOutcome::Records { first_offset: 0, count: 0 },
                },
                FirstLayout::FetchResponse {
                    error: e,
                    hw: None,
                    records: 0,
                    first_offset: 0,
                    diverging: None,
                    snapshot: None,
                },
            ),
            (
                MessageSummary::FetchResponse {
                    error: ErrorCode::None,
                    hw_known: true,
                    hw: 5,
                    outcome: FetchOutcome::Diverging { epoch: 2, end_offset: 8 },
                },
                FirstLayout::FetchResponse {
                    error: ErrorCode::None,
                    hw: Some(5),
                    records: 0,
                    first_offset: 0,
                    diverging: Some(DivergingEpoch { epoch: 2, end_offset: 8 }),
                    snapshot: None,
                },
            ),
            (
                MessageSummary::FetchResponse {
                    error: ErrorCode::None,
                    hw_known: true,
                    hw: 5,
                    outcome: FetchOutcome::Snapshot { end_offset: 40, epoch: 3 },
                },
                FirstLayout::FetchResponse {
                    error: ErrorCode::None,
                    hw: Some(5),
                    records: 0,
                    first_offset: 0,
                    diverging: None,
                    snapshot: Some(snap),
                },
            ),
            (
                MessageSummary::FetchSnapshot { snapshot: snap, position: 10 },
                FirstLayout::FetchSnapshot { snapshot: snap, position: 10 },
            ),
            (
                MessageSummary::FetchSnapshotResponse { error: e, position: 10, chunk: 20, size: 60 },
                FirstLayout::FetchSnapshotResponse { error: e, position: 10, chunk: 20, size: 60 },
            ),
        ];
        for (now, first) in &pairs {
            assert_eq!(words(now), words(first), "{now:?}");
        }
    }

    /// A fault hashes the very words the trace's first fault enum (one hand-written variant
    /// per fault, positions in this order) did, so recorded digests still match.
    #[test]
    fn fault_digest_words_match_the_first_layout() {
        #[derive(Hash)]
        enum FirstLayout {
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
            Reconnect(NodeId),
            HealPartition,
            ClearSlowLink { from: NodeId, to: NodeId },
        }
        fn words(v: &impl std::hash::Hash) -> u64 {
            let mut d = Digest::default();
            v.hash(&mut d);
            d.value()
        }
        let first = |f: &Fault| match f.action.clone() {
            Action::Isolate { node } => FirstLayout::Isolate(node),
            Action::Partition { groups } => FirstLayout::Partition(groups),
            Action::Cut { from, to } => FirstLayout::Cut { from, to },
            Action::Uncut { from, to } => FirstLayout::Uncut { from, to },
            Action::SlowLink { from, to, latency_ms: [min_ms, max_ms] } => {
                FirstLayout::SlowLink { from, to, min_ms, max_ms }
            }
            Action::Heal => FirstLayout::Heal,
            Action::Network { latency_ms: [latency_min_ms, latency_max_ms], loss, duplicate } => FirstLayout::Network {
                latency_min_ms,
                latency_max_ms,
                loss_ppm: crate::vocab::ppm(loss),
                duplicate_ppm: crate::vocab::ppm(duplicate),
            },
            Action::SlowDisk { node, flush_ms } => FirstLayout::SlowDisk { node, flush_ms },
            Action::Workload { writes_per_second } => FirstLayout::Workload { writes_per_second },
            Action::Resign => FirstLayout::Resign(f.leader.expect("a resignation names its leader")),
            Action::Wipe { node } => FirstLayout::Wipe(node),
            Action::Reconnect { node } => FirstLayout::Reconnect(node),
            Action::HealPartition => FirstLayout::HealPartition,
            Action::ClearSlowLink { from, to } => FirstLayout::ClearSlowLink { from, to },
            other => panic!("{} is not a fault", other.kind().name()),
        };
        // the 14 faults the first layout had (a later one has no earlier digest to keep)
        let mut faults: Vec<Fault> =
            samples::faults().into_iter().filter(|f| f.action.kind().trace_position() < Some(14)).collect();
        faults.push(Fault::new(Action::Network { latency_ms: [3, 700], loss: 0.3333, duplicate: 1.0 }));
        faults.push(Fault::new(Action::Partition { groups: vec![vec![4], vec![0, 1, 2, 3], vec![]] }));
        assert_eq!(faults.len(), 16, "one sample of each of the 14 faults, and two more");
        for f in &faults {
            assert_eq!(words(f), words(&first(f)), "{f:?}");
            let event: EventKind = EventKind::Fault(Box::new(f.clone()));
            assert_eq!(words(&event), words(&EventKindFault(first(f))), "{f:?}");
        }
        // as a field of the event: the event's variant position, then the fault's words
        #[derive(Hash)]
        #[allow(dead_code)]
        enum EventKindFirst {
            A,
            B,
            C,
            D,
            E,
            F,
            G,
            H,
            I,
            J,
            K,
            L,
            M,
            N,
            Fault(FirstLayout),
        }
        #[allow(non_snake_case)]
        fn EventKindFault(f: FirstLayout) -> EventKindFirst {
            EventKindFirst::Fault(f)
        }
    }

    fn json(kind: EventKind) -> serde_json::Map<String, Value> {
        match serde_json::to_value(Event { seq: 3, t: 1234, kind }).unwrap() {
            Value::Object(m) => m,
            other => panic!("an event serializes as an object, got {other}"),
        }
    }

    /// The keys of a JSON object in the order they are written.
    fn keys_in_order(json: &str) -> Vec<String> {
        struct Keys(Vec<String>);
        impl<'de> serde::Deserialize<'de> for Keys {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Visit;
                impl<'de> serde::de::Visitor<'de> for Visit {
                    type Value = Keys;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                        let mut keys = Vec::new();
                        while let Some((k, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                            keys.push(k);
                        }
                        Ok(Keys(keys))
                    }
                }
                d.deserialize_map(Visit)
            }
        }
        serde_json::from_str::<Keys>(json).unwrap().0
    }

    /// `EVENT_FIELDS` as serialization emits it: each sample's keys in order, without the
    /// common `seq`, `t`, `type` (first) and `text` (last).
    fn emitted_event_fields() -> Vec<(&'static str, Vec<String>)> {
        let mut rows = Vec::new();
        for kind in samples::events() {
            let name = kind.type_name();
            let text = kind.to_string();
            let keys = keys_in_order(&serde_json::to_string(&Event { seq: 3, t: 1234, kind: kind.clone() }).unwrap());
            let m = json(kind);
            assert_eq!(m["type"], name);
            assert_eq!(m["text"], text);
            let n = keys.len();
            assert!(n >= 4 && keys[..3] == ["seq", "t", "type"] && keys[n - 1] == "text", "{name}: {keys:?}");
            rows.push((name, keys[3..n - 1].to_vec()));
        }
        rows
    }

    /// `EVENT_FIELDS` is generated: it must be what serialization emits, and `UPDATE=1`
    /// rewrites its rows in this file (between its marker comments).
    #[test]
    fn event_fields_are_what_serialization_emits() {
        const START: &str = "    // generated: event fields\n";
        const END: &str = "    // end of generated event fields\n";
        let want = emitted_event_fields();
        let have: Vec<(&str, Vec<String>)> =
            EVENT_FIELDS.iter().map(|(n, f)| (*n, f.iter().map(|s| s.to_string()).collect())).collect();
        if have == want {
            return;
        }
        if kraft_expect::updating() {
            let rows: String = want
                .iter()
                .map(|(n, f)| {
                    let f: Vec<String> = f.iter().map(|k| format!("{k:?}")).collect();
                    format!("    ({n:?}, &[{}]),\n", f.join(", "))
                })
                .collect();
            let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/trace.rs"));
            kraft_expect::sections(path, &[(START, END, &rows)]).unwrap();
            return;
        }
        assert_eq!(
            have, want,
            "EVENT_FIELDS is stale: run `UPDATE=1 cargo test -p kraft-sim --lib event_fields` (then `cargo fmt`)"
        );
    }

    #[test]
    fn computed_fields_are_the_names_and_texts() {
        let m = json(samples::events().swap_remove(0));
        assert_eq!(
            (&m["rpc"], &m["summary"], &m["dropped"]),
            (&Value::from("Fetch"), &Value::from("error=NONE leader=0"), &Value::from("loss"))
        );
        for d in samples::decisions() {
            let m = json(EventKind::Vote { node: 0, candidate: 1, epoch: 3, pre_vote: false, decision: d });
            assert_eq!(m["granted"], d.granted());
            assert_eq!(m["reason"], d.name());
            assert_eq!(m["detail"], d.describe());
        }
        for f in samples::faults() {
            let m = json(EventKind::Fault(Box::new(f.clone())));
            assert_eq!(m["fault"], f.name());
            assert_eq!(m["nodes"], serde_json::to_value(f.nodes()).unwrap());
            assert_eq!(m["detail"], f.to_string());
        }
    }

    // The text form uses `name()`, the JSON form serde's renames: they must agree.
    #[test]
    fn names_are_the_json_names() {
        let json = |v: serde_json::Value| v.as_str().expect("a name").to_string();
        for i in Invariant::ALL {
            assert_eq!(json(serde_json::to_value(i).unwrap()), i.name());
        }
        for s in kraft_protocol::SafetySwitch::ALL {
            assert_eq!(json(serde_json::to_value(s).unwrap()), s.name());
        }
        for d in DropReason::ALL {
            assert_eq!(json(serde_json::to_value(d).unwrap()), d.name());
        }
        for a in SnapshotAction::ALL {
            assert_eq!(json(serde_json::to_value(a).unwrap()), a.name());
        }
    }
}
