//! ConsistentCommittedData, LogMatching, LeaderCompleteness and
//! NoTruncationBelowHighWatermark: the invariants about the records themselves.
//!
//! Notes shared by all nodes remember what was seen: the first record committed at
//! each offset, and the first record appended at each (offset, epoch) with its
//! predecessor. Notes below every node's log start can never be compared again and
//! are pruned when snapshots move the log starts up.

use super::by_offset::ByOffset;
use super::{ClusterView, Found};
use crate::trace::{Event, EventKind, Invariant};
use kraft_base::shared::{Holder, Meter, Metering, SharedMap};
use kraft_boundary::{Epoch, LogEntry, LogView, NodeId, Offset, Protocol, ReplicaCore, StateName};

/// A record's identity: (epoch, unique id).
type RecordKey = (Epoch, u64);

/// The first record appended at an (offset, epoch): its id, its predecessor and the
/// event that appended it.
type Appended = (u64, Option<RecordKey>, u64);

/// The first record exposed below a HW at an offset. Flat, so that a slot is no bigger
/// than it was without `in_epoch` (it fits where a (RecordKey, u64) pair had padding).
#[derive(Clone, Copy, Debug)]
struct Committed {
    record_epoch: Epoch,
    /// The epoch of the node that exposed it: the leader that committed it, or a follower
    /// told by the leader of that epoch. Leader completeness is owed to leaders of later
    /// epochs only.
    in_epoch: Epoch,
    id: u64,
    /// The event that exposed it.
    at: u64,
}

impl Committed {
    fn key(&self) -> RecordKey {
        (self.record_epoch, self.id)
    }
}

/// The notes are shared (see `shared`) so checkpoints of the world do not copy them.
#[derive(Clone, Debug)]
pub struct Data {
    /// offset -> the record first exposed there below a HW
    committed: ByOffset<Committed>,
    /// Each node's epoch, as its state events tell it (one per node: not metered).
    epochs: Vec<Epoch>,
    /// The highest HW each node exposed since it last restarted, with the `hw` event that
    /// exposed it (one per node: not metered). Kafka's QuorumState.transitionToLeader and
    /// transitionToResigned start without a HW, and the states after Resigned carry none
    /// until a leader's Fetch response sets it, so the HW a truncate event carries may be
    /// empty (or lower) while records the node exposed before are cut.
    exposed_hw: Vec<Option<(Offset, u64)>>,
    /// offset -> (epoch, what was appended) for the first epoch appended at the offset
    appended: ByOffset<(Epoch, Appended)>,
    /// (offset, epoch) -> what was appended, for the other epochs (appended after a
    /// truncation: few)
    appended_later: SharedMap<(Offset, Epoch), Appended>,
    pruned_below: Offset,
}

/// The record at `offset`, also when a snapshot compacted it away in this very step
/// (the view is the log as the step left it).
fn record_at<L: LogView>(log: &L, offset: Offset) -> Option<&L::Entry> {
    log.get(offset).or_else(|| {
        let compacted = log.compacted();
        let first = compacted.first()?.offset();
        compacted.get(offset.checked_sub(first)? as usize)
    })
}

/// The first offset `record_at` can answer for.
fn first_held(log: &impl LogView) -> Offset {
    log.compacted().first().map(|r| r.offset()).unwrap_or(log.start_offset())
}

fn key_at(log: &impl LogView, offset: Offset) -> Option<RecordKey> {
    record_at(log, offset).map(|r| (r.epoch(), r.id()))
}

/// `node`'s slot of a per-node note, grown on first use.
fn per_node<T: Clone + Default>(notes: &mut Vec<T>, node: NodeId) -> &mut T {
    let i = node as usize;
    if notes.len() <= i {
        notes.resize(i + 1, T::default());
    }
    &mut notes[i]
}

impl Data {
    pub fn new() -> Self {
        Data::metered(&Meter::default())
    }

    /// Bytes per slot or entry are what the memory budget counts for them.
    pub fn metered(meter: &Meter) -> Self {
        Data {
            committed: ByOffset::new(meter),
            epochs: Vec::new(),
            exposed_hw: Vec::new(),
            appended: ByOffset::new(meter),
            appended_later: SharedMap::new(Metering::new(meter, Holder::Checker, 56)),
            pruned_below: 0,
        }
    }

    pub fn observe<P: Protocol>(&mut self, view: &impl ClusterView<P>, event: &Event<P>, found: &mut Vec<Found>) {
        match &event.kind {
            EventKind::HighWatermark { node, old, new, .. } => {
                let exposed = per_node(&mut self.exposed_hw, *node);
                if exposed.is_none_or(|(hw, _)| *new > hw) {
                    *exposed = Some((*new, event.seq));
                }
                self.on_hw(view, *node, *old, *new, event.seq, found)
            }
            EventKind::Append { node, first, last, .. } => self.on_append(view, *node, *first, *last, event.seq, found),
            EventKind::Truncate { node, to, hw, .. } => {
                if let Some(report) = self.truncated_below_hw(*node, *to, *hw, event.seq) {
                    found.push(report)
                }
            }
            // The HW lives in memory only: a restarted node has exposed nothing yet.
            EventKind::Restart { node } => *per_node(&mut self.exposed_hw, *node) = None,
            EventKind::State { node, to, epoch, .. } => {
                *per_node(&mut self.epochs, *node) = *epoch;
                if to.is_leader() {
                    self.on_new_leader(view, *node, *epoch, event.seq, found)
                }
            }
            EventKind::Snapshot { .. } => self.prune(view),
            _ => {}
        }
    }

    /// NoTruncationBelowHighWatermark: `node` truncated its log to `to` while its HW was
    /// `hw`; no record it exposed as committed since its restart may go.
    fn truncated_below_hw(&self, node: NodeId, to: Offset, hw: Option<Offset>, seq: u64) -> Option<Found> {
        let (detail, evidence) = match (hw, self.exposed_hw.get(node as usize).copied().flatten()) {
            (Some(hw), _) if to < hw => (format!("n{node} truncated to {to}, below its HW {hw}"), vec![seq]),
            (hw, Some((exposed, at))) if to < exposed => {
                let now = hw.map_or("-".to_string(), |hw| hw.to_string());
                (
                    format!("n{node} truncated to {to}, below the HW {exposed} it exposed before (its HW now: {now})"),
                    vec![at, seq],
                )
            }
            _ => return None,
        };
        Some(Found { invariant: Invariant::NoTruncationBelowHighWatermark, node: Some(node), detail, evidence })
    }

    /// Every offset a node newly exposes below its HW must hold the record any other node
    /// exposed there.
    fn on_hw<P: Protocol>(
        &mut self,
        view: &impl ClusterView<P>,
        node: NodeId,
        old: Option<Offset>,
        new: Offset,
        seq: u64,
        found: &mut Vec<Found>,
    ) {
        let Some(log) = view.log(node) else { return };
        self.expose(log, node, old.unwrap_or(0)..new, seq, found);
    }

    /// `node` exposes the records of `offsets` (those its log holds) as committed.
    fn expose(
        &mut self,
        log: &impl LogView,
        node: NodeId,
        offsets: std::ops::Range<Offset>,
        seq: u64,
        found: &mut Vec<Found>,
    ) {
        let from = offsets.start.max(first_held(log)).max(self.pruned_below);
        let to = offsets.end.min(log.end_offset());
        let in_epoch = self.epochs.get(node as usize).copied().unwrap_or(0);
        for offset in from..to {
            let Some(mine) = key_at(log, offset) else {
                continue;
            };
            let note = || Committed { record_epoch: mine.0, in_epoch, id: mine.1, at: seq };
            match self.committed.get_or_note(offset, note).map(|c| (c.key(), c.at)) {
                None => {}
                Some((theirs, first)) if theirs != mine => {
                    found.push(Found {
                        invariant: Invariant::ConsistentCommittedData,
                        node: Some(node),
                        detail: format!(
                            "offset {offset} is committed as record {}@e{} but n{node} exposes record {}@e{}",
                            theirs.1, theirs.0, mine.1, mine.0
                        ),
                        evidence: vec![first, seq],
                    });
                    return; // one report per event is enough
                }
                Some(_) => {}
            }
        }
    }

    /// Same (offset, epoch) must mean the same record with the same predecessor. Records
    /// appended below the node's HW (after it truncated below it) are exposed at once.
    fn on_append<P: Protocol>(
        &mut self,
        view: &impl ClusterView<P>,
        node: NodeId,
        first: Offset,
        last: Offset,
        seq: u64,
        found: &mut Vec<Found>,
    ) {
        let Some(log) = view.log(node) else { return };
        if let Some(hw) = view.replica(node).and_then(|r| r.committed_offset()).filter(|hw| first < *hw) {
            self.expose(log, node, first..hw.min(last + 1), seq, found);
        }
        // The key of the record at `offset - 1` when the loop read it (the log does not
        // change during the loop): each record is read once.
        let mut before: Option<RecordKey> = None;
        for offset in first.max(self.pruned_below)..last + 1 {
            let Some(r) = record_at(log, offset) else {
                before = None;
                continue;
            };
            let prev = if offset == 0 {
                None
            } else {
                before.or_else(|| key_at(log, offset - 1)).or_else(|| log.epoch_at(offset - 1).map(|e| (e, 0)))
            };
            let (record_epoch, record_id) = (r.epoch(), r.id());
            before = Some((record_epoch, record_id));
            let noted = match self.appended.get_or_note(offset, || (record_epoch, (record_id, prev, seq))) {
                None => None,
                Some((epoch, noted)) if epoch == record_epoch => Some(noted),
                Some(_) => match self.appended_later.get(&(offset, record_epoch)) {
                    None => {
                        self.appended_later.insert((offset, record_epoch), (record_id, prev, seq));
                        None
                    }
                    noted => noted.copied(),
                },
            };
            match noted {
                None => {}
                Some((id, p, at)) => {
                    let prefix_differs = match (p, prev) {
                        (Some(a), Some(b)) => a.1 != 0 && b.1 != 0 && a != b,
                        _ => false,
                    };
                    if id != record_id || prefix_differs {
                        found.push(Found {
                            invariant: Invariant::LogMatching,
                            node: Some(node),
                            detail: if id != record_id {
                                format!(
                                    "(offset {offset}, epoch {}) holds record {} on n{node} but record {id} elsewhere",
                                    record_epoch, record_id
                                )
                            } else {
                                format!(
                                    "(offset {offset}, epoch {}) matches but the logs differ before it",
                                    record_epoch
                                )
                            },
                            evidence: vec![at, seq],
                        });
                        return;
                    }
                }
            }
        }
    }

    /// A new leader must hold every record committed in its epoch or an earlier one. A
    /// leader of an older epoch than a commit owes it nothing: a candidate can still win
    /// its epoch with a late vote after a newer leader has committed
    /// (KafkaRaftClient.handleVoteResponse counts a granted vote of the candidate's own
    /// epoch), and it can commit nothing there, the majority having moved on. A second
    /// leader of the commit's own epoch (a restarted leader leading again) is held to it.
    fn on_new_leader<P: Protocol>(
        &mut self,
        view: &impl ClusterView<P>,
        node: NodeId,
        epoch: Epoch,
        seq: u64,
        found: &mut Vec<Found>,
    ) {
        let Some(log) = view.log(node) else { return };
        for (offset, committed) in self.committed.iter_from(first_held(log)) {
            if committed.in_epoch > epoch {
                continue;
            }
            let (key, at) = (committed.key(), committed.at);
            if key_at(log, offset) != Some(key) {
                let has = match key_at(log, offset) {
                    Some((e, id)) => format!("record {id}@e{e}"),
                    None => "nothing".into(),
                };
                found.push(Found {
                    invariant: Invariant::LeaderCompleteness,
                    node: Some(node),
                    detail: format!(
                        "n{node} became leader of epoch {epoch} without committed record {}@e{} at offset {offset} (it has {has})",
                        key.1, key.0
                    ),
                    evidence: vec![at, seq],
                });
                return;
            }
        }
    }

    /// Forgets offsets below every node's log start: nothing can be compared there again.
    fn prune<P: Protocol>(&mut self, view: &impl ClusterView<P>) {
        let min_start =
            (0..view.node_count() as NodeId).filter_map(|id| view.log(id)).map(first_held).min().unwrap_or(0);
        if min_start > self.pruned_below {
            self.committed.forget_below(min_start);
            self.appended.forget_below(min_start);
            self.appended_later.remove_below(&(min_start, 0));
            self.pruned_below = min_start;
        }
    }
}
