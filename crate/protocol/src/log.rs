//! One replica's log: records with (offset, epoch), the epoch cache, the flush point
//! and the snapshots, the earliest of which stands in for the prefix below the log start.
//! Taking a snapshot keeps the records; only retention (`clean`) moves the log start.

use super::record::{Epoch, MetadataImage, Offset, Record};
use super::replica_key::DirectoryId;
use super::rpc::{Snapshot, SnapshotId, BOOTSTRAP_SNAPSHOT_ID};
use super::voters::{KRaftVersion, VoterSet};
use kraft_base::shared::{Holder, Meter, Metering, SharedVec};
use std::sync::Arc;

pub use kraft_boundary::record::RECORD_BYTES;

/// A clone shares the records (see `shared`): the crash copy, the checkpoints and the
/// live log hold one copy of each record between them.
#[derive(Clone, Debug, Default)]
pub struct ReplicaLog {
    /// First offset held as records: 0, or the end offset of the earliest snapshot.
    start_offset: Offset,
    records: SharedVec<Record>,
    /// The records' bytes (`Record::size_bytes`), kept as they come and go: retention
    /// reads it on every clean, which walked the whole log before.
    bytes: u64,
    /// Epoch cache: (epoch, start offset of that epoch), ascending in both.
    epochs: Vec<(Epoch, Offset)>,
    /// Offsets below this are on disk; a crash keeps only them.
    flushed: Offset,
    /// Snapshots held, ascending by id (Kafka's `KafkaMetadataLog.snapshots`).
    snapshots: Vec<Snapshot>,
    /// Records that cleaning compacted away during the replica's current step,
    /// kept until the world has checked that step's events: the checker sees the log as
    /// the step left it, yet must see records exposed and compacted within the step.
    compacted: Vec<Record>,
    /// The `directory.id` in this log directory's meta.properties; `None` for the disks
    /// the simulator formats for static quorums, where nothing reads it.
    directory_id: Option<DirectoryId>,
}

/// Result of checking a follower's (fetchOffset, lastFetchedEpoch) against this log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchPosition {
    Valid,
    Diverging { epoch: Epoch, end_offset: Offset },
    Snapshot(SnapshotId),
}

impl ReplicaLog {
    /// An empty log whose records are counted on `meter`.
    pub fn new(meter: &Meter) -> ReplicaLog {
        ReplicaLog { records: SharedVec::new(Metering::new(meter, Holder::Logs, RECORD_BYTES)), ..Default::default() }
    }
    /// `kafka-storage.sh format`: an empty log directory with this directory id and, for a
    /// dynamic quorum (`--standalone`, `--initial-controllers`), the bootstrap checkpoint
    /// 0-0.checkpoint holding kraft.version 1 and the initial voters
    /// (Formatter.writeDynamicQuorumSnapshot); `None` for `--no-initial-controllers`.
    pub fn format(meter: &Meter, directory_id: DirectoryId, initial_voters: Option<VoterSet>) -> ReplicaLog {
        let mut log = ReplicaLog { directory_id: Some(directory_id), ..ReplicaLog::new(meter) };
        if let Some(voters) = initial_voters {
            let image = Arc::new(MetadataImage::new(meter));
            log.snapshots.push(Snapshot {
                id: BOOTSTRAP_SNAPSHOT_ID,
                size_bytes: image.size_bytes(),
                image,
                last_contained_log_ms: 0,
                kraft_version: KRaftVersion::V1,
                voters: Some(voters),
            });
        }
        log
    }
    pub fn directory_id(&self) -> Option<DirectoryId> {
        self.directory_id
    }
    /// Gives a disk formatted without one this directory id (a disk keeps the one it has).
    pub fn format_directory_id(&mut self, directory_id: DirectoryId) {
        self.directory_id = self.directory_id.or(Some(directory_id));
    }
    /// The meter this log's records are counted on (the image built from it uses it too).
    pub fn meter(&self) -> &Meter {
        &self.records.metering().meter
    }
    pub fn start_offset(&self) -> Offset {
        self.start_offset
    }
    /// Log end offset (LEO): the offset the next record will get.
    pub fn end_offset(&self) -> Offset {
        self.start_offset + self.records.len() as u64
    }
    pub fn flushed_offset(&self) -> Offset {
        self.flushed
    }
    pub fn records(&self) -> impl Iterator<Item = &Record> + '_ {
        self.records.iter()
    }
    /// The latest snapshot: what a fetcher is redirected to and what a restart loads.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.snapshots.last()
    }
    /// The earliest snapshot: the one at the log start once the log has been cleaned.
    pub fn earliest_snapshot(&self) -> Option<&Snapshot> {
        self.snapshots.first()
    }
    pub fn snapshots(&self) -> &[Snapshot] {
        &self.snapshots
    }
    /// The snapshot with this id, if still held (Kafka's `readSnapshot`).
    pub fn snapshot_by_id(&self, id: SnapshotId) -> Option<&Snapshot> {
        self.snapshots.iter().find(|s| s.id == id)
    }
    pub fn epoch_cache(&self) -> &[(Epoch, Offset)] {
        &self.epochs
    }

    /// The epoch of the last record (or of the snapshot when there are none); 0 when empty.
    pub fn last_epoch(&self) -> Epoch {
        match self.records.last() {
            Some(r) => r.epoch,
            None => self.snapshot().map(|s| s.id.epoch).unwrap_or(0),
        }
    }

    /// The records cleaning compacted away during the current step, in order.
    pub fn compacted(&self) -> &[Record] {
        &self.compacted
    }

    /// The step's events are checked: compacted records are gone for good.
    pub fn forget_compacted(&mut self) {
        self.compacted.clear();
    }

    /// The records from `offset` on (none below the log start), as the slices they are
    /// stored in.
    pub fn record_slices_from(&self, offset: Offset) -> impl Iterator<Item = &[Record]> + '_ {
        let from = offset.max(self.start_offset) - self.start_offset;
        self.records.slices_from(from as usize)
    }

    pub fn get(&self, offset: Offset) -> Option<&Record> {
        if offset < self.start_offset {
            return None;
        }
        self.records.get((offset - self.start_offset) as usize)
    }

    /// Epoch of the record at `offset`; for `start - 1` the earliest snapshot's epoch.
    pub fn epoch_at(&self, offset: Offset) -> Option<Epoch> {
        if let Some(r) = self.get(offset) {
            return Some(r.epoch);
        }
        match self.earliest_snapshot() {
            Some(s) if offset + 1 == s.id.end_offset => Some(s.id.epoch),
            _ => None,
        }
    }

    /// Appends records that continue the log exactly. Returns false (and appends
    /// nothing) when the first record is not at the log end.
    pub fn append(&mut self, records: Vec<Record>) -> bool {
        let Some(first) = records.first() else {
            return true;
        };
        if first.offset != self.end_offset() {
            return false;
        }
        for (i, r) in records.iter().enumerate() {
            debug_assert_eq!(r.offset, self.end_offset() + i as u64);
            if self.epochs.last().map(|(e, _)| *e != r.epoch).unwrap_or(true) {
                debug_assert!(self.epochs.last().map(|(e, _)| *e < r.epoch).unwrap_or(true));
                self.epochs.push((r.epoch, r.offset));
            }
            self.bytes += r.size_bytes();
        }
        self.records.extend(records);
        true
    }

    /// Removes every record at or above `offset` (never below the log start). Snapshots
    /// past the new end describe records that are gone and go too; that happens only
    /// when a record below the HW is truncated, which only unsafe mode allows (Kafka's
    /// `KafkaMetadataLog.truncateTo` refuses it). Returns how many records were removed.
    pub fn truncate_to(&mut self, offset: Offset) -> u64 {
        let offset = offset.max(self.start_offset);
        self.snapshots.retain(|s| s.id.end_offset <= offset);
        self.truncate_records(offset)
    }

    /// Removes the records at or above `offset` (at least the log start).
    fn truncate_records(&mut self, offset: Offset) -> u64 {
        if offset >= self.end_offset() {
            return 0;
        }
        let removed = self.end_offset() - offset;
        let keep = (offset - self.start_offset) as usize;
        self.bytes -= self.records.iter_from(keep).map(Record::size_bytes).sum::<u64>();
        self.records.truncate(keep);
        self.epochs.retain(|(_, s)| *s < offset);
        if self.records.is_empty() {
            self.epochs = self.earliest_snapshot().iter().map(|s| (s.id.epoch, s.id.end_offset)).collect();
        }
        self.flushed = self.flushed.min(offset);
        removed
    }

    /// Marks everything below `offset` as on disk.
    pub fn mark_flushed(&mut self, offset: Offset) {
        self.flushed = self.flushed.max(offset.min(self.end_offset()));
    }

    /// What survives a crash: the flushed prefix and the snapshots (written whole when
    /// taken). When the latest snapshot is past the surviving log, recovery starts the
    /// log at it (Kafka's `KafkaMetadataLog.truncateToLatestSnapshot`, run on startup).
    pub fn durable_copy(&self) -> ReplicaLog {
        let mut copy = self.clone();
        copy.forget_compacted();
        copy.truncate_records(self.flushed.max(self.start_offset));
        if let Some(latest) = copy.snapshot().cloned() {
            let log_epoch = copy.records.last().map(|r| r.epoch).unwrap_or(0);
            let ahead = latest.id.epoch > log_epoch
                || (latest.id.epoch == log_epoch && latest.id.end_offset > copy.end_offset());
            if ahead {
                copy.reset_to_snapshot(latest);
            }
        }
        copy
    }

    /// Kafka's `endOffsetForEpoch`: the end offset of the largest epoch <= `epoch`,
    /// with that epoch. (0, 0) when no such epoch is known.
    pub fn end_offset_for_epoch(&self, epoch: Epoch) -> (Offset, Epoch) {
        let idx = self.epochs.partition_point(|(e, _)| *e <= epoch);
        if idx == 0 {
            return match self.earliest_snapshot() {
                Some(s) if s.id.epoch <= epoch => (s.id.end_offset, s.id.epoch),
                _ => (0, 0),
            };
        }
        let (found, _) = self.epochs[idx - 1];
        let end = self.epochs.get(idx).map(|(_, start)| *start).unwrap_or(self.end_offset());
        (end, found)
    }

    /// The leader's check of a follower's position (the order of Kafka's
    /// `KafkaRaftClient.handleFetchRequest` then `ReplicatedLog.validateOffsetAndEpoch`):
    /// snapshot redirects first, then divergence. The conditions look at the earliest
    /// snapshot (the one at the log start); the redirect names the latest.
    pub fn validate_fetch(&self, fetch_offset: Offset, last_fetched_epoch: Epoch) -> FetchPosition {
        if let (Some(earliest), Some(latest)) = (self.earliest_snapshot(), self.snapshot()) {
            if fetch_offset == 0 && latest.id.end_offset > 0 {
                return FetchPosition::Snapshot(latest.id);
            }
            let below_start = fetch_offset < self.start_offset;
            let at_start_other_epoch = fetch_offset == self.start_offset && last_fetched_epoch != earliest.id.epoch;
            let older_than_snapshot = last_fetched_epoch < earliest.id.epoch;
            if below_start || at_start_other_epoch || older_than_snapshot {
                return FetchPosition::Snapshot(latest.id);
            }
        }
        if self.start_offset == 0 && fetch_offset == 0 {
            return FetchPosition::Valid;
        }
        let (end, epoch) = self.end_offset_for_epoch(last_fetched_epoch);
        if epoch != last_fetched_epoch || end < fetch_offset {
            return FetchPosition::Diverging { epoch, end_offset: end };
        }
        FetchPosition::Valid
    }

    /// Records from `offset` on, at most `max` of them.
    pub fn read(&self, offset: Offset, max: usize) -> Vec<Record> {
        if offset < self.start_offset || offset >= self.end_offset() {
            return Vec::new();
        }
        let from = (offset - self.start_offset) as usize;
        let mut out = Vec::with_capacity(max.min(self.records.len() - from));
        for slice in self.records.slices_from(from) {
            let take = (max - out.len()).min(slice.len());
            out.extend_from_slice(&slice[..take]);
            if out.len() == max {
                break;
            }
        }
        out
    }

    /// Stores a snapshot taken locally (at or below the HW). The records it covers stay:
    /// Kafka never moves the log start when it takes a snapshot, only when it cleans.
    pub fn add_snapshot(&mut self, snapshot: Snapshot) {
        debug_assert!(snapshot.id.end_offset <= self.end_offset() && snapshot.id.end_offset >= self.start_offset);
        debug_assert!(self.snapshot().map(|s| s.id < snapshot.id).unwrap_or(true));
        self.snapshots.push(snapshot);
    }

    /// Bytes the log's records take (Kafka's `log.size`), as the Fetch limits count them.
    pub fn size_bytes(&self) -> u64 {
        self.bytes
    }

    /// Retention (Kafka's `KafkaMetadataLog.maybeClean`): with more than one snapshot,
    /// walks them oldest first; while the oldest still held breaches retention (log plus
    /// snapshots over `retention_bytes`, or its last record older than `retention_ms`),
    /// it is dropped and the log start moves up to the next snapshot
    /// (`cleanSnapshots` / `deleteBeforeSnapshot`). The latest snapshot always stays.
    /// Returns the deleted snapshots, oldest first.
    pub fn clean(&mut self, now: u64, retention: &Retention) -> Vec<SnapshotId> {
        let mut deleted = Vec::new();
        // cleanSnapshotsRetentionSize: the total counts every snapshot, minus those dropped.
        let mut snapshot_bytes: u64 = self.snapshots.iter().map(|s| s.size_bytes).sum();
        let mut log_bytes = self.size_bytes();
        while self.snapshots.len() > 1 && log_bytes + snapshot_bytes > retention.max_bytes {
            snapshot_bytes -= self.snapshots[0].size_bytes;
            deleted.push(self.snapshots[0].id);
            log_bytes -= self.delete_before(self.snapshots[1].id.end_offset);
        }
        // cleanSnapshotsRetentionMs: by the time of the last record each snapshot contains.
        while self.snapshots.len() > 1 && now.saturating_sub(self.snapshots[0].last_contained_log_ms) > retention.max_ms
        {
            deleted.push(self.snapshots[0].id);
            self.delete_before(self.snapshots[1].id.end_offset);
        }
        deleted
    }

    /// Drops the oldest snapshot and moves the log start to `end`, the next snapshot's end;
    /// the dropped records are kept in `compacted` until the step is checked. Returns
    /// their bytes.
    fn delete_before(&mut self, end: Offset) -> u64 {
        let drop = (end - self.start_offset) as usize;
        let mut bytes = 0;
        for r in self.records.iter().take(drop) {
            bytes += r.size_bytes();
            self.compacted.push(r.clone());
        }
        self.records.drop_front(drop);
        self.bytes -= bytes;
        self.start_offset = end;
        self.snapshots.remove(0);
        let epoch = self.snapshots[0].id.epoch;
        // The snapshot's epoch starts the cache; the epoch of the first kept record
        // (if different) starts at the new log start too.
        let mut epochs = vec![(epoch, end)];
        if !self.records.is_empty() {
            let idx = self.epochs.partition_point(|(_, s)| *s <= end);
            if idx > 0 && self.epochs[idx - 1].0 != epoch {
                epochs.push((self.epochs[idx - 1].0, end));
            }
            epochs.extend_from_slice(&self.epochs[idx..]);
        }
        self.epochs = epochs;
        self.flushed = self.flushed.max(end);
        bytes
    }

    /// Replaces the whole log with a snapshot fetched from the leader (or one past the
    /// surviving log at recovery), forgetting older snapshots.
    pub fn reset_to_snapshot(&mut self, snapshot: Snapshot) {
        self.start_offset = snapshot.id.end_offset;
        self.records.clear();
        self.bytes = 0;
        self.epochs = vec![(snapshot.id.epoch, snapshot.id.end_offset)];
        self.flushed = snapshot.id.end_offset;
        self.snapshots = vec![snapshot];
    }
}

/// When the log may be cleaned: Kafka's `metadata.max.retention.bytes` and
/// `metadata.max.retention.ms`, with the simulator's scaled-down defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    pub max_bytes: u64,
    pub max_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{ClientRecord, RecordBody};

    pub fn log_with_epochs(epochs: &[Epoch]) -> ReplicaLog {
        let mut log = ReplicaLog::default();
        let records: Vec<Record> = epochs
            .iter()
            .enumerate()
            .map(|(i, &e)| Record {
                offset: i as u64,
                epoch: e,
                id: i as u64,
                body: RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 0 }),
            })
            .collect();
        assert!(log.append(records));
        log
    }

    #[test]
    fn end_offset_for_epoch_finds_largest_epoch_at_or_below() {
        let log = log_with_epochs(&[1, 1, 1, 4, 4, 5, 5, 6, 6, 6]);
        assert_eq!(log.end_offset_for_epoch(1), (3, 1));
        assert_eq!(log.end_offset_for_epoch(2), (3, 1));
        assert_eq!(log.end_offset_for_epoch(4), (5, 4));
        assert_eq!(log.end_offset_for_epoch(6), (10, 6));
        assert_eq!(log.end_offset_for_epoch(9), (10, 6));
        assert_eq!(log.end_offset_for_epoch(0), (0, 0));
    }

    #[test]
    fn truncation_rewinds_epoch_cache() {
        let mut log = log_with_epochs(&[1, 1, 2, 2, 3]);
        assert_eq!(log.truncate_to(3), 2);
        assert_eq!(log.last_epoch(), 2);
        assert_eq!(log.epoch_cache(), &[(1, 0), (2, 2)]);
        assert_eq!(log.truncate_to(2), 1);
        assert_eq!(log.epoch_cache(), &[(1, 0)]);
        assert_eq!(log.truncate_to(0), 2);
        assert_eq!(log.epoch_cache(), &[] as &[(Epoch, Offset)]);
        assert_eq!(log.last_epoch(), 0);
    }

    #[test]
    fn read_without_a_limit_returns_the_rest_of_the_log() {
        // `log(id, { from })` with no limit reads with usize::MAX; from + max wrapped.
        let log = log_with_epochs(&[1, 1, 2, 2, 3]);
        assert_eq!(log.read(2, usize::MAX).iter().map(|r| r.offset).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert_eq!(log.read(4, usize::MAX - 3).len(), 1);
    }

    fn snapshot_at(log: &ReplicaLog, end: Offset, taken_ms: u64) -> Snapshot {
        let image = std::sync::Arc::new(crate::record::MetadataImage::new(log.meter()));
        let id = SnapshotId { end_offset: end, epoch: log.epoch_at(end - 1).unwrap() };
        let (kraft_version, voters) = (KRaftVersion::V0, None);
        Snapshot { id, image, size_bytes: 100, last_contained_log_ms: taken_ms, kraft_version, voters }
    }

    const KEEP_ALL: Retention = Retention { max_bytes: u64::MAX, max_ms: u64::MAX };

    /// SnapshotGenerator only writes a snapshot; nothing on that path moves the log
    /// start (KafkaMetadataLog.createNewSnapshot / onSnapshotFrozen keep the segments).
    #[test]
    fn taking_a_snapshot_leaves_the_log_start() {
        let mut log = log_with_epochs(&[1, 1, 1, 2, 2, 2, 2, 2]);
        let s = snapshot_at(&log, 4, 0);
        log.add_snapshot(s);
        assert_eq!(log.start_offset(), 0);
        assert_eq!(log.end_offset(), 8);
        assert_eq!(log.snapshot().unwrap().id, SnapshotId { end_offset: 4, epoch: 2 });
        // A follower two records behind keeps fetching records.
        assert_eq!(log.validate_fetch(6, 2), FetchPosition::Valid);
        // ReplicatedLog.validateOffsetAndEpoch: a last fetched epoch older than the
        // earliest snapshot's is sent to the snapshot, even with the records still there.
        assert_eq!(log.validate_fetch(2, 1), FetchPosition::Snapshot(SnapshotId { end_offset: 4, epoch: 2 }));
        // Only a brand-new replica (fetch offset 0) is sent to the snapshot
        // (KafkaRaftClient.handleFetchRequest).
        assert_eq!(log.validate_fetch(0, 0), FetchPosition::Snapshot(SnapshotId { end_offset: 4, epoch: 2 }));
        assert!(log.compacted().is_empty());
    }

    /// KafkaMetadataLog.cleanSnapshots: nothing is cleaned with fewer than two snapshots,
    /// however far over retention the log is.
    #[test]
    fn cleaning_needs_more_than_one_snapshot() {
        let mut log = log_with_epochs(&[1; 10]);
        log.add_snapshot(snapshot_at(&log, 8, 0));
        assert!(log.clean(1_000_000, &Retention { max_bytes: 0, max_ms: 0 }).is_empty());
        assert_eq!(log.start_offset(), 0);
    }

    /// KafkaMetadataLog.cleanSnapshotsRetentionSize / deleteBeforeSnapshot: while the log
    /// plus the snapshots are over `metadata.max.retention.bytes`, the oldest snapshot goes
    /// and the log start moves to the next one, never past the latest snapshot.
    #[test]
    fn cleaning_by_size_moves_the_log_start_only_up_to_a_snapshot() {
        let mut log = log_with_epochs(&[1, 1, 1, 2, 2, 2, 2, 3, 3, 3]);
        for end in [3, 5, 8] {
            log.add_snapshot(snapshot_at(&log, end, 0));
        }
        assert!(log.clean(0, &KEEP_ALL).is_empty(), "under retention nothing is cleaned");
        assert_eq!(log.start_offset(), 0);
        let bytes = log.size_bytes() + 300;
        let deleted = log.clean(0, &Retention { max_bytes: bytes - 1, max_ms: u64::MAX });
        assert_eq!(deleted, vec![SnapshotId { end_offset: 3, epoch: 1 }]);
        assert_eq!(log.start_offset(), 5, "the oldest snapshot went; the start is the next one");
        assert_eq!(log.earliest_snapshot().unwrap().id.end_offset, 5);
        assert_eq!(log.compacted().iter().map(|r| r.offset).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        assert_eq!(log.epoch_cache(), &[(2, 5), (3, 7)]);
        assert_eq!(log.clean(0, &Retention { max_bytes: 0, max_ms: u64::MAX }).len(), 1);
        assert_eq!(log.start_offset(), 8, "at most up to the latest snapshot");
        assert_eq!(log.snapshots().len(), 1);
        assert_eq!(log.end_offset(), 10);
        // Far behind now: the follower at offset 2 is sent to the latest snapshot.
        assert_eq!(log.validate_fetch(2, 1), FetchPosition::Snapshot(SnapshotId { end_offset: 8, epoch: 3 }));
    }

    /// KafkaMetadataLog.cleanSnapshotsRetentionMs: a snapshot whose last record is older
    /// than `metadata.max.retention.ms` goes, with the records before the next snapshot.
    #[test]
    fn cleaning_by_age_drops_snapshots_older_than_retention() {
        let mut log = log_with_epochs(&[1; 10]);
        log.add_snapshot(snapshot_at(&log, 3, 1_000));
        log.add_snapshot(snapshot_at(&log, 6, 5_000));
        log.add_snapshot(snapshot_at(&log, 9, 9_000));
        let retention = Retention { max_bytes: u64::MAX, max_ms: 4_000 };
        assert!(log.clean(5_000, &retention).is_empty(), "no snapshot is older than 4 s yet");
        assert_eq!(log.clean(8_000, &retention).len(), 1);
        assert_eq!(log.start_offset(), 6, "the 1 s snapshot is past retention, the 5 s one not yet");
        assert_eq!(log.clean(60_000, &retention).len(), 1);
        assert_eq!(log.start_offset(), 9);
        assert!(log.clean(60_000, &retention).is_empty(), "the latest snapshot always stays");
    }

    /// KafkaMetadataLog.truncateToLatestSnapshot on startup: when the crash lost records
    /// the latest snapshot covers, the log restarts at that snapshot.
    #[test]
    fn a_crash_below_the_latest_snapshot_restarts_the_log_at_it() {
        let mut log = log_with_epochs(&[1, 1, 2, 2, 2]);
        log.mark_flushed(2);
        log.add_snapshot(snapshot_at(&log, 4, 0));
        let durable = log.durable_copy();
        assert_eq!((durable.start_offset(), durable.end_offset()), (4, 4));
        assert_eq!(durable.epoch_cache(), &[(2, 4)]);
        log.mark_flushed(5);
        let durable = log.durable_copy();
        assert_eq!((durable.start_offset(), durable.end_offset()), (0, 5), "flushed: the log stays whole");
    }

    /// The kept byte count is what walking the records gives, whatever changed the log.
    #[test]
    fn the_byte_count_follows_appends_truncations_cleaning_and_resets() {
        let walked = |log: &ReplicaLog| log.records().map(Record::size_bytes).sum::<u64>();
        let mut log = log_with_epochs(&[1, 1, 1, 2, 2, 2, 2, 3, 3, 3]);
        let topic = Record {
            offset: 10,
            epoch: 3,
            id: 10,
            body: RecordBody::Client(ClientRecord::CreateTopic { name: "t".into(), partitions: 3 }),
        };
        assert!(log.append(vec![topic]));
        assert_eq!(log.size_bytes(), walked(&log));
        assert!(log.size_bytes() > 0);
        log.truncate_to(9);
        assert_eq!(log.size_bytes(), walked(&log));
        for end in [3, 5, 8] {
            log.add_snapshot(snapshot_at(&log, end, 0));
        }
        assert_eq!(log.clean(0, &Retention { max_bytes: 0, max_ms: u64::MAX }).len(), 2);
        assert_eq!(log.size_bytes(), walked(&log));
        let durable = log.durable_copy();
        assert_eq!(durable.size_bytes(), walked(&durable));
        log.reset_to_snapshot(snapshot_at(&log, 9, 0));
        assert_eq!((log.size_bytes(), walked(&log)), (0, 0));
    }

    #[test]
    fn crash_keeps_only_flushed_prefix() {
        let mut log = log_with_epochs(&[1, 1, 1, 2]);
        log.mark_flushed(2);
        let durable = log.durable_copy();
        assert_eq!(durable.end_offset(), 2);
        assert_eq!(durable.flushed_offset(), 2);
    }
}
