//! Every transition between epoch states in one place (Kafka's QuorumState): each
//! transition persists first when Kafka does, then moves.

use super::config::SafetySwitch;
use super::io::{Ctx, Note, Output};
use super::leader::{KRaftVersionUpgrade, LeaderState};
use super::record::{Epoch, NodeId, RecordBody};
use super::replica::Replica;
use super::replica_key::ReplicaKey;
use super::rpc::{ErrorCode, LeaderHint, Message};
use super::state::*;
use super::voter_change::refusal;
use super::voters::VoterSet;

impl Replica {
    fn random_election_deadline(&self, ctx: &mut Ctx) -> u64 {
        let t = self.config.election_timeout_ms;
        ctx.now + t + ctx.rng.below(t)
    }

    /// Writes the quorum-state file. Kafka writes it before changing state in memory
    /// (QuorumState.durableTransitionTo). The legacy model writes it only when it changes,
    /// and for free; a Kafka release writes it every time, and waits for it.
    fn persist(&mut self, ctx: &mut Ctx, election: ElectionState) {
        if self.config.release.quorum_state_write_flushes() {
            self.write_election_state(ctx, election);
        } else if self.election != election {
            self.election = election;
            ctx.note(Note::Persisted { election: election.persisted() });
        }
    }

    /// FileQuorumStateStore.writeElectionState as every Kafka release runs it: the file is
    /// written in full (whether or not it changed) and fsynced on the raft thread, and only
    /// then does QuorumState move and the replica answer (durableTransitionTo, at startup
    /// too: QuorumState.initialize). The fsync is a flush of this node's disk, asked for
    /// the way a log flush is: every output after it (the transition, the answer to the
    /// vote that caused it, a new leader's first append and BeginQuorumEpoch) waits for it.
    /// It is up to the offset already on disk: the log is not flushed with it. A crash
    /// inside it keeps the new state (the file was renamed into place; nothing after it
    /// went out), one of the two outcomes Kafka's write-then-rename allows.
    fn write_election_state(&mut self, ctx: &mut Ctx, election: ElectionState) {
        self.election = election;
        ctx.note(Note::Persisted { election: election.persisted() });
        ctx.out.push(Output::Flush { up_to: self.log.flushed_offset() });
    }

    fn enter(&mut self, ctx: &mut Ctx, next: EpochState, reason: Reason) {
        let from = self.state.name();
        let to = next.name();
        let epoch = next.epoch();
        let leader = next.leader(self.id);
        if matches!(next, EpochState::Leader(_) | EpochState::Resigned(_)) {
            // QuorumState.transitionToLeader and transitionToResigned start without the HW of
            // the previous state: a leader exposes one only once its own epoch commits.
            self.hw = None;
        }
        let previous = std::mem::replace(&mut self.state, next);
        self.requests.reset();
        ctx.note(Note::StateChanged { from, to, epoch, leader, voted: self.election.voted, reason });
        if let EpochState::Leader(l) = previous {
            // Parked fetches of a leader that steps down are answered with an error.
            for p in l.parked {
                let m = self.fetch_error_response(ErrorCode::NotLeaderOrFollower);
                ctx.send(self.id, p.from, p.correlation, Message::FetchResponse(m));
            }
            // So is a voter change still in progress (LeaderState.close).
            if let Some(c) = l.voter_change {
                self.answer_voter_change(ctx, &c, ErrorCode::NotLeaderOrFollower, refusal::NOT_LEADER);
            }
        }
    }

    /// The state a (re)started node enters, from its quorum-state file and its log (Kafka's
    /// QuorumState.initialize). The replica is built Unattached in its persisted epoch, so
    /// the first state change reads from there; a lone voter elects itself at once.
    pub(crate) fn initialize(&mut self, ctx: &mut Ctx, reason: Reason) {
        let (e, me) = (self.election, self.id);
        let log_epoch = self.log.last_epoch();
        // A Kafka release writes the initial state whatever it is (the transitions below
        // that persist write it; Resigned and a resumed candidacy write what was read).
        let writes_always = self.config.release.quorum_state_write_flushes();
        if e == ElectionState::default() && !writes_always {
            ctx.note(Note::Persisted { election: e.persisted() });
        }
        if e.epoch < log_epoch {
            self.transition_to_unattached_fresh_timer(ctx, log_epoch, None, reason);
        } else if e.leader == Some(me) {
            if self.switches.has(SafetySwitch::NoResignOnRestart) {
                self.transition_to_leader(ctx, reason);
            } else {
                if writes_always {
                    self.write_election_state(ctx, e);
                }
                self.transition_to_resigned(ctx, reason);
            }
        } else if e.voted == Some(me) && self.is_voter() {
            if writes_always {
                self.write_election_state(ctx, e);
            }
            self.resume_candidacy(ctx, reason);
        } else if let Some(l) = e.leader {
            self.transition_to_follower(ctx, e.epoch, l, reason);
        } else {
            self.transition_to_unattached_fresh_timer(ctx, e.epoch, e.voted_key(), reason);
        }
        let lone = self.voters().len() == 1 && self.is_voter();
        if lone && matches!(self.state, EpochState::Unattached(_) | EpochState::Follower(_) | EpochState::Resigned(_)) {
            self.transition_to_prospective(ctx, reason);
        }
    }

    /// A candidate that restarts is a candidate again in the same epoch, voted for itself
    /// (QuorumState.initialize); its vote is on disk already, so nothing is persisted.
    fn resume_candidacy(&mut self, ctx: &mut Ctx, reason: Reason) {
        let next = CandidateState {
            epoch: self.election.epoch,
            granted: vec![self.id],
            rejected: Vec::new(),
            election_deadline: self.random_election_deadline(ctx),
        };
        self.enter(ctx, EpochState::Candidate(next), reason);
        self.maybe_finish_election(ctx);
    }

    /// Unattached keeps the election time left from Candidate, Prospective, Unattached
    /// and Resigned (Kafka's transitionToUnattached); from other states it draws anew.
    pub(crate) fn transition_to_unattached(
        &mut self,
        ctx: &mut Ctx,
        epoch: Epoch,
        voted: Option<ReplicaKey>,
        reason: Reason,
    ) {
        let deadline = match self.state.election_deadline() {
            _ if !self.is_voter() => u64::MAX,
            Some(d) => d,
            None => self.random_election_deadline(ctx),
        };
        self.transition_to_unattached_with_deadline(ctx, epoch, voted, deadline, reason);
    }

    pub(crate) fn transition_to_unattached_fresh_timer(
        &mut self,
        ctx: &mut Ctx,
        epoch: Epoch,
        voted: Option<ReplicaKey>,
        reason: Reason,
    ) {
        let deadline = if self.is_voter() { self.random_election_deadline(ctx) } else { u64::MAX };
        self.transition_to_unattached_with_deadline(ctx, epoch, voted, deadline, reason);
    }

    /// A Prospective that grants a standard vote stays Prospective, now with a vote
    /// (persisted) and a new election timer (Kafka's prospectiveAddVotedState).
    pub(crate) fn prospective_add_vote(&mut self, ctx: &mut Ctx, candidate: ReplicaKey) {
        let epoch = self.epoch();
        self.persist(ctx, ElectionState::new(epoch, None, Some(candidate)));
        let deadline = self.random_election_deadline(ctx);
        if let Some(p) = self.state.as_prospective_mut() {
            p.voted = Some(candidate);
            p.election_deadline = deadline;
        }
        ctx.note(Note::StateChanged {
            from: StateName::Prospective,
            to: StateName::Prospective,
            epoch,
            leader: None,
            voted: Some(candidate.id),
            reason: Reason::VotedForCandidate,
        });
    }

    pub(crate) fn transition_to_unattached_with_deadline(
        &mut self,
        ctx: &mut Ctx,
        epoch: Epoch,
        voted: Option<ReplicaKey>,
        election_deadline: u64,
        reason: Reason,
    ) {
        self.persist(ctx, ElectionState::new(epoch, None, voted));
        let next = UnattachedState { epoch, voted, leader: None, election_deadline };
        self.enter(ctx, EpochState::Unattached(next), reason);
    }

    /// Pre-vote (KIP-996): persists nothing. With `no-pre-vote` the replica goes
    /// straight to Candidate, as KRaft did before 4.0.
    pub(crate) fn transition_to_prospective(&mut self, ctx: &mut Ctx, reason: Reason) {
        debug_assert!(self.is_voter());
        if self.switches.has(SafetySwitch::NoPreVote) {
            return self.transition_to_candidate(ctx, reason);
        }
        let leader = self.state.leader(self.id).filter(|l| *l != self.id);
        let next = ProspectiveState {
            epoch: self.epoch(),
            voted: self.election.voted_key(),
            leader,
            granted: vec![self.id],
            rejected: Vec::new(),
            election_deadline: self.random_election_deadline(ctx),
        };
        self.enter(ctx, EpochState::Prospective(next), reason);
        self.maybe_finish_election(ctx);
    }

    pub(crate) fn transition_to_candidate(&mut self, ctx: &mut Ctx, reason: Reason) {
        let epoch = self.epoch() + 1;
        self.persist(ctx, ElectionState::new(epoch, None, Some(self.key())));
        let next = CandidateState {
            epoch,
            granted: vec![self.id],
            rejected: Vec::new(),
            election_deadline: self.random_election_deadline(ctx),
        };
        self.enter(ctx, EpochState::Candidate(next), reason);
        self.maybe_finish_election(ctx);
    }

    /// Wins the election: persists, then appends the start-of-epoch control records
    /// whose first offset is the epoch start offset, and announces itself. The leader's
    /// quorum-state names it as leader and holds no vote (LeaderState.election).
    pub(crate) fn transition_to_leader(&mut self, ctx: &mut Ctx, reason: Reason) {
        let epoch = self.epoch();
        self.persist(ctx, ElectionState::new(epoch, Some(self.id), None));
        let epoch_start = self.log.end_offset();
        let mut granting_voters = match &self.state {
            EpochState::Candidate(c) => c.granted.clone(),
            _ => Vec::new(), // a leader restarted into its old epoch (no-resign-on-restart)
        };
        // Ascending ids: small_sort, not std's sort_unstable (3 KB of wasm for a few ids).
        kraft_base::small_sort::by_key(&mut granting_voters, |id| *id);
        let voters = self.voters().clone();
        let mut leader = LeaderState::new(epoch, epoch_start, &voters, self.key(), ctx.now, &self.config);
        leader.granting_voters = granting_voters;
        if !self.kraft_version().is_reconfig_supported() {
            // LeaderState's constructor at kraft.version 0 (4.1+): the static voters with
            // this leader's own entry, for UpdateRaftVoter to fill in until an upgrade.
            if let Some(v) = voters.update_voter_ignoring_directory_id(self.local_voter_node()) {
                leader.kraft_version_upgrade = KRaftVersionUpgrade::Voters(v);
            }
        }
        self.enter(ctx, EpochState::Leader(Box::new(leader)), reason);
        let batch = self.start_of_epoch_records(ctx, &voters);
        self.append_as_leader(ctx, batch);
        self.send_begin_quorum_epoch(ctx);
    }

    /// LeaderState.appendStartOfEpochControlRecords: LeaderChange with the voters and the
    /// voters that elected it; at kraft.version 1 also, in the same batch, the
    /// KRaftVersionRecord and the VotersRecord with its own entry brought up to date, when
    /// its set came from the bootstrap checkpoint (offset -1) or its own entry changed.
    fn start_of_epoch_records(&mut self, ctx: &mut Ctx, voters: &VoterSet) -> Vec<(u64, RecordBody)> {
        let granting_voters = self.leader_state().map_or_else(Vec::new, |l| l.granting_voters.clone());
        let leader_change = RecordBody::leader_change(self.id, voters.iter().collect(), granting_voters);
        let mut batch = vec![(ctx.ids.next_record_id(), leader_change)];
        let kraft_version = self.kraft_version();
        if !kraft_version.is_reconfig_supported() {
            return batch;
        }
        let me = self.local_voter_node();
        let from_bootstrap = matches!(self.history.last_voter_set_entry(), Some((None, _)));
        if from_bootstrap || voters.voter_node_needs_update(&me) {
            if let Some(updated) = voters.update_voter(me) {
                batch.push((ctx.ids.next_record_id(), RecordBody::KRaftVersion { version: kraft_version }));
                batch.push((ctx.ids.next_record_id(), RecordBody::Voters { voters: updated }));
            }
        }
        batch
    }

    pub(crate) fn transition_to_follower(&mut self, ctx: &mut Ctx, epoch: Epoch, leader: NodeId, reason: Reason) {
        let voted = if epoch == self.epoch() { self.election.voted_key() } else { None };
        self.persist(ctx, ElectionState::new(epoch, Some(leader), voted));
        let release = self.config.release;
        let update_voter_deadline = if release.voters_send_update_voter() {
            ctx.now + release.update_voter_period_ms(self.config.fetch_timeout_ms)
        } else {
            u64::MAX
        };
        let next = FollowerState {
            epoch,
            leader,
            voted,
            fetch_deadline: ctx.now + self.config.fetch_timeout_ms,
            has_fetched: false,
            snapshot_download: None,
            update_voter_deadline,
            has_updated_leader: false,
        };
        self.enter(ctx, EpochState::Follower(next), reason);
    }

    /// Leaves leadership: EndQuorumEpoch goes to every other voter, with the
    /// successors ordered by how far they have replicated. Persists nothing.
    pub(crate) fn transition_to_resigned(&mut self, ctx: &mut Ctx, reason: Reason) {
        let epoch = self.epoch();
        // A leader restarted into Resigned sends an empty list: everyone may start.
        let preferred_successors = self.state.as_leader().map_or_else(Vec::new, |l| l.preferred_successors(self.id));
        let unacked = self.voters().iter().filter(|v| *v != self.id).collect();
        let next = ResignedState {
            epoch,
            election_deadline: self.random_election_deadline(ctx),
            preferred_successors,
            unacked,
        };
        self.enter(ctx, EpochState::Resigned(next), reason);
    }

    /// Moves to the epoch a message revealed: follow its leader when it names one.
    pub(crate) fn transition_to_epoch_of(
        &mut self,
        ctx: &mut Ctx,
        epoch: Epoch,
        leader: Option<NodeId>,
        reason: Reason,
    ) {
        match leader {
            Some(l) if l != self.id => self.transition_to_follower(ctx, epoch, l, reason),
            _ => self.transition_to_unattached(ctx, epoch, None, reason),
        }
    }

    /// A finished (pre-)vote count moves the replica on: pre-vote won -> Candidate,
    /// vote won -> Leader; a majority of rejections ends the pre-vote.
    pub(crate) fn maybe_finish_election(&mut self, ctx: &mut Ctx) {
        let majority = self.majority();
        match &self.state {
            EpochState::Prospective(p) => {
                if p.granted.len() >= majority {
                    self.transition_to_candidate(ctx, Reason::PreVoteGranted);
                } else if p.granted.len() + self.unrecorded(&p.granted, &p.rejected) < majority {
                    self.prospective_lost(ctx, true);
                }
            }
            EpochState::Candidate(c) if c.granted.len() >= majority => {
                self.transition_to_leader(ctx, Reason::VoteGranted);
            }
            _ => {}
        }
    }

    /// Kafka's prospectiveTransitionAfterElectionLoss: back to the known leader, else
    /// Unattached (fresh timer after a rejection; the time left, i.e. none, after a
    /// timeout, so the next pre-vote starts at once).
    pub(crate) fn prospective_lost(&mut self, ctx: &mut Ctx, rejected: bool) {
        let Some(p) = self.state.as_prospective() else {
            return;
        };
        let (epoch, voted, leader) = (p.epoch, p.voted, p.leader);
        let reason = if rejected { Reason::PreVoteRejected } else { Reason::PreVoteTimedOut };
        match leader {
            Some(l) => self.transition_to_follower(ctx, epoch, l, reason),
            None if rejected => self.transition_to_unattached_fresh_timer(ctx, epoch, voted, reason),
            None => self.transition_to_unattached(ctx, epoch, voted, reason),
        }
    }

    fn unrecorded(&self, granted: &[NodeId], rejected: &[NodeId]) -> usize {
        self.voters().iter().filter(|v| !granted.contains(v) && !rejected.contains(v)).count()
    }

    pub(crate) fn voted_in_state(&self) -> Option<NodeId> {
        match &self.state {
            EpochState::Unattached(s) => s.voted.map(|k| k.id),
            EpochState::Prospective(s) => s.voted.map(|k| k.id),
            EpochState::Candidate(_) => Some(self.id),
            EpochState::Follower(s) => s.voted.map(|k| k.id),
            EpochState::Leader(_) | EpochState::Resigned(_) => self.election.voted,
        }
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
        if error == ErrorCode::InvalidVoterKey {
            // The request named another replica key than the receiver's: the answer is
            // dropped, with no backoff (a vote it carries is not recorded).
            return true;
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
