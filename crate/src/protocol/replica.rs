//! One KRaft replica, sans-IO: it is given the time, a random stream and one input at a
//! time, and answers with outputs (messages, flushes, trace notes). Handlers are grouped
//! by RPC; the per-state rules they consult live in `election.rs` and `leader.rs`, the
//! transitions in `state.rs`.

use super::config::{QuorumConfig, SafetySwitch, Unsafe};
use super::election::{end_quorum_backoff_ms, vote_decision, VoteDecision};
use super::io::{Ctx, Note, Output};
use super::leader::{LeaderState, ParkedFetch};
use super::log::{FetchPosition, ReplicaLog, Retention};
use super::record::{Epoch, MetadataImage, NodeId, Offset, Record, RecordBody};
use super::requests::Requests;
use super::rpc::{
    BeginQuorumEpochRequest, BeginQuorumEpochResponse, DivergingEpoch, EndQuorumEpochRequest, EndQuorumEpochResponse,
    Envelope, ErrorCode, FetchRequest, FetchResponse, FetchSnapshotRequest, FetchSnapshotResponse, LeaderHint, Message,
    RpcKind, Snapshot, SnapshotId, VoteRequest, VoteResponse,
};
use super::state::{ElectionState, EpochState, Reason, SnapshotDownload, StateName};
use std::sync::Arc;

/// A voter's append as follower whose flush is still running: its HW is set only once
/// the records are on disk (Kafka's appendAsFollower flushes before the HW moves).
#[derive(Clone, Copy, Debug)]
pub struct AwaitingFlush {
    pub up_to: Offset,
    /// The HW the leader's Fetch response carried.
    pub leader_hw: Option<Offset>,
}

/// What a node's process is started with besides its disk.
#[derive(Clone, Debug)]
pub struct ReplicaSetup {
    pub id: NodeId,
    pub voters: Vec<NodeId>,
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

#[derive(Clone, Debug)]
pub struct Replica {
    pub id: NodeId,
    pub(crate) voters: Vec<NodeId>,
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
    next_correlation: u64,
    /// When the last snapshot was taken (or the node started), for the time trigger.
    last_snapshot_ms: u64,
    /// When the log cleaner runs next (KafkaRaftClient's RaftMetadataLogCleanerManager).
    clean_deadline: u64,
}

/// How often the log cleaner runs: KafkaRaftClient's RaftMetadataLogCleanerManager
/// delay, a constant (60 s) in Kafka.
pub const LOG_CLEANER_INTERVAL_MS: u64 = 60_000;

impl Replica {
    /// Starts from what is on disk, by Kafka's rules (QuorumState.initialize).
    pub fn start(ctx: &mut Ctx, setup: ReplicaSetup, durable: Durable, reason: Reason) -> Replica {
        let ReplicaSetup { id, mut voters, config, switches, snapshot_interval } = setup;
        voters.sort_unstable();
        let image = durable
            .log
            .snapshot()
            .map(|s| (*s.image).clone())
            .unwrap_or_else(|| MetadataImage::new(durable.log.meter()));
        let e = durable.election;
        let mut r = Replica {
            id,
            voters,
            config,
            switches,
            snapshot_interval,
            state: EpochState::Unattached(super::state::UnattachedState {
                epoch: e.epoch,
                voted: e.voted,
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
        if let Some(s) = r.log.snapshot() {
            ctx.note(Note::SnapshotLoaded { id: s.id });
        }
        r.initialize(ctx, reason);
        r.poll(ctx);
        r
    }

    // ---- queries -------------------------------------------------------------------

    pub fn is_voter(&self) -> bool {
        self.voters.binary_search(&self.id).is_ok()
    }
    pub fn voters(&self) -> &[NodeId] {
        &self.voters
    }
    pub fn majority(&self) -> usize {
        self.voters.len() / 2 + 1
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
        match &self.state {
            EpochState::Leader(l) => Some(l),
            _ => None,
        }
    }
    pub fn durable(&self) -> Durable {
        Durable { election: self.election, log: self.log.durable_copy() }
    }
    /// A leader of more than one voter resigns when a majority stops fetching (Kafka's
    /// LeaderState.timeUntilCheckQuorumExpires); a lone voter is its own majority.
    fn checks_quorum(&self) -> bool {
        self.voters.len() > 1 && !self.switches.has(SafetySwitch::NoCheckQuorum)
    }
    pub fn voted_for(&self) -> Option<NodeId> {
        self.voted_in_state()
    }

    /// (deadline, total) of the timer that ends this state, for the UI's progress bars.
    pub fn state_timer(&self) -> Option<(u64, u64)> {
        match &self.state {
            EpochState::Unattached(s) if s.election_deadline != u64::MAX => {
                Some((s.election_deadline, self.config.election_timeout_ms))
            }
            EpochState::Prospective(s) => Some((s.election_deadline, self.config.election_timeout_ms)),
            EpochState::Candidate(s) => Some((s.election_deadline, self.config.election_timeout_ms)),
            EpochState::Follower(s) if self.is_voter() => Some((s.fetch_deadline, self.config.fetch_timeout_ms)),
            EpochState::Resigned(s) => Some((s.election_deadline, self.config.election_timeout_ms)),
            EpochState::Leader(l) => Some((l.check_quorum_deadline, self.config.check_quorum_timeout_ms())),
            _ => None,
        }
    }

    /// The earliest time this replica needs `poll` again.
    pub fn next_deadline(&self, now: u64) -> Option<u64> {
        if self.flush_done() {
            return Some(now); // back from the flush: set the HW and fetch again
        }
        let state = match &self.state {
            EpochState::Unattached(s) => Some(s.election_deadline).filter(|d| *d != u64::MAX),
            EpochState::Prospective(s) => Some(s.election_deadline),
            EpochState::Candidate(s) => Some(s.election_deadline),
            // An observer has no fetch timeout (Kafka's pollFollowerAsObserver).
            EpochState::Follower(s) if self.is_voter() => Some(s.fetch_deadline),
            EpochState::Follower(_) => None,
            EpochState::Resigned(s) => Some(s.election_deadline),
            EpochState::Leader(l) => {
                let mut d = if l.resign_requested { now } else { l.begin_quorum_deadline };
                if self.checks_quorum() {
                    d = d.min(l.check_quorum_deadline);
                }
                if let Some(t) = l.linger_deadline {
                    d = d.min(t);
                }
                if let Some(t) = l.parked.iter().map(|p| p.deadline).min() {
                    d = d.min(t);
                }
                Some(d)
            }
        };
        let requests = self.requests.next_deadline(now);
        let timers = match (state, requests) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Some(timers.map_or(self.clean_deadline, |t| t.min(self.clean_deadline)))
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
    pub fn handle(&mut self, ctx: &mut Ctx, env: Envelope) {
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
        };
        if let Some(m) = response {
            ctx.send(self.id, from, correlation, m);
        }
        self.poll(ctx);
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
    pub fn disconnected(&mut self, ctx: &mut Ctx, peer: NodeId, correlation: u64) {
        self.finish_follower_append(ctx);
        if self.requests.complete(peer, correlation) {
            self.requests.backoff(peer, ctx.now + self.config.retry_backoff_ms);
        }
        self.poll(ctx);
    }

    /// A client write. Only a leader takes it; it is appended after append.linger.ms.
    /// Returns the offset it will have.
    pub fn write(&mut self, ctx: &mut Ctx, body: RecordBody) -> Result<Offset, String> {
        let leo = self.log.end_offset();
        let linger = self.config.append_linger_ms;
        let EpochState::Leader(l) = &mut self.state else {
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
    pub fn resign(&mut self) -> Result<(), String> {
        let EpochState::Leader(l) = &mut self.state else {
            return Err(format!("node {} is {}, only a leader can resign", self.id, self.state.name().name()));
        };
        l.resign_requested = true;
        Ok(())
    }

    /// The disk finished a flush the replica asked for.
    pub fn flushed(&mut self, up_to: Offset) {
        self.log.mark_flushed(up_to);
    }

    fn flush_done(&self) -> bool {
        self.awaiting_flush.map(|a| self.log.flushed_offset() >= a.up_to).unwrap_or(false)
    }

    /// The raft thread returns from a follower append's flush: only now does the HW the
    /// leader sent take effect (KafkaRaftClient.handleFetchResponse: appendAsFollower,
    /// which flushes for a voter, then updateFollowerHighWatermark).
    fn finish_follower_append(&mut self, ctx: &mut Ctx) {
        if !self.flush_done() {
            return;
        }
        let Some(done) = self.awaiting_flush.take() else { return };
        if let (EpochState::Follower(_), Some(h)) = (&self.state, done.leader_hw) {
            let new = h.min(self.log.end_offset());
            self.set_hw(ctx, new);
        }
    }

    /// The expiry timer of parked fetches: answers with what was true when parked. It
    /// runs on its own thread in Kafka, so the world calls it even while we are busy.
    pub fn expire_parked_fetches(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let EpochState::Leader(l) = &mut self.state else {
            return;
        };
        let now = ctx.now;
        let mut expired = Vec::new();
        l.parked.retain(|p| {
            if p.deadline <= now {
                expired.push((p.from, p.correlation, p.expiry_response.clone()));
                false
            } else {
                true
            }
        });
        for (to, corr, response) in expired {
            ctx.send(me, to, corr, Message::FetchResponse(response));
        }
    }

    // ---- timers --------------------------------------------------------------------

    /// Runs every timer that is due, then sends what the state calls for.
    pub fn poll(&mut self, ctx: &mut Ctx) {
        self.maybe_clean(ctx);
        self.finish_follower_append(ctx);
        self.requests.expire(ctx.now);
        for _ in 0..8 {
            if !self.poll_state_timer(ctx) {
                break;
            }
        }
        self.expire_parked_fetches(ctx);
        self.send_requests(ctx);
    }

    /// Returns true when it changed state (so timers are checked again).
    fn poll_state_timer(&mut self, ctx: &mut Ctx) -> bool {
        let now = ctx.now;
        let check_quorum = self.checks_quorum();
        match &mut self.state {
            EpochState::Unattached(s) => {
                if self.voters.binary_search(&self.id).is_ok() && s.election_deadline <= now {
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
                if s.fetch_deadline <= now && self.voters.binary_search(&self.id).is_ok() {
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
                if l.resign_requested {
                    self.transition_to_resigned(ctx, Reason::Resign);
                    return true;
                }
                if check_quorum && l.check_quorum_deadline <= now {
                    self.transition_to_resigned(ctx, Reason::CheckQuorumFailed);
                    return true;
                }
                if l.linger_deadline.map(|t| t <= now).unwrap_or(false) {
                    l.linger_deadline = None;
                    let batch = std::mem::take(&mut l.pending_writes);
                    self.append_as_leader(ctx, batch);
                }
                let EpochState::Leader(l) = &mut self.state else {
                    return false;
                };
                if l.begin_quorum_deadline <= now {
                    self.send_begin_quorum_epoch(ctx);
                }
            }
        }
        false
    }

    fn next_correlation(&mut self) -> u64 {
        self.next_correlation += 1;
        self.next_correlation
    }

    fn request(&mut self, ctx: &mut Ctx, to: NodeId, message: Message) {
        let corr = self.next_correlation();
        self.requests.start(to, corr, ctx.now + self.config.request_timeout_ms, message.kind());
        ctx.send(self.id, to, corr, message);
    }

    /// The sends each state makes when its connections are ready.
    fn send_requests(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        match &self.state {
            EpochState::Prospective(p) => {
                let ask: Vec<NodeId> = self.unanswered_voters(&p.granted, &p.rejected, now);
                let m = self.vote_request(p.epoch, true);
                for v in ask {
                    self.request(ctx, v, m.clone());
                }
            }
            EpochState::Candidate(c) => {
                let unrecorded =
                    self.voters.iter().filter(|v| !c.granted.contains(v) && !c.rejected.contains(v)).count();
                if c.granted.len() + unrecorded < self.majority() {
                    return; // the election is lost: wait out the election timeout
                }
                let ask: Vec<NodeId> = self.unanswered_voters(&c.granted, &c.rejected, now);
                let m = self.vote_request(c.epoch, false);
                for v in ask {
                    self.request(ctx, v, m.clone());
                }
            }
            EpochState::Follower(f) => {
                if self.awaiting_flush.is_some() {
                    return; // the raft thread is still in the flush of its last append
                }
                // Kafka's maybeSendFetchToBestNode: after its leader request timed out (the
                // connection is reset) or while the leader backs off, a follower asks a random
                // bootstrap voter, to learn whether the leader changed.
                let (leader, epoch, download) = (f.leader, f.epoch, f.snapshot_download);
                let leader_timed_out = self.requests.take_timed_out(leader);
                if self.requests.any_in_flight() {
                    return;
                }
                if leader_timed_out || self.requests.is_backing_off(leader, now) {
                    if let Some(target) = self.random_ready_voter(ctx, now) {
                        let m = self.fetch_request(epoch);
                        self.request(ctx, target, m);
                    }
                    return;
                }
                let message = match download {
                    Some(d) => Message::FetchSnapshot(FetchSnapshotRequest {
                        current_leader_epoch: epoch,
                        snapshot_id: d.id,
                        position: d.position,
                        max_bytes: self.config.fetch_snapshot_max_bytes,
                    }),
                    None => self.fetch_request(epoch),
                };
                self.request(ctx, leader, message);
            }
            EpochState::Unattached(u) => {
                // Unattached replicas fetch from a bootstrap voter to discover the leader.
                if self.requests.any_in_flight() {
                    return;
                }
                let epoch = u.epoch;
                if let Some(target) = self.random_ready_voter(ctx, now) {
                    let m = self.fetch_request(epoch);
                    self.request(ctx, target, m);
                }
            }
            EpochState::Resigned(r) => {
                let m = Message::EndQuorumEpoch(EndQuorumEpochRequest {
                    leader_epoch: r.epoch,
                    preferred_successors: r.preferred_successors.clone(),
                });
                let ask: Vec<NodeId> = r.unacked.iter().copied().filter(|v| self.requests.is_ready(*v, now)).collect();
                for v in ask {
                    self.request(ctx, v, m.clone());
                }
            }
            EpochState::Leader(_) => {}
        }
    }

    fn unanswered_voters(&self, granted: &[NodeId], rejected: &[NodeId], now: u64) -> Vec<NodeId> {
        self.voters
            .iter()
            .copied()
            .filter(|v| {
                *v != self.id && !granted.contains(v) && !rejected.contains(v) && self.requests.is_ready(*v, now)
            })
            .collect()
    }

    fn random_ready_voter(&self, ctx: &mut Ctx, now: u64) -> Option<NodeId> {
        let ready: Vec<NodeId> =
            self.voters.iter().copied().filter(|v| *v != self.id && self.requests.is_ready(*v, now)).collect();
        if ready.is_empty() {
            return None;
        }
        Some(ready[ctx.rng.below(ready.len() as u64) as usize])
    }

    fn vote_request(&self, epoch: Epoch, pre_vote: bool) -> Message {
        Message::Vote(VoteRequest {
            replica_epoch: epoch,
            last_offset_epoch: self.log.last_epoch(),
            last_offset: self.log.end_offset(),
            pre_vote,
        })
    }

    fn fetch_request(&self, epoch: Epoch) -> Message {
        Message::Fetch(FetchRequest {
            current_leader_epoch: epoch,
            fetch_offset: self.log.end_offset(),
            last_fetched_epoch: self.log.last_epoch(),
            high_watermark: self.hw,
            max_wait_ms: self.config.fetch_max_wait_ms,
            max_bytes: self.config.fetch_max_bytes,
        })
    }

    /// The leader's heartbeat: BeginQuorumEpoch to every voter that has not fetched
    /// for half a fetch timeout (all of them right after the election).
    pub(crate) fn send_begin_quorum_epoch(&mut self, ctx: &mut Ctx) {
        let interval = self.config.begin_quorum_epoch_interval_ms();
        let now = ctx.now;
        let EpochState::Leader(l) = &mut self.state else {
            return;
        };
        l.begin_quorum_deadline = now + interval;
        let epoch = l.epoch;
        let quiet: Vec<NodeId> = l
            .replicas
            .iter()
            .filter(|r| r.is_voter && r.id != self.id)
            .filter(|r| r.last_fetch_ms.map(|t| now - t >= interval).unwrap_or(true))
            .map(|r| r.id)
            .collect();
        for v in quiet {
            if self.requests.is_ready(v, now) {
                self.request(ctx, v, Message::BeginQuorumEpoch(BeginQuorumEpochRequest { leader_epoch: epoch }));
            }
        }
    }

    fn hint(&self) -> LeaderHint {
        LeaderHint { epoch: self.epoch(), leader: self.leader_id() }
    }

    /// Common response handling (Kafka's maybeHandleCommonResponse). True when the
    /// response is fully handled; false when its body is still to be processed.
    fn handled_by_epoch(&mut self, ctx: &mut Ctx, error: ErrorCode, hint: LeaderHint, from: NodeId) -> bool {
        let epoch = self.epoch();
        if hint.epoch < epoch || error == ErrorCode::UnknownLeaderEpoch {
            return true; // stale: ignored
        }
        let fenced = matches!(error, ErrorCode::FencedLeaderEpoch | ErrorCode::NotLeaderOrFollower);
        if hint.epoch > epoch || fenced {
            self.maybe_transition(ctx, hint);
            return true;
        }
        if let Some(l) = hint.leader {
            if l != self.id && self.state.leader(self.id).is_none() {
                self.transition_to_follower(ctx, epoch, l, Reason::LeaderDiscovered);
                return error != ErrorCode::None;
            }
        }
        if error != ErrorCode::None {
            self.requests.backoff(from, ctx.now + self.config.retry_backoff_ms);
            return true;
        }
        false
    }

    /// Kafka's maybeTransition: follow a newer leader, or a leader of our epoch when we
    /// know none (so a Prospective that knows its leader stays Prospective); a newer
    /// epoch without a leader makes us Unattached.
    fn maybe_transition(&mut self, ctx: &mut Ctx, hint: LeaderHint) {
        let epoch = self.epoch();
        let leader = hint.leader.filter(|l| *l != self.id);
        if hint.epoch > epoch {
            self.transition_to_epoch_of(ctx, hint.epoch, leader, Reason::HigherEpoch);
        } else if hint.epoch == epoch && self.state.leader(self.id).is_none() {
            if let Some(l) = leader {
                self.transition_to_follower(ctx, epoch, l, Reason::LeaderDiscovered);
            }
        }
    }

    // ---- Vote ----------------------------------------------------------------------

    /// Kafka's handleVoteRequest.
    fn handle_vote_request(&mut self, ctx: &mut Ctx, from: NodeId, req: VoteRequest) -> VoteResponse {
        let VoteRequest { replica_epoch: epoch, last_offset_epoch: last_epoch, last_offset, pre_vote } = req;
        if !self.is_voter() || self.voters.binary_search(&from).is_err() {
            ctx.note(Note::VoteDecided { candidate: from, epoch, pre_vote, decision: VoteDecision::NotAVoter });
            return self.vote_response(ErrorCode::InvalidRequest, false, pre_vote);
        }
        let illegal = if pre_vote { last_epoch > epoch } else { last_epoch >= epoch };
        if illegal {
            ctx.note(Note::VoteDecided { candidate: from, epoch, pre_vote, decision: VoteDecision::InvalidRequest });
            return self.vote_response(ErrorCode::InvalidRequest, false, pre_vote);
        }
        if epoch < self.epoch() {
            ctx.note(Note::VoteDecided { candidate: from, epoch, pre_vote, decision: VoteDecision::StaleEpoch });
            return self.vote_response(ErrorCode::FencedLeaderEpoch, false, pre_vote);
        }
        if epoch > self.epoch() {
            self.transition_to_unattached(ctx, epoch, None, Reason::HigherEpoch);
        }
        let up_to_date = (last_epoch, last_offset) >= (self.log.last_epoch(), self.log.end_offset())
            || self.switches.has(SafetySwitch::VoteIgnoresLog);
        let decision = vote_decision(&self.state, from, up_to_date, pre_vote);
        ctx.note(Note::VoteDecided { candidate: from, epoch, pre_vote, decision });
        let granted = decision.granted();
        if granted && !pre_vote && decision != VoteDecision::GrantedAgain {
            // Persisted before we answer: one vote per epoch, even across a crash.
            let epoch = self.epoch();
            match self.state {
                EpochState::Prospective(_) => self.prospective_add_vote(ctx, from),
                _ => self.transition_to_unattached_fresh_timer(ctx, epoch, Some(from), Reason::VotedForCandidate),
            }
        }
        self.vote_response(ErrorCode::None, granted, pre_vote)
    }

    fn vote_response(&self, error: ErrorCode, granted: bool, pre_vote: bool) -> VoteResponse {
        VoteResponse { error, hint: self.hint(), granted, pre_vote }
    }

    /// Kafka's handleVoteResponse: counts the (pre-)vote of the current election.
    fn handle_vote_response(&mut self, ctx: &mut Ctx, from: NodeId, response: VoteResponse) {
        let VoteResponse { error, hint, granted, pre_vote } = response;
        if self.handled_by_epoch(ctx, error, hint, from) {
            return;
        }
        match &mut self.state {
            EpochState::Prospective(p) if pre_vote => {
                let set = if granted { &mut p.granted } else { &mut p.rejected };
                if !set.contains(&from) {
                    set.push(from);
                }
            }
            EpochState::Candidate(c) if !pre_vote => {
                let set = if granted { &mut c.granted } else { &mut c.rejected };
                if !set.contains(&from) {
                    set.push(from);
                }
            }
            _ => return,
        }
        self.maybe_finish_election(ctx);
    }

    // ---- BeginQuorumEpoch / EndQuorumEpoch ----------------------------------------------

    /// Kafka's handleBeginQuorumEpochRequest: follow the leader that announces itself.
    fn handle_begin_quorum_epoch_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        req: BeginQuorumEpochRequest,
    ) -> BeginQuorumEpochResponse {
        let epoch = req.leader_epoch;
        if epoch < self.epoch() {
            return BeginQuorumEpochResponse { error: ErrorCode::FencedLeaderEpoch, hint: self.hint() };
        }
        self.maybe_transition(ctx, LeaderHint { epoch, leader: Some(from) });
        BeginQuorumEpochResponse { error: ErrorCode::None, hint: self.hint() }
    }

    /// Kafka's handleEndQuorumEpochRequest: the resigning leader's follower waits its turn
    /// in the preferred-successor order before its election.
    fn handle_end_quorum_epoch_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        req: EndQuorumEpochRequest,
    ) -> EndQuorumEpochResponse {
        let epoch = req.leader_epoch;
        if epoch < self.epoch() {
            return EndQuorumEpochResponse { error: ErrorCode::FencedLeaderEpoch, hint: self.hint() };
        }
        self.maybe_transition(ctx, LeaderHint { epoch, leader: Some(from) });
        let me = self.id;
        let max = self.config.election_backoff_max_ms;
        if let EpochState::Follower(f) = &mut self.state {
            if f.leader == from {
                // FollowerState.overrideFetchTimeout: the timer is *set* to the backoff, even
                // when it was due sooner.
                let backoff = end_quorum_backoff_ms(&req.preferred_successors, me, max);
                f.fetch_deadline = ctx.now + backoff;
            }
        }
        EndQuorumEpochResponse { error: ErrorCode::None, hint: self.hint() }
    }

    /// Kafka's handleBeginQuorumEpochResponse and handleEndQuorumEpochResponse: a resigned
    /// leader stops resending EndQuorumEpoch to a voter that acknowledged it.
    fn handle_quorum_epoch_response(&mut self, ctx: &mut Ctx, from: NodeId, error: ErrorCode, hint: LeaderHint) {
        if self.handled_by_epoch(ctx, error, hint, from) {
            return;
        }
        if let EpochState::Resigned(r) = &mut self.state {
            r.unacked.retain(|v| *v != from);
        }
    }

    // ---- Fetch at the leader ---------------------------------------------------------

    /// Epoch checks shared by Fetch and FetchSnapshot; Err is the error to answer with.
    fn check_leader_request(&self, epoch: Epoch) -> Result<(), ErrorCode> {
        if epoch < self.epoch() {
            return Err(ErrorCode::FencedLeaderEpoch);
        }
        if epoch > self.epoch() {
            // The fetcher knows a newer epoch than we do; we learn it from it only through
            // the responses of the real leader, so just refuse.
            return Err(ErrorCode::UnknownLeaderEpoch);
        }
        if !matches!(self.state, EpochState::Leader(_)) {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        Ok(())
    }

    pub(crate) fn fetch_error_response(&self, error: ErrorCode) -> FetchResponse {
        FetchResponse { error, high_watermark: None, ..self.fetch_response(Vec::new()) }
    }

    /// A successful Fetch response carrying `records` and the leader's HW.
    fn fetch_response(&self, records: Vec<Record>) -> FetchResponse {
        FetchResponse {
            error: ErrorCode::None,
            hint: self.hint(),
            high_watermark: self.leader_state().and_then(|l| l.high_watermark),
            log_start_offset: self.log.start_offset(),
            records,
            diverging_epoch: None,
            snapshot_id: None,
        }
    }

    /// Kafka's handleFetchRequest: answers at once, or parks the fetch in the purgatory
    /// (None) until records arrive, the HW moves or `max_wait_ms` passes.
    fn handle_fetch_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        correlation: u64,
        req: FetchRequest,
    ) -> Option<FetchResponse> {
        if let Err(error) = self.check_leader_request(req.current_leader_epoch) {
            return Some(self.fetch_error_response(error));
        }
        let fetch_offset = req.fetch_offset;
        match self.log.validate_fetch(fetch_offset, req.last_fetched_epoch) {
            FetchPosition::Diverging { epoch, end_offset } => {
                let diverging_epoch = Some(DivergingEpoch { epoch, end_offset });
                return Some(FetchResponse { diverging_epoch, ..self.fetch_response(Vec::new()) });
            }
            FetchPosition::Snapshot(id) => {
                return Some(FetchResponse { snapshot_id: Some(id), ..self.fetch_response(Vec::new()) });
            }
            FetchPosition::Valid => {}
        }
        let leo = self.log.end_offset();
        let majority = self.majority();
        let is_voter = self.voters.binary_search(&from).is_ok();
        let EpochState::Leader(l) = &mut self.state else { unreachable!("checked above") };
        l.update_follower(from, fetch_offset, leo, ctx.now);
        if is_voter {
            l.record_voter_fetch(from, majority, ctx.now, &self.config);
        }
        // A fetch already in the purgatory for this replica is superseded.
        l.parked.retain(|p| p.from != from);
        self.maybe_advance_leader_hw(ctx);
        let response = self.fetch_records_response(fetch_offset, req.max_bytes);
        let behind_hw = match (req.high_watermark, response.high_watermark) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(f), Some(h)) => f < h,
        };
        if fetch_offset < leo || req.max_wait_ms == 0 || behind_hw {
            return Some(response);
        }
        let EpochState::Leader(l) = &mut self.state else { unreachable!("checked above") };
        l.parked.push(ParkedFetch {
            from,
            correlation,
            fetch_offset,
            max_bytes: req.max_bytes,
            deadline: ctx.now + req.max_wait_ms,
            expiry_response: response,
        });
        None
    }

    fn fetch_records_response(&self, fetch_offset: Offset, max_bytes: u64) -> FetchResponse {
        self.fetch_response(self.read_records(fetch_offset, max_bytes))
    }

    /// Records from `offset` on, as many as fit in `max_bytes` but at least one (Kafka's
    /// log read returns at least one batch, however large).
    fn read_records(&self, offset: Offset, max_bytes: u64) -> Vec<Record> {
        let (mut count, mut bytes) = (0u64, 0u64);
        while let Some(r) = self.log.get(offset + count) {
            bytes += r.size_bytes();
            if count > 0 && bytes > max_bytes {
                break;
            }
            count += 1;
        }
        self.log.read(offset, count as usize)
    }

    /// Answers every parked fetch now (new records arrived or the HW moved).
    fn complete_parked_fetches(&mut self, ctx: &mut Ctx) {
        let EpochState::Leader(l) = &mut self.state else {
            return;
        };
        let parked = std::mem::take(&mut l.parked);
        for p in parked {
            let m = self.fetch_records_response(p.fetch_offset, p.max_bytes);
            ctx.send(self.id, p.from, p.correlation, Message::FetchResponse(m));
        }
    }

    /// The leader's HW is what its Fetch responses carry, so every move of it is traced,
    /// even one that stays below the HW this node exposed as a follower (only
    /// `hw-before-own-epoch` allows that). Before its first move the HW this node exposed
    /// is its own.
    fn maybe_advance_leader_hw(&mut self, ctx: &mut Ctx) {
        let allow = self.switches.has(SafetySwitch::HwBeforeOwnEpoch);
        let EpochState::Leader(l) = &mut self.state else {
            return;
        };
        let old = l.high_watermark.or(self.hw);
        if let Some(new) = l.maybe_advance_hw(allow) {
            ctx.note(Note::HighWatermark { old, new });
            if self.raise_hw(new) {
                self.apply_committed(ctx);
            }
            self.complete_parked_fetches(ctx);
        }
    }

    /// Appends a batch as leader: LEO moves (the leader's own progress with it, so
    /// parked fetches are answered), then the flush blocks this replica's thread.
    /// KafkaRaftClient.flushLeaderLog updates the leader's end offset (LeaderState.
    /// updateLocalState, unflushed) and the HW before log.flush, so a lone voter, whose own
    /// offset is the majority, commits and answers parked fetches before its flush: a crash
    /// inside that flush loses committed records (scenario one-voter-flush-window).
    pub(crate) fn append_as_leader(&mut self, ctx: &mut Ctx, batch: Vec<(u64, RecordBody)>) {
        if batch.is_empty() {
            return;
        }
        let epoch = self.epoch();
        let first = self.log.end_offset();
        let records: Vec<Record> = batch
            .into_iter()
            .enumerate()
            .map(|(i, (id, body))| Record { offset: first + i as u64, epoch, id, body })
            .collect();
        let kind = records[0].body.kind();
        let last = first + records.len() as u64 - 1;
        self.log.append(&records);
        ctx.note(Note::Appended { first, last, epoch, kind });
        let leo = self.log.end_offset();
        let me = self.id;
        if let EpochState::Leader(l) = &mut self.state {
            l.update_local(me, leo, ctx.now);
        }
        self.maybe_advance_leader_hw(ctx);
        self.complete_parked_fetches(ctx);
        ctx.out.push(Output::Flush { up_to: leo });
    }

    // ---- Fetch at the follower -------------------------------------------------------

    /// Kafka's handleFetchResponse: truncate, start a snapshot download, or append (and
    /// for a voter flush before the leader's HW takes effect).
    fn handle_fetch_response(&mut self, ctx: &mut Ctx, from: NodeId, response: FetchResponse) {
        let FetchResponse { error, hint, high_watermark: leader_hw, records, diverging_epoch, snapshot_id, .. } =
            response;
        if self.handled_by_epoch(ctx, error, hint, from) {
            return;
        }
        let EpochState::Follower(f) = &mut self.state else {
            return;
        };
        if f.leader != from {
            return;
        }
        f.fetch_deadline = ctx.now + self.config.fetch_timeout_ms;
        f.has_fetched = true;
        if let Some(d) = diverging_epoch {
            self.truncate_on_divergence(ctx, d);
            return;
        }
        if let Some(id) = snapshot_id {
            f.snapshot_download = Some(SnapshotDownload { id, position: 0 });
            return;
        }
        let appended = if !records.is_empty() && self.log.append(&records) {
            let first = records[0].offset;
            let last = records[records.len() - 1].offset;
            let kind = records[0].body.kind();
            ctx.note(Note::Appended { first, last, epoch: records[records.len() - 1].epoch, kind });
            true
        } else {
            false
        };
        let leo = self.log.end_offset();
        // appendAsFollower flushes only for a voter: the leader counts a voter's fetch offset
        // toward the HW. An observer's appends stay unflushed (a crash loses them).
        let flush = appended && self.is_voter();
        if flush && !self.switches.has(SafetySwitch::AckBeforeFlush) {
            self.awaiting_flush = Some(AwaitingFlush { up_to: leo, leader_hw });
            ctx.out.push(Output::Flush { up_to: leo });
            return;
        }
        if let Some(h) = leader_hw {
            self.set_hw(ctx, h.min(leo));
        }
        if flush {
            // Unsafe: report the offset first, flush afterwards.
            self.send_requests(ctx);
            ctx.out.push(Output::Flush { up_to: leo });
        }
    }

    /// Truncates to where our log and the leader's agree, as far as this round can tell.
    fn truncate_on_divergence(&mut self, ctx: &mut Ctx, d: DivergingEpoch) {
        let to = if d.epoch == 0 {
            d.end_offset.min(self.log.end_offset())
        } else {
            match self.log.end_offset_for_epoch(d.epoch) {
                (own_end, e) if e == d.epoch => own_end.min(d.end_offset),
                (own_end, _) => own_end,
            }
        };
        let from_leo = self.log.end_offset();
        if self.log.truncate_to(to) > 0 {
            // The log never truncates into its snapshot: it stops at the snapshot's end.
            let to = self.log.end_offset();
            if self.image.applied_offset > to {
                // Applied state past the truncation point was built from records now gone;
                // only possible when a record below our HW was truncated (reported).
                self.image = self
                    .log
                    .snapshot()
                    .map(|s| (*s.image).clone())
                    .unwrap_or_else(|| MetadataImage::new(self.log.meter()));
            }
            ctx.note(Note::Truncated { from_leo, to, diverging_epoch: Some(d.epoch), hw: self.hw });
        }
    }

    // ---- snapshots -------------------------------------------------------------------

    /// Kafka's handleFetchSnapshotRequest: the next chunk, the whole snapshot with the last.
    fn handle_fetch_snapshot_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        req: FetchSnapshotRequest,
    ) -> FetchSnapshotResponse {
        let FetchSnapshotRequest { current_leader_epoch, snapshot_id: id, position, max_bytes } = req;
        let base = FetchSnapshotResponse {
            error: ErrorCode::None,
            hint: self.hint(),
            snapshot_id: id,
            size: 0,
            position,
            chunk_bytes: 0,
            snapshot: None,
        };
        if let Err(error) = self.check_leader_request(current_leader_epoch) {
            return FetchSnapshotResponse { error, ..base };
        }
        let Some(snap) = self.log.snapshot_by_id(id).cloned() else {
            return FetchSnapshotResponse { error: ErrorCode::SnapshotNotFound, ..base };
        };
        if position > snap.size_bytes {
            return FetchSnapshotResponse { error: ErrorCode::InvalidRequest, size: snap.size_bytes, ..base };
        }
        let majority = self.majority();
        let is_voter = self.voters.binary_search(&from).is_ok();
        if let EpochState::Leader(l) = &mut self.state {
            if is_voter {
                l.record_voter_fetch(from, majority, ctx.now, &self.config);
            }
        }
        // The fetcher's fetch.snapshot.max.bytes bounds the chunk (handleFetchSnapshotRequest).
        let chunk_bytes = (snap.size_bytes - position).min(max_bytes);
        let last = position + chunk_bytes >= snap.size_bytes;
        let size = snap.size_bytes;
        FetchSnapshotResponse { size, chunk_bytes, snapshot: if last { Some(snap) } else { None }, ..base }
    }

    /// Kafka's handleFetchSnapshotResponse: the next chunk, and once all is there the
    /// snapshot replaces the log.
    fn handle_fetch_snapshot_response(&mut self, ctx: &mut Ctx, from: NodeId, response: FetchSnapshotResponse) {
        let FetchSnapshotResponse { error, hint, snapshot_id: id, size, position, chunk_bytes: chunk, snapshot } =
            response;
        if error == ErrorCode::SnapshotNotFound {
            // Drop the partial snapshot and go back to fetching (counts as success).
            if let EpochState::Follower(f) = &mut self.state {
                f.snapshot_download = None;
                f.fetch_deadline = ctx.now + self.config.fetch_timeout_ms;
                f.has_fetched = true;
            }
            return;
        }
        if self.handled_by_epoch(ctx, error, hint, from) {
            return;
        }
        let EpochState::Follower(f) = &mut self.state else {
            return;
        };
        f.fetch_deadline = ctx.now + self.config.fetch_timeout_ms;
        f.has_fetched = true;
        let Some(download) = f.snapshot_download.as_mut().filter(|d| d.id == id && d.position == position) else {
            return;
        };
        download.position = position + chunk;
        if download.position < size {
            return;
        }
        f.snapshot_download = None;
        let Some(snapshot) = snapshot else { return };
        let from_leo = self.log.end_offset();
        self.image = (*snapshot.image).clone();
        self.log.reset_to_snapshot(snapshot);
        ctx.note(Note::SnapshotFetched { id });
        ctx.note(Note::SnapshotLoaded { id });
        if from_leo > id.end_offset {
            ctx.note(Note::Truncated { from_leo, to: id.end_offset, diverging_epoch: None, hw: self.hw });
        }
        self.set_hw(ctx, id.end_offset);
    }

    // ---- high watermark, state machine, local snapshots ---------------------------------

    /// Raises this node's HW (never lowers it), applies newly committed records and
    /// takes a snapshot when enough have been applied since the last one.
    fn set_hw(&mut self, ctx: &mut Ctx, new: Offset) {
        let old = self.hw;
        if self.raise_hw(new) {
            ctx.note(Note::HighWatermark { old, new });
            self.apply_committed(ctx);
        }
    }

    /// True when `new` is above this node's HW (which then becomes `new`).
    fn raise_hw(&mut self, new: Offset) -> bool {
        if self.hw.map(|h| new <= h).unwrap_or(false) {
            return false;
        }
        self.hw = Some(new);
        true
    }

    fn apply_committed(&mut self, ctx: &mut Ctx) {
        let Some(hw) = self.hw else { return };
        let target = hw.min(self.log.end_offset());
        while self.image.applied_offset < target {
            let Some(r) = self.log.get(self.image.applied_offset) else {
                break;
            };
            self.image.apply(r);
        }
        self.maybe_snapshot(ctx);
    }

    /// Kafka's SnapshotGenerator.publishLogDelta, checked as committed records are
    /// applied: a snapshot once `snapshot_interval` records were applied since the last
    /// one (the simulator's stand-in for `metadata.log.max.record.bytes.between.snapshots`),
    /// or once `metadata.log.max.snapshot.interval.ms` has passed. Taking it leaves the log
    /// start where it is; only the cleaner moves it.
    fn maybe_snapshot(&mut self, ctx: &mut Ctx) {
        if self.snapshot_interval == 0 {
            return;
        }
        let last_end = self.log.snapshot().map(|s| s.id.end_offset).unwrap_or(0);
        let end = self.image.applied_offset;
        if end <= last_end {
            return;
        }
        let interval_ms = self.config.snapshot_max_interval_ms;
        let by_size = end - last_end >= self.snapshot_interval;
        let by_time = interval_ms > 0 && ctx.now - self.last_snapshot_ms >= interval_ms;
        if !by_size && !by_time {
            return;
        }
        let Some(epoch) = self.log.epoch_at(end - 1) else {
            return;
        };
        let image = Arc::new(self.image.clone());
        let size_bytes = image.size_bytes();
        let id = SnapshotId { end_offset: end, epoch };
        self.log.add_snapshot(Snapshot { id, image, size_bytes, last_contained_log_ms: ctx.now });
        self.last_snapshot_ms = ctx.now;
        ctx.note(Note::SnapshotTaken { id });
    }

    /// The periodic log cleaner (KafkaRaftClient.poll runs RaftMetadataLogCleanerManager,
    /// which calls KafkaMetadataLog.maybeClean every 60 s).
    fn maybe_clean(&mut self, ctx: &mut Ctx) {
        if ctx.now < self.clean_deadline {
            return;
        }
        self.clean_deadline = ctx.now + LOG_CLEANER_INTERVAL_MS;
        let retention = Retention { max_bytes: self.config.retention_max_bytes, max_ms: self.config.retention_max_ms };
        for id in self.log.clean(ctx.now, &retention) {
            ctx.note(Note::SnapshotDeleted { id });
        }
    }
}
