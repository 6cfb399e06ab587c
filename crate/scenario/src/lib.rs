//! Scenarios: guided KRaft stories that are also tests.
//!
//! A scenario is a cluster, timed steps (faults, writes, waits, captions) and
//! expectations. [`parse`] reads the JSON form and checks it, naming the exact path of
//! anything wrong (`steps[3].node: node 7 does not exist ...`); [`run`] plays it on a
//! [`Simulation`] and returns a [`Report`]: every expectation with pass/fail and a
//! one-line explanation with the measured numbers, the invariant violations, the
//! measurements the scenario asks for, and the resolved input log (so the run can be
//! replayed, shared and scrubbed). [`execute`] also hands back the simulation itself.
//!
//! The format is documented in `scenarios/README.md` and `scenarios/schema.json`.

mod cond;
pub mod markup;
mod parse;
mod report;
mod runner;
pub mod vocab;

pub use cond::{Condition, EventMatch, ImageWant, NodeSel};
pub use markup::{caption_spans, Span, SpanStyle};
pub use report::{ExpectationReport, Measurement, MeasurementPart, Report, StepReport, ViolationReport};

use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{NodeId, SafetySwitch};
use kraft_sim::{Action, ClusterSpec, Simulation};
use vocab::{ExpectKind, MeasureKind};

use kraft_sim::trace::{Event, Invariant};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// An error in a scenario file: where (`steps[3].node`) and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

impl ScenarioError {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

/// Reads and checks a scenario (JSON text).
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse::parse(text)
}

/// How to run a scenario: a seed to use instead of the file's, extra safety switches to
/// turn off on top of the file's (and its variant's).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub seed: Option<u64>,
    pub unsafe_switches: Vec<SafetySwitch>,
}

/// Runs a scenario to its end and reports.
pub fn run(scenario: &Scenario, options: &RunOptions) -> Report {
    execute(scenario, options).report
}

/// A finished run: its report, the simulation (world, time travel) and every event.
pub struct Run {
    pub report: Report,
    pub simulation: Simulation,
    /// The whole trace (the simulation itself keeps only a recent window in memory).
    pub events: Vec<Event>,
}

impl Run {
    pub fn trace(&self) -> &[Event] {
        &self.events
    }
}

/// Runs a scenario and keeps the simulation, e.g. to show or scrub its trace.
pub fn execute(scenario: &Scenario, options: &RunOptions) -> Run {
    runner::execute(scenario, options)
}

// ---- the format ---------------------------------------------------------------------

/// A parsed, checked scenario. Serializes back to the JSON format (with defaults made
/// explicit), so a UI can show its steps and captions.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Stable kebab-case id (`figure-8`), also the file name and the `?scenario=` link.
    pub id: String,
    pub title: String,
    /// What the story shows, in the caption markup (plain text, **bold**, `code`, *em*).
    pub summary: String,
    pub cluster: ClusterSpec,
    /// The run ends at this simulated time (ms).
    pub duration_ms: u64,
    pub steps: Vec<Step>,
    pub expect: Vec<Expect>,
    /// Measurements to report (e.g. failover split into detection and election).
    pub report: Vec<Measure>,
    pub variants: Vec<Variant>,
    /// Names the captions give records ("X"): the UI labels those records where it shows them.
    pub record_names: BTreeMap<String, RecordName>,
    /// The variant applied by [`Scenario::variant`], if any.
    pub variant: Option<String>,
}

/// One step: when it happens, what it does, and what to tell the reader.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub when: When,
    pub action: Option<StepAction>,
    /// A name other steps, expectations and measurements refer to (`"crash"`).
    pub label: Option<String>,
    pub caption: Option<String>,
    /// Ask the UI to pause here so the reader can look.
    pub pause: bool,
    /// What the caption talks about, for the UI to zoom to and highlight.
    pub focus: Option<Focus>,
    /// An `until` that times out does not fail the run (a variant may never get there).
    pub optional: bool,
}

/// A record a story names in its captions: the one at this offset, of this epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecordName {
    pub offset: u64,
    pub epoch: u64,
}

/// What a step's caption names: its nodes and records (by their `recordNames`), and how
/// much of the timeline around the step's moment shows them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Focus {
    pub nodes: Vec<NodeId>,
    pub records: Vec<String>,
    /// The width of the timeline window around the moment (ms).
    pub window_ms: u64,
    /// The caption talks about the nodes' metadata images: the UI shows them.
    pub image: bool,
    pub messages: Vec<FocusMessage>,
}

/// Messages a caption names: the exchanges of one request kind, between the nodes it
/// says (`from` sends the request, `to` answers it; either side unsaid is any node).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FocusMessage {
    pub kind: RpcKind,
    pub from: Option<NodeId>,
    pub to: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum When {
    /// Right after the previous step (`after: 0`).
    Next,
    /// At this simulated time (ms).
    At(u64),
    /// This many ms after the previous step happened.
    After(u64),
    /// As soon as the condition holds; the step fails if it does not within
    /// `timeout_ms` of the previous step (or before the end when absent).
    Until { condition: Condition, timeout_ms: Option<u64> },
}

/// A node named in a step: a fixed id, the current leader, or the node a labelled
/// step acted on or found (`"$crash"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeRef {
    Id(NodeId),
    /// The current leader (the running leader of the highest epoch).
    Leader,
    /// The lowest-id running voter that follows the current leader.
    Follower,
    Label(String),
}

impl std::fmt::Display for NodeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeRef::Id(n) => write!(f, "n{n}"),
            NodeRef::Leader => f.write_str("the leader"),
            NodeRef::Follower => f.write_str("a follower"),
            NodeRef::Label(l) => write!(f, "${l}"),
        }
    }
}

/// A partition group: these nodes, or every node not named in another group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Group {
    Nodes(Vec<NodeRef>),
    Rest,
}

/// A step's action: the sim's [`Action`] with node references, resolved when the step
/// runs.
pub type StepAction = Action<NodeRef, Group>;

/// The node a step's action is about (what its `$label` names): the node it crashes,
/// wipes, restarts, isolates, reconnects or slows, or the leader that resigns (the sim's
/// declaration of each action says which).
pub fn step_subject(action: &StepAction) -> Option<&NodeRef> {
    action.subject().map(|s| match s {
        kraft_sim::vocab::Subject::Node(n) => n,
        kraft_sim::vocab::Subject::Leader => &NodeRef::Leader,
    })
}

/// A point in simulated time: absolute ms, when a labelled step happened (plus an
/// offset), or the end of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeRef {
    Ms(u64),
    Step { label: String, plus: u64 },
    End,
}

impl std::fmt::Display for TimeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeRef::Ms(t) => write!(f, "{}", kraft_sim::trace::Seconds(*t)),
            TimeRef::Step { label, plus: 0 } => write!(f, "step '{label}'"),
            TimeRef::Step { label, plus } => {
                write!(f, "step '{label}' + {}", kraft_sim::trace::Seconds(*plus))
            }
            TimeRef::End => f.write_str("the end"),
        }
    }
}

/// An expectation with an optional note on why it matters (shown in reports).
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    pub expectation: Expectation,
    pub note: Option<String>,
}

/// What a scenario claims. Each becomes a pass/fail line with measured numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Expectation {
    /// A leader is elected by this time (ms).
    LeaderElectedBy(u64),
    /// The selected nodes' HW reaches `offset` by `by`.
    HwAtLeast { nodes: NodeSel, offset: u64, by: TimeRef },
    /// The selected nodes truncate their log (at least `rounds` truncations each) in
    /// the window.
    Truncation { nodes: NodeSel, rounds: u64, from: Option<TimeRef>, to: Option<TimeRef> },
    /// No truncation on the selected nodes in the window.
    NoTruncation { nodes: NodeSel, from: Option<TimeRef>, to: Option<TimeRef> },
    /// After the step `from` (default: the first step that took the leader away), a
    /// leader of a newer epoch is elected within / no sooner than the given ms.
    Failover { from: Option<String>, within: Option<u64>, at_least: Option<u64> },
    /// No invariant is violated.
    NoViolations,
    /// At least one of these invariants is reported violated (an unsafe variant).
    Violated(Vec<Invariant>),
    /// The condition holds at some moment in [from, by].
    Eventually { condition: Condition, from: Option<TimeRef>, by: TimeRef },
    /// The condition holds at every moment in [from, to].
    Always { condition: Condition, from: Option<TimeRef>, to: Option<TimeRef> },
    /// The condition holds at this moment (after the events of that millisecond).
    Holds { condition: Condition, at: TimeRef },
    /// Events matching `matcher` happen in the window (at least / at most).
    Event { matcher: EventMatch, from: Option<TimeRef>, to: Option<TimeRef>, at_least: u64, at_most: Option<u64> },
    /// The leader's HW grows by at least `at_least` records between `from` and `to`.
    Progress { from: TimeRef, to: Option<TimeRef>, at_least: u64 },
    /// The metadata image at the end: these brokers and topics on the selected nodes,
    /// all alike.
    Metadata { nodes: NodeSel, want: ImageWant },
}

impl Expectation {
    /// The key it is written with.
    pub fn kind(&self) -> ExpectKind {
        match self {
            Expectation::LeaderElectedBy(_) => ExpectKind::LeaderElectedBy,
            Expectation::HwAtLeast { .. } => ExpectKind::HwAtLeast,
            Expectation::Truncation { .. } => ExpectKind::Truncation,
            Expectation::NoTruncation { .. } => ExpectKind::NoTruncation,
            Expectation::Failover { .. } => ExpectKind::Failover,
            Expectation::NoViolations => ExpectKind::NoViolations,
            Expectation::Violated(_) => ExpectKind::Violated,
            Expectation::Eventually { .. } => ExpectKind::Eventually,
            Expectation::Always { .. } => ExpectKind::Always,
            Expectation::Holds { .. } => ExpectKind::Holds,
            Expectation::Event { at_most: Some(0), .. } => ExpectKind::NoEvent,
            Expectation::Event { .. } => ExpectKind::Event,
            Expectation::Progress { .. } => ExpectKind::Progress,
            Expectation::Metadata { .. } => ExpectKind::Metadata,
        }
    }
}

/// A number the scenario asks to report.
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    /// When the first leader was elected, split into waiting and electing.
    FirstElection,
    /// Failover after a step: detection (until a voter starts an election), election
    /// (until the new leader), and until the new leader's first commit.
    Failover { from: Option<String> },
    /// When each selected node's HW first reached `offset`.
    HwReached { offset: u64, nodes: NodeSel, from: Option<TimeRef> },
    /// How many events match, in the window.
    Count { name: String, matcher: EventMatch, from: Option<TimeRef>, to: Option<TimeRef> },
    /// Time between two moments.
    Interval { name: String, from: TimeRef, to: TimeRef },
    /// Every node's state, epoch, LEO and HW at the end.
    Nodes,
}

impl Measure {
    pub fn kind(&self) -> MeasureKind {
        match self {
            Measure::FirstElection => MeasureKind::FirstElection,
            Measure::Failover { .. } => MeasureKind::Failover,
            Measure::HwReached { .. } => MeasureKind::HwReached,
            Measure::Count { .. } => MeasureKind::Count,
            Measure::Interval { .. } => MeasureKind::Interval,
            Measure::Nodes => MeasureKind::Nodes,
        }
    }
}

/// A variation of the story, typically with a safety rule switched off.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub name: String,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub unsafe_switches: Vec<SafetySwitch>,
    pub seed: Option<u64>,
    /// Replaces the scenario's expectations when present.
    pub expect: Option<Vec<Expect>>,
    /// Replaces the scenario's measurements when present.
    pub report: Option<Vec<Measure>>,
    /// Caption replacements by step label.
    pub captions: BTreeMap<String, String>,
}

impl Scenario {
    pub fn variant_names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name.as_str()).collect()
    }

    /// The scenario with a variant applied: its switches, seed, expectations,
    /// measurements and captions.
    pub fn variant(&self, name: &str) -> Result<Scenario, ScenarioError> {
        let Some(v) = self.variants.iter().find(|v| v.name == name) else {
            let known = self.variant_names();
            return Err(ScenarioError::new(
                "variant",
                if known.is_empty() {
                    format!("scenario '{}' has no variants (asked for '{name}')", self.id)
                } else {
                    format!("unknown variant '{name}' of scenario '{}'; variants: {}", self.id, known.join(", "))
                },
            ));
        };
        let mut s = self.clone();
        s.variant = Some(v.name.clone());
        if let Some(t) = &v.title {
            s.title = t.clone();
        }
        if let Some(t) = &v.summary {
            s.summary = t.clone();
        }
        for sw in &v.unsafe_switches {
            if !s.cluster.unsafe_switches.contains(sw) {
                s.cluster.unsafe_switches.push(*sw);
            }
        }
        if let Some(seed) = v.seed {
            s.cluster.seed = seed;
        }
        if let Some(e) = &v.expect {
            s.expect = e.clone();
        }
        if let Some(r) = &v.report {
            s.report = r.clone();
        }
        for step in &mut s.steps {
            if let Some(c) = step.label.as_ref().and_then(|l| v.captions.get(l)) {
                step.caption = Some(c.clone());
            }
        }
        s.variants = Vec::new();
        Ok(s)
    }
}

/// What the parser accepts, for the schema and its test.
pub mod fields {
    pub use super::parse::{cluster_fields, EVENT_FIELDS, MAX_DURATION_MS, RECORDS, STATES};
    pub use super::vocab::*;
}
