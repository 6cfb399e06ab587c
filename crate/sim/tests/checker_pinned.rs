//! The checker's reports on seeded chaos runs with each safety rule switched off (the
//! unsafe switches), pinned in `golden/checker-reports.txt`: a line per run (cluster
//! shape, switches, seed) and under it a line per report (the event's seq and time, the
//! invariant, the node, the text and its evidence). The reports were first pinned (as a
//! hash) from the checker before its per-offset notes moved into offset-indexed storage
//! (`check::by_offset`). A change to how the checker keeps its state must leave every
//! report as it was; a change to the protocol or to the chaos generator that alters the
//! runs on purpose, or to what an invariant claims, updates the file: `UPDATE=1 cargo
//! test --release -p kraft-sim --test checker_pinned`, and the diff says what changed.
//! A failure shows the first differing lines, with their line numbers in the file.

use kraft_protocol::SafetySwitch;
use kraft_sim::chaos::{random_run, ChaosOptions};
use kraft_sim::trace::EventKind;
use kraft_sim::Simulation;
use std::collections::BTreeMap;
use std::path::Path;

/// The report lines of every run, and the number of reports per invariant.
fn reports() -> (Vec<String>, BTreeMap<String, usize>) {
    let mut sets: Vec<Vec<SafetySwitch>> = vec![vec![]];
    sets.extend(SafetySwitch::ALL.iter().map(|s| vec![*s]));
    sets.push(SafetySwitch::ALL.to_vec());
    let mut lines = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (voters, observers) in [(3, 1), (5, 2)] {
        for switches in &sets {
            let opts = ChaosOptions {
                seconds: 60,
                voters,
                observers,
                unsafe_switches: switches.clone(),
                ..ChaosOptions::default()
            };
            for seed in 1..=10 {
                let (spec, actions) = random_run(seed, &opts);
                let sim = Simulation::replay_once(spec, actions, 60_000).expect("generated runs are valid");
                let names: Vec<_> = switches.iter().map(|s| s.name()).collect();
                lines.push(format!("{voters}v{observers}o {names:?} seed {seed}"));
                for e in sim.violations() {
                    let EventKind::Violation { invariant, node, detail, evidence } = &e.kind else { continue };
                    *counts.entry(format!("{invariant:?}")).or_default() += 1;
                    lines.push(format!("  #{} t{} {invariant:?} {node:?} {detail} {evidence:?}", e.seq, e.t));
                }
            }
        }
    }
    (lines, counts)
}

#[test]
fn the_reports_of_seeded_runs_with_each_safety_switch_are_as_pinned() {
    let (lines, counts) = reports();
    // Every invariant about the records and the HW is among the reports.
    for invariant in [
        "ConsistentCommittedData",
        "LeaderCompleteness",
        "LogMatching",
        "MajorityReachedHighWatermark",
        "MonotonicHighWatermark",
        "NoTruncationBelowHighWatermark",
    ] {
        assert!(counts.contains_key(invariant), "no {invariant} report: {counts:?}");
    }
    assert!(
        lines.iter().all(|l| !l.contains('\n')),
        "a report spans lines, so the file could not be compared line by line"
    );
    if let Err(e) =
        kraft_expect::golden(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/checker-reports.txt"), &lines)
    {
        panic!("{e}reports per invariant now: {counts:?}");
    }
}
