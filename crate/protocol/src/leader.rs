//! The leader's bookkeeping (Kafka's LeaderState): each replica's progress, the high
//! watermark rule, the check-quorum window, the write batch, the parked fetches and the
//! voter change in progress.

use super::config::QuorumConfig;
use super::record::{Epoch, NodeId, Offset, RecordBody};
use super::replica_key::{DirectoryId, ReplicaKey};
use super::rpc::FetchResponse;
use super::voters::{Endpoints, KRaftVersion, VoterSet};
use serde::Serialize;

/// How recently a joining replica must have fetched to count as caught up
/// (LeaderState.isReplicaCaughtUp: an hour).
pub const CAUGHT_UP_WINDOW_MS: u64 = 3_600_000;

/// What the leader knows of one replica (the rows of DescribeQuorum), under its replica
/// key: a voter's row by node id (its directory id, if the set names one, must match),
/// an observer's by its full key, so a wiped voter fetching with a new disk is an observer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ReplicaProgress {
    #[serde(rename = "replicaId")]
    pub id: NodeId,
    #[serde(rename = "replicaDirectoryId", skip_serializing_if = "Option::is_none")]
    pub directory: Option<DirectoryId>,
    #[serde(rename = "isVoter")]
    pub is_voter: bool,
    /// The fetch offset it last reported (its LEO as the leader counts it).
    #[serde(rename = "logEndOffset")]
    pub end_offset: Option<Offset>,
    #[serde(rename = "lastFetchTimestamp")]
    pub last_fetch_ms: Option<u64>,
    #[serde(rename = "lastCaughtUpTimestamp")]
    pub last_caught_up_ms: Option<u64>,
    /// Leader's LEO when this replica last fetched (for lastCaughtUpTimestamp).
    #[serde(skip)]
    pub leo_at_last_fetch: Offset,
}

impl ReplicaProgress {
    fn new(key: ReplicaKey) -> ReplicaProgress {
        ReplicaProgress {
            id: key.id,
            directory: key.directory,
            is_voter: false,
            end_offset: None,
            last_fetch_ms: None,
            last_caught_up_ms: None,
            leo_at_last_fetch: 0,
        }
    }

    pub fn key(&self) -> ReplicaKey {
        ReplicaKey::new(self.id, self.directory)
    }
}

/// A Fetch with nothing to return yet, waiting up to maxWaitMs.
#[derive(Clone, Debug)]
pub struct ParkedFetch {
    pub from: NodeId,
    pub correlation: u64,
    pub fetch_offset: Offset,
    /// The fetcher's `maxBytes`, for the response that completes the fetch.
    pub max_bytes: u64,
    pub deadline: u64,
    /// The answer the expiry timer sends: as of when the fetch was parked.
    pub expiry_response: FetchResponse,
}

#[derive(Clone, Debug)]
pub struct LeaderState {
    pub epoch: Epoch,
    /// The leader's own key. Whether it counts toward the HW and check-quorum depends on
    /// its being in the latest voter set: a leader that removes itself keeps leading
    /// without counting itself until the change commits (KAFKA-16530).
    pub me: ReplicaKey,
    /// The LEO when this leader was elected: the offset of its LeaderChange record.
    pub epoch_start_offset: Offset,
    /// None until a record of this epoch is committed (a new leader has no HW).
    pub high_watermark: Option<Offset>,
    /// The voters first (as `new` lists them), then observers as they first fetch; a
    /// replica's `is_voter` is whether the voter set last given counts it.
    pub replicas: Vec<ReplicaProgress>,
    pub check_quorum_deadline: u64,
    /// Voters that fetched validly in the current check-quorum window.
    pub fetched_voters: Vec<NodeId>,
    /// How many of them restart the window: a majority of the voters, less the leader
    /// itself while it is one of them (updateCheckQuorumForFollowingVoter). Kept with the
    /// voter rows, as it is read on every fetch.
    pub check_quorum_fetchers: usize,
    pub begin_quorum_deadline: u64,
    /// Client writes waiting for append.linger.ms: (record id, body).
    pub pending_writes: Vec<(u64, RecordBody)>,
    pub linger_deadline: Option<u64>,
    pub parked: Vec<ParkedFetch>,
    /// Set by a graceful `resign()`, or once the leader's own removal commits
    /// (LeaderState.requestResign); the raft thread resigns at its next poll.
    pub resign_requested: Option<ResignRequest>,
    /// The voters that elected this leader, itself included (LeaderChange's
    /// grantingVoters).
    pub granting_voters: Vec<NodeId>,
    /// The AddRaftVoter or RemoveRaftVoter in progress (at most one).
    pub voter_change: Option<PendingVoterChange>,
    /// The upgrade of kraft.version from 0 to 1 (LeaderState's kraftVersionUpgradeState,
    /// Kafka 4.1+): the voters kept in memory until then, or the version an upgrade asked for.
    pub kraft_version_upgrade: KRaftVersionUpgrade,
}

/// LeaderState's KRaftVersionUpgrade (Kafka 4.1+, KAFKA-16538): how far a kraft.version 0
/// leader is on its way to kraft.version 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum KRaftVersionUpgrade {
    /// Nothing to upgrade: kraft.version 1 already (KRaftVersionUpgrade.empty()).
    #[default]
    Empty,
    /// At kraft.version 0 (KRaftVersionUpgrade.Voters): the static voters with this
    /// leader's own entry and what UpdateRaftVoter told it, kept in memory until an upgrade
    /// writes them.
    Voters(VoterSet),
    /// An upgrade to this version was accepted and its records appended
    /// (KRaftVersionUpgrade.Version).
    Version(KRaftVersion),
}

impl LeaderState {
    pub fn new(
        epoch: Epoch,
        epoch_start_offset: Offset,
        voters: &VoterSet,
        me: ReplicaKey,
        now: u64,
        config: &QuorumConfig,
    ) -> Self {
        let replicas = voters
            .keys()
            .map(|key| {
                let mine = key.matches(me).then_some(now);
                ReplicaProgress {
                    is_voter: true,
                    last_fetch_ms: mine,
                    last_caught_up_ms: mine,
                    ..ReplicaProgress::new(key)
                }
            })
            .collect();
        LeaderState {
            epoch,
            me,
            epoch_start_offset,
            high_watermark: None,
            replicas,
            check_quorum_deadline: now + config.check_quorum_timeout_ms(),
            fetched_voters: Vec::new(),
            check_quorum_fetchers: 0,
            begin_quorum_deadline: now,
            pending_writes: Vec::new(),
            linger_deadline: None,
            parked: Vec::new(),
            resign_requested: None,
            granting_voters: Vec::new(),
            voter_change: None,
            kraft_version_upgrade: KRaftVersionUpgrade::Empty,
        }
        .with_check_quorum_fetchers()
    }

    fn with_check_quorum_fetchers(mut self) -> Self {
        self.count_check_quorum_fetchers();
        self
    }

    fn count_check_quorum_fetchers(&mut self) {
        let voters = self.replicas.iter().filter(|r| r.is_voter);
        let leader_counts = voters.clone().any(|r| r.id == self.me.id);
        self.check_quorum_fetchers = voters.count() / 2 + 1 - leader_counts as usize;
    }

    /// The voter set changed under this leader (Kafka's
    /// LeaderState.updateVoterAndObserverStates, run whenever the leader appends): each
    /// voter takes the row its key matches (its voter row, else the observer row it fetched
    /// under, else a new one), which takes the voter's key; a replica the set no longer
    /// lists keeps its progress as an observer.
    pub fn update_voters(&mut self, voters: &VoterSet) {
        // The common case, on every append: the rows already are this set.
        let voter_rows = self.replicas.iter().filter(|r| r.is_voter);
        if voter_rows.count() == voters.len()
            && voters.keys().all(|k| self.replicas.iter().any(|r| r.is_voter && r.key() == k))
        {
            return;
        }
        let mut voter_now = vec![false; self.replicas.len()];
        for key in voters.keys() {
            let row = self.replicas.iter().position(|r| r.is_voter && r.key().matches(key));
            let row = row.or_else(|| self.replicas.iter().position(|r| !r.is_voter && r.key() == key));
            let i = row.unwrap_or_else(|| {
                self.replicas.push(ReplicaProgress::new(key));
                voter_now.push(false);
                self.replicas.len() - 1
            });
            self.replicas[i].directory = key.directory;
            voter_now[i] = true;
        }
        let demoted: Vec<bool> = self.replicas.iter().zip(&voter_now).map(|(r, now)| r.is_voter && !now).collect();
        for (r, now) in self.replicas.iter_mut().zip(&voter_now) {
            r.is_voter = *now;
        }
        // A demoted voter whose key an observer row holds already gives way to that row
        // (Kafka's observerStates.putIfAbsent).
        let observers: Vec<ReplicaKey> =
            self.replicas.iter().zip(&demoted).filter(|(r, d)| !r.is_voter && !**d).map(|(r, _)| r.key()).collect();
        let mut i = 0;
        self.replicas.retain(|r| {
            i += 1;
            !(demoted[i - 1] && observers.contains(&r.key()))
        });
        self.fetched_voters.retain(|&id| voters.contains(id));
        self.count_check_quorum_fetchers();
    }

    /// The row of `key` (LeaderState.getOrCreateReplicaState): the voter row of its node id
    /// if that row's key matches, else its observer row, made on first sight.
    pub fn progress_mut(&mut self, key: ReplicaKey) -> &mut ReplicaProgress {
        let mut observer = None;
        let mut voter = None;
        for (i, r) in self.replicas.iter().enumerate().filter(|(_, r)| r.id == key.id) {
            if r.is_voter && r.key().matches(key) {
                voter = Some(i);
                break;
            }
            if !r.is_voter && r.key() == key {
                observer = observer.or(Some(i));
            }
        }
        let i = voter.or(observer).unwrap_or_else(|| {
            self.replicas.push(ReplicaProgress::new(key));
            self.replicas.len() - 1
        });
        &mut self.replicas[i]
    }

    /// The leader's own entry moves when it appends (before the flush).
    pub fn update_local(&mut self, leo: Offset, now: u64) {
        let me = self.me;
        let p = self.progress_mut(me);
        p.end_offset = Some(leo);
        p.last_fetch_ms = Some(now);
        p.last_caught_up_ms = Some(now);
        p.leo_at_last_fetch = leo;
    }

    /// Records a valid fetch. A replica is caught up when it fetched the leader's LEO,
    /// or when it fetched at least the LEO the leader had at its previous fetch (then it
    /// was caught up as of that previous fetch).
    pub fn update_follower(&mut self, key: ReplicaKey, fetch_offset: Offset, leader_leo: Offset, now: u64) {
        let p = self.progress_mut(key);
        if fetch_offset >= leader_leo {
            p.last_caught_up_ms = Some(now);
        } else if p.last_fetch_ms.is_some() && fetch_offset >= p.leo_at_last_fetch {
            p.last_caught_up_ms = p.last_fetch_ms;
        }
        p.end_offset = Some(fetch_offset);
        p.last_fetch_ms = Some(now);
        p.leo_at_last_fetch = leader_leo;
    }

    /// The HW candidate: the offset at index voters/2 of the voters' offsets sorted
    /// descending (unknown last), i.e. the offset a majority has reached
    /// (LeaderState.maybeUpdateHighWatermark's indexOfHw). Found by counting instead of
    /// sorting a copy: this runs on every fetch. The voters are wherever the set put them.
    pub fn majority_offset(&self) -> Option<Offset> {
        let voters = || self.replicas.iter().filter(|r| r.is_voter);
        let k = voters().count() / 2;
        // Descending with unknown last, as plain numbers: unknown is 0, offset o is o + 1.
        let rank = |r: &ReplicaProgress| r.end_offset.map_or(0, |o| o.saturating_add(1));
        // The value at index k has at most k voters above it and more than k at or above.
        for v in voters() {
            let o = rank(v);
            let (mut above, mut at_or_above) = (0, 0);
            for w in voters() {
                above += (rank(w) > o) as usize;
                at_or_above += (rank(w) >= o) as usize;
            }
            if above <= k && k < at_or_above {
                return v.end_offset;
            }
        }
        None
    }

    /// The voters whose reported fetch offset reached `offset`, one bit per node id: the
    /// majority an HW move counts (LeaderState.maybeUpdateHighWatermark).
    pub fn voters_reaching(&self, offset: Offset) -> u64 {
        self.replicas
            .iter()
            .filter(|r| r.is_voter && r.end_offset.is_some_and(|o| o >= offset))
            .fold(0, |bits, r| bits | 1 << r.id)
    }

    /// Applies Kafka's rule: the HW moves only past the epoch start offset (a record of
    /// this epoch must be committed first) unless the switch is off; never backwards.
    /// Returns the new HW when it moved.
    pub fn maybe_advance_hw(&mut self, allow_before_own_epoch: bool) -> Option<Offset> {
        let candidate = self.majority_offset()?;
        if !(candidate > self.epoch_start_offset || allow_before_own_epoch) {
            return None;
        }
        if self.high_watermark.map(|hw| candidate > hw).unwrap_or(candidate > 0 || allow_before_own_epoch) {
            self.high_watermark = Some(candidate);
            return Some(candidate);
        }
        None
    }

    /// Counts a valid Fetch or FetchSnapshot for check-quorum
    /// (LeaderState.updateCheckQuorumForFollowingVoter): only a voter's, under its key.
    /// Once a majority of the voters fetched, the leader counting itself when it is one of
    /// them, the window restarts.
    pub fn record_voter_fetch(&mut self, key: ReplicaKey, now: u64, config: &QuorumConfig) {
        let is_voter = self.replicas.iter().any(|r| r.is_voter && r.id == key.id && r.key().matches(key));
        if is_voter && !self.fetched_voters.contains(&key.id) {
            self.fetched_voters.push(key.id);
        }
        if self.fetched_voters.len() >= self.check_quorum_fetchers {
            self.fetched_voters.clear();
            self.check_quorum_deadline = now + config.check_quorum_timeout_ms();
        }
    }

    /// LeaderState.isReplicaCaughtUp, the joiner's test before AddVoter appends: an
    /// observer that reached the leader's LEO at some fetch in this term and fetched within
    /// the last hour. Nothing bounds how far behind it is now (KAFKA-19933).
    pub fn is_replica_caught_up(&self, key: ReplicaKey, now: u64) -> bool {
        self.replicas.iter().any(|r| {
            !r.is_voter
                && r.key() == key
                && r.last_caught_up_ms.is_some()
                && r.last_fetch_ms.is_some_and(|t| t + CAUGHT_UP_WINDOW_MS > now)
        })
    }

    /// The voters kept in memory at kraft.version 0 (LeaderState.volatileVoters).
    pub fn volatile_voters(&self) -> Option<&VoterSet> {
        match &self.kraft_version_upgrade {
            KRaftVersionUpgrade::Voters(v) => Some(v),
            _ => None,
        }
    }

    /// Voters other than `me`, the furthest replicated first (ties by id).
    pub fn preferred_successors(&self, me: NodeId) -> Vec<NodeId> {
        let mut others: Vec<&ReplicaProgress> = self.replicas.iter().filter(|r| r.is_voter && r.id != me).collect();
        kraft_base::small_sort::by_key(&mut others, |r| (std::cmp::Reverse(r.end_offset), r.id));
        others.into_iter().map(|r| r.id).collect()
    }
}

/// Why a leader was asked to resign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResignRequest {
    /// `resign()`: a graceful shutdown or handover.
    Graceful,
    /// RemoveVoterHandler.highWatermarkUpdated: its own removal committed.
    RemovedFromVoters,
}

/// The voter change a leader has accepted and not yet answered (Kafka's
/// AddVoterHandlerState and RemoveVoterHandlerState; at most one of them at a time).
/// Which change is pending.
#[derive(Clone, Debug, PartialEq)]
pub enum VoterChangeKind {
    /// AddVoterHandlerState: add `voter`, reachable at `listeners`; it waits for the new
    /// voter's ApiVersions answer until its VotersRecord is appended.
    Add { voter: ReplicaKey, listeners: Endpoints, ack_when_committed: bool },
    /// RemoveVoterHandlerState: its VotersRecord is appended when it is accepted.
    Remove,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PendingVoterChange {
    pub kind: VoterChangeKind,
    /// Where the answer goes: the requester and its correlation id (the future Kafka
    /// completes when the change ends).
    pub client: NodeId,
    pub correlation: u64,
    /// request.timeout.ms after the change was accepted: the operation's timer (the
    /// request's own TimeoutMs is not read; DefaultRequestSender and RemoveVoterHandler
    /// both use request.timeout.ms).
    pub deadline: u64,
    /// The offset of the VotersRecord once appended (the handler states' lastOffset): the
    /// change commits, and is answered, once the HW passes it.
    pub record_offset: Option<Offset>,
    /// Already answered NONE (AddRaftVoter with AckWhenCommitted false, 4.2+): the change
    /// stays pending until it commits or expires, but its client hears nothing more (the
    /// future Kafka completed early).
    pub answered: bool,
}

impl PendingVoterChange {
    /// AddVoterHandlerState.expectingApiResponse: an ApiVersions answer from `id` is the
    /// one this change waits for.
    pub fn expects_api_versions_from(&self, id: NodeId) -> bool {
        matches!(self.kind, VoterChangeKind::Add { voter, .. } if voter.id == id) && self.record_offset.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(id: NodeId) -> ReplicaKey {
        ReplicaKey::new(id, None)
    }
    fn leader(voters: &[NodeId], epoch_start: Offset) -> LeaderState {
        let set = VoterSet::from_static(voters.iter().copied());
        LeaderState::new(3, epoch_start, &set, k(voters[0]), 0, &QuorumConfig::default())
    }

    #[test]
    fn hw_is_offset_reached_by_majority_of_voters() {
        let mut l = leader(&[1, 2, 3], 0);
        l.update_local(10, 0);
        assert_eq!(l.maybe_advance_hw(false), None, "only the leader has records");
        l.update_follower(k(2), 4, 10, 1);
        assert_eq!(l.maybe_advance_hw(false), Some(4));
        l.update_follower(k(3), 7, 10, 1);
        assert_eq!(l.maybe_advance_hw(false), Some(7));
        l.update_follower(k(3), 6, 10, 2);
        assert_eq!(l.maybe_advance_hw(false), None, "the HW never decreases");
        assert_eq!(l.high_watermark, Some(7));
    }

    #[test]
    fn observers_never_count_toward_the_hw() {
        let mut l = leader(&[1, 2, 3], 0);
        l.update_local(10, 0);
        l.update_follower(k(9), 10, 10, 1);
        l.update_follower(k(8), 10, 10, 1);
        assert_eq!(l.maybe_advance_hw(false), None);
    }

    #[test]
    fn hw_waits_for_a_record_of_the_leaders_epoch() {
        // Epoch started at 5 (LeaderChange at offset 5): a majority at 5 covers only
        // earlier epochs' records, so the HW must not move to 5.
        let mut l = leader(&[1, 2, 3], 5);
        l.update_local(6, 0);
        l.update_follower(k(2), 5, 6, 1);
        assert_eq!(l.maybe_advance_hw(false), None);
        assert_eq!(l.maybe_advance_hw(true), Some(5), "unsafe switch commits old-epoch records");
        l.update_follower(k(2), 6, 6, 2);
        assert_eq!(l.maybe_advance_hw(false), Some(6));
    }

    #[test]
    fn five_voters_take_the_third_highest() {
        let mut l = leader(&[1, 2, 3, 4, 5], 0);
        l.update_local(20, 0);
        l.update_follower(k(2), 15, 20, 1);
        l.update_follower(k(3), 3, 20, 1);
        assert_eq!(l.majority_offset(), Some(3));
        l.update_follower(k(4), 9, 20, 1);
        assert_eq!(l.majority_offset(), Some(9));
    }

    #[test]
    fn majority_offset_is_the_middle_of_the_sorted_offsets() {
        // Every assignment of {unknown, 0, 1, 2, 3} to 1..=5 voters, against the sort.
        for n in 1..=5usize {
            let voters: Vec<NodeId> = (0..n as NodeId).collect();
            for mut code in 0..5usize.pow(n as u32) {
                let mut l = leader(&voters, 0);
                let mut offsets = Vec::new();
                for p in l.replicas.iter_mut() {
                    p.end_offset = (code % 5).checked_sub(1).map(|o| o as Offset);
                    offsets.push(p.end_offset);
                    code /= 5;
                }
                offsets.sort_by(|a, b| b.cmp(a));
                assert_eq!(l.majority_offset(), offsets[n / 2], "{offsets:?}");
            }
        }
    }

    /// The HW counts the voter set it was last given, wherever those replicas sit in the
    /// progress rows: a removed voter's offset stops counting, an observer made a voter
    /// counts at once with the offset it fetched.
    #[test]
    fn the_hw_majority_is_the_voter_set_given() {
        let mut l = leader(&[1, 2, 3], 0);
        l.update_local(10, 0);
        l.update_follower(k(2), 8, 10, 1);
        l.update_follower(k(9), 10, 10, 1);
        assert_eq!(l.majority_offset(), Some(8));
        l.update_voters(&VoterSet::from_static([1, 3, 9]));
        assert_eq!(l.majority_offset(), Some(10), "1 and 9 are at 10; 2 no longer counts");
        assert!(!l.progress_mut(k(2)).is_voter && l.progress_mut(k(9)).is_voter);
        assert_eq!(l.voters_reaching(10), 1 << 1 | 1 << 9);
        l.update_voters(&VoterSet::from_static([1, 3, 4, 9, 2]));
        assert_eq!(l.majority_offset(), Some(8), "five voters: the third highest of 10, 10, 8, -, -");
        assert_eq!(l.preferred_successors(1), vec![9, 2, 3, 4]);
    }

    #[test]
    fn a_voter_removed_mid_window_no_longer_counts_for_check_quorum() {
        let c = QuorumConfig::default();
        let mut l = leader(&[1, 2, 3, 4, 5], 0);
        l.record_voter_fetch(k(2), 1000, &c);
        l.update_voters(&VoterSet::from_static([1, 3, 4, 5]));
        assert!(l.fetched_voters.is_empty(), "2's fetch is forgotten with its vote");
        l.record_voter_fetch(k(3), 1100, &c);
        assert_eq!(l.check_quorum_deadline, 3000);
        l.record_voter_fetch(k(4), 1200, &c);
        assert_eq!(l.check_quorum_deadline, 4200);
    }

    #[test]
    fn check_quorum_window_restarts_after_majority_fetched() {
        let c = QuorumConfig::default();
        let mut l = leader(&[1, 2, 3, 4, 5], 0);
        assert_eq!(l.check_quorum_deadline, 3000);
        l.record_voter_fetch(k(2), 1000, &c);
        assert_eq!(l.check_quorum_deadline, 3000, "one voter is not majority - 1 = 2");
        l.record_voter_fetch(k(2), 1100, &c);
        assert_eq!(l.check_quorum_deadline, 3000, "the same voter twice counts once");
        l.record_voter_fetch(k(4), 1200, &c);
        assert_eq!(l.check_quorum_deadline, 4200);
        assert!(l.fetched_voters.is_empty());
    }

    #[test]
    fn caught_up_timestamp_follows_kafka_rule() {
        let mut l = leader(&[1, 2, 3], 0);
        l.update_follower(k(2), 5, 10, 100);
        assert_eq!(l.progress_mut(k(2)).last_caught_up_ms, None);
        // Reached the LEO the leader had at the previous fetch: caught up as of then.
        l.update_follower(k(2), 10, 12, 200);
        assert_eq!(l.progress_mut(k(2)).last_caught_up_ms, Some(100));
        l.update_follower(k(2), 12, 12, 300);
        assert_eq!(l.progress_mut(k(2)).last_caught_up_ms, Some(300));
    }
}
