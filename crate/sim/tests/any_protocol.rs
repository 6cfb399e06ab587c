//! The world runs a protocol it knows only through the boundary: `fixture_protocol`, a
//! test fixture written against `kraft_boundary` alone, goes through the same world,
//! trace, checker, views, explanations, packed form, timeline lanes and failover measure
//! as KRaft, with crashes and a partition, and the protocol-independent invariants read
//! its trace.

mod fixture_protocol;

use fixture_protocol::{Appointed, State};
use kraft_boundary::{LogView, ReplicaCore, StateName};
use kraft_sim::explain::explain;
use kraft_sim::lanes::{LaneState, Lanes, MarkKind, Projector};
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

/// A spec's `kafkaRelease` goes to the protocol, which reads it: KRaft knows Kafka's
/// releases, the fixture has none and refuses any, naming the field and the value,
/// rather than run something other than what the spec names.
#[test]
fn a_release_is_the_protocols_to_refuse() {
    let spec = |release: &str| ClusterSpec { voters: 3, kafka_release: Some(release.into()), ..ClusterSpec::default() };
    for release in ["4.1", "legacy"] {
        let e = Run::<Appointed>::create(spec(release)).err().expect("refused");
        assert_eq!(e.to_string(), format!("kafkaRelease: this protocol has no releases; got \"{release}\""));
        assert!(kraft_sim::Simulation::new(spec(release)).is_ok(), "KRaft takes {release}");
    }
    assert!(Run::<Appointed>::create(ClusterSpec { voters: 3, ..ClusterSpec::default() }).is_ok());
}

/// Leader changes are measured from any protocol's trace: the fixture's appointed leader
/// is there from the start, and after its crash it leads again, a new epoch, once it
/// restarts. Nobody seeks votes, so there is no detection, only the wait and the commit.
#[test]
fn leader_changes_are_measured_from_any_protocols_trace() {
    let sim = faulted_run(BTreeMap::new());
    let changes = kraft_sim::failover::leader_changes(sim.trace(), 3);
    let texts: Vec<&str> = changes.iter().map(|c| c.measurement.text.as_str()).collect();
    assert_eq!(changes.len(), 2, "{texts:#?}");
    assert!(changes[0].previous.is_none() && changes[0].measurement.kind == "firstElection", "{texts:#?}");
    // the partition healed before anything changed: the crash is the cause
    let again = &changes[1];
    assert_eq!((again.node, again.epoch), (0, 2));
    assert_eq!(again.previous.map(|p| (p.node, p.epoch)), Some((0, 1)));
    assert_eq!(again.cause.as_ref().map(|c| (c.text.as_str(), c.t)), Some(("crash n0", 4_000)));
    let m = &again.measurement;
    assert_eq!(m.kind, "failover");
    assert_eq!(m.value_ms, Some(again.t - 4_000));
    assert!(again.t >= 4_400, "n0 leads again once it restarts: {texts:#?}");
    assert_eq!(m.parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["first commit"]);
    assert!(again.lost_rounds.is_empty());
    assert!(m.text.starts_with("crash n0 at 4.000s (leader n0 of epoch 1): n0 leads epoch 2 at "), "{}", m.text);
}

/// The timeline's lanes read any protocol's run: a band per node from its first state
/// (a crash one remembering the HW the node had), the leader's marks, the spans, and
/// windows that read the same from a checkpoint's fold, after a seek back (the recorded
/// future) and folded from the run's start.
#[test]
fn the_timeline_lanes_read_any_protocols_run() {
    let mut sim = faulted_run(BTreeMap::new());
    sim.advance(19_000).expect("runs on past two checkpoints");
    let end = sim.now();
    let all = sim.lanes(0, end).expect("a window of the whole run");
    assert_eq!(all.lanes.len(), 3);
    let bands = |n: usize| all.lanes[n].bands.iter().map(|b| (b.t, b.state, b.epoch)).collect::<Vec<_>>();
    assert_eq!(bands(0), [(0, State::Leader, 1), (4_000, State::Crashed, 1), (4_400, State::Leader, 2)]);
    assert!(all.lanes.iter().all(|l| l.bands[0].t == 0 && l.bands[0].seq > 0));
    let crashed = all.lanes.iter().flat_map(|l| &l.bands).filter(|b| b.state == State::Crashed);
    assert_eq!(
        crashed.map(|b| (b.t, b.hw.is_some())).collect::<Vec<_>>(),
        [(4_000, true), (1_000, true)],
        "n0's, then n2's"
    );
    // a leader starts without a commit: n0's HW is none again when it leads epoch 2
    assert_eq!(all.lanes[0].hw.iter().rev().find(|s| s.t <= 4_400).map(|s| s.value), Some(None));
    let leaders: Vec<u64> = all.marks.iter().filter(|m| m.kind == MarkKind::Leader).map(|m| m.event.t).collect();
    assert_eq!(leaders, [0, 4_400]);
    assert!(all.spans.iter().any(|s| s.dropped == Some(DropReason::Partition)) && all.spans.iter().any(|s| s.failed));

    // A window reads as folding every event from the run's start does: its lanes and
    // marks wherever it starts, its spans too where its fold starts there (before the
    // checkpoint at 10 s). A message waiting in a node's inbox when the node crashes ends
    // with no event: a fold from the start keeps it on the wire (n1's Ack #1775, at n0's
    // crash), one from a later checkpoint never sees it.
    let windows = [(0, 6_000), (3_900, 4_500), (9_000, 11_000), (19_999, 21_000), (end - 2_000, end)];
    let from_the_start = |from: u64, to: u64| -> Lanes<Appointed> {
        let mut p = Projector::new(from, to, LaneState::new(3), Vec::new());
        sim.trace().iter().take_while(|e| e.t <= to).for_each(|e| p.take(e).expect("a short window"));
        p.finish(end)
    };
    let before: Vec<Lanes<Appointed>> = windows.iter().map(|&(from, to)| sim.lanes(from, to).unwrap()).collect();
    for (&(from, to), lanes) in windows.iter().zip(&before) {
        let want = from_the_start(from, to);
        assert_eq!((&lanes.lanes, &lanes.marks), (&want.lanes, &want.marks), "window {from}..{to}");
        if from < 10_000 {
            assert_eq!(lanes.spans, want.spans, "window {from}..{to}");
        }
    }
    // After a seek back the recorded future reads as it did.
    sim.seek(1_500).expect("seeks back");
    assert_eq!(sim.horizon(), end);
    for (&(from, to), lanes) in windows.iter().zip(&before) {
        assert_eq!(sim.lanes(from, to).unwrap(), *lanes, "window {from}..{to} after the seek");
    }
}
