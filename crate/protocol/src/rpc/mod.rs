//! KRaft's RPCs, as plain data. Field names follow Kafka's message schemas. The voter
//! changes of KIP-853 are in `reconfig`, what the trace keeps of a message in `summary`.

use super::record::{Epoch, MetadataImage, NodeId, Offset, Record};
use super::replica_key::{DirectoryId, ReplicaKey};
use super::voters::{KRaftVersion, VoterSet};
use serde::Serialize;
use std::sync::Arc;

mod reconfig;
mod summary;

pub use reconfig::*;
pub use summary::{FetchOutcome, MessageSummary};

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
    /// The request is malformed or asks what cannot be (e.g. a new voter without a
    /// directory id, or whose software lacks the finalized kraft.version).
    #[serde(rename = "INVALID_REQUEST")]
    InvalidRequest,
    /// A voter change could not be made or finished in time; try again (KIP-853: a change
    /// pending, no HW of the leader's epoch yet, the last one uncommitted, the new voter
    /// lagging or unreachable).
    #[serde(rename = "REQUEST_TIMED_OUT")]
    RequestTimedOut,
    /// AddRaftVoter for a node id that is a voter already.
    #[serde(rename = "DUPLICATE_VOTER")]
    DuplicateVoter,
    /// RemoveRaftVoter or UpdateRaftVoter for a key that is not a voter's (or the last one).
    #[serde(rename = "VOTER_NOT_FOUND")]
    VoterNotFound,
    /// A Vote or BeginQuorumEpoch meant for another replica key than the receiver's.
    #[serde(rename = "INVALID_VOTER_KEY")]
    InvalidVoterKey,
    /// A voter change while kraft.version is 0 (a static voter set).
    #[serde(rename = "UNSUPPORTED_VERSION")]
    UnsupportedVersion,
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
            ErrorCode::RequestTimedOut => "REQUEST_TIMED_OUT",
            ErrorCode::DuplicateVoter => "DUPLICATE_VOTER",
            ErrorCode::VoterNotFound => "VOTER_NOT_FOUND",
            ErrorCode::InvalidVoterKey => "INVALID_VOTER_KEY",
            ErrorCode::UnsupportedVersion => "UNSUPPORTED_VERSION",
        }
    }
}

pub use kraft_boundary::SnapshotId;

/// A snapshot: the image of the state machine just below `id.end_offset`, and the KRaft
/// control state in force there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub id: SnapshotId,
    pub image: Arc<MetadataImage>,
    pub size_bytes: u64,
    /// When the last record it contains was written (Kafka's snapshot header field
    /// `lastContainedLogTimestamp`, which time retention reads). Records carry no
    /// timestamp here, so this is the time the snapshot was taken from them.
    pub last_contained_log_ms: u64,
    /// The kraft.version and the voter set at its last contained offset, which Kafka
    /// writes into every snapshot (KafkaRaftClient.createSnapshot); no set while the
    /// static voters applied.
    pub kraft_version: KRaftVersion,
    pub voters: Option<VoterSet>,
}

/// The id of the bootstrap checkpoint (Kafka's Snapshots.BOOTSTRAP_SNAPSHOT_ID, the file
/// 0-0.checkpoint) that `format --standalone` / `--initial-controllers` writes.
pub const BOOTSTRAP_SNAPSHOT_ID: SnapshotId = SnapshotId { end_offset: 0, epoch: 0 };

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
    /// The candidate's directory id (candidateDirectoryId, KIP-853).
    pub candidate_directory: Option<DirectoryId>,
    /// The receiver as the candidate's voter set names it (voterId, voterDirectoryId):
    /// a receiver that is not that replica answers INVALID_VOTER_KEY.
    pub voter_key: ReplicaKey,
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
    /// The receiver as the leader's voter set names it (voterId, voterDirectoryId).
    pub voter_key: ReplicaKey,
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
    /// The fetcher's directory id (replicaDirectoryId, KIP-853): with its node id, the key
    /// the leader tracks its progress under.
    pub replica_directory: Option<DirectoryId>,
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
    /// The fetcher's directory id (replicaDirectoryId, KIP-853).
    pub replica_directory: Option<DirectoryId>,
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
    AddRaftVoter(AddRaftVoterRequest),
    AddRaftVoterResponse(VoterChangeResponse),
    RemoveRaftVoter(RemoveRaftVoterRequest),
    RemoveRaftVoterResponse(VoterChangeResponse),
    UpdateRaftVoter(UpdateRaftVoterRequest),
    UpdateRaftVoterResponse(UpdateRaftVoterResponse),
    ApiVersions,
    ApiVersionsResponse(ApiVersionsResponse),
}

/// A message on the wire. `correlation` pairs a response with its request.
pub type Envelope = kraft_boundary::Envelope<Message>;

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
    AddRaftVoter,
    AddRaftVoterResponse,
    RemoveRaftVoter,
    RemoveRaftVoterResponse,
    UpdateRaftVoter,
    UpdateRaftVoterResponse,
    ApiVersions,
    ApiVersionsResponse,
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
                | RpcKind::AddRaftVoter
                | RpcKind::RemoveRaftVoter
                | RpcKind::UpdateRaftVoter
                | RpcKind::ApiVersions
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
            RpcKind::AddRaftVoter => "AddRaftVoter",
            RpcKind::AddRaftVoterResponse => "AddRaftVoterResponse",
            RpcKind::RemoveRaftVoter => "RemoveRaftVoter",
            RpcKind::RemoveRaftVoterResponse => "RemoveRaftVoterResponse",
            RpcKind::UpdateRaftVoter => "UpdateRaftVoter",
            RpcKind::UpdateRaftVoterResponse => "UpdateRaftVoterResponse",
            RpcKind::ApiVersions => "ApiVersions",
            RpcKind::ApiVersionsResponse => "ApiVersionsResponse",
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
            Message::AddRaftVoter(_) => RpcKind::AddRaftVoter,
            Message::AddRaftVoterResponse(_) => RpcKind::AddRaftVoterResponse,
            Message::RemoveRaftVoter(_) => RpcKind::RemoveRaftVoter,
            Message::RemoveRaftVoterResponse(_) => RpcKind::RemoveRaftVoterResponse,
            Message::UpdateRaftVoter(_) => RpcKind::UpdateRaftVoter,
            Message::UpdateRaftVoterResponse(_) => RpcKind::UpdateRaftVoterResponse,
            Message::ApiVersions => RpcKind::ApiVersions,
            Message::ApiVersionsResponse(_) => RpcKind::ApiVersionsResponse,
        }
    }

    /// The epoch the message speaks for (the request's epoch, the responder's epoch); 0
    /// for the messages that carry none (AddRaftVoter, RemoveRaftVoter, their responses,
    /// ApiVersions).
    #[inline]
    pub fn epoch(&self) -> Epoch {
        match self {
            Message::UpdateRaftVoter(r) => r.current_leader_epoch,
            Message::UpdateRaftVoterResponse(r) => r.hint.epoch,
            Message::AddRaftVoter(_)
            | Message::AddRaftVoterResponse(_)
            | Message::RemoveRaftVoter(_)
            | Message::RemoveRaftVoterResponse(_)
            | Message::ApiVersions
            | Message::ApiVersionsResponse(_) => 0,
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
