//! Golden traces, as etcd raft's datadriven tests keep them: each scenario (and each
//! variant) has its run written next to it in `scenarios/golden/`, and this test compares
//! a fresh run against that file. A change in behaviour shows up as a reviewable diff:
//! rewrite the files with `UPDATE=1 cargo test --release --test golden` and read
//! `git diff scenarios/golden`.
//!
//! A file holds the trace digest and event count (which pin every event), the report,
//! the first events line by line, and every event that is not message traffic (state
//! changes, votes, appends, flushes, HW steps, truncations, snapshots, faults, violations).

use kraft_scenario::{RunOptions, Scenario};
use kraft_sim::trace::EventKind;
use std::fmt::Write;
use std::path::PathBuf;

/// How many events are written out in full, messages included.
const FIRST_EVENTS: usize = 200;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join("scenarios")
}

/// Every scenario and variant, as (golden file stem, scenario).
fn runs() -> Vec<(String, Scenario)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .expect("scenarios/ exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.file_name().is_some_and(|n| n != "schema.json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let id = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable");
        let s = kraft_scenario::parse(&text).unwrap_or_else(|e| panic!("{id}: {e}"));
        for v in s.variant_names() {
            out.push((format!("{id}.{v}"), s.variant(v).expect("variant")));
        }
        out.push((id, s));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn is_message(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Send { .. } | EventKind::Deliver { .. } | EventKind::Drop { .. } | EventKind::Disconnect { .. }
    )
}

fn golden(stem: &str, s: &Scenario) -> String {
    let run = kraft_scenario::execute(s, &RunOptions::default());
    let events = run.trace();
    let mut out = String::new();
    let _ = writeln!(out, "# {stem}: rewrite with UPDATE=1 cargo test --release --test golden");
    let _ = writeln!(out, "digest {} events {}", run.simulation.digest().hex(), events.len());
    let _ = writeln!(out, "\n## report\n{}", run.report.text().trim_end());
    let _ = writeln!(out, "\n## first {FIRST_EVENTS} events");
    for e in events.iter().take(FIRST_EVENTS) {
        let _ = writeln!(out, "{e}");
    }
    let _ = writeln!(out, "\n## every event but message traffic");
    for e in events.iter().filter(|e| !is_message(&e.kind)) {
        let _ = writeln!(out, "{e}");
    }
    out
}

#[test]
fn every_scenario_matches_its_golden_trace() {
    let dir = scenarios_dir().join("golden");
    let mut stale = Vec::new();
    for (stem, s) in runs() {
        if let Err(e) = kraft_expect::file(&dir.join(format!("{stem}.txt")), &golden(&stem, &s)) {
            stale.push(e);
        }
    }
    if !kraft_expect::updating() {
        let expected: Vec<String> = runs().into_iter().map(|(stem, _)| format!("{stem}.txt")).collect();
        let mut present: Vec<String> = std::fs::read_dir(&dir)
            .map(|d| d.map(|e| e.expect("readable").file_name().to_string_lossy().to_string()).collect())
            .unwrap_or_default();
        present.sort();
        for extra in present.iter().filter(|p| !expected.contains(p)) {
            stale.push(format!("scenarios/golden/{extra} belongs to no scenario"));
        }
    }
    assert!(
        stale.is_empty(),
        "behaviour changed (review, then rewrite with UPDATE=1 cargo test --release --test golden):\n{}",
        stale.join("\n")
    );
}
