//! BeginQuorumEpoch (a new leader announces itself, then re-announces to quiet voters)
//! and EndQuorumEpoch (a resigning leader hands over), at both ends.

use super::election::end_quorum_backoff_ms;
use super::io::Ctx;
use super::record::NodeId;
use super::replica::Replica;
use super::replica_key::ReplicaKey;
use super::rpc::{
    BeginQuorumEpochRequest, BeginQuorumEpochResponse, EndQuorumEpochRequest, EndQuorumEpochResponse, ErrorCode,
    LeaderHint, Message,
};

impl Replica {
    /// Kafka's handleBeginQuorumEpochRequest: follow the leader that announces itself.
    pub(super) fn handle_begin_quorum_epoch_request(
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
        // Checked after the leader is followed, as Kafka does (3.9+, KIP-853): the request
        // named another disk of this node.
        let error = if self.is_valid_voter_key(req.voter_key) { ErrorCode::None } else { ErrorCode::InvalidVoterKey };
        BeginQuorumEpochResponse { error, hint: self.hint() }
    }

    /// Kafka's handleEndQuorumEpochRequest: the resigning leader's follower waits its turn
    /// in the preferred-successor order before its election.
    pub(super) fn handle_end_quorum_epoch_request(
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
        if let Some(f) = self.state.as_follower_mut() {
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
    pub(super) fn handle_quorum_epoch_response(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        error: ErrorCode,
        hint: LeaderHint,
    ) {
        if self.handled_by_epoch(ctx, error, hint, from) {
            return;
        }
        if let Some(r) = self.state.as_resigned_mut() {
            r.unacked.retain(|v| *v != from);
        }
    }

    /// The leader's heartbeat: BeginQuorumEpoch to every voter that has not fetched
    /// for half a fetch timeout (all of them right after the election).
    pub(crate) fn send_begin_quorum_epoch(&mut self, ctx: &mut Ctx) {
        let interval = self.config.begin_quorum_epoch_interval_ms();
        let now = ctx.now;
        let Some(l) = self.state.as_leader_mut() else {
            return;
        };
        l.begin_quorum_deadline = now + interval;
        let epoch = l.epoch;
        let quiet: Vec<ReplicaKey> = l
            .replicas
            .iter()
            .filter(|r| r.is_voter && r.id != self.id)
            .filter(|r| r.last_fetch_ms.map(|t| now - t >= interval).unwrap_or(true))
            .map(|r| r.key())
            .collect();
        for voter_key in quiet {
            if self.requests.is_ready(voter_key.id, now) {
                let m = Message::BeginQuorumEpoch(BeginQuorumEpochRequest { leader_epoch: epoch, voter_key });
                self.request(ctx, voter_key.id, m);
            }
        }
    }
}
