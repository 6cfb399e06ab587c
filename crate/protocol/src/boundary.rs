//! KRaft's side of the boundary the world drives replicas through (`kraft_boundary`):
//! what the protocol is made of (`Protocol for KRaft`), the replica's inputs and views
//! (`ReplicaCore for Replica`), its disk, its log view, its messages, and the names its
//! trace is written in. Each is a thin mapping onto the replica's own methods.

use super::config::{ClusterConfig, KafkaRelease, QuorumConfig, SafetySwitch, AUTO_JOIN_KEY};
use super::election::VoteDecision;
use super::io::{Ctx, KRaft, Wake};
use super::log::{FetchPosition, ReplicaLog};
use super::record::{ClientRecord, Epoch, MetadataImage, NodeId, Offset, Record, RecordBody};
use super::replica::{Durable, Replica, ReplicaSetup};
use super::replica_key::{DirectoryId, ReplicaKey};
use super::rpc::{
    AddRaftVoterRequest, Envelope, ErrorCode, FetchOutcome, Message, MessageSummary, RemoveRaftVoterRequest, RpcKind,
    SnapshotId,
};
use super::state::{ElectionState, EpochState, Reason, StateName};
use super::voters::{Endpoints, KRaftVersionRange, VoterNode, VoterSet};
use kraft_base::messages::cap;
use kraft_base::shared::Meter;
use kraft_boundary::{
    DurableState, LogEntry, LogView, Named, Outcome, PeerProgress, PersistedElection, Protocol, ProtocolSpec,
    ReplicaCore, RpcName, Setup, Start, StateTimer, Summary, TimerKind, Verdict, VoterChangeRequest, VoterKey,
    WireMessage, ADMIN_CLIENT,
};

impl Protocol for KRaft {
    type Replica = Replica;
    type Durable = Durable;
    type Log = ReplicaLog;
    type Message = Message;
    type Config = ClusterConfig;
    type Rpc = RpcKind;
    type Summary = MessageSummary;
    type State = StateName;
    type Reason = Reason;
    type Decision = VoteDecision;

    fn configure(spec: &ProtocolSpec<'_>) -> Result<ClusterConfig, (String, String)> {
        let release = match spec.release {
            None => KafkaRelease::Legacy,
            Some(name) => KafkaRelease::find(name).ok_or_else(|| {
                let known = KafkaRelease::NAMES.join(", ");
                ("kafkaRelease".to_string(), format!("must be one of {known}; got \"{}\"", cap(name)))
            })?,
        };
        // KafkaRaftClient reads its voters from a bootstrap checkpoint only from 3.9 (KIP-853).
        if spec.dynamic_quorum && release == KafkaRelease::Legacy {
            let known = KafkaRelease::NAMES[1..].join(", ");
            return Err((
                "quorum".to_string(),
                format!("a dynamic quorum needs a Kafka release that has one (kafkaRelease {known}); legacy is static"),
            ));
        }
        let mut quorum = QuorumConfig { release, ..QuorumConfig::default() };
        for (k, v) in spec.config {
            quorum.set(k, *v).map_err(|e| (format!("config.{k}"), e))?;
        }
        // Auto-join (KIP-1186) is in KafkaRaftClient.pollFollowerAsObserver from 4.2, and
        // only for a process that can become a voter (canBecomeVoter: a controller). Every
        // node of a dynamic quorum is a controller (formatted with or without
        // --initial-controllers); a static quorum's observers are brokers (KafkaConfig wants
        // every controller in controller.quorum.voters), and its voters already vote.
        if quorum.auto_join != 0 {
            let why = if !release.auto_join() {
                Some(format!("auto-join came in Kafka 4.2 (KIP-1186), and this run models {}", release.name()))
            } else if !spec.dynamic_quorum {
                Some("a static quorum's observers are brokers, which never become voters: set quorum dynamic".into())
            } else {
                None
            };
            if let Some(why) = why {
                let e = format!("{AUTO_JOIN_KEY} must be 0 here, got {}: {why}", quorum.auto_join);
                return Err((format!("config.{AUTO_JOIN_KEY}"), e));
            }
        }
        let mut switches = super::config::Unsafe::default();
        for name in spec.unsafe_switches {
            switches = switches.with(SafetySwitch::parse(name).map_err(|e| ("unsafe".to_string(), e))?);
        }
        Ok(ClusterConfig { quorum, switches, snapshot_interval: spec.snapshot_interval })
    }

    /// RemoveVoterHandler.highWatermarkUpdated: the leader's removal committed, it resigns.
    fn resigned_as_removed(reason: Reason) -> bool {
        reason == Reason::RemovedFromVoters
    }
}

/// A voter's replica key as the boundary names it (directory ids by their bits).
fn voter_key(n: &super::voters::VoterNode) -> VoterKey {
    VoterKey { id: n.id, directory: n.directory.map(|d| d.bits()) }
}

impl ReplicaCore<KRaft> for Replica {
    fn start(ctx: &mut Ctx, setup: Setup<'_, KRaft>, disk: Durable, start: Start) -> (Replica, Wake) {
        let Setup { id, voters, bootstrap_only, config } = setup;
        let setup = ReplicaSetup {
            id,
            voters: voters.to_vec(),
            bootstrap_only,
            config: config.quorum.clone(),
            switches: config.switches,
            snapshot_interval: config.snapshot_interval,
        };
        let reason = match start {
            Start::Startup => Reason::Startup,
            Start::Restart => Reason::Restart,
        };
        Replica::start(ctx, setup, disk, reason)
    }
    #[inline]
    fn handle(&mut self, ctx: &mut Ctx, envelope: Envelope) -> Wake {
        Replica::handle(self, ctx, envelope)
    }
    fn disconnected(&mut self, ctx: &mut Ctx, peer: NodeId, correlation: u64) -> Wake {
        Replica::disconnected(self, ctx, peer, correlation)
    }
    fn write(&mut self, ctx: &mut Ctx, record: ClientRecord) -> (Result<Offset, String>, Wake) {
        Replica::write(self, ctx, RecordBody::Client(record))
    }
    fn resign(&mut self, now: u64) -> (Result<(), String>, Wake) {
        Replica::resign(self, now)
    }
    /// The request `kafka-metadata-quorum.sh` sends (Admin.addRaftVoter/removeRaftVoter):
    /// `add-controller` names the controller's listeners too, and waits for the commit
    /// (AckWhenCommitted true).
    fn change_voters(&mut self, ctx: &mut Ctx, correlation: u64, request: VoterChangeRequest) -> Wake {
        let key = |id, directory| ReplicaKey::new(id, DirectoryId::new(directory));
        let message = match request {
            VoterChangeRequest::Add { id, directory } => Message::AddRaftVoter(AddRaftVoterRequest {
                voter: key(id, directory),
                listeners: Endpoints::of_node(id),
                ack_when_committed: true,
            }),
            VoterChangeRequest::Remove { id, directory } => {
                Message::RemoveRaftVoter(RemoveRaftVoterRequest { voter: key(id, directory) })
            }
        };
        let envelope = Envelope { from: ADMIN_CLIENT, to: self.id, correlation, message };
        Replica::handle(self, ctx, envelope)
    }
    #[inline]
    fn flushed(&mut self, now: u64, up_to: Offset) -> Wake {
        Replica::flushed(self, now, up_to)
    }
    #[inline]
    fn poll(&mut self, ctx: &mut Ctx) -> Wake {
        Replica::poll(self, ctx)
    }
    fn poll_during_flush(&mut self, ctx: &mut Ctx) -> Wake {
        self.expire_parked_fetches(ctx)
    }
    #[inline]
    fn deadline_during_flush(&self) -> Option<u64> {
        self.next_parked_expiry()
    }
    fn next_deadline(&self, now: u64) -> Option<u64> {
        Replica::next_deadline(self, now)
    }
    #[inline]
    fn forget_compacted(&mut self) {
        Replica::forget_compacted(self)
    }

    #[inline]
    fn id(&self) -> NodeId {
        self.id
    }
    #[inline]
    fn state_name(&self) -> StateName {
        Replica::state_name(self)
    }
    #[inline]
    fn epoch(&self) -> Epoch {
        Replica::epoch(self)
    }
    fn leader_id(&self) -> Option<NodeId> {
        Replica::leader_id(self)
    }
    fn voted_for(&self) -> Option<NodeId> {
        Replica::voted_for(self)
    }
    #[inline]
    fn voters(&self) -> impl Iterator<Item = NodeId> + '_ {
        Replica::voters(self).iter()
    }
    fn voter_directory(&self, id: NodeId) -> Option<u64> {
        Replica::voters(self).node(id)?.key().directory.map(DirectoryId::bits)
    }
    /// The voter history (KRaftControlRecordStateMachine's VoterSetHistory, read from the
    /// log uncommitted): the latest entry below `end`, else the static voters.
    fn voters_before(&self, end: Offset) -> Option<(Option<Offset>, impl Iterator<Item = VoterKey> + Clone + '_)> {
        let (at, set) = self.voter_history().voter_set_before(end);
        Some((at, set.nodes().iter().map(voter_key)))
    }
    #[inline]
    fn log(&self) -> &ReplicaLog {
        Replica::log(self)
    }
    /// A leader's is LeaderState's HW, what its Fetch responses carry; any other
    /// replica's is the HW it learned.
    #[inline]
    fn committed_offset(&self) -> Option<Offset> {
        match self.leader_state() {
            Some(l) => l.high_watermark,
            None => self.high_watermark(),
        }
    }
    fn image(&self) -> &MetadataImage {
        Replica::image(self)
    }
    fn durable(&self) -> Durable {
        Replica::durable(self)
    }
    fn awaiting(&self, peer: NodeId) -> Option<(u64, RpcKind)> {
        Replica::awaiting(self, peer)
    }
    fn state_timer(&self) -> Option<StateTimer> {
        let (deadline, total) = Replica::state_timer(self)?;
        let kind = match self.state() {
            EpochState::Follower(_) => TimerKind::Fetch,
            EpochState::Leader(_) => TimerKind::CheckQuorum,
            _ => TimerKind::Election,
        };
        Some(StateTimer { kind, deadline, total })
    }
    fn replication(&self) -> Option<Vec<PeerProgress>> {
        let l = self.leader_state()?;
        let peer = |p: &super::leader::ReplicaProgress| PeerProgress {
            id: p.id,
            is_voter: p.is_voter,
            end_offset: p.end_offset,
            last_fetch_ms: p.last_fetch_ms,
            last_caught_up_ms: p.last_caught_up_ms,
        };
        Some(l.replicas.iter().map(peer).collect())
    }
}

impl DurableState<KRaft> for Durable {
    fn blank(meter: &Meter) -> Durable {
        Durable { election: ElectionState::default(), log: ReplicaLog::new(meter) }
    }
    /// Formatter.run: from Kafka 3.7 (KIP-858) every log directory gets a directory.id,
    /// and from 3.9 `--initial-controllers` writes the bootstrap checkpoint
    /// (`ReplicaLog::format`). The legacy model's disks have neither.
    fn format(meter: &Meter, config: &ClusterConfig, directory: u64, initial: Option<&[(NodeId, u64)]>) -> Durable {
        let Some(directory) = DirectoryId::new(directory).filter(|_| config.quorum.release != KafkaRelease::Legacy)
        else {
            return Durable::blank(meter);
        };
        let initial = initial.map(|voters| {
            VoterSet::from_nodes(voters.iter().map(|&(id, dir)| {
                VoterNode::new(
                    ReplicaKey::new(id, DirectoryId::new(dir)),
                    Endpoints::of_node(id),
                    KRaftVersionRange::SUPPORTED,
                )
            }))
        });
        Durable { election: ElectionState::default(), log: ReplicaLog::format(meter, directory, initial) }
    }
    #[inline]
    fn log(&self) -> &ReplicaLog {
        &self.log
    }
    fn election(&self) -> PersistedElection {
        self.election.persisted()
    }
}

impl LogEntry for Record {
    type Body = RecordBody;
    #[inline]
    fn offset(&self) -> Offset {
        self.offset
    }
    #[inline]
    fn epoch(&self) -> Epoch {
        self.epoch
    }
    #[inline]
    fn id(&self) -> u64 {
        self.id
    }
    fn body(&self) -> &RecordBody {
        &self.body
    }
    /// A VotersRecord's voters.
    fn voters(&self) -> Option<Vec<VoterKey>> {
        match &self.body {
            RecordBody::Voters { voters } => Some(voters.nodes().iter().map(voter_key).collect()),
            _ => None,
        }
    }
}

impl LogView for ReplicaLog {
    type Entry = Record;
    #[inline]
    fn start_offset(&self) -> Offset {
        ReplicaLog::start_offset(self)
    }
    #[inline]
    fn end_offset(&self) -> Offset {
        ReplicaLog::end_offset(self)
    }
    #[inline]
    fn flushed_offset(&self) -> Offset {
        ReplicaLog::flushed_offset(self)
    }
    fn last_epoch(&self) -> Epoch {
        ReplicaLog::last_epoch(self)
    }
    #[inline]
    fn get(&self, offset: Offset) -> Option<&Record> {
        ReplicaLog::get(self, offset)
    }
    fn epoch_at(&self, offset: Offset) -> Option<Epoch> {
        ReplicaLog::epoch_at(self, offset)
    }
    #[inline]
    fn compacted(&self) -> &[Record] {
        ReplicaLog::compacted(self)
    }
    fn read(&self, offset: Offset, max: usize) -> Vec<Record> {
        ReplicaLog::read(self, offset, max)
    }
    fn latest_snapshot(&self) -> Option<SnapshotId> {
        self.snapshot().map(|s| s.id)
    }
    fn earliest_snapshot(&self) -> Option<SnapshotId> {
        ReplicaLog::earliest_snapshot(self).map(|s| s.id)
    }
    /// The leader's check of a fetch from the snapshot's end (ReplicatedLog.validateOffsetAndEpoch)
    /// finds no divergence.
    fn continues_snapshot(&self, id: SnapshotId) -> bool {
        !matches!(self.validate_fetch(id.end_offset, id.epoch), FetchPosition::Diverging { .. })
    }
    /// The epoch cache: 16 bytes an epoch (the records are shared).
    fn unshared_bytes(&self) -> u64 {
        self.epoch_cache().len() as u64 * 16
    }
    fn directory(&self) -> Option<u64> {
        self.directory_id().map(DirectoryId::bits)
    }
}

impl WireMessage for Message {
    type Rpc = RpcKind;
    type Summary = MessageSummary;
    #[inline]
    fn kind(&self) -> RpcKind {
        Message::kind(self)
    }
    #[inline]
    fn epoch(&self) -> Epoch {
        Message::epoch(self)
    }
    #[inline]
    fn summary(&self) -> MessageSummary {
        Message::summary(self)
    }
    fn records_carried(&self) -> u64 {
        match self {
            Message::FetchResponse(r) => r.records.len() as u64,
            _ => 0,
        }
    }
    fn voter_change_answer(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Message::AddRaftVoterResponse(r) | Message::RemoveRaftVoterResponse(r) => Some((r.error.name(), r.message)),
            _ => None,
        }
    }
}

impl Named for RpcKind {
    fn name(self) -> &'static str {
        RpcKind::name(self)
    }
}
impl RpcName for RpcKind {
    #[inline]
    fn is_request(self) -> bool {
        RpcKind::is_request(self)
    }
}

impl Summary for MessageSummary {
    /// A (pre-)vote granted or refused, a fetch refused with an error, a diverging epoch
    /// or a snapshot to fetch.
    fn outcome(&self) -> Outcome {
        match self {
            MessageSummary::VoteResponse { granted: true, .. } => Outcome::Granted,
            MessageSummary::VoteResponse { .. } => Outcome::Refused,
            MessageSummary::FetchResponse { error, .. } if *error != ErrorCode::None => Outcome::Error,
            MessageSummary::FetchResponse { outcome: FetchOutcome::Diverging { .. }, .. } => Outcome::Diverging,
            MessageSummary::FetchResponse { outcome: FetchOutcome::Snapshot { .. }, .. } => Outcome::Snapshot,
            _ => Outcome::Plain,
        }
    }
}

impl Named for StateName {
    fn name(self) -> &'static str {
        StateName::name(self)
    }
}
impl kraft_boundary::StateName for StateName {
    const CRASHED: StateName = StateName::Crashed;
    #[inline]
    fn is_leader(self) -> bool {
        self == StateName::Leader
    }
    #[inline]
    fn seeks_votes(self) -> bool {
        matches!(self, StateName::Prospective | StateName::Candidate)
    }
    #[inline]
    fn is_candidate(self) -> bool {
        self == StateName::Candidate
    }
    /// QuorumState.transitionToLeader and transitionToResigned carry no HW over (`enter`).
    #[inline]
    fn clears_committed_offset(self) -> bool {
        matches!(self, StateName::Leader | StateName::Resigned)
    }
}

impl Named for Reason {
    fn name(self) -> &'static str {
        Reason::name(self)
    }
}

impl Verdict for VoteDecision {
    fn granted(self) -> bool {
        VoteDecision::granted(self)
    }
    fn name(self) -> &'static str {
        VoteDecision::name(self)
    }
    fn describe(self) -> String {
        VoteDecision::describe(self)
    }
}
