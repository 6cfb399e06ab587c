//! The chaos sweep proves the checker and the fault mix can catch what each safety rule
//! prevents: with the rule switched off, some seed within 1,000 breaks an invariant.
//! (The full safe sweep, 300 seeds x 60 s, runs from `npm test` in release mode.)
//! It has no one-voter runs: one voter commits before its flush, as Kafka's
//! KafkaRaftClient.flushLeaderLog does, so a crash inside the flush loses committed records
//! (tests/one_voter_flush.rs, scenarios/one-voter-flush-window.json).

use kraft_playground::protocol::SafetySwitch;
use kraft_playground::sim::chaos::{run_seed, ChaosOptions};

fn first_failing_seed(switch: Option<SafetySwitch>, seeds: u64) -> Option<u64> {
    let opts = ChaosOptions { seconds: 60, voters: 3, observers: 1, unsafe_switches: switch.into_iter().collect() };
    (1..=seeds).find(|&seed| !run_seed(seed, &opts).violations.is_empty())
}

#[test]
fn safe_runs_break_nothing() {
    let opts = ChaosOptions { seconds: 60, voters: 3, observers: 1, unsafe_switches: vec![] };
    for seed in 1..=20 {
        let o = run_seed(seed, &opts);
        assert!(o.passed(), "seed {seed}: {:?} progress={}", o.violations.first(), o.made_progress);
    }
    let five = ChaosOptions { voters: 5, ..opts };
    for seed in 1..=10 {
        assert!(run_seed(seed, &five).passed(), "5 voters, seed {seed}");
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
