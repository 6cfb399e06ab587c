//! UpdateRaftVoter at both ends. At the leader (Kafka's KafkaRaftClient.
//! handleUpdateVoterRequest, then UpdateVoterHandler): a voter's new listeners or supported
//! kraft.versions replace its entry. At kraft.version 1 the new set is appended and answered
//! NONE at once (no pending change); at kraft.version 0 it is kept in the leader's memory
//! until an upgrade writes it (4.1+, KAFKA-16538; 3.9 and 4.0 answer UNSUPPORTED_VERSION
//! there). At a voter follower (KafkaRaftClient.pollFollowerAsVoter,
//! shouldSendUpdateVoteRequest, handleUpdateVoterResponse; a Kafka release only, the legacy
//! model never sends it): when its update voter timer expires, a voter whose entry in a
//! kraft.version 1 set is out of date sends it, and from 4.1 a voter at kraft.version 0
//! sends it once to each new leader.

use super::io::Ctx;
use super::leader::KRaftVersionUpgrade;
use super::record::NodeId;
use super::replica::Replica;
use super::rpc::{ErrorCode, Message, UpdateRaftVoterRequest, UpdateRaftVoterResponse};
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
        let release = self.config.release;
        // 3.9 and 4.0 (UpdateVoterHandler before KAFKA-16538): "KAFKA-16538 will implement
        // the case when the kraft.version is 0".
        if !finalized.is_reconfig_supported() && release.update_voter_handler_before_kafka_16538() {
            return Err((ErrorCode::UnsupportedVersion, refusal::STATIC_VOTERS));
        }
        let voters = if finalized.is_reconfig_supported() {
            self.committed_latest_voters(hw)?
        } else {
            // Absent while an accepted upgrade's records are on their way (4.1+).
            let volatile = self.leader_state().and_then(|l| l.volatile_voters().cloned());
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
            l.kraft_version_upgrade = KRaftVersionUpgrade::Voters(updated);
        }
        // A successful UpdateRaftVoter counts as the voter's fetch for check-quorum (4.1's
        // UpdateVoterHandler.storeUpdatedVoters; 3.9 and 4.0 did not count it).
        if !release.update_voter_handler_before_kafka_16538() {
            if let Some(l) = self.state.as_leader_mut() {
                l.record_voter_fetch(voter, ctx.now, &self.config);
            }
        }
        Ok(())
    }

    // ---- at the voter ---------------------------------------------------------------------

    /// KafkaRaftClient.shouldSendUpdateVoteRequest: at kraft.version 1, when the latest
    /// voter set's entry for this replica is not what it is (its listeners, the
    /// kraft.versions its software supports); from 4.1, at kraft.version 0, until this
    /// leader has answered one ("the voter needs to send its voter information to every
    /// new leader", leaders keep it only in memory).
    fn should_send_update_voter(&self, has_updated_leader: bool) -> bool {
        if self.kraft_version().is_reconfig_supported() {
            self.voters().voter_node_needs_update(&self.local_voter_node())
        } else {
            self.config.release.kafka_16538() && !has_updated_leader
        }
    }

    /// The branch of KafkaRaftClient.pollFollowerAsVoter taken once the update voter timer
    /// expired; only a Kafka release's voter follower gets here. True when this poll is
    /// spent on UpdateRaftVoter (sent, or waiting for the leader's connection), so no Fetch
    /// goes out in it; false when none is needed and the follower fetches as usual.
    ///
    /// The timer restarts whenever it expired in 3.9 and 4.0 (resetUpdateVoterPeriod after
    /// either branch), so a Fetch parked at the leader at that moment costs the period;
    /// from 4.1 only once the request went out, or when none was needed (KAFKA-16538's
    /// RequestSendResult), so it goes out as soon as the leader's connection is free.
    pub(super) fn maybe_send_update_voter(&mut self, ctx: &mut Ctx, leader: NodeId) -> bool {
        let release = self.config.release;
        let now = ctx.now;
        let Some(f) = self.state.as_follower() else { return false };
        let (epoch, has_updated_leader) = (f.epoch, f.has_updated_leader);
        let next_period = now + release.update_voter_period_ms(self.config.fetch_timeout_ms);
        if !self.should_send_update_voter(has_updated_leader) {
            if let Some(f) = self.state.as_follower_mut() {
                f.update_voter_deadline = next_period;
            }
            return false;
        }
        // maybeSendUpdateVoterRequest: to the leader, if its connection is ready.
        let sent = self.requests.is_ready(leader, now);
        if sent {
            let me = self.local_voter_node();
            let m = Message::UpdateRaftVoter(UpdateRaftVoterRequest {
                current_leader_epoch: epoch,
                voter: me.key(),
                listeners: me.endpoints,
                supported: me.supported,
            });
            self.request(ctx, leader, m);
        }
        if sent || !release.kafka_16538() {
            if let Some(f) = self.state.as_follower_mut() {
                f.update_voter_deadline = next_period;
            }
        }
        true
    }

    /// KafkaRaftClient.handleUpdateVoterResponse: the common handling first (a newer epoch
    /// or another leader moves the follower). From 4.1, NONE and UNSUPPORTED_VERSION mean
    /// this leader has the voter's entry (setHasUpdatedLeader) and count as a successful
    /// fetch (resetFetchTimeoutForSuccessfulFetch); any other error backs the connection
    /// off (handleUnexpectedError). 3.9 and 4.0 only did the common handling
    /// (handled.orElse(true)): no backoff, the fetch timer untouched.
    pub(super) fn handle_update_voter_response(&mut self, ctx: &mut Ctx, from: NodeId, r: UpdateRaftVoterResponse) {
        let UpdateRaftVoterResponse { error, hint } = r;
        // maybeHandleCommonResponse handles only the epoch errors; UpdateRaftVoter's own
        // errors are this handler's.
        let common = matches!(
            error,
            ErrorCode::FencedLeaderEpoch
                | ErrorCode::UnknownLeaderEpoch
                | ErrorCode::NotLeaderOrFollower
                | ErrorCode::InvalidVoterKey
        );
        if self.handled_by_epoch(ctx, if common { error } else { ErrorCode::None }, hint, from) {
            return;
        }
        if !self.config.release.kafka_16538() {
            return;
        }
        match error {
            ErrorCode::None | ErrorCode::UnsupportedVersion => {
                let fetch_timeout = self.config.fetch_timeout_ms;
                if let Some(f) = self.state.as_follower_mut().filter(|f| f.leader == from) {
                    f.has_updated_leader = true;
                    f.fetch_deadline = ctx.now + fetch_timeout;
                    f.has_fetched = true;
                }
            }
            _ => {
                let until = ctx.now + self.config.retry_backoff_ms;
                self.requests.backoff(from, until);
            }
        }
    }
}
