//! One seed and one input log describe a run completely: same description, same trace,
//! byte for byte (compared through the trace digest), however time is advanced.

use kraft_playground::sim::chaos::{random_run, ChaosOptions};
use kraft_playground::sim::{Action, ClusterSpec, Simulation};

fn chaos(seed: u64) -> Simulation {
    let opts = ChaosOptions { seconds: 30, voters: 3, observers: 1, unsafe_switches: vec![] };
    let (spec, actions) = random_run(seed, &opts);
    Simulation::replay(spec, actions, 30_000).unwrap()
}

#[test]
fn same_seed_and_inputs_give_the_same_trace() {
    for seed in [1, 2, 3, 99] {
        let a = chaos(seed);
        let b = chaos(seed);
        assert_eq!(a.trace().len(), b.trace().len());
        assert_eq!(a.digest(), b.digest(), "seed {seed}");
    }
    assert_ne!(chaos(1).digest(), chaos(2).digest(), "different seeds differ");
}

#[test]
fn how_time_is_advanced_does_not_matter() {
    let spec = ClusterSpec { voters: 5, observers: 2, seed: 5, writes_per_second: 30, ..ClusterSpec::default() };
    let mut one = Simulation::new(spec.clone()).unwrap();
    one.advance(20_000).unwrap();
    let mut many = Simulation::new(spec).unwrap();
    for step in [1, 7, 13, 500, 1, 999, 3_000] {
        many.advance(step).unwrap();
    }
    while many.now() < 20_000 {
        many.advance(333.min(20_000 - many.now())).unwrap();
    }
    assert_eq!(one.digest(), many.digest());
}

#[test]
fn seeking_back_and_forward_reproduces_the_run() {
    let spec = ClusterSpec { voters: 3, observers: 1, seed: 8, writes_per_second: 20, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).unwrap();
    sim.advance(4_000).unwrap();
    sim.act(Action::Crash { node: 1 }).unwrap();
    sim.advance(9_000).unwrap();
    sim.act(Action::Partition { groups: vec![vec![0], vec![1, 2, 3]] }).unwrap();
    sim.advance(30_000).unwrap();
    let full = sim.digest();
    let all: Vec<_> = sim.trace().to_vec();
    assert_eq!(all.len() as u64, sim.last_seq());
    let state_at_20s = {
        let mut probe = Simulation::replay(sim.spec().clone(), sim.inputs().to_vec(), 20_000).unwrap();
        probe.advance(0).unwrap();
        serde_json::to_string(&probe.world().node_views()).unwrap()
    };
    sim.seek(20_000).unwrap();
    assert_eq!(serde_json::to_string(&sim.world().node_views()).unwrap(), state_at_20s);
    sim.seek(2_000).unwrap();
    assert!(sim.trace().iter().all(|e| e.t <= 2_000));
    sim.seek(43_000).unwrap();
    assert_eq!(sim.last_seq(), all.len() as u64);
    assert_eq!(sim.digest(), full, "forward again: the same trace");
    // Jumping forward restored a later checkpoint, so older events are not in memory:
    // asking for them regenerates them, identical.
    assert!(sim.events_since(0).to_vec() == all, "regenerated events differ");
    let mid: Vec<_> = all.iter().filter(|e| (10_000..=12_000).contains(&e.t)).cloned().collect();
    assert!(sim.events_between(10_000, 12_000).to_vec() == mid, "regenerated window differs");
}

#[test]
fn violations_survive_seeking_back_and_jumping_forward() {
    use kraft_playground::protocol::SafetySwitch;
    use kraft_playground::sim::chaos::{random_run, ChaosOptions};
    let opts =
        ChaosOptions { seconds: 60, voters: 3, observers: 1, unsafe_switches: vec![SafetySwitch::VoteIgnoresLog] };
    let (spec, actions) = random_run(2, &opts);
    let mut sim = Simulation::replay(spec, actions, 60_000).unwrap();
    let found: Vec<_> = sim.violations().cloned().collect();
    assert!(!found.is_empty(), "seed 2 breaks an invariant with vote-ignores-log");
    sim.seek(0).unwrap();
    assert_eq!(sim.violation_count(), 0);
    sim.seek(60_000).unwrap(); // jumps through the kept checkpoints
    assert!(sim.violations().cloned().collect::<Vec<_>>() == found);
}

#[test]
fn acting_after_seeking_back_forks_the_future() {
    let spec = ClusterSpec { voters: 3, seed: 4, writes_per_second: 10, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).unwrap();
    sim.advance(5_000).unwrap();
    sim.act(Action::Crash { node: 0 }).unwrap();
    sim.advance(5_000).unwrap();
    sim.seek(3_000).unwrap();
    assert_eq!(sim.future_inputs().len(), 1, "the crash at 5 s is still ahead");
    sim.act(Action::Crash { node: 2 }).unwrap();
    assert!(sim.future_inputs().is_empty(), "a new action cuts off the recorded future");
    sim.advance(7_000).unwrap();
    assert_ne!(sim.world().node_view(0).state, "crashed");
    assert_eq!(sim.world().node_view(2).state, "crashed");
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let mut sim = Simulation::new(ClusterSpec { voters: 3, seed: 1, ..ClusterSpec::default() }).unwrap();
    sim.advance(3_000).unwrap();
    let before = sim.digest();
    let err = sim.act(Action::Crash { node: 9 }).unwrap_err();
    assert_eq!(err.field, "node");
    assert!(err.message.contains("does not exist"), "{err}");
    let err = sim.act(Action::Partition { groups: vec![vec![0, 1], vec![1, 2]] }).unwrap_err();
    assert_eq!(err.field, "groups[1][0]");
    let err = sim.act(Action::Network { latency_ms: [5, 1], loss: 0.0, duplicate: 0.0 }).unwrap_err();
    assert_eq!(err.field, "latencyMs");
    let err = sim.act(Action::Network { latency_ms: [1, 5], loss: f64::NAN, duplicate: 0.0 }).unwrap_err();
    assert_eq!(err.field, "loss");
    assert!(sim.advance(u64::MAX).is_err());
    assert_eq!(sim.digest(), before);
    assert!(sim.inputs().is_empty());
    let bad = ClusterSpec { voters: 50, ..ClusterSpec::default() };
    assert_eq!(Simulation::new(bad).err().unwrap().field, "voters");
    let mut bad = ClusterSpec::default();
    bad.config.insert("controller.quorum.fetch.timeout.ms".into(), 0);
    assert_eq!(Simulation::new(bad).err().unwrap().field, "config.controller.quorum.fetch.timeout.ms");
}
