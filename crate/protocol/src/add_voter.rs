//! AddRaftVoter at the leader (Kafka's KafkaRaftClient.handleAddVoterRequest, then
//! AddVoterHandler, 3.9+): check, ask the new voter's software which kraft.version it
//! supports (ApiVersions), check it is caught up, append the new set, answer once it
//! commits (or, for AddRaftVoter v1 with AckWhenCommitted false, 4.2+, once it is
//! appended). Each refusal is the first failing check, in Kafka's order.

use super::io::Ctx;
use super::leader::{PendingVoterChange, VoterChangeKind};
use super::record::NodeId;
use super::replica::Replica;
use super::rpc::{AddRaftVoterRequest, ApiVersionsResponse, ErrorCode, Message, VoterChangeResponse};
use super::voter_change::refusal;
use super::voters::{VoterNode, CONTROLLER_LISTENER};

impl Replica {
    /// KafkaRaftClient.handleAddVoterRequest and AddVoterHandler.handleAddVoterRequest.
    /// `None` once the change is accepted: its answer comes when it ends.
    pub(super) fn handle_add_voter_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        correlation: u64,
        req: AddRaftVoterRequest,
    ) -> Option<VoterChangeResponse> {
        let refuse = |(error, message)| Some(VoterChangeResponse { error, message });
        // (Kafka first checks the cluster id, INCONSISTENT_CLUSTER_ID, and refuses while
        // shutting down, BROKER_NOT_AVAILABLE: a simulated cluster has one id and its
        // replicas no shutdown phase.)
        if self.state.as_leader().is_none() {
            return refuse((ErrorCode::NotLeaderOrFollower, refusal::NOT_THE_LEADER));
        }
        if req.voter.directory.is_none() {
            return refuse((ErrorCode::InvalidRequest, refusal::NO_DIRECTORY_ID));
        }
        if req.listeners.address(CONTROLLER_LISTENER).is_none() {
            return refuse((ErrorCode::InvalidRequest, refusal::NO_DEFAULT_LISTENER));
        }
        let voters = match self.check_no_pending_add_or_remove(ctx).and_then(|hw| self.check_reconfigurable(hw)) {
            Ok(voters) => voters,
            Err(r) => return refuse(r),
        };
        if voters.contains(req.voter.id) {
            return refuse((ErrorCode::DuplicateVoter, refusal::DUPLICATE));
        }
        // ApiVersions goes to the new voter's endpoint on the leader's listener, through the
        // one request slot per connection (DefaultRequestSender.send).
        if !self.requests.is_ready(req.voter.id, ctx.now) {
            return refuse((ErrorCode::RequestTimedOut, refusal::NOT_READY));
        }
        self.supersede_pending_change(ctx);
        self.request(ctx, req.voter.id, Message::ApiVersions);
        let l = self.state.as_leader_mut().expect("checked above");
        // AckWhenCommitted false is AddRaftVoter version 1 (4.2+); earlier leaders know only
        // version 0, which answers on commit.
        let ack_when_committed = req.ack_when_committed || !self.config.release.auto_join();
        l.voter_change = Some(PendingVoterChange {
            kind: VoterChangeKind::Add { voter: req.voter, listeners: req.listeners, ack_when_committed },
            client: from,
            correlation,
            deadline: ctx.now + self.config.request_timeout_ms,
            record_offset: None,
            answered: false,
        });
        None
    }

    /// AddVoterHandler.handleApiVersionsResponse: the new voter must support the finalized
    /// kraft.version (else INVALID_REQUEST) and be caught up (else REQUEST_TIMED_OUT); then
    /// the latest set plus the new voter is appended, and counts from that moment.
    pub(super) fn handle_api_versions_response(&mut self, ctx: &mut Ctx, from: NodeId, response: ApiVersionsResponse) {
        let Some(change) = self.leader_state().and_then(|l| l.voter_change.as_ref()) else { return };
        if !change.expects_api_versions_from(from) {
            return;
        }
        let VoterChangeKind::Add { voter, listeners, ack_when_committed } = change.kind.clone() else { return };
        if response.error != ErrorCode::None {
            // Reported as not handled: the connection backs off too.
            let until = ctx.now + self.config.retry_backoff_ms;
            self.requests.backoff(from, until);
            return self.api_versions_failed(ctx, from);
        }
        let finalized = self.kraft_version();
        let Some(supported) = response.kraft_version.filter(|r| r.contains(finalized)) else {
            return self.abort_voter_change(ctx, (ErrorCode::InvalidRequest, refusal::UNSUPPORTED_KRAFT_VERSION));
        };
        let l = self.state.as_leader().expect("a leader: it has a pending change");
        if !l.is_replica_caught_up(voter, ctx.now) {
            return self.abort_voter_change(ctx, (ErrorCode::RequestTimedOut, refusal::LAGGING));
        }
        let Some(next) = self.voters().add_voter(VoterNode::new(voter, listeners, supported)) else {
            return self.abort_voter_change(ctx, (ErrorCode::DuplicateVoter, refusal::DUPLICATE));
        };
        let offset = self.voters_record_offset();
        if let Some(c) = self.state.as_leader_mut().and_then(|l| l.voter_change.as_mut()) {
            c.record_offset = Some(offset);
        }
        self.append_voters_record(ctx, next);
        // AddVoterHandler with AckWhenCommitted false (4.2+, KIP-1186): NONE as soon as the
        // set is appended; the change stays pending until it commits (KAFKA-19400).
        if !ack_when_committed {
            let Some(c) = self.state.as_leader_mut().and_then(|l| l.voter_change.as_mut()) else { return };
            let change = c.clone();
            c.answered = true;
            self.answer_voter_change(ctx, &change, ErrorCode::None, refusal::NONE);
        }
    }

    /// The ApiVersions the change waits for failed (an error answer or a broken
    /// connection): the change ends with REQUEST_TIMED_OUT.
    pub(super) fn api_versions_failed(&mut self, ctx: &mut Ctx, from: NodeId) {
        let expected = self
            .leader_state()
            .and_then(|l| l.voter_change.as_ref())
            .is_some_and(|c| c.expects_api_versions_from(from));
        if expected {
            self.abort_voter_change(ctx, (ErrorCode::RequestTimedOut, refusal::API_VERSIONS_FAILED));
        }
    }
}
