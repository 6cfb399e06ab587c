//! What the trace keeps of a message: a few numbers (`MessageSummary`), hashed as the
//! digest always has and printed as the text trace shows them.

use super::*;
use crate::voters::KRaftVersionRange;

/// The few numbers of a message the trace keeps, so events stay small (32 bytes) and `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageSummary {
    Vote {
        last_epoch: Epoch,
        last_offset: Offset,
    },
    VoteResponse {
        granted: bool,
        error: ErrorCode,
        leader: Option<NodeId>,
    },
    BeginQuorumEpoch,
    EndQuorumEpoch {
        first_successor: Option<NodeId>,
        successors: u8,
    },
    Ack {
        error: ErrorCode,
        leader: Option<NodeId>,
    },
    Fetch {
        offset: Offset,
        last_epoch: Epoch,
        hw: Option<Offset>,
    },
    /// The HW is `hw` if `hw_known` (an `Option` here would make every summary 8 bytes longer).
    FetchResponse {
        error: ErrorCode,
        hw_known: bool,
        hw: Offset,
        outcome: FetchOutcome,
    },
    FetchSnapshot {
        snapshot: SnapshotId,
        position: u64,
    },
    FetchSnapshotResponse {
        error: ErrorCode,
        position: u64,
        chunk: u64,
        size: u64,
    },
    /// AddRaftVoter, RemoveRaftVoter or UpdateRaftVoter (the kind says which) for this key.
    VoterChange {
        voter: NodeId,
        directory: Option<DirectoryId>,
    },
    /// The answer to AddRaftVoter or RemoveRaftVoter.
    VoterChangeResponse {
        error: ErrorCode,
    },
    ApiVersions,
    ApiVersionsResponse {
        error: ErrorCode,
        kraft_versions: Option<KRaftVersionRange>,
    },
}

/// What a fetch response answers with: records (maybe none), a diverging epoch or a
/// snapshot id, never two of them (KafkaRaftClient.handleFetchRequest returns on the
/// diverging epoch or the snapshot id before it reads records).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchOutcome {
    Records { first_offset: Offset, count: u32 },
    Diverging { epoch: Epoch, end_offset: Offset },
    Snapshot { end_offset: Offset, epoch: Epoch },
}

impl MessageSummary {
    /// A fetch response's HW, if the leader knows one.
    pub fn fetch_hw(hw_known: bool, hw: Offset) -> Option<Offset> {
        hw_known.then_some(hw)
    }
}

impl FetchOutcome {
    pub fn diverging(self) -> Option<DivergingEpoch> {
        match self {
            FetchOutcome::Diverging { epoch, end_offset } => Some(DivergingEpoch { epoch, end_offset }),
            _ => None,
        }
    }
    pub fn snapshot(self) -> Option<SnapshotId> {
        match self {
            FetchOutcome::Snapshot { end_offset, epoch } => Some(SnapshotId { end_offset, epoch }),
            _ => None,
        }
    }
}

/// Hashes the words the derived `Hash` of the summary's first layout did, so the trace
/// digest never changed: the variant's index, then each field in order, a fetch response
/// as (error, hw, records, first offset, diverging epoch, snapshot id).
impl std::hash::Hash for MessageSummary {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match *self {
            MessageSummary::Vote { last_epoch, last_offset } => {
                h.write_isize(0);
                last_epoch.hash(h);
                last_offset.hash(h);
            }
            MessageSummary::VoteResponse { granted, error, leader } => {
                h.write_isize(1);
                granted.hash(h);
                error.hash(h);
                leader.hash(h);
            }
            MessageSummary::BeginQuorumEpoch => h.write_isize(2),
            MessageSummary::EndQuorumEpoch { first_successor, successors } => {
                h.write_isize(3);
                first_successor.hash(h);
                successors.hash(h);
            }
            MessageSummary::Ack { error, leader } => {
                h.write_isize(4);
                error.hash(h);
                leader.hash(h);
            }
            MessageSummary::Fetch { offset, last_epoch, hw } => {
                h.write_isize(5);
                offset.hash(h);
                last_epoch.hash(h);
                hw.hash(h);
            }
            MessageSummary::FetchResponse { error, hw_known, hw, outcome } => {
                h.write_isize(6);
                error.hash(h);
                MessageSummary::fetch_hw(hw_known, hw).hash(h);
                let (count, first_offset) = match outcome {
                    FetchOutcome::Records { first_offset, count } => (count, first_offset),
                    _ => (0, 0),
                };
                count.hash(h);
                first_offset.hash(h);
                outcome.diverging().hash(h);
                outcome.snapshot().hash(h);
            }
            MessageSummary::FetchSnapshot { snapshot, position } => {
                h.write_isize(7);
                snapshot.hash(h);
                position.hash(h);
            }
            MessageSummary::FetchSnapshotResponse { error, position, chunk, size } => {
                h.write_isize(8);
                error.hash(h);
                position.hash(h);
                chunk.hash(h);
                size.hash(h);
            }
            MessageSummary::VoterChange { voter, directory } => {
                h.write_isize(9);
                voter.hash(h);
                directory.hash(h);
            }
            MessageSummary::VoterChangeResponse { error } => {
                h.write_isize(10);
                error.hash(h);
            }
            MessageSummary::ApiVersions => h.write_isize(11),
            MessageSummary::ApiVersionsResponse { error, kraft_versions } => {
                h.write_isize(12);
                error.hash(h);
                kraft_versions.hash(h);
            }
        }
    }
}

impl Message {
    pub fn summary(&self) -> MessageSummary {
        match self {
            Message::Vote(r) => MessageSummary::Vote { last_epoch: r.last_offset_epoch, last_offset: r.last_offset },
            Message::VoteResponse(r) => {
                MessageSummary::VoteResponse { granted: r.granted, error: r.error, leader: r.hint.leader }
            }
            Message::BeginQuorumEpoch(_) => MessageSummary::BeginQuorumEpoch,
            Message::EndQuorumEpoch(r) => MessageSummary::EndQuorumEpoch {
                first_successor: r.preferred_successors.first().copied(),
                successors: r.preferred_successors.len().min(255) as u8,
            },
            Message::BeginQuorumEpochResponse(BeginQuorumEpochResponse { error, hint })
            | Message::EndQuorumEpochResponse(EndQuorumEpochResponse { error, hint }) => {
                MessageSummary::Ack { error: *error, leader: hint.leader }
            }
            Message::Fetch(r) => {
                MessageSummary::Fetch { offset: r.fetch_offset, last_epoch: r.last_fetched_epoch, hw: r.high_watermark }
            }
            Message::FetchResponse(r) => MessageSummary::FetchResponse {
                error: r.error,
                hw_known: r.high_watermark.is_some(),
                hw: r.high_watermark.unwrap_or(0),
                outcome: match r.redirect.as_deref() {
                    Some(&FetchRedirect::Diverging(DivergingEpoch { epoch, end_offset })) => {
                        FetchOutcome::Diverging { epoch, end_offset }
                    }
                    Some(&FetchRedirect::Snapshot(SnapshotId { end_offset, epoch })) => {
                        FetchOutcome::Snapshot { end_offset, epoch }
                    }
                    None => FetchOutcome::Records {
                        first_offset: r.records.first().map(|r| r.offset).unwrap_or(0),
                        count: r.records.len() as u32,
                    },
                },
            },
            Message::FetchSnapshot(r) => {
                MessageSummary::FetchSnapshot { snapshot: r.snapshot_id, position: r.position }
            }
            Message::FetchSnapshotResponse(r) => MessageSummary::FetchSnapshotResponse {
                error: r.error,
                position: r.position,
                chunk: r.chunk_bytes,
                size: r.size,
            },
            Message::AddRaftVoter(AddRaftVoterRequest { voter, .. })
            | Message::RemoveRaftVoter(RemoveRaftVoterRequest { voter })
            | Message::UpdateRaftVoter(UpdateRaftVoterRequest { voter, .. }) => {
                MessageSummary::VoterChange { voter: voter.id, directory: voter.directory }
            }
            Message::AddRaftVoterResponse(r) | Message::RemoveRaftVoterResponse(r) => {
                MessageSummary::VoterChangeResponse { error: r.error }
            }
            Message::UpdateRaftVoterResponse(r) => MessageSummary::Ack { error: r.error, leader: r.hint.leader },
            Message::ApiVersions => MessageSummary::ApiVersions,
            Message::ApiVersionsResponse(r) => {
                MessageSummary::ApiVersionsResponse { error: r.error, kraft_versions: r.kraft_version }
            }
        }
    }
}

impl std::fmt::Display for MessageSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let opt = |o: Option<u64>| o.map(|v| v as i64).unwrap_or(-1);
        match self {
            MessageSummary::Vote { last_epoch, last_offset } => {
                write!(f, "lastEpoch={last_epoch} lastOffset={last_offset}")
            }
            MessageSummary::VoteResponse { granted, error, leader } => {
                write!(f, "granted={granted}")?;
                if *error != ErrorCode::None {
                    write!(f, " error={}", error.name())?;
                }
                if let Some(l) = leader {
                    write!(f, " leader={l}")?;
                }
                Ok(())
            }
            MessageSummary::BeginQuorumEpoch => Ok(()),
            MessageSummary::EndQuorumEpoch { first_successor, successors } => match first_successor {
                Some(s) => write!(f, "preferred={s} successors={successors}"),
                None => write!(f, "successors=0"),
            },
            MessageSummary::Ack { error, leader } => {
                write!(f, "error={}", error.name())?;
                if let Some(l) = leader {
                    write!(f, " leader={l}")?;
                }
                Ok(())
            }
            MessageSummary::Fetch { offset, last_epoch, hw } => {
                write!(f, "offset={offset} lastEpoch={last_epoch} hw={}", opt(*hw))
            }
            MessageSummary::FetchResponse { error, hw_known, hw, outcome } => {
                if *error != ErrorCode::None {
                    return write!(f, "error={}", error.name());
                }
                write!(f, "hw={}", opt(MessageSummary::fetch_hw(*hw_known, *hw)))?;
                match *outcome {
                    FetchOutcome::Diverging { epoch, end_offset } => write!(f, " divergingEpoch={epoch}@{end_offset}"),
                    FetchOutcome::Snapshot { end_offset, epoch } => write!(f, " snapshot={epoch}@{end_offset}"),
                    FetchOutcome::Records { count: 0, .. } => write!(f, " records=none"),
                    FetchOutcome::Records { first_offset, count } => {
                        write!(f, " records={}..{}", first_offset, first_offset + count as u64 - 1)
                    }
                }
            }
            MessageSummary::FetchSnapshot { snapshot, position } => {
                write!(f, "snapshot={}@{} position={position}", snapshot.epoch, snapshot.end_offset)
            }
            MessageSummary::FetchSnapshotResponse { error, position, chunk, size } => {
                if *error != ErrorCode::None {
                    return write!(f, "error={}", error.name());
                }
                write!(f, "bytes={}..{} of {size}", position, position + chunk)
            }
            MessageSummary::VoterChange { voter, directory } => {
                write!(f, "voter={}", ReplicaKey::new(*voter, *directory))
            }
            MessageSummary::VoterChangeResponse { error } => write!(f, "error={}", error.name()),
            MessageSummary::ApiVersions => Ok(()),
            MessageSummary::ApiVersionsResponse { error, kraft_versions } => {
                write!(f, "error={}", error.name())?;
                if let Some(r) = kraft_versions {
                    write!(f, " kraft.version={}..{}", r.min.0, r.max.0)?;
                }
                Ok(())
            }
        }
    }
}
