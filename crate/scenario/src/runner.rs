//! Playing a scenario on a `Simulation`: steps happen at their times (or when their
//! condition holds), node references are resolved to ids as they happen, conditions of
//! `eventually`/`always`/`holds` are watched after every event, and the rest of the
//! expectations are read from the trace at the end.
//!
//! Actions go through `Simulation::act` right after `advance` to their time, exactly
//! as `Simulation::replay` applies an input log, so the report's `inputs` replay the
//! run byte for byte.

use super::cond::{image_differences, image_problems, Env, LabelInfo, Labels, LiveCondition, NodeSel};
use super::markup::caption_spans;
use super::report::*;
use super::vocab::Kind;
use super::*;
use kraft_protocol::{Epoch, NodeId, StateName};
use kraft_sim::trace::{EventKind, Seconds};
use kraft_sim::Action;

mod evaluate;
mod measure;

struct StepDone {
    t: u64,
    trace_index: usize,
    action: Option<Action>,
    leader_before: Option<(NodeId, Epoch)>,
}

enum MonitorKind {
    Eventually,
    Always,
    Holds,
}

/// An `eventually`/`always`/`holds` expectation being watched.
struct Monitor {
    expect_index: usize,
    kind: MonitorKind,
    condition: Condition,
    from: Option<TimeRef>,
    /// `by` / `to` / `at`.
    until: Option<TimeRef>,
    live: Option<LiveCondition>,
    checks: u64,
    /// Eventually: when it first held. Holds: when it was evaluated.
    hit: Option<u64>,
    /// Always/holds: when it failed and what the cluster looked like.
    failed: Option<(u64, String)>,
    done: bool,
}

struct Runner<'a> {
    scenario: &'a Scenario,
    sim: Simulation,
    /// Every event of the run (the simulation keeps only a recent window).
    events: Vec<kraft_sim::trace::Event>,
    labels: Labels,
    done: Vec<Option<StepDone>>,
    monitors: Vec<Monitor>,
    end: u64,
    /// Why the run stopped early (a livelock), if it did.
    stopped: Option<String>,
}

pub fn execute(scenario: &Scenario, options: &RunOptions) -> Run {
    let mut spec = scenario.cluster.clone();
    if let Some(seed) = options.seed {
        spec.seed = seed;
    }
    for s in &options.unsafe_switches {
        if !spec.unsafe_switches.contains(s) {
            spec.unsafe_switches.push(*s);
        }
    }
    let sim = match Simulation::new(spec.clone()) {
        Ok(sim) => sim,
        Err(e) => return invalid_cluster(scenario, spec, e.to_string()),
    };
    let monitors = scenario
        .expect
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let (kind, condition, from, until) = match &e.expectation {
                Expectation::Eventually { condition, from, by } => {
                    (MonitorKind::Eventually, condition, from.clone(), Some(by.clone()))
                }
                Expectation::Always { condition, from, to } => {
                    (MonitorKind::Always, condition, from.clone(), to.clone())
                }
                Expectation::Holds { condition, at } => (MonitorKind::Holds, condition, None, Some(at.clone())),
                _ => return None,
            };
            Some(Monitor {
                expect_index: i,
                kind,
                condition: condition.clone(),
                from,
                until,
                live: None,
                checks: 0,
                hit: None,
                failed: None,
                done: false,
            })
        })
        .collect();
    let mut r = Runner {
        scenario,
        events: sim.trace().to_vec(),
        sim,
        labels: Labels::new(),
        done: Vec::new(),
        monitors,
        end: scenario.duration_ms,
        stopped: None,
    };
    let steps = r.run_steps();
    r.run_until(r.end);
    r.tick();
    r.finish(spec, steps)
}

fn invalid_cluster(scenario: &Scenario, spec: ClusterSpec, message: String) -> Run {
    let sim = Simulation::new(ClusterSpec::default()).expect("the default cluster is valid");
    let report = Report {
        id: scenario.id.clone(),
        title: scenario.title.clone(),
        variant: scenario.variant.clone(),
        seed: spec.seed,
        unsafe_switches: spec.unsafe_switches.clone(),
        passed: false,
        end_ms: 0,
        steps: Vec::new(),
        expectations: vec![ExpectationReport {
            index: 0,
            kind: "cluster",
            passed: false,
            explanation: format!("the cluster is invalid: {message}"),
            note: None,
        }],
        violations: Vec::new(),
        measurements: Vec::new(),
        record_names: scenario.record_names.clone(),
        spec,
        inputs: Vec::new(),
        events: 0,
        digest: String::new(),
    };
    Run { report, events: sim.trace().to_vec(), simulation: sim }
}

/// A compact picture of the cluster for failure explanations.
fn describe_world(sim: &Simulation) -> String {
    sim.world()
        .node_views()
        .iter()
        .map(|n| {
            if n.state == "crashed" {
                format!("n{} crashed", n.id)
            } else {
                format!(
                    "n{} {} e{} leo {} hw {}",
                    n.id,
                    n.state,
                    n.epoch,
                    n.leo,
                    n.hw.map(|h| h.to_string()).unwrap_or_else(|| "-".into())
                )
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The world when `condition` does not hold: every node, and what differs in the metadata
/// images the condition looks at (the nodes' states do not show that).
fn describe_unmet(sim: &Simulation, env: &Env, condition: &Condition) -> String {
    let mut out = describe_world(sim);
    for d in image_differences(condition, env) {
        out.push_str("; ");
        out.push_str(&d);
    }
    out
}

impl Runner<'_> {
    fn env(&self) -> Env<'_> {
        Env { world: self.sim.world(), labels: &self.labels }
    }

    fn time_of(&self, t: &TimeRef) -> Option<u64> {
        match t {
            TimeRef::Ms(ms) => Some(*ms),
            TimeRef::End => Some(self.end),
            TimeRef::Step { label, plus } => self.labels.get(label).map(|i| i.t + plus),
        }
    }

    /// First trace index at or after a time reference (a step: its first own event).
    fn index_from(&self, t: &TimeRef) -> Option<usize> {
        let trace = &self.events;
        match t {
            TimeRef::Step { label, plus: 0 } => self.labels.get(label).map(|i| i.trace_index),
            _ => {
                let at = self.time_of(t)?;
                Some(trace.partition_point(|e| e.t < at))
            }
        }
    }

    /// Trace index just past a time reference (a step: before its own events).
    fn index_to(&self, t: &TimeRef) -> Option<usize> {
        let trace = &self.events;
        match t {
            TimeRef::Step { label, plus: 0 } => self.labels.get(label).map(|i| i.trace_index),
            _ => {
                let at = self.time_of(t)?;
                Some(trace.partition_point(|e| e.t <= at))
            }
        }
    }

    /// Copies the events the simulation emitted since the last look.
    fn sync(&mut self) {
        let last = self.events.last().map(|e| e.seq).unwrap_or(0);
        if self.sim.last_seq() > last {
            let new = self.sim.events_since(last);
            self.events.extend_from_slice(&new);
        }
    }

    // ---- time ------------------------------------------------------------------------

    /// The next moment a `holds` expectation must be looked at exactly.
    fn next_hold_stop(&self) -> Option<u64> {
        let now = self.sim.now();
        self.monitors
            .iter()
            .filter(|m| matches!(m.kind, MonitorKind::Holds) && !m.done)
            .filter_map(|m| m.until.as_ref().and_then(|t| self.time_of(t)))
            .filter(|t| *t > now)
            .min()
    }

    /// Runs the next batch of events (one millisecond's worth), or up to `limit` when
    /// nothing happens before it; then looks at the monitors.
    fn tick_once(&mut self, limit: u64) {
        let now = self.sim.now();
        let stop = self.next_hold_stop().map(|h| h.min(limit)).unwrap_or(limit);
        let ran = match self.sim.world().next_event_time() {
            Some(t) if t <= stop => self.sim.step().map(|_| ()),
            _ => self.sim.advance(stop.saturating_sub(now)),
        };
        if let Err(e) = ran {
            self.stopped = Some(e.to_string());
        }
        self.sync();
        self.tick();
    }

    fn run_until(&mut self, target: u64) {
        while self.sim.now() < target && self.stopped.is_none() {
            self.tick_once(target);
        }
    }

    /// Looks at every active monitor.
    fn tick(&mut self) {
        let now = self.sim.now();
        let mut monitors = std::mem::take(&mut self.monitors);
        for m in monitors.iter_mut().filter(|m| !m.done) {
            let from = match &m.from {
                None => Some(0),
                Some(t) => self.time_of(t),
            };
            let Some(from) = from.filter(|f| *f <= now) else {
                continue;
            };
            let until = m.until.as_ref().and_then(|t| self.time_of(t));
            if let MonitorKind::Holds = m.kind {
                match until {
                    Some(at) if at <= now => {}
                    _ => continue,
                }
            }
            if let (MonitorKind::Eventually | MonitorKind::Always, Some(u)) = (&m.kind, until) {
                // A window that ends at a step ends just before that step acted (as
                // event windows do); one that ends at a time includes that millisecond.
                let ends_at_step = matches!(m.until, Some(TimeRef::Step { plus: 0, .. }));
                if now > u || (ends_at_step && now == u) {
                    m.done = true;
                    continue;
                }
            }
            if m.live.is_none() {
                let start = m
                    .from
                    .as_ref()
                    .and_then(|t| self.index_from(t))
                    .unwrap_or_else(|| from_index_fallback(&self.events, from));
                m.live = Some(LiveCondition::new(m.condition.clone(), start));
            }
            let env = Env { world: self.sim.world(), labels: &self.labels };
            let holds = m.live.as_mut().expect("set above").eval(&env, &self.events);
            m.checks += 1;
            match m.kind {
                MonitorKind::Eventually => {
                    if holds {
                        m.hit = Some(now);
                        m.done = true;
                    }
                }
                MonitorKind::Always => {
                    if !holds {
                        m.failed = Some((now, describe_unmet(&self.sim, &env, &m.condition)));
                        m.done = true;
                    }
                }
                MonitorKind::Holds => {
                    m.hit = Some(now);
                    if !holds {
                        m.failed = Some((now, describe_unmet(&self.sim, &env, &m.condition)));
                    }
                    m.done = true;
                }
            }
        }
        self.monitors = monitors;
    }

    // ---- steps -----------------------------------------------------------------------

    fn run_steps(&mut self) -> Vec<StepReport> {
        let mut out = Vec::new();
        let mut prev_t = 0u64;
        for (i, step) in self.scenario.steps.iter().enumerate() {
            let mut ok = true;
            let mut notes: Vec<String> = Vec::new();
            let mut subject: Option<NodeId> = None;
            // When.
            match &step.when {
                When::Next => {}
                When::At(t) => {
                    if *t < self.sim.now() {
                        ok = false;
                        notes.push(format!(
                            "was due at {} but the previous step ended at {}",
                            Seconds(*t),
                            Seconds(self.sim.now())
                        ));
                    } else {
                        self.run_until(*t);
                    }
                }
                When::After(d) => {
                    let t = prev_t + d;
                    if t > self.end {
                        out.push(self.not_reached(i, step, t));
                        continue;
                    }
                    self.run_until(t);
                }
                When::Until { condition, timeout_ms } => {
                    let start = self.sim.now();
                    let deadline = timeout_ms.map(|t| (prev_t + t).min(self.end)).unwrap_or(self.end).max(start);
                    let mut live = LiveCondition::new(condition.clone(), self.events.len());
                    loop {
                        let env = self.env();
                        if live.eval(&env, &self.events) {
                            subject = condition.subject(&env);
                            let mut n = format!("waited {} until {condition}", Seconds(self.sim.now() - start));
                            if let Some(s) = subject {
                                n.push_str(&format!(": n{s}"));
                            }
                            notes.push(n);
                            break;
                        }
                        if self.sim.now() >= deadline || self.stopped.is_some() {
                            ok = step.optional;
                            notes.push(format!(
                                "{}timed out after {}: {condition} did not happen ({})",
                                if step.optional { "(optional) " } else { "" },
                                Seconds(self.sim.now() - start),
                                describe_unmet(&self.sim, &self.env(), condition)
                            ));
                            break;
                        }
                        self.tick_once(deadline);
                    }
                }
            }
            let t = self.sim.now();
            let leader_before = self.sim.world().leader();
            let trace_index = self.events.len();
            // What.
            let mut action = None;
            if let Some(spec) = &step.action {
                match self.resolve(spec) {
                    Ok((a, subj)) => {
                        if subj.is_some() {
                            subject = subj;
                        }
                        let result = self.sim.act(a.clone());
                        self.sync();
                        match result {
                            Ok(outcome) => {
                                notes.push(describe_action(&a, leader_before, outcome));
                                action = Some(a);
                            }
                            Err(e) => {
                                ok = false;
                                notes.push(format!("{} failed: {e}", spec.kind().key()));
                            }
                        }
                    }
                    Err(m) => {
                        ok = false;
                        notes.push(format!("{} not done: {m}", spec.kind().key()));
                    }
                }
            }
            if let Some(l) = &step.label {
                self.labels.insert(l.clone(), LabelInfo { t, trace_index, subject, leader_before });
            }
            while self.done.len() < i {
                self.done.push(None);
            }
            self.done.push(Some(StepDone { t, trace_index, action: action.clone(), leader_before }));
            self.tick();
            prev_t = t;
            if notes.is_empty() {
                notes.push(match &step.caption {
                    Some(_) => "caption".into(),
                    None => "(nothing)".into(),
                });
            }
            let mut note = notes.join("; ");
            if let Some(l) = &step.label {
                note = format!("[{l}] {note}");
            }
            out.push(StepReport {
                index: i,
                label: step.label.clone(),
                t: Some(t),
                action,
                caption: step.caption.clone(),
                caption_spans: step.caption.as_deref().map(caption_spans).unwrap_or_default(),
                pause: step.pause,
                focus: step.focus.clone(),
                ok,
                note,
            });
        }
        out
    }

    fn not_reached(&mut self, i: usize, step: &Step, t: u64) -> StepReport {
        while self.done.len() <= i {
            self.done.push(None);
        }
        StepReport {
            index: i,
            label: step.label.clone(),
            t: None,
            action: None,
            caption: step.caption.clone(),
            caption_spans: step.caption.as_deref().map(caption_spans).unwrap_or_default(),
            pause: step.pause,
            focus: step.focus.clone(),
            ok: false,
            note: format!("not reached: due at {}, after the end ({})", Seconds(t), Seconds(self.end)),
        }
    }

    /// The concrete action and the node it is about.
    fn resolve(&self, spec: &StepAction) -> Result<(Action, Option<NodeId>), String> {
        let env = self.env();
        let action = spec.try_map(|r| env.resolve(r), |groups| resolve_groups(&env, groups))?;
        let subject = step_subject(spec).map(|r| env.resolve(r)).transpose()?;
        Ok((action, subject))
    }
}

/// A partition's groups as node ids: `"rest"` is every node not named in another group,
/// and a group left empty is dropped.
fn resolve_groups(env: &Env, groups: &[Group]) -> Result<Vec<Vec<NodeId>>, String> {
    let mut out: Vec<Vec<NodeId>> = Vec::new();
    let mut rest_at = None;
    for g in groups {
        match g {
            Group::Nodes(g) => out.push(g.iter().map(|r| env.resolve(r)).collect::<Result<_, _>>()?),
            Group::Rest => {
                rest_at = Some(out.len());
                out.push(Vec::new());
            }
        }
    }
    if let Some(i) = rest_at {
        let total = env.world.nodes.len() as NodeId;
        let named: Vec<NodeId> = out.iter().flatten().copied().collect();
        out[i] = (0..total).filter(|x| !named.contains(x)).collect();
    }
    out.retain(|g| !g.is_empty());
    Ok(out)
}

fn from_index_fallback(events: &[kraft_sim::trace::Event], from: u64) -> usize {
    events.partition_point(|e| e.t < from)
}

fn takes_leader_away(d: &StepDone) -> bool {
    let Some((leader, _)) = d.leader_before else {
        return false;
    };
    match &d.action {
        Some(Action::Crash { node }) | Some(Action::Isolate { node }) | Some(Action::Wipe { node }) => *node == leader,
        Some(Action::Resign) => true,
        Some(Action::Partition { groups }) => groups.len() > 1,
        _ => false,
    }
}

fn describe_action(a: &Action, leader: Option<(NodeId, Epoch)>, outcome: Option<kraft_sim::WriteOutcome>) -> String {
    a.describe(&kraft_sim::vocab::StepCx { leader, outcome })
}

fn first_leader(trace: &[kraft_sim::trace::Event]) -> Option<(u64, NodeId, Epoch)> {
    trace.iter().find_map(|e| match &e.kind {
        EventKind::State { node, to: StateName::Leader, epoch, .. } => Some((e.t, *node, *epoch)),
        _ => None,
    })
}

fn max_hw(trace: &[kraft_sim::trace::Event]) -> Option<u64> {
    trace
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::HighWatermark { new, .. } => Some(new),
            _ => None,
        })
        .max()
}
