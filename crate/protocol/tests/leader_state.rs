//! Kafka's `LeaderStateTest` for a voter set that changes under the leader (KIP-853):
//! each test names the one it follows. The static-quorum rules are `leader.rs`'s own tests.

use kraft_protocol::config::QuorumConfig;
use kraft_protocol::leader::{LeaderState, CAUGHT_UP_WINDOW_MS};
use kraft_protocol::record::{NodeId, Offset};
use kraft_protocol::voters::{Endpoints, KRaftVersionRange, VoterNode};
use kraft_protocol::{DirectoryId, ReplicaKey, VoterSet};

fn dk(id: NodeId) -> ReplicaKey {
    ReplicaKey::new(id, DirectoryId::new(100 + id as u64))
}
fn keyed_set(ids: &[NodeId]) -> VoterSet {
    VoterSet::from_nodes(
        ids.iter().map(|&id| VoterNode::new(dk(id), Endpoints::of_node(id), KRaftVersionRange::SUPPORTED)),
    )
}
/// A leader n0 of `voters` (with directory ids) whose epoch started at `epoch_start`.
fn keyed_leader(voters: &[NodeId], epoch_start: Offset) -> LeaderState {
    LeaderState::new(3, epoch_start, &keyed_set(voters), dk(0), 0, &QuorumConfig::default())
}
/// The leader appends under `voters` (KafkaRaftClient.flushLeaderLog: updateLocalState).
fn append(l: &mut LeaderState, leo: Offset, voters: &VoterSet) -> Option<Offset> {
    l.update_voters(voters);
    l.update_local(leo, 0);
    l.maybe_advance_hw(false)
}
fn fetch(l: &mut LeaderState, key: ReplicaKey, offset: Offset) -> Option<Offset> {
    l.update_follower(key, offset, 20, 0);
    l.maybe_advance_hw(false)
}

/// LeaderStateTest.testHighWatermarkDoesIncreaseFromNewVoter: an observer's offset
/// counts once the set it is added to is appended.
#[test]
fn hw_does_increase_from_new_voter() {
    let mut l = keyed_leader(&[0, 1], 5);
    assert_eq!(append(&mut l, 15, &keyed_set(&[0, 1])), None);
    assert_eq!(fetch(&mut l, dk(1), 10), Some(10));
    assert_eq!(fetch(&mut l, dk(2), 15), None, "an observer does not count");
    assert_eq!(append(&mut l, 15, &keyed_set(&[0, 1, 2])), Some(15));
    assert_eq!(append(&mut l, 16, &keyed_set(&[0, 1, 2])), None);
    assert_eq!(fetch(&mut l, dk(2), 16), Some(16));
}

/// LeaderStateTest.testHighWatermarkDoesNotDecreaseFromNewVoter: a lagging new voter
/// lowers the majority offset, never the HW.
#[test]
fn hw_does_not_decrease_from_new_voter() {
    let mut l = keyed_leader(&[0, 1, 2], 5);
    append(&mut l, 15, &keyed_set(&[0, 1, 2]));
    assert_eq!(fetch(&mut l, dk(1), 15), Some(15));
    fetch(&mut l, dk(2), 10);
    fetch(&mut l, dk(3), 10);
    assert_eq!(append(&mut l, 16, &keyed_set(&[0, 1, 2, 3])), None);
    assert_eq!((fetch(&mut l, dk(2), 13), fetch(&mut l, dk(3), 13), fetch(&mut l, dk(1), 16)), (None, None, None));
    assert_eq!(l.high_watermark, Some(15));
    assert_eq!(fetch(&mut l, dk(3), 16), Some(16));
}

/// LeaderStateTest.testUpdateHighWatermarkQuorumRemovingLeaderFromVoterStates: a leader
/// that removed itself no longer counts toward the HW (KAFKA-16530).
#[test]
fn a_leader_removed_from_the_voters_does_not_count_toward_the_hw() {
    let mut l = keyed_leader(&[0, 1, 2], 10);
    append(&mut l, 15, &keyed_set(&[0, 1, 2]));
    assert_eq!(fetch(&mut l, dk(1), 15), Some(15));
    fetch(&mut l, dk(2), 10);
    assert_eq!(append(&mut l, 17, &keyed_set(&[1, 2])), None, "the HW never decreases");
    assert_eq!(fetch(&mut l, dk(1), 16), None);
    assert_eq!(append(&mut l, 18, &keyed_set(&[1, 2])), None, "18 at the leader counts for nothing");
    assert_eq!(fetch(&mut l, dk(2), 15), None);
    assert_eq!(fetch(&mut l, dk(2), 16), Some(16), "both remaining voters have 16");
    assert!(!l.progress_mut(dk(0)).is_voter);
}

/// LeaderStateTest.testCheckQuorumAfterVoterSetChanges: the majority check-quorum needs
/// follows the latest set, and the leader counts itself only while in it.
#[test]
fn check_quorum_follows_the_voter_set() {
    let c = QuorumConfig::default();
    let mut l = keyed_leader(&[0, 1, 2], 0);
    l.record_voter_fetch(dk(1), 1500, &c);
    assert_eq!(l.check_quorum_deadline, 4500, "one follower and the leader are a majority of 3");
    append(&mut l, 1, &keyed_set(&[0, 1, 2, 3]));
    l.record_voter_fetch(dk(1), 3000, &c);
    assert_eq!(l.check_quorum_deadline, 4500, "4 voters need 2 followers");
    l.record_voter_fetch(dk(2), 3000, &c);
    assert_eq!(l.check_quorum_deadline, 6000);
    append(&mut l, 1, &keyed_set(&[1, 2, 3]));
    l.record_voter_fetch(dk(2), 4500, &c);
    assert_eq!(l.check_quorum_deadline, 6000, "without the leader, 2 of 3 followers");
    l.record_voter_fetch(dk(1), 4500, &c);
    assert_eq!(l.check_quorum_deadline, 7500);
    l.record_voter_fetch(ReplicaKey::new(3, DirectoryId::new(999)), 5000, &c);
    l.record_voter_fetch(dk(1), 5000, &c);
    assert_eq!(l.check_quorum_deadline, 7500, "another disk of voter 3 is an observer");
}

/// LeaderStateTest.testUpdateVotersFromNoDirectoryIdToDirectoryId: static entries match
/// any disk; once the set names directory ids, the rows take them.
#[test]
fn voters_without_directory_ids_take_them_from_the_set() {
    let mut l = LeaderState::new(3, 0, &VoterSet::from_static([0, 1, 2]), dk(0), 0, &QuorumConfig::default());
    append(&mut l, 10, &VoterSet::from_static([0, 1, 2]));
    assert_eq!(fetch(&mut l, dk(1), 10), Some(10));
    assert_eq!(append(&mut l, 15, &keyed_set(&[0, 1, 2])), None);
    assert_eq!(fetch(&mut l, dk(2), 13), Some(13));
    assert_eq!(l.replicas.iter().filter(|r| r.is_voter).map(|r| r.key()).collect::<Vec<_>>(), [dk(0), dk(1), dk(2)]);
    assert_eq!(fetch(&mut l, ReplicaKey::new(1, DirectoryId::new(999)), 20), None, "a wiped disk is an observer");
    assert_eq!(l.replicas.len(), 4);
}

/// LeaderState.isReplicaCaughtUp: an observer that reached the leader's LEO once, and
/// fetched within the hour; how far behind it is now does not matter (KAFKA-19933).
#[test]
fn a_replica_is_caught_up_if_it_reached_the_leo_once_within_the_hour() {
    let mut l = keyed_leader(&[0, 1], 0);
    l.update_follower(dk(2), 3, 10, 100);
    assert!(!l.is_replica_caught_up(dk(2), 100), "never reached the LEO");
    l.update_follower(dk(2), 10, 10, 200);
    l.update_follower(dk(2), 10, 50, 300);
    assert!(l.is_replica_caught_up(dk(2), 300), "40 behind now, but it caught up at 200");
    assert!(l.is_replica_caught_up(dk(2), 300 + CAUGHT_UP_WINDOW_MS - 1));
    assert!(!l.is_replica_caught_up(dk(2), 300 + CAUGHT_UP_WINDOW_MS), "no fetch for an hour");
    assert!(!l.is_replica_caught_up(dk(1), 300), "a voter is not a joiner");
}
