//! UpdateRaftVoter at the leader (Kafka's KafkaRaftClient.handleUpdateVoterRequest, then
//! UpdateVoterHandler as of 4.1): a voter's new listeners or supported kraft.versions
//! replace its entry. At kraft.version 1 the new set is appended and answered NONE at once
//! (no pending change); at kraft.version 0 it is kept in the leader's memory until an
//! upgrade writes it (3.9 and 4.0 answered UNSUPPORTED_VERSION there).

use super::io::Ctx;
use super::replica::Replica;
use super::rpc::{ErrorCode, UpdateRaftVoterRequest, UpdateRaftVoterResponse};
use super::voter_change::{refusal, Refusal};
use super::voters::{VoterNode, CONTROLLER_LISTENER};

impl Replica {
    /// KafkaRaftClient.handleUpdateVoterRequest and UpdateVoterHandler.handleUpdateVoterRequest.
    pub(super) fn handle_update_voter_request(
        &mut self,
        ctx: &mut Ctx,
        req: UpdateRaftVoterRequest,
    ) -> UpdateRaftVoterResponse {
        let error = match self.update_voter(ctx, req) {
            Ok(()) => ErrorCode::None,
            Err((error, _)) => error,
        };
        UpdateRaftVoterResponse { error, hint: self.hint() }
    }

    fn update_voter(&mut self, ctx: &mut Ctx, req: UpdateRaftVoterRequest) -> Result<(), Refusal> {
        let UpdateRaftVoterRequest { current_leader_epoch, voter, listeners, supported } = req;
        // validateLeaderOnlyRequest on the request's epoch: FENCED_LEADER_EPOCH,
        // UNKNOWN_LEADER_EPOCH or NOT_LEADER_OR_FOLLOWER.
        self.check_leader_request(current_leader_epoch).map_err(|e| (e, refusal::NOT_THE_LEADER))?;
        if voter.directory.is_none() {
            return Err((ErrorCode::InvalidRequest, refusal::NO_DIRECTORY_ID));
        }
        if listeners.address(CONTROLLER_LISTENER).is_none() {
            return Err((ErrorCode::InvalidRequest, refusal::NO_DEFAULT_LISTENER));
        }
        if supported.min > supported.max {
            return Err((ErrorCode::InvalidRequest, refusal::BAD_VERSION_RANGE));
        }
        let hw = self.check_no_pending_change(ctx)?;
        let finalized = self.kraft_version();
        let voters = if finalized.is_reconfig_supported() {
            self.committed_latest_voters(hw)?
        } else {
            let volatile = self.leader_state().and_then(|l| l.volatile_voters.clone());
            volatile.ok_or((ErrorCode::RequestTimedOut, refusal::UNCOMMITTED))?
        };
        if !supported.contains(finalized) {
            return Err((ErrorCode::InvalidRequest, refusal::BAD_VERSION_RANGE));
        }
        let node = VoterNode::new(voter, listeners, supported);
        let updated = if finalized.is_reconfig_supported() {
            voters.update_voter(node)
        } else {
            voters.update_voter_ignoring_directory_id(node)
        };
        let updated = updated.ok_or((ErrorCode::VoterNotFound, refusal::NOT_FOUND))?;
        if finalized.is_reconfig_supported() {
            self.append_voters_record(ctx, updated);
        } else if let Some(l) = self.state.as_leader_mut() {
            l.volatile_voters = Some(updated);
        }
        // A successful UpdateRaftVoter counts as the voter's fetch for check-quorum.
        if let Some(l) = self.state.as_leader_mut() {
            l.record_voter_fetch(voter, ctx.now, &self.config);
        }
        Ok(())
    }
}
