//! One replica's log: records with (offset, epoch), the epoch cache, the flush point
//! and the snapshot that stands in for the prefix below the log start.

use super::record::{Epoch, Offset, Record};
use super::rpc::{Snapshot, SnapshotId};
use crate::shared::{Holder, Meter, Metering, SharedVec};

/// What the memory budget counts for one record held in a log (the record and a share
/// of the names it points to).
pub const RECORD_BYTES: u64 = 80;

/// A clone shares the records (see `shared`): the crash copy, the checkpoints and the
/// live log hold one copy of each record between them.
#[derive(Clone, Debug, Default)]
pub struct ReplicaLog {
    /// First offset held as records; equals the snapshot's end offset when one exists.
    start_offset: Offset,
    records: SharedVec<Record>,
    /// Epoch cache: (epoch, start offset of that epoch), ascending in both.
    epochs: Vec<(Epoch, Offset)>,
    /// Offsets below this are on disk; a crash keeps only them.
    flushed: Offset,
    snapshot: Option<Snapshot>,
    /// Records that local snapshots compacted away during the replica's current step,
    /// kept until the world has checked that step's events: the checker sees the log as
    /// the step left it, yet must see records exposed and compacted within the step.
    compacted: Vec<Record>,
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
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.snapshot.as_ref()
    }
    pub fn epoch_cache(&self) -> &[(Epoch, Offset)] {
        &self.epochs
    }

    /// The epoch of the last record (or of the snapshot when there are none); 0 when empty.
    pub fn last_epoch(&self) -> Epoch {
        match self.records.last() {
            Some(r) => r.epoch,
            None => self.snapshot.as_ref().map(|s| s.id.epoch).unwrap_or(0),
        }
    }

    /// The records local snapshots compacted away during the current step, in order.
    pub fn compacted(&self) -> &[Record] {
        &self.compacted
    }

    /// The step's events are checked: compacted records are gone for good.
    pub fn forget_compacted(&mut self) {
        self.compacted.clear();
    }

    pub fn get(&self, offset: Offset) -> Option<&Record> {
        if offset < self.start_offset {
            return None;
        }
        self.records.get((offset - self.start_offset) as usize)
    }

    /// Epoch of the record at `offset`; for `start - 1` the snapshot's epoch.
    pub fn epoch_at(&self, offset: Offset) -> Option<Epoch> {
        if let Some(r) = self.get(offset) {
            return Some(r.epoch);
        }
        match &self.snapshot {
            Some(s) if offset + 1 == s.id.end_offset => Some(s.id.epoch),
            _ => None,
        }
    }

    /// Appends records that continue the log exactly. Returns false (and appends
    /// nothing) when the first record is not at the log end.
    pub fn append(&mut self, records: &[Record]) -> bool {
        let Some(first) = records.first() else {
            return true;
        };
        if first.offset != self.end_offset() {
            return false;
        }
        for r in records {
            debug_assert_eq!(r.offset, self.end_offset());
            if self.epochs.last().map(|(e, _)| *e != r.epoch).unwrap_or(true) {
                debug_assert!(self.epochs.last().map(|(e, _)| *e < r.epoch).unwrap_or(true));
                self.epochs.push((r.epoch, r.offset));
            }
            self.records.push(r.clone());
        }
        true
    }

    /// Removes every record at or above `offset`. Returns how many were removed.
    pub fn truncate_to(&mut self, offset: Offset) -> u64 {
        let offset = offset.max(self.start_offset);
        if offset >= self.end_offset() {
            return 0;
        }
        let removed = self.end_offset() - offset;
        self.records.truncate((offset - self.start_offset) as usize);
        self.epochs.retain(|(_, s)| *s < offset);
        if self.records.is_empty() {
            self.epochs = self.snapshot.iter().map(|s| (s.id.epoch, s.id.end_offset)).collect();
        }
        self.flushed = self.flushed.min(offset);
        removed
    }

    /// Marks everything below `offset` as on disk.
    pub fn mark_flushed(&mut self, offset: Offset) {
        self.flushed = self.flushed.max(offset.min(self.end_offset()));
    }

    /// What survives a crash: the flushed prefix.
    pub fn durable_copy(&self) -> ReplicaLog {
        let mut copy = self.clone();
        copy.truncate_to(self.flushed);
        copy.forget_compacted();
        copy
    }

    /// Kafka's `endOffsetForEpoch`: the end offset of the largest epoch <= `epoch`,
    /// with that epoch. (0, 0) when no such epoch is known.
    pub fn end_offset_for_epoch(&self, epoch: Epoch) -> (Offset, Epoch) {
        let idx = self.epochs.partition_point(|(e, _)| *e <= epoch);
        if idx == 0 {
            return match &self.snapshot {
                Some(s) if s.id.epoch <= epoch => (s.id.end_offset, s.id.epoch),
                _ => (0, 0),
            };
        }
        let (found, _) = self.epochs[idx - 1];
        let end = self.epochs.get(idx).map(|(_, start)| *start).unwrap_or(self.end_offset());
        (end, found)
    }

    /// The leader's check of a follower's position (the order of Kafka's
    /// `validateOffsetAndEpoch`): snapshot redirects first, then divergence.
    pub fn validate_fetch(&self, fetch_offset: Offset, last_fetched_epoch: Epoch) -> FetchPosition {
        if let Some(s) = &self.snapshot {
            if fetch_offset == 0 && s.id.end_offset > 0 {
                return FetchPosition::Snapshot(s.id);
            }
            let below_start = fetch_offset < self.start_offset;
            let at_start_other_epoch = fetch_offset == self.start_offset && last_fetched_epoch != s.id.epoch;
            let older_than_snapshot = last_fetched_epoch < s.id.epoch;
            if below_start || at_start_other_epoch || older_than_snapshot {
                return FetchPosition::Snapshot(s.id);
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

    /// Stores a snapshot taken locally (at or below the HW) and drops the records it
    /// covers, moving the log start up to it.
    pub fn install_local_snapshot(&mut self, snapshot: Snapshot) {
        let end = snapshot.id.end_offset;
        debug_assert!(end <= self.end_offset() && end >= self.start_offset);
        let drop = (end - self.start_offset) as usize;
        self.compacted.extend(self.records.iter().take(drop).cloned());
        self.records.drop_front(drop);
        self.start_offset = end;
        // The snapshot's epoch starts the cache; the epoch of the first kept record
        // (if different) starts at the new log start too.
        let mut epochs = vec![(snapshot.id.epoch, end)];
        if !self.records.is_empty() {
            let idx = self.epochs.partition_point(|(_, s)| *s <= end);
            if idx > 0 && self.epochs[idx - 1].0 != snapshot.id.epoch {
                epochs.push((self.epochs[idx - 1].0, end));
            }
            epochs.extend_from_slice(&self.epochs[idx..]);
        }
        self.epochs = epochs;
        self.flushed = self.flushed.max(end);
        self.snapshot = Some(snapshot);
    }

    /// Replaces the whole log with a snapshot fetched from the leader.
    pub fn reset_to_snapshot(&mut self, snapshot: Snapshot) {
        self.start_offset = snapshot.id.end_offset;
        self.records.clear();
        self.epochs = vec![(snapshot.id.epoch, snapshot.id.end_offset)];
        self.flushed = snapshot.id.end_offset;
        self.snapshot = Some(snapshot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::record::RecordBody;

    pub fn log_with_epochs(epochs: &[Epoch]) -> ReplicaLog {
        let mut log = ReplicaLog::default();
        let records: Vec<Record> = epochs
            .iter()
            .enumerate()
            .map(|(i, &e)| Record {
                offset: i as u64,
                epoch: e,
                id: i as u64,
                body: RecordBody::RegisterBroker { broker_id: 0 },
            })
            .collect();
        assert!(log.append(&records));
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

    #[test]
    fn crash_keeps_only_flushed_prefix() {
        let mut log = log_with_epochs(&[1, 1, 1, 2]);
        log.mark_flushed(2);
        let durable = log.durable_copy();
        assert_eq!(durable.end_offset(), 2);
        assert_eq!(durable.flushed_offset(), 2);
    }
}
