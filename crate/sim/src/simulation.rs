//! A run you can scrub: the world plus its trace, its input log and checkpoints.
//! Seeking back restores the nearest earlier checkpoint and replays the input log; an
//! action taken while seeked back forks the future (later inputs are dropped).
//!
//! An action is an input like any other: `act` appends it to the input log at now and
//! runs to now, so live play, replay, seek and regeneration all go through
//! `World::run_step` and its ordering rule (see `world`), and a run and its replay are
//! the same run by construction. A run streams: each step's events go straight into the
//! bounded window and checkpoints are taken as the run passes their times, so one long
//! `advance` costs memory for the window and the checkpoints, not for its span.

use super::budget::{History, MemoryUsage, CHECK_EVERY_MS, EVENT_BYTES};
use super::error::SimError;
use super::spec::{Action, ClusterSpec, TimedAction};
use super::view::NodeView;
use super::world::{Livelock, RunStep, World, WriteOutcome};
use crate::lanes::{LaneState, Lanes, Projector, Span};
use crate::limits::{LANES_EVENTS, LANES_SPAN_MS};
use crate::trace::{Digest, Event, EventKind};
use kraft_boundary::Protocol;
use kraft_protocol::KRaft;
use std::borrow::Cow;
use std::collections::VecDeque;

/// A world snapshot every this many simulated ms (spacing doubles as runs grow long).
const CHECKPOINT_EVERY_MS: u64 = 10_000;
/// Checkpoints kept at most; past it every other one is dropped (spacing doubles). An
/// hour-long run keeps a checkpoint within 10 simulated seconds of any moment (a scrub
/// step replays at most 10 s to get there and 10 s to regenerate the window before it).
const MAX_CHECKPOINTS: usize = 400;
/// Most recent events kept in memory; older ones are regenerated from a checkpoint when
/// asked for (a run is deterministic, so they come back byte for byte).
const WINDOW_MAX_EVENTS: usize = 200_000;
/// A window this full is taken to be on its way to the maximum: it is then given room
/// for all of it at once, so reaching the maximum copies its events once more instead of
/// on every doubling (in wasm, where `realloc` cannot remap pages, those copies cost 3%
/// of the reference workload). Its capacity ends lower than doubling's (262,144 events).
const WINDOW_RESERVE_AT: usize = WINDOW_MAX_EVENTS / 8;
/// Most events one regeneration returns.
pub const MAX_EVENTS_PER_QUERY: usize = 100_000;
/// Longest a single advance may span, in simulated ms (a day): `limits::ADVANCE_MS`.
pub const MAX_ADVANCE_MS: u64 = crate::limits::ADVANCE_MS.upper();
/// How many checkpoints back a projection looks for one whose messages on the wire all
/// ended before its window (so it reads their sends); past it, it starts without them.
const LANES_LOOK_BACK: usize = 8;

/// A clone of the world: it shares the logs, images and checker maps with the live
/// world and the other checkpoints (see `shared`), and copies the rest (`own_bytes`).
#[derive(Clone)]
struct Checkpoint<P: Protocol> {
    world: World<P>,
    own_bytes: u64,
    applied_inputs: usize,
    digest: Digest,
    /// Violations found before the checkpoint (few: the checker caps its reports).
    violations: Vec<Event<P>>,
    /// The timeline's lanes as they were here (`lanes`).
    lanes: LaneState<P>,
}

/// A run of protocol `P`. KRaft's, the playground's, is `Simulation` (`kraft.rs`): this
/// type behind methods compiled once.
pub struct Run<P: Protocol> {
    spec: ClusterSpec,
    world: World<P>,
    /// The most recent events, contiguous up to now; `window[0].seq == window_first_seq`.
    window: Vec<Event<P>>,
    window_first_seq: u64,
    /// Over every event of the run so far, not just the window.
    digest: Digest,
    violations: Vec<Event<P>>,
    /// The startup events, emitted before the first checkpoint (so never regenerated).
    prelude: Vec<Event<P>>,
    inputs: Vec<TimedAction>,
    applied_inputs: usize,
    checkpoints: Vec<Checkpoint<P>>,
    checkpoint_every: u64,
    /// The furthest time this timeline has been run to: seeking up to it redoes work
    /// already done, so the memory budget does not stop it.
    reached: u64,
    /// A run rebuilt at an earlier time than its description reached (`replay_at`): the
    /// time it reached, the end of its recorded future until an action forks it (0 then).
    described: u64,
    /// How many actions cut off a recorded future (`forks`).
    forks: u64,
    /// The timeline's lanes after every event recorded so far (`lanes::LaneState`).
    lanes: LaneState<P>,
}

/// A copy of the world replaying the run from a checkpoint one moment at a time, so a
/// reader stops as soon as it has what it wants instead of replaying to the end.
struct Replay<P: Protocol> {
    world: World<P>,
    applied: usize,
}

impl<P: Protocol> Replay<P> {
    fn from(cp: &Checkpoint<P>) -> Replay<P> {
        Replay { world: cp.world.clone(), applied: cp.applied_inputs }
    }

    /// Runs the next moment's events or the next input (at most `until`), as the run
    /// did (`World::run_step`), handing its events to `sink`. False once the replay has
    /// reached `until`.
    fn step(&mut self, inputs: &[TimedAction], until: u64, sink: &mut dyn FnMut(Event<P>)) -> bool {
        // A prefix of a run that completed: it cannot livelock (the run would have).
        let step = self.world.run_step(inputs, &mut self.applied, until);
        self.world.events.drain(..).for_each(sink);
        matches!(step, Ok(RunStep::Ran | RunStep::Applied(_)))
    }
}

/// Why a run stopped before its target.
enum Halt {
    /// A zero-time loop: the run must be put back where the call found it.
    Livelock(Livelock),
    /// Over the memory budget: the run stays where it stopped (a whole second).
    Budget(SimError),
}

/// Reads a run's trace a page at a time (`Run::trace_page`): from the in-memory
/// window where it holds the events, else from a replay that each page continues, so
/// reading a whole trace costs at most one replay of the run, not one per page.
pub struct TraceCursor<P: Protocol = KRaft> {
    /// The run read: its last seq and digest when the cursor was opened.
    run: (u64, Digest),
    /// Seq of the last event handed out (at first: the `since` asked for).
    after: u64,
    replay: Option<Replay<P>>,
    /// Events the replay made past the last page (the rest of its last moment).
    pending: VecDeque<Event<P>>,
}

impl<P: Protocol> Run<P> {
    /// A run of protocol `P` from `spec`, with what is due at its start run.
    pub fn create(spec: ClusterSpec) -> Result<Run<P>, SimError> {
        let resolved = spec.resolve::<P>()?;
        let world = World::new(resolved);
        let spec_nodes = world.spec.node_count() as usize;
        let mut sim = Run {
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
            described: 0,
            forks: 0,
            lanes: LaneState::new(spec_nodes),
        };
        // What is due at startup runs now, as after every call: no call ever leaves
        // anything due at or before now, so a run can always be put back where a call
        // found it.
        sim.run_to(0).map_err(|l| SimError { field: String::new(), message: format!("{l}; nothing was created") })?;
        sim.prelude = sim.window.clone();
        sim.checkpoints.push(sim.checkpoint());
        Ok(sim)
    }

    /// Like `replay_with` to `until` (time travel on), but put at the earlier time `at` as
    /// `seek(at)` would leave it, without running on first: the run up to `until` is its
    /// recorded future (a story opened at its start).
    pub fn replay_at(spec: ClusterSpec, inputs: Vec<TimedAction>, until: u64, at: u64) -> Result<Run<P>, SimError> {
        let mut sim = Run::replay_with(spec, inputs, at.min(until), true)?;
        sim.described = until;
        Ok(sim)
    }

    /// Rebuilds a run from its description: same spec, same inputs, run to `until`.
    /// Without `time_travel` no checkpoints are taken after the first, for runs nobody
    /// will scrub: `seek` back replays from the start.
    pub fn replay_with(
        spec: ClusterSpec,
        inputs: Vec<TimedAction>,
        until: u64,
        time_travel: bool,
    ) -> Result<Run<P>, SimError> {
        let mut sim = Run::create(spec)?;
        if !time_travel {
            sim.checkpoint_every = u64::MAX;
        }
        // Each input against the cluster as the inputs before it leave it (`addController`
        // grows it): a validated run never refuses an input on its way.
        let mut n = sim.world.spec.node_count();
        let quorum = sim.world.spec.quorum;
        for (i, input) in inputs.iter().enumerate() {
            input
                .action
                .validate(n, quorum)
                .map_err(|(f, m)| SimError { field: format!("inputs[{i}].{f}"), message: m })?;
            n = input.action.nodes_after(n);
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
        sim.run_to_within_budget(until).map_err(|h| match h {
            Halt::Livelock(l) => SimError { field: "t".into(), message: format!("{l}; nothing was created") },
            Halt::Budget(e) => e,
        })?;
        Ok(sim)
    }

    pub fn spec(&self) -> &ClusterSpec {
        &self.spec
    }
    pub fn world(&self) -> &World<P> {
        &self.world
    }
    pub fn now(&self) -> u64 {
        self.world.now
    }
    /// The events kept in memory: the most recent ones (all of them for runs of up to
    /// 200,000 events). Older ones: `events_between` / `events_since` regenerate them.
    pub fn trace(&self) -> &[Event<P>] {
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
    pub fn violations(&self) -> impl Iterator<Item = &Event<P>> {
        self.violations.iter()
    }
    /// Digest of the whole trace so far.
    pub fn digest(&self) -> Digest {
        self.digest
    }
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Records the events from `window[from..]` on: the world emitted them straight into
    /// the window (`run_step_into_window`). The window drops its older half whenever it
    /// passes its size, exactly as if it were checked after every event.
    fn record_from(&mut self, from: usize) {
        if from == 0 {
            if let Some(e) = self.window.first() {
                self.window_first_seq = e.seq;
            }
        }
        for e in &self.window[from..] {
            self.digest.add(e);
            self.lanes.apply(e, &mut ());
            if matches!(e.kind, EventKind::Violation { .. }) {
                self.violations.push(e.clone());
            }
        }
        while self.window.len() > WINDOW_MAX_EVENTS {
            self.window.drain(..WINDOW_MAX_EVENTS.div_ceil(2));
            self.window_first_seq = self.window[0].seq;
        }
    }

    /// What this run holds, by holder; `check()` says whether it is within the budget.
    pub fn memory(&self) -> MemoryUsage {
        let checkpoints = self.checkpoints.iter().map(|c| c.own_bytes).sum();
        let events = (self.window.len() + self.prelude.len() + self.violations.len()) as u64 * EVENT_BYTES;
        MemoryUsage::new(self.world.meter(), checkpoints, events)
    }

    /// Whether this run keeps checkpoints to seek back to (`replay_once` does not).
    fn history(&self) -> History {
        if self.checkpoint_every == u64::MAX {
            History::NotKept
        } else {
            History::Kept
        }
    }

    /// Runs to `target` in steps of whole simulated seconds, checking the memory budget
    /// before each: over it, the run stops there and the error says what is over.
    fn run_to_within_budget(&mut self, target: u64) -> Result<(), Halt> {
        loop {
            if self.world.now >= self.reached {
                self.memory().check(self.history()).map_err(|e| {
                    Halt::Budget(SimError {
                        field: e.field,
                        message: format!("stopped at {} ms: {}", self.world.now, e.message),
                    })
                })?;
            }
            let step = target.min((self.world.now / CHECK_EVERY_MS + 1) * CHECK_EVERY_MS);
            self.run_to(step).map_err(Halt::Livelock)?;
            self.reached = self.reached.max(step);
            if step >= target {
                return Ok(());
            }
        }
    }

    fn checkpoint(&self) -> Checkpoint<P> {
        Checkpoint {
            own_bytes: self.world.unshared_bytes() + self.lanes.bytes(),
            world: self.world.clone(),
            applied_inputs: self.applied_inputs,
            digest: self.digest,
            violations: self.violations.clone(),
            lanes: self.lanes.clone(),
        }
    }

    /// Advances simulated time by `ms`, replaying recorded future inputs on the way.
    pub fn advance(&mut self, ms: u64) -> Result<(), SimError> {
        crate::limits::ADVANCE_MS.check(ms).map_err(|message| SimError { field: "ms".into(), message })?;
        let from = self.world.now;
        self.run_to_within_budget(from + ms).map_err(|h| self.halted(from, "ms", h))
    }

    /// Runs to the time of the next queued event (all events at that millisecond). The
    /// memory budget applies as in `advance`, so a run driven step by step (the scenario
    /// engine's) stops no later than a replay of its inputs would.
    pub fn step(&mut self) -> Result<bool, SimError> {
        let next_input = self.inputs.get(self.applied_inputs).map(|i| i.t);
        let next = match (self.world.next_event_time(), next_input) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => return Ok(false),
            },
        };
        let from = self.world.now;
        self.run_to_within_budget(next.max(from)).map_err(|h| self.halted(from, "", h))?;
        Ok(true)
    }

    /// Runs to `target` by the ordering rule, applying the recorded inputs due on the
    /// way. Each step's events are recorded at once, and a checkpoint is taken when the
    /// run reaches each checkpoint time. Returns the outcome of the last input applied.
    fn run_to(&mut self, target: u64) -> Result<Option<WriteOutcome>, Livelock> {
        let mut outcome = None;
        // Only a checkpoint moves the boundary: it is computed again after each one, not on
        // every step (in wasm32 the saturating u64 multiply is a call to a 128-bit multiply).
        let mut boundary = self.next_checkpoint_time();
        loop {
            let stop = boundary.min(target);
            match self.run_step_into_window(stop)? {
                RunStep::Ran => {}
                RunStep::Applied(o) => outcome = o,
                RunStep::Reached => {
                    if stop == boundary {
                        self.take_checkpoint();
                        boundary = self.next_checkpoint_time();
                    }
                    if stop == target {
                        return Ok(outcome);
                    }
                }
            }
        }
    }

    /// When the next checkpoint is due: the next multiple of the interval after the last one.
    fn next_checkpoint_time(&self) -> u64 {
        let last_checkpoint = self.checkpoints.last().map(|c| c.world.now).unwrap_or(0);
        let every = self.checkpoint_every;
        (last_checkpoint / every + 1).saturating_mul(every)
    }

    /// One `World::run_step` whose events go straight into the window (no staging
    /// vector), then are recorded; a checkpoint's digest then covers exactly the events
    /// emitted before it.
    fn run_step_into_window(&mut self, stop: u64) -> Result<RunStep, Livelock> {
        let mut window = std::mem::take(&mut self.window);
        let from = window.len();
        let room = WINDOW_MAX_EVENTS + WINDOW_RESERVE_AT; // the window and a step past it
        if window.len() >= WINDOW_RESERVE_AT && window.capacity() < room {
            window.reserve_exact(room - window.len());
        }
        window.append(&mut self.world.events); // the startup events, emitted by World::new
        let staging = std::mem::replace(&mut self.world.events, window);
        let step = self.world.run_step(&self.inputs, &mut self.applied_inputs, stop);
        self.window = std::mem::replace(&mut self.world.events, staging);
        self.record_from(from);
        step
    }

    fn take_checkpoint(&mut self) {
        self.checkpoints.push(self.checkpoint());
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.checkpoint_every = self.checkpoint_every.saturating_mul(2);
        }
    }

    /// The error of a halted run; after a livelock the run is first put back to `from`.
    fn halted(&mut self, from: u64, field: &str, halt: Halt) -> SimError {
        match halt {
            Halt::Livelock(l) => self.recover(from, field, l),
            Halt::Budget(e) => e,
        }
    }

    /// After a livelock: the run goes back to `t`, where the call that failed started
    /// (the last consistent moment), by checkpoint and replay. The error names `field`.
    fn recover(&mut self, t: u64, field: &str, livelock: Livelock) -> SimError {
        let i = self.checkpoints.partition_point(|c| c.world.now <= t);
        self.restore(i.saturating_sub(1));
        // The run reached `t` before, and runs are deterministic: it reaches it again.
        let replayed = self.run_to(t);
        debug_assert!(replayed.is_ok(), "replaying to {t} livelocked");
        SimError { field: field.into(), message: format!("{livelock}; the cluster is back at t = {t} ms") }
    }

    /// Does something now. Validates first: a bad action changes nothing. Taken while
    /// seeked back, it cuts off the recorded future. The action is applied as a replay
    /// applies it (the ordering rule), and what it causes at this millisecond has run
    /// when `act` returns: right after `resign()`, the old leader has resigned (unless
    /// its raft thread is blocked in a disk flush, as in Kafka).
    pub fn act(&mut self, action: Action) -> Result<Option<WriteOutcome>, SimError> {
        action.validate(self.world.nodes.len() as u32, self.world.spec.quorum)?;
        self.memory().check(self.history())?;
        let now = self.world.now;
        let forks = self.horizon() > now;
        let future = self.inputs.split_off(self.applied_inputs);
        let ahead = self.checkpoints.split_off(self.checkpoints.partition_point(|c| c.world.now <= now));
        let reached = std::mem::replace(&mut self.reached, now);
        let described = std::mem::take(&mut self.described);
        self.inputs.push(TimedAction { t: now, action });
        let out = self.run_to(now).map_err(|l| {
            // Refused: the recorded future and its checkpoints stay as they were.
            self.inputs.pop();
            self.inputs.extend(future);
            self.checkpoints.extend(ahead);
            self.reached = reached;
            self.described = described;
            self.recover(now, "", l)
        })?;
        self.forks += u64::from(forks);
        Ok(out)
    }

    /// Moves to time `t`, back or forward. Going back keeps the recorded inputs, so
    /// seeking forward again reproduces the same run. Checkpoints ahead of now (kept
    /// from before a seek back) are used to jump, when more than an interval ahead.
    pub fn seek(&mut self, t: u64) -> Result<(), SimError> {
        if t > self.world.now.saturating_add(MAX_ADVANCE_MS) {
            return Err(SimError {
                field: "t".into(),
                message: format!("cannot seek more than a day ahead (asked {t})"),
            });
        }
        let from = self.world.now;
        let i = self.checkpoints.partition_point(|c| c.world.now <= t).saturating_sub(1);
        // A checkpoint ahead is jumped to only past one interval: a shorter step runs on,
        // keeping its events in memory for the reader who asks for them next.
        if t < from || self.checkpoints[i].world.now > from + CHECKPOINT_EVERY_MS {
            self.restore(i);
        }
        self.run_to_within_budget(t).map_err(|h| self.halted(from, "t", h))
    }

    /// Puts the run back to checkpoint `i`; the window keeps the events before it.
    fn restore(&mut self, i: usize) {
        let cp = self.checkpoints[i].clone();
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
        self.lanes = cp.lanes;
    }

    /// Replays from checkpoint `cp_index` on a copy of the world, handing each event to
    /// `keep` until it says stop (the replay stops at the end of that moment).
    fn regenerate(&self, cp_index: usize, until: u64, keep: &mut dyn FnMut(&Event<P>) -> bool) {
        let mut replay = Replay::from(&self.checkpoints[cp_index]);
        let inputs = &self.inputs[..self.applied_inputs];
        let mut wanted = true;
        while wanted && replay.step(inputs, until, &mut |e| wanted = wanted && keep(&e)) {}
    }

    /// Every node as it was at time `t` (after everything at `t`, as `seek(t)` would
    /// leave it), for any `t` up to now, without changing the run: a copy of the world
    /// replays the recorded inputs from the last checkpoint at or before `t`, so it costs
    /// at most one checkpoint interval of replay, like `regenerate`.
    pub fn nodes_at(&self, t: u64) -> Result<Vec<NodeView>, SimError> {
        let now = self.world.now;
        if t > now {
            return Err(SimError { field: "t".into(), message: format!("must be at most now ({now} ms), got {t}") });
        }
        if t == now {
            return Ok(self.world.node_views());
        }
        let ci = self.checkpoints.partition_point(|c| c.world.now <= t).saturating_sub(1);
        let mut replay = Replay::from(&self.checkpoints[ci]);
        let inputs = &self.inputs[..self.applied_inputs];
        while replay.step(inputs, t, &mut |_| {}) {}
        Ok(replay.world.node_views())
    }

    /// The end of the recorded run: now, or later after a seek back (or in a run rebuilt at
    /// an earlier time, `replay_at`), until an action forks it.
    pub fn horizon(&self) -> u64 {
        self.world.now.max(self.reached).max(self.described)
    }

    /// How many actions so far cut off a recorded future (taken before the horizon): what
    /// was recorded after such an action's moment is other events now, even where the
    /// horizon and the last seq, read later, do not show it.
    pub fn forks(&self) -> u64 {
        self.forks
    }

    /// The timeline's lanes over [from, to] (`lanes`), the recorded future included. The
    /// fold starts at the last checkpoint before `from` where nothing was on the wire or
    /// waiting in a busy node that could end inside the window, so it reads the send of
    /// every message the window shows (past `LANES_LOOK_BACK` checkpoints, at the last
    /// one, taking its messages on the wire without their sends).
    pub fn lanes(&self, from: u64, to: u64) -> Result<Lanes<P>, SimError> {
        let refuse = |message: String| SimError { field: "to".into(), message };
        if to < from {
            return Err(refuse(format!("must not be before from ({from}), got {to}")));
        }
        LANES_SPAN_MS.check(to - from).map_err(|m| refuse(format!("to - from {m} ({})", LANES_SPAN_MS.key)))?;
        let before = self.checkpoints.partition_point(|c| c.world.now < from);
        let settled = |c: &Checkpoint<P>| {
            c.world.in_flight.values().all(|m| m.arrives < from)
                && c.world.nodes.iter().all(|n| n.busy_until <= c.world.now)
        };
        let clean = (before.saturating_sub(LANES_LOOK_BACK)..before).rev().find(|&i| settled(&self.checkpoints[i]));
        let mut projector = match clean.or(before.checked_sub(1)) {
            Some(i) => {
                let cp = &self.checkpoints[i];
                let on_wire =
                    if clean.is_some() { Vec::new() } else { cp.world.in_flight.values().map(Span::on_wire).collect() };
                Projector::new(from, to, cp.lanes.clone(), on_wire)
            }
            None => Projector::new(from, to, LaneState::new(self.world.nodes.len()), Vec::new()),
        };
        let mut full = false;
        self.walk(clean.or(before.checked_sub(1)), to.min(self.horizon()), &mut |e| {
            full = projector.take(e).is_err();
            !full
        });
        if full {
            return Err(refuse(format!(
                "the window from {from} to {to} ms holds more than {} events, the most one projection reads ({}); ask for a shorter one",
                LANES_EVENTS.upper(),
                LANES_EVENTS.key
            )));
        }
        Ok(projector.finish(self.horizon()))
    }

    /// Hands `f` the events after checkpoint `start` (None: every event of the run) up to
    /// time `until`, the recorded future past now included, in order, until it says
    /// stop: from memory where the window holds them, else from replays (of the run up to
    /// the window; of the recorded future from now, or from a checkpoint ahead).
    fn walk(&self, start: Option<usize>, until: u64, f: &mut dyn FnMut(&Event<P>) -> bool) {
        let mut go = true;
        if start.is_none() {
            for e in self.prelude.iter().take_while(|e| e.t <= until) {
                if !f(e) {
                    return;
                }
            }
        }
        let cp = &self.checkpoints[start.unwrap_or(0)];
        let mut next = cp.world.events_emitted() + 1;
        let last = self.last_seq();
        if next <= last {
            if next < self.window_first_seq {
                let mut replay = Replay::from(cp);
                while go && next < self.window_first_seq {
                    let more = replay.step(&self.inputs, until, &mut |e| {
                        if go && e.seq < self.window_first_seq {
                            go = f(&e);
                            next = e.seq + 1;
                        }
                    });
                    if !more {
                        return;
                    }
                }
                if !go {
                    return;
                }
            }
            let at = (next - self.window_first_seq) as usize;
            for e in &self.window[at.min(self.window.len())..] {
                if e.t > until || !f(e) {
                    return;
                }
            }
        }
        if go && until > self.world.now {
            // The recorded future: the run replayed on with every recorded input.
            let mut replay = if next > last {
                Replay::from(cp)
            } else {
                Replay { world: self.world.clone(), applied: self.applied_inputs }
            };
            while go && replay.step(&self.inputs, until, &mut |e| go = go && f(&e)) {}
        }
    }

    /// A cursor over the events with seq > `since`, for `trace_page`.
    pub fn trace_cursor(&self, since: u64) -> TraceCursor<P> {
        TraceCursor { run: (self.last_seq(), self.digest), after: since, replay: None, pending: VecDeque::new() }
    }

    /// The cursor's next page: up to `limit` (at most MAX_EVENTS_PER_QUERY) events after
    /// the last one it gave; empty at the end. Refused once the run has moved on or back
    /// since the cursor was opened (its events would no longer be this run's).
    pub fn trace_page(&self, cursor: &mut TraceCursor<P>, limit: usize) -> Result<Cow<'_, [Event<P>]>, SimError> {
        if cursor.run != (self.last_seq(), self.digest) {
            return Err(SimError {
                field: "cursor".into(),
                message: format!(
                    "the run changed since this cursor was opened (then {} events, now {}); open a new one",
                    cursor.run.0,
                    self.last_seq()
                ),
            });
        }
        Ok(self.read_page(cursor, limit))
    }

    /// `trace_page` once the cursor is known to read this run.
    fn read_page(&self, cursor: &mut TraceCursor<P>, limit: usize) -> Cow<'_, [Event<P>]> {
        let limit = limit.min(MAX_EVENTS_PER_QUERY);
        let since = cursor.after;
        let page = if since + 1 >= self.window_first_seq || self.window_first_seq == 1 {
            cursor.replay = None;
            cursor.pending.clear();
            let i = self.window.partition_point(|e| e.seq <= since);
            Cow::Borrowed(&self.window[i..(i + limit).min(self.window.len())])
        } else {
            Cow::Owned(self.replay_page(cursor, limit))
        };
        if let Some(e) = page.last() {
            cursor.after = e.seq;
        }
        page
    }

    /// Up to `limit` events after `cursor.after`, continuing the cursor's replay (or
    /// starting one from the checkpoint before them).
    fn replay_page(&self, cursor: &mut TraceCursor<P>, limit: usize) -> Vec<Event<P>> {
        let since = cursor.after;
        let TraceCursor { replay, pending, .. } = cursor;
        let replay = replay.get_or_insert_with(|| {
            let ci = self.checkpoints.partition_point(|c| c.world.events_emitted() <= since).saturating_sub(1);
            if ci == 0 {
                pending.extend(self.prelude.iter().filter(|e| e.seq > since).cloned());
            }
            Replay::from(&self.checkpoints[ci])
        });
        let inputs = &self.inputs[..self.applied_inputs];
        let mut out = Vec::new();
        loop {
            let n = (limit - out.len()).min(pending.len());
            out.extend(pending.drain(..n));
            if out.len() == limit {
                return out;
            }
            let more = replay.step(inputs, self.world.now, &mut |e| {
                if e.seq > since {
                    pending.push_back(e)
                }
            });
            if !more && pending.is_empty() {
                return out;
            }
        }
    }

    /// Events with seq > `since` (at most MAX_EVENTS_PER_QUERY of them).
    pub fn events_since(&self, since: u64) -> Cow<'_, [Event<P>]> {
        self.events_since_at_most(since, MAX_EVENTS_PER_QUERY)
    }

    /// Events with seq > `since`, at most `limit` of them (replaying no further).
    pub fn events_since_at_most(&self, since: u64, limit: usize) -> Cow<'_, [Event<P>]> {
        // A new cursor reads the run as it is: nothing to check (and no `expect`, whose
        // message would bring SimError's Debug and the escaping of strings into the wasm).
        self.read_page(&mut self.trace_cursor(since), limit)
    }

    /// Events with from <= t <= to (at most MAX_EVENTS_PER_QUERY of them).
    pub fn events_between(&self, from: u64, to: u64) -> Cow<'_, [Event<P>]> {
        let to = to.min(self.world.now);
        let in_window = self.window_first_seq == 1 || self.window.first().map(|e| e.t < from).unwrap_or(false);
        if in_window || from > to {
            let a = self.window.partition_point(|e| e.t < from);
            let b = self.window.partition_point(|e| e.t <= to).max(a);
            let b = b.min(a + MAX_EVENTS_PER_QUERY);
            return Cow::Borrowed(&self.window[a..b]);
        }
        // Replay only the part before the window (after a seek back the window starts at
        // the checkpoint restored, often inside the range asked); the rest is in memory.
        let windowed = self.window_first_seq;
        let ci = self.checkpoints.partition_point(|c| c.world.now < from).saturating_sub(1);
        let mut out: Vec<Event<P>> = if ci == 0 {
            self.prelude.iter().filter(|e| e.t >= from && e.t <= to && e.seq < windowed).cloned().collect()
        } else {
            Vec::new()
        };
        if self.checkpoints[ci].world.events_emitted() + 1 < windowed {
            self.regenerate(ci, to, &mut |e| {
                if e.seq >= windowed {
                    return false;
                }
                if e.t >= from && e.t <= to {
                    out.push(e.clone());
                }
                out.len() < MAX_EVENTS_PER_QUERY && e.seq + 1 < windowed
            });
        }
        let a = self.window.partition_point(|e| e.t < from);
        let b = self.window.partition_point(|e| e.t <= to).max(a);
        let room = MAX_EVENTS_PER_QUERY - out.len().min(MAX_EVENTS_PER_QUERY);
        out.extend_from_slice(&self.window[a..b.min(a + room)]);
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run past the in-memory window (about 270,000 events), with its events as they
    /// happened, collected while the window still held them.
    fn long_run() -> (Run<KRaft>, Vec<Event>) {
        let spec = ClusterSpec { voters: 3, observers: 1, seed: 5, writes_per_second: 100, ..ClusterSpec::default() };
        let mut sim = Run::<KRaft>::create(spec).unwrap();
        let mut live: Vec<Event> = sim.trace().to_vec();
        for second in 0..200u64 {
            sim.advance(1_000).unwrap();
            if second == 100 {
                sim.act(Action::Crash { node: 0 }).unwrap();
            }
            let i = sim.trace().partition_point(|e| e.seq <= live.last().map_or(0, |e| e.seq));
            live.extend_from_slice(&sim.trace()[i..]);
        }
        assert!(sim.trace()[0].seq > 1_000, "the window has moved past the events read below");
        assert_eq!(live.len() as u64, sim.last_seq());
        (sim, live)
    }

    #[test]
    fn a_short_page_of_old_events_replays_only_up_to_them() {
        let (sim, live) = long_run();
        let mut cursor = sim.trace_cursor(1_000);
        let page = sim.trace_page(&mut cursor, 10).unwrap().into_owned();
        assert_eq!(page, live[1_000..1_010]);
        assert_eq!(sim.events_since_at_most(1_000, 10).into_owned(), page);
        // The work done: the replay stopped at the moment of the page's last event, not
        // at the end of the run (200 simulated s).
        let replayed_to = cursor.replay.as_ref().expect("a replay").world.now;
        assert_eq!(replayed_to, page[9].t);
        assert!(replayed_to < 5_000, "replayed to {replayed_to} ms");
    }

    #[test]
    fn a_range_straddling_the_window_start_after_a_seek_back_is_the_live_runs() {
        let (mut sim, live) = long_run();
        let between =
            |from: u64, to: u64| -> Vec<Event> { live.iter().filter(|e| e.t >= from && e.t <= to).cloned().collect() };
        // Just after a checkpoint (every 20 s) before what the window holds: the window
        // restarts there, inside the range asked, so part comes from a replay and part
        // from memory.
        let cp = sim.trace()[0].t / CHECKPOINT_EVERY_MS * CHECKPOINT_EVERY_MS;
        sim.seek(cp + 3_000).unwrap();
        let start = sim.trace()[0].t;
        assert!(cp - 5_000 < start && start <= cp + 3_000, "the window starts at {start} ms");
        assert!(sim.events_between(cp - 5_000, cp + 3_000).as_ref() == between(cp - 5_000, cp + 3_000).as_slice());
        assert!(sim.events_between(cp - 1, cp + 1).as_ref() == between(cp - 1, cp + 1).as_slice());
        // Near the start: the prelude, then the window.
        sim.seek(5_000).unwrap();
        assert!(sim.events_between(0, 5_000).as_ref() == between(0, 5_000).as_slice());
    }

    #[test]
    fn a_step_forward_within_a_checkpoint_interval_runs_on_keeping_its_events_in_memory() {
        let (mut sim, live) = long_run();
        // Back to 3 s past a checkpoint, then 9 s on, past the next checkpoint: the run
        // goes on from where it is (jumping to that checkpoint would drop from memory the
        // events just before it, which the reader of the step asks for next).
        let cp = sim.trace()[0].t / CHECKPOINT_EVERY_MS * CHECKPOINT_EVERY_MS + CHECKPOINT_EVERY_MS;
        sim.seek(cp + 3_000).unwrap();
        let since = sim.last_seq();
        sim.seek(cp + CHECKPOINT_EVERY_MS + 2_000).unwrap();
        assert!(sim.trace()[0].seq <= since + 1, "the window starts at seq {}, after {since}", sim.trace()[0].seq);
        let stepped: Vec<Event> = live.iter().filter(|e| e.seq > since && e.seq <= sim.last_seq()).cloned().collect();
        assert!(matches!(sim.events_since(since), Cow::Borrowed(_)), "read from memory");
        assert!(sim.events_since(since).as_ref() == stepped.as_slice());
    }

    #[test]
    fn a_cursor_reads_the_whole_run_continuing_one_replay() {
        let (mut sim, live) = long_run();
        let read_all = |sim: &Run<KRaft>| {
            let mut cursor = sim.trace_cursor(0);
            let mut all: Vec<Event> = Vec::new();
            loop {
                let page = sim.trace_page(&mut cursor, 7_000).unwrap().into_owned();
                if page.is_empty() {
                    return all;
                }
                if let Some(r) = &cursor.replay {
                    // Positioned just after what it handed out: the next page goes on from here.
                    assert_eq!(r.world.events_emitted(), cursor.after + cursor.pending.len() as u64);
                }
                all.extend(page);
            }
        };
        assert!(read_all(&sim) == live, "the cursor's events differ from the live run's");
        // Pages of events_since from the same places agree.
        let mut since = 0;
        while since < sim.last_seq() {
            let page = sim.events_since_at_most(since, 50_000);
            assert!(page[..] == live[since as usize..since as usize + page.len()], "events_since({since})");
            since = page.last().unwrap().seq;
        }
        // The same run after a seek back and forward: still readable, same events.
        let now = sim.now();
        sim.seek(0).unwrap();
        sim.seek(now).unwrap();
        assert!(read_all(&sim) == live);
    }

    #[test]
    fn a_cursor_refuses_a_run_that_moved() {
        let (mut sim, _) = long_run();
        let mut cursor = sim.trace_cursor(0);
        assert_eq!(sim.trace_page(&mut cursor, 10).unwrap().len(), 10);
        sim.advance(1_000).unwrap();
        let e = sim.trace_page(&mut cursor, 10).unwrap_err();
        assert_eq!(e.field, "cursor");
        assert!(e.message.starts_with("the run changed since this cursor was opened"), "{}", e.message);
    }

    /// Zero latency, which validation refuses (`limits::LATENCY_MS`): a recorded input is
    /// the one way past it, to stand for any zero-time loop the detector must stop.
    fn zero_latency(t: u64) -> TimedAction {
        TimedAction { t, action: Action::Network { latency_ms: [0, 0], loss: 0.0, duplicate: 0.0 } }
    }

    fn state(sim: &Run<KRaft>) -> (u64, Digest, u64, usize) {
        (sim.now(), sim.digest(), sim.last_seq(), sim.inputs().len())
    }

    #[test]
    fn a_livelock_in_advance_seek_or_step_puts_the_run_back_where_the_call_found_it() {
        let spec = ClusterSpec { voters: 5, seed: 3, writes_per_second: 10, ..ClusterSpec::default() };
        let mut sim = Run::<KRaft>::create(spec).unwrap();
        sim.advance(5_000).unwrap();
        let before = state(&sim);
        // A recorded future: zero latency, then the leader resigns. With five voters the
        // first successor loses its pre-vote (KAFKA-20895), so the followers keep
        // fetching from the resigned leader, which answers NOT_LEADER_OR_FOLLOWER (handled,
        // no backoff): the Fetches bounce within one millisecond.
        sim.inputs.push(zero_latency(6_000));
        sim.inputs.push(TimedAction { t: 6_000, action: Action::Resign });
        let err = sim.advance(20_000).unwrap_err();
        assert_eq!(err.field, "ms");
        assert!(err.message.starts_with("livelock at t = "), "{err}");
        assert!(err.message.ends_with("the cluster is back at t = 5000 ms"), "{err}");
        assert_eq!(state(&sim), before);
        assert_eq!(sim.future_inputs().len(), 2, "the recorded future is kept");
        assert_eq!(sim.seek(30_000).unwrap_err().field, "t");
        assert_eq!(state(&sim), before);
        sim.advance(999).unwrap();
        let just_before = state(&sim);
        assert!(sim.step().unwrap_err().message.starts_with("livelock at t = 6000 ms"));
        assert_eq!(state(&sim), just_before);
        // Still usable: an action replaces the recorded future, and the run goes on.
        sim.act(Action::Heal).unwrap();
        sim.advance(10_000).unwrap();
        assert!(sim.world().leader().is_some());
    }

    #[test]
    fn a_livelock_in_act_refuses_the_action_and_changes_nothing() {
        let spec = ClusterSpec { voters: 5, seed: 3, ..ClusterSpec::default() };
        let mut sim = Run::<KRaft>::create(spec).unwrap();
        sim.advance(5_000).unwrap();
        sim.inputs.push(zero_latency(5_000));
        sim.advance(0).unwrap(); // the leader holds its followers: no loop yet
        let before = state(&sim);
        // Resigning leaves everyone leaderless within the millisecond (five voters: the
        // first successor loses its pre-vote, KAFKA-20895).
        let err = sim.act(Action::Resign).unwrap_err();
        assert!(err.message.starts_with("livelock at t = 5000 ms"), "{err}");
        assert_eq!(state(&sim), before);
        assert!(sim.world().leader().is_some());
        assert!(!sim.inputs().iter().any(|i| i.action == Action::Resign));
        sim.seek(0).unwrap();
        sim.seek(5_000).unwrap();
        assert_eq!(state(&sim), before, "the refused action left no trace");
    }
}
