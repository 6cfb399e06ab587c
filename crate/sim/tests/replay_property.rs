//! Replay is exact by construction: random operation lists (every kind of action, many
//! in one millisecond, `append.linger.ms` 0 and default, seeks back and forward, acting
//! after a seek back) give one run however it is reproduced. For every list:
//! the live digest = the digest of `Simulation::replay(spec, inputs, now)` (what
//! `Cluster.fromLink(c.toLink())` does) = the digest after `seek(0); seek(now)` = the
//! digest of the run replayed only to a time `at` and played on from there, and
//! every regenerated `events_between` / `events_since` window equals what the live run
//! produced, including windows older than the events kept in memory.
//!
//! The lists are proptest strategies (a fixed seed, no persistence file): a failure is
//! shrunk to a minimal list (fewer operations, simpler actions, shorter advances) and
//! printed with the operations as they were done.

#![cfg(not(target_arch = "wasm32"))]

use kraft_protocol::{ClientRecord, RecordBody};
use kraft_sim::simulation::MAX_EVENTS_PER_QUERY;
use kraft_sim::trace::{Digest, Event};
use kraft_sim::{Action, ClusterSpec, NetworkSpec, Simulation, TimedAction};
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{RngAlgorithm, RngSeed};
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

/// The proptest configuration of these properties: a fixed seed and algorithm, so every
/// run (and CI) tries the same cases, and no failure-persistence file; a failure prints
/// the minimal case proptest shrank it to.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x5EED),
        ..ProptestConfig::default()
    }
}

fn action(nodes: u32) -> BoxedStrategy<Action> {
    let node = move || 0..nodes;
    // Another node than `node` (itself when it is alone).
    let pair = move || (0..nodes, 1..nodes.max(2)).prop_map(move |(a, k)| (a, (a + k) % nodes));
    let latency = || (1u64..30, 0u64..150).prop_map(|(lo, spread)| [lo, lo + spread]);
    let mut choices: Vec<(u32, BoxedStrategy<Action>)> = vec![
        (3, node().prop_map(|node| Action::Crash { node }).boxed()),
        (3, node().prop_map(|node| Action::Restart { node }).boxed()),
        (1, node().prop_map(|node| Action::Wipe { node }).boxed()),
        (3, node().prop_map(|node| Action::Isolate { node }).boxed()),
        (
            3,
            proptest::collection::vec(any::<bool>(), nodes as usize)
                .prop_map(|sides| {
                    let side =
                        |s: bool| (0..sides.len() as u32).filter(|&n| sides[n as usize] == s).collect::<Vec<_>>();
                    Action::Partition {
                        groups: [side(false), side(true)].into_iter().filter(|g| !g.is_empty()).collect(),
                    }
                })
                .boxed(),
        ),
        (3, Just(Action::Heal).boxed()),
        (
            3,
            (latency(), 0u64..25, 0u64..5)
                .prop_map(|(latency_ms, loss, duplicate)| Action::Network {
                    latency_ms,
                    loss: loss as f64 / 100.0,
                    duplicate: duplicate as f64 / 100.0,
                })
                .boxed(),
        ),
        (
            3,
            (node(), prop::sample::select(vec![0u64, 1, 5, 100, 400]))
                .prop_map(|(node, flush_ms)| Action::SlowDisk { node, flush_ms })
                .boxed(),
        ),
        (6, Just(Action::Resign).boxed()),
        (
            3,
            prop::sample::select(vec![0u32, 5, 50, 300])
                .prop_map(|writes_per_second| Action::Workload { writes_per_second })
                .boxed(),
        ),
        (
            3,
            (0u32..9, 1u32..4)
                .prop_map(|(t, partitions)| Action::Write {
                    record: Some(RecordBody::Client(ClientRecord::CreateTopic {
                        name: Arc::from(format!("t{t}")),
                        partitions,
                    })),
                })
                .boxed(),
        ),
        (3, node().prop_map(|node| Action::Reconnect { node }).boxed()),
        (3, Just(Action::HealPartition).boxed()),
        (5, Just(Action::Write { record: None }).boxed()),
    ];
    if nodes > 1 {
        choices.extend([
            (3, pair().prop_map(|(from, to)| Action::Cut { from, to }).boxed()),
            (3, pair().prop_map(|(from, to)| Action::Uncut { from, to }).boxed()),
            (
                3,
                (pair(), latency())
                    .prop_map(|((from, to), latency_ms)| Action::SlowLink { from, to, latency_ms })
                    .boxed(),
            ),
            (3, pair().prop_map(|(from, to)| Action::ClearSlowLink { from, to }).boxed()),
        ]);
    }
    Union::new_weighted(choices).boxed()
}

fn spec() -> impl Strategy<Value = ClusterSpec> {
    (
        prop::sample::select(vec![1u32, 3, 3, 5, 7]),
        0u32..3,
        any::<u64>(),
        prop::sample::select(vec![0u32, 10, 40, 200]),
        prop::sample::select(vec![20u64, 100, 1000]),
        prop::sample::select(vec![0u64, 1, 3]),
        prop::sample::select(vec!["datacenter", "datacenter", "teaching", "wan"]),
        any::<bool>(),
    )
        .prop_map(
            |(voters, observers, seed, writes_per_second, snapshot_interval, flush_ms, network, linger_0)| {
                let mut spec = ClusterSpec {
                    voters,
                    observers,
                    seed,
                    writes_per_second,
                    snapshot_interval,
                    flush_ms,
                    network: NetworkSpec::Preset(network.into()),
                    ..ClusterSpec::default()
                };
                if linger_0 {
                    // The value Kafka's own RaftEventSimulationTest uses: every write is its own batch.
                    spec.config.insert("controller.quorum.append.linger.ms".into(), 0);
                }
                spec
            },
        )
}

/// One operation of a list. Times are drawn independently of the run and placed in it when
/// the operation is done: a seek back to `per_mille` of now, a seek forward `ms` past the
/// furthest time reached.
#[derive(Debug, Clone)]
enum Op {
    /// Several actions in one millisecond, often.
    Act(Vec<Action>),
    Advance(u64),
    Step,
    SeekBack {
        per_mille: u64,
    },
    SeekForward {
        ms: u64,
    },
}

fn op(nodes: u32, max_advance_ms: u64) -> impl Strategy<Value = Op> {
    let acts = prop_oneof![2 => proptest::collection::vec(action(nodes), 1..=1), 1 => proptest::collection::vec(action(nodes), 2..5)];
    prop_oneof![
        9 => acts.prop_map(Op::Act),
        6 => prop_oneof![0u64..3, 0u64..60, 0..max_advance_ms, 0..max_advance_ms].prop_map(Op::Advance),
        1 => Just(Op::Step),
        2 => (0u64..=1000).prop_map(|per_mille| Op::SeekBack { per_mille }),
        2 => prop_oneof![Just(0), 0..max_advance_ms].prop_map(|ms| Op::SeekForward { ms }),
    ]
}

/// A whole case: the cluster, its operations, and where the checks after the run look:
/// the time a rewound replay stops at and six windows (`events_since` from a per mille of
/// the events, `events_between` from a per mille of the time and over a span).
#[derive(Debug, Clone)]
struct List {
    spec: ClusterSpec,
    ops: Vec<Op>,
    rewind_per_mille: u64,
    windows: Vec<(u64, u64, u64)>,
}

fn list(size: Size) -> impl Strategy<Value = List> {
    spec().prop_flat_map(move |mut spec| {
        if size.heavy {
            (spec.voters, spec.observers, spec.writes_per_second) = (5, 2, 300);
        }
        let nodes = spec.voters + spec.observers;
        (
            Just(spec),
            proptest::collection::vec(op(nodes, size.max_advance_ms), 1..=size.ops),
            0u64..=1000,
            proptest::collection::vec((0u64..=1000, 0u64..=1000, 0u64..4_000), 6),
        )
            .prop_map(|(spec, ops, rewind_per_mille, windows)| List { spec, ops, rewind_per_mille, windows })
    })
}

/// How big an operation list may be.
#[derive(Clone, Copy)]
struct Size {
    /// Up to this many operations.
    ops: usize,
    max_advance_ms: u64,
    /// A busy cluster (5 voters, 2 observers, 300 writes/s) that outgrows the in-memory
    /// window within a minute.
    heavy: bool,
}

/// Runs one operation list and checks every way of reproducing it.
fn check_list(list: &List, heavy: bool) -> Result<(), TestCaseError> {
    let spec = list.spec.clone();
    let nodes = spec.voters + spec.observers;
    let mut sim = Simulation::new(spec.clone()).unwrap();
    let mut produced = Produced::default();
    produced.take_in(&sim, 0, "start");
    let mut furthest = 0u64;
    let mut log = Vec::new();
    for op in &list.ops {
        let before = sim.last_seq();
        let what = match op {
            Op::Act(actions) => {
                for a in actions {
                    log.push(format!("t={} {a:?}", sim.now()));
                    sim.act(a.clone()).unwrap();
                }
                produced.fork_at(before);
                "act"
            }
            Op::Advance(ms) => {
                log.push(format!("advance({ms})"));
                sim.advance(*ms).unwrap();
                "advance"
            }
            Op::Step => {
                log.push("step".into());
                sim.step().unwrap();
                "step"
            }
            Op::SeekBack { per_mille } => {
                let t = sim.now() * per_mille / 1000;
                log.push(format!("seek({t}) back"));
                sim.seek(t).unwrap();
                "seek back"
            }
            Op::SeekForward { ms } => {
                let t = furthest.max(sim.now()) + ms;
                log.push(format!("seek({t}) forward"));
                sim.seek(t).unwrap();
                "seek forward"
            }
        };
        furthest = furthest.max(sim.now());
        // After a seek the window holds what was re-recorded since the checkpoint.
        let after = if what.starts_with("seek") { 0 } else { before };
        produced.take_in(&sim, after, &format!("after {what}"));
    }
    if heavy {
        // Everything back up and busy for 100 s: past the in-memory window.
        let before = sim.last_seq();
        let up = (0..nodes).flat_map(|node| [Action::Restart { node }, Action::SlowDisk { node, flush_ms: 1 }]);
        let fast = Action::Network { latency_ms: [1, 5], loss: 0.0, duplicate: 0.0 };
        for a in up.chain([Action::Heal, fast, Action::Workload { writes_per_second: 300 }]) {
            log.push(format!("t={} {a:?}", sim.now()));
            sim.act(a).unwrap();
        }
        produced.fork_at(before);
        produced.take_in(&sim, before, "after healing");
        log.push("100 x advance(1000)".into());
        for _ in 0..100 {
            let before = sim.last_seq();
            sim.advance(1_000).unwrap();
            produced.take_in(&sim, before, "in the busy minute");
        }
    }
    let now = sim.now();
    let last = sim.last_seq();
    let outgrown = sim.trace().first().map(|e| e.seq > 1).unwrap_or(false);
    prop_assert!(!heavy || outgrown, "a heavy list must outgrow the in-memory window ({last} events)");
    let ctx = || format!("ops as done:\n  {}", log.join("\n  "));
    prop_assert!(produced.events.len() as u64 >= last, "{}", ctx());
    let live: &[Event] = &produced.events[..last as usize];
    let mut digest = Digest::default();
    live.iter().for_each(|e| digest.add(e));
    prop_assert_eq!(sim.digest(), digest, "the live digest covers what the run produced: {}", ctx());

    // A link: spec + inputs as JSON, replayed to now.
    let inputs: Vec<TimedAction> =
        kraft_sim::input::from_json(&serde_json::to_string(sim.inputs()).unwrap(), "inputs").unwrap();
    let linked = Simulation::replay(spec.clone(), inputs, now).unwrap();
    prop_assert_eq!(linked.digest(), digest, "replay (fromLink) differs from the live run: {}", ctx());
    let tail = &live[live.len() - linked.trace().len()..];
    prop_assert!(linked.trace() == tail, "replayed events differ: {}", ctx());

    sim.seek(0).unwrap();
    sim.seek(now).unwrap();
    prop_assert_eq!(sim.digest(), digest, "seek(0); seek(now) differs from the live run: {}", ctx());
    prop_assert_eq!(sim.last_seq(), last);

    // A run rewound: replayed only to `at`, its later inputs kept ahead (how a built-in
    // story opens, `Cluster.replay(.., { at })`), is the run seeked back to `at`, and it
    // plays on into the same run.
    let recorded: Vec<TimedAction> = sim.inputs().iter().chain(sim.future_inputs()).cloned().collect();
    let at = now * list.rewind_per_mille / 1000;
    let mut rewound = Simulation::replay(spec.clone(), recorded, at).unwrap();
    sim.seek(at).unwrap();
    prop_assert_eq!(
        (rewound.now(), rewound.last_seq(), rewound.digest(), rewound.inputs(), rewound.future_inputs()),
        (sim.now(), sim.last_seq(), sim.digest(), sim.inputs(), sim.future_inputs()),
        "replayed to {} differs from seek({}): {}",
        at,
        at,
        ctx()
    );
    rewound.advance(now - at).unwrap();
    prop_assert_eq!(rewound.digest(), digest, "rewound to {} and played on differs from the live run: {}", at, ctx());
    prop_assert!(
        rewound.trace() == &live[live.len() - rewound.trace().len()..],
        "rewound to {at}: its events differ: {}",
        ctx()
    );
    sim.seek(now).unwrap();

    // Regenerated windows (the seek forward jumped checkpoints, so most of the run is no
    // longer in memory and comes back by replaying from a checkpoint).
    for &(since, from, span) in &list.windows {
        let since = last * since / 1000;
        let want = &live[since as usize..(since as usize + MAX_EVENTS_PER_QUERY).min(live.len())];
        prop_assert!(sim.events_since(since).as_ref() == want, "events_since({since}) differs: {}", ctx());
        let from = now * from / 1000;
        let to = from + span;
        let want: Vec<Event> =
            live.iter().filter(|e| e.t >= from && e.t <= to).take(MAX_EVENTS_PER_QUERY).cloned().collect();
        prop_assert!(
            sim.events_between(from, to).as_ref() == want.as_slice(),
            "events_between({from}, {to}) differs: {}",
            ctx()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(600))]
    #[test]
    fn random_operation_lists_replay_exactly(list in list(Size { ops: 30, max_advance_ms: 12_000, heavy: false })) {
        check_list(&list, false)?;
    }
}

proptest! {
    #![proptest_config(config(4))]
    /// Lists long enough that the run outgrows the events kept in memory (200,000), so old
    /// windows are regenerated from checkpoints even without a seek.
    #[test]
    fn long_operation_lists_replay_exactly_past_the_in_memory_window(
        list in list(Size { ops: 40, max_advance_ms: 15_000, heavy: true })
    ) {
        check_list(&list, true)?;
    }
}
