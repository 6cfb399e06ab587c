//! One KRaft replica (Kafka's KafkaRaftClient), sans-IO: it is given the time, a random
//! stream and one input at a time (`io.rs`), and answers with outputs. This file holds the
//! replica, its queries, its inputs (a message is dispatched to its RPC's handler, whose
//! response is sent back) and its poll loop (timers, then the sends its state calls for).
//! The handlers live one file per RPC concern, the transitions in `state.rs`.

use super::config::{QuorumConfig, SafetySwitch, Unsafe, LOG_CLEANER_INTERVAL_MS};
use super::io::{Ctx, Note, Wake};
use super::leader::LeaderState;
use super::log::ReplicaLog;
use super::record::{Epoch, MetadataImage, NodeId, Offset, RecordBody};
use super::requests::Requests;
use super::rpc::{
    BeginQuorumEpochResponse, EndQuorumEpochRequest, EndQuorumEpochResponse, Envelope, ErrorCode, FetchSnapshotRequest,
    LeaderHint, Message, RpcKind,
};
use super::state::{ElectionState, EpochState, Reason, StateName};
use super::voters::VoterSet;

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
    /// Who votes now. Only the static quorum's configured set so far (Kafka's
    /// controller.quorum.voters); KIP-853 derives it from the log.
    pub(crate) voters: VoterSet,
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
        let ReplicaSetup { id, voters, config, switches, snapshot_interval } = setup;
        let image = durable
            .log
            .snapshot()
            .map(|s| (*s.image).clone())
            .unwrap_or_else(|| MetadataImage::new(durable.log.meter()));
        let e = durable.election;
        let mut r = Replica {
            id,
            voters: VoterSet::new(voters),
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
        let wake = r.poll(ctx);
        (r, wake)
    }

    // ---- queries -------------------------------------------------------------------

    pub fn is_voter(&self) -> bool {
        self.voters.contains(self.id)
    }
    pub fn voters(&self) -> &VoterSet {
        &self.voters
    }
    pub fn majority(&self) -> usize {
        self.voters.majority()
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
            // An observer has no fetch timeout (Kafka's pollFollowerAsObserver).
            EpochState::Follower(s) if self.is_voter() => d = d.min(s.fetch_deadline),
            EpochState::Follower(_) => {}
            EpochState::Leader(l) => {
                d = d.min(if l.resign_requested { now } else { l.begin_quorum_deadline });
                if self.checks_quorum() {
                    d = d.min(l.check_quorum_deadline);
                }
                if let Some(t) = l.linger_deadline {
                    d = d.min(t);
                }
                for p in &l.parked {
                    d = d.min(p.deadline);
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
        if self.requests.complete(peer, correlation) {
            let until = ctx.now + self.config.retry_backoff_ms;
            self.requests.backoff(peer, until);
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
                l.resign_requested = true;
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
        let voter = self.is_voter();
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

    fn next_correlation(&mut self) -> u64 {
        self.next_correlation += 1;
        self.next_correlation
    }

    pub(super) fn request(&mut self, ctx: &mut Ctx, to: NodeId, message: Message) {
        let corr = self.next_correlation();
        let deadline = ctx.now + self.config.request_timeout_ms;
        self.requests.start(to, corr, deadline, message.kind());
        ctx.send(self.id, to, corr, message);
    }

    /// The sends each state makes when its connections are ready.
    pub(super) fn send_requests(&mut self, ctx: &mut Ctx) {
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
            .filter(|v| {
                *v != self.id && !granted.contains(v) && !rejected.contains(v) && self.requests.is_ready(*v, now)
            })
            .collect()
    }

    fn random_ready_voter(&self, ctx: &mut Ctx, now: u64) -> Option<NodeId> {
        let ready: Vec<NodeId> =
            self.voters.iter().filter(|v| *v != self.id && self.requests.is_ready(*v, now)).collect();
        if ready.is_empty() {
            return None;
        }
        Some(ready[ctx.rng.below(ready.len() as u64) as usize])
    }

    #[inline]
    pub(super) fn hint(&self) -> LeaderHint {
        LeaderHint { epoch: self.epoch(), leader: self.leader_id() }
    }

    /// Common response handling (Kafka's maybeHandleCommonResponse). True when the
    /// response is fully handled; false when its body is still to be processed.
    pub(super) fn handled_by_epoch(&mut self, ctx: &mut Ctx, error: ErrorCode, hint: LeaderHint, from: NodeId) -> bool {
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
            let until = ctx.now + self.config.retry_backoff_ms;
            self.requests.backoff(from, until);
            return true;
        }
        false
    }

    /// Kafka's maybeTransition: follow a newer leader, or a leader of our epoch when we
    /// know none (so a Prospective that knows its leader stays Prospective); a newer
    /// epoch without a leader makes us Unattached.
    pub(super) fn maybe_transition(&mut self, ctx: &mut Ctx, hint: LeaderHint) {
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
}
