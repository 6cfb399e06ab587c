//! The chaos sweep proves the checker and the fault mix can catch what each safety rule
//! prevents (with the rule switched off, some seed within 1,000 breaks an invariant) and
//! that the liveness check after the final heal catches a quorum that stays leaderless
//! or frozen. (The safe sweep slice runs from `npm test`; `npm run soak` runs the long one.)
//! It has no one-voter runs: one voter commits before its flush, as Kafka's
//! KafkaRaftClient.flushLeaderLog does, so a crash inside the flush loses committed records
//! (tests/one_voter_flush.rs, scenarios/one-voter-flush-window.json).

use kraft_protocol::SafetySwitch;
use kraft_sim::chaos::{run_seed, watch_recovery, ChaosOptions};
use kraft_sim::{Action, ClusterSpec, Simulation};

fn first_failing_seed(switch: Option<SafetySwitch>, seeds: u64) -> Option<u64> {
    let opts = ChaosOptions {
        seconds: 60,
        voters: 3,
        observers: 1,
        unsafe_switches: switch.into_iter().collect(),
        ..ChaosOptions::default()
    };
    (1..=seeds).find(|&seed| !run_seed(seed, &opts).violations.is_empty())
}

#[test]
fn safe_runs_break_nothing() {
    let opts =
        ChaosOptions { seconds: 60, voters: 3, observers: 1, unsafe_switches: vec![], ..ChaosOptions::default() };
    for seed in 1..=20 {
        let o = run_seed(seed, &opts);
        assert!(o.passed(), "seed {seed}: {:?}\n  mix: {}", o.failure(), o.mix);
    }
    let five = ChaosOptions { voters: 5, ..opts };
    for seed in 1..=10 {
        let o = run_seed(seed, &five);
        assert!(o.passed(), "5 voters, seed {seed}: {:?}\n  mix: {}", o.failure(), o.mix);
    }
}

#[test]
fn each_unsafe_switch_is_caught_within_1000_seeds() {
    for switch in [
        SafetySwitch::HwBeforeOwnEpoch,
        SafetySwitch::VoteIgnoresLog,
        SafetySwitch::NoResignOnRestart,
        SafetySwitch::AckBeforeFlush,
    ] {
        let seed = first_failing_seed(Some(switch), 1000);
        assert!(seed.is_some(), "{} was never caught", switch.name());
    }
}

/// A three-voter quorum under a steady load, healed at 10 s (all faults given before).
fn healed_at_10s(faults: Vec<Action>) -> Simulation {
    let spec = ClusterSpec { voters: 3, observers: 1, seed: 7, writes_per_second: 20, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).unwrap();
    sim.advance(10_000).unwrap();
    for f in faults {
        sim.act(f).unwrap();
    }
    sim
}

#[test]
fn the_liveness_check_sees_a_quorum_recover() {
    // One follower down: the other two keep a leader and commit.
    let mut sim = healed_at_10s(vec![Action::Crash { node: 2 }]);
    let r = watch_recovery(&mut sim, 5_000, 20_000);
    assert_eq!(r.leader_ms, Some(0));
    assert!(r.hw_ms.is_some_and(|h| h < 1_000), "{r:?}");
    assert!(r.kept_committing, "{r:?}");
}

#[test]
fn the_liveness_check_catches_a_leaderless_or_frozen_quorum() {
    // Two of three voters down for good: the survivor can neither lead nor commit.
    let mut sim = healed_at_10s(vec![Action::Crash { node: 0 }, Action::Crash { node: 1 }, Action::Crash { node: 2 }]);
    sim.act(Action::Restart { node: 2 }).unwrap();
    let r = watch_recovery(&mut sim, 5_000, 20_000);
    assert_eq!((r.leader_ms, r.hw_ms, r.kept_committing), (None, None, false), "leaderless: {r:?}");
    // A leader cut off from both followers stays leader until check-quorum, but its HW
    // is frozen.
    let mut sim = healed_at_10s(vec![]);
    let (leader, _) = sim.world().leader().expect("a leader after 10 s");
    sim.act(Action::Isolate { node: leader }).unwrap();
    let r = watch_recovery(&mut sim, 500, 20_000);
    assert_eq!((r.leader_ms, r.hw_ms), (Some(0), None), "frozen: {r:?}");
}

/// The chaos mix with membership changes (a dynamic quorum of 3 voters and 2 controllers
/// formatted without initial controllers; add, remove, the leader among them, and a disk
/// replaced): the first 200 seeds keep every invariant (measured: all of 0..1000 do).
/// Liveness is measured by the sweep, not asserted here: 4 of 1,000 seeds miss the bound
/// (347, 364, 798, 949). In 347 a leader that removed itself lost leadership before the
/// commit and holds the longest log, so it cannot stand and no one else can win; whether
/// Kafka shares that trap is issue 29's open question.
#[test]
fn membership_runs_keep_every_invariant() {
    let opts = ChaosOptions { seconds: 60, voters: 3, observers: 2, membership: true, ..ChaosOptions::default() };
    for seed in 0..200 {
        let o = run_seed(seed, &opts);
        assert!(o.violations.is_empty(), "seed {seed}: {:?}\n  mix: {}", o.failure(), o.mix);
    }
}

/// `multi-voter-change` (a second AddRaftVoter or RemoveRaftVoter while one is pending,
/// KAFKA-20740's effect) is caught within 1,000 membership seeds: measured, the first at
/// seed 4, 47 of 1,000 seeds with violations.
#[test]
fn multi_voter_change_is_caught_within_1000_seeds() {
    let opts = ChaosOptions {
        seconds: 60,
        voters: 3,
        observers: 2,
        membership: true,
        unsafe_switches: vec![SafetySwitch::MultiVoterChange],
        ..ChaosOptions::default()
    };
    let first = (0..1000).find(|&seed| !run_seed(seed, &opts).violations.is_empty());
    println!("multi-voter-change: first failing seed {first:?}");
    assert!(first.is_some(), "multi-voter-change was never caught");
}
