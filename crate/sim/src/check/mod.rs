//! Safety invariants, checked after every event. Each check is incremental: it looks
//! only at what the event changed, so checking costs O(nodes) per event (plus the
//! records an event touches), never O(log length).
//!
//! Every invariant here holds for any protocol on the boundary: the checks read the
//! events and the neutral views (`kraft_boundary::ReplicaCore`, `LogView`), never a
//! protocol's own state.

mod by_offset;
mod data;
mod leadership;
mod membership;
mod snapshot;

use crate::trace::{Event, EventKind, Invariant};
use kraft_boundary::{NodeId, Protocol};

/// What the checker may look at: the nodes as they are after the event.
pub trait ClusterView<P: Protocol> {
    fn node_count(&self) -> usize;
    /// The running replica, or None while the node is crashed.
    fn replica(&self, id: NodeId) -> Option<&P::Replica>;
    /// The running replica's log, or what is on disk while crashed.
    fn log(&self, id: NodeId) -> Option<&P::Log>;
}

/// Reports per invariant are capped so a broken run stays readable.
const MAX_REPORTS_PER_INVARIANT: u32 = 10;

#[derive(Clone, Debug)]
pub struct Checker {
    leadership: leadership::Leadership,
    data: data::Data,
    snapshots: snapshot::Snapshots,
    membership: membership::Membership,
    reports: [u32; Invariant::ALL.len()],
}

/// Whether any check reads `kind`. The checks match only on the kinds listed here (a
/// check that starts reading another kind must add it), and their other state they read
/// from the view at those events: messages, votes, flushes, writes and disconnects move
/// nothing a check compares.
fn may_break_an_invariant<P: Protocol>(kind: &EventKind<P>) -> bool {
    match kind {
        EventKind::Persist { .. }
        | EventKind::State { .. }
        | EventKind::Append { .. }
        | EventKind::HighWatermark { .. }
        | EventKind::Truncate { .. }
        | EventKind::Snapshot { .. }
        | EventKind::Crash { .. }
        | EventKind::Restart { .. }
        | EventKind::Fault(_) => true,
        EventKind::Send { .. }
        | EventKind::Deliver { .. }
        | EventKind::Drop { .. }
        | EventKind::Disconnect { .. }
        | EventKind::Vote { .. }
        | EventKind::Flush { .. }
        | EventKind::Write { .. }
        | EventKind::Admin { .. }
        | EventKind::Violation { .. } => false,
    }
}

/// One violation found: the invariant, where, what, and the events that show it.
pub struct Found {
    pub invariant: Invariant,
    pub node: Option<NodeId>,
    pub detail: String,
    pub evidence: Vec<u64>,
}

impl Checker {
    pub fn new(nodes: usize, stable_leadership: bool) -> Checker {
        Checker {
            leadership: leadership::Leadership::new(nodes, stable_leadership),
            data: data::Data::new(),
            snapshots: snapshot::Snapshots::new(nodes),
            membership: membership::Membership::new(nodes),
            reports: [0; Invariant::ALL.len()],
        }
    }

    /// Watches one more node, the last id (`addController`).
    pub fn add_node(&mut self) {
        self.leadership.add_node();
        self.snapshots.add_node();
    }

    /// Counts what the checker remembers about the logs on `meter` (for the memory budget).
    pub fn metered(mut self, meter: &kraft_base::shared::Meter) -> Checker {
        self.data = data::Data::metered(meter);
        self
    }

    /// Checks what `event` may have broken; returns violation events to record.
    #[inline]
    pub fn observe<P: Protocol>(&mut self, view: &impl ClusterView<P>, event: &Event<P>) -> Vec<EventKind<P>> {
        if !may_break_an_invariant(&event.kind) {
            return Vec::new(); // most events are messages: skip the checks' dispatch
        }
        self.check(view, event)
    }

    /// Kept out of line so the emitter's usual path (no check) stays small.
    #[inline(never)]
    fn check<P: Protocol>(&mut self, view: &impl ClusterView<P>, event: &Event<P>) -> Vec<EventKind<P>> {
        let mut found = Vec::new();
        self.leadership.observe(view, event, &mut found);
        self.data.observe(view, event, &mut found);
        self.snapshots.observe(view, event, &mut found);
        self.membership.observe(view, event, &mut found);
        if found.is_empty() {
            return Vec::new(); // the usual case: skip the adapters below
        }
        found
            .into_iter()
            .filter(|f| {
                let slot = &mut self.reports[f.invariant as usize];
                *slot += 1;
                *slot <= MAX_REPORTS_PER_INVARIANT
            })
            .map(|f| EventKind::Violation {
                invariant: f.invariant,
                node: f.node,
                detail: f.detail.into_boxed_str(),
                evidence: f.evidence.into_boxed_slice(),
            })
            .collect()
    }
}
