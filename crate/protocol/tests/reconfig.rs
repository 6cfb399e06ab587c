//! KIP-853 at the replica: Kafka's `KafkaRaftClientReconfigTest` behaviours (and the
//! voter-key ones of `KafkaRaftClientTest`) that a replica alone can show, each test
//! naming the Kafka test it follows. Replicas are driven message by message
//! (`support::Cluster`); an admin client sends AddRaftVoter and RemoveRaftVoter.

mod support;

use kraft_protocol::rpc::{
    ApiVersionsResponse, BeginQuorumEpochRequest, ErrorCode, FetchRequest, Message, RpcKind, UpdateRaftVoterRequest,
    VoteRequest,
};
use kraft_protocol::voters::{Endpoint, Endpoints, KRaftVersionRange};
use kraft_protocol::{Reason, RecordBody, ReplicaKey, SafetySwitch, StateName, Unsafe};
use support::{dir, key, Cluster};

/// A dynamic quorum of `voters` plus `observers`, n0 elected, everyone caught up.
fn settled(voters: &[u32], observers: &[u32]) -> Cluster {
    let mut c = Cluster::dynamic(voters, observers);
    c.elect(0);
    c.settle(300);
    c.take_answers();
    c
}

fn answer(c: &mut Cluster) -> Vec<&'static str> {
    c.take_answers()
}

/// testLeaderWritesBootstrapRecords: a leader whose voter set came from the bootstrap
/// checkpoint opens its epoch with one batch of LeaderChange (its voters and the voters
/// that elected it), KRaftVersionRecord and VotersRecord.
#[test]
fn leader_writes_bootstrap_records() {
    let mut c = Cluster::dynamic(&[0, 1], &[]);
    c.elect(0);
    let log = c.replica(0).log();
    let bodies: Vec<&RecordBody> = log.records().map(|r| &r.body).take(3).collect();
    assert_eq!(bodies[0], &RecordBody::leader_change(0, vec![0, 1], vec![0, 1]));
    assert_eq!(bodies[1], &RecordBody::KRaftVersion { version: kraft_protocol::KRaftVersion::V1 });
    assert_eq!(bodies[2], &RecordBody::Voters { voters: c.replica(0).voters().clone() });
    let first_batch = c.notes.iter().find_map(|(n, note)| match note {
        kraft_protocol::Note::Appended { first, last, kind, .. } if *n == 0 => Some((*first, *last, *kind)),
        _ => None,
    });
    assert_eq!(first_batch, Some((0, 2, "LeaderChange")), "one batch");
    assert_eq!(c.replica(0).voter_history().last_voter_set_entry().map(|(o, _)| o), Some(Some(2)));
}

/// testLeaderDoesNotBootstrapRecordsWithKraftVersion0: a static quorum's leader writes
/// LeaderChange alone.
#[test]
fn leader_does_not_bootstrap_records_with_kraft_version_0() {
    let mut c = Cluster::static_quorum(&[0, 1], &[]);
    c.elect(0);
    assert_eq!(c.record_kinds(0, 0), vec!["LeaderChange"]);
    assert_eq!(c.replica(0).voter_history().last_voter_set_entry(), None, "the static voters apply");
}

/// testBootstrapCheckpointIsNotReturnedOnFetch: the 0-0.checkpoint is no snapshot to
/// send a new follower to; it gets the records.
#[test]
fn bootstrap_checkpoint_is_not_returned_on_fetch() {
    let mut c = Cluster::dynamic(&[0, 1], &[]);
    c.elect(0);
    c.queue.clear();
    let fetch = Message::Fetch(FetchRequest {
        current_leader_epoch: 1,
        replica_directory: Some(dir(1, 0)),
        fetch_offset: 0,
        last_fetched_epoch: 0,
        high_watermark: None,
        max_wait_ms: 0,
        max_bytes: 1 << 20,
    });
    let Message::FetchResponse(r) = c.request(1, 0, fetch) else { panic!("a FetchResponse") };
    assert_eq!(r.error, ErrorCode::None);
    assert_eq!(r.snapshot_id(), None);
    assert_eq!(r.records.len(), 3);
}

/// testFollowerReadsKRaftBootstrapRecords: a replica's voter set is the latest its log
/// holds, read uncommitted: the leader's VotersRecord replaces the bootstrap checkpoint's
/// as soon as it is appended.
#[test]
fn follower_reads_kraft_bootstrap_records() {
    use kraft_base::shared::Meter;
    use kraft_protocol::log::ReplicaLog;
    use kraft_protocol::VoterSet;
    let mut c = Cluster::dynamic(&[0], &[]);
    // n1 was formatted with the initial controllers n0 and n1; n0 with n0, n1 and n2.
    let theirs = VoterSet::from_nodes([0, 1].map(support::voter_node));
    c.start(1, ReplicaLog::format(&Meter::default(), dir(1, 0), Some(theirs)));
    c.queue.clear();
    assert_eq!(c.voters(1), vec![0, 1]);
    let mine = VoterSet::from_nodes([0, 1, 2].map(support::voter_node));
    c.start(0, ReplicaLog::format(&Meter::default(), dir(0, 0), Some(mine)));
    c.queue.clear();
    c.elect(0);
    c.settle(5);
    assert_eq!(c.voters(1), vec![0, 1, 2], "n1 read n0's VotersRecord");
    assert!(c.replica(1).voters().is_voter(key(2)));
}

/// testAddVoter: the leader asks the new voter's ApiVersions, appends the set with it
/// (the new voter counts from that moment) and answers NONE once that commits.
#[test]
fn add_voter() {
    let mut c = settled(&[0, 1], &[2]);
    assert_eq!(c.state(2), StateName::Follower, "the observer found the leader");
    assert!(!c.replica(2).is_voter());
    // Hold the followers' fetches: the VotersRecord is appended but cannot commit yet.
    c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
    c.add_voter(0, key(2));
    assert_eq!(c.voters(0), vec![0, 1, 2], "a voter as soon as its VotersRecord is appended");
    assert_eq!(c.record_kinds(0, 3).last(), Some(&"Voters"));
    assert!(c.replica(2).is_voter(), "n2 read it uncommitted too");
    assert_eq!(answer(&mut c), Vec::<&str>::new(), "no answer before the commit");
    c.release();
    assert_eq!(answer(&mut c), vec!["NONE"]);
    let hw = c.replica(0).high_watermark().unwrap();
    assert!(hw >= c.replica(0).log().end_offset() - 1, "committed");
}

/// testAddVoterWithLaggingNewVoter: a replica that never fetched from this leader is not
/// caught up (LeaderState.isReplicaCaughtUp): REQUEST_TIMED_OUT, nothing appended.
#[test]
fn add_voter_with_lagging_new_voter() {
    let mut c = Cluster::dynamic(&[0, 1], &[2]);
    c.hold = vec![(2, RpcKind::Fetch)];
    c.elect(0);
    c.settle(300);
    let leo = c.replica(0).log().end_offset();
    c.add_voter(0, key(2));
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
    assert_eq!(c.replica(0).log().end_offset(), leo);
    assert_eq!(c.voters(0), vec![0, 1]);
}

/// testAddVoterTimeout: the change does not commit within request.timeout.ms:
/// REQUEST_TIMED_OUT, yet its VotersRecord stays and the new voter is a voter.
#[test]
fn add_voter_timeout() {
    let mut c = settled(&[0, 1], &[2]);
    c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
    c.add_voter(0, key(2));
    assert_eq!(answer(&mut c), Vec::<&str>::new());
    c.tick(c.config.request_timeout_ms);
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
    assert_eq!(c.voters(0), vec![0, 1, 2]);
}

/// testAddVoterWithPendingAddVoter, testRemoveVoterWithPendingAddVoter: one change at a
/// time; another is REQUEST_TIMED_OUT while the first waits for its ApiVersions.
#[test]
fn add_voter_with_pending_add_voter() {
    let mut c = settled(&[0, 1], &[2, 3]);
    c.hold = vec![(2, RpcKind::ApiVersionsResponse)];
    c.add_voter(0, key(2));
    c.add_voter(0, key(3));
    c.remove_voter(0, key(1));
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT", "REQUEST_TIMED_OUT"]);
    c.release();
    c.settle(3);
    assert_eq!(answer(&mut c), vec!["NONE"], "the first change goes on");
}

/// testAddVoterWithoutFencedPreviousLeaders: until the leader commits a record of its own
/// epoch it has no HW, and refuses voter changes with REQUEST_TIMED_OUT.
#[test]
fn add_voter_without_fenced_previous_leaders() {
    let mut c = Cluster::dynamic(&[0, 1], &[2]);
    c.hold = vec![(1, RpcKind::Fetch)];
    c.elect(0);
    c.settle(5);
    assert_eq!((c.state(0), c.replica(0).high_watermark()), (StateName::Leader, None));
    c.add_voter(0, key(2));
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
    c.remove_voter(0, key(1));
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"], "testRemoveVoterWithoutFencedPreviousLeaders");
}

/// testAddVoterWithKraftVersion0, testRemoveVoterWithKraftVersion0: a static quorum's
/// voter set cannot change: UNSUPPORTED_VERSION.
#[test]
fn voter_changes_with_kraft_version_0() {
    let mut c = Cluster::static_quorum(&[0, 1], &[2]);
    c.elect(0);
    c.settle(300);
    c.add_voter(0, key(2));
    c.remove_voter(0, key(1));
    assert_eq!(answer(&mut c), vec!["UNSUPPORTED_VERSION", "UNSUPPORTED_VERSION"]);
}

/// testAddVoterWithExistingVoter: a node id in the set, on whatever disk: DUPLICATE_VOTER.
#[test]
fn add_voter_with_existing_voter() {
    let mut c = settled(&[0, 1], &[]);
    c.add_voter(0, ReplicaKey::new(1, Some(dir(1, 1))));
    assert_eq!(answer(&mut c), vec!["DUPLICATE_VOTER"]);
}

/// testAddVoterWithMissingDirectoryId, testAddVoterWithMissingDefaultListener,
/// testAddVoterToNotLeader: INVALID_REQUEST, INVALID_REQUEST, NOT_LEADER_OR_FOLLOWER.
#[test]
fn add_voter_requests_the_leader_refuses_at_once() {
    let mut c = settled(&[0, 1], &[2]);
    c.add_voter(0, ReplicaKey::new(2, None));
    let listeners = Endpoints(vec![Endpoint { listener: "OTHER".into(), host: "n2".into(), port: 9094 }]);
    c.admin(
        0,
        Message::AddRaftVoter(kraft_protocol::rpc::AddRaftVoterRequest {
            voter: key(2),
            listeners,
            ack_when_committed: true,
        }),
    );
    c.add_voter(1, key(2));
    assert_eq!(answer(&mut c), vec!["INVALID_REQUEST", "INVALID_REQUEST", "NOT_LEADER_OR_FOLLOWER"]);
}

/// testAddVoterInvalidFeatureVersion: a new voter whose software does not support the
/// finalized kraft.version: INVALID_REQUEST.
#[test]
fn add_voter_invalid_feature_version() {
    let mut c = settled(&[0, 1], &[2]);
    c.hold = vec![(2, RpcKind::ApiVersionsResponse)];
    c.add_voter(0, key(2));
    let Message::ApiVersionsResponse(r) = &mut c.held[0].message else { panic!("held ApiVersions") };
    *r = ApiVersionsResponse { error: ErrorCode::None, kraft_version: Some(KRaftVersionRange::STATIC) };
    c.release();
    assert_eq!(answer(&mut c), vec!["INVALID_REQUEST"]);
    assert_eq!(c.voters(0), vec![0, 1]);
}

/// testAddVoterWithApiVersionsFromIncorrectNode: an ApiVersions answer with an error ends
/// the change with REQUEST_TIMED_OUT.
#[test]
fn add_voter_api_versions_error() {
    let mut c = settled(&[0, 1], &[2]);
    c.hold = vec![(2, RpcKind::ApiVersionsResponse)];
    c.add_voter(0, key(2));
    let Message::ApiVersionsResponse(r) = &mut c.held[0].message else { panic!("held ApiVersions") };
    r.error = ErrorCode::InvalidRequest;
    c.release();
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
}

/// testAddVoterFailsWhenLosingLeadership: a leader that resigns answers its pending change
/// NOT_LEADER_OR_FOLLOWER (LeaderState.close).
#[test]
fn add_voter_fails_when_losing_leadership() {
    let mut c = settled(&[0, 1], &[2]);
    c.hold = vec![(2, RpcKind::ApiVersionsResponse)];
    c.add_voter(0, key(2));
    c.with(0, |r, ctx| r.resign(ctx.now).0).unwrap();
    c.deliver_all();
    assert_eq!(answer(&mut c), vec!["NOT_LEADER_OR_FOLLOWER"]);
}

/// testRemoveVoter: the set without the voter is appended at once and in force; NONE once
/// it commits; the removed voter, once it reads the record, is an observer.
#[test]
fn remove_voter() {
    let mut c = settled(&[0, 1, 2], &[]);
    c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
    c.remove_voter(0, key(2));
    assert_eq!(c.voters(0), vec![0, 1]);
    assert_eq!(answer(&mut c), Vec::<&str>::new());
    c.release();
    assert_eq!(answer(&mut c), vec!["NONE"]);
    assert!(!c.replica(2).is_voter());
    assert_eq!(c.replica(2).state_timer(), None, "an observer has no fetch timeout");
}

/// testRemoveVoterIsLeader: a leader that removes itself keeps leading without counting
/// itself: the change commits only when both remaining voters have it. Then it answers
/// NONE, resigns (EndQuorumEpoch to both) and after its election timeout is an
/// Unattached observer of the next epoch.
#[test]
fn remove_voter_is_leader() {
    let mut c = settled(&[0, 1, 2], &[]);
    c.hold = vec![(2, RpcKind::Fetch)];
    c.remove_voter(0, key(0));
    assert!(!c.replica(0).is_voter());
    assert_eq!(c.voters(0), vec![1, 2]);
    let record = c.replica(0).log().end_offset() - 1;
    assert!(c.replica(1).log().end_offset() > record, "n1 has the record");
    assert!(c.replica(0).high_watermark().unwrap() <= record, "n0 and n1 are no majority of {{1, 2}}");
    assert_eq!((c.state(0), answer(&mut c)), (StateName::Leader, vec![]));
    c.release();
    assert_eq!(answer(&mut c), vec!["NONE"]);
    assert_eq!(c.transitions(0).last(), Some(&(StateName::Resigned, Reason::RemovedFromVoters)));
    let mut ends: Vec<u32> =
        c.sent.iter().filter(|(from, _, kind)| *from == 0 && *kind == RpcKind::EndQuorumEpoch).map(|s| s.1).collect();
    ends.dedup();
    assert_eq!(ends, vec![1, 2]);
    c.expire_timer(0);
    assert_eq!(c.state(0), StateName::Unattached);
    assert_eq!(c.replica(0).epoch(), 2);
    assert_eq!(c.replica(0).state_timer(), None, "an observer never starts an election");
}

/// testRemoveVoterWithPendingRemoveVoter: a second change while one is uncommitted:
/// REQUEST_TIMED_OUT.
#[test]
fn remove_voter_with_pending_remove_voter() {
    let mut c = settled(&[0, 1, 2], &[]);
    c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
    c.remove_voter(0, key(2));
    c.remove_voter(0, key(1));
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
}

/// How many VotersRecords `id`'s log holds at or above its HW: uncommitted voter changes.
fn uncommitted_voter_changes(c: &Cluster, id: u32) -> usize {
    let hw = c.replica(id).high_watermark().unwrap_or(0);
    c.record_kinds(id, hw).iter().filter(|k| **k == "Voters").count()
}

/// The `multi-voter-change` safety switch, with AddRaftVoter: Kafka's leader refuses a
/// second change while the first's VotersRecord is uncommitted (REQUEST_TIMED_OUT,
/// AddVoterHandler's check that the latest VotersRecord is below the HWM); with the switch
/// off (unsafe) it accepts it, as KAFKA-20740's forgotten change let it: {0, 1, 2} ->
/// {0, 1, 2, 3} -> {0, 1, 2, 3, 4}, and the new voters commit both without n1 and n2.
#[test]
fn multi_voter_change_switch_lets_a_second_add_voter_in() {
    for unsafe_switch in [false, true] {
        let switches =
            if unsafe_switch { Unsafe::default().with(SafetySwitch::MultiVoterChange) } else { Unsafe::default() };
        let mut c = Cluster::dynamic_unsafe(switches, &[0, 1, 2], &[3, 4]);
        c.elect(0);
        c.settle(300);
        c.take_answers();
        // The voters' fetches are held: the first change's VotersRecord cannot commit.
        c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
        let leo = c.replica(0).log().end_offset();
        c.add_voter(0, key(3));
        assert_eq!((c.voters(0), answer(&mut c)), (vec![0, 1, 2, 3], vec![]), "unsafe: {unsafe_switch}");
        assert_eq!(uncommitted_voter_changes(&c, 0), 1);
        c.add_voter(0, key(4));
        if unsafe_switch {
            // The first change is answered as KAFKA-20740's expired one was; its record
            // stays. The second set, built on the uncommitted first, is appended, and n0, n3
            // and n4 are a majority of it: both changes commit at once, though only one of
            // them (n0) is a voter of the committed set {0, 1, 2}. Majorities no longer overlap.
            assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT", "NONE"]);
            assert_eq!(c.voters(0), vec![0, 1, 2, 3, 4]);
            assert_eq!(c.record_kinds(0, leo).iter().filter(|k| **k == "Voters").count(), 2);
            assert_eq!(c.replica(0).high_watermark(), Some(c.replica(0).log().end_offset()));
            let l = c.replica(0).leader_state().unwrap();
            let acked = |n: u32| l.replicas.iter().find(|p| p.id == n).and_then(|p| p.end_offset);
            assert!([1, 2].iter().all(|&n| acked(n).is_some_and(|o| o <= leo)), "n1, n2 acknowledged neither");
        } else {
            assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"], "the latest VotersRecord is uncommitted");
            assert_eq!(c.voters(0), vec![0, 1, 2, 3]);
            assert_eq!(uncommitted_voter_changes(&c, 0), 1);
            c.release();
            c.settle(5);
            assert_eq!(answer(&mut c), vec!["NONE"], "the first change commits once n1 and n2 fetch");
            assert_eq!(uncommitted_voter_changes(&c, 0), 0);
        }
    }
}

/// The switch with RemoveRaftVoter, and while the first change is still pending (not yet
/// appended: AddVoterHandler waits for the new voter's ApiVersions). Safe: both refused
/// (LeaderState.isOperationPending, then the uncommitted VotersRecord). Unsafe: a removal
/// replaces the pending addition, and a second removal lands on the uncommitted first.
#[test]
fn multi_voter_change_switch_lets_a_change_in_while_one_is_pending() {
    for unsafe_switch in [false, true] {
        let switches =
            if unsafe_switch { Unsafe::default().with(SafetySwitch::MultiVoterChange) } else { Unsafe::default() };
        let mut c = Cluster::dynamic_unsafe(switches, &[0, 1, 2, 3], &[4]);
        c.elect(0);
        c.settle(300);
        c.take_answers();
        c.hold = vec![(4, RpcKind::ApiVersionsResponse), (1, RpcKind::Fetch), (2, RpcKind::Fetch), (3, RpcKind::Fetch)];
        let leo = c.replica(0).log().end_offset();
        c.add_voter(0, key(4));
        assert_eq!(answer(&mut c), Vec::<&str>::new(), "pending: waiting for n4's ApiVersions");
        c.remove_voter(0, key(3));
        if unsafe_switch {
            assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"], "the pending addition is dropped");
            assert_eq!(c.voters(0), vec![0, 1, 2]);
            c.remove_voter(0, key(2));
            assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"], "the uncommitted removal is dropped too");
            assert_eq!(c.voters(0), vec![0, 1]);
            assert_eq!(c.record_kinds(0, leo), vec!["Voters", "Voters"]);
            assert_eq!(uncommitted_voter_changes(&c, 0), 2);
        } else {
            assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"], "a change is pending");
            c.remove_voter(0, key(2));
            assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
            assert_eq!((c.voters(0), c.replica(0).log().end_offset()), (vec![0, 1, 2, 3], leo), "nothing appended");
        }
    }
}

/// testRemoveVoterTimedOut: not committed within request.timeout.ms: REQUEST_TIMED_OUT,
/// the voter stays removed.
#[test]
fn remove_voter_timed_out() {
    let mut c = settled(&[0, 1, 2], &[]);
    c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
    c.remove_voter(0, key(2));
    c.tick(c.config.request_timeout_ms);
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
    assert_eq!(c.voters(0), vec![0, 1]);
}

/// testRemoveVoterWithNoneVoter, testRemoveVoterWithNoneVoterId,
/// testRemoveVoterToEmptyVoterSet: another disk of a voter, an unknown id, or the last
/// voter: VOTER_NOT_FOUND.
#[test]
fn remove_voter_not_found() {
    let mut c = settled(&[0, 1, 2], &[]);
    c.remove_voter(0, ReplicaKey::new(2, Some(dir(2, 1))));
    c.remove_voter(0, ReplicaKey::new(3, Some(dir(2, 0))));
    assert_eq!(answer(&mut c), vec!["VOTER_NOT_FOUND", "VOTER_NOT_FOUND"]);
    let mut lone = Cluster::dynamic(&[0], &[]);
    assert_eq!(lone.state(0), StateName::Leader, "a lone voter elects itself");
    lone.remove_voter(0, key(0));
    assert_eq!(answer(&mut lone), vec!["VOTER_NOT_FOUND"]);
}

/// Rollback on truncation (KRaftControlRecordStateMachineTest.testTruncateTo, at the
/// replica): a partitioned leader appends a removal nobody fetches, which times out
/// (REQUEST_TIMED_OUT, the record stays in force at that leader); the others elect a new
/// leader; when the old one rejoins it truncates the VotersRecord and its voter set rolls
/// back to the committed one.
#[test]
fn uncommitted_voter_change_rolls_back_on_truncation() {
    let mut c = settled(&[0, 1, 2], &[]);
    c.cut = vec![(0, 1), (0, 2), (1, 0), (2, 0)];
    c.remove_voter(0, key(2));
    assert_eq!(c.voters(0), vec![0, 1]);
    // n1 and n2 stop hearing from n0 at the same moment. n2 asks first and n1, which
    // still had its leader, refuses; then n1's own timer fires and it wins epoch 2.
    c.expire_timer(2);
    c.deliver_all();
    assert_eq!((c.state(1), c.replica(1).epoch()), (StateName::Leader, 2));
    c.cut.clear();
    c.settle(300);
    assert_eq!((c.state(0), c.replica(0).leader_id()), (StateName::Follower, Some(1)));
    assert_eq!(c.voters(0), vec![0, 1, 2], "the removal was truncated and rolled back");
    assert!(c.notes.iter().any(|(n, note)| *n == 0 && matches!(note, kraft_protocol::Note::Truncated { .. })));
    assert_eq!(answer(&mut c), vec!["REQUEST_TIMED_OUT"]);
}

/// testUpdateVoter: a voter's new listeners replace its entry: a VotersRecord appended,
/// NONE at once, with no pending change.
#[test]
fn update_voter() {
    let mut c = settled(&[0, 1], &[]);
    let listeners = Endpoints(vec![Endpoint { listener: "CONTROLLER".into(), host: "n1".into(), port: 9094 }]);
    let update = |epoch, voter| {
        Message::UpdateRaftVoter(UpdateRaftVoterRequest {
            current_leader_epoch: epoch,
            voter,
            listeners: listeners.clone(),
            supported: KRaftVersionRange::SUPPORTED,
        })
    };
    let error = |m: Message| match m {
        Message::UpdateRaftVoterResponse(r) => r.error,
        other => panic!("{other:?}"),
    };
    // testUpdateVoterOldEpoch, testUpdateVoterNewEpoch, testUpdateVoterToNotLeader,
    // testUpdateVoterWithNoneVoter.
    assert_eq!(error(c.request(1, 0, update(0, key(1)))), ErrorCode::FencedLeaderEpoch);
    assert_eq!(error(c.request(1, 0, update(2, key(1)))), ErrorCode::UnknownLeaderEpoch);
    assert_eq!(error(c.request(0, 1, update(1, key(0)))), ErrorCode::NotLeaderOrFollower);
    assert_eq!(error(c.request(1, 0, update(1, ReplicaKey::new(1, Some(dir(1, 1)))))), ErrorCode::VoterNotFound);
    assert_eq!(error(c.request(1, 0, update(1, key(1)))), ErrorCode::None);
    assert_eq!(c.record_kinds(0, 3).last(), Some(&"Voters"));
    assert_eq!(c.replica(0).voters().node(1).unwrap().endpoints, listeners);
    // Its record is uncommitted until n1 fetches it: the next change waits.
    assert_eq!(error(c.request(1, 0, update(1, key(1)))), ErrorCode::RequestTimedOut);
}

/// testUpdateVoterWithKraftVersion0 (Kafka 4.1+; 3.9 and 4.0 answer UNSUPPORTED_VERSION):
/// at kraft.version 0 the leader keeps the update in memory for a later upgrade.
#[test]
fn update_voter_with_kraft_version_0() {
    let mut c = Cluster::static_quorum(&[0, 1], &[]);
    c.elect(0);
    c.settle(300);
    let leo = c.replica(0).log().end_offset();
    let listeners = Endpoints::of_node(1);
    let m = Message::UpdateRaftVoter(UpdateRaftVoterRequest {
        current_leader_epoch: 1,
        voter: key(1),
        listeners,
        supported: KRaftVersionRange::SUPPORTED,
    });
    let Message::UpdateRaftVoterResponse(r) = c.request(1, 0, m) else { panic!() };
    assert_eq!(r.error, ErrorCode::None);
    assert_eq!(c.replica(0).log().end_offset(), leo, "nothing appended");
    let volatile = c.replica(0).leader_state().unwrap().volatile_voters().cloned().unwrap();
    assert_eq!(volatile.node(1).unwrap().key(), key(1), "n1's directory id is known now");
    assert_eq!(volatile.node(0).unwrap().key(), key(0), "the leader's own, from the start");
    assert_eq!(c.replica(0).voters().node(1).unwrap().key(), ReplicaKey::new(1, None), "the log's set is static");
}

/// testInvalidVoterReplicaVoteRequest: a Vote naming another replica key is answered
/// INVALID_VOTER_KEY, after the receiver took the request's epoch; no vote is given.
#[test]
fn invalid_voter_key_on_vote() {
    let mut c = settled(&[0, 1], &[]);
    let vote = |epoch, voter_key| {
        Message::Vote(VoteRequest {
            replica_epoch: epoch,
            candidate_directory: Some(dir(1, 0)),
            voter_key,
            last_offset_epoch: 1,
            last_offset: 100,
            pre_vote: false,
        })
    };
    for (epoch, voter_key) in [(2, ReplicaKey::new(10, Some(dir(10, 0)))), (3, ReplicaKey::new(0, Some(dir(0, 1))))] {
        let Message::VoteResponse(r) = c.request(1, 0, vote(epoch, voter_key)) else { panic!() };
        assert_eq!((r.error, r.granted, r.hint.epoch, r.hint.leader), (ErrorCode::InvalidVoterKey, false, epoch, None));
        assert_eq!(c.replica(0).election_state().voted, None);
    }
}

/// testInvalidVoterReplicaBeginQuorumEpochRequest: a BeginQuorumEpoch naming another
/// replica key is answered INVALID_VOTER_KEY, yet the receiver follows its leader.
#[test]
fn invalid_voter_key_on_begin_quorum_epoch() {
    let mut c = Cluster::dynamic(&[0, 1, 2], &[]);
    let begin = |voter_key| Message::BeginQuorumEpoch(BeginQuorumEpochRequest { leader_epoch: 5, voter_key });
    for voter_key in [ReplicaKey::new(10, Some(dir(10, 0))), ReplicaKey::new(0, Some(dir(0, 1)))] {
        let Message::BeginQuorumEpochResponse(r) = c.request(2, 0, begin(voter_key)) else { panic!() };
        assert_eq!((r.error, r.hint.epoch, r.hint.leader), (ErrorCode::InvalidVoterKey, 5, Some(2)));
        assert_eq!((c.state(0), c.replica(0).leader_id()), (StateName::Follower, Some(2)));
    }
    let Message::BeginQuorumEpochResponse(r) = c.request(2, 0, begin(key(0))) else { panic!() };
    assert_eq!(r.error, ErrorCode::None);
}

/// KafkaRaftClientTest.testHandleVoteRequestAsObserver and testLeaderAcceptVoteFromObserver:
/// granting never asks whether the candidate, or the receiver, is a voter (the old
/// not-a-voter refusal is gone): an observer grants a vote, a leader answers an observer's
/// request like any other.
#[test]
fn votes_do_not_check_membership() {
    let vote = |epoch, from: u32, to: u32| {
        Message::Vote(VoteRequest {
            replica_epoch: epoch,
            candidate_directory: Some(dir(from, 0)),
            voter_key: ReplicaKey::new(to, None),
            last_offset_epoch: 0,
            last_offset: 1,
            pre_vote: false,
        })
    };
    let mut c = Cluster::static_quorum(&[1, 2], &[0]);
    let Message::VoteResponse(r) = c.request(1, 0, vote(1, 1, 0)) else { panic!() };
    assert_eq!((r.error, r.granted), (ErrorCode::None, true), "an observer grants its vote");
    assert_eq!(c.replica(0).election_state().voted, Some(1));
    let mut c = settled(&[0, 1], &[2]);
    let Message::VoteResponse(r) = c.request(2, 0, vote(1, 2, 0)) else { panic!() };
    assert_eq!((r.error, r.granted, r.hint.leader), (ErrorCode::None, false, Some(0)));
}

/// ElectionState.toQuorumStateData (FileQuorumStateStore writes the version kraft.version
/// calls for): quorum-state v1 keeps the voted candidate's directory id; v0, at
/// kraft.version 0, only its node id.
#[test]
fn quorum_state_keeps_the_voted_directory_id_from_kraft_version_1() {
    for (mut c, kept) in
        [(Cluster::dynamic(&[0, 1], &[]), Some(dir(0, 0))), (Cluster::static_quorum(&[0, 1], &[]), None)]
    {
        c.expire_timer(0);
        c.deliver_all();
        let voter = c.replica(1).election_state();
        assert_eq!((voter.voted, voter.voted_directory), (Some(0), Some(dir(0, 0))), "in memory");
        let disk = c.replica(1).durable().election;
        assert_eq!((disk.voted, disk.voted_directory), (Some(0), kept), "on disk");
    }
}
