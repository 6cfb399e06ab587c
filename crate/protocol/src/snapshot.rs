//! Snapshots: FetchSnapshot at both ends, taking a snapshot as committed records are
//! applied, and the periodic log cleaner that deletes old ones.

use super::config::LOG_CLEANER_INTERVAL_MS;
use super::io::{Ctx, Note};
use super::log::Retention;
use super::record::NodeId;
use super::replica::Replica;
use super::replica_key::ReplicaKey;
use super::rpc::{ErrorCode, FetchSnapshotRequest, FetchSnapshotResponse, Snapshot, SnapshotId, BOOTSTRAP_SNAPSHOT_ID};
use std::sync::Arc;

impl Replica {
    /// Kafka's handleFetchSnapshotRequest: the next chunk, the whole snapshot with the last.
    pub(super) fn handle_fetch_snapshot_request(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        req: FetchSnapshotRequest,
    ) -> FetchSnapshotResponse {
        let FetchSnapshotRequest { current_leader_epoch, replica_directory, snapshot_id: id, position, max_bytes } =
            req;
        let base = FetchSnapshotResponse {
            error: ErrorCode::None,
            hint: self.hint(),
            snapshot_id: id,
            size: 0,
            position,
            chunk_bytes: 0,
            snapshot: None,
        };
        if let Err(error) = self.check_leader_request(current_leader_epoch) {
            return FetchSnapshotResponse { error, ..base };
        }
        // The bootstrap checkpoint is never served (KafkaRaftClient.handleFetchSnapshotRequest).
        let Some(snap) = self.log.snapshot_by_id(id).filter(|_| id != BOOTSTRAP_SNAPSHOT_ID).cloned() else {
            return FetchSnapshotResponse { error: ErrorCode::SnapshotNotFound, ..base };
        };
        if position > snap.size_bytes {
            return FetchSnapshotResponse { error: ErrorCode::InvalidRequest, size: snap.size_bytes, ..base };
        }
        if let Some(l) = self.state.as_leader_mut() {
            l.record_voter_fetch(ReplicaKey::new(from, replica_directory), ctx.now, &self.config);
        }
        // The fetcher's fetch.snapshot.max.bytes bounds the chunk (handleFetchSnapshotRequest).
        let chunk_bytes = (snap.size_bytes - position).min(max_bytes);
        let last = position + chunk_bytes >= snap.size_bytes;
        let size = snap.size_bytes;
        FetchSnapshotResponse { size, chunk_bytes, snapshot: if last { Some(Box::new(snap)) } else { None }, ..base }
    }

    /// Kafka's handleFetchSnapshotResponse: the next chunk, and once all is there the
    /// snapshot replaces the log.
    pub(super) fn handle_fetch_snapshot_response(
        &mut self,
        ctx: &mut Ctx,
        from: NodeId,
        response: FetchSnapshotResponse,
    ) {
        let FetchSnapshotResponse { error, hint, snapshot_id: id, size, position, chunk_bytes: chunk, snapshot } =
            response;
        if error == ErrorCode::SnapshotNotFound {
            // Drop the partial snapshot and go back to fetching (counts as success).
            if let Some(f) = self.state.as_follower_mut() {
                f.snapshot_download = None;
                f.fetch_deadline = ctx.now + self.config.fetch_timeout_ms;
                f.has_fetched = true;
            }
            return;
        }
        if self.handled_by_epoch(ctx, error, hint, from) {
            return;
        }
        let Some(f) = self.state.as_follower_mut() else {
            return;
        };
        f.fetch_deadline = ctx.now + self.config.fetch_timeout_ms;
        f.has_fetched = true;
        let Some(download) = f.snapshot_download.as_mut().filter(|d| d.id == id && d.position == position) else {
            return;
        };
        download.position = position + chunk;
        if download.position < size {
            return;
        }
        f.snapshot_download = None;
        let Some(snapshot) = snapshot else { return };
        let from_leo = self.log.end_offset();
        self.image = (*snapshot.image).clone();
        self.log.reset_to_snapshot(*snapshot);
        self.history.reload(&self.log);
        ctx.note(Note::SnapshotFetched { id });
        ctx.note(Note::SnapshotLoaded { id });
        if from_leo > id.end_offset {
            ctx.note(Note::Truncated { from_leo, to: id.end_offset, diverging_epoch: None, hw: self.hw });
        }
        self.set_hw(ctx, id.end_offset);
    }

    /// Kafka's SnapshotGenerator.publishLogDelta, checked as committed records are
    /// applied: a snapshot once `snapshot_interval` records were applied since the last
    /// one (the simulator's stand-in for `metadata.log.max.record.bytes.between.snapshots`),
    /// or once `metadata.log.max.snapshot.interval.ms` has passed. Taking it leaves the log
    /// start where it is; only the cleaner moves it.
    pub(super) fn maybe_snapshot(&mut self, ctx: &mut Ctx) {
        if self.snapshot_interval == 0 {
            return;
        }
        let last_end = self.log.snapshot().map(|s| s.id.end_offset).unwrap_or(0);
        let end = self.image.applied_offset;
        if end <= last_end {
            return;
        }
        let interval_ms = self.config.snapshot_max_interval_ms;
        let by_size = end - last_end >= self.snapshot_interval;
        let by_time = interval_ms > 0 && ctx.now - self.last_snapshot_ms >= interval_ms;
        if !by_size && !by_time {
            return;
        }
        let Some(epoch) = self.log.epoch_at(end - 1) else {
            return;
        };
        let image = Arc::new(self.image.clone());
        let size_bytes = image.size_bytes();
        let id = SnapshotId { end_offset: end, epoch };
        // KafkaRaftClient.createSnapshot embeds the control state at the last contained
        // offset, and trims the history to what later snapshots may still need.
        let kraft_version = self.history.kraft_version_at(end - 1);
        let voters = self.history.voter_set_at(end - 1).cloned();
        let snapshot = Snapshot { id, image, size_bytes, last_contained_log_ms: ctx.now, kraft_version, voters };
        self.log.add_snapshot(snapshot);
        self.history.truncate_old_entries(end);
        self.last_snapshot_ms = ctx.now;
        ctx.note(Note::SnapshotTaken { id });
    }

    /// The periodic log cleaner (KafkaRaftClient.poll runs RaftMetadataLogCleanerManager,
    /// which calls KafkaMetadataLog.maybeClean every 60 s).
    pub(super) fn maybe_clean(&mut self, ctx: &mut Ctx) {
        if ctx.now < self.clean_deadline {
            return;
        }
        self.clean_deadline = ctx.now + LOG_CLEANER_INTERVAL_MS;
        let retention = Retention { max_bytes: self.config.retention_max_bytes, max_ms: self.config.retention_max_ms };
        for id in self.log.clean(ctx.now, &retention) {
            ctx.note(Note::SnapshotDeleted { id });
        }
    }
}
