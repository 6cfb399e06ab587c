//! KRaft, the playground's protocol: the run the scenario engine, the chaos sweep and
//! the wasm surface use (`Simulation`), a `Run<KRaft>` behind methods compiled in this
//! crate, and KRaft's failover measure (`measure_failover`, `leader_changes`) likewise.
//! What each does is written on the generic one it calls.
//!
//! Why not `Run<KRaft>` itself: a release build instantiates a generic function in every
//! crate that calls it (rustc shares instantiations across crates only in debug builds),
//! so each of those three would carry its own copy of the run loop, and fat LTO does not
//! merge copies its per-crate inlining made differ (the full wasm grew by 103 KB raw,
//! 20 KB gzip). These methods are not generic: the KRaft run is compiled once, here, and
//! everything downstream calls it. Another protocol's callers use `Run<P>` directly.

use crate::budget::MemoryUsage;
use crate::error::SimError;
use crate::failover::{self, Failover, LeaderChange};
use crate::lanes::Lanes;
use crate::simulation::{Run, TraceCursor};
use crate::spec::{Action, ClusterSpec, TimedAction};
use crate::trace::{Digest, Event};
use crate::view::NodeView;
use crate::world::{World, WriteOutcome};
use kraft_protocol::{Epoch, KRaft, NodeId};
use std::borrow::Cow;

/// A KRaft run you can scrub (`Run<KRaft>`).
pub struct Simulation(Run<KRaft>);

impl Simulation {
    pub fn new(spec: ClusterSpec) -> Result<Simulation, SimError> {
        Run::create(spec).map(Simulation)
    }
    /// Rebuilds a run from its description (a shared link): same spec, same inputs.
    pub fn replay(spec: ClusterSpec, inputs: Vec<TimedAction>, until: u64) -> Result<Simulation, SimError> {
        Run::replay_with(spec, inputs, until, true).map(Simulation)
    }
    pub fn replay_at(spec: ClusterSpec, inputs: Vec<TimedAction>, until: u64, at: u64) -> Result<Simulation, SimError> {
        Run::replay_at(spec, inputs, until, at).map(Simulation)
    }
    /// Like `replay`, for runs nobody will scrub (sweeps, scenario checks): no
    /// checkpoints are taken after the first, so `seek` back replays from the start.
    pub fn replay_once(spec: ClusterSpec, inputs: Vec<TimedAction>, until: u64) -> Result<Simulation, SimError> {
        Run::replay_with(spec, inputs, until, false).map(Simulation)
    }

    pub fn spec(&self) -> &ClusterSpec {
        self.0.spec()
    }
    pub fn world(&self) -> &World {
        self.0.world()
    }
    pub fn now(&self) -> u64 {
        self.0.now()
    }
    pub fn trace(&self) -> &[Event] {
        self.0.trace()
    }
    pub fn last_seq(&self) -> u64 {
        self.0.last_seq()
    }
    pub fn inputs(&self) -> &[TimedAction] {
        self.0.inputs()
    }
    pub fn future_inputs(&self) -> &[TimedAction] {
        self.0.future_inputs()
    }
    pub fn violation_count(&self) -> usize {
        self.0.violation_count()
    }
    pub fn violations(&self) -> impl Iterator<Item = &Event> {
        self.0.violations()
    }
    pub fn digest(&self) -> Digest {
        self.0.digest()
    }
    pub fn checkpoint_count(&self) -> usize {
        self.0.checkpoint_count()
    }
    pub fn memory(&self) -> MemoryUsage {
        self.0.memory()
    }
    pub fn advance(&mut self, ms: u64) -> Result<(), SimError> {
        self.0.advance(ms)
    }
    pub fn step(&mut self) -> Result<bool, SimError> {
        self.0.step()
    }
    pub fn act(&mut self, action: Action) -> Result<Option<WriteOutcome>, SimError> {
        self.0.act(action)
    }
    pub fn seek(&mut self, t: u64) -> Result<(), SimError> {
        self.0.seek(t)
    }
    pub fn nodes_at(&self, t: u64) -> Result<Vec<NodeView>, SimError> {
        self.0.nodes_at(t)
    }
    pub fn horizon(&self) -> u64 {
        self.0.horizon()
    }
    pub fn forks(&self) -> u64 {
        self.0.forks()
    }
    pub fn lanes(&self, from: u64, to: u64) -> Result<Lanes, SimError> {
        self.0.lanes(from, to)
    }
    pub fn trace_cursor(&self, since: u64) -> TraceCursor {
        self.0.trace_cursor(since)
    }
    pub fn trace_page(&self, cursor: &mut TraceCursor, limit: usize) -> Result<Cow<'_, [Event]>, SimError> {
        self.0.trace_page(cursor, limit)
    }
    pub fn events_since(&self, since: u64) -> Cow<'_, [Event]> {
        self.0.events_since(since)
    }
    pub fn events_since_at_most(&self, since: u64, limit: usize) -> Cow<'_, [Event]> {
        self.0.events_since_at_most(since, limit)
    }
    pub fn events_between(&self, from: u64, to: u64) -> Cow<'_, [Event]> {
        self.0.events_between(from, to)
    }
}

/// `Failover::measure` of a KRaft trace, compiled here once: the scenario engine's
/// failover measure and free play's leader changes (`leader_changes`, which calls it) are
/// both in the full wasm, and a generic call from each crate carried its own copy there
/// (1.4 KB raw, 0.9 KB gzip).
pub fn measure_failover(
    events: &[Event],
    cause: Option<(String, u64)>,
    old: Option<(NodeId, Epoch)>,
    voters: u32,
) -> Failover {
    Failover::measure(events, cause, old, voters)
}

/// `failover::leader_changes` of a KRaft trace, compiled here once.
pub fn leader_changes(events: &[Event], voters: u32) -> Vec<LeaderChange> {
    failover::leader_changes(events, voters)
}
