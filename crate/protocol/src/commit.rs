//! How records become committed: the leader appends a batch and moves its HW by the
//! majority rule; every node raises its own HW and applies what is committed.

use super::config::SafetySwitch;
use super::io::{Ctx, Note, Output};
use super::record::{Offset, Record, RecordBody};
use super::replica::Replica;
use super::state::EpochState;

impl Replica {
    /// Appends a batch as leader: LEO moves (the leader's own progress with it, so
    /// parked fetches are answered), then the flush blocks this replica's thread.
    /// KafkaRaftClient.flushLeaderLog updates the leader's end offset (LeaderState.
    /// updateLocalState, unflushed) and the HW before log.flush, so a lone voter, whose own
    /// offset is the majority, commits and answers parked fetches before its flush: a crash
    /// inside that flush loses committed records (scenario one-voter-flush-window).
    pub(crate) fn append_as_leader(&mut self, ctx: &mut Ctx, batch: Vec<(u64, RecordBody)>) {
        self.append_batches_as_leader(ctx, [batch]);
    }

    /// Appends batches in order (KafkaRaftClient.maybeAppendBatches drains every completed
    /// batch of the accumulator), each read into the voter history as it lands
    /// (appendAsLeader), then updates the leader's own progress under the latest voter set
    /// (LeaderState.updateLocalState) and flushes once.
    pub(crate) fn append_batches_as_leader(
        &mut self,
        ctx: &mut Ctx,
        batches: impl IntoIterator<Item = Vec<(u64, RecordBody)>>,
    ) {
        let epoch = self.epoch();
        let mut appended = false;
        for batch in batches.into_iter().filter(|b| !b.is_empty()) {
            let first = self.log.end_offset();
            let records: Vec<Record> = batch
                .into_iter()
                .enumerate()
                .map(|(i, (id, body))| Record { offset: first + i as u64, epoch, id, body })
                .collect();
            let kind = records[0].body.kind();
            let last = first + records.len() as u64 - 1;
            self.log.append(records);
            ctx.note(Note::Appended { first, last, epoch, kind });
            self.history.update(&self.log);
            appended = true;
        }
        if !appended {
            return;
        }
        let leo = self.log.end_offset();
        let voters = self.history.last_voter_set();
        if let EpochState::Leader(l) = &mut self.state {
            l.update_voters(voters);
            l.update_local(leo, ctx.now);
        }
        self.maybe_advance_leader_hw(ctx);
        self.complete_parked_fetches(ctx);
        ctx.out.push(Output::Flush { up_to: leo });
    }

    /// The leader's HW is what its Fetch responses carry, so every move of it is traced,
    /// even one that stays below the HW this node exposed as a follower (only
    /// `hw-before-own-epoch` allows that). Before its first move the HW this node exposed
    /// is its own.
    pub(super) fn maybe_advance_leader_hw(&mut self, ctx: &mut Ctx) {
        let allow = self.switches.has(SafetySwitch::HwBeforeOwnEpoch);
        let Some(l) = self.state.as_leader_mut() else {
            return;
        };
        let old = l.high_watermark.or(self.hw);
        if let Some(new) = l.maybe_advance_hw(allow) {
            let majority = l.voters_reaching(new);
            ctx.note(Note::HighWatermark { old, new, majority });
            if self.raise_hw(new) {
                self.apply_committed(ctx);
            }
            self.complete_parked_fetches(ctx);
            self.voter_change_maybe_committed(ctx);
        }
    }

    /// Raises this node's HW (never lowers it), applies newly committed records and
    /// takes a snapshot when enough have been applied since the last one.
    pub(super) fn set_hw(&mut self, ctx: &mut Ctx, new: Offset) {
        let old = self.hw;
        if self.raise_hw(new) {
            ctx.note(Note::HighWatermark { old, new, majority: 0 });
            self.apply_committed(ctx);
        }
    }

    /// True when `new` is above this node's HW (which then becomes `new`).
    fn raise_hw(&mut self, new: Offset) -> bool {
        if self.hw.map(|h| new <= h).unwrap_or(false) {
            return false;
        }
        self.hw = Some(new);
        true
    }

    fn apply_committed(&mut self, ctx: &mut Ctx) {
        let Some(hw) = self.hw else { return };
        let target = hw.min(self.log.end_offset());
        while self.image.applied_offset < target {
            let Some(r) = self.log.get(self.image.applied_offset) else {
                break;
            };
            r.apply_to(&mut self.image);
        }
        self.maybe_snapshot(ctx);
    }
}
