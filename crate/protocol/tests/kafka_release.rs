//! The behaviours a run's Kafka release decides (`KafkaRelease`), at the replica: the
//! quorum-state file's fsync (FileQuorumStateStore.writeElectionState), UpdateRaftVoter
//! from followers (3.9+; at kraft.version 0 from 4.1, KAFKA-16538), the kraft.version
//! upgrade (4.1+) and auto-join (4.2+, KIP-1186). Each test names the Kafka test it
//! follows (KafkaRaftClientReconfigTest, KafkaRaftClientAutoJoinTest) or the code it pins;
//! the legacy model (no release) is checked to do none of it.

mod support;

use kraft_base::shared::Meter;
use kraft_protocol::leader::KRaftVersionUpgrade;
use kraft_protocol::log::ReplicaLog;
use kraft_protocol::rpc::{
    Envelope, ErrorCode, Message, RpcKind, UpdateRaftVoterRequest, UpdateRaftVoterResponse, VoteRequest,
};
use kraft_protocol::state::{ElectionState, EpochState, FollowerState};
use kraft_protocol::voters::{Endpoint, Endpoints, KRaftVersionRange};
use kraft_protocol::{
    Ctx, Durable, IdSource, KRaftVersion, KafkaRelease, NodeId, Note, Output, QuorumConfig, Reason, Replica,
    ReplicaKey, ReplicaSetup, StateName, Unsafe, VoterSet,
};
use support::{dir, key, voter_node, Cluster};
use KafkaRelease::{Legacy, V3_9, V4_0, V4_1, V4_2};

fn config(release: KafkaRelease) -> QuorumConfig {
    QuorumConfig { release, ..QuorumConfig::default() }
}

/// What a list of outputs says, briefly: `persist`, `flush`, `state <to>`, `vote`,
/// `append <kind>`, `send <rpc>` (Fetch and its answers left out).
fn brief(out: &[Output]) -> Vec<String> {
    out.iter()
        .filter_map(|o| match o {
            Output::Flush { .. } => Some("flush".to_string()),
            Output::Send(e) if matches!(e.message.kind(), RpcKind::Fetch | RpcKind::FetchResponse) => None,
            Output::Send(e) => Some(format!("send {}", e.message.kind().name())),
            Output::Note(Note::Persisted { .. }) => Some("persist".to_string()),
            Output::Note(Note::StateChanged { to, .. }) => Some(format!("state {}", to.name())),
            Output::Note(Note::VoteDecided { .. }) => Some("vote".to_string()),
            Output::Note(Note::Appended { kind, .. }) => Some(format!("append {kind}")),
            Output::Note(_) => None,
        })
        .collect()
}

fn follower(c: &Cluster, id: NodeId) -> &FollowerState {
    c.replica(id).state().as_follower().expect("a follower")
}

// ---- the quorum-state file costs a flush (every Kafka release) ---------------------------

/// FileQuorumStateStore.writeElectionState fsyncs the file on the raft thread and
/// QuorumState.durableTransitionTo moves only then, so KafkaRaftClient.handleVoteRequest's
/// two transitions (to the request's epoch, then the vote) each wait for a flush before
/// the vote is answered. The legacy model writes the file for free.
#[test]
fn a_release_flushes_the_quorum_state_before_it_answers_a_vote() {
    let vote = Message::Vote(VoteRequest {
        replica_epoch: 1,
        candidate_directory: Some(dir(0, 0)),
        voter_key: key(1),
        last_offset_epoch: 0,
        last_offset: 0,
        pre_vote: false,
    });
    let answer = |release| {
        let mut c = Cluster::static_quorum_with(config(release), &[0, 1, 2], &[]);
        let env = Envelope { from: 0, to: 1, correlation: 1, message: vote.clone() };
        brief(&c.outputs(1, |r, ctx| {
            r.handle(ctx, env);
        }))
    };
    let with_flushes =
        ["persist", "flush", "state unattached", "vote", "persist", "flush", "state unattached", "send VoteResponse"];
    for release in [V3_9, V4_0, V4_1, V4_2] {
        assert_eq!(answer(release), with_flushes, "{release:?}");
    }
    assert_eq!(
        answer(Legacy),
        ["persist", "state unattached", "vote", "persist", "state unattached", "send VoteResponse"]
    );
}

/// QuorumState.initialize ends in durableTransitionTo(initialState): every start writes
/// the file and waits, Resigned after a leader's restart too (the legacy model writes
/// only a blank disk's default state, for free).
#[test]
fn every_start_writes_the_quorum_state() {
    for (release, leader_restart) in
        [(V4_0, vec!["persist", "flush", "state resigned"]), (Legacy, vec!["state resigned"])]
    {
        let setup = ReplicaSetup {
            id: 0,
            bootstrap_only: false,
            voters: vec![0, 1, 2],
            config: config(release),
            switches: Unsafe::default(),
            snapshot_interval: 0,
        };
        let log = ReplicaLog::format(&Meter::default(), dir(0, 0), None);
        let election = ElectionState::new(3, Some(0), None);
        let (mut rng, mut ids, mut out) = (kraft_base::rng::Rng::new(1), IdSource::default(), Vec::new());
        let mut ctx = Ctx { now: 0, rng: &mut rng, ids: &mut ids, out: &mut out };
        let (r, _) = Replica::start(&mut ctx, setup, Durable { election, log }, Reason::Restart);
        assert_eq!(r.state_name(), StateName::Resigned);
        let mut want = leader_restart;
        want.extend(["send EndQuorumEpoch", "send EndQuorumEpoch"]);
        assert_eq!(brief(&out), want, "{release:?}");
    }
}

/// Prospective and Resigned are memory-only transitions (QuorumState.transitionToProspective
/// and transitionToResigned: memoryTransitionTo): nothing is written, nothing waits.
#[test]
fn prospective_and_resigned_write_nothing() {
    let mut c = Cluster::static_quorum_with(config(V4_1), &[0, 1, 2], &[]);
    let deadline = c.replica(0).state_timer().unwrap().0;
    c.now = deadline;
    let out = brief(&c.outputs(0, |r, ctx| {
        r.poll(ctx);
    }));
    assert_eq!(out, ["state prospective", "send PreVote", "send PreVote"]);
    c.deliver_all();
    assert_eq!(c.state(0), StateName::Leader);
    let out = brief(&c.outputs(0, |r, ctx| {
        r.resign(ctx.now).0.unwrap();
        r.poll(ctx);
    }));
    assert_eq!(out, ["state resigned", "send EndQuorumEpoch", "send EndQuorumEpoch"]);
}

/// A candidate that wins writes the leader's quorum-state (QuorumState.transitionToLeader)
/// and waits for it; then its LeaderChange is appended and flushed
/// (KafkaRaftClient.flushLeaderLog); only then does BeginQuorumEpoch go out: two flushes
/// of a slow disk before the voters hear of the new leader.
#[test]
fn a_new_leader_flushes_its_quorum_state_then_its_log_before_it_announces_itself() {
    let mut c = Cluster::static_quorum_with(config(V3_9), &[0, 1, 2], &[]);
    c.hold = vec![(1, RpcKind::VoteResponse), (2, RpcKind::VoteResponse)];
    c.expire_timer(0);
    c.deliver_all();
    assert_eq!(c.state(0), StateName::Candidate);
    let granted = c.held.remove(0);
    let out = brief(&c.outputs(0, |r, ctx| {
        r.handle(ctx, granted);
    }));
    assert_eq!(
        out,
        [
            "persist",
            "flush",
            "state leader",
            "append LeaderChange",
            "flush",
            "send BeginQuorumEpoch",
            "send BeginQuorumEpoch"
        ]
    );
}

// ---- UpdateRaftVoter from voters (3.9+) -----------------------------------------------

/// A dynamic quorum of 0, 1 and 2 whose bootstrap checkpoint gives n1 a listener port it
/// does not listen on, so n1's entry is out of date (VoterSet.voterNodeNeedsUpdate), as
/// the Kafka tests make it with other local listeners. n0 is elected.
fn stale_entry_quorum(release: KafkaRelease) -> Cluster {
    let mut stale = voter_node(1);
    stale.endpoints = Endpoints(vec![Endpoint { listener: "CONTROLLER".into(), host: "n1".into(), port: 9094 }]);
    let voters = VoterSet::from_nodes([voter_node(0), stale, voter_node(2)]);
    let mut c = Cluster::formatted_with(config(release), &[0, 1, 2], &[], voters);
    c.elect(0);
    // The followers started their update voter timer as they followed, with no time past.
    let period = release.update_voter_period_ms(c.config.fetch_timeout_ms);
    for v in [1, 2] {
        let expected = if release == Legacy { u64::MAX } else { c.now + period };
        assert_eq!(follower(&c, v).update_voter_deadline, expected, "{release:?}");
    }
    c.settle(5);
    c
}

/// testFollowerSendsUpdateVoter (3.9's form): once the update voter period (3 fetch
/// timeouts) has passed, the poll that handles a fetch response sends UpdateRaftVoter
/// instead of the next Fetch; the leader appends the voter's entry and answers NONE at
/// once; the next request is a Fetch, and no UpdateRaftVoter follows (the entry is right
/// now). testFollowerSendsUpdateVoterWhenDifferent: n2, whose entry is right, never sends.
#[test]
fn follower_sends_update_voter() {
    let mut c = stale_entry_quorum(V3_9);
    let deadline = follower(&c, 1).update_voter_deadline;
    // Fetch until just before the period ends, holding the leader's answers from a parked
    // fetch's wait before it, so n1 polls next when one of them arrives.
    while c.now + 700 < deadline {
        c.settle(1);
    }
    c.hold = vec![(0, RpcKind::FetchResponse)];
    while c.now + 10 < deadline {
        c.settle(1);
    }
    assert!(c.held.iter().any(|e| e.to == 1), "n1's fetch is answered, the answer held");
    c.now = deadline;
    c.release();
    assert_eq!(c.count_sent(1, 0, RpcKind::UpdateRaftVoter), 1);
    assert_eq!(c.count_sent(0, 1, RpcKind::UpdateRaftVoterResponse), 1);
    assert_eq!(follower(&c, 1).update_voter_deadline, deadline + 3 * c.config.fetch_timeout_ms, "3 fetch timeouts");
    assert_eq!(c.replica(0).voters().node(1), Some(&voter_node(1)), "the leader appended n1's entry");
    c.settle(2000);
    assert_eq!(c.count_sent(1, 0, RpcKind::UpdateRaftVoter), 1, "never again: the entry is right");
    assert_eq!(c.count_sent(2, 0, RpcKind::UpdateRaftVoter), 0, "testFollowerSendsUpdateVoterWhenDifferent");
    assert_eq!(c.replica(1).voters().node(1), Some(&voter_node(1)));
}

/// testFollowerSendsUpdateVoterIfPendingFetchDuringTimeout (4.1+): a Fetch parked at the
/// leader when the period ends holds the connection, and UpdateRaftVoter goes out right
/// after its answer (the timer restarts only once it is sent). 3.9 and 4.0 restart the
/// timer at its expiry anyway, so a parked Fetch, the usual case, costs them the period.
#[test]
fn a_fetch_in_flight_when_the_period_ends_delays_update_voter_in_4_1_and_skips_it_in_3_9() {
    for (release, sent) in [(V4_1, 1), (V3_9, 0), (V4_0, 0)] {
        let mut c = stale_entry_quorum(release);
        let deadline = follower(&c, 1).update_voter_deadline;
        while c.now < deadline + 600 {
            c.settle(1);
        }
        assert_eq!(c.count_sent(1, 0, RpcKind::UpdateRaftVoter), sent, "{release:?}");
        if release == V4_1 {
            assert_eq!(c.replica(0).voters().node(1), Some(&voter_node(1)));
        } else {
            assert!(follower(&c, 1).update_voter_deadline > deadline, "the timer restarted unsent");
        }
    }
}

/// testUpdateVoterResponseCausesEpochChange: an UpdateRaftVoter answer naming a newer
/// epoch's leader moves the voter to follow it.
#[test]
fn update_voter_response_causes_epoch_change() {
    let mut c = stale_entry_quorum(V4_1);
    c.hold = vec![(0, RpcKind::UpdateRaftVoterResponse)];
    let deadline = follower(&c, 1).update_voter_deadline;
    while c.held.is_empty() && c.now < deadline + 1000 {
        c.settle(1);
    }
    let Message::UpdateRaftVoterResponse(r) = &mut c.held[0].message else { panic!("held UpdateRaftVoterResponse") };
    *r = UpdateRaftVoterResponse {
        error: ErrorCode::None,
        hint: kraft_protocol::rpc::LeaderHint { epoch: 2, leader: Some(2) },
    };
    c.hold.clear();
    let response = c.held.remove(0);
    c.with(1, |r, ctx| r.handle(ctx, response));
    assert_eq!((c.state(1), c.replica(1).epoch(), c.replica(1).leader_id()), (StateName::Follower, 2, Some(2)));
}

/// testFollowerSendsUpdateVoterWithKraftVersion0 (4.1+, both NONE and UNSUPPORTED_VERSION
/// answers): at kraft.version 0 each voter tells the leader its entry once (the static set
/// has no directory ids), and the answer counts as a successful fetch; no second
/// UpdateRaftVoter in ten periods. The leader keeps the entries in memory: the static
/// voters with directory ids and the versions each supports. 3.9 and 4.0 voters never
/// send it at kraft.version 0, nor does the legacy model.
#[test]
fn voters_tell_a_kraft_version_0_leader_their_entry_once() {
    for (release, leader_release, sent) in
        [(V4_1, V4_1, 1), (V4_2, V4_2, 1), (V4_1, V4_0, 1), (V3_9, V3_9, 0), (V4_0, V4_0, 0), (Legacy, Legacy, 0)]
    {
        let mut c = Cluster::static_quorum_with(config(release), &[0, 1, 2], &[]);
        c.config = config(leader_release);
        c.start(0, ReplicaLog::format(&Meter::default(), dir(0, 0), None));
        c.queue.clear();
        c.elect(0);
        let periods = 10 * release.update_voter_period_ms(c.config.fetch_timeout_ms);
        c.settle((periods / 10) as usize);
        for v in [1, 2] {
            assert_eq!(c.count_sent(v, 0, RpcKind::UpdateRaftVoter), sent, "{release:?} n{v}");
        }
        let volatile = c.replica(0).leader_state().unwrap().volatile_voters().cloned().unwrap();
        if leader_release == V4_0 && sent == 1 {
            // testUpdateVoterWithKraftVersion0 (3.9, 4.0): UNSUPPORTED_VERSION, taken as done.
            assert_eq!(c.count_sent(0, 1, RpcKind::UpdateRaftVoterResponse), 1);
            assert_eq!(volatile.node(1).unwrap().key(), ReplicaKey::new(1, None), "nothing kept");
            assert!(follower(&c, 1).has_updated_leader);
        } else if sent == 1 {
            assert_eq!(volatile.node(1), Some(&voter_node(1)), "{release:?}");
            assert_eq!(volatile.node(2), Some(&voter_node(2)));
            assert!(follower(&c, 2).has_updated_leader);
        }
        assert_eq!(c.state(0), StateName::Leader);
    }
}

/// testFollowerSendsUpdateVoterAfterElectionWithKraftVersion0: a new leader keeps nothing
/// of the previous one's memory, so each voter tells it again.
#[test]
fn voters_tell_each_new_kraft_version_0_leader_again() {
    let mut c = Cluster::static_quorum_with(config(V4_1), &[0, 1, 2], &[]);
    c.elect(0);
    c.settle(800);
    assert_eq!(c.count_sent(1, 0, RpcKind::UpdateRaftVoter), 1);
    c.with(0, |r, ctx| r.resign(ctx.now).0).unwrap();
    c.settle(300);
    let leader = c.replica(1).leader_id().unwrap();
    assert_ne!(leader, 0);
    let other = 3 - leader;
    c.settle(800);
    assert_eq!(c.count_sent(other, leader, RpcKind::UpdateRaftVoter), 1);
    assert_eq!(c.count_sent(0, leader, RpcKind::UpdateRaftVoter), 1, "the old leader follows and tells it too");
    let volatile = c.replica(leader).leader_state().unwrap().volatile_voters().cloned().unwrap();
    assert!(volatile.nodes().iter().all(|n| n.directory.is_some()), "{volatile:?}");
}

/// testUpdateVoterWithKraftVersion0 as each release's leader answers it: UNSUPPORTED_VERSION
/// in 3.9 and 4.0 (after the pending-change and HW checks), kept in memory from 4.1; only
/// 4.1's handler counts a successful update as the voter's fetch for check-quorum
/// (UpdateVoterHandler.storeUpdatedVoters calls updateCheckQuorumForFollowingVoter).
#[test]
fn a_kraft_version_0_leader_answers_update_voter_by_its_release() {
    for (release, error, counted) in [
        (V3_9, ErrorCode::UnsupportedVersion, false),
        (V4_0, ErrorCode::UnsupportedVersion, false),
        (V4_1, ErrorCode::None, true),
    ] {
        let mut c = Cluster::static_quorum_with(config(release), &[0, 1, 2], &[]);
        c.elect(0);
        c.settle(100);
        // No fetch reaches the leader now: its check-quorum window runs on.
        c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
        c.settle(10);
        let window = c.replica(0).leader_state().unwrap().check_quorum_deadline;
        let update = Message::UpdateRaftVoter(UpdateRaftVoterRequest {
            current_leader_epoch: 1,
            voter: key(1),
            listeners: Endpoints::of_node(1),
            supported: KRaftVersionRange::SUPPORTED,
        });
        let Message::UpdateRaftVoterResponse(r) = c.request(1, 0, update) else { panic!() };
        assert_eq!(r.error, error, "{release:?}");
        let restarted = c.now + c.config.check_quorum_timeout_ms();
        let expected = if counted { restarted } else { window };
        assert_eq!(c.replica(0).leader_state().unwrap().check_quorum_deadline, expected, "{release:?}");
        assert!(window < restarted);
    }
}

// ---- kraft.version 0 -> 1 (4.1+) --------------------------------------------------------

/// A static quorum of 0, 1 and 2 at `release`, n0 elected, every voter having told it its
/// entry (UpdateRaftVoter, 4.1+).
fn static_told(release: KafkaRelease) -> Cluster {
    let mut c = Cluster::static_quorum_with(config(release), &[0, 1, 2], &[]);
    c.elect(0);
    c.settle(800);
    c
}

fn upgrade(c: &mut Cluster, epoch: u32, version: u8, validate_only: bool) -> Result<bool, String> {
    c.with(0, |r, ctx| r.upgrade_kraft_version(ctx, epoch, KRaftVersion(version), validate_only).0)
}

/// testKRaftUpgradeVersion: once every voter told the leader its entry, the upgrade appends
/// one control batch, a KRaftVersionRecord(1) and a VotersRecord with the voters kept in
/// memory (directory ids and all), and the leader is at kraft.version 1 at once; the
/// followers read the batch and are voters by their full keys. It commits like any record.
#[test]
fn kraft_version_upgrade_appends_one_batch() {
    let mut c = static_told(V4_1);
    let leo = c.replica(0).log().end_offset();
    assert_eq!(upgrade(&mut c, 1, 1, true), Ok(true), "validate only");
    assert_eq!(c.replica(0).log().end_offset(), leo, "validating appends nothing");
    assert_eq!(upgrade(&mut c, 1, 1, false), Ok(true));
    assert_eq!(c.replica(0).kraft_version(), KRaftVersion::V1);
    assert_eq!(c.record_kinds(0, leo), vec!["KRaftVersion", "Voters"]);
    let batch = c.notes.iter().rev().find_map(|(n, note)| match note {
        Note::Appended { first, last, kind, .. } if *n == 0 => Some((*first, *last, *kind)),
        _ => None,
    });
    assert_eq!(batch, Some((leo, leo + 1, "KRaftVersion")), "one batch");
    let all = VoterSet::from_nodes([0, 1, 2].map(voter_node));
    assert_eq!(c.replica(0).voters(), &all);
    assert_eq!(
        c.replica(0).leader_state().unwrap().kraft_version_upgrade,
        KRaftVersionUpgrade::Version(KRaftVersion::V1)
    );
    c.settle(50);
    for v in [1, 2] {
        assert_eq!(c.replica(v).kraft_version(), KRaftVersion::V1);
        assert!(c.replica(v).is_voter());
    }
    assert!(c.replica(0).high_watermark().unwrap() > leo + 1, "committed");
    // LeaderState.maybeAppendUpgradedKRaftVersion: the same version again is a no-op, a
    // lower one a downgrade.
    assert_eq!(upgrade(&mut c, 1, 1, false), Ok(false));
    let e = upgrade(&mut c, 1, 0, false).unwrap_err();
    assert!(e.contains("InvalidUpdateVersionException"), "{e}");
}

/// testInvalidKRaftUpgradeVersion: until every voter has told the leader it supports
/// kraft.version 1 (and its directory id), the upgrade is refused and nothing is appended.
/// A stale epoch (NotLeaderException), a follower, and a release before 4.1 or the legacy
/// model are refused too.
#[test]
fn invalid_kraft_version_upgrades_are_refused() {
    let mut c = Cluster::static_quorum_with(config(V4_1), &[0, 1, 2], &[]);
    c.elect(0);
    let leo = c.replica(0).log().end_offset();
    let e = upgrade(&mut c, 1, 1, false).unwrap_err();
    assert!(e.contains("not every voter supports it") && e.contains("InvalidUpdateVersionException"), "{e}");
    assert_eq!(c.replica(0).log().end_offset(), leo);
    let e = upgrade(&mut c, 0, 1, false).unwrap_err();
    assert!(e.contains("stale") && e.contains("NotLeaderException"), "{e}");
    let e = upgrade(&mut c, 2, 1, false).unwrap_err();
    assert!(e.contains("IllegalArgumentException"), "{e}");
    let e = c.with(1, |r, ctx| r.upgrade_kraft_version(ctx, 1, KRaftVersion::V1, false).0).unwrap_err();
    assert!(e.contains("not the leader"), "{e}");
    for release in [V3_9, V4_0, Legacy] {
        let mut c = static_told(release);
        let e = upgrade(&mut c, 1, 1, false).unwrap_err();
        assert!(e.contains("KAFKA-16538"), "{release:?}: {e}");
        assert_eq!(c.replica(0).kraft_version(), KRaftVersion::V0);
    }
}

/// testUpdateVoterAfterKRaftVersionUpgrade: after the upgrade commits, UpdateRaftVoter
/// takes the log's path: a VotersRecord is appended.
#[test]
fn update_voter_after_kraft_version_upgrade() {
    let mut c = static_told(V4_2);
    upgrade(&mut c, 1, 1, false).unwrap();
    c.settle(50);
    let leo = c.replica(0).log().end_offset();
    let listeners = Endpoints(vec![Endpoint { listener: "CONTROLLER".into(), host: "n1".into(), port: 9095 }]);
    let update = Message::UpdateRaftVoter(UpdateRaftVoterRequest {
        current_leader_epoch: 1,
        voter: key(1),
        listeners: listeners.clone(),
        supported: KRaftVersionRange::SUPPORTED,
    });
    let Message::UpdateRaftVoterResponse(r) = c.request(1, 0, update) else { panic!() };
    assert_eq!(r.error, ErrorCode::None);
    assert_eq!(c.record_kinds(0, leo), vec!["Voters"]);
    assert_eq!(c.replica(0).voters().node(1).unwrap().endpoints, listeners);
}

// ---- auto-join (4.2+) ---------------------------------------------------------------------

fn auto_join(release: KafkaRelease, on: bool) -> QuorumConfig {
    QuorumConfig { auto_join: u64::from(on), ..config(release) }
}

/// testAutoAddNewVoter: a controller observer with auto-join on, once its update voter set
/// timer (one fetch timeout in 4.2) expires, sends AddRaftVoter for itself with
/// AckWhenCommitted false; the leader answers NONE as soon as the new set is appended
/// (KIP-1186), so the new voter's next Fetch can commit it.
#[test]
fn auto_add_new_voter() {
    let mut c = Cluster::dynamic_with(auto_join(V4_2, true), &[0, 1], &[2]);
    c.elect(0);
    c.settle(400);
    assert_eq!(c.count_sent(2, 0, RpcKind::AddRaftVoter), 1);
    assert_eq!(c.count_sent(0, 2, RpcKind::AddRaftVoterResponse), 1);
    assert!(c.replica(2).is_voter());
    assert_eq!(c.voters(0), vec![0, 1, 2]);
    let voters_offset = c.replica(0).voter_history().last_voter_set_entry().unwrap().0.unwrap();
    assert!(c.replica(0).high_watermark().unwrap() > voters_offset, "committed");
    assert_eq!(c.replica(2).state_timer().map(|t| t.1), Some(c.config.fetch_timeout_ms), "a voter now");
}

/// The leader n0 is asked to add n2 with AckWhenCommitted false while n1's and n2's
/// fetches are held, so the new set cannot commit yet.
fn add_n2_without_ack_while_held(c: &mut Cluster) {
    c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
    let request = kraft_protocol::rpc::AddRaftVoterRequest {
        voter: key(2),
        listeners: Endpoints::of_node(2),
        ack_when_committed: false,
    };
    c.admin(0, Message::AddRaftVoter(request));
}

/// KIP-1186, KAFKA-19400: with AckWhenCommitted false the answer comes when the set is
/// appended, while the change stays pending until it commits: another change meanwhile is
/// REQUEST_TIMED_OUT, and the commit answers nobody twice.
#[test]
fn add_voter_without_ack_when_committed_answers_at_append() {
    let mut c = Cluster::dynamic_with(config(V4_2), &[0, 1], &[2, 3]);
    c.elect(0);
    c.settle(300);
    add_n2_without_ack_while_held(&mut c);
    assert_eq!(c.take_answers(), vec!["NONE"], "answered at append, before the commit");
    assert_eq!(c.voters(0), vec![0, 1, 2]);
    c.add_voter(0, key(3));
    assert_eq!(c.take_answers(), vec!["REQUEST_TIMED_OUT"], "the first change is still pending");
    c.release();
    c.settle(5);
    assert_eq!(c.take_answers(), Vec::<&str>::new(), "the commit answers nobody again");
    // Before 4.2 (AddRaftVoter version 0 only) the answer waits for the commit.
    let mut c = Cluster::dynamic_with(config(V4_1), &[0, 1], &[2]);
    c.elect(0);
    c.settle(300);
    add_n2_without_ack_while_held(&mut c);
    assert_eq!(c.take_answers(), Vec::<&str>::new());
    c.release();
    assert_eq!(c.take_answers(), vec!["NONE"]);
}

/// testAutoRemoveOldVoter and testObserverRemovesOldVoterAndAutoJoins: a controller whose
/// node id is a voter's on another disk (its disk was wiped and formatted again) first
/// asks the leader to remove that voter, then to add itself.
#[test]
fn observer_removes_old_voter_and_auto_joins() {
    let mut c = Cluster::dynamic_with(auto_join(V4_2, true), &[0, 1, 2], &[]);
    c.elect(0);
    c.settle(100);
    c.start(2, ReplicaLog::format(&Meter::default(), dir(2, 1), None));
    c.settle(5);
    assert!(!c.replica(2).is_voter(), "another disk of a voter is an observer, once it read the voters");
    c.settle(800);
    assert_eq!(c.count_sent(2, 0, RpcKind::RemoveRaftVoter), 1);
    assert_eq!(c.count_sent(2, 0, RpcKind::AddRaftVoter), 1);
    let new = ReplicaKey::new(2, Some(dir(2, 1)));
    assert!(c.replica(0).voters().is_voter(new), "{:?}", c.replica(0).voters());
    assert!(c.replica(2).is_voter());
}

/// testObserverDoesNotAddItselfWhenAutoJoinDisabled, testObserverDoesNotAutoJoinWithKRaftVersion0,
/// and a 4.1 controller: no AddRaftVoter, only Fetches.
#[test]
fn observers_that_may_not_auto_join_only_fetch() {
    let cases = [
        (Cluster::dynamic_with(auto_join(V4_2, false), &[0, 1], &[2]), "auto-join off"),
        (Cluster::static_quorum_with(auto_join(V4_2, true), &[0, 1], &[2]), "kraft.version 0"),
        (Cluster::dynamic_with(auto_join(V4_1, true), &[0, 1], &[2]), "Kafka 4.1"),
        (Cluster::dynamic_with(auto_join(Legacy, true), &[0, 1], &[2]), "legacy"),
    ];
    for (mut c, why) in cases {
        c.elect(0);
        c.settle(600);
        assert_eq!(c.count_sent(2, 0, RpcKind::AddRaftVoter), 0, "{why}");
        assert!(!c.replica(2).is_voter(), "{why}");
        assert!(c.count_sent(2, 0, RpcKind::Fetch) > 10, "{why}");
    }
}

/// The legacy model sends no UpdateRaftVoter, at either kraft.version, and its disks keep
/// what the world gave them.
#[test]
fn legacy_voters_never_send_update_voter() {
    let mut c = stale_entry_quorum(Legacy);
    c.settle(1500);
    assert_eq!(c.count_sent(1, 0, RpcKind::UpdateRaftVoter), 0);
    assert!(matches!(c.replica(1).state(), EpochState::Follower(f) if f.update_voter_deadline == u64::MAX));
}

/// A Kafka release cannot start without a directory id: a blank disk is formatted with one
/// at the replica's first start, and keeps it across restarts; the legacy model leaves the
/// world's blank disk as it is.
#[test]
fn a_release_formats_a_blank_disk_with_a_directory_id() {
    let blank = || ReplicaLog::new(&Meter::default());
    for (release, formatted) in [(V3_9, true), (Legacy, false)] {
        let setup = ReplicaSetup {
            id: 0,
            bootstrap_only: false,
            voters: vec![0, 1, 2],
            config: config(release),
            switches: Unsafe::default(),
            snapshot_interval: 0,
        };
        let (mut rng, mut ids, mut out) = (kraft_base::rng::Rng::new(1), IdSource::default(), Vec::new());
        let mut ctx = Ctx { now: 0, rng: &mut rng, ids: &mut ids, out: &mut out };
        let durable = Durable { election: ElectionState::default(), log: blank() };
        let (r, _) = Replica::start(&mut ctx, setup.clone(), durable, Reason::Startup);
        let id = r.log().directory_id();
        assert_eq!(id.is_some(), formatted, "{release:?}");
        let (again, _) = Replica::start(&mut ctx, setup, r.durable(), Reason::Restart);
        assert_eq!(again.log().directory_id(), id, "kept on disk");
    }
}

#[test]
fn release_names_parse_and_refuse_others() {
    for r in KafkaRelease::ALL {
        assert_eq!(KafkaRelease::parse(r.name()), Ok(r));
        assert!(!r.explanation().is_empty());
    }
    assert_eq!(
        KafkaRelease::parse("4.3").unwrap_err(),
        "unknown Kafka release '4.3'; known releases: legacy, 3.9, 4.0, 4.1, 4.2"
    );
    assert_eq!(QuorumConfig::default().release, Legacy);
}
