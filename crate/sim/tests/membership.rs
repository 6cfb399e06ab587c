//! Dynamic quorums in the world (KIP-853): disks formatted with directory ids and a
//! bootstrap checkpoint, the admin client's add-controller and remove-controller sent to
//! the leader and answered in the trace (`admin` events), and the voter sets every
//! replica then reads.

use kraft_boundary::ReplicaCore;
use kraft_sim::trace::EventKind;
use kraft_sim::{Action, ClusterSpec, QuorumKind, Simulation, TimedAction};

fn dynamic(release: &str) -> ClusterSpec {
    ClusterSpec {
        voters: 3,
        observers: 2,
        seed: 5,
        kafka_release: Some(release.into()),
        quorum: Some(QuorumKind::Dynamic),
        ..ClusterSpec::default()
    }
}

fn at(t: u64, action: Action) -> TimedAction {
    TimedAction { t, action }
}

/// Every `admin` event: (answering node, request, voter, error).
fn answers(sim: &Simulation) -> Vec<(Option<u32>, &'static str, u32, &'static str)> {
    sim.trace()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Admin { node, request, voter, error, .. } => Some((node, request, voter, error)),
            _ => None,
        })
        .collect()
}

/// Each running replica's latest voter set.
fn voter_sets(sim: &Simulation) -> Vec<Vec<u32>> {
    sim.world().nodes.iter().filter_map(|n| n.replica.as_ref()).map(|r| ReplicaCore::voters(r).collect()).collect()
}

/// Grow 3 -> 5, then remove the leader: each change is answered NONE by the leader once
/// it commits, every replica ends on the same set, and the removed leader resigns
/// (RemoveVoterHandler, then KafkaRaftClient's resignation once the set commits).
#[test]
fn grow_to_five_then_remove_the_leader() {
    let probe = Simulation::replay_once(dynamic("4.1"), vec![], 3_000).unwrap();
    let (leader, _) = probe.world().leader().expect("a leader by 3 s");
    let inputs = vec![
        at(3_000, Action::AddVoter { node: 3 }),
        at(6_000, Action::AddVoter { node: 4 }),
        at(9_000, Action::RemoveVoter { node: leader }),
    ];
    let sim = Simulation::replay_once(dynamic("4.1"), inputs, 15_000).unwrap();
    assert_eq!(
        answers(&sim),
        [
            (Some(leader), "add-controller", 3, "NONE"),
            (Some(leader), "add-controller", 4, "NONE"),
            (Some(leader), "remove-controller", leader, "NONE")
        ]
    );
    let rest: Vec<u32> = (0..5).filter(|&n| n != leader).collect();
    assert!(voter_sets(&sim).iter().all(|s| *s == rest), "{:?}", voter_sets(&sim));
    let (new_leader, _) = sim.world().leader().expect("a new leader");
    assert_ne!(new_leader, leader);
    assert_eq!(sim.violations().map(|e| e.to_string()).collect::<Vec<_>>(), Vec::<String>::new());
}

/// The leader's checks, in Kafka's order, answered with Kafka's error codes: a voter
/// already in the set (DUPLICATE_VOTER), a second change while one is pending
/// (REQUEST_TIMED_OUT), a node that is not a voter (VOTER_NOT_FOUND), and a static quorum
/// at kraft.version 0 (UNSUPPORTED_VERSION).
#[test]
fn refusals_carry_kafkas_error_codes() {
    let sim = Simulation::replay_once(
        dynamic("4.1"),
        vec![
            at(3_000, Action::AddVoter { node: 1 }),
            at(4_000, Action::AddVoter { node: 3 }),
            at(4_000, Action::AddVoter { node: 4 }),
            at(6_000, Action::RemoveVoter { node: 4 }),
        ],
        8_000,
    )
    .unwrap();
    let errors: Vec<_> = answers(&sim).into_iter().map(|(_, r, v, e)| (r, v, e)).collect();
    assert_eq!(
        errors,
        [
            ("add-controller", 1, "DUPLICATE_VOTER"),
            ("add-controller", 4, "REQUEST_TIMED_OUT"),
            ("add-controller", 3, "NONE"),
            ("remove-controller", 4, "VOTER_NOT_FOUND"),
        ]
    );
    let static_quorum = ClusterSpec { quorum: Some(QuorumKind::Static), ..dynamic("4.1") };
    let sim = Simulation::replay_once(static_quorum, vec![at(3_000, Action::AddVoter { node: 3 })], 5_000).unwrap();
    assert_eq!(answers(&sim).into_iter().map(|a| a.3).collect::<Vec<_>>(), ["UNSUPPORTED_VERSION"]);
}

/// With no leader the admin client has no one to ask: refused at once.
#[test]
fn no_leader_no_change() {
    let sim = Simulation::replay_once(dynamic("3.9"), vec![at(10, Action::AddVoter { node: 3 })], 100).unwrap();
    assert_eq!(answers(&sim), [(None, "add-controller", 3, "NOT_LEADER_OR_FOLLOWER")]);
}

/// Replacing a disk: a wiped voter comes back with a new directory id, an observer the
/// old key no longer matches; removing the old key and adding the new one makes it a
/// voter again.
#[test]
fn a_wiped_voter_is_replaced_by_its_new_disk() {
    let probe = Simulation::replay_once(dynamic("4.1"), vec![], 3_000).unwrap();
    let (leader, _) = probe.world().leader().expect("a leader by 3 s");
    let wiped = (leader + 1) % 3;
    let before = probe.world().nodes[wiped as usize].directory().unwrap();
    let inputs = vec![
        at(3_000, Action::Wipe { node: wiped }),
        at(3_500, Action::Restart { node: wiped }),
        at(5_000, Action::RemoveVoter { node: wiped }),
        at(8_000, Action::AddVoter { node: wiped }),
    ];
    let sim = Simulation::replay_once(dynamic("4.1"), inputs, 12_000).unwrap();
    let after = sim.world().nodes[wiped as usize].directory().unwrap();
    assert_ne!(before, after, "a wipe formats a new directory id");
    let errors: Vec<_> = answers(&sim).into_iter().map(|(_, r, _, e)| (r, e)).collect();
    assert_eq!(errors, [("remove-controller", "NONE"), ("add-controller", "NONE")]);
    let (l, _) = sim.world().leader().unwrap();
    let leader_replica = sim.world().nodes[l as usize].replica.as_ref().unwrap();
    assert_eq!(leader_replica.voter_directory(wiped), Some(after));
    assert_eq!(sim.violations().map(|e| e.to_string()).collect::<Vec<_>>(), Vec::<String>::new());
}

/// A spec without `quorum` is static, and a dynamic quorum needs a Kafka release.
#[test]
fn dynamic_needs_a_release_and_static_is_the_default() {
    let legacy = ClusterSpec { kafka_release: None, ..dynamic("4.1") };
    let err = legacy.resolve::<kraft_protocol::KRaft>().unwrap_err();
    assert_eq!(err.0, "quorum");
    assert!(err.1.contains("3.9"), "{}", err.1);
    let absent = ClusterSpec { quorum: None, ..dynamic("4.1") };
    let stat = ClusterSpec { quorum: Some(QuorumKind::Static), ..dynamic("4.1") };
    let digest = |s: ClusterSpec| Simulation::replay_once(s, vec![], 5_000).unwrap().digest().hex();
    assert_eq!(digest(absent), digest(stat));
}

// ---- auto-join (Kafka 4.2+, KIP-1186) ------------------------------------------------------

const AUTO_JOIN: &str = "controller.quorum.auto.join.enable";

fn auto_join(release: &str, seed: u64) -> ClusterSpec {
    ClusterSpec { seed, config: [(AUTO_JOIN.to_string(), 1)].into(), ..dynamic(release) }
}

/// Every AddRaftVoter and RemoveRaftVoter a replica sent: (sender, rpc name).
fn voter_requests(sim: &Simulation) -> Vec<(u32, &'static str)> {
    sim.trace()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Send { from, rpc, .. } => {
                let name = rpc.name();
                matches!(name, "AddRaftVoter" | "RemoveRaftVoter").then_some((*from, name))
            }
            _ => None,
        })
        .collect()
}

fn no_violations(sim: &Simulation) {
    assert_eq!(sim.violations().map(|e| e.to_string()).collect::<Vec<_>>(), Vec::<String>::new());
}

/// `controller.quorum.auto.join.enable` defaults to false, as in Kafka's QuorumConfig: a 4.2
/// dynamic quorum's observer controllers only fetch, and stay observers.
#[test]
fn auto_join_is_off_by_default() {
    let sim = Simulation::replay_once(dynamic("4.2"), vec![], 15_000).unwrap();
    assert_eq!(voter_requests(&sim), []);
    assert!(voter_sets(&sim).iter().all(|s| *s == [0, 1, 2]), "{:?}", voter_sets(&sim));
    no_violations(&sim);
}

/// With the key on, a 4.2 dynamic quorum's observer controllers add themselves, one change
/// at a time, with no admin request: every replica ends on the five voters, over seeds
/// 1..=8 (each elects a leader in its own way and lines the two joiners up differently),
/// and every invariant holds after every event.
#[test]
fn observer_controllers_auto_join_over_seeds() {
    for seed in 1..=8 {
        let sim = Simulation::replay_once(auto_join("4.2", seed), vec![], 20_000).unwrap();
        assert!(voter_sets(&sim).iter().all(|s| *s == [0, 1, 2, 3, 4]), "seed {seed}: {:?}", voter_sets(&sim));
        assert_eq!(answers(&sim), [], "seed {seed}: no admin client");
        let senders: Vec<u32> = voter_requests(&sim).iter().map(|(from, _)| *from).collect();
        assert!(senders.contains(&3) && senders.contains(&4), "seed {seed}: {senders:?}");
        assert!(senders.iter().all(|n| *n >= 3), "seed {seed}: only the observers ask");
        no_violations(&sim);
    }
}

/// KafkaRaftClientAutoJoinTest, in a whole world: testAutoAddNewVoter (an observer
/// controller sends AddRaftVoter for itself), testObserverRemovesOldVoterAndAutoJoins and
/// testAutoRemoveOldVoter (a controller whose id is a voter's on another disk first sends
/// RemoveRaftVoter for that key, then AddRaftVoter for its own), and
/// testObserverDoesNotAddItselfWhenAutoJoinDisabled (the default, above). A voter is
/// wiped once the observers have joined; it comes back with a new directory id.
#[test]
fn a_wiped_voter_removes_its_old_key_and_joins_again() {
    let spec = auto_join("4.2", 5);
    let probe = Simulation::replay_once(spec.clone(), vec![], 8_000).unwrap();
    let (leader, _) = probe.world().leader().expect("a leader by 8 s");
    assert!(voter_sets(&probe).iter().all(|s| *s == [0, 1, 2, 3, 4]), "{:?}", voter_sets(&probe));
    let wiped = (leader + 1) % 3;
    let before = probe.world().nodes[wiped as usize].directory().unwrap();
    let inputs = vec![at(8_000, Action::Wipe { node: wiped }), at(8_500, Action::Restart { node: wiped })];
    let sim = Simulation::replay_once(spec, inputs, 20_000).unwrap();
    let after = sim.world().nodes[wiped as usize].directory().unwrap();
    assert_ne!(before, after);
    let (l, _) = sim.world().leader().unwrap();
    let leader_replica = sim.world().nodes[l as usize].replica.as_ref().unwrap();
    assert_eq!(leader_replica.voter_directory(wiped), Some(after), "the new disk is the voter");
    let wiped_requests: Vec<&str> =
        voter_requests(&sim).into_iter().filter(|(from, _)| *from == wiped).map(|(_, r)| r).collect();
    assert_eq!(wiped_requests, ["RemoveRaftVoter", "AddRaftVoter"]);
    assert!(voter_sets(&sim).iter().all(|s| *s == [0, 1, 2, 3, 4]), "{:?}", voter_sets(&sim));
    no_violations(&sim);
}

/// The key is refused, naming the field, the value and why, where Kafka would not auto-join:
/// a release before 4.2 (KafkaRaftClient.pollFollowerAsObserver has no auto-join) and a
/// static quorum (its observers are brokers: canBecomeVoter is false); a value other than
/// 0 or 1 is out of range.
#[test]
fn auto_join_is_refused_before_4_2_and_on_static_quorums() {
    let field = format!("config.{AUTO_JOIN}");
    let err = auto_join("4.1", 1).resolve::<kraft_protocol::KRaft>().unwrap_err();
    assert_eq!(err.0, field);
    assert!(err.1.contains("got 1") && err.1.contains("Kafka 4.2") && err.1.contains("4.1"), "{}", err.1);
    let stat = ClusterSpec { quorum: Some(QuorumKind::Static), ..auto_join("4.2", 1) };
    let err = stat.resolve::<kraft_protocol::KRaft>().unwrap_err();
    assert_eq!(err.0, field);
    assert!(err.1.contains("got 1") && err.1.contains("static quorum"), "{}", err.1);
    let two = ClusterSpec { config: [(AUTO_JOIN.to_string(), 2)].into(), ..dynamic("4.2") };
    let err = two.resolve::<kraft_protocol::KRaft>().unwrap_err();
    assert_eq!(err, (field, format!("{AUTO_JOIN} must be between 0 and 1, got 2")));
    let off = ClusterSpec { config: [(AUTO_JOIN.to_string(), 0)].into(), quorum: None, ..dynamic("4.1") };
    assert!(off.resolve::<kraft_protocol::KRaft>().is_ok(), "0 is Kafka's default anywhere");
}

/// add-controller's first half: a new machine formatted with --no-initial-controllers
/// (`addController`) gets the next id and a directory id of its own, bootstraps from the
/// leader's log as an observer (its voter set is the leader's, without it), and
/// `addVoter` then makes it a voter of every replica's set.
#[test]
fn a_new_controller_fetches_as_an_observer_until_added() {
    let spec = ClusterSpec { observers: 0, ..dynamic("4.1") };
    let inputs = vec![at(3_000, Action::AddController), at(6_000, Action::AddVoter { node: 3 })];
    let before = Simulation::replay_once(spec.clone(), inputs.clone(), 5_900).unwrap();
    let w = before.world();
    assert_eq!(w.nodes.len(), 4);
    let dirs: Vec<u64> = w.nodes.iter().map(|n| n.directory().unwrap()).collect();
    assert!((0..3).all(|i| dirs[i] != dirs[3]), "a new directory id: {dirs:?}");
    let (leader, _) = w.leader().unwrap();
    let leader_log = w.nodes[leader as usize].replica.as_ref().unwrap().log().end_offset();
    let new = w.nodes[3].replica.as_ref().expect("started");
    assert_eq!(ReplicaCore::voters(new).collect::<Vec<_>>(), [0, 1, 2], "it read the voters from the leader's log");
    assert_eq!(new.log().end_offset(), leader_log, "caught up as an observer");
    let text = before.trace().iter().map(|e| e.kind.to_string()).find(|t| t.contains("new controller"));
    assert_eq!(text.as_deref(), Some("fault new controller n3 (format --no-initial-controllers)"));

    let after = Simulation::replay_once(spec, inputs, 10_000).unwrap();
    assert_eq!(answers(&after), [(Some(leader), "add-controller", 3, "NONE")]);
    assert!(voter_sets(&after).iter().all(|s| *s == [0, 1, 2, 3]), "{:?}", voter_sets(&after));
    assert_eq!(after.violations().map(|e| e.to_string()).collect::<Vec<_>>(), Vec::<String>::new());
}

/// A run that grew replays to the same digest from its inputs, and seeking back before
/// the new controller and forward past it gives the same state (nodes, digest, lanes).
#[test]
fn a_grown_cluster_replays_and_seeks_exactly() {
    let spec = ClusterSpec { observers: 0, writes_per_second: 20, ..dynamic("4.1") };
    let mut live = Simulation::new(spec.clone()).unwrap();
    live.advance(3_000).unwrap();
    live.act(Action::AddController).unwrap();
    live.act(Action::Partition { groups: vec![vec![0], vec![1, 2]] }).unwrap();
    live.advance(1_000).unwrap();
    live.act(Action::Heal).unwrap();
    live.act(Action::AddController).unwrap();
    live.advance(2_000).unwrap();
    live.act(Action::AddVoter { node: 4 }).unwrap();
    live.act(Action::Crash { node: 3 }).unwrap();
    live.advance(4_000).unwrap();
    let (digest, nodes) = (live.digest(), live.world().nodes.len());
    assert_eq!(nodes, 5);
    let lanes = live.lanes(0, 10_000).unwrap();
    assert_eq!(lanes.lanes.len(), 5);
    assert!(!lanes.lanes[4].bands.is_empty(), "the new node's lane shows its states");

    let replayed = Simulation::replay(spec, live.inputs().to_vec(), 10_000).unwrap();
    assert_eq!(replayed.digest(), digest);
    live.seek(2_000).unwrap();
    assert_eq!(live.world().nodes.len(), 3, "before the new controllers");
    assert_eq!(live.lanes(0, 2_000).unwrap().lanes.len(), 3);
    live.seek(10_000).unwrap();
    assert_eq!((live.digest(), live.world().nodes.len()), (digest, nodes));
    assert_eq!(format!("{:?}", live.lanes(0, 10_000).unwrap()), format!("{lanes:?}"));
    assert_eq!(live.violations().map(|e| e.to_string()).collect::<Vec<_>>(), Vec::<String>::new());
}

/// Refused before anything changes: a static quorum has no controllers formatted
/// without voters, a cluster stays within the nodes limit, and an input naming a node
/// is checked against the cluster as the inputs before it grew it.
#[test]
fn add_controller_is_refused_for_static_quorums_and_past_the_limit() {
    let stat = ClusterSpec { quorum: Some(QuorumKind::Static), ..dynamic("4.1") };
    let mut sim = Simulation::new(stat).unwrap();
    let err = sim.act(Action::AddController).unwrap_err();
    assert_eq!(err.field, "quorum");
    assert!(err.message.contains("\"static\"") && err.message.contains("dynamic"), "{}", err.message);
    assert_eq!(sim.world().nodes.len(), 5);
    assert!(sim.inputs().is_empty());

    let full = ClusterSpec { voters: 7, observers: 8, ..dynamic("4.1") };
    let mut sim = Simulation::new(full).unwrap();
    let err = sim.act(Action::AddController).unwrap_err();
    assert_eq!(
        (err.field.as_str(), err.message.as_str()),
        ("nodes", "addController would make 16 nodes: must be between 1 and 15, got 16")
    );

    let grown = vec![at(1_000, Action::AddController), at(2_000, Action::Crash { node: 5 })];
    assert!(Simulation::replay_once(dynamic("4.1"), grown, 3_000).is_ok());
    let early = vec![at(1_000, Action::Crash { node: 5 }), at(2_000, Action::AddController)];
    let err = Simulation::replay_once(dynamic("4.1"), early, 3_000).err().expect("refused");
    assert_eq!(err.field, "inputs[0].node");
}
