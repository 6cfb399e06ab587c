//! One KRaft replica (Kafka's KafkaRaftClient), sans-IO: it is given the time, a random
//! stream and one input at a time (`io.rs`), and answers with outputs. This file holds the
//! replica, its queries, its inputs (a message is dispatched to its RPC's handler, whose
//! response is sent back) and its poll loop (timers, then the sends its state calls for,
//! which are `outbound`). The handlers live one file per RPC concern, the transitions in
//! `transitions`.

use super::config::{QuorumConfig, SafetySwitch, Unsafe, LOG_CLEANER_INTERVAL_MS};
use super::io::{Ctx, Note, Wake};
use super::leader::{LeaderState, ResignRequest};
use super::log::ReplicaLog;
use super::record::{Epoch, MetadataImage, NodeId, Offset, RecordBody};
use super::replica_key::{DirectoryId, ReplicaKey};
use super::requests::Requests;
use super::rpc::{
    ApiVersionsResponse, BeginQuorumEpochResponse, EndQuorumEpochResponse, Envelope, ErrorCode, LeaderHint, Message,
    RpcKind, BOOTSTRAP_SNAPSHOT_ID,
};
use super::state::{ElectionState, EpochState, Reason, StateName};
use super::voter_history::VoterHistory;
use super::voters::{Endpoints, KRaftVersion, KRaftVersionRange, VoterNode, VoterSet};

/// What a node's process is started with besides its disk.
#[derive(Clone, Debug)]
pub struct ReplicaSetup {
    pub id: NodeId,
    /// `controller.quorum.voters`: the static voter set, which applies while the log holds
    /// no VotersRecord, and the bootstrap servers an unattached replica fetches from to
    /// find the leader. (A dynamic quorum configures `controller.quorum.bootstrap.servers`
    /// instead and gets its voters from the bootstrap checkpoint on its disk.)
    pub voters: Vec<NodeId>,
    /// `controller.quorum.bootstrap.servers` without `controller.quorum.voters` (a dynamic
    /// quorum): `voters` are only where to look for the leader, and the static voter set
    /// is empty, so a node formatted without initial controllers (a new or wiped one) is
    /// an observer until its log names it a voter (QuorumConfig.parseBootstrapServers).
    pub bootstrap_only: bool,
    pub config: QuorumConfig,
    pub switches: Unsafe,
    /// Records applied between two snapshots (0: no snapshots).
    pub snapshot_interval: u64,
}

/// What a crash leaves on disk.
#[derive(Clone, Debug)]
pub struct Durable {
    pub election: ElectionState,
    pub log: ReplicaLog,
}

/// A voter's append as follower whose flush is still running: its HW is set only once
/// the records are on disk (Kafka's appendAsFollower flushes before the HW moves).
#[derive(Clone, Copy, Debug)]
pub struct AwaitingFlush {
    pub up_to: Offset,
    /// The HW the leader's Fetch response carried.
    pub leader_hw: Option<Offset>,
}

#[derive(Clone, Debug)]
pub struct Replica {
    pub id: NodeId,
    /// Who votes, by log offset: the latest set, committed or not, is the one in force
    /// (KIP-853); the static controller.quorum.voters while the log holds none.
    pub(crate) history: VoterHistory,
    /// Whom an unattached replica, or a follower whose leader stopped answering, asks for
    /// the leader (Kafka's RequestManager bootstrap servers): fixed at startup.
    pub(crate) bootstrap_servers: Vec<NodeId>,
    /// Flushes every append as a follower, voter or not (KafkaRaftClient's
    /// followersAlwaysFlush, 3.9+): a controller of a dynamic quorum, which the leader may
    /// count as a voter as soon as the VotersRecord adding it is appended.
    pub(crate) followers_always_flush: bool,
    pub(crate) config: QuorumConfig,
    pub(crate) switches: Unsafe,
    pub(crate) snapshot_interval: u64,
    pub(crate) state: EpochState,
    pub(crate) election: ElectionState,
    pub(crate) log: ReplicaLog,
    /// This node's high watermark: never decreases while the process lives.
    pub(crate) hw: Option<Offset>,
    pub(crate) image: MetadataImage,
    pub(crate) requests: Requests,
    pub(crate) awaiting_flush: Option<AwaitingFlush>,
    pub(super) next_correlation: u64,
    /// When the last snapshot was taken (or the node started), for the time trigger.
    pub(super) last_snapshot_ms: u64,
    /// When the log cleaner runs next (KafkaRaftClient's RaftMetadataLogCleanerManager).
    pub(super) clean_deadline: u64,
}

impl Replica {
    /// Starts from what is on disk, by Kafka's rules (QuorumState.initialize), and polls.
    pub fn start(ctx: &mut Ctx, setup: ReplicaSetup, durable: Durable, reason: Reason) -> (Replica, Wake) {
        let ReplicaSetup { id, voters, bootstrap_only, config, switches, snapshot_interval } = setup;
        let mut durable = durable;
        if config.release.formats_directory_ids() && durable.log.directory_id().is_none() {
            // `kafka-storage.sh format` on the blank disks the world hands out: a Kafka
            // release cannot start without a directory id (a wiped disk gets a new one).
            let bits = ctx.rng.next_u64();
            durable.log.format_directory_id(DirectoryId::new(bits).unwrap_or(DirectoryId::MIN));
        }
        let static_voters = if bootstrap_only { &[][..] } else { &voters[..] };
        let mut history = VoterHistory::new(VoterSet::from_static(static_voters.iter().copied()));
        history.update(&durable.log);
        let image = durable
            .log
            .snapshot()
            .map(|s| (*s.image).clone())
            .unwrap_or_else(|| MetadataImage::new(durable.log.meter()));
        let e = durable.election;
        let mut r = Replica {
            id,
            history,
            bootstrap_servers: VoterSet::from_static(voters).iter().collect(),
            followers_always_flush: bootstrap_only,
            config,
            switches,
            snapshot_interval,
            state: EpochState::Unattached(super::state::UnattachedState {
                epoch: e.epoch,
                voted: e.voted_key(),
                leader: None,
                election_deadline: u64::MAX,
            }),
            election: e,
            log: durable.log,
            hw: None,
            image,
            requests: Requests::default(),
            awaiting_flush: None,
            next_correlation: 0,
            last_snapshot_ms: ctx.now,
            clean_deadline: ctx.now + LOG_CLEANER_INTERVAL_MS,
        };
        // The bootstrap checkpoint holds no metadata: the state machine loads nothing from it
        // (KafkaRaftClient fires handleLoadSnapshot only past the log start).
        if let Some(s) = r.log.snapshot().filter(|s| s.id != BOOTSTRAP_SNAPSHOT_ID) {
            ctx.note(Note::SnapshotLoaded { id: s.id });
        }
        r.initialize(ctx, reason);
        let wake = r.poll(ctx);
        (r, wake)
    }

    // ---- queries -------------------------------------------------------------------

    /// This replica's key: its node id and its log directory's id.
    pub fn key(&self) -> ReplicaKey {
        ReplicaKey::new(self.id, self.log.directory_id())
    }
    /// What this replica would be as a voter (Kafka's QuorumState.localVoterNode): its key,
    /// its listeners and the kraft.version levels its software supports.
    pub fn local_voter_node(&self) -> VoterNode {
        VoterNode::new(self.key(), Endpoints::of_node(self.id), KRaftVersionRange::SUPPORTED)
    }
    /// QuorumState.isVoter: this replica, directory id included, is in the latest set.
    pub fn is_voter(&self) -> bool {
        self.voters().is_voter(self.key())
    }
    /// The voter set in force: the latest in the log, committed or not.
    pub fn voters(&self) -> &VoterSet {
        self.history.last_voter_set()
    }
    /// Every voter set and kraft.version the log holds, by offset.
    pub fn voter_history(&self) -> &VoterHistory {
        &self.history
    }
    pub fn kraft_version(&self) -> KRaftVersion {
        self.history.last_kraft_version()
    }
    pub fn majority(&self) -> usize {
        self.voters().majority()
    }
    pub fn epoch(&self) -> Epoch {
        self.state.epoch()
    }
    pub fn state(&self) -> &EpochState {
        &self.state
    }
    pub fn state_name(&self) -> StateName {
        self.state.name()
    }
    pub fn leader_id(&self) -> Option<NodeId> {
        self.state.leader(self.id)
    }
    /// Drops what the log keeps of records compacted away since the last call, once the
    /// world has checked every event of the step that may have read them.
    pub fn forget_compacted(&mut self) {
        self.log.forget_compacted();
    }

    pub fn log(&self) -> &ReplicaLog {
        &self.log
    }
    pub fn high_watermark(&self) -> Option<Offset> {
        self.hw
    }
    pub fn image(&self) -> &MetadataImage {
        &self.image
    }
    pub fn election_state(&self) -> ElectionState {
        self.election
    }
    pub fn leader_state(&self) -> Option<&LeaderState> {
        self.state.as_leader()
    }
    pub fn durable(&self) -> Durable {
        // FileQuorumStateStore writes the version kraft.version calls for: version 0 has no
        // votedDirectoryId, so at kraft.version 0 a restart knows only the voted node id.
        let mut election = self.election;
        if !self.kraft_version().is_reconfig_supported() {
            election.voted_directory = None;
        }
        Durable { election, log: self.log.durable_copy() }
    }
    /// A leader of more than one voter resigns when a majority stops fetching (Kafka's
    /// LeaderState.timeUntilCheckQuorumExpires); a lone voter is its own majority.
    fn checks_quorum(&self) -> bool {
        self.voters().len() > 1 && !self.switches.has(SafetySwitch::NoCheckQuorum)
    }
    pub fn voted_for(&self) -> Option<NodeId> {
        self.voted_in_state()
    }

    /// (deadline, total) of the timer that ends this state, for the UI's progress bars.
    /// A leader that never checks quorum has none: a lone voter never expires (Kafka's
    /// LeaderState.timeUntilCheckQuorumExpires returns Long.MAX_VALUE for one voter), nor
    /// does a leader with check-quorum switched off.
    pub fn state_timer(&self) -> Option<(u64, u64)> {
        match &self.state {
            EpochState::Follower(s) => self.is_voter().then_some((s.fetch_deadline, self.config.fetch_timeout_ms)),
            EpochState::Leader(l) => {
                self.checks_quorum().then_some((l.check_quorum_deadline, self.config.check_quorum_timeout_ms()))
            }
            s => s.election_deadline().map(|d| (d, self.config.election_timeout_ms)),
        }
    }

    /// The earliest time this replica needs `poll` again: what every input answers with
    /// ([`Wake`]).
    pub fn next_deadline(&self, now: u64) -> Option<u64> {
        if self.flush_done() {
            return Some(now); // back from the flush: set the HW and fetch again
        }
        // The log cleaner always has a next run.
        let mut d = self.clean_deadline;
        match &self.state {
            // An observer has no fetch timeout (Kafka's pollFollowerAsObserver). A voter also
            // wakes when its update voter timer expires (3.9's pollFollowerAsVoter bounds its
            // wait by it); one that expired without sending (4.1+) acts at the next input.
            EpochState::Follower(s) if self.is_voter() => {
                d = d.min(s.fetch_deadline);
                if s.update_voter_deadline > now {
                    d = d.min(s.update_voter_deadline);
                }
            }
            EpochState::Follower(_) => {}
            EpochState::Leader(l) => {
                d = d.min(if l.resign_requested.is_some() { now } else { l.begin_quorum_deadline });
                if self.checks_quorum() {
                    d = d.min(l.check_quorum_deadline);
                }
                if let Some(t) = l.linger_deadline {
                    d = d.min(t);
                }
                for p in &l.parked {
                    d = d.min(p.deadline);
                }
                if let Some(c) = &l.voter_change {
                    d = d.min(c.deadline);
                }
            }
            s => {
                if let Some(t) = s.election_deadline() {
                    d = d.min(t);
                }
            }
        }
        if let Some(t) = self.requests.next_deadline(now) {
            d = d.min(t);
        }
        Some(d)
    }

    fn wake(&self, now: u64) -> Wake {
        Wake(self.next_deadline(now))
    }

    /// Earliest expiry among parked fetches (answered even while the replica is busy).
    pub fn next_parked_expiry(&self) -> Option<u64> {
        self.leader_state().and_then(|l| l.parked.iter().map(|p| p.deadline).min())
    }

    // ---- inputs --------------------------------------------------------------------

    /// Handles one message, then polls (as Kafka's single raft thread does). A request is
    /// answered with what its handler returns; a response is handled only when it answers
    /// the request still out to its sender (KafkaRaftClient.handleResponse asks
    /// RequestManager.isResponseExpected), otherwise it is dropped.
    pub fn handle(&mut self, ctx: &mut Ctx, env: Envelope) -> Wake {
        self.finish_follower_append(ctx);
        let Envelope { from, to: _, correlation, message } = env;
        if !message.kind().is_request() && !self.requests.complete(from, correlation) {
            return self.poll(ctx);
        }
        let response = match message {
            Message::Vote(r) => Some(Message::VoteResponse(self.handle_vote_request(ctx, from, r))),
            Message::BeginQuorumEpoch(r) => {
                Some(Message::BeginQuorumEpochResponse(self.handle_begin_quorum_epoch_request(ctx, from, r)))
            }
            Message::EndQuorumEpoch(r) => {
                Some(Message::EndQuorumEpochResponse(self.handle_end_quorum_epoch_request(ctx, from, r)))
            }
            Message::Fetch(r) => self.handle_fetch_request(ctx, from, correlation, r).map(Message::FetchResponse),
            Message::FetchSnapshot(r) => {
                Some(Message::FetchSnapshotResponse(self.handle_fetch_snapshot_request(ctx, from, r)))
            }
            Message::VoteResponse(r) => {
                self.handle_vote_response(ctx, from, r);
                None
            }
            Message::BeginQuorumEpochResponse(BeginQuorumEpochResponse { error, hint })
            | Message::EndQuorumEpochResponse(EndQuorumEpochResponse { error, hint }) => {
                self.handle_quorum_epoch_response(ctx, from, error, hint);
                None
            }
            Message::FetchResponse(r) => {
                self.handle_fetch_response(ctx, from, r);
                None
            }
            Message::FetchSnapshotResponse(r) => {
                self.handle_fetch_snapshot_response(ctx, from, r);
                None
            }
            Message::AddRaftVoter(r) => {
                self.handle_add_voter_request(ctx, from, correlation, r).map(Message::AddRaftVoterResponse)
            }
            Message::RemoveRaftVoter(r) => {
                self.handle_remove_voter_request(ctx, from, correlation, r).map(Message::RemoveRaftVoterResponse)
            }
            Message::UpdateRaftVoter(r) => {
                Some(Message::UpdateRaftVoterResponse(self.handle_update_voter_request(ctx, r)))
            }
            // Any node answers ApiVersions with the kraft.version levels its software supports.
            Message::ApiVersions => Some(Message::ApiVersionsResponse(ApiVersionsResponse {
                error: ErrorCode::None,
                kraft_version: Some(KRaftVersionRange::SUPPORTED),
            })),
            Message::ApiVersionsResponse(r) => {
                self.handle_api_versions_response(ctx, from, r);
                None
            }
            // A voter updating its entry waits for this (a Kafka release only: in the legacy
            // model no replica sends UpdateRaftVoter, so `requests.complete` refused it above).
            Message::UpdateRaftVoterResponse(r) => {
                self.handle_update_voter_response(ctx, from, r);
                None
            }
            // A controller that auto-joins waits for these (4.2+); otherwise only an admin
            // client sends AddRaftVoter and RemoveRaftVoter, and `requests.complete` refused
            // the answers above.
            Message::AddRaftVoterResponse(r) => {
                self.handle_auto_join_response(ctx, from, true, r);
                None
            }
            Message::RemoveRaftVoterResponse(r) => {
                self.handle_auto_join_response(ctx, from, false, r);
                None
            }
        };
        if let Some(m) = response {
            ctx.send(self.id, from, correlation, m);
        }
        self.poll(ctx)
    }

    /// This replica's request waiting on `peer`, if any: its correlation id and kind.
    pub fn awaiting(&self, peer: NodeId) -> Option<(u64, RpcKind)> {
        self.requests.awaiting(peer)
    }

    /// The connection to `peer` failed under the request `correlation` (base, or reset
    /// because the peer's process died). Kafka's KafkaNetworkChannel.sendOnComplete turns a
    /// disconnected ClientResponse into a BROKER_NOT_AVAILABLE response; every response
    /// handler passes it to handleTopLevelError, which reports it as not handled, so
    /// RequestManager.onResponseResult frees the slot and backs the connection off for
    /// retry.backoff.ms. Timers are untouched: only the fetch timer detects a dead leader.
    pub fn disconnected(&mut self, ctx: &mut Ctx, peer: NodeId, correlation: u64) -> Wake {
        self.finish_follower_append(ctx);
        let asked = self.requests.awaiting(peer).filter(|(c, _)| *c == correlation).map(|(_, rpc)| rpc);
        if self.requests.complete(peer, correlation) {
            let until = ctx.now + self.config.retry_backoff_ms;
            self.requests.backoff(peer, until);
        }
        if asked == Some(RpcKind::ApiVersions) {
            // An AddVoter waiting on this answer ends (AddVoterHandler.handleApiVersionsResponse
            // gets the disconnect as an error).
            self.api_versions_failed(ctx, peer);
        }
        self.poll(ctx)
    }

    /// A client write. Only a leader takes it; it is appended after append.linger.ms.
    /// Answers with the offset it will have.
    pub fn write(&mut self, ctx: &mut Ctx, body: RecordBody) -> (Result<Offset, String>, Wake) {
        let offset = self.accumulate(ctx, body);
        (offset, self.wake(ctx.now))
    }

    fn accumulate(&mut self, ctx: &mut Ctx, body: RecordBody) -> Result<Offset, String> {
        let leo = self.log.end_offset();
        let linger = self.config.append_linger_ms;
        let Some(l) = self.state.as_leader_mut() else {
            return Err(format!("node {} is {}, not the leader", self.id, self.state.name().name()));
        };
        let offset = leo + l.pending_writes.len() as u64;
        let id = ctx.ids.next_record_id();
        l.pending_writes.push((id, body));
        if l.linger_deadline.is_none() {
            l.linger_deadline = Some(ctx.now + linger);
        }
        // The batch is drained by the raft thread when the linger ends (poll), as Kafka's
        // BatchAccumulator is: a write never runs on a blocked replica thread.
        Ok(offset)
    }

    /// Graceful resignation (what a controller does on shutdown): the raft thread
    /// resigns at its next poll and sends EndQuorumEpoch.
    pub fn resign(&mut self, now: u64) -> (Result<(), String>, Wake) {
        let done = match self.state.as_leader_mut() {
            Some(l) => {
                l.resign_requested = Some(ResignRequest::Graceful);
                Ok(())
            }
            None => Err(format!("node {} is {}, only a leader can resign", self.id, self.state.name().name())),
        };
        (done, self.wake(now))
    }

    /// The disk finished a flush the replica asked for: it polls at once (a follower sets
    /// its HW and fetches again).
    pub fn flushed(&mut self, now: u64, up_to: Offset) -> Wake {
        self.log.mark_flushed(up_to);
        self.wake(now)
    }

    // ---- timers --------------------------------------------------------------------

    /// Runs every timer that is due, then sends what the state calls for.
    pub fn poll(&mut self, ctx: &mut Ctx) -> Wake {
        self.maybe_clean(ctx);
        self.finish_follower_append(ctx);
        self.requests.expire(ctx.now);
        for _ in 0..8 {
            if !self.poll_state_timer(ctx) {
                break;
            }
        }
        self.answer_expired_fetches(ctx);
        self.send_requests(ctx);
        self.wake(ctx.now)
    }

    /// Returns true when it changed state (so timers are checked again).
    fn poll_state_timer(&mut self, ctx: &mut Ctx) -> bool {
        let now = ctx.now;
        let check_quorum = self.checks_quorum();
        // Whether this replica is a voter matters only once the timer that asks is due
        // (and reading it costs a search of the voter set): false otherwise.
        let voter = match &self.state {
            EpochState::Unattached(s) => s.election_deadline <= now && self.is_voter(),
            EpochState::Follower(s) => s.fetch_deadline <= now && self.is_voter(),
            _ => false,
        };
        match &mut self.state {
            EpochState::Unattached(s) => {
                if voter && s.election_deadline <= now {
                    self.transition_to_prospective(ctx, Reason::ElectionTimeout);
                    return true;
                }
            }
            EpochState::Prospective(s) => {
                if s.election_deadline <= now {
                    self.prospective_lost(ctx, false);
                    return true;
                }
            }
            EpochState::Candidate(s) => {
                if s.election_deadline <= now {
                    self.transition_to_prospective(ctx, Reason::ElectionTimeout);
                    return true;
                }
            }
            EpochState::Follower(s) => {
                // Only a voter times out (pollFollowerAsVoter); an observer stays Follower until
                // it learns a newer epoch (pollFollowerAsObserver has no fetch timeout).
                if s.fetch_deadline <= now && voter {
                    self.transition_to_prospective(ctx, Reason::FetchTimeout);
                    return true;
                }
            }
            EpochState::Resigned(s) => {
                if s.election_deadline <= now {
                    let epoch = s.epoch + 1;
                    self.transition_to_unattached(ctx, epoch, None, Reason::ResignedTimeout);
                    return true;
                }
            }
            EpochState::Leader(l) => {
                if let Some(request) = l.resign_requested {
                    let reason = match request {
                        ResignRequest::Graceful => Reason::Resign,
                        ResignRequest::RemovedFromVoters => Reason::RemovedFromVoters,
                    };
                    self.transition_to_resigned(ctx, reason);
                    return true;
                }
                if check_quorum && l.check_quorum_deadline <= now {
                    self.transition_to_resigned(ctx, Reason::CheckQuorumFailed);
                    return true;
                }
                self.maybe_expire_voter_change(ctx);
                let Some(l) = self.state.as_leader_mut() else {
                    return false;
                };
                if l.linger_deadline.map(|t| t <= now).unwrap_or(false) {
                    l.linger_deadline = None;
                    let batch = std::mem::take(&mut l.pending_writes);
                    self.append_as_leader(ctx, batch);
                }
                let Some(l) = self.state.as_leader_mut() else {
                    return false;
                };
                if l.begin_quorum_deadline <= now {
                    self.send_begin_quorum_epoch(ctx);
                }
            }
        }
        false
    }

    #[inline]
    pub(super) fn hint(&self) -> LeaderHint {
        LeaderHint { epoch: self.epoch(), leader: self.leader_id() }
    }
}
