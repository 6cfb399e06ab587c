//! Auto-join at the joining controller (Kafka 4.2+, KIP-1186, KAFKA-19078;
//! `controller.quorum.auto.join.enable`, default false): a controller that follows the
//! leader as an observer of a kraft.version 1 quorum, each time its update voter set timer
//! expires, asks the leader to remove the voter entry that holds its node id on another disk
//! (RemoveRaftVoter), or else to add it (AddRaftVoter v1 with AckWhenCommitted false, so
//! the leader answers once the new set is appended, before it commits).
//! KafkaRaftClient.pollFollowerAsObserver, shouldSendAddOrRemoveVoterRequest,
//! handleAddVoterResponse and handleRemoveVoterResponse.

use super::io::Ctx;
use super::record::NodeId;
use super::replica::Replica;
use super::rpc::{AddRaftVoterRequest, ErrorCode, Message, RemoveRaftVoterRequest, VoterChangeResponse};

impl Replica {
    /// KafkaRaftClient.shouldSendAddOrRemoveVoterRequest (kraft.version 1, a controller with
    /// auto-join on; the timer has expired) and the branch of pollFollowerAsObserver it
    /// takes: true when the poll is spent on it (sent, or waiting for the leader's
    /// connection: no Fetch goes out in it). The timer restarts only when the request went
    /// out.
    pub(super) fn maybe_auto_join(&mut self, ctx: &mut Ctx, leader: NodeId) -> bool {
        let joins = self.config.release.auto_join() && self.config.auto_join != 0;
        if !joins || !self.kraft_version().is_reconfig_supported() {
            return false;
        }
        let now = ctx.now;
        if self.requests.is_ready(leader, now) {
            let me = self.local_voter_node();
            // The node id is a voter's on another disk (this replica is an observer): that
            // voter goes first.
            let m = match self.voters().node(self.id) {
                Some(old) => Message::RemoveRaftVoter(RemoveRaftVoterRequest { voter: old.key() }),
                None => Message::AddRaftVoter(AddRaftVoterRequest {
                    voter: me.key(),
                    listeners: me.endpoints,
                    ack_when_committed: false,
                }),
            };
            self.request(ctx, leader, m);
            self.restart_update_voter_timer(now);
        }
        true
    }

    fn restart_update_voter_timer(&mut self, now: u64) {
        let period = self.config.release.update_voter_period_ms(self.config.fetch_timeout_ms);
        if let Some(f) = self.state.as_follower_mut() {
            f.update_voter_deadline = now + period;
        }
    }

    /// KafkaRaftClient.handleAddVoterResponse and handleRemoveVoterResponse: NONE,
    /// REQUEST_TIMED_OUT and DUPLICATE_VOTER (add) or VOTER_NOT_FOUND (remove) restart the
    /// update voter set timer ("the replica was successfully added or the leader is unable
    /// to process the request"); any other error backs the connection off
    /// (handleUnexpectedError).
    pub(super) fn handle_auto_join_response(&mut self, ctx: &mut Ctx, from: NodeId, add: bool, r: VoterChangeResponse) {
        let expected = if add { ErrorCode::DuplicateVoter } else { ErrorCode::VoterNotFound };
        match r.error {
            e if e == ErrorCode::None || e == ErrorCode::RequestTimedOut || e == expected => {
                self.restart_update_voter_timer(ctx.now);
            }
            _ => {
                let until = ctx.now + self.config.retry_backoff_ms;
                self.requests.backoff(from, until);
            }
        }
    }
}
