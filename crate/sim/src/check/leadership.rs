//! SingleLeader, MonotonicEpoch, MonotonicHighWatermark, MajorityReachedHighWatermark
//! and (on request) StableLeadership: the invariants about who leads and what it exposes.

use super::{ClusterView, Found};
use crate::spec::Action;
use crate::trace::{Event, EventKind, Invariant};
use kraft_boundary::{Epoch, LogView, NodeId, Offset, Protocol, ReplicaCore, StateName, VoterKey};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Leadership {
    /// Leader recorded per epoch, with the event that recorded it.
    leaders: BTreeMap<Epoch, (NodeId, u64)>,
    /// The last entry of `leaders` (the newest epoch's leader), read at most events.
    newest: Option<(Epoch, NodeId)>,
    /// The epoch on each node's disk (after a drop, the lower one: each drop is
    /// reported once, where it happens).
    persisted_epoch: Vec<Epoch>,
    /// The highest HW a highest-epoch leader has exposed, with its event.
    max_leader_hw: Option<(Offset, u64)>,
    /// That leader's HW when last seen.
    last_leader_hw: Option<Offset>,
    /// The epoch each node leads, from the events in order: an `hw` event is checked
    /// against the state of its moment, not of the end of the step that emitted it.
    leading: Vec<Option<Epoch>>,
    stable: Option<Option<(Epoch, NodeId, u64)>>,
}

/// Whether fewer than a majority of `set` (of `size` voters) hold the HW (Kafka's
/// `voters.size() / 2 + 1`). Counting stops at a majority, the usual case.
fn lacks_majority(set: impl Iterator<Item = VoterKey>, size: usize, holds: impl Fn(&VoterKey) -> bool) -> bool {
    let majority = size / 2 + 1;
    set.filter(|k| holds(k)).take(majority).count() < majority
}

impl Leadership {
    pub fn new(nodes: usize, stable_leadership: bool) -> Self {
        Leadership {
            leaders: BTreeMap::new(),
            newest: None,
            persisted_epoch: vec![0; nodes],
            max_leader_hw: None,
            last_leader_hw: None,
            leading: vec![None; nodes],
            stable: if stable_leadership { Some(None) } else { None },
        }
    }

    /// One more node, never started yet (`addController`).
    pub fn add_node(&mut self) {
        self.persisted_epoch.push(0);
        self.leading.push(None);
    }

    pub fn observe<P: Protocol>(&mut self, view: &impl ClusterView<P>, event: &Event<P>, found: &mut Vec<Found>) {
        match &event.kind {
            EventKind::Persist { node, epoch, leader, .. } => {
                self.persisted(*node, *epoch, "persisted epoch", event.seq, found);
                if let Some(l) = leader {
                    self.record_leader(*epoch, *l, *node, event.seq, found);
                }
            }
            // The quorum-state file is lost with the disk: the node's epoch is back to 0.
            EventKind::Fault(f) => {
                if let Action::Wipe { node } = f.action {
                    if is_new_replica(view, node) {
                        self.persisted_epoch[node as usize] = 0;
                    } else {
                        self.persisted(node, 0, "wiping the disk took the persisted epoch", event.seq, found)
                    }
                }
            }
            EventKind::HighWatermark { node, new, .. } => {
                if let Some(epoch) = self.newest_leader_epoch(*node) {
                    self.check_monotonic(*node, epoch, *new, event.seq, found);
                }
            }
            EventKind::Crash { node, .. } => self.leading[*node as usize] = None,
            EventKind::State { node, epoch, to, .. } => {
                self.leading[*node as usize] = to.is_leader().then_some(*epoch);
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
        // The newest leader's HW moves only at its `hw` events (the protocol traces every
        // move of a leader's HW), leadership at state, crash and restart events, and the
        // logs that must hold the HW shrink only at truncate, crash and snapshot events.
        // The voters it counts change when it appends a voter-set record (KIP-853).
        let check = match &event.kind {
            EventKind::HighWatermark { .. }
            | EventKind::State { .. }
            | EventKind::Crash { .. }
            | EventKind::Restart { .. }
            | EventKind::Truncate { .. }
            | EventKind::Snapshot { .. } => true,
            EventKind::Append { node, first, last, .. } => self.appended_voter_set(view, *node, *first, *last),
            _ => false,
        };
        if check {
            self.check_leader_hw(view, event.seq, found);
        }
    }

    /// Whether the newest epoch's leader, `node`, just appended its latest voter-set record
    /// (at `first..=last`): from then on its HW counts that set (LeaderState.updateLocalState
    /// with the uncommitted VotersRecord; KIP-853).
    fn appended_voter_set<P: Protocol>(
        &self,
        view: &impl ClusterView<P>,
        node: NodeId,
        first: Offset,
        last: Offset,
    ) -> bool {
        if self.newest_leader_epoch(node).is_none() {
            return false;
        }
        let latest = view.replica(node).and_then(|r| r.voters_before(Offset::MAX).and_then(|(at, _)| at));
        latest.is_some_and(|at| first <= at && at <= last)
    }

    /// The epoch on `node`'s disk is now `epoch`; it must not have dropped.
    fn persisted(&mut self, node: NodeId, epoch: Epoch, what: &str, seq: u64, found: &mut Vec<Found>) {
        let prev = std::mem::replace(&mut self.persisted_epoch[node as usize], epoch);
        if epoch < prev {
            found.push(Found {
                invariant: Invariant::MonotonicEpoch,
                node: Some(node),
                detail: format!("{what} from {prev} down to {epoch}"),
                evidence: vec![seq],
            });
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
                if self.newest.is_none_or(|(e, _)| epoch > e) {
                    self.newest = Some((epoch, leader));
                }
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

    /// MajorityReachedHighWatermark, for the leader of the highest epoch ever elected,
    /// while it runs. (Kafka's Cluster.leaderHighWatermark, which this invariant and
    /// MonotonicHighWatermark read, takes the running leader with the *lowest* epoch, a
    /// quirk of its comparator: that flags a deposed leader that has not yet noticed,
    /// which check-quorum allows for up to 1.5 fetch timeouts and is no safety violation.
    /// We look only at the newest epoch's leader.)
    fn check_leader_hw<P: Protocol>(&mut self, view: &impl ClusterView<P>, seq: u64, found: &mut Vec<Found>) {
        let Some((epoch, id)) = self.newest else {
            return;
        };
        let Some(leader) = view.replica(id).filter(|r| r.state_name().is_leader() && r.epoch() == epoch) else {
            return;
        };
        let Some(hw) = leader.committed_offset() else {
            return;
        };
        // The voters the leader counts: its HW claims a majority of its own voter set
        // (LeaderState.maybeUpdateHighWatermark), whatever set the cluster started with. A
        // voter counts by its key: a node whose disk is not the one the set names holds
        // nothing of that voter's (KIP-853's replica key). A voter whose disk is lost for
        // good (the set names a directory id its node's disk no longer has) counts as
        // holding: that voter can never vote again (a candidate asks for its key and the
        // new disk answers INVALID_VOTER_KEY), so it cannot help elect a leader without
        // the records; what a wipe costs is availability, not this invariant.
        let lost = |k: &VoterKey| {
            k.directory.is_some()
                && view.log(k.id).is_some_and(|l| l.directory().is_some_and(|d| Some(d) != k.directory))
        };
        let holds =
            |k: &VoterKey| lost(k) || view.log(k.id).is_some_and(|l| k.is(k.id, l.directory()) && l.end_offset() >= hw);
        // A report counts them all.
        let Some((latest_at, latest)) = leader.voters_before(Offset::MAX) else {
            // A protocol whose voters never change: the set `voters` names.
            let keys = || leader.voters().map(|id| VoterKey { id, directory: None });
            let voters = keys().count();
            if lacks_majority(keys(), voters, holds) {
                let holding = keys().filter(holds).count();
                found.push(Found {
                    invariant: Invariant::MajorityReachedHighWatermark,
                    node: Some(id),
                    detail: format!(
                        "leader n{id} has HW {hw} but only {holding} of {voters} voters hold records up to it"
                    ),
                    evidence: vec![seq],
                });
            }
            return;
        };
        let voters = latest.clone().count();
        if !lacks_majority(latest.clone(), voters, holds) {
            return;
        }
        let holding = latest.clone().filter(holds).count();
        // KIP-853 (RaftEventSimulationTest.MajorityReachedHighWatermark of PR #18987,
        // KAFKA-16580): the HW may also stand on a majority of the set in force at HW - 1,
        // the last committed one. The leader computed it with that set's majority before
        // it appended the latest, uncommitted set (a removal shrinks the set the leader
        // counts; it never lowers the HW).
        let committed = leader.voters_before(hw).filter(|(at, _)| *at != latest_at);
        let detail = match committed {
            None => format!("leader n{id} has HW {hw} but only {holding} of {voters} voters hold records up to it"),
            Some((_, set)) => {
                let size = set.clone().count();
                if !lacks_majority(set.clone(), size, holds) {
                    return;
                }
                let held = set.filter(holds).count();
                format!(
                    "leader n{id} has HW {hw} but only {holding} of the {voters} voters of its latest set and {held} \
                     of the {size} voters in force at HW - 1 hold records up to it"
                )
            }
        };
        found.push(Found {
            invariant: Invariant::MajorityReachedHighWatermark,
            node: Some(id),
            detail,
            evidence: vec![seq],
        });
    }

    /// MonotonicHighWatermark: the newest epoch's leader, `leader`, exposes `hw` now.
    ///
    /// Kafka's RaftEventSimulationTest.MonotonicHighWatermark.verify compares, after every
    /// event, the leader's HW with the one it saw before and fails the run at the first
    /// drop. A run here goes on after a violation, so the HW is compared with the highest
    /// one a newest-epoch leader ever exposed, and each drop is reported once: when the
    /// HW first falls below that, again only if it falls further.
    fn check_monotonic(&mut self, leader: NodeId, epoch: Epoch, hw: Offset, seq: u64, found: &mut Vec<Found>) {
        match self.max_leader_hw {
            Some((max, at)) if hw < max => {
                let last = self.last_leader_hw.unwrap_or(max);
                if hw < last || last == max {
                    found.push(Found {
                        invariant: Invariant::MonotonicHighWatermark,
                        node: Some(leader),
                        detail: format!(
                            "leader n{leader} (epoch {epoch}) exposes HW {hw}, below the {max} exposed before"
                        ),
                        evidence: vec![at, seq],
                    });
                }
            }
            Some((max, _)) if hw == max => {}
            _ => self.max_leader_hw = Some((hw, seq)),
        }
        self.last_leader_hw = Some(hw);
    }

    /// The newest epoch's leader, if `node` is it (by the events so far).
    fn newest_leader_epoch(&self, node: NodeId) -> Option<Epoch> {
        let (epoch, id) = self.newest?;
        (id == node && self.leading[node as usize] == Some(epoch)).then_some(epoch)
    }
}

/// Whether `node`'s freshly formatted disk makes it a new replica rather than a voter
/// that forgot its votes (KIP-853): the disk has a directory id, and every running
/// replica that may stand for election (one in its own voter set) and counts `node` as
/// a voter knows it by a key with a directory id, which the new disk no longer matches,
/// so no candidate can ask it for a vote as the old voter (KafkaRaftClient's
/// handleVoteRequest answers INVALID_VOTER_KEY). A static voter set names no directory
/// ids: a wiped static voter may vote twice in one epoch.
fn is_new_replica<P: Protocol>(view: &impl ClusterView<P>, node: NodeId) -> bool {
    let formatted = view.log(node).and_then(LogView::directory).is_some();
    let knows_by_directory = |r: &P::Replica| {
        let counts = |id| r.voters().any(|v| v == id);
        !counts(r.id()) || !counts(node) || r.voter_directory(node).is_some()
    };
    formatted && (0..view.node_count() as NodeId).filter_map(|id| view.replica(id)).all(knows_by_directory)
}
