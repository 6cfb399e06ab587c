//! One seed and one input log describe a run completely: same description, same trace,
//! byte for byte (compared through the trace digest), however time is advanced.

use kraft_sim::chaos::{random_run, ChaosOptions};
use kraft_sim::{Action, ClusterSpec, NetworkSpec, Simulation, TimedAction, WriteOutcome};

fn chaos(seed: u64) -> Simulation {
    let opts =
        ChaosOptions { seconds: 30, voters: 3, observers: 1, unsafe_switches: vec![], ..ChaosOptions::default() };
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
    use kraft_protocol::SafetySwitch;
    use kraft_sim::chaos::{random_run, ChaosOptions};
    let opts = ChaosOptions {
        seconds: 60,
        voters: 3,
        observers: 1,
        unsafe_switches: vec![SafetySwitch::VoteIgnoresLog],
        ..ChaosOptions::default()
    };
    // The first seed whose run breaks an invariant (the sweep catches this switch well
    // within 1,000 seeds), so a change in the runs' dynamics does not hide the test.
    let mut sim = (1..=200)
        .map(|seed| {
            let (spec, actions) = random_run(seed, &opts);
            Simulation::replay(spec, actions, 60_000).unwrap()
        })
        .find(|sim| sim.violation_count() > 0)
        .expect("a seed in 1..=200 breaks an invariant with vote-ignores-log");
    let found: Vec<_> = sim.violations().cloned().collect();
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

/// A live run and its replay (what a link rebuilds) must be the same run.
fn replayed(sim: &Simulation) -> Simulation {
    Simulation::replay(sim.spec().clone(), sim.inputs().to_vec(), sim.now()).unwrap()
}

#[test]
fn resign_then_write_in_one_millisecond_replays_exactly() {
    // The ordering rule (sim::world): the write comes after the resignation it follows.
    for seed in 0..5 {
        let mut sim = Simulation::new(ClusterSpec { voters: 3, seed, ..ClusterSpec::default() }).unwrap();
        sim.advance(2_460).unwrap();
        let (old, _) = sim.world().leader().expect("a leader by 2.46 s");
        sim.act(Action::Resign).unwrap();
        // Kafka's raft thread resigns on its next poll (KafkaRaftClient.pollLeader sees
        // isResignRequested), which `resign` wakes at once.
        assert_ne!(sim.world().leader().map(|(id, _)| id), Some(old), "seed {seed}: still leader after resign()");
        assert_eq!(sim.world().node_view(old).state, "resigned");
        let outcome = sim.act(Action::Write { record: None }).unwrap();
        assert!(matches!(outcome, Some(WriteOutcome::Rejected { .. })), "seed {seed}: {outcome:?}");
        assert_eq!(replayed(&sim).digest(), sim.digest(), "seed {seed}");
    }
}

#[test]
fn two_writes_in_one_millisecond_with_zero_linger_replay_exactly() {
    // controller.quorum.append.linger.ms = 0, as in Kafka's RaftEventSimulationTest.
    for seed in 0..5 {
        let mut spec = ClusterSpec { voters: 3, seed, ..ClusterSpec::default() };
        spec.config.insert("controller.quorum.append.linger.ms".into(), 0);
        let mut sim = Simulation::new(spec).unwrap();
        sim.advance(3_000).unwrap();
        sim.act(Action::Write { record: None }).unwrap();
        sim.act(Action::Write { record: None }).unwrap();
        assert_eq!(replayed(&sim).digest(), sim.digest(), "seed {seed}");
        let mut seeked = replayed(&sim);
        seeked.seek(0).unwrap();
        seeked.seek(3_000).unwrap();
        assert_eq!(seeked.digest(), sim.digest(), "seed {seed}: seek(0); seek(now)");
    }
}

#[test]
fn zero_latency_is_refused_with_the_limit_wherever_it_comes_from() {
    use kraft_sim::spec::LinkProfileSpec;
    let zero = [0, 0];
    let profile = |latency_ms| NetworkSpec::Profile(LinkProfileSpec { latency_ms, loss: 0.0, duplicate: 0.0 });
    for latency_ms in [zero, [0, 5]] {
        let err =
            Simulation::new(ClusterSpec { network: profile(latency_ms), ..ClusterSpec::default() }).err().unwrap();
        assert_eq!(err.field, "network.latencyMs[0]");
        assert!(err.message.contains("at least 1 ms") && err.message.contains("got 0 ms"), "{err}");
    }
    let mut sim = Simulation::new(ClusterSpec::default()).unwrap();
    let refused = [
        Action::Network { latency_ms: zero, loss: 0.0, duplicate: 0.0 },
        Action::SlowLink { from: 0, to: 1, latency_ms: zero },
    ];
    for a in &refused {
        let err = sim.act(a.clone()).unwrap_err();
        assert_eq!(err.field, "latencyMs[0]");
        assert!(err.message.contains("at least 1 ms") && err.message.contains("got 0 ms"), "{err}");
    }
    assert!(sim.inputs().is_empty());
    let link = vec![TimedAction { t: 5, action: refused[1].clone() }];
    assert_eq!(Simulation::replay(ClusterSpec::default(), link, 10).err().unwrap().field, "inputs[0].latencyMs[0]");
    let scenario = r#"{"id": "z", "title": "z", "summary": "z", "cluster": {"voters": 3, "network": {"latencyMs": [0, 0]}},
        "durationMs": 1000, "steps": []}"#;
    let err = kraft_scenario::parse(scenario).err().unwrap();
    assert!(err.to_string().starts_with("cluster.network.latencyMs[0]: latency must be at least 1 ms"), "{err}");
    let scenario = r#"{"id": "z", "title": "z", "summary": "z", "cluster": {"voters": 3}, "durationMs": 1000,
        "steps": [{"at": 10, "action": "slowLink", "from": 0, "to": 1, "latencyMs": [0, 0]}]}"#;
    let err = kraft_scenario::parse(scenario).err().unwrap();
    assert!(err.to_string().starts_with("steps[0].latencyMs[0]: latency must be at least 1 ms"), "{err}");
}
