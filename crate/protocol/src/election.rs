//! Voting rules: who may grant a (pre-)vote in which state, and the EndQuorumEpoch
//! backoff that lets the preferred successor start its election first.

use super::record::NodeId;
use super::replica_key::ReplicaKey;
use super::state::EpochState;
use serde::Serialize;

/// The outcome of a vote request and why, shown on the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteDecision {
    Granted,
    /// A repeated request from the candidate already voted for (no log check).
    GrantedAgain,
    LogNotUpToDate,
    AlreadyVoted(NodeId),
    KnowsLeader(NodeId),
    IsLeader,
    IsCandidate,
    IsResigned,
    /// A follower that has fetched from its leader (named) rejects pre-votes (KIP-996).
    FollowerHasFetched(NodeId),
    /// A follower of the named leader rejects standard votes in its epoch.
    IsFollower(NodeId),
    StaleEpoch,
    /// The request names another replica key than the receiver's (INVALID_VOTER_KEY,
    /// KafkaRaftClient.handleVoteRequest): it was meant for another disk of this node.
    InvalidVoterKey,
    InvalidRequest,
}

/// The fields a vote decision adds to a `vote` trace event: `granted`, `reason` (its
/// [`VoteDecision::name`]) and `detail`.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VoteOutcome {
    granted: bool,
    #[cfg_attr(feature = "ts", ts(type = "VoteReason"))]
    reason: &'static str,
    detail: String,
}

// A decision's JSON form is `VoteOutcome`'s, flattened into the `vote` event.
impl Serialize for VoteDecision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.outcome().serialize(s)
    }
}

#[cfg(feature = "ts")]
impl ts_rs::TS for VoteDecision {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(cfg: &ts_rs::Config) -> String {
        VoteOutcome::name(cfg)
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        VoteOutcome::inline(cfg)
    }
    fn inline_flattened(cfg: &ts_rs::Config) -> String {
        VoteOutcome::inline_flattened(cfg)
    }
}

impl VoteDecision {
    pub fn outcome(self) -> VoteOutcome {
        VoteOutcome { granted: self.granted(), reason: self.name(), detail: self.describe() }
    }

    pub fn granted(self) -> bool {
        matches!(self, VoteDecision::Granted | VoteDecision::GrantedAgain)
    }

    pub fn describe(self) -> String {
        match self {
            VoteDecision::Granted => "granted".into(),
            VoteDecision::GrantedAgain => "granted again (already voted for it)".into(),
            VoteDecision::LogNotUpToDate => "candidate's log is not up to date".into(),
            VoteDecision::AlreadyVoted(n) => format!("already voted for {n} in this epoch"),
            VoteDecision::KnowsLeader(n) => format!("knows leader {n} in this epoch"),
            VoteDecision::IsLeader => "is the leader".into(),
            VoteDecision::IsCandidate => "is a candidate (voted for itself)".into(),
            VoteDecision::IsResigned => "resigned leader of this epoch".into(),
            VoteDecision::FollowerHasFetched(l) => format!("follower has fetched from its leader {l}"),
            VoteDecision::IsFollower(l) => format!("is a follower of {l} in this epoch"),
            VoteDecision::StaleEpoch => "request epoch is stale".into(),
            VoteDecision::InvalidVoterKey => "the request names another replica key".into(),
            VoteDecision::InvalidRequest => "invalid request (last epoch beyond request epoch)".into(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            VoteDecision::Granted => "granted",
            VoteDecision::GrantedAgain => "granted-again",
            VoteDecision::LogNotUpToDate => "log-not-up-to-date",
            VoteDecision::AlreadyVoted(_) => "already-voted",
            VoteDecision::KnowsLeader(_) => "knows-leader",
            VoteDecision::IsLeader => "is-leader",
            VoteDecision::IsCandidate => "is-candidate",
            VoteDecision::IsResigned => "is-resigned",
            VoteDecision::FollowerHasFetched(_) => "follower-has-fetched",
            VoteDecision::IsFollower(_) => "is-follower",
            VoteDecision::StaleEpoch => "stale-epoch",
            VoteDecision::InvalidVoterKey => "invalid-voter-key",
            VoteDecision::InvalidRequest => "invalid-request",
        }
    }
}

/// Kafka's `canGrantVote` per epoch state, for a request at the receiver's epoch:
/// `QuorumState.unattachedOrProspectiveCanGrantVote` (Unattached, Prospective),
/// `CandidateState`, `LeaderState`, `FollowerState` and `ResignedState.canGrantVote`.
/// None of them asks whether the candidate, or the receiver, is a voter (KIP-853: a
/// replica may hold a voter set older or newer than the candidate's, KAFKA-16526).
pub fn vote_decision(state: &EpochState, candidate: ReplicaKey, up_to_date: bool, pre_vote: bool) -> VoteDecision {
    let by_log = if up_to_date { VoteDecision::Granted } else { VoteDecision::LogNotUpToDate };
    let unattached_like = |voted: Option<ReplicaKey>, leader: Option<NodeId>| {
        if pre_vote {
            return by_log;
        }
        match (voted, leader) {
            // ElectionState.isVotedCandidate: a vote kept without a directory id is for any
            // disk of that node.
            (Some(v), _) if v.matches(candidate) => VoteDecision::GrantedAgain,
            (Some(v), _) => VoteDecision::AlreadyVoted(v.id),
            (None, Some(l)) => VoteDecision::KnowsLeader(l),
            (None, None) => by_log,
        }
    };
    match state {
        EpochState::Unattached(s) => unattached_like(s.voted, s.leader),
        EpochState::Prospective(s) => unattached_like(s.voted, s.leader),
        EpochState::Candidate(_) if pre_vote => by_log,
        EpochState::Candidate(_) => VoteDecision::IsCandidate,
        EpochState::Leader(_) => VoteDecision::IsLeader,
        EpochState::Follower(f) if pre_vote => {
            if f.has_fetched {
                VoteDecision::FollowerHasFetched(f.leader)
            } else {
                by_log
            }
        }
        EpochState::Follower(f) => VoteDecision::IsFollower(f.leader),
        // A resigned leader grants an up-to-date pre-vote (it will not lead this epoch
        // again, so it helps a successor start), but never a standard vote in its epoch.
        EpochState::Resigned(_) if pre_vote => by_log,
        EpochState::Resigned(_) => VoteDecision::IsResigned,
    }
}

/// How long a follower waits before its election after EndQuorumEpoch: the first
/// preferred successor at once, later ones exponentially longer, absent ones the max.
/// Kafka's `strictExponentialElectionBackoffMs`.
pub fn end_quorum_backoff_ms(successors: &[NodeId], me: NodeId, max_ms: u64) -> u64 {
    let n = successors.len();
    let pos = successors.iter().position(|s| *s == me).unwrap_or(n);
    if pos == 0 {
        return 0; // also the empty list a restarted leader sends: everyone at once
    }
    if pos >= n {
        return max_ms;
    }
    let base = max_ms >> (n - 1).min(63);
    (base << (pos - 1).min(63)).min(max_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::*;

    fn key(id: NodeId) -> ReplicaKey {
        ReplicaKey::new(id, None)
    }
    fn unattached(voted: Option<NodeId>, leader: Option<NodeId>) -> EpochState {
        EpochState::Unattached(UnattachedState { epoch: 1, voted: voted.map(key), leader, election_deadline: 0 })
    }
    fn follower(has_fetched: bool) -> EpochState {
        EpochState::Follower(FollowerState {
            epoch: 1,
            leader: 9,
            voted: None,
            fetch_deadline: 0,
            has_fetched,
            snapshot_download: None,
            update_voter_deadline: u64::MAX,
            has_updated_leader: false,
        })
    }

    /// The per-state `canGrantVote` rules as Kafka's unit tests pin them:
    /// `UnattachedStateTest.testGrantVoteWithoutVotedKey`, `testCanGrantVoteWithVotedKey` and
    /// `testGrantVoteWithLeader`; `ProspectiveStateTest.testGrantVoteWithLeader`;
    /// `CandidateStateTest.testGrantVote`; `FollowerStateTest.testPreVoteIfHasNotFetchedFromLeaderYet`,
    /// `testPreVoteAfterSuccessfulFetchFromLeader` and `testGrantStandardVote`;
    /// `ResignedStateTest.testGrantVote`.
    #[test]
    fn vote_granting_table() {
        use VoteDecision::*;
        let cand = EpochState::Candidate(CandidateState {
            epoch: 1,
            granted: vec![1],
            rejected: vec![],
            election_deadline: 0,
        });
        let resigned = EpochState::Resigned(ResignedState {
            epoch: 1,
            election_deadline: 0,
            preferred_successors: vec![],
            unacked: vec![],
        });
        let prospective_with_leader = EpochState::Prospective(ProspectiveState {
            epoch: 1,
            voted: None,
            leader: Some(3),
            granted: vec![1],
            rejected: vec![],
            election_deadline: 0,
        });
        // (state, up_to_date, pre_vote, expected)
        let cases: Vec<(EpochState, bool, bool, VoteDecision)> = vec![
            (unattached(None, None), true, false, Granted),
            (unattached(None, None), false, false, LogNotUpToDate),
            (unattached(Some(2), None), false, false, GrantedAgain),
            (unattached(Some(3), None), true, false, AlreadyVoted(3)),
            (unattached(None, Some(3)), true, false, KnowsLeader(3)),
            (unattached(Some(3), None), true, true, Granted),
            (unattached(Some(3), None), false, true, LogNotUpToDate),
            (prospective_with_leader.clone(), true, true, Granted),
            (prospective_with_leader.clone(), false, true, LogNotUpToDate),
            (prospective_with_leader, true, false, KnowsLeader(3)),
            (cand.clone(), true, false, IsCandidate),
            (cand, true, true, Granted),
            (follower(false), true, true, Granted),
            (follower(true), true, true, FollowerHasFetched(9)),
            (follower(false), true, false, IsFollower(9)),
            // ResignedStateTest.testGrantVote: pre-votes by the log, standard votes never.
            (resigned.clone(), true, true, Granted),
            (resigned.clone(), false, true, LogNotUpToDate),
            (resigned.clone(), true, false, IsResigned),
            (resigned, false, false, IsResigned),
        ];
        for (i, (state, up, pre, want)) in cases.into_iter().enumerate() {
            assert_eq!(vote_decision(&state, key(2), up, pre), want, "case {i}");
        }
    }

    /// UnattachedStateTest.testCanGrantVoteWithVotedKey (directory ids): the vote went to
    /// one replica; another disk of that node is another candidate. A vote kept without a
    /// directory id (quorum-state v0) is for any disk of the node.
    #[test]
    fn a_vote_is_for_one_replica_key() {
        use crate::replica_key::DirectoryId;
        let disk = |id, d| ReplicaKey::new(id, DirectoryId::new(d));
        let voted = |k| {
            EpochState::Unattached(UnattachedState { epoch: 1, voted: Some(k), leader: None, election_deadline: 0 })
        };
        assert_eq!(vote_decision(&voted(disk(2, 5)), disk(2, 5), false, false), VoteDecision::GrantedAgain);
        assert_eq!(vote_decision(&voted(disk(2, 5)), disk(2, 6), true, false), VoteDecision::AlreadyVoted(2));
        assert_eq!(vote_decision(&voted(disk(2, 0)), disk(2, 6), false, false), VoteDecision::GrantedAgain);
    }

    #[test]
    fn leader_always_rejects() {
        let voters = crate::VoterSet::from_static([1, 2, 3]);
        let l = crate::leader::LeaderState::new(1, 0, &voters, key(1), 0, &Default::default());
        let s = EpochState::Leader(Box::new(l));
        assert_eq!(vote_decision(&s, key(2), true, true), VoteDecision::IsLeader);
        assert_eq!(vote_decision(&s, key(2), true, false), VoteDecision::IsLeader);
    }

    #[test]
    fn end_quorum_epoch_backoff_matches_kafka() {
        // 3 voters: two successors.
        assert_eq!(end_quorum_backoff_ms(&[2, 3], 2, 1000), 0);
        assert_eq!(end_quorum_backoff_ms(&[2, 3], 3, 1000), 500);
        assert_eq!(end_quorum_backoff_ms(&[2, 3], 7, 1000), 1000);
        // 5 voters: four successors.
        let s = [5, 4, 3, 2];
        assert_eq!(end_quorum_backoff_ms(&s, 5, 1000), 0);
        assert_eq!(end_quorum_backoff_ms(&s, 4, 1000), 125);
        assert_eq!(end_quorum_backoff_ms(&s, 3, 1000), 250);
        assert_eq!(end_quorum_backoff_ms(&s, 2, 1000), 500);
        // A restarted leader's empty list: everyone at once.
        assert_eq!(end_quorum_backoff_ms(&[], 4, 1000), 0);
    }
}
