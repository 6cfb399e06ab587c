//! The sans-IO boundary of a replica: what it is given for one input ([`Ctx`]) and what
//! it answers with ([`Output`]). A replica never sees a clock, a socket or a disk; the
//! world (`sim::world`) turns outputs into messages, fsyncs and trace events.

use super::election::VoteDecision;
use super::record::{Epoch, NodeId, Offset};
use super::rpc::{Envelope, Message, SnapshotId};
use super::state::{ElectionState, Reason, StateName};
use kraft_base::rng::Rng;

/// What a replica asks of the world, in the order it asked.
#[derive(Clone, Debug)]
pub enum Output {
    Send(Envelope),
    /// Make the log durable up to this offset; the replica's thread is busy meanwhile.
    ///
    /// Ordering rule: every output after a `Flush` waits for it. The replica's single
    /// thread (Kafka's raft thread) is blocked in fsync, so what it did next (a
    /// follower's next Fetch, the sends of a poll) happens when the flush is done, and
    /// the world gives it no input until then except the parked-fetch expiry timer
    /// (`Replica::expire_parked_fetches`, its own thread in Kafka). The world reports
    /// the end of the flush with `Replica::flushed`.
    Flush {
        up_to: Offset,
    },
    Note(Note),
}

/// Things worth a trace event, as the replica sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Note {
    StateChanged {
        from: StateName,
        to: StateName,
        epoch: Epoch,
        leader: Option<NodeId>,
        voted: Option<NodeId>,
        reason: Reason,
    },
    Persisted {
        election: ElectionState,
    },
    VoteDecided {
        candidate: NodeId,
        epoch: Epoch,
        pre_vote: bool,
        decision: VoteDecision,
    },
    Appended {
        first: Offset,
        last: Offset,
        epoch: Epoch,
        kind: &'static str,
    },
    HighWatermark {
        old: Option<Offset>,
        new: Offset,
        /// At a leader: the voters whose fetch offsets reached `new`, one bit per node id
        /// (`Note` stays `Copy`); 0 at a follower (its HW is the leader's, capped by its LEO).
        majority: u64,
    },
    Truncated {
        from_leo: Offset,
        to: Offset,
        diverging_epoch: Option<Epoch>,
        hw: Option<Offset>,
    },
    SnapshotTaken {
        id: SnapshotId,
    },
    SnapshotFetched {
        id: SnapshotId,
    },
    SnapshotLoaded {
        id: SnapshotId,
    },
    /// The cleaner deleted this snapshot and moved the log start to the next one.
    SnapshotDeleted {
        id: SnapshotId,
    },
}

/// When a replica next needs `poll`: every input answers with it, read after the input
/// as Kafka's KafkaRaftClient.poll reads the time to its next timer (pollCurrentState's
/// return value bounds the wait for the next message). `None`: nothing is due until the
/// next input. The world queues one wake-up at it; nothing else tells it when to call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wake(pub Option<u64>);

/// Record ids are unique across a whole simulation; the world hands them out.
#[derive(Clone, Debug, Default)]
pub struct IdSource {
    next_record: u64,
}

impl IdSource {
    pub fn next_record_id(&mut self) -> u64 {
        self.next_record += 1;
        self.next_record
    }
}

/// Everything a replica may touch while handling one input.
pub struct Ctx<'a> {
    pub now: u64,
    pub rng: &'a mut Rng,
    pub ids: &'a mut IdSource,
    pub out: &'a mut Vec<Output>,
}

impl Ctx<'_> {
    #[inline]
    pub fn note(&mut self, n: Note) {
        self.out.push(Output::Note(n));
    }
    #[inline]
    pub(crate) fn send(&mut self, from: NodeId, to: NodeId, correlation: u64, message: Message) {
        self.out.push(Output::Send(Envelope { from, to, correlation, message }));
    }
}
