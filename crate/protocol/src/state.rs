//! Epoch states, one struct each (as Kafka's UnattachedState, ProspectiveState, ...),
//! and the persisted election state. The transitions between them are `transitions`.

use super::leader::LeaderState;
use super::record::{Epoch, NodeId};
use super::replica_key::{DirectoryId, ReplicaKey};
use kraft_boundary::PersistedElection;
use serde::Serialize;

/// The "quorum-state" file: what survives a crash besides the flushed log. Its version 1
/// (Kafka 3.9+, ElectionState.toQuorumStateData, written at kraft.version 1) keeps the
/// voted candidate's directory id with its node id, so a vote is for one replica, not for
/// whatever disk its node runs on; version 0 (kraft.version 0) has no directory id
/// (`Replica::durable` drops it), and its list of voters is not kept here (the voters come
/// from the log or the config).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ElectionState {
    pub epoch: Epoch,
    pub leader: Option<NodeId>,
    #[serde(rename = "votedFor")]
    pub voted: Option<NodeId>,
    #[serde(rename = "votedDirectoryId", skip_serializing_if = "Option::is_none")]
    pub voted_directory: Option<DirectoryId>,
}

impl ElectionState {
    pub fn new(epoch: Epoch, leader: Option<NodeId>, voted: Option<ReplicaKey>) -> ElectionState {
        ElectionState { epoch, leader, voted: voted.map(|k| k.id), voted_directory: voted.and_then(|k| k.directory) }
    }

    pub fn voted_key(&self) -> Option<ReplicaKey> {
        self.voted.map(|id| ReplicaKey::new(id, self.voted_directory))
    }

    /// What the trace records of it (a `persist` event): epoch, leader and vote.
    pub fn persisted(&self) -> PersistedElection {
        PersistedElection { epoch: self.epoch, leader: self.leader, voted: self.voted }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum StateName {
    Unattached,
    Prospective,
    Candidate,
    Leader,
    Follower,
    Resigned,
    /// No replica is ever in it: the name the node view gives a node whose process is
    /// down (`sim::view::CRASHED`), here so the generated state names include it.
    Crashed,
}

impl StateName {
    pub fn name(self) -> &'static str {
        match self {
            StateName::Unattached => "unattached",
            StateName::Prospective => "prospective",
            StateName::Candidate => "candidate",
            StateName::Leader => "leader",
            StateName::Follower => "follower",
            StateName::Resigned => "resigned",
            StateName::Crashed => "crashed",
        }
    }
}

/// Why a replica changed state; shown on the timeline and in the text trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TransitionReason"))]
pub enum Reason {
    Startup,
    Restart,
    ElectionTimeout,
    FetchTimeout,
    PreVoteGranted,
    PreVoteRejected,
    PreVoteTimedOut,
    VoteGranted,
    HigherEpoch,
    LeaderDiscovered,
    VotedForCandidate,
    Resign,
    CheckQuorumFailed,
    ResignedTimeout,
    /// The leader's own removal committed (RemoveVoterHandler.highWatermarkUpdated asks it
    /// to resign).
    RemovedFromVoters,
}

impl Reason {
    /// Every reason, in declaration order (`every_reason_is_in_all` checks it against the
    /// derived type, so a new variant fails the tests until it is listed).
    pub const ALL: [Reason; 15] = [
        Reason::Startup,
        Reason::Restart,
        Reason::ElectionTimeout,
        Reason::FetchTimeout,
        Reason::PreVoteGranted,
        Reason::PreVoteRejected,
        Reason::PreVoteTimedOut,
        Reason::VoteGranted,
        Reason::HigherEpoch,
        Reason::LeaderDiscovered,
        Reason::VotedForCandidate,
        Reason::Resign,
        Reason::CheckQuorumFailed,
        Reason::ResignedTimeout,
        Reason::RemovedFromVoters,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reason::Startup => "startup",
            Reason::Restart => "restart",
            Reason::ElectionTimeout => "election-timeout",
            Reason::FetchTimeout => "fetch-timeout",
            Reason::PreVoteGranted => "pre-vote-granted",
            Reason::PreVoteRejected => "pre-vote-rejected",
            Reason::PreVoteTimedOut => "pre-vote-timed-out",
            Reason::VoteGranted => "vote-granted",
            Reason::HigherEpoch => "higher-epoch",
            Reason::LeaderDiscovered => "leader-discovered",
            Reason::VotedForCandidate => "voted-for-candidate",
            Reason::Resign => "resign",
            Reason::CheckQuorumFailed => "check-quorum-failed",
            Reason::ResignedTimeout => "resigned-timeout",
            Reason::RemovedFromVoters => "removed-from-voters",
        }
    }
}

#[derive(Clone, Debug)]
pub struct UnattachedState {
    pub epoch: Epoch,
    pub voted: Option<ReplicaKey>,
    /// A leader id learned without being able to follow it yet.
    pub leader: Option<NodeId>,
    /// When a voter starts a pre-vote; `u64::MAX` for observers.
    pub election_deadline: u64,
}

#[derive(Clone, Debug)]
pub struct ProspectiveState {
    pub epoch: Epoch,
    pub voted: Option<ReplicaKey>,
    /// The leader it followed before, to return to if the pre-vote is rejected.
    pub leader: Option<NodeId>,
    pub granted: Vec<NodeId>,
    pub rejected: Vec<NodeId>,
    pub election_deadline: u64,
}

#[derive(Clone, Debug)]
pub struct CandidateState {
    pub epoch: Epoch,
    pub granted: Vec<NodeId>,
    pub rejected: Vec<NodeId>,
    pub election_deadline: u64,
}

#[derive(Clone, Debug)]
pub struct FollowerState {
    pub epoch: Epoch,
    pub leader: NodeId,
    pub voted: Option<ReplicaKey>,
    pub fetch_deadline: u64,
    /// Set by the first successful Fetch from the leader in this state; from then on
    /// pre-votes are rejected (KIP-996).
    pub has_fetched: bool,
    pub snapshot_download: Option<SnapshotDownload>,
    /// When the update voter timer expires (FollowerState's updateVoterPeriodTimer, Kafka
    /// 3.9+; updateVoterSetPeriodTimer from 4.2): a voter may then send UpdateRaftVoter, a
    /// controller that auto-joins AddRaftVoter or RemoveRaftVoter. `u64::MAX` in the
    /// legacy model, which sends none of them.
    pub update_voter_deadline: u64,
    /// This leader answered the voter's UpdateRaftVoter (FollowerState.hasUpdatedLeader,
    /// 4.1+): at kraft.version 0 a voter tells each leader once.
    pub has_updated_leader: bool,
}

#[derive(Clone, Copy, Debug)]
pub struct SnapshotDownload {
    pub id: super::rpc::SnapshotId,
    pub position: u64,
}

#[derive(Clone, Debug)]
pub struct ResignedState {
    pub epoch: Epoch,
    pub election_deadline: u64,
    pub preferred_successors: Vec<NodeId>,
    /// Voters that have not acknowledged EndQuorumEpoch yet.
    pub unacked: Vec<NodeId>,
}

#[derive(Clone, Debug)]
pub enum EpochState {
    Unattached(UnattachedState),
    Prospective(ProspectiveState),
    Candidate(CandidateState),
    Leader(Box<LeaderState>),
    Follower(FollowerState),
    Resigned(ResignedState),
}

impl EpochState {
    pub fn epoch(&self) -> Epoch {
        match self {
            EpochState::Unattached(s) => s.epoch,
            EpochState::Prospective(s) => s.epoch,
            EpochState::Candidate(s) => s.epoch,
            EpochState::Leader(s) => s.epoch,
            EpochState::Follower(s) => s.epoch,
            EpochState::Resigned(s) => s.epoch,
        }
    }

    pub fn name(&self) -> StateName {
        match self {
            EpochState::Unattached(_) => StateName::Unattached,
            EpochState::Prospective(_) => StateName::Prospective,
            EpochState::Candidate(_) => StateName::Candidate,
            EpochState::Leader(_) => StateName::Leader,
            EpochState::Follower(_) => StateName::Follower,
            EpochState::Resigned(_) => StateName::Resigned,
        }
    }

    /// When the election timer of Unattached, Prospective, Candidate or Resigned fires
    /// (None for the other states, and for an observer's Unattached, which never elects).
    pub fn election_deadline(&self) -> Option<u64> {
        match self {
            EpochState::Unattached(s) => Some(s.election_deadline).filter(|d| *d != u64::MAX),
            EpochState::Prospective(s) => Some(s.election_deadline),
            EpochState::Candidate(s) => Some(s.election_deadline),
            EpochState::Resigned(s) => Some(s.election_deadline),
            EpochState::Leader(_) | EpochState::Follower(_) => None,
        }
    }

    /// The state's own data when the replica is in that state (Kafka's QuorumState.
    /// maybeLeaderState, followerStateOrThrow and the like).
    pub fn as_leader(&self) -> Option<&LeaderState> {
        match self {
            EpochState::Leader(l) => Some(l),
            _ => None,
        }
    }
    pub fn as_leader_mut(&mut self) -> Option<&mut LeaderState> {
        match self {
            EpochState::Leader(l) => Some(l),
            _ => None,
        }
    }
    pub fn as_follower(&self) -> Option<&FollowerState> {
        match self {
            EpochState::Follower(f) => Some(f),
            _ => None,
        }
    }
    pub fn as_follower_mut(&mut self) -> Option<&mut FollowerState> {
        match self {
            EpochState::Follower(f) => Some(f),
            _ => None,
        }
    }
    pub fn as_prospective(&self) -> Option<&ProspectiveState> {
        match self {
            EpochState::Prospective(p) => Some(p),
            _ => None,
        }
    }
    pub fn as_prospective_mut(&mut self) -> Option<&mut ProspectiveState> {
        match self {
            EpochState::Prospective(p) => Some(p),
            _ => None,
        }
    }
    pub fn as_resigned_mut(&mut self) -> Option<&mut ResignedState> {
        match self {
            EpochState::Resigned(r) => Some(r),
            _ => None,
        }
    }

    /// The leader this replica knows for its epoch (itself when leading or resigned).
    pub fn leader(&self, me: NodeId) -> Option<NodeId> {
        match self {
            EpochState::Unattached(s) => s.leader,
            EpochState::Prospective(s) => s.leader,
            EpochState::Candidate(_) => None,
            EpochState::Leader(_) | EpochState::Resigned(_) => Some(me),
            EpochState::Follower(s) => Some(s.leader),
        }
    }
}

// Needs the derived TypeScript (feature `ts`, which the workspace's tests turn on).
#[cfg(all(test, feature = "ts"))]
mod tests {
    use super::Reason;
    use ts_rs::TS;

    /// The derived TypeScript union names every variant (serde's names, in declaration
    /// order): `Reason::ALL` must list the same, and `name()` must agree with serde.
    #[test]
    fn every_reason_is_in_all() {
        let listed: Vec<String> = Reason::ALL.iter().map(|r| format!("\"{}\"", r.name())).collect();
        assert_eq!(Reason::inline(&ts_rs::Config::new()), listed.join(" | "));
        for r in Reason::ALL {
            assert_eq!(serde_json::to_value(r).unwrap(), r.name());
        }
    }
}
