//! A replica's log as the world reads it: the offsets the views show, the records the
//! invariant checker compares, the snapshots that stand in for a compacted prefix. Read
//! only: how a protocol appends, truncates and cleans is its own business.

use crate::record::{Epoch, NodeId, Offset};
use serde::Serialize;
use std::fmt::Debug;

// A snapshot's identity: the offset it ends before and the epoch of its last record
// (Kafka's OffsetAndEpoch; Raft's lastIncludedIndex + 1 and lastIncludedTerm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SnapshotId {
    #[serde(rename = "endOffset")]
    pub end_offset: Offset,
    pub epoch: Epoch,
}

/// A voter as a voter set names it (KIP-853's replica key, Kafka's ReplicaKey): its node id
/// and, for a protocol that tells a node's disks apart, the id of the directory its log
/// lives in (a wiped disk comes back with a new one, and is not the voter it replaced).
/// `None` names the node on whatever disk (a static voter set's entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VoterKey {
    pub id: NodeId,
    pub directory: Option<u64>,
}

impl VoterKey {
    /// Whether the replica `id` whose log is in `directory` is this voter: the ids agree and,
    /// if this key names a directory, so do the directories (Kafka's
    /// VoterSet.VoterNode.isVoter, ReplicaKey matching).
    pub fn is(self, id: NodeId, directory: Option<u64>) -> bool {
        self.id == id && (self.directory.is_none() || self.directory == directory)
    }

    /// Whether the two keys may name the same replica: the ids agree, and the directories
    /// do or one key names none (a static entry and the entry that upgraded it).
    pub fn same_voter(self, other: VoterKey) -> bool {
        self.is(other.id, other.directory) || other.is(self.id, self.directory)
    }
}

impl std::fmt::Display for VoterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.directory {
            Some(d) => write!(f, "n{}:{d:x}", self.id),
            None => write!(f, "n{}", self.id),
        }
    }
}

/// One record of a log, as the checker and the views read it.
pub trait LogEntry: Clone + Debug {
    /// What it says, as the log view shows it (KRaft's RecordBody).
    type Body: Clone + Debug + Serialize;
    fn offset(&self) -> Offset;
    /// The epoch (term) of the leader that wrote it.
    fn epoch(&self) -> Epoch;
    /// Unique across a simulation (`protocol::IdSource`): two records that look alike
    /// but were written apart are told apart by it.
    fn id(&self) -> u64;
    fn body(&self) -> &Self::Body;
    /// The voter set the record declares, if it declares one (KRaft's VotersRecord), as
    /// the voters' keys. None by default: a protocol whose voters never change has no such
    /// record.
    fn voters(&self) -> Option<Vec<VoterKey>> {
        None
    }
}

/// The read-only view of one replica's log (or of what is on disk while it is crashed).
pub trait LogView {
    type Entry: LogEntry;
    /// First offset held as a record: 0, or where the earliest snapshot ends.
    fn start_offset(&self) -> Offset;
    /// Log end offset: the offset the next record will get.
    fn end_offset(&self) -> Offset;
    /// Offsets below this are on disk; a crash keeps only them.
    fn flushed_offset(&self) -> Offset;
    /// The epoch of the last record (or of the latest snapshot when there are none).
    fn last_epoch(&self) -> Epoch;
    /// The record at `offset`, if the log holds it.
    fn get(&self, offset: Offset) -> Option<&Self::Entry>;
    /// The epoch of the record at `offset`; at `start_offset - 1`, the earliest snapshot's.
    fn epoch_at(&self, offset: Offset) -> Option<Epoch>;
    /// The records compacted away during the replica's current step, in order: the
    /// checker sees the log as the step left it, yet must see the records the step
    /// exposed before compacting them (`ReplicaCore::forget_compacted` drops them).
    fn compacted(&self) -> &[Self::Entry];
    /// Records from `offset` on, at most `max` of them.
    fn read(&self, offset: Offset, max: usize) -> Vec<Self::Entry>;
    /// The latest snapshot: what a restart loads and a lagging follower is sent.
    fn latest_snapshot(&self) -> Option<SnapshotId>;
    /// The earliest snapshot: the one at the log start once the log has been cleaned.
    fn earliest_snapshot(&self) -> Option<SnapshotId>;
    /// Whether the log's records continue snapshot `id` (its epoch history agrees that
    /// `id.epoch` reaches `id.end_offset`): what SnapshotAtLogStart asks of the earliest.
    fn continues_snapshot(&self, id: SnapshotId) -> bool;
    /// Bytes a clone of the log copies instead of sharing (the memory budget's estimate).
    fn unshared_bytes(&self) -> u64;
    /// The directory id the disk was formatted with (KIP-853's replica key), if its
    /// protocol gives disks one.
    fn directory(&self) -> Option<u64> {
        None
    }
}
