//! SnapshotAtLogStart and LeaderNeverLoadSnapshot.

use super::{ClusterView, Found};
use crate::trace::{Event, EventKind, Invariant, SnapshotAction};
use kraft_protocol::log::FetchPosition;
use kraft_protocol::StateName;

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

    pub fn observe(&mut self, view: &impl ClusterView, event: &Event, found: &mut Vec<Found>) {
        match &event.kind {
            EventKind::State { node, to, .. } => self.is_leader[*node as usize] = *to == StateName::Leader,
            EventKind::Crash { node, .. } => self.is_leader[*node as usize] = false,
            _ => {}
        }
        check(&self.is_leader, view, event, found);
    }
}

fn check(is_leader: &[bool], view: &impl ClusterView, event: &Event, found: &mut Vec<Found>) {
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
            let at_start = s.id.end_offset == start || start == 0;
            let valid = matches!(
                log.validate_fetch(s.id.end_offset, s.id.epoch),
                FetchPosition::Valid | FetchPosition::Snapshot(_)
            );
            if !at_start || !valid {
                found.push(Found {
                    invariant: Invariant::SnapshotAtLogStart,
                    node: Some(node),
                    detail: format!("snapshot {}@e{} does not stand at log start {start}", s.id.end_offset, s.id.epoch),
                    evidence: vec![event.seq],
                });
            }
        }
    }
}
