//! The world runs a protocol it knows only through the boundary: `fixture_protocol`, a
//! test fixture written against `kraft_boundary` alone, goes through the same world,
//! trace, checker, views, explanations and packed form as KRaft, with crashes and a
//! partition, and the protocol-independent invariants read its trace.

mod fixture_protocol;

use fixture_protocol::Appointed;
use kraft_boundary::{LogView, ReplicaCore, StateName};
use kraft_sim::explain::explain;
use kraft_sim::trace::{DropReason, Event, EventKind, Invariant};
use kraft_sim::{Action, ClusterSpec, Run, TimedAction};
use std::collections::BTreeMap;

fn at(t: u64, action: Action) -> TimedAction {
    TimedAction { t, action }
}

/// Six seconds of three voters under a client workload: a follower crashes and
/// restarts, the leader is cut off and the partition heals, then the leader crashes and
/// restarts into a new epoch.
fn faulted_run(config: BTreeMap<String, u64>) -> Run<Appointed> {
    let spec = ClusterSpec { voters: 3, seed: 11, writes_per_second: 40, config, ..ClusterSpec::default() };
    let inputs = vec![
        at(1_000, Action::Crash { node: 2 }),
        at(1_600, Action::Restart { node: 2 }),
        at(2_500, Action::Partition { groups: vec![vec![0], vec![1, 2]] }),
        at(3_300, Action::Heal),
        at(4_000, Action::Crash { node: 0 }),
        at(4_400, Action::Restart { node: 0 }),
    ];
    Run::<Appointed>::replay_with(spec, inputs, 6_000, true).expect("a valid run")
}

fn count(sim: &Run<Appointed>, what: impl Fn(&EventKind<Appointed>) -> bool) -> usize {
    sim.trace().iter().filter(|e| what(&e.kind)).count()
}

#[test]
fn a_second_protocol_runs_in_the_world_and_the_checker_reads_its_trace() {
    let sim = faulted_run(BTreeMap::new());
    let violations: Vec<String> = sim.violations().map(|e| e.to_string()).collect();
    assert!(violations.is_empty(), "{violations:#?}");

    // The faults happened, and the protocol went through them.
    assert_eq!(count(&sim, |k| matches!(k, EventKind::Crash { .. })), 2);
    assert_eq!(count(&sim, |k| matches!(k, EventKind::Restart { .. })), 2);
    assert!(count(&sim, |k| matches!(k, EventKind::Drop { reason: DropReason::Partition, .. })) > 0);
    assert!(count(&sim, |k| matches!(k, EventKind::Write { accepted: false, .. })) > 0, "none while n0 was down");
    let epochs: Vec<u32> = sim
        .trace()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::State { node: 0, to, epoch, .. } if to.is_leader() => Some(epoch),
            _ => None,
        })
        .collect();
    assert_eq!(epochs, [1, 2], "the leader took a new epoch when it restarted");

    // Every node ends with the same committed records, and the leader committed most
    // of what the clients wrote.
    let world = sim.world();
    let leader = world.nodes[0].replica.as_ref().expect("n0 runs");
    let hw = leader.committed_offset().expect("the leader commits");
    assert!(hw > 150, "committed {hw} records of about 240 writes");
    for n in &world.nodes {
        let r = n.replica.as_ref().expect("every node runs at the end");
        assert!(r.committed_offset().is_some_and(|c| c + 5 >= hw), "n{} lags: {:?}", n.id, r.committed_offset());
        let c = r.committed_offset().unwrap().min(hw);
        assert_eq!(r.log().read(0, c as usize), leader.log().read(0, c as usize), "n{}'s committed prefix", n.id);
        assert_eq!(r.image().applied_offset, r.committed_offset().unwrap());
    }

    // The views, the explanations and the packed form read it as they read KRaft's.
    let views = world.node_views();
    assert_eq!(views.iter().map(|v| v.state).collect::<Vec<_>>(), ["leader", "follower", "follower"]);
    assert_eq!(world.describe_quorum().expect("n0 leads").status.leader_epoch, 2);
    for e in sim.trace() {
        assert!(!explain(&e.kind).is_empty(), "{e}");
    }
    let packed = kraft_sim::packed::pack(sim.trace(), |_| true).expect("packs");
    assert!(!packed.numbers.is_empty() && packed.rest.contains("\"type\":\"state\""));

    // A run replays exactly: seeking back regenerates the events byte for byte.
    let mut again = faulted_run(BTreeMap::new());
    assert_eq!(again.digest(), sim.digest());
    let before: Vec<Event<Appointed>> = sim.events_between(2_000, 3_000).into_owned();
    again.seek(1_500).expect("seeks back");
    again.advance(4_500).expect("runs on");
    assert_eq!(again.events_between(2_000, 3_000).into_owned(), before);
    assert_eq!(again.digest(), sim.digest());
}

/// The checker's invariants hold the fixture to them as they hold KRaft: committing
/// what the leader alone has flushed breaks MajorityReachedHighWatermark.
#[test]
fn the_checker_catches_the_fixtures_unsafe_commit() {
    let sim = faulted_run([("fixture.commitAlone".to_string(), 1)].into());
    let broken: Vec<Invariant> = sim
        .violations()
        .filter_map(|e| match e.kind {
            EventKind::Violation { invariant, .. } => Some(invariant),
            _ => None,
        })
        .collect();
    assert!(broken.contains(&Invariant::MajorityReachedHighWatermark), "{broken:?}");
}
