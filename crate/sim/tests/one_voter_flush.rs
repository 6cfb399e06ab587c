//! A one-voter quorum commits before its flush, as Kafka does: KafkaRaftClient.flushLeaderLog
//! moves the HW (updateLeaderEndOffsetAndTimestamp, LeaderState.updateLocalState) and answers
//! parked fetches before log.flush returns. A crash inside that flush loses committed
//! records; this is Kafka's loss window, not a simulator bug, so a one-voter cluster is
//! left out of the safe sweep (tests/sweep.rs). These tests pin the window's edges.

use kraft_sim::chaos::{random_run, run_seed, ChaosOptions};
use kraft_sim::trace::{EventKind, Invariant};
use kraft_sim::{Action, ClusterSpec, NetworkSpec, Simulation, TimedAction};

const FLUSH_MS: u64 = 400;

/// One voter (n0) and one observer (n1) on a slow disk; a write at 2 s; n0 crashes
/// `crash_after` ms after the write and restarts 1 s later.
fn lone_voter_crash(crash_after: u64) -> Simulation {
    let spec = ClusterSpec {
        voters: 1,
        observers: 1,
        seed: 7,
        network: NetworkSpec::Preset("datacenter".into()),
        flush_ms: FLUSH_MS,
        ..ClusterSpec::default()
    };
    let at = |t: u64, action: Action| TimedAction { t, action };
    let actions = vec![
        at(2_000, Action::Write { record: None }),
        at(2_000 + crash_after, Action::Crash { node: 0 }),
        at(3_000 + crash_after, Action::Restart { node: 0 }),
    ];
    Simulation::replay_once(spec, actions, 8_000).expect("a valid run")
}

fn data_loss(sim: &Simulation) -> Vec<String> {
    sim.violations()
        .filter_map(|e| match &e.kind {
            EventKind::Violation { invariant, detail, .. } => Some(format!("{invariant:?}: {detail}")),
            _ => None,
        })
        .collect()
}

#[test]
fn a_crash_inside_the_lone_voters_flush_loses_a_committed_record() {
    // linger 25 ms, then append, HW and the observer's answer, then the 400 ms flush.
    let sim = lone_voter_crash(200);
    let loss = data_loss(&sim);
    assert!(!loss.is_empty(), "the record was committed before the flush; the crash erased it");
    assert!(
        sim.trace().iter().any(|e| matches!(e.kind, EventKind::Crash { node: 0, lost_records } if lost_records > 0)),
        "the crash lost unflushed records"
    );
}

#[test]
fn a_crash_after_the_lone_voters_flush_loses_nothing() {
    let sim = lone_voter_crash(25 + FLUSH_MS + 100);
    assert_eq!(data_loss(&sim), Vec::<String>::new());
}

/// Replays a seed's trace: was n0's HW above its flushed offset when it crashed?
fn crashed_inside_the_flush_window(seed: u64, opts: &ChaosOptions) -> Option<u64> {
    let (spec, actions) = random_run(seed, opts);
    let sim = Simulation::replay_once(spec, actions, opts.seconds * 1000).expect("valid");
    let (mut hw, mut flushed) = (0, 0);
    let mut first_loss = None;
    for e in sim.trace() {
        match &e.kind {
            EventKind::HighWatermark { node: 0, new, .. } => hw = *new,
            EventKind::Flush { node: 0, offset } => flushed = *offset,
            EventKind::Crash { node: 0, .. } => {
                if hw > flushed && first_loss.is_none() {
                    first_loss = Some(e.t);
                }
                hw = 0;
            }
            _ => {}
        }
    }
    first_loss
}

/// Forty random one-voter runs (slow disks, crashes, safe mode): every violation follows
/// from losing committed records, and every seed that has one crashed inside the flush
/// window before its first violation (33 of 40 do).
#[test]
fn every_one_voter_violation_follows_a_crash_inside_the_flush_window() {
    let opts =
        ChaosOptions { seconds: 60, voters: 1, observers: 1, unsafe_switches: vec![], ..ChaosOptions::default() };
    let mut violating = 0;
    for seed in 1..=40 {
        let outcome = run_seed(seed, &opts);
        assert!(outcome.made_progress, "seed {seed}: the lone voter commits again in the calm tail");
        if outcome.violations.is_empty() {
            continue;
        }
        violating += 1;
        // What a lost committed suffix implies: the restarted leader lacks committed
        // records, writes others at their offsets, exposes a lower HW, and the observer
        // truncates below the HW it was given.
        for (invariant, detail) in &outcome.violations {
            assert!(
                matches!(
                    invariant,
                    Invariant::LeaderCompleteness
                        | Invariant::ConsistentCommittedData
                        | Invariant::MonotonicHighWatermark
                        | Invariant::NoTruncationBelowHighWatermark
                ),
                "seed {seed}: not a consequence of losing committed records: {invariant:?} {detail}"
            );
        }
        let (spec, actions) = random_run(seed, &opts);
        let sim = Simulation::replay_once(spec, actions, opts.seconds * 1000).expect("valid");
        let first_violation = sim.violations().next().expect("the replay has them too").t;
        let crash = crashed_inside_the_flush_window(seed, &opts);
        assert!(
            crash.is_some_and(|t| t <= first_violation),
            "seed {seed}: a violation at {first_violation} ms without an earlier crash inside the flush"
        );
    }
    assert!(violating > 0, "the window is reachable in forty runs");
}
