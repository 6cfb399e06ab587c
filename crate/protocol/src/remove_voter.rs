//! RemoveRaftVoter at the leader (Kafka's KafkaRaftClient.handleRemoveVoterRequest, then
//! RemoveVoterHandler, 3.9+): check, append the set without the voter at once, answer
//! once it commits. A leader that removes itself keeps leading meanwhile, without counting
//! itself toward the HW or check-quorum (LeaderState.updateVoterAndObserverStates), and
//! resigns once the change commits (`voter_change`).

use super::io::Ctx;
use super::leader::{PendingVoterChange, VoterChangeKind};
use super::record::NodeId;
use super::replica::Replica;
use super::rpc::{ErrorCode, RemoveRaftVoterRequest, VoterChangeResponse};
use super::voter_change::refusal;

impl Replica {
    /// KafkaRaftClient.handleRemoveVoterRequest and RemoveVoterHandler.handleRemoveVoterRequest.
    /// `None` once the change is accepted: its answer comes when it ends.
    pub(super) fn handle_remove_voter_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        correlation: u64,
        req: RemoveRaftVoterRequest,
    ) -> Option<VoterChangeResponse> {
        let refuse = |(error, message)| Some(VoterChangeResponse { error, message });
        if self.state.as_leader().is_none() {
            return refuse((ErrorCode::NotLeaderOrFollower, refusal::NOT_THE_LEADER));
        }
        if req.voter.directory.is_none() {
            return refuse((ErrorCode::InvalidRequest, refusal::NO_DIRECTORY_ID));
        }
        let voters = match self.check_no_pending_add_or_remove(ctx).and_then(|hw| self.check_reconfigurable(hw)) {
            Ok(voters) => voters,
            Err(r) => return refuse(r),
        };
        let Some(next) = voters.remove_voter(req.voter) else {
            return refuse((ErrorCode::VoterNotFound, refusal::NOT_FOUND));
        };
        self.supersede_pending_change(ctx);
        // The change is pending before its record lands: with the rest of the set caught
        // up it may commit within the append.
        let record_offset = Some(self.voters_record_offset());
        let deadline = ctx.now + self.config.request_timeout_ms;
        let l = self.state.as_leader_mut().expect("checked above");
        l.voter_change = Some(PendingVoterChange {
            kind: VoterChangeKind::Remove,
            client: from,
            correlation,
            deadline,
            record_offset,
            answered: false,
        });
        self.append_voters_record(ctx, next);
        None
    }
}
