//! Each fault can be undone on its own: `reconnect` undoes one `isolate`, `healPartition`
//! the partition, `clearSlowLink` one slow link, and the rest of the network stays as it
//! was. The undo actions go through the input log like any other, so a replay (a link)
//! gives the same run.

use kraft_sim::{Action, ClusterSpec, Simulation, TimedAction};
use std::collections::BTreeSet;

fn sim() -> Simulation {
    let spec = ClusterSpec { voters: 3, observers: 2, seed: 12, writes_per_second: 10, ..ClusterSpec::default() };
    let mut s = Simulation::new(spec).unwrap();
    s.advance(3_000).unwrap();
    s
}

fn down(s: &Simulation) -> BTreeSet<(u32, u32)> {
    s.world().network.down_links().into_iter().collect()
}

/// Links that touch `node`, both directions.
fn links_of(node: u32, nodes: u32) -> BTreeSet<(u32, u32)> {
    (0..nodes).filter(|n| *n != node).flat_map(|n| [(node, n), (n, node)]).collect()
}

#[test]
fn reconnect_heals_only_the_isolated_nodes_links() {
    let mut s = sim();
    s.act(Action::Cut { from: 0, to: 1 }).unwrap();
    s.act(Action::Isolate { node: 3 }).unwrap();
    s.act(Action::Isolate { node: 2 }).unwrap();
    let before_reconnect: BTreeSet<_> = links_of(2, 5).union(&links_of(3, 5)).copied().chain([(0, 1)]).collect();
    assert_eq!(down(&s), before_reconnect);
    s.act(Action::Reconnect { node: 3 }).unwrap();
    let expected: BTreeSet<_> = links_of(2, 5).into_iter().chain([(0, 1)]).collect();
    assert_eq!(down(&s), expected, "n3's links are back; n2 stays isolated and the cut stays");
    let f = s.world().network.link_faults();
    assert_eq!(f.isolated, vec![2]);
    assert_eq!(f.cuts, vec![(0, 1)]);
}

#[test]
fn reconnect_puts_a_node_back_in_its_partition_group() {
    let mut s = sim();
    s.act(Action::Partition { groups: vec![vec![0, 1], vec![2, 3, 4]] }).unwrap();
    let partitioned = down(&s);
    s.act(Action::Isolate { node: 1 }).unwrap();
    assert!(down(&s).contains(&(1, 0)));
    s.act(Action::Reconnect { node: 1 }).unwrap();
    assert_eq!(down(&s), partitioned, "n1 talks to n0 again, and still not across the partition");
    assert_eq!(s.world().network.link_faults().groups, vec![vec![0, 1], vec![2, 3, 4]]);
}

#[test]
fn heal_partition_keeps_cuts_isolations_and_slow_links() {
    let mut s = sim();
    s.act(Action::Partition { groups: vec![vec![0], vec![1, 2]] }).unwrap();
    s.act(Action::Isolate { node: 4 }).unwrap();
    s.act(Action::Cut { from: 2, to: 0 }).unwrap();
    s.act(Action::SlowLink { from: 1, to: 0, latency_ms: [300, 400] }).unwrap();
    s.act(Action::HealPartition).unwrap();
    let expected: BTreeSet<_> = links_of(4, 5).into_iter().chain([(2, 0)]).collect();
    assert_eq!(down(&s), expected);
    let f = s.world().network.link_faults();
    assert!(f.groups.is_empty());
    assert_eq!(f.isolated, vec![4]);
    assert_eq!(f.slow_links.len(), 1);
}

#[test]
fn clear_slow_link_restores_one_links_latency() {
    let mut s = sim();
    s.act(Action::SlowLink { from: 1, to: 0, latency_ms: [300, 400] }).unwrap();
    s.act(Action::SlowLink { from: 2, to: 0, latency_ms: [500, 600] }).unwrap();
    s.act(Action::ClearSlowLink { from: 1, to: 0 }).unwrap();
    let f = s.world().network.link_faults();
    assert_eq!(f.slow_links.len(), 1);
    assert_eq!((f.slow_links[0].from, f.slow_links[0].to, f.slow_links[0].latency_ms), (2, 0, [500, 600]));
    // and the link really is back at the network's latency (not 300..400 ms)
    let p = s.world().network.profile;
    s.advance(2_000).unwrap();
    let late = s.trace().iter().filter(|e| e.t > 3_100).find_map(|e| match &e.kind {
        kraft_sim::trace::EventKind::Send { from: 1, to: 0, arrives, .. } => Some(arrives - e.t),
        _ => None,
    });
    let latency = late.expect("n1 sends to n0");
    assert!((p.latency_min_ms..=p.latency_max_ms).contains(&latency), "latency {latency} ms");
}

#[test]
fn isolate_then_partition_behaves_as_before() {
    // A partition replaces every isolation, as it did when isolation was a partition group.
    let mut s = sim();
    s.act(Action::Isolate { node: 0 }).unwrap();
    s.act(Action::Partition { groups: vec![vec![0, 1]] }).unwrap();
    assert!(s.world().network.link_up(0, 1));
    assert!(s.world().network.link_faults().isolated.is_empty());
    s.act(Action::Heal).unwrap();
    s.act(Action::Isolate { node: 2 }).unwrap();
    s.act(Action::Heal).unwrap();
    assert!(down(&s).is_empty());
}

#[test]
fn undo_actions_replay_to_the_same_run() {
    let mut s = sim();
    s.act(Action::Partition { groups: vec![vec![0], vec![1, 2, 3, 4]] }).unwrap();
    s.advance(1_500).unwrap();
    s.act(Action::Isolate { node: 1 }).unwrap();
    s.act(Action::SlowLink { from: 2, to: 1, latency_ms: [200, 250] }).unwrap();
    s.advance(1_000).unwrap();
    s.act(Action::HealPartition).unwrap();
    s.act(Action::Reconnect { node: 1 }).unwrap();
    s.act(Action::ClearSlowLink { from: 2, to: 1 }).unwrap();
    s.advance(5_000).unwrap();
    let json = serde_json::to_string(s.inputs()).unwrap();
    for name in ["\"reconnect\"", "\"healPartition\"", "\"clearSlowLink\""] {
        assert!(json.contains(name), "{name} in {json}");
    }
    let inputs: Vec<TimedAction> = kraft_sim::input::from_json(&json, "inputs").unwrap();
    let again = Simulation::replay(s.spec().clone(), inputs, s.now()).unwrap();
    assert_eq!(again.digest(), s.digest());
    let mut back = s;
    let now = back.now();
    back.seek(2_000).unwrap();
    back.seek(now).unwrap();
    assert_eq!(back.digest(), again.digest());
}

#[test]
fn undo_actions_name_a_bad_node() {
    let mut s = sim();
    let e = s.act(Action::Reconnect { node: 9 }).unwrap_err().to_string();
    assert!(e.contains("node 9 does not exist"), "{e}");
    let e = s.act(Action::ClearSlowLink { from: 1, to: 1 }).unwrap_err().to_string();
    assert!(e.contains("two different nodes"), "{e}");
}

// A scenario may use the undo actions by their names, with node references like any
// other step; they resolve to the sim's actions and run through the input log.
#[test]
fn scenarios_name_the_undo_actions() {
    use kraft_scenario::RunOptions;
    let text = r#"{"id": "undo", "title": "t", "summary": "s", "cluster": {"voters": 3, "seed": 4}, "durationMs": 6000,
        "steps": [
            {"at": 2000, "action": "isolate", "node": 2, "caption": "c"},
            {"at": 2100, "action": "slowLink", "from": 0, "to": 1, "latencyMs": [40, 50]},
            {"at": 2200, "action": "partition", "groups": [[0], [1, 2]]},
            {"at": 3000, "action": "reconnect", "node": 2},
            {"at": 3100, "action": "clearSlowLink", "from": 0, "to": 1},
            {"at": 3200, "action": "healPartition"}
        ],
        "expect": [{"leaderElectedBy": 2000}]}"#;
    let s = kraft_scenario::parse(text).unwrap_or_else(|e| panic!("{}: {}", e.path, e.message));
    let report = kraft_scenario::run(&s, &RunOptions::default());
    let names: Vec<_> =
        report.inputs.iter().map(|a| serde_json::to_value(&a.action).unwrap()["action"].clone()).collect();
    assert_eq!(names, ["isolate", "slowLink", "partition", "reconnect", "clearSlowLink", "healPartition"]);
    let e = kraft_scenario::parse(&text.replace(r#""from": 0, "to": 1}"#, r#""from": 1, "to": 1}"#)).unwrap_err();
    assert!(e.message.contains("two different nodes"), "{}", e.message);
}

/// What an undo must give back: the link faults in force, the links down, the network
/// profile and which nodes run.
fn undoable_state(s: &Simulation) -> String {
    let w = s.world();
    let running: Vec<bool> = w.nodes.iter().map(|n| n.replica.is_some()).collect();
    format!(
        "{} {:?} {:?} {running:?}",
        serde_json::to_string(&w.network.link_faults()).unwrap(),
        w.network.down_links(),
        w.network.profile
    )
}

/// The catalog's undo relation (each action's `undoes` in `spec.rs`, which the UI reads as
/// `ACTIONS` and `REPAIRS` in web/src/generated/wire.ts) is true: after each action it
/// claims to undo, with the samples' nodes, it puts back what that action changed.
#[test]
fn every_undo_the_catalog_claims_takes_its_action_back() {
    let samples = Action::samples();
    let sample = |k: kraft_sim::ActionKind| samples.iter().find(|a| a.kind() == k).unwrap().clone();
    let mut checked = 0;
    for undo in kraft_sim::ActionKind::ALL {
        for undone in undo.undoes() {
            let mut s = sim();
            let before = undoable_state(&s);
            s.act(sample(*undone)).unwrap();
            assert_ne!(undoable_state(&s), before, "{} changes nothing to undo", undone.name());
            s.act(sample(*undo)).unwrap();
            assert_eq!(undoable_state(&s), before, "{} does not undo {}", undo.name(), undone.name());
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked} undo relations");
}
