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
        let mut next = self.next_offset.unwrap_or(0);
        while let Some(r) = log.get(next) {
            match &r.body {
                RecordBody::Voters { voters } => self.add_voter_set(r.offset, voters.clone()),
                RecordBody::KRaftVersion { version } => self.kraft_versions.push((Some(r.offset), *version)),
                _ => {}
            }
            next += 1;
        }
        self.next_offset = Some(next);
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
