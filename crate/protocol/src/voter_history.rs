//! The voter sets and kraft.versions a replica's log holds, by offset (Kafka's
//! KRaftControlRecordStateMachine with its VoterSetHistory and kraft.version history).
//! It reads the log UNCOMMITTED, as Kafka's does: a VotersRecord counts from the moment it
//! is appended, so the latest entry, committed or not, is the set that elections, the high
//! watermark, check-quorum and BeginQuorumEpoch use. Truncation rolls entries back; a
//! snapshot resets the history to the set it embeds; with no entry at all the static
//! `controller.quorum.voters` applies (kraft.version 0).

use super::ids::Offset;
use super::log::ReplicaLog;
use super::record::RecordBody;
use super::voters::{KRaftVersion, VoterSet};

/// Where an entry was read: the offset of its record, or `None` for Kafka's offset -1,
/// the bootstrap checkpoint (0-0.checkpoint) `format --standalone` and
/// `--initial-controllers` write, which comes before every record. A snapshot's entries
/// sit at its last contained offset.
pub type EntryOffset = Option<Offset>;

#[derive(Clone, Debug)]
pub struct VoterHistory {
    static_voters: VoterSet,
    /// (offset, set), ascending by offset.
    voter_sets: Vec<(EntryOffset, VoterSet)>,
    /// (offset, level), ascending by offset.
    kraft_versions: Vec<(EntryOffset, KRaftVersion)>,
    /// The next log offset to read (Kafka's nextOffset); `None` until the first update,
    /// which loads the latest snapshot first.
    next_offset: Option<Offset>,
}

impl VoterHistory {
    pub fn new(static_voters: VoterSet) -> VoterHistory {
        VoterHistory { static_voters, voter_sets: Vec::new(), kraft_versions: Vec::new(), next_offset: None }
    }

    /// Catches up with the log (KRaftControlRecordStateMachine.updateState, called whenever
    /// the log changes): the latest snapshot when starting or when the log now starts past
    /// what was read (maybeLoadSnapshot), then the records not read yet (maybeLoadLog).
    pub fn update(&mut self, log: &ReplicaLog) {
        let behind_start = self.next_offset.is_some_and(|n| n < log.start_offset());
        match log.snapshot() {
            Some(s) if self.next_offset.is_none() || behind_start => {
                self.voter_sets.clear();
                self.kraft_versions.clear();
                let at = s.id.end_offset.checked_sub(1);
                self.kraft_versions.push((at, s.kraft_version));
                if let Some(voters) = &s.voters {
                    self.voter_sets.push((at, voters.clone()));
                }
                self.next_offset = Some(s.id.end_offset);
            }
            _ if self.next_offset.is_none() => self.next_offset = Some(0),
            _ => {}
        }
        let next = self.next_offset.unwrap_or(0);
        for r in log.record_slices_from(next).flatten() {
            match &r.body {
                RecordBody::Voters { voters } => self.add_voter_set(r.offset, voters.clone()),
                RecordBody::KRaftVersion { version } => self.kraft_versions.push((Some(r.offset), *version)),
                _ => {}
            }
        }
        self.next_offset = Some(next.max(log.end_offset()));
    }

    /// VoterSetHistory.addAt. Kafka's history refuses (3.9) or logs (4.0+, KAFKA-17973) a
    /// set read from the log whose majorities do not overlap the previous one; either way
    /// the log is what it is, so it is taken. The checker judges it.
    fn add_voter_set(&mut self, offset: Offset, voters: VoterSet) {
        self.voter_sets.push((Some(offset), voters));
    }

    /// Forgets the entries at or after `end`, the log's new end after a truncation
    /// (KRaftControlRecordStateMachine.truncateNewEntries): an uncommitted voter change
    /// rolls back. Reading resumes at `end`. (Kafka leaves its read position where it was,
    /// so records re-appended below it are read only if they share a batch with a later
    /// offset; the simulator has no batches to lean on and re-reads them.)
    pub fn truncate_new_entries(&mut self, end: Offset) {
        self.voter_sets.retain(|(o, _)| o.is_none_or(|o| o < end));
        self.kraft_versions.retain(|(o, _)| o.is_none_or(|o| o < end));
        self.next_offset = self.next_offset.map(|n| n.min(end));
    }

    /// Forgets entries a snapshot ending at `start` makes unneeded, keeping the last one
    /// at or before it (KRaftControlRecordStateMachine.truncateOldEntries, run when a
    /// snapshot is taken).
    pub fn truncate_old_entries(&mut self, start: Offset) {
        fn keep_last_before<T>(entries: &mut Vec<(EntryOffset, T)>, start: Offset) {
            let at_or_before = entries.iter().filter(|(o, _)| o.is_none_or(|o| o <= start)).count();
            entries.drain(..at_or_before.saturating_sub(1));
        }
        keep_last_before(&mut self.voter_sets, start);
        keep_last_before(&mut self.kraft_versions, start);
    }

    /// Reads the whole log again, from its latest snapshot: after a snapshot download
    /// replaced the log (Kafka reloads then because its read position is below the new
    /// log start).
    pub fn reload(&mut self, log: &ReplicaLog) {
        self.next_offset = None;
        self.update(log);
    }

    /// The set the replica uses (VoterSetHistory.lastValue): the latest entry, committed
    /// or not, else the static voters.
    pub fn last_voter_set(&self) -> &VoterSet {
        self.voter_sets.last().map_or(&self.static_voters, |(_, v)| v)
    }

    /// The latest entry read from the log, snapshot or bootstrap checkpoint, with its
    /// offset (lastVoterSetEntry); `None` when the static voters apply.
    pub fn last_voter_set_entry(&self) -> Option<(EntryOffset, &VoterSet)> {
        self.voter_sets.last().map(|(o, v)| (*o, v))
    }

    /// The set in force for the records below `end`, with the offset of its entry: the
    /// latest entry at an offset below `end`, else the static voters (offset `None`, as
    /// the bootstrap checkpoint's). What the checker reads: at the HW, the committed set;
    /// past the log end, `last_voter_set`.
    pub fn voter_set_before(&self, end: Offset) -> (EntryOffset, &VoterSet) {
        match self.voter_sets.iter().rev().find(|(o, _)| o.is_none_or(|o| o < end)) {
            Some((o, v)) => (*o, v),
            None => (None, &self.static_voters),
        }
    }

    /// The finalized kraft.version (lastKraftVersion): 0 without a KRaftVersionRecord.
    pub fn last_kraft_version(&self) -> KRaftVersion {
        self.kraft_versions.last().map_or(KRaftVersion::V0, |(_, v)| *v)
    }

    /// The set in force at `offset` (voterSetAtOffset): what a snapshot ending just past
    /// it embeds. `None` when no entry is that old (the static voters applied).
    pub fn voter_set_at(&self, offset: Offset) -> Option<&VoterSet> {
        self.voter_sets.iter().rev().find(|(o, _)| o.is_none_or(|o| o <= offset)).map(|(_, v)| v)
    }

    /// The kraft.version in force at `offset` (kraftVersionAtOffset).
    pub fn kraft_version_at(&self, offset: Offset) -> KRaftVersion {
        self.kraft_versions
            .iter()
            .rev()
            .find(|(o, _)| o.is_none_or(|o| o <= offset))
            .map_or(KRaftVersion::V0, |(_, v)| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{ClientRecord, MetadataImage, Record};
    use crate::replica_key::{DirectoryId, ReplicaKey};
    use crate::rpc::{Snapshot, SnapshotId};
    use crate::voters::{Endpoints, KRaftVersionRange, VoterNode};
    use std::sync::Arc;

    fn set(ids: &[u32]) -> VoterSet {
        VoterSet::from_nodes(ids.iter().map(|&id| {
            let key = ReplicaKey::new(id, DirectoryId::new(100 + id as u64));
            VoterNode::new(key, Endpoints::of_node(id), KRaftVersionRange::SUPPORTED)
        }))
    }

    /// A log of these bodies at offsets 0.., epoch 1.
    fn log_of(bodies: Vec<RecordBody>) -> ReplicaLog {
        let mut log = ReplicaLog::default();
        let records = bodies.into_iter().enumerate();
        assert!(
            log.append(records.map(|(i, body)| Record { offset: i as u64, epoch: 1, id: i as u64, body }).collect())
        );
        log
    }

    fn voters(ids: &[u32]) -> RecordBody {
        RecordBody::Voters { voters: set(ids) }
    }

    fn filler() -> RecordBody {
        RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 1 })
    }

    fn snapshot(end: Offset, voters: Option<VoterSet>) -> Snapshot {
        let image = Arc::new(MetadataImage::default());
        let id = SnapshotId { end_offset: end, epoch: 1 };
        Snapshot { id, image, size_bytes: 0, last_contained_log_ms: 0, kraft_version: KRaftVersion::V1, voters }
    }

    /// KRaftControlRecordStateMachineTest.testEmptyPartition: the static voters, kraft.version 0.
    #[test]
    fn an_empty_log_uses_the_static_voters() {
        let mut h = VoterHistory::new(VoterSet::from_static([1, 2, 3]));
        h.update(&ReplicaLog::default());
        assert_eq!(h.last_voter_set(), &VoterSet::from_static([1, 2, 3]));
        assert_eq!(h.last_voter_set_entry(), None);
        assert_eq!(h.last_kraft_version(), KRaftVersion::V0);
    }

    /// testUpdateWithoutSnapshot: the log's records, read uncommitted, as they are appended.
    #[test]
    fn the_log_replaces_the_static_voters() {
        let mut h = VoterHistory::new(VoterSet::from_static([1, 2, 3]));
        let log = log_of(vec![filler(), RecordBody::KRaftVersion { version: KRaftVersion::V1 }, voters(&[4, 5, 6])]);
        h.update(&log);
        assert_eq!(h.last_voter_set(), &set(&[4, 5, 6]));
        assert_eq!(h.last_voter_set_entry().map(|(o, _)| o), Some(Some(2)));
        assert_eq!(h.voter_set_at(2), Some(&set(&[4, 5, 6])));
        assert_eq!(h.voter_set_at(1), None, "the static voters applied there");
        assert_eq!(h.voter_set_before(3), (Some(2), &set(&[4, 5, 6])));
        assert_eq!(h.voter_set_before(2), (None, &VoterSet::from_static([1, 2, 3])), "the static voters");
        assert_eq!((h.kraft_version_at(0), h.kraft_version_at(1)), (KRaftVersion::V0, KRaftVersion::V1));
    }

    /// testUpdateWithSnapshot and testUpdateWithSnapshotAndLogOverride: a snapshot's set sits
    /// at its last contained offset; the log after it overrides it. The bootstrap
    /// checkpoint's sits before every record (Kafka's -1).
    #[test]
    fn a_snapshot_resets_the_history_and_the_log_overrides_it() {
        let mut log = ReplicaLog::default();
        log.reset_to_snapshot(snapshot(10, Some(set(&[4, 5, 6]))));
        let mut h = VoterHistory::new(VoterSet::from_static([1, 2, 3]));
        h.update(&log);
        assert_eq!(h.last_voter_set_entry(), Some((Some(9), &set(&[4, 5, 6]))));
        let r = Record { offset: 10, epoch: 1, id: 10, body: voters(&[4, 5, 6, 7]) };
        assert!(log.append(vec![r]));
        h.update(&log);
        assert_eq!(h.last_voter_set(), &set(&[4, 5, 6, 7]));
        assert_eq!(h.voter_set_at(9), Some(&set(&[4, 5, 6])));
        let mut bootstrap = ReplicaLog::default();
        bootstrap.reset_to_snapshot(snapshot(0, Some(set(&[1]))));
        let mut h = VoterHistory::new(VoterSet::default());
        h.update(&bootstrap);
        assert_eq!(h.last_voter_set_entry(), Some((None, &set(&[1]))));
    }

    /// testTruncateTo: truncating the log rolls back the entries at or after its new end,
    /// and the records appended there instead are read.
    #[test]
    fn truncation_rolls_back_uncommitted_voter_sets() {
        let mut log = log_of(vec![voters(&[4, 5, 6]), voters(&[4, 5, 6, 7])]);
        let mut h = VoterHistory::new(VoterSet::from_static([1, 2, 3]));
        h.update(&log);
        assert_eq!(h.last_voter_set(), &set(&[4, 5, 6, 7]));
        log.truncate_to(1);
        h.truncate_new_entries(1);
        assert_eq!(h.last_voter_set(), &set(&[4, 5, 6]));
        log.truncate_to(0);
        h.truncate_new_entries(0);
        assert_eq!(h.last_voter_set(), &VoterSet::from_static([1, 2, 3]));
        let r = Record { offset: 0, epoch: 2, id: 20, body: voters(&[4, 5]) };
        assert!(log.append(vec![r]));
        h.update(&log);
        assert_eq!(h.last_voter_set_entry(), Some((Some(0), &set(&[4, 5]))), "re-read after the truncation");
    }

    /// testTrimPrefixTo: a new snapshot lets the history forget what no later snapshot
    /// needs, keeping the entry in force at it.
    #[test]
    fn taking_a_snapshot_trims_older_entries() {
        let log = log_of(vec![voters(&[1]), voters(&[1, 2]), filler(), voters(&[1, 2, 3])]);
        let mut h = VoterHistory::new(VoterSet::default());
        h.update(&log);
        h.truncate_old_entries(2);
        assert_eq!(h.voter_set_at(2), Some(&set(&[1, 2])));
        assert_eq!(h.voter_set_at(0), None, "forgotten");
        assert_eq!(h.last_voter_set(), &set(&[1, 2, 3]));
    }
}
