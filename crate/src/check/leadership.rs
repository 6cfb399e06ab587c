//! SingleLeader, MonotonicEpoch, MonotonicHighWatermark, MajorityReachedHighWatermark
//! and (on request) StableLeadership: the invariants about who leads and what it exposes.

use super::{ClusterView, Found};
use crate::protocol::{Epoch, NodeId, Offset, StateName};
use crate::trace::{Event, EventKind, Invariant};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Leadership {
    /// Leader recorded per epoch, with the event that recorded it.
    leaders: BTreeMap<Epoch, (NodeId, u64)>,
    persisted_epoch: Vec<Epoch>,
    /// The HW of the highest-epoch leader when last seen, with its event.
    leader_hw: Option<(Offset, u64)>,
    stable: Option<Option<(Epoch, NodeId, u64)>>,
}

impl Leadership {
    pub fn new(nodes: usize, stable_leadership: bool) -> Self {
        Leadership {
            leaders: BTreeMap::new(),
            persisted_epoch: vec![0; nodes],
            leader_hw: None,
            stable: if stable_leadership { Some(None) } else { None },
        }
    }

    pub fn observe(&mut self, view: &dyn ClusterView, event: &Event, found: &mut Vec<Found>) {
        match &event.kind {
            EventKind::Persist { node, epoch, leader, .. } => {
                let prev = self.persisted_epoch[*node as usize];
                if *epoch < prev {
                    found.push(Found {
                        invariant: Invariant::MonotonicEpoch,
                        node: Some(*node),
                        detail: format!("persisted epoch went from {prev} down to {epoch}"),
                        evidence: vec![event.seq],
                    });
                }
                self.persisted_epoch[*node as usize] = prev.max(*epoch);
                if let Some(l) = leader {
                    self.record_leader(*epoch, *l, *node, event.seq, found);
                }
            }
            EventKind::State { node, epoch, .. } => {
                // Events of one step arrive in order, so the last persisted epoch seen is
                // what was on disk when this transition happened.
                let persisted = self.persisted_epoch[*node as usize];
                if persisted != *epoch {
                    found.push(Found {
                        invariant: Invariant::MonotonicEpoch,
                        node: Some(*node),
                        detail: format!("in-memory epoch {epoch} differs from persisted epoch {persisted}"),
                        evidence: vec![event.seq],
                    });
                }
            }
            _ => {}
        }
        if matches!(
            event.kind,
            EventKind::HighWatermark { .. }
                | EventKind::State { .. }
                | EventKind::Crash { .. }
                | EventKind::Restart { .. }
                | EventKind::Truncate { .. }
                | EventKind::Snapshot { .. }
        ) {
            self.check_leader_hw(view, event.seq, found);
        }
    }

    fn record_leader(&mut self, epoch: Epoch, leader: NodeId, by: NodeId, seq: u64, found: &mut Vec<Found>) {
        match self.leaders.get(&epoch) {
            Some((l, first)) if *l != leader => found.push(Found {
                invariant: Invariant::SingleLeader,
                node: Some(by),
                detail: format!("epoch {epoch} has two leaders: n{l} and n{leader}"),
                evidence: vec![*first, seq],
            }),
            Some(_) => {}
            None => {
                self.leaders.insert(epoch, (leader, seq));
            }
        }
        if let Some(stable) = &mut self.stable {
            match stable {
                None => *stable = Some((epoch, leader, seq)),
                Some((e, l, first)) if (*e, *l) != (epoch, leader) => found.push(Found {
                    invariant: Invariant::StableLeadership,
                    node: Some(by),
                    detail: format!("leadership moved from n{l} (epoch {e}) to n{leader} (epoch {epoch})"),
                    evidence: vec![*first, seq],
                }),
                Some(_) => {}
            }
        }
    }

    /// MonotonicHighWatermark and MajorityReachedHighWatermark, for the leader of the
    /// highest epoch ever elected, while it runs. (Kafka's simulation takes the running
    /// leader with the highest epoch; that also flags a deposed leader that has not yet
    /// noticed, which check-quorum allows for up to 1.5 fetch timeouts: not a safety
    /// violation, so we look only at the newest epoch's leader.)
    fn check_leader_hw(&mut self, view: &dyn ClusterView, seq: u64, found: &mut Vec<Found>) {
        let Some((&epoch, &(id, _))) = self.leaders.iter().next_back() else {
            return;
        };
        let Some(leader) = view.replica(id).filter(|r| r.state_name() == StateName::Leader && r.epoch() == epoch)
        else {
            return;
        };
        let Some(hw) = leader.leader_state().and_then(|l| l.high_watermark) else {
            return;
        };
        if let Some((prev, at)) = self.leader_hw {
            if hw < prev {
                found.push(Found {
                    invariant: Invariant::MonotonicHighWatermark,
                    node: Some(leader.id),
                    detail: format!(
                        "leader n{} (epoch {}) exposes HW {hw}, below the {prev} seen before",
                        leader.id,
                        leader.epoch()
                    ),
                    evidence: vec![at, seq],
                });
            }
        }
        self.leader_hw = Some((hw, seq));
        let voters = view.voters();
        let holding = voters.iter().filter(|v| view.log(**v).map(|l| l.end_offset() >= hw).unwrap_or(false)).count();
        let majority = voters.len() / 2 + 1;
        if holding < majority {
            found.push(Found {
                invariant: Invariant::MajorityReachedHighWatermark,
                node: Some(leader.id),
                detail: format!(
                    "leader n{} has HW {hw} but only {holding} of {} voters hold records up to it",
                    leader.id,
                    voters.len()
                ),
                evidence: vec![seq],
            });
        }
    }
}
