//! A run you can scrub: the world plus its trace, its input log and checkpoints.
//! Seeking back restores the nearest earlier checkpoint and replays the input log; an
//! action taken while seeked back forks the future (later inputs are dropped).

use super::budget::{MemoryUsage, CHECK_EVERY_MS, EVENT_BYTES};
use super::spec::{Action, ClusterSpec, TimedAction};
use super::world::{World, WriteOutcome};
use crate::trace::{Digest, Event, EventKind};
use std::borrow::Cow;

/// A world snapshot every this many simulated ms (spacing doubles as runs grow long).
const CHECKPOINT_EVERY_MS: u64 = 20_000;
/// Checkpoints kept at most; past it every other one is dropped (spacing doubles). An
/// hour-long run keeps a checkpoint within 20 simulated seconds of any moment.
const MAX_CHECKPOINTS: usize = 200;
/// Most recent events kept in memory; older ones are regenerated from a checkpoint when
/// asked for (a run is deterministic, so they come back byte for byte).
const WINDOW_MAX_EVENTS: usize = 200_000;
/// Most events one regeneration returns.
pub const MAX_EVENTS_PER_QUERY: usize = 100_000;
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

/// A clone of the world: it shares the logs, images and checker maps with the live
/// world and the other checkpoints (see `shared`), and copies the rest (`own_bytes`).
#[derive(Clone)]
struct Checkpoint {
    world: World,
    own_bytes: u64,
    applied_inputs: usize,
    digest: Digest,
    /// Violations found before the checkpoint (few: the checker caps its reports).
    violations: Vec<Event>,
}

pub struct Simulation {
    spec: ClusterSpec,
    world: World,
    /// The most recent events, contiguous up to now; `window[0].seq == window_first_seq`.
    window: Vec<Event>,
    window_first_seq: u64,
    /// Over every event of the run so far, not just the window.
    digest: Digest,
    violations: Vec<Event>,
    /// The startup events, emitted before the first checkpoint (so never regenerated).
    prelude: Vec<Event>,
    inputs: Vec<TimedAction>,
    applied_inputs: usize,
    checkpoints: Vec<Checkpoint>,
    checkpoint_every: u64,
    /// The furthest time this timeline has been run to: seeking up to it redoes work
    /// already done, so the memory budget does not stop it.
    reached: u64,
}

/// Runs `world` to `target`, applying the inputs from `*applied` on; every event goes
/// to `sink`; `at_boundary` is called at each multiple of `every` (for checkpoints).
fn drive(
    world: &mut World,
    inputs: &[TimedAction],
    applied: &mut usize,
    target: u64,
    sink: &mut dyn FnMut(Event),
    next_boundary: &mut dyn FnMut(u64) -> Option<u64>,
    at_boundary: &mut dyn FnMut(&World, usize),
) {
    loop {
        let boundary = next_boundary(world.now);
        let stop = boundary.map(|b| b.min(target)).unwrap_or(target);
        while let Some(input) = inputs.get(*applied) {
            if input.t > stop {
                break;
            }
            world.run_until(input.t);
            world.apply(&input.action);
            *applied += 1;
            world.events.drain(..).for_each(&mut *sink);
        }
        world.run_until(stop);
        world.events.drain(..).for_each(&mut *sink);
        if Some(stop) == boundary {
            at_boundary(world, *applied);
        }
        if stop >= target {
            return;
        }
    }
}

impl Simulation {
    pub fn new(spec: ClusterSpec) -> Result<Simulation, SimError> {
        let resolved = spec.resolve()?;
        let world = World::new(resolved);
        let mut sim = Simulation {
            spec,
            world,
            window: Vec::new(),
            window_first_seq: 1,
            digest: Digest::default(),
            violations: Vec::new(),
            prelude: Vec::new(),
            inputs: Vec::new(),
            applied_inputs: 0,
            checkpoints: Vec::new(),
            checkpoint_every: CHECKPOINT_EVERY_MS,
            reached: 0,
        };
        let events: Vec<Event> = sim.world.events.drain(..).collect();
        sim.prelude = events.clone();
        for e in events {
            sim.record(e);
        }
        sim.checkpoints.push(sim.checkpoint());
        Ok(sim)
    }

    /// Rebuilds a run from its description (a shared link): same spec, same inputs.
    pub fn replay(spec: ClusterSpec, inputs: Vec<TimedAction>, until: u64) -> Result<Simulation, SimError> {
        Simulation::replay_with(spec, inputs, until, true)
    }

    /// Like `replay`, for runs nobody will scrub (sweeps, scenario checks): no
    /// checkpoints are taken after the first, so `seek` back replays from the start.
    pub fn replay_once(spec: ClusterSpec, inputs: Vec<TimedAction>, until: u64) -> Result<Simulation, SimError> {
        Simulation::replay_with(spec, inputs, until, false)
    }

    fn replay_with(
        spec: ClusterSpec,
        inputs: Vec<TimedAction>,
        until: u64,
        time_travel: bool,
    ) -> Result<Simulation, SimError> {
        let mut sim = Simulation::new(spec)?;
        if !time_travel {
            sim.checkpoint_every = u64::MAX;
        }
        let n = sim.world.spec.node_count();
        for (i, input) in inputs.iter().enumerate() {
            input.action.validate(n).map_err(|(f, m)| SimError { field: format!("inputs[{i}].{f}"), message: m })?;
            if i > 0 && input.t < inputs[i - 1].t {
                return Err(SimError {
                    field: format!("inputs[{i}].t"),
                    message: "inputs must be in time order".into(),
                });
            }
        }
        if until > MAX_ADVANCE_MS {
            return Err(SimError {
                field: "t".into(),
                message: format!("must be at most {MAX_ADVANCE_MS} (a day), got {until}"),
            });
        }
        sim.inputs = inputs;
        sim.run_to_within_budget(until)?;
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
    /// The events kept in memory: the most recent ones (all of them for runs of up to
    /// 200,000 events). Older ones: `events_between` / `events_since` regenerate them.
    pub fn trace(&self) -> &[Event] {
        &self.window
    }
    /// Sequence number of the last event so far (0 before any).
    pub fn last_seq(&self) -> u64 {
        self.world.events_emitted()
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
        self.violations.len()
    }
    pub fn violations(&self) -> impl Iterator<Item = &Event> {
        self.violations.iter()
    }
    /// Digest of the whole trace so far.
    pub fn digest(&self) -> Digest {
        self.digest
    }
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    fn record(&mut self, e: Event) {
        self.digest.add(&e);
        if matches!(e.kind, EventKind::Violation { .. }) {
            self.violations.push(e.clone());
        }
        if self.window.is_empty() {
            self.window_first_seq = e.seq;
        }
        self.window.push(e);
        if self.window.len() > WINDOW_MAX_EVENTS {
            let drop = self.window.len() / 2;
            self.window.drain(..drop);
            self.window_first_seq = self.window[0].seq;
        }
    }

    /// What this run holds, by holder; `check()` says whether it is within the budget.
    pub fn memory(&self) -> MemoryUsage {
        let checkpoints = self.checkpoints.iter().map(|c| c.own_bytes).sum();
        let events = (self.window.len() + self.prelude.len() + self.violations.len()) as u64 * EVENT_BYTES;
        MemoryUsage::new(self.world.meter(), checkpoints, events)
    }

    /// Runs to `target` in steps of whole simulated seconds, checking the memory budget
    /// before each: over it, the run stops there and the error says what is over.
    fn run_to_within_budget(&mut self, target: u64) -> Result<(), SimError> {
        loop {
            if self.world.now >= self.reached {
                self.memory().check().map_err(|e| SimError {
                    field: e.field,
                    message: format!("stopped at {} ms: {}", self.world.now, e.message),
                })?;
            }
            let step = target.min((self.world.now / CHECK_EVERY_MS + 1) * CHECK_EVERY_MS);
            self.run_to(step);
            self.reached = self.reached.max(step);
            if step >= target {
                return Ok(());
            }
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            own_bytes: self.world.unshared_bytes(),
            world: self.world.clone(),
            applied_inputs: self.applied_inputs,
            digest: self.digest,
            violations: self.violations.clone(),
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
        self.run_to_within_budget(target)
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
        let mut pending: Vec<Event> = Vec::new();
        let mut new_checkpoints: Vec<(World, usize)> = Vec::new();
        let every = self.checkpoint_every;
        let last_cp = std::cell::Cell::new(self.checkpoints.last().map(|c| c.world.now).unwrap_or(0));
        drive(
            &mut self.world,
            &self.inputs,
            &mut self.applied_inputs,
            target,
            &mut |e| pending.push(e),
            &mut |_| Some((last_cp.get() / every + 1) * every),
            &mut |w, applied| {
                last_cp.set(w.now);
                new_checkpoints.push((w.clone(), applied));
            },
        );
        // Record events and checkpoints in order: a checkpoint's digest covers exactly
        // the events emitted before it.
        let mut events = pending.into_iter().peekable();
        for (cp_world, cp_applied) in new_checkpoints {
            let upto = cp_world.events_emitted();
            while events.peek().map(|e| e.seq <= upto).unwrap_or(false) {
                let e = events.next().expect("peeked");
                self.record(e);
            }
            let violations = self.violations.clone();
            self.checkpoints.push(Checkpoint {
                own_bytes: cp_world.unshared_bytes(),
                world: cp_world,
                applied_inputs: cp_applied,
                digest: self.digest,
                violations,
            });
            if self.checkpoints.len() > MAX_CHECKPOINTS {
                let mut i = 0;
                self.checkpoints.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.checkpoint_every = self.checkpoint_every.saturating_mul(2);
            }
        }
        for e in events {
            self.record(e);
        }
    }

    /// Does something now. Validates first: a bad action changes nothing. Taken while
    /// seeked back, it cuts off the recorded future.
    pub fn act(&mut self, action: Action) -> Result<Option<WriteOutcome>, SimError> {
        action.validate(self.world.spec.node_count())?;
        self.memory().check()?;
        self.inputs.truncate(self.applied_inputs);
        let now = self.world.now;
        self.reached = now;
        self.checkpoints.retain(|c| c.world.now <= now);
        let outcome = self.world.apply(&action);
        self.inputs.push(TimedAction { t: now, action });
        self.applied_inputs += 1;
        let events: Vec<Event> = self.world.events.drain(..).collect();
        for e in events {
            self.record(e);
        }
        Ok(outcome)
    }

    /// Moves to time `t`, back or forward. Going back keeps the recorded inputs, so
    /// seeking forward again reproduces the same run. Checkpoints ahead of now (kept
    /// from before a seek back) are used to jump.
    pub fn seek(&mut self, t: u64) -> Result<(), SimError> {
        if t > self.world.now.saturating_add(MAX_ADVANCE_MS) {
            return Err(SimError {
                field: "t".into(),
                message: format!("cannot seek more than a day ahead (asked {t})"),
            });
        }
        let i = self.checkpoints.partition_point(|c| c.world.now <= t);
        let cp = &self.checkpoints[i.saturating_sub(1)];
        if t < self.world.now || cp.world.now > self.world.now {
            let cp = cp.clone();
            let cp_seq = cp.world.events_emitted();
            let last_kept = self.window_first_seq + self.window.len() as u64;
            if !self.window.is_empty() && cp_seq + 1 >= self.window_first_seq && cp_seq < last_kept {
                self.window.truncate((cp_seq + 1 - self.window_first_seq) as usize);
            } else {
                self.window.clear();
                self.window_first_seq = cp_seq + 1;
            }
            self.world = cp.world;
            self.applied_inputs = cp.applied_inputs;
            self.digest = cp.digest;
            self.violations = cp.violations;
        }
        self.run_to_within_budget(t)
    }

    /// Replays from the checkpoint before `from_t` (or holding `after_seq`) on a copy of
    /// the world, handing each event to `keep` until it says stop.
    fn regenerate(&self, cp_index: usize, until: u64, keep: &mut dyn FnMut(&Event) -> bool) {
        let cp = &self.checkpoints[cp_index];
        let mut world = cp.world.clone();
        let mut applied = cp.applied_inputs;
        let mut done = false;
        drive(
            &mut world,
            &self.inputs[..self.applied_inputs],
            &mut applied,
            until,
            &mut |e| {
                if !done {
                    done = !keep(&e);
                }
            },
            &mut |_| None,
            &mut |_, _| {},
        );
    }

    /// Events with seq > `since` (at most MAX_EVENTS_PER_QUERY of them).
    pub fn events_since(&self, since: u64) -> Cow<'_, [Event]> {
        if since + 1 >= self.window_first_seq || self.window_first_seq == 1 {
            let i = self.window.partition_point(|e| e.seq <= since);
            let end = (i + MAX_EVENTS_PER_QUERY).min(self.window.len());
            return Cow::Borrowed(&self.window[i..end]);
        }
        let ci = self.checkpoints.partition_point(|c| c.world.events_emitted() <= since).saturating_sub(1);
        let mut out: Vec<Event> =
            if ci == 0 { self.prelude.iter().filter(|e| e.seq > since).cloned().collect() } else { Vec::new() };
        self.regenerate(ci, self.world.now, &mut |e| {
            if e.seq > since {
                out.push(e.clone());
            }
            out.len() < MAX_EVENTS_PER_QUERY
        });
        Cow::Owned(out)
    }

    /// Events with from <= t <= to (at most MAX_EVENTS_PER_QUERY of them).
    pub fn events_between(&self, from: u64, to: u64) -> Cow<'_, [Event]> {
        let to = to.min(self.world.now);
        let in_window = self.window_first_seq == 1 || self.window.first().map(|e| e.t < from).unwrap_or(false);
        if in_window || from > to {
            let a = self.window.partition_point(|e| e.t < from);
            let b = self.window.partition_point(|e| e.t <= to).max(a);
            let b = b.min(a + MAX_EVENTS_PER_QUERY);
            return Cow::Borrowed(&self.window[a..b]);
        }
        let ci = self.checkpoints.partition_point(|c| c.world.now < from).saturating_sub(1);
        let mut out: Vec<Event> = if ci == 0 {
            self.prelude.iter().filter(|e| e.t >= from && e.t <= to).cloned().collect()
        } else {
            Vec::new()
        };
        self.regenerate(ci, to, &mut |e| {
            if e.t >= from && e.t <= to {
                out.push(e.clone());
            }
            out.len() < MAX_EVENTS_PER_QUERY
        });
        Cow::Owned(out)
    }
}
