//! Fetch at both ends. At the leader (KafkaRaftClient.handleFetchRequest): validate the
//! position, count the fetch, answer at once or park it until records or a HW move arrive.
//! At the follower (handleFetchResponse): truncate on divergence, start a snapshot
//! download, or append, and for a voter flush before the leader's HW takes effect.

use super::config::SafetySwitch;
use super::io::{Ctx, Note, Output, Wake};
use super::leader::ParkedFetch;
use super::log::FetchPosition;
use super::record::{Epoch, MetadataImage, NodeId, Offset, Record};
use super::replica::AwaitingFlush;
use super::replica::Replica;
use super::replica_key::ReplicaKey;
use super::rpc::{DivergingEpoch, ErrorCode, FetchRedirect, FetchRequest, FetchResponse, Message};
use super::state::SnapshotDownload;

impl Replica {
    // ---- at the follower: the request -------------------------------------------------

    pub(super) fn fetch_request(&self, epoch: Epoch) -> Message {
        Message::Fetch(FetchRequest {
            current_leader_epoch: epoch,
            replica_directory: self.log.directory_id(),
            fetch_offset: self.log.end_offset(),
            last_fetched_epoch: self.log.last_epoch(),
            high_watermark: self.hw,
            max_wait_ms: self.config.fetch_max_wait_ms,
            max_bytes: self.config.fetch_max_bytes,
        })
    }

    // ---- at the leader ------------------------------------------------------------------

    /// Epoch checks shared by Fetch and FetchSnapshot; Err is the error to answer with.
    pub(super) fn check_leader_request(&self, epoch: Epoch) -> Result<(), ErrorCode> {
        if epoch < self.epoch() {
            return Err(ErrorCode::FencedLeaderEpoch);
        }
        if epoch > self.epoch() {
            // The fetcher knows a newer epoch than we do; we learn it from it only through
            // the responses of the real leader, so just refuse.
            return Err(ErrorCode::UnknownLeaderEpoch);
        }
        if self.state.as_leader().is_none() {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        Ok(())
    }

    pub(crate) fn fetch_error_response(&self, error: ErrorCode) -> FetchResponse {
        FetchResponse { error, high_watermark: None, ..self.fetch_response(Vec::new()) }
    }

    /// A successful Fetch response carrying `records` and the leader's HW.
    fn fetch_response(&self, records: Vec<Record>) -> FetchResponse {
        FetchResponse {
            error: ErrorCode::None,
            hint: self.hint(),
            high_watermark: self.leader_state().and_then(|l| l.high_watermark),
            log_start_offset: self.log.start_offset(),
            records,
            redirect: None,
        }
    }

    /// Kafka's handleFetchRequest: answers at once, or parks the fetch in the purgatory
    /// (None) until records arrive, the HW moves or `max_wait_ms` passes.
    pub(super) fn handle_fetch_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        correlation: u64,
        req: FetchRequest,
    ) -> Option<FetchResponse> {
        if let Err(error) = self.check_leader_request(req.current_leader_epoch) {
            return Some(self.fetch_error_response(error));
        }
        let fetch_offset = req.fetch_offset;
        match self.log.validate_fetch(fetch_offset, req.last_fetched_epoch) {
            FetchPosition::Diverging { epoch, end_offset } => {
                let redirect = Some(Box::new(FetchRedirect::Diverging(DivergingEpoch { epoch, end_offset })));
                return Some(FetchResponse { redirect, ..self.fetch_response(Vec::new()) });
            }
            FetchPosition::Snapshot(id) => {
                let redirect = Some(Box::new(FetchRedirect::Snapshot(id)));
                return Some(FetchResponse { redirect, ..self.fetch_response(Vec::new()) });
            }
            FetchPosition::Valid => {}
        }
        let leo = self.log.end_offset();
        let key = ReplicaKey::new(from, req.replica_directory);
        let l = self.state.as_leader_mut().expect("a leader: checked above");
        l.update_follower(key, fetch_offset, leo, ctx.now);
        l.record_voter_fetch(key, ctx.now, &self.config);
        // A fetch already in the purgatory for this replica is superseded.
        l.parked.retain(|p| p.from != from);
        self.maybe_advance_leader_hw(ctx);
        let leader_hw = self.leader_state().and_then(|l| l.high_watermark);
        let behind_hw = match (req.high_watermark, leader_hw) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(f), Some(h)) => f < h,
        };
        if fetch_offset < leo || req.max_wait_ms == 0 || behind_hw {
            return Some(self.fetch_records_response(fetch_offset, req.max_bytes));
        }
        // Parked at the log end: there is nothing to read.
        let response = self.fetch_response(Vec::new());
        let l = self.state.as_leader_mut().expect("a leader: checked above");
        l.parked.push(ParkedFetch {
            from,
            correlation,
            fetch_offset,
            max_bytes: req.max_bytes,
            deadline: ctx.now + req.max_wait_ms,
            expiry_response: response,
        });
        None
    }

    fn fetch_records_response(&self, fetch_offset: Offset, max_bytes: u64) -> FetchResponse {
        self.fetch_response(self.read_records(fetch_offset, max_bytes))
    }

    /// Records from `offset` on, as many as fit in `max_bytes` but at least one (Kafka's
    /// log read returns at least one batch, however large).
    fn read_records(&self, offset: Offset, max_bytes: u64) -> Vec<Record> {
        let (mut count, mut bytes) = (0u64, 0u64);
        while let Some(r) = self.log.get(offset + count) {
            bytes += r.size_bytes();
            if count > 0 && bytes > max_bytes {
                break;
            }
            count += 1;
        }
        self.log.read(offset, count as usize)
    }

    /// Answers every parked fetch now (new records arrived or the HW moved).
    pub(super) fn complete_parked_fetches(&mut self, ctx: &mut Ctx) {
        let Some(l) = self.state.as_leader_mut() else {
            return;
        };
        let mut parked = std::mem::take(&mut l.parked);
        for p in parked.drain(..) {
            let m = self.fetch_records_response(p.fetch_offset, p.max_bytes);
            ctx.send(self.id, p.from, p.correlation, Message::FetchResponse(m));
        }
        // Hand the emptied buffer back, so the next park does not allocate one.
        if let Some(l) = self.state.as_leader_mut() {
            l.parked = parked;
        }
    }

    /// The expiry timer of parked fetches, the one input a replica blocked in a flush
    /// takes: it runs on its own thread in Kafka (the purgatory's). Answers with the next
    /// expiry, the only timer that runs until the flush is done.
    pub fn expire_parked_fetches(&mut self, ctx: &mut Ctx) -> Wake {
        self.answer_expired_fetches(ctx);
        Wake(self.next_parked_expiry())
    }

    /// Answers each parked fetch whose wait is over with what was true when it was parked.
    pub(crate) fn answer_expired_fetches(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let Some(l) = self.state.as_leader_mut() else {
            return;
        };
        let now = ctx.now;
        if l.parked.iter().all(|p| p.deadline > now) {
            return; // the common case, on every poll
        }
        let mut expired = Vec::new();
        l.parked.retain(|p| {
            if p.deadline <= now {
                expired.push((p.from, p.correlation, p.expiry_response.clone()));
                false
            } else {
                true
            }
        });
        for (to, corr, response) in expired {
            ctx.send(me, to, corr, Message::FetchResponse(response));
        }
    }

    // ---- at the follower: the response ------------------------------------------------

    /// Kafka's handleFetchResponse: truncate, start a snapshot download, or append (and
    /// for a voter flush before the leader's HW takes effect).
    pub(super) fn handle_fetch_response(&mut self, ctx: &mut Ctx, from: NodeId, response: FetchResponse) {
        let FetchResponse { error, hint, high_watermark: leader_hw, records, redirect, .. } = response;
        if self.handled_by_epoch(ctx, error, hint, from) {
            return;
        }
        let Some(f) = self.state.as_follower_mut() else {
            return;
        };
        if f.leader != from {
            return;
        }
        f.fetch_deadline = ctx.now + self.config.fetch_timeout_ms;
        f.has_fetched = true;
        match redirect.as_deref() {
            Some(FetchRedirect::Diverging(d)) => return self.truncate_on_divergence(ctx, *d),
            Some(FetchRedirect::Snapshot(id)) => {
                f.snapshot_download = Some(SnapshotDownload { id: *id, position: 0 });
                return;
            }
            None => {}
        }
        // appendAsFollower asks whether this replica is a voter before the appended records
        // are read into the voter history: an observer appending the VotersRecord that adds
        // it does not flush that append, unless it is a controller that always flushes
        // (followersAlwaysFlush: "some observers (that are getting added to the voter set)
        // need to flush the disk because the leader may assume that they are in the set").
        let voter = !records.is_empty() && (self.is_voter() || self.followers_always_flush);
        let appended = match (records.first(), records.last()) {
            (Some(first), Some(last)) => {
                let (first, last, epoch, kind) = (first.offset, last.offset, last.epoch, first.body.kind());
                // The log takes the response's records (no copy).
                let appended = self.log.append(records);
                if appended {
                    ctx.note(Note::Appended { first, last, epoch, kind });
                    self.history.update(&self.log);
                }
                appended
            }
            _ => false,
        };
        let leo = self.log.end_offset();
        // appendAsFollower flushes only for a voter (or a controller that always flushes): the
        // leader counts a voter's fetch offset toward the HW. A broker observer's appends stay
        // unflushed (a crash loses them).
        let flush = appended && voter;
        if flush && !self.switches.has(SafetySwitch::AckBeforeFlush) {
            self.awaiting_flush = Some(AwaitingFlush { up_to: leo, leader_hw });
            ctx.out.push(Output::Flush { up_to: leo });
            return;
        }
        if let Some(h) = leader_hw {
            self.set_hw(ctx, h.min(leo));
        }
        if flush {
            // Unsafe: report the offset first, flush afterwards.
            self.send_requests(ctx);
            ctx.out.push(Output::Flush { up_to: leo });
        }
    }

    /// Truncates to where our log and the leader's agree, as far as this round can tell.
    fn truncate_on_divergence(&mut self, ctx: &mut Ctx, d: DivergingEpoch) {
        let to = if d.epoch == 0 {
            d.end_offset.min(self.log.end_offset())
        } else {
            match self.log.end_offset_for_epoch(d.epoch) {
                (own_end, e) if e == d.epoch => own_end.min(d.end_offset),
                (own_end, _) => own_end,
            }
        };
        let from_leo = self.log.end_offset();
        if self.log.truncate_to(to) > 0 {
            // The log never truncates into its snapshot: it stops at the snapshot's end.
            let to = self.log.end_offset();
            // An uncommitted voter change in the truncated suffix rolls back.
            self.history.truncate_new_entries(to);
            if self.image.applied_offset > to {
                // Applied state past the truncation point was built from records now gone;
                // only possible when a record below our HW was truncated (reported).
                self.image = self
                    .log
                    .snapshot()
                    .map(|s| (*s.image).clone())
                    .unwrap_or_else(|| MetadataImage::new(self.log.meter()));
            }
            ctx.note(Note::Truncated { from_leo, to, diverging_epoch: Some(d.epoch), hw: self.hw });
        }
    }

    pub(super) fn flush_done(&self) -> bool {
        self.awaiting_flush.map(|a| self.log.flushed_offset() >= a.up_to).unwrap_or(false)
    }

    /// The raft thread returns from a follower append's flush: only now does the HW the
    /// leader sent take effect (KafkaRaftClient.handleFetchResponse: appendAsFollower,
    /// which flushes for a voter, then updateFollowerHighWatermark).
    pub(super) fn finish_follower_append(&mut self, ctx: &mut Ctx) {
        if !self.flush_done() {
            return;
        }
        let Some(done) = self.awaiting_flush.take() else { return };
        if let (Some(_), Some(h)) = (self.state.as_follower(), done.leader_hw) {
            let new = h.min(self.log.end_offset());
            self.set_hw(ctx, new);
        }
    }
}
