//! The checker's reports on seeded chaos runs with each safety rule switched off (the unsafe switches), pinned: what
//! each run reports (the invariant, the node, the text, the event it is reported at and
//! its evidence) is hashed, and the hash was taken from the checker before its per-offset
//! notes moved into offset-indexed storage (`check::by_offset`). A change to how the
//! checker keeps its state must leave every report as it was; a change to the protocol or
//! to the chaos generator that alters the runs on purpose, or to what an invariant claims,
//! updates the hash (the failure prints the new one, and the counts per invariant to
//! compare; `DUMP_REPORTS=FILE` writes the reports, to diff against the old code's).
//! Last update: LeaderCompleteness no longer holds a leader of an older epoch than a
//! commit to it (`check::data`); four reports went, each a leader of an epoch below the
//! committed record's own epoch.

use kraft_protocol::SafetySwitch;
use kraft_sim::chaos::{random_run, ChaosOptions};
use kraft_sim::trace::EventKind;
use kraft_sim::Simulation;
use std::collections::BTreeMap;

/// FNV-1a, 64 bits.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

#[test]
fn the_reports_of_seeded_runs_with_each_safety_switch_are_as_pinned() {
    let mut sets: Vec<Vec<SafetySwitch>> = vec![vec![]];
    sets.extend(SafetySwitch::ALL.iter().map(|s| vec![*s]));
    sets.push(SafetySwitch::ALL.to_vec());
    let mut lines = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (voters, observers) in [(3, 1), (5, 2)] {
        for switches in &sets {
            let opts = ChaosOptions { seconds: 60, voters, observers, unsafe_switches: switches.clone() };
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
    if let Ok(file) = std::env::var("DUMP_REPORTS") {
        std::fs::write(file, lines.join("\n")).expect("DUMP_REPORTS is writable");
    }
    let hash = fnv(&lines.join("\n"));
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
    assert_eq!(hash, PINNED, "reports changed: hash {hash:#018x}, {} reports: {counts:?}", lines.len() - 160);
}

const PINNED: u64 = 0xc1f9_b373_2e34_20a0;
