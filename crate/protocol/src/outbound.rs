//! The requests each state sends when its connections are ready (Kafka's
//! maybeSendRequests and the poll of each state): votes, Fetch or FetchSnapshot to the
//! leader or a bootstrap server, EndQuorumEpoch; one in flight per connection.

use super::io::Ctx;
use super::record::NodeId;
use super::replica::Replica;
use super::rpc::{EndQuorumEpochRequest, FetchSnapshotRequest, Message};
use super::state::EpochState;

impl Replica {
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
                let epoch = p.epoch;
                for v in ask {
                    let m = self.vote_request(epoch, true, v);
                    self.request(ctx, v, m);
                }
            }
            EpochState::Candidate(c) => {
                let unrecorded =
                    self.voters().iter().filter(|v| !c.granted.contains(v) && !c.rejected.contains(v)).count();
                if c.granted.len() + unrecorded < self.majority() {
                    return; // the election is lost: wait out the election timeout
                }
                let ask: Vec<NodeId> = self.unanswered_voters(&c.granted, &c.rejected, now);
                let epoch = c.epoch;
                for v in ask {
                    let m = self.vote_request(epoch, false, v);
                    self.request(ctx, v, m);
                }
            }
            EpochState::Follower(f) => {
                if self.awaiting_flush.is_some() {
                    return; // the raft thread is still in the flush of its last append
                }
                // Kafka's pollFollowerAsVoter (a Kafka release: UpdateRaftVoter) and
                // pollFollowerAsObserver (4.2+: auto-join) spend the poll on a voter change
                // once the update voter timer expired and one is due.
                let (leader, timer_expired) = (f.leader, f.update_voter_deadline <= now);
                if timer_expired {
                    let spent = if self.is_voter() {
                        self.maybe_send_update_voter(ctx, leader)
                    } else {
                        self.maybe_auto_join(ctx, leader)
                    };
                    if spent {
                        return;
                    }
                }
                let Some(f) = self.state.as_follower() else { return };
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
                        replica_directory: self.log.directory_id(),
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
        self.voters()
            .iter()
            .filter(|v| {
                *v != self.id && !granted.contains(v) && !rejected.contains(v) && self.requests.is_ready(*v, now)
            })
            .collect()
    }

    /// A random bootstrap server (not itself) ready for a request
    /// (RequestManager.findReadyBootstrapServer).
    fn random_ready_voter(&self, ctx: &mut Ctx, now: u64) -> Option<NodeId> {
        let ready: Vec<NodeId> = self
            .bootstrap_servers
            .iter()
            .copied()
            .filter(|v| *v != self.id && self.requests.is_ready(*v, now))
            .collect();
        if ready.is_empty() {
            return None;
        }
        Some(ready[ctx.rng.below(ready.len() as u64) as usize])
    }
}
