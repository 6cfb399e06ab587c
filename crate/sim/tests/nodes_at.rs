//! `Simulation::nodes_at(t)`: every node as it was at time `t` of the run, which the UI
//! seeds a reloaded timeline window with. For seeded runs with crashes, wipes,
//! partitions and resignations it must equal what a fresh replay to `t` shows (the
//! nodes' views after `Simulation::replay` to `t`), at many times: just before, at and
//! after checkpoints, in the middle of busy moments, long before the events kept in
//! memory, and after a seek back; and it must leave the run exactly as it was.

use kraft_sim::trace::Digest;
use kraft_sim::{Action, ClusterSpec, NetworkSpec, Simulation, TimedAction};

/// The nodes' views as JSON (what the API returns), for comparing.
fn views_json(views: &[kraft_sim::view::NodeView]) -> String {
    serde_json::to_string(views).unwrap()
}

/// What a caller can see of a run: it must not move under a read-only query.
fn observable(sim: &Simulation) -> (u64, Digest, u64, usize, u64, usize, usize, usize) {
    let first = sim.trace().first().map_or(0, |e| e.seq);
    (
        sim.now(),
        sim.digest(),
        sim.last_seq(),
        sim.trace().len(),
        first,
        sim.inputs().len(),
        sim.future_inputs().len(),
        sim.checkpoint_count(),
    )
}

/// A run of `seconds` with a fault or an operator action every couple of seconds.
fn faulty_run(spec: ClusterSpec, seconds: u64) -> Simulation {
    let n = spec.voters + spec.observers;
    let mut sim = Simulation::new(spec).unwrap();
    for s in 0..seconds {
        sim.advance(1_000 + s % 7 * 37).unwrap();
        let node = (s % n as u64) as u32;
        let action = match s % 11 {
            1 => Some(Action::Crash { node }),
            3 => Some(Action::Restart { node: ((s - 2) % n as u64) as u32 }),
            4 => Some(Action::Partition { groups: vec![vec![0, 1], (2..n).collect()] }),
            6 => Some(Action::Heal),
            7 => Some(Action::Resign),
            8 if s % 22 == 8 => Some(Action::Wipe { node }),
            9 => Some(Action::Isolate { node: 0 }),
            10 => Some(Action::Heal),
            _ => None,
        };
        if let Some(a) = action {
            sim.act(a).unwrap();
        }
    }
    // anything still down comes back, so the run ends with every node running
    for node in 0..n {
        sim.act(Action::Restart { node }).unwrap();
    }
    sim.advance(2_000).unwrap();
    sim
}

/// Checks `nodes_at` at each of `times` (ascending) against one fresh replay of the run
/// advanced through them (a replay to `t` is the same however it got there), and the
/// first and last few against `Simulation::replay(spec, inputs up to t, t)` itself.
fn check_against_replay(sim: &Simulation, times: &[u64]) {
    let before = observable(sim);
    let inputs: Vec<TimedAction> = sim.inputs().to_vec();
    let mut fresh = Simulation::replay(sim.spec().clone(), inputs.clone(), 0).unwrap();
    for &t in times {
        fresh.seek(t).unwrap();
        assert_eq!(fresh.now(), t);
        let got = sim.nodes_at(t).unwrap();
        assert_eq!(views_json(&got), views_json(&fresh.world().node_views()), "nodes at t = {t} ms");
    }
    for &t in times.iter().take(2).chain(times.iter().rev().take(2)) {
        let upto: Vec<TimedAction> = inputs.iter().filter(|i| i.t <= t).cloned().collect();
        let direct = Simulation::replay(sim.spec().clone(), upto, t).unwrap();
        assert_eq!(views_json(&sim.nodes_at(t).unwrap()), views_json(&direct.world().node_views()), "t = {t} ms");
    }
    assert_eq!(observable(sim), before, "nodes_at changed the run");
}

/// Every `step` ms up to `end`, plus each checkpoint time (every 10 s) and the
/// milliseconds either side of it, plus the moments of the run's actions.
fn times(sim: &Simulation, step: u64) -> Vec<u64> {
    let end = sim.now();
    let mut ts: Vec<u64> = (0..=end).step_by(step as usize).collect();
    for cp in (0..=end).step_by(10_000) {
        ts.extend([cp.saturating_sub(1), cp, cp + 1].into_iter().filter(|t| *t <= end));
    }
    ts.extend(sim.inputs().iter().flat_map(|i| [i.t, i.t + 1]).filter(|t| *t <= end));
    ts.push(end);
    ts.sort();
    ts.dedup();
    ts
}

#[test]
fn nodes_at_equals_a_fresh_replay_through_crashes_partitions_and_resignations() {
    for seed in [3, 8, 21] {
        let spec = ClusterSpec {
            voters: 5,
            observers: 1,
            seed,
            writes_per_second: 40,
            network: NetworkSpec::Preset("teaching".into()),
            ..ClusterSpec::default()
        };
        let sim = faulty_run(spec, 45);
        let views = sim.nodes_at(sim.now()).unwrap();
        assert!(views.iter().all(|v| v.state != "crashed"), "seed {seed}: every node restarted at the end");
        let ts = times(&sim, 173);
        // the times asked cover crashed nodes and leaders with and without an HW yet
        let states: Vec<_> = ts.iter().flat_map(|&t| sim.nodes_at(t).unwrap()).collect();
        assert!(states.iter().any(|v| v.state == "crashed"), "seed {seed}: a crashed node at some time");
        assert!(states.iter().any(|v| v.state == "leader" && v.hw.is_none()), "seed {seed}: a leader without an HW");
        assert!(states.iter().any(|v| v.state == "leader" && v.hw.is_some()), "seed {seed}: a leader with an HW");
        check_against_replay(&sim, &ts);
    }
}

#[test]
fn nodes_at_times_whose_events_are_out_of_memory_and_after_a_seek_back() {
    // Past the in-memory window (200,000 events): the early events are gone from memory.
    let spec = ClusterSpec { voters: 3, observers: 1, seed: 5, writes_per_second: 100, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).unwrap();
    for second in 0..200u64 {
        sim.advance(1_000).unwrap();
        match second {
            60 => sim.act(Action::Crash { node: 0 }).map(|_| ()).unwrap(),
            75 => sim.act(Action::Restart { node: 0 }).map(|_| ()).unwrap(),
            120 => sim.act(Action::Partition { groups: vec![vec![0], vec![1, 2, 3]] }).map(|_| ()).unwrap(),
            130 => sim.act(Action::Heal).map(|_| ()).unwrap(),
            _ => {}
        }
    }
    let first_held = sim.trace()[0].t;
    assert!(first_held > 70_000, "the window starts at {first_held} ms");
    let ts = [0, 1, 999, 9_999, 10_000, 10_001, 33_333, 60_000, 60_001, 70_500, 99_999, 120_000, 131_234, 199_999];
    check_against_replay(&sim, &ts);

    // Seeked back: the recorded future (and its checkpoints) is ahead of now; the times
    // up to now are the same run.
    sim.seek(125_500).unwrap();
    let before = observable(&sim);
    let ts = [5_000, 60_000, 119_999, 120_000, 125_000, 125_499, 125_500];
    check_against_replay(&sim, &ts);
    assert_eq!(observable(&sim), before);
    let err = sim.nodes_at(125_501).unwrap_err();
    assert_eq!(err.field, "t");
    assert_eq!(err.message, "must be at most now (125500 ms), got 125501");
    assert_eq!(observable(&sim), before, "a refused query changes nothing");
}
