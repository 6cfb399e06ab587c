//! Replay is exact by construction: random operation lists (every kind of action, many
//! in one millisecond, `append.linger.ms` 0 and default, seeks back and forward, acting
//! after a seek back) give one run however it is reproduced. For every list:
//! the live digest = the digest of `Simulation::replay(spec, inputs, now)` (what
//! `Cluster.fromLink(c.toLink())` does) = the digest after `seek(0); seek(now)` = the
//! digest of the run replayed only to a time `at` and played on from there, and
//! every regenerated `events_between` / `events_since` window equals what the live run
//! produced, including windows older than the events kept in memory.

use kraft_base::rng::Rng;
use kraft_protocol::RecordBody;
use kraft_sim::simulation::MAX_EVENTS_PER_QUERY;
use kraft_sim::trace::{Digest, Event};
use kraft_sim::{Action, ClusterSpec, NetworkSpec, Simulation, TimedAction};
use std::sync::Arc;

/// Every event the live run produced, by seq (event `seq` is at index `seq - 1`).
/// Events re-recorded on the way (a seek back replays from a checkpoint) must equal
/// what was produced first.
#[derive(Default)]
struct Produced {
    events: Vec<Event>,
}

impl Produced {
    /// Takes in the events the simulation holds in memory with seq > `after`.
    fn take_in(&mut self, sim: &Simulation, after: u64, what: &str) {
        let window = sim.trace();
        let start = window.partition_point(|e| e.seq <= after);
        for e in &window[start..] {
            let i = (e.seq - 1) as usize;
            if i < self.events.len() {
                assert!(self.events[i] == *e, "{what}: event {} re-recorded differently", e.seq);
            } else {
                assert_eq!(i, self.events.len(), "{what}: a gap in the recorded events before seq {}", e.seq);
                self.events.push(e.clone());
            }
        }
    }
    /// An action: what was recorded beyond now (after a seek back) is replaced.
    fn fork_at(&mut self, last_seq: u64) {
        self.events.truncate(last_seq as usize);
    }
}

fn random_action(rng: &mut Rng, nodes: u32) -> Action {
    let node = rng.below(nodes as u64) as u32;
    let other = |rng: &mut Rng| (node + 1 + rng.below(nodes.max(2) as u64 - 1) as u32) % nodes;
    let latency = |rng: &mut Rng| {
        let lo = rng.range(1, 30);
        [lo, lo + rng.range(0, 150)]
    };
    match rng.below(19) {
        0 => Action::Crash { node },
        1 => Action::Restart { node },
        2 if rng.below(3) == 0 => Action::Wipe { node },
        3 => Action::Isolate { node },
        4 => {
            let mut groups = vec![Vec::new(), Vec::new()];
            for n in 0..nodes {
                groups[rng.below(2) as usize].push(n);
            }
            Action::Partition { groups: groups.into_iter().filter(|g| !g.is_empty()).collect() }
        }
        5 if nodes > 1 => Action::Cut { from: node, to: other(rng) },
        6 if nodes > 1 => Action::Uncut { from: node, to: other(rng) },
        7 if nodes > 1 => Action::SlowLink { from: node, to: other(rng), latency_ms: latency(rng) },
        8 => Action::Heal,
        9 => Action::Network {
            latency_ms: latency(rng),
            loss: rng.below(25) as f64 / 100.0,
            duplicate: rng.below(5) as f64 / 100.0,
        },
        10 => Action::SlowDisk { node, flush_ms: [0, 1, 5, 100, 400][rng.below(5) as usize] },
        11 | 12 => Action::Resign,
        13 => Action::Workload { writes_per_second: [0, 5, 50, 300][rng.below(4) as usize] },
        14 => Action::Write {
            record: Some(RecordBody::CreateTopic {
                name: Arc::from(format!("t{}", rng.below(9))),
                partitions: rng.range(1, 4) as u32,
            }),
        },
        15 => Action::Reconnect { node },
        16 => Action::HealPartition,
        17 if nodes > 1 => Action::ClearSlowLink { from: node, to: other(rng) },
        _ => Action::Write { record: None },
    }
}

fn random_spec(rng: &mut Rng, seed: u64) -> ClusterSpec {
    let mut spec = ClusterSpec {
        voters: [1, 3, 3, 5, 7][rng.below(5) as usize],
        observers: rng.below(3) as u32,
        seed,
        writes_per_second: [0, 10, 40, 200][rng.below(4) as usize],
        snapshot_interval: [20, 100, 1000][rng.below(3) as usize],
        flush_ms: [0, 1, 3][rng.below(3) as usize],
        network: NetworkSpec::Preset(["datacenter", "datacenter", "teaching", "wan"][rng.below(4) as usize].into()),
        ..ClusterSpec::default()
    };
    if rng.below(2) == 0 {
        // The value Kafka's own RaftEventSimulationTest uses: every write is its own batch.
        spec.config.insert("controller.quorum.append.linger.ms".into(), 0);
    }
    spec
}

/// How big an operation list is.
struct Size {
    ops: usize,
    max_advance_ms: u64,
    /// A busy cluster (5 voters, 2 observers, 300 writes/s) that outgrows the in-memory
    /// window within a minute.
    heavy: bool,
}

/// Runs one random operation list and checks every way of reproducing it.
fn check_list(list: u64, size: Size) {
    let mut rng = Rng::new(list.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5EED);
    let mut spec = random_spec(&mut rng, list);
    if size.heavy {
        (spec.voters, spec.observers, spec.writes_per_second) = (5, 2, 300);
    }
    let nodes = spec.voters + spec.observers;
    let mut sim = Simulation::new(spec.clone()).unwrap();
    let mut produced = Produced::default();
    produced.take_in(&sim, 0, "start");
    let mut furthest = 0u64;
    let mut log = Vec::new();
    for _ in 0..size.ops {
        let before = sim.last_seq();
        let what = match rng.below(20) {
            0..=8 => {
                // Several actions in one millisecond, often.
                let n = if rng.below(3) == 0 { rng.range(2, 5) } else { 1 };
                for _ in 0..n {
                    let a = random_action(&mut rng, nodes);
                    log.push(format!("t={} {a:?}", sim.now()));
                    sim.act(a).unwrap();
                }
                produced.fork_at(before);
                "act"
            }
            9..=14 => {
                let ms = match rng.below(4) {
                    0 => rng.below(3),
                    1 => rng.below(60),
                    _ => rng.below(size.max_advance_ms),
                };
                log.push(format!("advance({ms})"));
                sim.advance(ms).unwrap();
                "advance"
            }
            15 => {
                log.push("step".into());
                sim.step().unwrap();
                "step"
            }
            16 | 17 => {
                let t = rng.below(sim.now() + 1);
                log.push(format!("seek({t}) back"));
                sim.seek(t).unwrap();
                "seek back"
            }
            _ => {
                let t = furthest.max(sim.now()) + rng.below(2) * rng.below(size.max_advance_ms);
                log.push(format!("seek({t}) forward"));
                sim.seek(t).unwrap();
                "seek forward"
            }
        };
        furthest = furthest.max(sim.now());
        // After a seek the window holds what was re-recorded since the checkpoint.
        let after = if what.starts_with("seek") { 0 } else { before };
        produced.take_in(&sim, after, &format!("list {list} after {what}"));
    }
    if size.heavy {
        // Everything back up and busy for 100 s: past the in-memory window.
        let before = sim.last_seq();
        let up = (0..nodes).flat_map(|node| [Action::Restart { node }, Action::SlowDisk { node, flush_ms: 1 }]);
        let fast = Action::Network { latency_ms: [1, 5], loss: 0.0, duplicate: 0.0 };
        for a in up.chain([Action::Heal, fast, Action::Workload { writes_per_second: 300 }]) {
            log.push(format!("t={} {a:?}", sim.now()));
            sim.act(a).unwrap();
        }
        produced.fork_at(before);
        produced.take_in(&sim, before, &format!("list {list} after healing"));
        log.push("100 x advance(1000)".into());
        for _ in 0..100 {
            let before = sim.last_seq();
            sim.advance(1_000).unwrap();
            produced.take_in(&sim, before, &format!("list {list} in the busy minute"));
        }
    }
    let now = sim.now();
    let last = sim.last_seq();
    let outgrown = sim.trace().first().map(|e| e.seq > 1).unwrap_or(false);
    assert!(!size.heavy || outgrown, "list {list}: a heavy list must outgrow the in-memory window ({last} events)");
    let ctx = || format!("list {list} ({spec:?}), ops:\n  {}", log.join("\n  "));
    assert!(produced.events.len() as u64 >= last, "{}", ctx());
    let live: &[Event] = &produced.events[..last as usize];
    let mut digest = Digest::default();
    live.iter().for_each(|e| digest.add(e));
    assert_eq!(sim.digest(), digest, "the live digest covers what the run produced: {}", ctx());

    // A link: spec + inputs as JSON, replayed to now.
    let inputs: Vec<TimedAction> =
        kraft_sim::input::from_json(&serde_json::to_string(sim.inputs()).unwrap(), "inputs").unwrap();
    let linked = Simulation::replay(spec.clone(), inputs, now).unwrap();
    assert_eq!(linked.digest(), digest, "replay (fromLink) differs from the live run: {}", ctx());
    let tail = &live[live.len() - linked.trace().len()..];
    assert!(linked.trace() == tail, "replayed events differ: {}", ctx());

    sim.seek(0).unwrap();
    sim.seek(now).unwrap();
    assert_eq!(sim.digest(), digest, "seek(0); seek(now) differs from the live run: {}", ctx());
    assert_eq!(sim.last_seq(), last);

    // A run rewound: replayed only to `at`, its later inputs kept ahead (how a built-in
    // story opens, `Cluster.replay(.., { at })`), is the run seeked back to `at`, and it
    // plays on into the same run.
    let recorded: Vec<TimedAction> = sim.inputs().iter().chain(sim.future_inputs()).cloned().collect();
    let at = rng.below(now + 1);
    let mut rewound = Simulation::replay(spec.clone(), recorded, at).unwrap();
    sim.seek(at).unwrap();
    assert_eq!(
        (rewound.now(), rewound.last_seq(), rewound.digest(), rewound.inputs(), rewound.future_inputs()),
        (sim.now(), sim.last_seq(), sim.digest(), sim.inputs(), sim.future_inputs()),
        "replayed to {at} differs from seek({at}): {}",
        ctx()
    );
    rewound.advance(now - at).unwrap();
    assert_eq!(rewound.digest(), digest, "rewound to {at} and played on differs from the live run: {}", ctx());
    assert!(
        rewound.trace() == &live[live.len() - rewound.trace().len()..],
        "rewound to {at}: its events differ: {}",
        ctx()
    );
    sim.seek(now).unwrap();

    // Regenerated windows (the seek forward jumped checkpoints, so most of the run is no
    // longer in memory and comes back by replaying from a checkpoint).
    for _ in 0..6 {
        let since = rng.below(last + 1);
        let want = &live[since as usize..(since as usize + MAX_EVENTS_PER_QUERY).min(live.len())];
        assert!(sim.events_since(since).as_ref() == want, "events_since({since}) differs: {}", ctx());
        let from = rng.below(now + 1);
        let to = from + rng.below(4_000);
        let want: Vec<Event> =
            live.iter().filter(|e| e.t >= from && e.t <= to).take(MAX_EVENTS_PER_QUERY).cloned().collect();
        assert!(
            sim.events_between(from, to).as_ref() == want.as_slice(),
            "events_between({from}, {to}) differs: {}",
            ctx()
        );
    }
}

#[test]
fn random_operation_lists_replay_exactly() {
    for list in 0..300 {
        check_list(list, Size { ops: 30, max_advance_ms: 12_000, heavy: false });
    }
}

/// Lists long enough that the run outgrows the events kept in memory (200,000), so old
/// windows are regenerated from checkpoints even without a seek.
#[test]
fn long_operation_lists_replay_exactly_past_the_in_memory_window() {
    for list in 10_000..10_004 {
        check_list(list, Size { ops: 40, max_advance_ms: 15_000, heavy: true });
    }
}
