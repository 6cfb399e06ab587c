//! What a scenario run reports: steps as they happened, expectations with pass/fail and
//! a one-line explanation, invariant violations, measurements, and the resolved input
//! log that replays the run.

use super::markup::{plain_text, Span};
use super::{Focus, RecordName};
use kraft_protocol::{NodeId, SafetySwitch};
pub use kraft_sim::failover::{Measurement, MeasurementPart};
use kraft_sim::trace::Seconds;
use kraft_sim::{Action, ClusterSpec, TimedAction};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ScenarioReport"))]
pub struct Report {
    pub id: String,
    pub title: String,
    /// The variant that was run, if any.
    pub variant: Option<String>,
    pub seed: u64,
    /// Safety switches that were off.
    #[serde(rename = "unsafe")]
    pub unsafe_switches: Vec<SafetySwitch>,
    /// Every step happened as written, every expectation held, and every invariant
    /// violation was one an expectation asked for.
    pub passed: bool,
    /// Simulated time at the end of the run (ms).
    pub end_ms: u64,
    pub steps: Vec<StepReport>,
    pub expectations: Vec<ExpectationReport>,
    pub violations: Vec<ViolationReport>,
    pub measurements: Vec<Measurement>,
    /// The names the captions give records (`recordNames`).
    pub record_names: BTreeMap<String, RecordName>,
    /// The cluster that ran (seed and switches as used).
    pub spec: ClusterSpec,
    /// The actions with the times they happened and the nodes they hit: with `spec`,
    /// `Simulation::replay(spec, inputs, endMs)` reproduces the run exactly.
    pub inputs: Vec<TimedAction>,
    /// Number of trace events.
    pub events: usize,
    /// Trace digest (hex), as `cluster.digest()` gives it.
    pub digest: String,
}

/// One step as it happened.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ScenarioStepReport"))]
pub struct StepReport {
    pub index: usize,
    pub label: Option<String>,
    /// When it happened (ms); None when the run ended first.
    pub t: Option<u64>,
    /// The action with its nodes resolved (what went into the input log).
    pub action: Option<Action>,
    pub caption: Option<String>,
    /// The caption as styled runs of text (render each as a text node).
    pub caption_spans: Vec<Span>,
    pub pause: bool,
    /// What the caption names, for the UI to zoom to and highlight.
    pub focus: Option<Focus>,
    pub ok: bool,
    /// What happened, e.g. "waited 1.571s until a leader is elected: n0".
    pub note: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ScenarioExpectationReport"))]
pub struct ExpectationReport {
    pub index: usize,
    /// The key it was written with (`leaderElectedBy`, `failover`, ...).
    pub kind: &'static str,
    pub passed: bool,
    /// One line with the measured numbers.
    pub explanation: String,
    pub note: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ScenarioViolationReport"))]
pub struct ViolationReport {
    pub seq: u64,
    pub t: u64,
    #[cfg_attr(feature = "ts", ts(as = "kraft_sim::trace::Invariant"))]
    pub invariant: &'static str,
    pub node: Option<NodeId>,
    pub detail: String,
    /// Named by a `violated` expectation (an unsafe variant showing what breaks).
    pub expected: bool,
}

impl Report {
    pub fn unexpected_violations(&self) -> usize {
        self.violations.iter().filter(|v| !v.expected).count()
    }

    /// A human summary: steps, expectations, measurements, invariants.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = write!(s, "scenario {}", self.id);
        if let Some(v) = &self.variant {
            let _ = write!(s, " (variant {v})");
        }
        let _ = write!(s, ": {}", plain_text(&self.title));
        let _ = write!(s, "\n  seed {}", self.seed);
        if !self.unsafe_switches.is_empty() {
            let names: Vec<&str> = self.unsafe_switches.iter().map(|s| s.name()).collect();
            let _ = write!(s, ", unsafe: {}", names.join(", "));
        }
        let _ = writeln!(s, ", ran to {}, {} events, digest {}", Seconds(self.end_ms), self.events, self.digest);
        if !self.steps.is_empty() {
            s.push_str("steps:\n");
            for st in &self.steps {
                let t = st.t.map(|t| format!("{:>9}", Seconds(t).to_string())).unwrap_or_else(|| format!("{:>9}", "-"));
                let _ = writeln!(s, "  {} {} {}", if st.ok { "  " } else { "!!" }, t, st.note);
            }
        }
        if !self.expectations.is_empty() {
            s.push_str("expectations:\n");
            for e in &self.expectations {
                let _ = writeln!(s, "  {} {}: {}", if e.passed { "PASS" } else { "FAIL" }, e.kind, e.explanation);
            }
        }
        if !self.measurements.is_empty() {
            s.push_str("measurements:\n");
            for m in &self.measurements {
                let _ = writeln!(s, "  {}: {}", m.name, m.text);
            }
        }
        if self.violations.is_empty() {
            s.push_str("invariants: no violations\n");
        } else {
            let _ = writeln!(
                s,
                "invariants: {} violation(s), {} unexpected",
                self.violations.len(),
                self.unexpected_violations()
            );
            for v in &self.violations {
                let _ = writeln!(
                    s,
                    "  {} {} {}{}: {}",
                    if v.expected { "expected  " } else { "UNEXPECTED" },
                    Seconds(v.t),
                    v.invariant,
                    v.node.map(|n| format!(" at n{n}")).unwrap_or_default(),
                    v.detail
                );
            }
        }
        let _ = writeln!(s, "{}", if self.passed { "PASSED" } else { "FAILED" });
        s
    }
}
