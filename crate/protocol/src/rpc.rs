//! KRaft's RPCs, as plain data. Field names follow Kafka's message schemas.

use super::record::{Epoch, MetadataImage, NodeId, Offset, Record};
use serde::Serialize;
use std::sync::Arc;

/// Kafka error codes that change what a replica does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ErrorCode {
    #[serde(rename = "NONE")]
    None,
    /// The request's epoch is older than the receiver's.
    #[serde(rename = "FENCED_LEADER_EPOCH")]
    FencedLeaderEpoch,
    /// The request's epoch is newer than the receiver knows.
    #[serde(rename = "UNKNOWN_LEADER_EPOCH")]
    UnknownLeaderEpoch,
    /// Same epoch, but the receiver is not the leader.
    #[serde(rename = "NOT_LEADER_OR_FOLLOWER")]
    NotLeaderOrFollower,
    /// The requested snapshot does not exist (any more).
    #[serde(rename = "SNAPSHOT_NOT_FOUND")]
    SnapshotNotFound,
    /// The request came from a replica that may not send it (e.g. an observer's vote).
    #[serde(rename = "INVALID_REQUEST")]
    InvalidRequest,
}

impl ErrorCode {
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::None => "NONE",
            ErrorCode::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            ErrorCode::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            ErrorCode::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            ErrorCode::SnapshotNotFound => "SNAPSHOT_NOT_FOUND",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SnapshotId {
    #[serde(rename = "endOffset")]
    pub end_offset: Offset,
    pub epoch: Epoch,
}

/// A snapshot: the image of the state machine just below `id.end_offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub id: SnapshotId,
    pub image: Arc<MetadataImage>,
    pub size_bytes: u64,
    /// When the last record it contains was written (Kafka's snapshot header field
    /// `lastContainedLogTimestamp`, which time retention reads). Records carry no
    /// timestamp here, so this is the time the snapshot was taken from them.
    pub last_contained_log_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DivergingEpoch {
    pub epoch: Epoch,
    #[serde(rename = "endOffset")]
    pub end_offset: Offset,
}

/// The sender's view of who leads, carried on every response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaderHint {
    pub epoch: Epoch,
    pub leader: Option<NodeId>,
}

/// VoteRequestData: a candidate asks for a vote, or a prospective for a pre-vote (KIP-996).
#[derive(Clone, Debug, PartialEq)]
pub struct VoteRequest {
    pub replica_epoch: Epoch,
    pub last_offset_epoch: Epoch,
    pub last_offset: Offset,
    pub pre_vote: bool,
}

/// VoteResponseData.
#[derive(Clone, Debug, PartialEq)]
pub struct VoteResponse {
    pub error: ErrorCode,
    pub hint: LeaderHint,
    pub granted: bool,
    pub pre_vote: bool,
}

/// BeginQuorumEpochRequestData: a new leader announces itself (and later its heartbeat).
#[derive(Clone, Debug, PartialEq)]
pub struct BeginQuorumEpochRequest {
    pub leader_epoch: Epoch,
}

/// BeginQuorumEpochResponseData.
#[derive(Clone, Debug, PartialEq)]
pub struct BeginQuorumEpochResponse {
    pub error: ErrorCode,
    pub hint: LeaderHint,
}

/// EndQuorumEpochRequestData: a resigning leader names who should follow it.
#[derive(Clone, Debug, PartialEq)]
pub struct EndQuorumEpochRequest {
    pub leader_epoch: Epoch,
    pub preferred_successors: Vec<NodeId>,
}

/// EndQuorumEpochResponseData.
#[derive(Clone, Debug, PartialEq)]
pub struct EndQuorumEpochResponse {
    pub error: ErrorCode,
    pub hint: LeaderHint,
}

/// FetchRequestData, for the one partition of the metadata log.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchRequest {
    pub current_leader_epoch: Epoch,
    pub fetch_offset: Offset,
    pub last_fetched_epoch: Epoch,
    /// The follower's HW (KIP-1166), so the leader answers at once when it is behind.
    pub high_watermark: Option<Offset>,
    pub max_wait_ms: u64,
    /// `controller.quorum.fetch.max.bytes` of the fetcher.
    pub max_bytes: u64,
}

/// FetchResponseData: records, or where the logs diverge, or the snapshot to fetch.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchResponse {
    pub error: ErrorCode,
    pub hint: LeaderHint,
    pub high_watermark: Option<Offset>,
    pub log_start_offset: Offset,
    pub records: Vec<Record>,
    /// Boxed: rare, and inline it would add 16 bytes to every message moved.
    pub redirect: Option<Box<FetchRedirect>>,
}

/// Where a FetchResponse sends the follower instead of records: Kafka's leader sets at
/// most one of `divergingEpoch` and `snapshotId` (KafkaRaftClient.tryCompleteFetchRequest,
/// by the kind of `ValidOffsetAndEpoch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchRedirect {
    Diverging(DivergingEpoch),
    Snapshot(SnapshotId),
}

impl FetchResponse {
    pub fn diverging_epoch(&self) -> Option<DivergingEpoch> {
        match self.redirect.as_deref() {
            Some(FetchRedirect::Diverging(d)) => Some(*d),
            _ => None,
        }
    }

    pub fn snapshot_id(&self) -> Option<SnapshotId> {
        match self.redirect.as_deref() {
            Some(FetchRedirect::Snapshot(id)) => Some(*id),
            _ => None,
        }
    }
}

/// FetchSnapshotRequestData: the next chunk of a snapshot, from `position`.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchSnapshotRequest {
    pub current_leader_epoch: Epoch,
    pub snapshot_id: SnapshotId,
    pub position: u64,
    /// `controller.quorum.fetch.snapshot.max.bytes` of the fetcher.
    pub max_bytes: u64,
}

/// FetchSnapshotResponseData.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchSnapshotResponse {
    pub error: ErrorCode,
    pub hint: LeaderHint,
    pub snapshot_id: SnapshotId,
    pub size: u64,
    pub position: u64,
    /// Bytes in this chunk; the last chunk carries the snapshot itself.
    pub chunk_bytes: u64,
    /// Boxed: only the last chunk has it, and inline it would add 32 bytes to every message.
    pub snapshot: Option<Box<Snapshot>>,
}

/// Every RPC of the quorum, request or response.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Vote(VoteRequest),
    VoteResponse(VoteResponse),
    BeginQuorumEpoch(BeginQuorumEpochRequest),
    BeginQuorumEpochResponse(BeginQuorumEpochResponse),
    EndQuorumEpoch(EndQuorumEpochRequest),
    EndQuorumEpochResponse(EndQuorumEpochResponse),
    Fetch(FetchRequest),
    FetchResponse(FetchResponse),
    FetchSnapshot(FetchSnapshotRequest),
    FetchSnapshotResponse(FetchSnapshotResponse),
}

/// A message on the wire. `correlation` pairs a response with its request.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub from: NodeId,
    pub to: NodeId,
    pub correlation: u64,
    pub message: Message,
}

/// The RPC kinds the timeline colours differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RpcKind {
    Vote,
    VoteResponse,
    PreVote,
    PreVoteResponse,
    BeginQuorumEpoch,
    BeginQuorumEpochResponse,
    EndQuorumEpoch,
    EndQuorumEpochResponse,
    Fetch,
    FetchResponse,
    FetchSnapshot,
    FetchSnapshotResponse,
}

impl RpcKind {
    /// The requests in the timeline legend's order; each names its exchange (request and response).
    pub const REQUESTS: [RpcKind; 6] = [
        RpcKind::PreVote,
        RpcKind::Vote,
        RpcKind::BeginQuorumEpoch,
        RpcKind::EndQuorumEpoch,
        RpcKind::Fetch,
        RpcKind::FetchSnapshot,
    ];

    /// Requests expect an answer; the sender's RequestManager tracks them.
    pub fn is_request(self) -> bool {
        matches!(
            self,
            RpcKind::Vote
                | RpcKind::PreVote
                | RpcKind::BeginQuorumEpoch
                | RpcKind::EndQuorumEpoch
                | RpcKind::Fetch
                | RpcKind::FetchSnapshot
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            RpcKind::Vote => "Vote",
            RpcKind::VoteResponse => "VoteResponse",
            RpcKind::PreVote => "PreVote",
            RpcKind::PreVoteResponse => "PreVoteResponse",
            RpcKind::BeginQuorumEpoch => "BeginQuorumEpoch",
            RpcKind::BeginQuorumEpochResponse => "BeginQuorumEpochResponse",
            RpcKind::EndQuorumEpoch => "EndQuorumEpoch",
            RpcKind::EndQuorumEpochResponse => "EndQuorumEpochResponse",
            RpcKind::Fetch => "Fetch",
            RpcKind::FetchResponse => "FetchResponse",
            RpcKind::FetchSnapshot => "FetchSnapshot",
            RpcKind::FetchSnapshotResponse => "FetchSnapshotResponse",
        }
    }
}

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
        }
    }
}

impl Message {
    #[inline]
    pub fn kind(&self) -> RpcKind {
        match self {
            Message::Vote(r) if r.pre_vote => RpcKind::PreVote,
            Message::Vote(_) => RpcKind::Vote,
            Message::VoteResponse(r) if r.pre_vote => RpcKind::PreVoteResponse,
            Message::VoteResponse(_) => RpcKind::VoteResponse,
            Message::BeginQuorumEpoch(_) => RpcKind::BeginQuorumEpoch,
            Message::BeginQuorumEpochResponse(_) => RpcKind::BeginQuorumEpochResponse,
            Message::EndQuorumEpoch(_) => RpcKind::EndQuorumEpoch,
            Message::EndQuorumEpochResponse(_) => RpcKind::EndQuorumEpochResponse,
            Message::Fetch(_) => RpcKind::Fetch,
            Message::FetchResponse(_) => RpcKind::FetchResponse,
            Message::FetchSnapshot(_) => RpcKind::FetchSnapshot,
            Message::FetchSnapshotResponse(_) => RpcKind::FetchSnapshotResponse,
        }
    }

    /// The epoch the message speaks for (the request's epoch, the responder's epoch).
    #[inline]
    pub fn epoch(&self) -> Epoch {
        match self {
            Message::Vote(r) => r.replica_epoch,
            Message::BeginQuorumEpoch(r) => r.leader_epoch,
            Message::EndQuorumEpoch(r) => r.leader_epoch,
            Message::Fetch(r) => r.current_leader_epoch,
            Message::FetchSnapshot(r) => r.current_leader_epoch,
            Message::VoteResponse(VoteResponse { hint, .. })
            | Message::BeginQuorumEpochResponse(BeginQuorumEpochResponse { hint, .. })
            | Message::EndQuorumEpochResponse(EndQuorumEpochResponse { hint, .. })
            | Message::FetchResponse(FetchResponse { hint, .. })
            | Message::FetchSnapshotResponse(FetchSnapshotResponse { hint, .. }) => hint.epoch,
        }
    }

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
        }
    }
}

// 64-bit sizes: the wasm32 build has no such test.
#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// Every message is moved several times between a replica and the wire (into its
    /// outputs, onto the wire, into the inbox, into the handler), so its size is bytes
    /// copied per message. FetchResponse, the largest and commonest, sets the size; its
    /// rare redirect and FetchSnapshotResponse's last-chunk snapshot are boxed to keep it
    /// there (inline they made a Message 112 bytes). 64-bit sizes.
    #[test]
    fn messages_stay_small() {
        assert!(size_of::<FetchResponse>() <= 72, "FetchResponse is {} bytes", size_of::<FetchResponse>());
        assert!(size_of::<Message>() <= 72, "Message is {} bytes", size_of::<Message>());
        assert!(size_of::<Envelope>() <= 88, "Envelope is {} bytes", size_of::<Envelope>());
        assert!(size_of::<crate::Output>() <= 88, "Output is {} bytes", size_of::<crate::Output>());
    }
}
