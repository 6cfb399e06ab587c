//! SnapshotAtLogStart and LeaderNeverLoadSnapshot.

use super::{ClusterView, Found};
use crate::trace::{Event, EventKind, Invariant, SnapshotAction};
use kraft_boundary::{LogView, Protocol, StateName};

/// Tracks each node's state from the events themselves (in order), so a check sees the
/// state at the moment of the event, not at the end of the step that emitted it.
#[derive(Clone, Debug)]
pub struct Snapshots {
    is_leader: Vec<bool>,
}

impl Snapshots {
    pub fn new(nodes: usize) -> Self {
        Snapshots { is_leader: vec![false; nodes] }
    }

    /// One more node, never started yet (`addController`).
    pub fn add_node(&mut self) {
        self.is_leader.push(false);
    }

    pub fn observe<P: Protocol>(&mut self, view: &impl ClusterView<P>, event: &Event<P>, found: &mut Vec<Found>) {
        match &event.kind {
            EventKind::State { node, to, .. } => self.is_leader[*node as usize] = to.is_leader(),
            EventKind::Crash { node, .. } => self.is_leader[*node as usize] = false,
            _ => {}
        }
        check(&self.is_leader, view, event, found);
    }
}

fn check<P: Protocol>(is_leader: &[bool], view: &impl ClusterView<P>, event: &Event<P>, found: &mut Vec<Found>) {
    let (node, action) = match &event.kind {
        EventKind::Snapshot { node, action, .. } => (*node, Some(*action)),
        EventKind::Truncate { node, .. } => (*node, None),
        _ => return,
    };
    if action == Some(SnapshotAction::Loaded) && is_leader[node as usize] {
        found.push(Found {
            invariant: Invariant::LeaderNeverLoadSnapshot,
            node: Some(node),
            detail: format!("leader n{node} loaded a snapshot"),
            evidence: vec![event.seq],
        });
    }
    let Some(log) = view.log(node) else { return };
    let start = log.start_offset();
    // Later snapshots sit above the start (taking one keeps the log); the earliest one
    // is the one that must stand at a cleaned log's start.
    match log.earliest_snapshot() {
        None if start > 0 => found.push(Found {
            invariant: Invariant::SnapshotAtLogStart,
            node: Some(node),
            detail: format!("log starts at {start} without a snapshot"),
            evidence: vec![event.seq],
        }),
        None => {}
        Some(s) => {
            let at_start = s.end_offset == start || start == 0;
            if !at_start || !log.continues_snapshot(s) {
                found.push(Found {
                    invariant: Invariant::SnapshotAtLogStart,
                    node: Some(node),
                    detail: format!("snapshot {}@e{} does not stand at log start {start}", s.end_offset, s.epoch),
                    evidence: vec![event.seq],
                });
            }
        }
    }
}
