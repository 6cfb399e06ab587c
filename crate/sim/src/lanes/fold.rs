//! What each lane looks like after a prefix of the trace, and the one fold that moves it
//! on by an event, telling what changed.

use super::{Band, MarkKind, Step};
use crate::trace::{Event, EventKind, SnapshotAction};
use kraft_boundary::{Epoch, NodeId, Offset, Protocol, StateName};
use kraft_protocol::KRaft;

/// At most this many removed records of one truncation are listed (a snapshot can
/// replace a whole log).
pub const MAX_REMOVED: u64 = 1000;
/// Epoch runs kept per log for the epochs of removed records: older ones are forgotten
/// (their records then show no epoch).
const MAX_RUNS: usize = 256;

/// What a fold reports as it goes: the projection records it, the simulation's own
/// fold does not. A mark's removed epochs come as a function, called only by a
/// recorder: reporting nothing costs nothing.
pub trait Changes<P: Protocol> {
    fn band(&mut self, node: NodeId, band: &Band<P>);
    fn hw(&mut self, node: NodeId, step: Step);
    fn leo(&mut self, node: NodeId, step: Step);
    fn mark(
        &mut self,
        kind: MarkKind,
        node: Option<NodeId>,
        event: &Event<P>,
        removed: impl FnOnce() -> Vec<Option<Epoch>>,
    );
}

/// Reports nothing.
impl<P: Protocol> Changes<P> for () {
    fn band(&mut self, _: NodeId, _: &Band<P>) {}
    fn hw(&mut self, _: NodeId, _: Step) {}
    fn leo(&mut self, _: NodeId, _: Step) {}
    fn mark(&mut self, _: MarkKind, _: Option<NodeId>, _: &Event<P>, _: impl FnOnce() -> Vec<Option<Epoch>>) {}
}

/// What each lane looks like after a prefix of the trace.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneState<P: Protocol = KRaft> {
    pub(super) nodes: Vec<NodeLane<P>>,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct NodeLane<P: Protocol> {
    pub(super) band: Option<Band<P>>,
    pub(super) hw: Step,
    /// The last HW it had (what a crash forgets).
    last_hw: Option<Offset>,
    pub(super) leo: Step,
    /// Which epoch last wrote each offset of its log: `(first offset, epoch)` runs, for
    /// the epochs of the records a truncation removes.
    runs: Vec<(Offset, Epoch)>,
}

impl<P: Protocol> NodeLane<P> {
    fn new() -> NodeLane<P> {
        NodeLane { band: None, hw: Step::default(), last_hw: None, leo: Step::default(), runs: Vec::new() }
    }

    fn set_hw(&mut self, node: NodeId, e: &Event<P>, value: Option<Offset>, out: &mut impl Changes<P>) {
        self.hw = Step { t: e.t, seq: e.seq, value };
        if value.is_some() {
            self.last_hw = value;
        }
        out.hw(node, self.hw);
    }

    fn set_leo(&mut self, node: NodeId, e: &Event<P>, leo: Offset, out: &mut impl Changes<P>) {
        self.leo = Step { t: e.t, seq: e.seq, value: Some(leo) };
        out.leo(node, self.leo);
    }

    fn leo(&self) -> Offset {
        self.leo.value.unwrap_or(0)
    }

    /// Records `first..=last` as written in `epoch`.
    fn wrote(&mut self, first: Offset, epoch: Epoch) {
        self.runs.truncate(self.runs.partition_point(|r| r.0 < first));
        if self.runs.last().is_none_or(|r| r.1 != epoch) {
            self.runs.push((first, epoch));
        }
        if self.runs.len() > MAX_RUNS {
            self.runs.remove(0);
        }
    }

    /// The epochs that last wrote offsets `from..to`.
    fn epochs(&self, from: Offset, to: Offset) -> Vec<Option<Epoch>> {
        (from..to).map(|o| self.runs[..self.runs.partition_point(|r| r.0 <= o)].last().map(|r| r.1)).collect()
    }
}

impl<P: Protocol> LaneState<P> {
    pub fn new(nodes: usize) -> LaneState<P> {
        LaneState { nodes: vec![NodeLane::new(); nodes] }
    }

    /// Folds one event in, telling `out` what it changed. A copy per kind of `out`, not
    /// behind `dyn`: the simulation folds every event it records, and its copy (`()`)
    /// then calls nothing and builds no removed epochs. Not inlined: the wasm is weighed.
    #[inline(never)]
    pub fn apply(&mut self, e: &Event<P>, out: &mut impl Changes<P>) {
        // The event's kind first, its node's lane only where the kind changes it: most
        // events (messages) change nothing.
        let lanes = &mut self.nodes;
        match &e.kind {
            EventKind::State { node, from, to, epoch, leader, reason, .. } => {
                let Some(lane) = lanes.get_mut(*node as usize) else { return };
                let band = Band {
                    t: e.t,
                    seq: e.seq,
                    state: *to,
                    from: *from,
                    epoch: *epoch,
                    leader: *leader,
                    reason: Some(*reason),
                    hw: None,
                };
                out.band(*node, &band);
                lane.band = Some(band);
                if to.is_leader() {
                    out.mark(MarkKind::Leader, None, e, Vec::new);
                }
                // A state that clears the committed offset (KRaft's leader and resigned): the
                // node has none until its next `hw` event.
                if to.clears_committed_offset() {
                    lane.set_hw(*node, e, None, out);
                }
            }
            EventKind::Crash { node, lost_records } => {
                if let Some(lane) = lanes.get_mut(*node as usize) {
                    let before = lane.band.as_ref();
                    let band = Band {
                        t: e.t,
                        seq: e.seq,
                        state: P::State::CRASHED,
                        // none before: it never started
                        from: before.map_or(P::State::CRASHED, |b| b.state),
                        epoch: before.map_or(0, |b| b.epoch),
                        leader: None,
                        reason: None,
                        hw: lane.last_hw,
                    };
                    out.band(*node, &band);
                    lane.band = Some(band);
                    lane.set_hw(*node, e, None, out);
                    let leo = lane.leo().saturating_sub(*lost_records);
                    lane.set_leo(*node, e, leo, out);
                }
                out.mark(MarkKind::Crash, Some(*node), e, Vec::new);
            }
            EventKind::HighWatermark { node, new, .. } => {
                if let Some(lane) = lanes.get_mut(*node as usize) {
                    lane.set_hw(*node, e, Some(*new), out);
                }
            }
            EventKind::Append { node, first, last, epoch, .. } => {
                if let Some(lane) = lanes.get_mut(*node as usize) {
                    lane.wrote(*first, *epoch);
                    lane.set_leo(*node, e, last + 1, out);
                }
            }
            EventKind::Truncate { node, from_leo, to, .. } => match lanes.get_mut(*node as usize) {
                Some(lane) => {
                    out.mark(MarkKind::Truncate, Some(*node), e, || {
                        lane.epochs(*to, (*from_leo).min(to + MAX_REMOVED))
                    });
                    lane.set_leo(*node, e, *to, out);
                }
                None => out.mark(MarkKind::Truncate, Some(*node), e, Vec::new),
            },
            EventKind::Snapshot { node, action, id } => {
                if let Some(lane) = lanes.get_mut(*node as usize) {
                    if matches!(action, SnapshotAction::Fetched | SnapshotAction::Loaded) {
                        let leo = lane.leo().max(id.end_offset);
                        lane.set_leo(*node, e, leo, out);
                        lane.set_hw(*node, e, Some(id.end_offset), out);
                    }
                }
                out.mark(MarkKind::Snapshot, Some(*node), e, Vec::new);
            }
            EventKind::Restart { node } => out.mark(MarkKind::Restart, Some(*node), e, Vec::new),
            EventKind::Vote { node, .. } => out.mark(MarkKind::Vote, Some(*node), e, Vec::new),
            EventKind::Write { node, .. } => out.mark(MarkKind::Write, *node, e, Vec::new),
            EventKind::Violation { node, .. } => out.mark(MarkKind::Violation, *node, e, Vec::new),
            EventKind::Fault(f) => {
                // A controller started at run time (`addController`): a lane from now on.
                if let Some(n) = f.added.filter(|n| *n as usize >= lanes.len()) {
                    lanes.resize(n as usize + 1, NodeLane::new());
                }
                out.mark(MarkKind::Fault, None, e, Vec::new)
            }
            _ => {}
        }
    }

    /// Bytes it holds, for a checkpoint's memory estimate.
    pub fn bytes(&self) -> u64 {
        let runs: usize = self.nodes.iter().map(|l| l.runs.len()).sum();
        (self.nodes.len() * std::mem::size_of::<NodeLane<P>>() + runs * 16) as u64
    }
}
