//! A run you can scrub: the world plus its trace, its input log and checkpoints.
//! Seeking back restores the nearest earlier checkpoint and replays the input log; an
//! action taken while seeked back forks the future (later inputs are dropped).

use super::spec::{Action, ClusterSpec, TimedAction};
use super::world::{World, WriteOutcome};
use crate::trace::{Digest, Event, EventKind};

/// A world snapshot every this many simulated ms (spacing doubles as runs grow long).
const CHECKPOINT_EVERY_MS: u64 = 5_000;
/// Checkpoints kept at most; past it every other one is dropped.
const MAX_CHECKPOINTS: usize = 64;
/// Longest a single advance may span, in simulated ms (a day).
pub const MAX_ADVANCE_MS: u64 = 86_400_000;

/// An error that names the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl From<(String, String)> for SimError {
    fn from((field, message): (String, String)) -> Self {
        SimError { field, message }
    }
}

#[derive(Clone)]
struct Checkpoint {
    world: World,
    applied_inputs: usize,
    trace_len: usize,
}

pub struct Simulation {
    spec: ClusterSpec,
    world: World,
    trace: Vec<Event>,
    inputs: Vec<TimedAction>,
    applied_inputs: usize,
    checkpoints: Vec<Checkpoint>,
    checkpoint_every: u64,
    violations: usize,
}

impl Simulation {
    pub fn new(spec: ClusterSpec) -> Result<Simulation, SimError> {
        let resolved = spec.resolve()?;
        let world = World::new(resolved);
        let mut sim = Simulation {
            spec,
            world,
            trace: Vec::new(),
            inputs: Vec::new(),
            applied_inputs: 0,
            checkpoints: Vec::new(),
            checkpoint_every: CHECKPOINT_EVERY_MS,
            violations: 0,
        };
        sim.collect();
        sim.checkpoints.push(sim.checkpoint());
        Ok(sim)
    }

    /// Rebuilds a run from its description (a shared link): same spec, same inputs.
    pub fn replay(
        spec: ClusterSpec,
        inputs: Vec<TimedAction>,
        until: u64,
    ) -> Result<Simulation, SimError> {
        let mut sim = Simulation::new(spec)?;
        let n = sim.world.spec.node_count();
        for (i, input) in inputs.iter().enumerate() {
            input.action.validate(n).map_err(|(f, m)| SimError {
                field: format!("inputs[{i}].{f}"),
                message: m,
            })?;
            if i > 0 && input.t < inputs[i - 1].t {
                return Err(SimError {
                    field: format!("inputs[{i}].t"),
                    message: "inputs must be in time order".into(),
                });
            }
        }
        sim.inputs = inputs;
        sim.run_to(until);
        Ok(sim)
    }

    pub fn spec(&self) -> &ClusterSpec {
        &self.spec
    }
    pub fn world(&self) -> &World {
        &self.world
    }
    pub fn now(&self) -> u64 {
        self.world.now
    }
    pub fn trace(&self) -> &[Event] {
        &self.trace
    }
    /// The input log up to now (what a link must carry).
    pub fn inputs(&self) -> &[TimedAction] {
        &self.inputs[..self.applied_inputs]
    }
    /// Inputs recorded beyond now (after a seek back, before any new action).
    pub fn future_inputs(&self) -> &[TimedAction] {
        &self.inputs[self.applied_inputs..]
    }
    pub fn violation_count(&self) -> usize {
        self.violations
    }
    pub fn violations(&self) -> impl Iterator<Item = &Event> {
        self.trace
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Violation { .. }))
    }

    /// Digest of the whole trace so far.
    pub fn digest(&self) -> Digest {
        let mut d = Digest::default();
        for e in &self.trace {
            d.add(e);
        }
        d
    }

    /// Events with seq > `since`.
    pub fn events_since(&self, since: u64) -> &[Event] {
        let i = self.trace.partition_point(|e| e.seq <= since);
        &self.trace[i..]
    }

    /// Events with from <= t <= to.
    pub fn events_between(&self, from: u64, to: u64) -> &[Event] {
        let a = self.trace.partition_point(|e| e.t < from);
        let b = self.trace.partition_point(|e| e.t <= to);
        &self.trace[a..b.max(a)]
    }

    fn collect(&mut self) {
        for e in self.world.events.drain(..) {
            if matches!(e.kind, EventKind::Violation { .. }) {
                self.violations += 1;
            }
            self.trace.push(e);
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            world: self.world.clone(),
            applied_inputs: self.applied_inputs,
            trace_len: self.trace.len(),
        }
    }

    fn next_checkpoint_time(&self) -> u64 {
        let last = self.checkpoints.last().map(|c| c.world.now).unwrap_or(0);
        (last / self.checkpoint_every + 1) * self.checkpoint_every
    }

    fn take_checkpoint(&mut self) {
        self.checkpoints.push(self.checkpoint());
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            // Keep the first and every other one after it; spacing doubles.
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.checkpoint_every *= 2;
        }
    }

    /// Advances simulated time by `ms`, replaying recorded future inputs on the way.
    pub fn advance(&mut self, ms: u64) -> Result<(), SimError> {
        if ms > MAX_ADVANCE_MS {
            return Err(SimError {
                field: "ms".into(),
                message: format!("must be at most {MAX_ADVANCE_MS} (a day), got {ms}"),
            });
        }
        let target = self.world.now + ms;
        self.run_to(target);
        Ok(())
    }

    /// Runs to the time of the next queued event (all events at that millisecond).
    pub fn step(&mut self) -> bool {
        let next_input = self.inputs.get(self.applied_inputs).map(|i| i.t);
        let next = match (self.world.next_event_time(), next_input) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => return false,
            },
        };
        self.run_to(next.max(self.world.now));
        true
    }

    fn run_to(&mut self, target: u64) {
        loop {
            let cp = self.next_checkpoint_time();
            let stop = target.min(cp);
            while let Some(input) = self.inputs.get(self.applied_inputs) {
                if input.t > stop {
                    break;
                }
                let input = input.clone();
                self.world.run_until(input.t);
                self.world.apply(&input.action);
                self.applied_inputs += 1;
                self.collect();
            }
            self.world.run_until(stop);
            self.collect();
            if stop == cp
                && self
                    .checkpoints
                    .last()
                    .map(|c| c.world.now < cp)
                    .unwrap_or(true)
            {
                self.take_checkpoint();
            }
            if stop >= target {
                return;
            }
        }
    }

    /// Does something now. Validates first: a bad action changes nothing. Taken while
    /// seeked back, it cuts off the recorded future.
    pub fn act(&mut self, action: Action) -> Result<Option<WriteOutcome>, SimError> {
        action.validate(self.world.spec.node_count())?;
        self.inputs.truncate(self.applied_inputs);
        let now = self.world.now;
        self.checkpoints.retain(|c| c.world.now <= now);
        let outcome = self.world.apply(&action);
        self.inputs.push(TimedAction { t: now, action });
        self.applied_inputs += 1;
        self.collect();
        Ok(outcome)
    }

    /// Moves to time `t`, back or forward. Going back keeps the recorded inputs, so
    /// seeking forward again reproduces the same run.
    pub fn seek(&mut self, t: u64) -> Result<(), SimError> {
        if t > self.world.now + MAX_ADVANCE_MS {
            return Err(SimError {
                field: "t".into(),
                message: format!("cannot seek more than a day ahead (asked {t})"),
            });
        }
        if t < self.world.now {
            let i = self.checkpoints.partition_point(|c| c.world.now <= t);
            let cp = self.checkpoints[i.saturating_sub(1)].clone();
            self.world = cp.world;
            self.applied_inputs = cp.applied_inputs;
            self.trace.truncate(cp.trace_len);
            self.violations = self.violations().count();
            self.checkpoints.truncate(i.max(1));
        }
        self.run_to(t);
        Ok(())
    }

    /// Bytes held by checkpoints, roughly (for the memory benchmark).
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }
}
