//! Vote and pre-vote (KIP-996) at both ends: KafkaRaftClient.handleVoteRequest grants by
//! the per-state rules in `election.rs`; handleVoteResponse counts toward the election.

use super::config::SafetySwitch;
use super::election::{vote_decision, VoteDecision};
use super::io::{Ctx, Note};
use super::record::Epoch;
use super::record::NodeId;
use super::replica::Replica;
use super::replica_key::ReplicaKey;
use super::rpc::{ErrorCode, Message, VoteRequest, VoteResponse};
use super::state::{EpochState, Reason};

impl Replica {
    /// The (pre-)vote request to voter `to`, named by its key in this replica's voter set.
    pub(super) fn vote_request(&self, epoch: Epoch, pre_vote: bool, to: NodeId) -> Message {
        Message::Vote(VoteRequest {
            replica_epoch: epoch,
            candidate_directory: self.log.directory_id(),
            voter_key: self.voters().node(to).map_or(ReplicaKey::new(to, None), |n| n.key()),
            last_offset_epoch: self.log.last_epoch(),
            last_offset: self.log.end_offset(),
            pre_vote,
        })
    }

    /// KafkaRaftClient.isValidVoterKey: a request meant for `key` is for this replica when
    /// the ids agree and the key names no directory id or this replica's.
    pub(super) fn is_valid_voter_key(&self, key: ReplicaKey) -> bool {
        key.matches(self.key())
    }

    /// Kafka's handleVoteRequest. It never asks whether the candidate or this replica is
    /// a voter: their voter sets may differ while a change is uncommitted (KIP-853).
    pub(super) fn handle_vote_request(&mut self, ctx: &mut Ctx, from: NodeId, req: VoteRequest) -> VoteResponse {
        let VoteRequest {
            replica_epoch: epoch,
            candidate_directory,
            voter_key,
            last_offset_epoch: last_epoch,
            last_offset,
            pre_vote,
        } = req;
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
        // Checked after the epoch is taken, as Kafka does (3.9+, KIP-853): the request was
        // for another disk of this node.
        if !self.is_valid_voter_key(voter_key) {
            ctx.note(Note::VoteDecided { candidate: from, epoch, pre_vote, decision: VoteDecision::InvalidVoterKey });
            return self.vote_response(ErrorCode::InvalidVoterKey, false, pre_vote);
        }
        let candidate = ReplicaKey::new(from, candidate_directory);
        let up_to_date = (last_epoch, last_offset) >= (self.log.last_epoch(), self.log.end_offset())
            || self.switches.has(SafetySwitch::VoteIgnoresLog);
        let decision = vote_decision(&self.state, candidate, up_to_date, pre_vote);
        ctx.note(Note::VoteDecided { candidate: from, epoch, pre_vote, decision });
        let granted = decision.granted();
        if granted && !pre_vote && decision != VoteDecision::GrantedAgain {
            // Persisted before we answer: one vote per epoch, even across a crash.
            let epoch = self.epoch();
            if self.state.as_prospective().is_some() {
                self.prospective_add_vote(ctx, candidate);
            } else {
                self.transition_to_unattached_fresh_timer(ctx, epoch, Some(candidate), Reason::VotedForCandidate);
            }
        }
        self.vote_response(ErrorCode::None, granted, pre_vote)
    }

    fn vote_response(&self, error: ErrorCode, granted: bool, pre_vote: bool) -> VoteResponse {
        VoteResponse { error, hint: self.hint(), granted, pre_vote }
    }

    /// Kafka's handleVoteResponse: counts the (pre-)vote of the current election.
    pub(super) fn handle_vote_response(&mut self, ctx: &mut Ctx, from: NodeId, response: VoteResponse) {
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
}
