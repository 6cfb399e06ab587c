//! The RPCs of KIP-853 that change the voter set. AddRaftVoter and RemoveRaftVoter come
//! from an admin client (`kafka-metadata-quorum.sh add-controller` / `remove-controller`)
//! and are answered once the change commits or fails; UpdateRaftVoter comes from a voter
//! whose entry is out of date; ApiVersions is how the leader learns which kraft.version a
//! joining controller supports before it adds it (AddVoterHandler).

use super::{ErrorCode, LeaderHint};
use crate::ids::Epoch;
use crate::replica_key::ReplicaKey;
use crate::voters::{Endpoints, KRaftVersionRange};

/// AddRaftVoterRequestData: add this replica, reachable at these listeners. (Its
/// TimeoutMs is not modelled: Kafka's leader ignores it for request.timeout.ms.)
#[derive(Clone, Debug, PartialEq)]
pub struct AddRaftVoterRequest {
    pub voter: ReplicaKey,
    pub listeners: Endpoints,
    /// AckWhenCommitted (version 1, Kafka 4.2+, KIP-1186): false asks the leader to answer
    /// as soon as the new voter set is appended, as a controller that auto-joins does (it
    /// needs its Fetch to commit that set). Version 0, and every admin client here: true.
    pub ack_when_committed: bool,
}

/// RemoveRaftVoterRequestData: remove this replica (its exact key) from the voters.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoveRaftVoterRequest {
    pub voter: ReplicaKey,
}

/// AddRaftVoterResponseData and RemoveRaftVoterResponseData: an error code and, when it
/// is not NONE, the rule that refused (Kafka's ErrorMessage, without its values).
#[derive(Clone, Debug, PartialEq)]
pub struct VoterChangeResponse {
    pub error: ErrorCode,
    pub message: &'static str,
}

/// UpdateRaftVoterRequestData: a voter tells the leader of `current_leader_epoch` its
/// listeners and the kraft.version levels its software supports.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateRaftVoterRequest {
    pub current_leader_epoch: Epoch,
    pub voter: ReplicaKey,
    pub listeners: Endpoints,
    pub supported: KRaftVersionRange,
}

/// UpdateRaftVoterResponseData: the error and the leader as the responder knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateRaftVoterResponse {
    pub error: ErrorCode,
    pub hint: LeaderHint,
}

/// ApiVersionsResponseData as KRaft reads it: the supported range of the kraft.version
/// feature (absent from software that predates it).
#[derive(Clone, Debug, PartialEq)]
pub struct ApiVersionsResponse {
    pub error: ErrorCode,
    pub kraft_version: Option<KRaftVersionRange>,
}
