//! The boundary the world drives replicas through, whatever their protocol: what a
//! protocol is made of ([`Protocol`]), what the world asks of one of its replicas
//! ([`ReplicaCore`]), what a replica is handed for one input ([`Ctx`]) and what it
//! answers with ([`Output`], [`Note`], [`Wake`]). A replica never sees a clock, a socket
//! or a disk: the world owns time, the network and the disks, turns outputs into
//! messages, fsyncs and trace events, and reads the replica only through these views.

use crate::log::{LogView, SnapshotId, VoterKey};
use crate::message::{Envelope, WireMessage};
use crate::record::{ClientRecord, Epoch, MetadataImage, NodeId, Offset};
use crate::vocab::{Named, RpcName, StateName, Summary, TimerKind, Verdict};
use kraft_base::rng::Rng;
use kraft_base::shared::Meter;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::hash::Hash;

/// A consensus protocol the world can run: the types of its replica, disk, log and
/// messages, and the vocabulary its trace is written in. Implemented by a unit type
/// that names the protocol (KRaft's `kraft_protocol::KRaft`); the world and its trace
/// are generic over it.
pub trait Protocol: Copy + Debug + Eq + Hash + 'static {
    type Replica: ReplicaCore<Self>;
    /// What survives a crash.
    type Durable: DurableState<Self>;
    type Log: LogView;
    type Message: WireMessage<Rpc = Self::Rpc, Summary = Self::Summary>;
    /// What every replica of a cluster starts with besides its id and the voters: the
    /// protocol's settings and safety switches.
    type Config: Clone + Debug;
    type Rpc: RpcName;
    type Summary: Summary;
    type State: StateName;
    /// Why a replica changed state.
    type Reason: Named;
    type Decision: Verdict;

    /// The config a cluster's spec gives; an error names the spec field at fault
    /// (`config.<key>`, `kafkaRelease`) and says why.
    fn configure(spec: &ProtocolSpec<'_>) -> Result<Self::Config, (String, String)>;

    /// Whether a leader that changed state for `reason` stepped down because its own
    /// removal from the voters took effect (KRaft: RemoveVoterHandler.highWatermarkUpdated
    /// asks it to resign once the change commits). False by default: a protocol whose
    /// voters never change removes no leader.
    fn resigned_as_removed(reason: Self::Reason) -> bool {
        let _ = reason;
        false
    }
}

/// What a cluster's spec says of its protocol: settings by key (Kafka's config keys),
/// the safety switches turned off (by name), how many applied records make a snapshot
/// (0: none), and the release of the protocol the run models.
#[derive(Clone, Copy, Debug)]
pub struct ProtocolSpec<'a> {
    pub config: &'a BTreeMap<String, u64>,
    pub unsafe_switches: &'a [&'static str],
    pub snapshot_interval: u64,
    /// The release whose behaviour the run models where a protocol's releases differ,
    /// named as the spec gives it (its `kafkaRelease`); None: the protocol's default.
    /// The protocol reads the name: one it does not know is refused as the field
    /// `kafkaRelease`, naming the value and the names it takes.
    pub release: Option<&'a str>,
    /// The spec asks for a dynamic quorum (its `quorum`): voters read from a bootstrap
    /// checkpoint and changed at run time. A protocol (or release) without membership
    /// changes refuses it as the field `quorum`.
    pub dynamic_quorum: bool,
}

/// What a node's process is started with besides its disk.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a, P: Protocol> {
    pub id: NodeId,
    /// The configured voters (Kafka's controller.quorum.voters), or with `bootstrap_only`
    /// the servers it first asks for the leader (controller.quorum.bootstrap.servers).
    pub voters: &'a [NodeId],
    /// A dynamic quorum's node: `voters` are bootstrap servers only, and its voters come
    /// from its disk's bootstrap checkpoint and its log (none until it has read them).
    pub bootstrap_only: bool,
    pub config: &'a P::Config,
}

/// Why a replica process starts: the first time, or again after a crash (a restarted
/// KRaft leader comes back Resigned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    Startup,
    Restart,
}

/// The election state a replica persists before it acts on it, as the trace shows it:
/// its epoch (term), the leader it knows and the vote it cast (Kafka's quorum-state
/// file, whose KIP-853 version also names the voted replica's directory; Raft's
/// currentTerm and votedFor).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PersistedElection {
    pub epoch: Epoch,
    pub leader: Option<NodeId>,
    pub voted: Option<NodeId>,
}

/// A replica's disk: what survives a crash.
pub trait DurableState<P: Protocol>: Clone + Debug {
    /// A blank disk (a new node's, or a wiped one's), its log counted on `meter`.
    fn blank(meter: &Meter) -> Self;
    /// A disk as `kafka-storage.sh format` leaves it: `directory` is the id of its log
    /// directory (KIP-853's replica key), `initial_voters` the voters its bootstrap
    /// checkpoint names (`--initial-controllers`, a dynamic quorum's first voters; None:
    /// `--no-initial-controllers`, or a static quorum). A protocol, or a release of one,
    /// that knows neither formats it `blank`, the default.
    fn format(meter: &Meter, config: &P::Config, directory: u64, initial_voters: Option<&[(NodeId, u64)]>) -> Self {
        let _ = (config, directory, initial_voters);
        Self::blank(meter)
    }
    fn log(&self) -> &P::Log;
    fn election(&self) -> PersistedElection;
}

/// The timer that ends a replica's current state, for the UI's progress bars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateTimer {
    pub kind: TimerKind,
    /// When it fires (simulated ms).
    pub deadline: u64,
    /// Its full length in ms.
    pub total: u64,
}

/// A leader's view of one replica (Kafka's LeaderState.ReplicaState; Raft's matchIndex).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerProgress {
    pub id: NodeId,
    pub is_voter: bool,
    /// Its log end offset as the leader last learned it.
    pub end_offset: Option<Offset>,
    /// When it last fetched (or answered the leader).
    pub last_fetch_ms: Option<u64>,
    /// When it last reached the leader's log end.
    pub last_caught_up_ms: Option<u64>,
}

/// One replica: the inputs the world gives it and the views the world, the checker and
/// the UI read. Every input answers with the replica's next deadline ([`Wake`]), and
/// the world calls `poll` then; it keeps no other timer for the replica.
pub trait ReplicaCore<P: Protocol>: Clone + Debug + Sized {
    // ---- inputs ----------------------------------------------------------------------

    /// Starts from what is on disk, and polls.
    fn start(ctx: &mut Ctx<P>, setup: Setup<'_, P>, disk: P::Durable, start: Start) -> (Self, Wake);
    /// Handles one message, then polls.
    fn handle(&mut self, ctx: &mut Ctx<P>, envelope: Envelope<P::Message>) -> Wake;
    /// The connection to `peer` failed under the request `correlation` (the peer's
    /// process is down).
    fn disconnected(&mut self, ctx: &mut Ctx<P>, peer: NodeId, correlation: u64) -> Wake;
    /// A client write; only a leader takes it. Answers with the offset it will have.
    fn write(&mut self, ctx: &mut Ctx<P>, record: ClientRecord) -> (Result<Offset, String>, Wake);
    /// Graceful resignation (a controller's shutdown); only a leader resigns.
    fn resign(&mut self, now: u64) -> (Result<(), String>, Wake);
    /// A request from the admin client to change the voter set, handled as a message
    /// from [`ADMIN_CLIENT`] with this correlation id; its answer is a message to
    /// [`ADMIN_CLIENT`], now or once the change ends ([`WireMessage::voter_change_answer`]).
    /// A protocol without membership changes answers nothing: the default.
    fn change_voters(&mut self, ctx: &mut Ctx<P>, correlation: u64, request: VoterChangeRequest) -> Wake {
        let _ = (correlation, request);
        self.poll(ctx)
    }
    /// The disk finished a flush the replica asked for ([`Output::Flush`]).
    fn flushed(&mut self, now: u64, up_to: Offset) -> Wake;
    /// Runs every timer that is due, then sends what the state calls for.
    fn poll(&mut self, ctx: &mut Ctx<P>) -> Wake;
    /// The one input a replica takes while its thread is blocked in a flush: work that
    /// runs on a thread of its own (KRaft: the expiry of parked fetches). Answers with
    /// when it is due again ([`ReplicaCore::deadline_during_flush`]).
    fn poll_during_flush(&mut self, ctx: &mut Ctx<P>) -> Wake;
    /// When `poll_during_flush` is due, if ever.
    fn deadline_during_flush(&self) -> Option<u64>;
    /// The earliest time the replica needs `poll` again, as its timers say now: what
    /// every input answers with (the world's tests check each answer against it).
    fn next_deadline(&self, now: u64) -> Option<u64>;
    /// The world has checked every event of the step: what the log kept of records
    /// compacted during it ([`LogView::compacted`]) may go.
    fn forget_compacted(&mut self);

    // ---- views -----------------------------------------------------------------------

    fn id(&self) -> NodeId;
    fn state_name(&self) -> P::State;
    fn epoch(&self) -> Epoch;
    /// The leader it knows for its epoch.
    fn leader_id(&self) -> Option<NodeId>;
    fn voted_for(&self) -> Option<NodeId>;
    /// Who votes now, in ascending order: the replica's own member set (which KIP-853
    /// changes at run time).
    fn voters(&self) -> impl Iterator<Item = NodeId> + '_;
    /// The directory id its latest voter set names for voter `id` (KIP-853's replica
    /// key), if `id` is a voter and the set names one: what `kafka-metadata-quorum.sh
    /// describe --status` shows and `remove-controller` is given.
    fn voter_directory(&self, id: NodeId) -> Option<u64> {
        let _ = id;
        None
    }
    /// The voter set its log puts in force for the records below `end`, as the voters'
    /// keys, with the offset of the record that declares it (None: a set in force before
    /// every record, such as the configured voters or KRaft's bootstrap checkpoint). With
    /// `end` past the log end it is the set `voters` names (KIP-853: the latest, committed
    /// or not); at the committed offset, the set in force at the last committed record
    /// (KRaft's VoterSetHistory.valueAtOrBefore). None by default: a protocol whose voters
    /// never change has only `voters`.
    fn voters_before(&self, end: Offset) -> Option<(Option<Offset>, impl Iterator<Item = VoterKey> + Clone + '_)> {
        let _ = end;
        None::<(Option<Offset>, std::iter::Empty<VoterKey>)>
    }
    fn log(&self) -> &P::Log;
    /// The offset below which it takes records as committed (KRaft's high watermark,
    /// Raft's commitIndex + 1): a leader's is what it tells followers, none before it
    /// knows one.
    fn committed_offset(&self) -> Option<Offset>;
    /// The state machine its committed records built.
    fn image(&self) -> &MetadataImage;
    /// A copy of what is on disk now: what a crash leaves.
    fn durable(&self) -> P::Durable;
    /// Its request waiting on `peer`, if any: the correlation id and kind.
    fn awaiting(&self, peer: NodeId) -> Option<(u64, P::Rpc)>;
    fn state_timer(&self) -> Option<StateTimer>;
    /// A leader's view of every replica (itself included), or None if it does not lead.
    fn replication(&self) -> Option<Vec<PeerProgress>>;
}

/// The node id the admin client (`kafka-metadata-quorum.sh`) speaks from. It stands
/// outside the simulated network: the world hands its requests to the leader and reads
/// the answers addressed to it, as it does a client's writes.
pub const ADMIN_CLIENT: NodeId = NodeId::MAX;

/// What the admin client asks of the leader (KIP-853): `add-controller` sends
/// AddRaftVoter for the controller's replica key, `remove-controller` RemoveRaftVoter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoterChangeRequest {
    Add { id: NodeId, directory: u64 },
    Remove { id: NodeId, directory: u64 },
}

/// What a replica asks of the world, in the order it asked.
#[derive(Clone, Debug)]
pub enum Output<P: Protocol> {
    Send(Envelope<P::Message>),
    /// Make the log durable up to this offset; the replica's thread is busy meanwhile.
    ///
    /// Ordering rule: every output after a `Flush` waits for it. The replica's single
    /// thread (Kafka's raft thread) is blocked in fsync, so what it did next (a
    /// follower's next Fetch, the sends of a poll) happens when the flush is done, and
    /// the world gives it no input until then but `ReplicaCore::poll_during_flush`. The
    /// world reports the end of the flush with `ReplicaCore::flushed`.
    Flush {
        up_to: Offset,
    },
    Note(Note<P>),
}

/// Things worth a trace event, as the replica sees them.
#[derive(Debug, PartialEq)]
pub enum Note<P: Protocol> {
    StateChanged {
        from: P::State,
        to: P::State,
        epoch: Epoch,
        leader: Option<NodeId>,
        voted: Option<NodeId>,
        reason: P::Reason,
    },
    Persisted {
        election: PersistedElection,
    },
    VoteDecided {
        candidate: NodeId,
        epoch: Epoch,
        pre_vote: bool,
        decision: P::Decision,
    },
    Appended {
        first: Offset,
        last: Offset,
        epoch: Epoch,
        kind: &'static str,
    },
    /// The committed offset moved (the trace's `hw`: KRaft's high watermark, Raft's
    /// commitIndex + 1).
    HighWatermark {
        old: Option<Offset>,
        new: Offset,
        /// At a leader: the voters whose logs reached `new`, one bit per node id
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

// By hand: derived for a generic type, `Clone` copies field by field even when the type
// is `Copy`, which made every clone of an output bigger code.
impl<P: Protocol> Clone for Note<P> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: Protocol> Copy for Note<P> {}

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
pub struct Ctx<'a, P: Protocol> {
    pub now: u64,
    pub rng: &'a mut Rng,
    pub ids: &'a mut IdSource,
    pub out: &'a mut Vec<Output<P>>,
}

impl<P: Protocol> Ctx<'_, P> {
    #[inline]
    pub fn note(&mut self, n: Note<P>) {
        self.out.push(Output::Note(n));
    }
    #[inline]
    pub fn send(&mut self, from: NodeId, to: NodeId, correlation: u64, message: P::Message) {
        self.out.push(Output::Send(Envelope { from, to, correlation, message }));
    }
}
