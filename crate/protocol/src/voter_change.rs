//! What the three voter-change handlers (`add_voter`, `remove_voter`, `update_voter`)
//! share: the checks they start with, in Kafka's order; appending the new VotersRecord;
//! and the life of the change the leader has accepted (LeaderState's pending operation):
//! answered once the HW passes its record, expired after request.timeout.ms, answered
//! NOT_LEADER_OR_FOLLOWER if the leader steps down (`transitions`). Kafka 3.9+.

use super::io::Ctx;
use super::leader::{PendingVoterChange, ResignRequest, VoterChangeKind};
use super::record::{Offset, RecordBody};
use super::replica::Replica;
use super::rpc::{ErrorCode, Message, VoterChangeResponse};
use super::voters::VoterSet;
use super::SafetySwitch;

/// Why a voter change is refused or ended: the error and the rule's words.
pub(crate) type Refusal = (ErrorCode, &'static str);

impl Replica {
    /// The checks AddVoterHandler, RemoveVoterHandler and UpdateVoterHandler start with:
    /// REQUEST_TIMED_OUT while a change is pending (one due is expired first:
    /// LeaderState.isOperationPending), and REQUEST_TIMED_OUT until the leader has a HW,
    /// i.e. has committed a record of its own epoch and so fenced earlier leaders' changes.
    /// Returns the HW. Only a leader calls it.
    pub(super) fn check_no_pending_change(&mut self, ctx: &mut Ctx) -> Result<Offset, Refusal> {
        self.check_pending_and_hw(ctx, false)
    }

    /// `check_no_pending_change` for AddRaftVoter and RemoveRaftVoter. With the
    /// `multi-voter-change` switch (unsafe) a pending change does not refuse the next one:
    /// the effect of KAFKA-20740, where AddVoterHandler/RemoveVoterHandler forget a change
    /// that timed out while its VotersRecord still sat in the accumulator, so
    /// LeaderState.isOperationPending lets a second change in. The leader still needs its HW.
    pub(super) fn check_no_pending_add_or_remove(&mut self, ctx: &mut Ctx) -> Result<Offset, Refusal> {
        let unsafe_multi = self.switches.has(SafetySwitch::MultiVoterChange);
        self.check_pending_and_hw(ctx, unsafe_multi)
    }

    fn check_pending_and_hw(&mut self, ctx: &mut Ctx, pending_allowed: bool) -> Result<Offset, Refusal> {
        self.maybe_expire_voter_change(ctx);
        let l = self.state.as_leader().expect("only a leader changes voters");
        if l.voter_change.is_some() && !pending_allowed {
            return Err((ErrorCode::RequestTimedOut, refusal::PENDING));
        }
        l.high_watermark.ok_or((ErrorCode::RequestTimedOut, refusal::NO_HIGH_WATERMARK))
    }

    /// Then, for AddVoter and RemoveVoter: UNSUPPORTED_VERSION at kraft.version 0, and
    /// REQUEST_TIMED_OUT while the latest VotersRecord is not below the HW (one uncommitted
    /// change at a time). Returns the latest set, committed. With the `multi-voter-change`
    /// switch (unsafe) the latest set is returned committed or not (KAFKA-20740's effect).
    pub(super) fn check_reconfigurable(&self, hw: Offset) -> Result<VoterSet, Refusal> {
        if !self.kraft_version().is_reconfig_supported() {
            return Err((ErrorCode::UnsupportedVersion, refusal::STATIC_VOTERS));
        }
        if self.switches.has(SafetySwitch::MultiVoterChange) {
            return Ok(self.voters().clone());
        }
        self.committed_latest_voters(hw)
    }

    /// Makes room for a newly accepted change: a change still pending (only with the
    /// `multi-voter-change` switch) is answered REQUEST_TIMED_OUT and forgotten, as
    /// KAFKA-20740's expired change was, while its VotersRecord stays in the log.
    pub(super) fn supersede_pending_change(&mut self, ctx: &mut Ctx) {
        self.abort_voter_change(ctx, (ErrorCode::RequestTimedOut, refusal::SUPERSEDED));
    }

    /// The latest voter set if its entry is committed (below `hw`; the bootstrap
    /// checkpoint's always is), else REQUEST_TIMED_OUT.
    pub(super) fn committed_latest_voters(&self, hw: Offset) -> Result<VoterSet, Refusal> {
        match self.history.last_voter_set_entry() {
            Some((offset, voters)) if offset.is_none_or(|o| o < hw) => Ok(voters.clone()),
            _ => Err((ErrorCode::RequestTimedOut, refusal::UNCOMMITTED)),
        }
    }

    /// The offset the next VotersRecord gets (what LeaderState.appendVotersRecord
    /// returns): after the writes lingering in the accumulator, whose batch it completes.
    pub(super) fn voters_record_offset(&self) -> Offset {
        let lingering = self.state.as_leader().map_or(0, |l| l.pending_writes.len() as u64);
        self.log.end_offset() + lingering
    }

    /// LeaderState.appendVotersRecord: `voters` goes in a control batch of its own, after
    /// the lingering writes; the raft thread drains both at once, so it lands at
    /// `voters_record_offset()` and is in force from then on.
    pub(super) fn append_voters_record(&mut self, ctx: &mut Ctx, voters: VoterSet) {
        self.append_control_batch(ctx, vec![RecordBody::Voters { voters }]);
    }

    /// BatchAccumulator.appendControlMessages: `records` in a control batch of their own,
    /// after the lingering writes, drained at once.
    pub(super) fn append_control_batch(&mut self, ctx: &mut Ctx, records: Vec<RecordBody>) {
        let Some(l) = self.state.as_leader_mut() else { return };
        let writes = std::mem::take(&mut l.pending_writes);
        l.linger_deadline = None;
        let control = records.into_iter().map(|body| (ctx.ids.next_record_id(), body)).collect();
        self.append_batches_as_leader(ctx, [writes, control]);
    }

    /// Answers the client that asked for `change` (the future Kafka completes), unless it
    /// was answered already (a completed future stays as it was).
    pub(super) fn answer_voter_change(
        &self,
        ctx: &mut Ctx,
        change: &PendingVoterChange,
        error: ErrorCode,
        message: &'static str,
    ) {
        if change.answered {
            return;
        }
        let r = VoterChangeResponse { error, message };
        let m = match change.kind {
            VoterChangeKind::Add { .. } => Message::AddRaftVoterResponse(r),
            VoterChangeKind::Remove => Message::RemoveRaftVoterResponse(r),
        };
        ctx.send(self.id, change.client, change.correlation, m);
    }

    /// Ends the pending change with `refusal` (AddVoterHandler.abortAddVoter).
    pub(super) fn abort_voter_change(&mut self, ctx: &mut Ctx, refusal: Refusal) {
        let Some(change) = self.state.as_leader_mut().and_then(|l| l.voter_change.take()) else { return };
        self.answer_voter_change(ctx, &change, refusal.0, refusal.1);
    }

    /// LeaderState.maybeExpirePendingOperation, on every poll: a change not committed
    /// within request.timeout.ms is answered REQUEST_TIMED_OUT. A VotersRecord it appended
    /// stays in the log, and in force.
    pub(super) fn maybe_expire_voter_change(&mut self, ctx: &mut Ctx) {
        let due = self.leader_state().and_then(|l| l.voter_change.as_ref()).is_some_and(|c| c.deadline <= ctx.now);
        if due {
            self.abort_voter_change(ctx, (ErrorCode::RequestTimedOut, refusal::TIMED_OUT));
        }
    }

    /// AddVoterHandler and RemoveVoterHandler.highWatermarkUpdated: once the HW passes the
    /// change's VotersRecord it is answered NONE, and a leader that removed itself asks to
    /// resign (it steps down at its next poll, sending EndQuorumEpoch).
    pub(super) fn voter_change_maybe_committed(&mut self, ctx: &mut Ctx) {
        let removed_itself = !self.is_voter();
        let Some(l) = self.state.as_leader_mut() else { return };
        let hw = l.high_watermark;
        let committed =
            l.voter_change.as_ref().and_then(|c| c.record_offset).is_some_and(|o| hw.is_some_and(|h| h > o));
        if !committed {
            return;
        }
        let change = l.voter_change.take().expect("checked above");
        if change.kind == VoterChangeKind::Remove && removed_itself {
            l.resign_requested = Some(ResignRequest::RemovedFromVoters);
        }
        self.answer_voter_change(ctx, &change, ErrorCode::None, refusal::NONE);
    }
}

/// The rules that refuse or end a voter change, as Kafka words them (without its values),
/// with the class and method that applies each.
pub mod refusal {
    pub const PENDING: &str =
        "Request timed out waiting for leader to handle previous voter change request (LeaderState.isOperationPending)";
    pub const NO_HIGH_WATERMARK: &str = "Request timed out waiting for leader to establish HWM and fence previous \
                                         voter changes (the leader has not committed a record of its epoch)";
    pub const STATIC_VOTERS: &str =
        "Cluster doesn't support changing voters because the kraft.version feature is 0 (a static voter set)";
    pub const UNCOMMITTED: &str =
        "Request timed out waiting for voters to commit the latest voter change (its VotersRecord is above the HWM)";
    pub const DUPLICATE: &str = "The voter id is already part of the set of voters (VoterSet.addVoter)";
    pub const NOT_FOUND: &str =
        "The replica key is not a voter's, or it is the last voter (VoterSet.removeVoter / updateVoter)";
    pub const NOT_READY: &str = "New voter is not ready to receive requests (DefaultRequestSender.send)";
    pub const API_VERSIONS_FAILED: &str = "Aborted add voter operation since API_VERSIONS returned an error";
    pub const UNSUPPORTED_KRAFT_VERSION: &str =
        "Aborted add voter operation since the new voter's kraft.version range doesn't support the finalized version";
    pub const LAGGING: &str = "Aborted add voter operation since the new voter is lagging behind \
                               (LeaderState.isReplicaCaughtUp: it never reached the leader's LEO, or not within an hour)";
    pub const TIMED_OUT: &str = "The voter change did not commit within request.timeout.ms \
                                 (LeaderState.maybeExpirePendingOperation); its VotersRecord stays in the log";
    pub const SUPERSEDED: &str = "The leader accepted another voter change while this one was pending (the \
                                  multi-voter-change switch, KAFKA-20740); its VotersRecord, if appended, stays";
    pub const NOT_LEADER: &str = "The leader lost its leadership before the voter change committed (LeaderState.close)";
    pub const NOT_THE_LEADER: &str = "This replica is not the leader (KafkaRaftClient.validateLeaderOnlyRequest)";
    pub const NO_DIRECTORY_ID: &str = "The request didn't include a valid voter: its directory id is missing";
    pub const NO_DEFAULT_LISTENER: &str = "The request didn't include an endpoint for the leader's listener";
    pub const BAD_VERSION_RANGE: &str = "The voter's kraft.version range is invalid or misses the finalized version";
    pub const NONE: &str = "";
}
