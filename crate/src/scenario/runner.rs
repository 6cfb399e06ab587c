//! Playing a scenario on a `Simulation`: steps happen at their times (or when their
//! condition holds), node references are resolved to ids as they happen, conditions of
//! `eventually`/`always`/`holds` are watched after every event, and the rest of the
//! expectations are read from the trace at the end.
//!
//! Actions go through `Simulation::act` right after `advance` to their time, exactly
//! as `Simulation::replay` applies an input log, so the report's `inputs` replay the
//! run byte for byte.

use super::cond::{Env, LabelInfo, Labels, LiveCondition, NodeSel};
use super::markup::caption_spans;
use super::report::*;
use super::*;
use crate::protocol::{Epoch, NodeId, StateName};
use crate::sim::Action;
use crate::trace::{EventKind, Seconds};

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
    /// Holds: the value. Always: false once it failed.
    value: bool,
    /// Always/holds: when it failed and what the cluster looked like.
    failed: Option<(u64, String)>,
    done: bool,
}

struct Runner<'a> {
    scenario: &'a Scenario,
    sim: Simulation,
    /// Every event of the run (the simulation keeps only a recent window).
    events: Vec<crate::trace::Event>,
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
                value: !matches!(kind, MonitorKind::Eventually | MonitorKind::Holds),
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
                        m.value = true;
                        m.done = true;
                    }
                }
                MonitorKind::Always => {
                    if !holds {
                        m.value = false;
                        m.failed = Some((now, describe_world(&self.sim)));
                        m.done = true;
                    }
                }
                MonitorKind::Holds => {
                    m.hit = Some(now);
                    m.value = holds;
                    if !holds {
                        m.failed = Some((now, describe_world(&self.sim)));
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
                                describe_world(&self.sim)
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
                                notes.push(format!("{} failed: {e}", spec.name()));
                            }
                        }
                    }
                    Err(m) => {
                        ok = false;
                        notes.push(format!("{} not done: {m}", spec.name()));
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
            ok: false,
            note: format!("not reached: due at {}, after the end ({})", Seconds(t), Seconds(self.end)),
        }
    }

    fn resolve_node(&self, r: &NodeRef) -> Result<NodeId, String> {
        match r {
            NodeRef::Id(n) => Ok(*n),
            NodeRef::Leader => self
                .sim
                .world()
                .leader()
                .map(|(id, _)| id)
                .ok_or_else(|| format!("there is no leader at {}", Seconds(self.sim.now()))),
            NodeRef::Follower => super::cond::follower(self.sim.world())
                .ok_or_else(|| format!("no voter follows a leader at {}", Seconds(self.sim.now()))),
            NodeRef::Label(l) => {
                self.labels.get(l).and_then(|i| i.subject).ok_or_else(|| format!("step '{l}' named no node"))
            }
        }
    }

    /// The concrete action and the node it is about.
    fn resolve(&self, spec: &ActionSpec) -> Result<(Action, Option<NodeId>), String> {
        let n = |r: &NodeRef| self.resolve_node(r);
        Ok(match spec {
            ActionSpec::Crash { node } => {
                let id = n(node)?;
                (Action::Crash { node: id }, Some(id))
            }
            ActionSpec::Wipe { node } => {
                let id = n(node)?;
                (Action::Wipe { node: id }, Some(id))
            }
            ActionSpec::Restart { node } => {
                let id = n(node)?;
                (Action::Restart { node: id }, Some(id))
            }
            ActionSpec::Isolate { node } => {
                let id = n(node)?;
                (Action::Isolate { node: id }, Some(id))
            }
            ActionSpec::Partition { groups } => {
                let mut out: Vec<Vec<NodeId>> = Vec::new();
                let mut rest_at = None;
                for g in groups {
                    match g {
                        Group::Nodes(g) => {
                            let mut group = Vec::new();
                            for r in g {
                                group.push(n(r)?);
                            }
                            out.push(group);
                        }
                        Group::Rest => {
                            rest_at = Some(out.len());
                            out.push(Vec::new());
                        }
                    }
                }
                if let Some(i) = rest_at {
                    let total = self.sim.world().nodes.len() as NodeId;
                    let named: Vec<NodeId> = out.iter().flatten().copied().collect();
                    out[i] = (0..total).filter(|x| !named.contains(x)).collect();
                }
                out.retain(|g| !g.is_empty());
                (Action::Partition { groups: out }, None)
            }
            ActionSpec::Uncut { from, to } => (Action::Uncut { from: n(from)?, to: n(to)? }, None),
            ActionSpec::SlowLink { from, to, latency_ms } => {
                (Action::SlowLink { from: n(from)?, to: n(to)?, latency_ms: *latency_ms }, None)
            }
            ActionSpec::Cut { from, to } => (Action::Cut { from: n(from)?, to: n(to)? }, None),
            ActionSpec::Heal => (Action::Heal, None),
            ActionSpec::Network { latency_ms, loss, duplicate } => {
                (Action::Network { latency_ms: *latency_ms, loss: *loss, duplicate: *duplicate }, None)
            }
            ActionSpec::SlowDisk { node, flush_ms } => {
                let id = n(node)?;
                (Action::SlowDisk { node: id, flush_ms: *flush_ms }, Some(id))
            }
            ActionSpec::Resign => {
                let id = n(&NodeRef::Leader)?;
                (Action::Resign, Some(id))
            }
            ActionSpec::Workload { writes_per_second } => {
                (Action::Workload { writes_per_second: *writes_per_second }, None)
            }
            ActionSpec::Write { record } => (Action::Write { record: record.clone() }, None),
        })
    }

    // ---- the end ---------------------------------------------------------------------

    fn finish(self, spec: ClusterSpec, steps: Vec<StepReport>) -> Run {
        let expected: Vec<Invariant> = self
            .scenario
            .expect
            .iter()
            .filter_map(|e| match &e.expectation {
                Expectation::Violated(v) => Some(v.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let violations: Vec<ViolationReport> = self
            .sim
            .violations()
            .filter_map(|e| match &e.kind {
                EventKind::Violation { invariant, node, detail, .. } => Some(ViolationReport {
                    seq: e.seq,
                    t: e.t,
                    invariant: invariant.name(),
                    node: *node,
                    detail: detail.to_string(),
                    expected: expected.contains(invariant),
                }),
                _ => None,
            })
            .collect();
        let mut expectations: Vec<ExpectationReport> = self
            .scenario
            .expect
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let (passed, explanation) = self.evaluate(i, &e.expectation, &violations);
                ExpectationReport { index: i, kind: e.expectation.kind(), passed, explanation, note: e.note.clone() }
            })
            .collect();
        if let Some(why) = &self.stopped {
            let explanation = format!("the run stopped at {}: {why}", Seconds(self.sim.now()));
            expectations.push(ExpectationReport {
                index: expectations.len(),
                kind: "run",
                passed: false,
                explanation,
                note: None,
            });
        }
        let measurements: Vec<Measurement> = self.scenario.report.iter().map(|m| self.measure(m)).collect();
        let passed = steps.iter().all(|s| s.ok)
            && expectations.iter().all(|e| e.passed)
            && violations.iter().all(|v| v.expected);
        let report = Report {
            id: self.scenario.id.clone(),
            title: self.scenario.title.clone(),
            variant: self.scenario.variant.clone(),
            seed: spec.seed,
            unsafe_switches: spec.unsafe_switches.clone(),
            passed,
            end_ms: self.sim.now(),
            steps,
            expectations,
            violations,
            measurements,
            spec,
            inputs: self.sim.inputs().to_vec(),
            events: self.events.len(),
            digest: self.sim.digest().hex(),
        };
        Run { report, simulation: self.sim, events: self.events }
    }

    fn nodes_of(&self, sel: &NodeSel) -> Result<Vec<NodeId>, String> {
        let total = self.sim.world().nodes.len() as NodeId;
        let voters = self.sim.world().spec.voters;
        Ok(match sel {
            NodeSel::All => (0..total).collect(),
            NodeSel::Voters => (0..voters).collect(),
            NodeSel::Observers => (voters..total).collect(),
            NodeSel::Node(NodeRef::Id(n)) => vec![*n],
            NodeSel::Node(NodeRef::Label(l)) => vec![self
                .labels
                .get(l)
                .and_then(|i| i.subject)
                .ok_or_else(|| format!("step '{l}' did not happen or named no node"))?],
            NodeSel::Node(NodeRef::Follower) => {
                vec![super::cond::follower(self.sim.world()).ok_or("no voter follows a leader at the end")?]
            }
            NodeSel::Node(NodeRef::Leader) => {
                vec![self.sim.world().leader().map(|(id, _)| id).ok_or("there is no leader at the end")?]
            }
        })
    }

    fn window(&self, from: Option<&TimeRef>, to: Option<&TimeRef>) -> Result<(usize, usize, String), String> {
        let never = |t: &TimeRef| format!("{t} never happened");
        let a = match from {
            None => 0,
            Some(t) => self.index_from(t).ok_or_else(|| never(t))?,
        };
        let b = match to {
            None => self.events.len(),
            Some(t) => self.index_to(t).ok_or_else(|| never(t))?,
        };
        let text = match (from, to) {
            (None, None) => "in the whole run".to_string(),
            (Some(f), None) => format!("from {} ({f}) to the end", Seconds(self.time_of(f).unwrap_or(0))),
            (None, Some(t)) => format!("until {} ({t})", Seconds(self.time_of(t).unwrap_or(0))),
            (Some(f), Some(t)) => format!(
                "between {} ({f}) and {} ({t})",
                Seconds(self.time_of(f).unwrap_or(0)),
                Seconds(self.time_of(t).unwrap_or(0))
            ),
        };
        Ok((a, b.max(a), text))
    }

    fn matcher_resolve(&self) -> impl Fn(&str) -> Option<NodeId> + '_ {
        move |l: &str| self.labels.get(l).and_then(|i| i.subject)
    }

    fn evaluate(&self, index: usize, e: &Expectation, violations: &[ViolationReport]) -> (bool, String) {
        let trace = &self.events;
        match e {
            Expectation::LeaderElectedBy(by) => match first_leader(trace) {
                Some((t, node, epoch)) => (
                    t <= *by,
                    format!("leader n{node} elected at {} in epoch {epoch} (expected by {})", Seconds(t), Seconds(*by)),
                ),
                None => (false, format!("no leader was elected (expected by {})", Seconds(*by))),
            },
            Expectation::HwAtLeast { nodes, offset, by } => {
                let nodes = match self.nodes_of(nodes) {
                    Ok(n) => n,
                    Err(m) => return (false, m),
                };
                let Some(by_t) = self.time_of(by) else {
                    return (false, format!("{by} never happened"));
                };
                let mut ok = true;
                let mut parts = Vec::new();
                for n in nodes {
                    let reached = trace.iter().find_map(|e| match e.kind {
                        EventKind::HighWatermark { node, new, .. } if node == n && new >= *offset => Some(e.t),
                        _ => None,
                    });
                    match reached {
                        Some(t) => {
                            ok &= t <= by_t;
                            parts.push(format!("n{n} at {}", Seconds(t)));
                        }
                        None => {
                            ok = false;
                            let max = trace
                                .iter()
                                .filter_map(|e| match e.kind {
                                    EventKind::HighWatermark { node, new, .. } if node == n => Some(new),
                                    _ => None,
                                })
                                .max();
                            parts.push(format!(
                                "n{n} never (highest {})",
                                max.map(|m| m.to_string()).unwrap_or_else(|| "none".into())
                            ));
                        }
                    }
                }
                (ok, format!("HW >= {offset}: {} (expected by {})", parts.join(", "), Seconds(by_t)))
            }
            Expectation::Truncation { nodes, rounds, from, to } => {
                let nodes = match self.nodes_of(nodes) {
                    Ok(n) => n,
                    Err(m) => return (false, m),
                };
                let (a, b, wtext) = match self.window(from.as_ref(), to.as_ref()) {
                    Ok(w) => w,
                    Err(m) => return (false, m),
                };
                let mut ok = true;
                let mut parts = Vec::new();
                for n in nodes {
                    let truncs: Vec<String> = trace[a..b]
                        .iter()
                        .filter_map(|e| match &e.kind {
                            EventKind::Truncate { node, from_leo, to, diverging_epoch, .. } if *node == n => {
                                Some(format!(
                                    "{from_leo} -> {to} at {}{}",
                                    Seconds(e.t),
                                    diverging_epoch
                                        .map(|d| format!(" (diverging epoch {d})"))
                                        .unwrap_or_else(|| " (snapshot)".into())
                                ))
                            }
                            _ => None,
                        })
                        .collect();
                    ok &= truncs.len() as u64 >= *rounds;
                    if truncs.is_empty() {
                        parts.push(format!("n{n} never truncated"));
                    } else {
                        parts.push(format!(
                            "n{n} truncated {} time{}: {}",
                            truncs.len(),
                            if truncs.len() == 1 { "" } else { "s" },
                            truncs.join(", ")
                        ));
                    }
                }
                (ok, format!("{} {wtext} (expected at least {rounds} each)", parts.join("; ")))
            }
            Expectation::NoTruncation { nodes, from, to } => {
                let nodes = match self.nodes_of(nodes) {
                    Ok(n) => n,
                    Err(m) => return (false, m),
                };
                let (a, b, wtext) = match self.window(from.as_ref(), to.as_ref()) {
                    Ok(w) => w,
                    Err(m) => return (false, m),
                };
                let found: Vec<String> = trace[a..b]
                    .iter()
                    .filter(|e| matches!(&e.kind, EventKind::Truncate { node, .. } if nodes.contains(node)))
                    .map(|e| format!("{} {}", Seconds(e.t), e.kind))
                    .collect();
                if found.is_empty() {
                    (true, format!("no truncation {wtext}"))
                } else {
                    (false, format!("{} truncation(s) {wtext}: {}", found.len(), found.join("; ")))
                }
            }
            Expectation::Failover { from, within, at_least } => {
                let f = match self.failover(from.as_deref()) {
                    Ok(f) => f,
                    Err(m) => return (false, m),
                };
                let Some(total) = f.total() else {
                    return (
                        false,
                        format!(
                            "{} (expected a new leader{})",
                            f.text(),
                            match within {
                                Some(w) => format!(" within {}", Seconds(*w)),
                                None => String::new(),
                            }
                        ),
                    );
                };
                let mut ok = true;
                let mut want = Vec::new();
                if let Some(w) = within {
                    ok &= total <= *w;
                    want.push(format!("within {}", Seconds(*w)));
                }
                if let Some(a) = at_least {
                    ok &= total >= *a;
                    want.push(format!("no sooner than {}", Seconds(*a)));
                }
                (ok, format!("{} (expected {})", f.text(), want.join(" and ")))
            }
            Expectation::NoViolations => {
                if violations.is_empty() {
                    (true, "no invariant violated".into())
                } else {
                    let v = &violations[0];
                    (
                        false,
                        format!(
                            "{} violation(s); first {} at {}: {}",
                            violations.len(),
                            v.invariant,
                            Seconds(v.t),
                            v.detail
                        ),
                    )
                }
            }
            Expectation::Violated(names) => {
                let wanted: Vec<&str> = names.iter().map(|i| i.name()).collect();
                match violations.iter().find(|v| wanted.contains(&v.invariant)) {
                    Some(v) => {
                        let count = violations.iter().filter(|x| wanted.contains(&x.invariant)).count();
                        (
                            true,
                            format!(
                                "{} reported at {}{}: {}{}",
                                v.invariant,
                                Seconds(v.t),
                                v.node.map(|n| format!(" at n{n}")).unwrap_or_default(),
                                v.detail,
                                if count > 1 { format!(" ({count} reports in all)") } else { String::new() }
                            ),
                        )
                    }
                    None => {
                        let others: Vec<&str> = violations.iter().map(|v| v.invariant).collect();
                        (
                            false,
                            format!(
                                "{} was not reported{}",
                                wanted.join(" or "),
                                if others.is_empty() {
                                    " (no violations at all)".to_string()
                                } else {
                                    format!(" (reported instead: {})", others.join(", "))
                                }
                            ),
                        )
                    }
                }
            }
            Expectation::Eventually { condition, by, .. }
            | Expectation::Always { condition, to: Some(by), .. }
            | Expectation::Holds { condition, at: by } => self.monitor_result(index, condition, Some(by)),
            Expectation::Always { condition, to: None, .. } => self.monitor_result(index, condition, None),
            Expectation::Event { matcher, from, to, at_least, at_most } => {
                let (a, b, wtext) = match self.window(from.as_ref(), to.as_ref()) {
                    Ok(w) => w,
                    Err(m) => return (false, m),
                };
                let resolve = self.matcher_resolve();
                let found: Vec<&crate::trace::Event> =
                    trace[a..b].iter().filter(|e| matcher.matches(e, &resolve)).collect();
                let count = found.len() as u64;
                let ok = count >= *at_least && at_most.map(|m| count <= m).unwrap_or(true);
                let first =
                    found.first().map(|e| format!("; first at {}: {}", Seconds(e.t), e.kind)).unwrap_or_default();
                let want = match (at_least, at_most) {
                    (_, Some(0)) => "expected none".to_string(),
                    (l, Some(m)) => format!("expected {l} to {m}"),
                    (l, None) => format!("expected at least {l}"),
                };
                (ok, format!("{count} event(s) {matcher} {wtext} ({want}){first}"))
            }
            Expectation::Progress { from, to, at_least } => {
                let (a, b, wtext) = match self.window(Some(from), to.as_ref()) {
                    Ok(w) => w,
                    Err(m) => return (false, m),
                };
                let before = max_hw(&trace[..a]);
                let after = max_hw(&trace[..b]);
                let gained = after.unwrap_or(0).saturating_sub(before.unwrap_or(0));
                (
                    gained >= *at_least,
                    format!(
                        "highest HW went from {} to {} {wtext}: +{gained} (expected at least +{at_least})",
                        before.map(|h| h.to_string()).unwrap_or_else(|| "none".into()),
                        after.map(|h| h.to_string()).unwrap_or_else(|| "none".into()),
                    ),
                )
            }
            Expectation::Metadata { nodes, brokers, topics } => {
                self.metadata(nodes, brokers.as_deref(), topics.as_deref())
            }
        }
    }

    fn monitor_result(&self, index: usize, condition: &Condition, until: Option<&TimeRef>) -> (bool, String) {
        let Some(m) = self.monitors.iter().find(|m| m.expect_index == index) else {
            return (false, "not watched".into());
        };
        let until_t = until.and_then(|t| self.time_of(t));
        match m.kind {
            MonitorKind::Eventually => match m.hit {
                Some(t) => (
                    true,
                    format!(
                        "{condition}: held at {}{}",
                        Seconds(t),
                        until_t.map(|u| format!(" (expected by {})", Seconds(u))).unwrap_or_default()
                    ),
                ),
                None => (
                    false,
                    match until_t {
                        Some(u) => {
                            format!("{condition}: did not hold by {} ({})", Seconds(u), describe_world(&self.sim))
                        }
                        None => {
                            format!("{condition}: {} never happened", until.map(|t| t.to_string()).unwrap_or_default())
                        }
                    },
                ),
            },
            MonitorKind::Always => match &m.failed {
                Some((t, world)) => (false, format!("{condition}: stopped holding at {} ({world})", Seconds(*t))),
                None if m.checks == 0 => (false, format!("{condition}: the window never began")),
                None => (
                    true,
                    format!(
                        "{condition}: held at every one of {} moments checked{}",
                        m.checks,
                        match until_t {
                            Some(u) => format!(" until {}", Seconds(u)),
                            None => " until the end".into(),
                        }
                    ),
                ),
            },
            MonitorKind::Holds => match (m.hit, &m.failed) {
                (Some(t), None) => (true, format!("{condition}: held at {}", Seconds(t))),
                (Some(t), Some((_, world))) => {
                    (false, format!("{condition}: did not hold at {} ({world})", Seconds(t)))
                }
                _ => (
                    false,
                    format!("{condition}: {} was never reached", until.map(|t| t.to_string()).unwrap_or_default()),
                ),
            },
        }
    }

    fn metadata(&self, sel: &NodeSel, brokers: Option<&[u32]>, topics: Option<&[String]>) -> (bool, String) {
        let nodes = match self.nodes_of(sel) {
            Ok(n) => n,
            Err(m) => return (false, m),
        };
        let w = self.sim.world();
        let mut ok = true;
        let mut problems = Vec::new();
        let mut first: Option<(NodeId, &crate::protocol::MetadataImage)> = None;
        for n in &nodes {
            let Some(r) = w.nodes[*n as usize].replica.as_ref() else {
                ok = false;
                problems.push(format!("n{n} is crashed"));
                continue;
            };
            let img = r.image();
            if let Some(want) = brokers {
                let mut want = want.to_vec();
                want.sort_unstable();
                want.dedup();
                if *img.brokers != want {
                    ok = false;
                    problems.push(format!("n{n} has brokers {:?}", img.brokers));
                }
            }
            if let Some(want) = topics {
                let mut want: Vec<&str> = want.iter().map(|s| s.as_str()).collect();
                want.sort_unstable();
                want.dedup();
                let have: Vec<&str> = img.topics.keys().map(|k| &**k).collect();
                if have != want {
                    ok = false;
                    problems.push(format!("n{n} has topics {have:?}"));
                }
            }
            match first {
                None => first = Some((*n, img)),
                Some((f, fi)) => {
                    if fi != img {
                        ok = false;
                        problems.push(format!(
                            "n{n}'s image (applied to {}) differs from n{f}'s (applied to {})",
                            img.applied_offset, fi.applied_offset
                        ));
                    }
                }
            }
        }
        let Some((_, img)) = first else {
            return (false, problems.join("; "));
        };
        let topics_have: Vec<&str> = img.topics.keys().map(|k| &**k).collect();
        let summary = format!(
            "{} node(s) with brokers {:?}, topics {:?}, applied to offset {}",
            nodes.len(),
            img.brokers,
            topics_have,
            img.applied_offset
        );
        if ok {
            (true, format!("at the end: {summary}, all alike"))
        } else {
            (false, format!("{}; ({summary})", problems.join("; ")))
        }
    }

    // ---- failover and measurements ----------------------------------------------------

    fn failover(&self, from: Option<&str>) -> Result<FailoverInfo, String> {
        let (step_t, trace_index, old, what) = match from {
            Some(l) => {
                let info = self.labels.get(l).ok_or_else(|| format!("step '{l}' never happened"))?;
                let old = info
                    .leader_before
                    .ok_or_else(|| format!("there was no leader at step '{l}' ({})", Seconds(info.t)))?;
                (info.t, info.trace_index, old, format!("step '{l}'"))
            }
            None => {
                let (i, d) = self
                    .done
                    .iter()
                    .enumerate()
                    .filter_map(|(i, d)| d.as_ref().map(|d| (i, d)))
                    .find(|(_, d)| takes_leader_away(d))
                    .ok_or("no step took the leader away (crash, isolate, partition or resign)")?;
                let what = match self.scenario.steps[i].label.as_ref() {
                    Some(l) => format!("step '{l}'"),
                    None => format!("steps[{i}]"),
                };
                (d.t, d.trace_index, d.leader_before.expect("checked"), what)
            }
        };
        let trace = &self.events;
        let voters = self.sim.world().spec.voters;
        let mut info = FailoverInfo { what, step_t, old, detect: None, elected: None, commit: None };
        for e in &trace[trace_index..] {
            match &e.kind {
                EventKind::State { node, to, epoch, reason, .. } => {
                    if info.detect.is_none()
                        && info.elected.is_none()
                        && *node != old.0
                        && *node < voters
                        && matches!(to, StateName::Prospective | StateName::Candidate)
                    {
                        info.detect = Some((e.t, *node, reason.name()));
                    }
                    if info.elected.is_none() && *to == StateName::Leader && *epoch > old.1 {
                        info.elected = Some((e.t, *node, *epoch));
                    }
                }
                EventKind::HighWatermark { node, .. } => {
                    if let Some((_, l, _)) = info.elected {
                        if *node == l && info.commit.is_none() {
                            info.commit = Some(e.t);
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(info)
    }

    fn measure(&self, m: &Measure) -> Measurement {
        let trace = &self.events;
        let mut out = Measurement {
            kind: m.kind(),
            name: String::new(),
            text: String::new(),
            value_ms: None,
            count: None,
            parts: Vec::new(),
        };
        match m {
            Measure::FirstElection => {
                out.name = "first election".into();
                let first_timeout = trace.iter().find_map(|e| match &e.kind {
                    EventKind::State { node, to: StateName::Prospective | StateName::Candidate, .. } => {
                        Some((e.t, *node))
                    }
                    _ => None,
                });
                match first_leader(trace) {
                    Some((t, node, epoch)) => {
                        out.value_ms = Some(t);
                        let commit = trace.iter().find_map(|e| match e.kind {
                            EventKind::HighWatermark { node: n, .. } if n == node && e.t >= t => Some(e.t),
                            _ => None,
                        });
                        let wait = first_timeout.map(|(ft, _)| ft).unwrap_or(0).min(t);
                        out.parts.push(MeasurementPart { name: "waiting for an election timeout".into(), ms: wait });
                        out.parts.push(MeasurementPart { name: "pre-vote and vote".into(), ms: t - wait });
                        let mut text = format!(
                            "leader n{node} of epoch {epoch} at {} = {} until n{} timed out and started a pre-vote + {} to win the pre-vote and the vote",
                            Seconds(t),
                            Seconds(wait),
                            first_timeout.map(|(_, n)| n).unwrap_or(node),
                            Seconds(t - wait)
                        );
                        if let Some(c) = commit {
                            out.parts.push(MeasurementPart { name: "first commit (LeaderChange)".into(), ms: c - t });
                            text.push_str(&format!("; its LeaderChange record committed {} later", Seconds(c - t)));
                        }
                        out.text = text;
                    }
                    None => out.text = "no leader was elected".into(),
                }
            }
            Measure::Failover { from } => {
                out.name = match from {
                    Some(l) => format!("failover after '{l}'"),
                    None => "failover".into(),
                };
                match self.failover(from.as_deref()) {
                    Ok(f) => {
                        out.text = f.text();
                        out.value_ms = f.total();
                        if let (Some(d), Some(e)) = (f.detect, f.elected) {
                            out.parts.push(MeasurementPart { name: "detection".into(), ms: d.0 - f.step_t });
                            out.parts.push(MeasurementPart { name: "election".into(), ms: e.0 - d.0 });
                        }
                        if let (Some(e), Some(c)) = (f.elected, f.commit) {
                            out.parts.push(MeasurementPart { name: "first commit".into(), ms: c - e.0 });
                        }
                    }
                    Err(m) => out.text = m,
                }
            }
            Measure::HwReached { offset, nodes, from } => {
                out.name = format!("HW reaching {offset}");
                let base = from.as_ref().and_then(|t| self.time_of(t)).unwrap_or(0);
                let start = from.as_ref().and_then(|t| self.index_from(t)).unwrap_or(0);
                match self.nodes_of(nodes) {
                    Ok(ids) => {
                        let mut parts = Vec::new();
                        for n in ids {
                            let t = trace[start.min(trace.len())..].iter().find_map(|e| match e.kind {
                                EventKind::HighWatermark { node, new, .. } if node == n && new >= *offset => Some(e.t),
                                _ => None,
                            });
                            match t {
                                Some(t) => {
                                    out.parts.push(MeasurementPart { name: format!("n{n}"), ms: t - base });
                                    parts.push(format!("n{n} at {} (+{})", Seconds(t), Seconds(t - base)));
                                }
                                None => parts.push(format!("n{n} never")),
                            }
                        }
                        out.value_ms = out.parts.iter().map(|p| p.ms).max();
                        out.text = parts.join(", ");
                    }
                    Err(m) => out.text = m,
                }
            }
            Measure::Count { name, matcher, from, to } => {
                out.name = name.clone();
                match self.window(from.as_ref(), to.as_ref()) {
                    Ok((a, b, wtext)) => {
                        let resolve = self.matcher_resolve();
                        let found: Vec<&crate::trace::Event> =
                            trace[a..b].iter().filter(|e| matcher.matches(e, &resolve)).collect();
                        out.count = Some(found.len() as u64);
                        out.text = format!(
                            "{} {wtext}{}",
                            found.len(),
                            found
                                .first()
                                .map(|e| format!("; first at {}: {}", Seconds(e.t), e.kind))
                                .unwrap_or_default()
                        );
                    }
                    Err(m) => out.text = m,
                }
            }
            Measure::Interval { name, from, to } => {
                out.name = name.clone();
                match (self.time_of(from), self.time_of(to)) {
                    (Some(a), Some(b)) => {
                        out.value_ms = Some(b.saturating_sub(a));
                        out.text = format!("{} ({} to {})", Seconds(b.saturating_sub(a)), Seconds(a), Seconds(b));
                    }
                    _ => out.text = "one of the moments never happened".into(),
                }
            }
            Measure::Nodes => {
                out.name = "nodes at the end".into();
                out.text = describe_world(&self.sim);
            }
        }
        out
    }
}

fn from_index_fallback(events: &[crate::trace::Event], from: u64) -> usize {
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

fn first_leader(trace: &[crate::trace::Event]) -> Option<(u64, NodeId, Epoch)> {
    trace.iter().find_map(|e| match &e.kind {
        EventKind::State { node, to: StateName::Leader, epoch, .. } => Some((e.t, *node, *epoch)),
        _ => None,
    })
}

fn max_hw(trace: &[crate::trace::Event]) -> Option<u64> {
    trace
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::HighWatermark { new, .. } => Some(new),
            _ => None,
        })
        .max()
}

fn describe_action(a: &Action, leader: Option<(NodeId, Epoch)>, outcome: Option<crate::sim::WriteOutcome>) -> String {
    let role = |n: NodeId| match leader {
        Some((l, e)) if l == n => format!("n{n} (leader of epoch {e})"),
        _ => format!("n{n}"),
    };
    match a {
        Action::Crash { node } => format!("crash {}", role(*node)),
        Action::Wipe { node } => format!("crash {} and wipe its disk", role(*node)),
        Action::Restart { node } => format!("restart n{node}"),
        Action::Isolate { node } => format!("isolate {}", role(*node)),
        Action::Reconnect { node } => format!("reconnect n{node}"),
        Action::HealPartition => "heal the partition".into(),
        Action::ClearSlowLink { from, to } => format!("the link n{from} -> n{to} back at the network's latency"),
        Action::Partition { groups } => format!(
            "partition {}",
            groups
                .iter()
                .map(|g| format!("[{}]", g.iter().map(|n| format!("n{n}")).collect::<Vec<_>>().join(",")))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Action::Cut { from, to } => format!("cut n{from} -> n{to}"),
        Action::Uncut { from, to } => format!("restore the link n{from} -> n{to}"),
        Action::SlowLink { from, to, latency_ms } => {
            format!("slow the link n{from} -> n{to} to {}-{} ms", latency_ms[0], latency_ms[1])
        }
        Action::Heal => "heal the network".into(),
        Action::Network { latency_ms, loss, duplicate } => format!(
            "network latency {}..{} ms, loss {}%, duplicate {}%",
            latency_ms[0],
            latency_ms[1],
            loss * 100.0,
            duplicate * 100.0
        ),
        Action::SlowDisk { node, flush_ms } => {
            format!("disk of n{node}: flush takes {flush_ms} ms")
        }
        Action::Resign => match leader {
            Some((l, e)) => format!("leader n{l} resigns epoch {e}"),
            None => "resign (no leader)".into(),
        },
        Action::Workload { writes_per_second } => format!("workload {writes_per_second} writes/s"),
        Action::Write { record } => {
            let kind = record.as_ref().map(|r| r.kind()).unwrap_or("a random record");
            match outcome {
                Some(crate::sim::WriteOutcome::Accepted { node, offset }) => {
                    format!("write {kind}: accepted by n{node} at offset {offset}")
                }
                Some(crate::sim::WriteOutcome::Rejected { reason }) => {
                    format!("write {kind}: rejected ({reason})")
                }
                None => format!("write {kind}"),
            }
        }
    }
}

struct FailoverInfo {
    what: String,
    step_t: u64,
    old: (NodeId, Epoch),
    detect: Option<(u64, NodeId, &'static str)>,
    elected: Option<(u64, NodeId, Epoch)>,
    commit: Option<u64>,
}

impl FailoverInfo {
    fn total(&self) -> Option<u64> {
        self.elected.map(|(t, _, _)| t - self.step_t)
    }

    fn text(&self) -> String {
        let head =
            format!("{} at {} (leader n{} of epoch {})", self.what, Seconds(self.step_t), self.old.0, self.old.1);
        let Some((et, leader, epoch)) = self.elected else {
            return format!("{head}: no newer leader was elected");
        };
        let mut s =
            format!("{head}: n{leader} leads epoch {epoch} at {}, failover {}", Seconds(et), Seconds(et - self.step_t));
        if let Some((dt, node, reason)) = self.detect {
            s.push_str(&format!(
                " = detection {} (n{node} {reason} at {}) + election {}",
                Seconds(dt - self.step_t),
                Seconds(dt),
                Seconds(et - dt)
            ));
        }
        if let Some(c) = self.commit {
            s.push_str(&format!("; first commit {} later", Seconds(c - et)));
        }
        s
    }
}
