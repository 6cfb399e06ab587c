//! SingleUncommittedVoterChange, OverlappingVoterMajorities, LeaderInOwnVoterSet and
//! RemovedLeaderResignsAfterCommit: the invariants of a voter set that changes (KIP-853).
//! Kafka's own are RaftEventSimulationTest's AtMostOneUncommittedVoterSet and its KIP-853
//! MajorityReachedHighWatermark (apache/kafka PR #18987, KAFKA-16580: "per node at most
//! one VotersRecord at offsets >= HW; committed sets differ by at most one voter"); the
//! rules they protect are AddVoterHandler's and RemoveVoterHandler's checks (one change at
//! a time, only once the latest VotersRecord is committed) and VoterSet.hasOverlappingMajority.
//!
//! What is committed is judged by the cluster, not by one node: the committed offset is
//! the highest HW any node has exposed (a follower's HW lags the leader's, and a restarted
//! node knows none, yet the records below the leader's HW are committed). The voter sets
//! come from the neutral views only (`LogEntry::voters`, `ReplicaCore::voters_before`,
//! `LogView::directory`); a protocol whose voters never change declares none, and
//! nothing here fires.

use super::{ClusterView, Found};
use crate::trace::{Event, EventKind, Invariant};
use kraft_boundary::{LogEntry, LogView, NodeId, Offset, Protocol, ReplicaCore, StateName, VoterKey};

#[derive(Clone, Debug)]
pub struct Membership {
    /// The highest HW any node exposed, with its event: records below it are committed.
    committed: Option<(Offset, u64)>,
    /// Each node's HW as its last `hw` event told it, while it leads or follows in one
    /// state (a state that carries no HW over, a crash or a restart forgets it).
    hw: Vec<Option<Offset>>,
}

/// Voters of `a` that are no voter of `b` (a key without a directory id stands for the
/// node on any disk: a static entry and the entry that upgraded it are one voter).
fn only_in(a: impl Iterator<Item = VoterKey>, b: impl Iterator<Item = VoterKey> + Clone) -> Vec<VoterKey> {
    a.filter(|k| !b.clone().any(|o| o.same_voter(*k))).collect()
}

fn list(keys: &[VoterKey]) -> String {
    let names: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    format!("{{{}}}", names.join(", "))
}

/// The record at `offset`, also when a snapshot compacted it away in this very step.
fn record_at<L: LogView>(log: &L, offset: Offset) -> Option<&L::Entry> {
    log.get(offset).or_else(|| {
        let compacted = log.compacted();
        let first = compacted.first()?.offset();
        compacted.get(offset.checked_sub(first)? as usize)
    })
}

impl Membership {
    pub fn new(nodes: usize) -> Self {
        Membership { committed: None, hw: vec![None; nodes] }
    }

    /// `node`'s slot, grown on first use (a node started at run time has none yet).
    fn hw_of(&mut self, node: NodeId) -> &mut Option<Offset> {
        let i = node as usize;
        if self.hw.len() <= i {
            self.hw.resize(i + 1, None);
        }
        &mut self.hw[i]
    }

    pub fn observe<P: Protocol>(&mut self, view: &impl ClusterView<P>, event: &Event<P>, found: &mut Vec<Found>) {
        match &event.kind {
            EventKind::Append { node, first, last, .. } => self.on_append(view, *node, *first, *last, event.seq, found),
            EventKind::HighWatermark { node, new, .. } => {
                *self.hw_of(*node) = Some(*new);
                self.on_hw(view, *node, *new, event.seq, found);
            }
            EventKind::State { node, from, to, epoch, reason, .. } => {
                if to.is_leader() {
                    leader_in_own_voter_set(view, *node, *epoch, event.seq, found);
                }
                if from.is_leader() && !to.is_leader() && P::resigned_as_removed(*reason) {
                    self.removed_leader_resigned(view, *node, event.seq, found);
                }
                if to.clears_committed_offset() {
                    *self.hw_of(*node) = None;
                }
            }
            EventKind::Crash { node, .. } | EventKind::Restart { node } => *self.hw_of(*node) = None,
            _ => {}
        }
    }

    /// SingleUncommittedVoterChange: every voter-set record `node` appended must be the
    /// only one of its log above the committed offset (AddVoterHandler and
    /// RemoveVoterHandler refuse a change while the latest VotersRecord is at or above the
    /// HW). The record before it comes from the node's voter history, so the check costs
    /// the appended records, not the log.
    fn on_append<P: Protocol>(
        &self,
        view: &impl ClusterView<P>,
        node: NodeId,
        first: Offset,
        last: Offset,
        seq: u64,
        found: &mut Vec<Found>,
    ) {
        let (Some(log), Some(replica)) = (view.log(node), view.replica(node)) else { return };
        let committed = self.committed.map_or(0, |(c, _)| c);
        for offset in first..last + 1 {
            let Some(r) = record_at(log, offset) else { continue };
            if r.voters().is_none() {
                continue;
            }
            let Some((Some(before), _)) = replica.voters_before(offset) else { continue };
            if before >= committed {
                let evidence = self.committed.map_or(vec![seq], |(_, at)| vec![at, seq]);
                found.push(Found {
                    invariant: Invariant::SingleUncommittedVoterChange,
                    node: Some(node),
                    detail: format!(
                        "n{node}'s log holds voter-set records at {before} and {offset}, both at or above the \
                         committed offset {committed}"
                    ),
                    evidence,
                });
                return; // one report per event is enough
            }
        }
    }

    /// `node` exposes HW `new`. If that moves the committed offset, OverlappingVoterMajorities:
    /// the set in force at the last committed record moves by one voter at most
    /// (VoterSet.hasOverlappingMajority with one change at a time: one key added or one
    /// removed). Compared per move of the committed offset, two changes that commit
    /// together are one jump.
    fn on_hw<P: Protocol>(
        &mut self,
        view: &impl ClusterView<P>,
        node: NodeId,
        new: Offset,
        seq: u64,
        found: &mut Vec<Found>,
    ) {
        let old = self.committed.map_or(0, |(c, _)| c);
        if self.committed.is_some() && new <= old {
            return;
        }
        let evidence_before = self.committed.map(|(_, at)| at);
        self.committed = Some((new, seq));
        let Some(replica) = view.replica(node) else { return };
        let (Some((was_at, was)), Some((now_at, now))) = (replica.voters_before(old), replica.voters_before(new))
        else {
            return;
        };
        if was_at == now_at {
            return; // no voter-set record committed
        }
        // A node of a dynamic quorum that has read no voter set yet (its static set is
        // empty: controller.quorum.bootstrap.servers only) knows no set committed before.
        if was.clone().next().is_none() {
            return;
        }
        let added = only_in(now.clone(), was.clone());
        let removed = only_in(was, now);
        if added.len() + removed.len() > 1 {
            found.push(Found {
                invariant: Invariant::OverlappingVoterMajorities,
                node: Some(node),
                detail: format!(
                    "the committed offset moved from {old} to {new} (n{node}) and the committed voter set with it \
                     by {} voters: added {}, removed {}",
                    added.len() + removed.len(),
                    list(&added),
                    list(&removed)
                ),
                evidence: evidence_before.into_iter().chain([seq]).collect(),
            });
        }
    }

    /// RemovedLeaderResignsAfterCommit: `node` left its leadership because its removal took
    /// effect. It must be out of its own latest set, and the set without it committed: below
    /// the HW it last exposed (RemoveVoterHandler.highWatermarkUpdated; until then
    /// LeaderState keeps it leading without counting itself).
    fn removed_leader_resigned<P: Protocol>(
        &self,
        view: &impl ClusterView<P>,
        node: NodeId,
        seq: u64,
        found: &mut Vec<Found>,
    ) {
        let (Some(replica), Some(log)) = (view.replica(node), view.log(node)) else { return };
        let directory = log.directory();
        let Some((at, mut latest)) = replica.voters_before(Offset::MAX) else { return };
        let hw = self.hw.get(node as usize).copied().flatten();
        let detail = if latest.any(|k| k.is(node, directory)) {
            format!("leader n{node} resigned as removed while it is in its own latest voter set")
        } else if at.is_some_and(|at| hw.is_none_or(|hw| at >= hw)) {
            let hw = hw.map_or("-".to_string(), |h| h.to_string());
            format!(
                "leader n{node} resigned as removed before the voter set without it (offset {}) committed (its HW: \
                 {hw})",
                at.unwrap_or(0)
            )
        } else {
            return;
        };
        found.push(Found {
            invariant: Invariant::RemovedLeaderResignsAfterCommit,
            node: Some(node),
            detail,
            evidence: vec![seq],
        });
    }
}

/// LeaderInOwnVoterSet: a new leader is a voter of its own latest set, directory id
/// included (only a voter becomes a candidate: QuorumState.isVoter, checked by
/// KafkaRaftClient.pollFollowerAsVoter and transitionToProspective; an observer never
/// stands, and votes do not check the candidate's membership).
fn leader_in_own_voter_set<P: Protocol>(
    view: &impl ClusterView<P>,
    node: NodeId,
    epoch: kraft_boundary::Epoch,
    seq: u64,
    found: &mut Vec<Found>,
) {
    let (Some(replica), Some(log)) = (view.replica(node), view.log(node)) else { return };
    let directory = log.directory();
    let in_set = match replica.voters_before(Offset::MAX) {
        Some((_, mut keys)) => keys.any(|k| k.is(node, directory)),
        None => replica.voters().any(|v| v == node),
    };
    if !in_set {
        let me = VoterKey { id: node, directory };
        let set: Vec<VoterKey> = match replica.voters_before(Offset::MAX) {
            Some((_, keys)) => keys.collect(),
            None => replica.voters().map(|id| VoterKey { id, directory: None }).collect(),
        };
        found.push(Found {
            invariant: Invariant::LeaderInOwnVoterSet,
            node: Some(node),
            detail: format!("{me} became leader of epoch {epoch} but its latest voter set is {}", list(&set)),
            evidence: vec![seq],
        });
    }
}
