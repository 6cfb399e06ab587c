//! The lanes of a window: a fold's start, the events before the window folded in, then
//! what the window's events change, kept.

use super::{Band, Changes, Lane, LaneState, Lanes, Mark, MarkKind, Outcome, Span, Step};
use crate::limits::LANES_EVENTS;
use crate::trace::{Event, EventKind};
use kraft_boundary::{Epoch, NodeId, Protocol, Summary as _};
use kraft_protocol::KRaft;

/// The window's lanes as the fold reports their changes.
struct Recorder<'a, P: Protocol> {
    lanes: &'a mut Vec<Lane<P>>,
    marks: &'a mut Vec<Mark<P>>,
}

impl<P: Protocol> Recorder<'_, P> {
    /// `node`'s lane, made when the window shows its first change (a node `addController`
    /// started inside the window).
    fn lane(&mut self, node: NodeId) -> &mut Lane<P> {
        let i = node as usize;
        if self.lanes.len() <= i {
            self.lanes.resize(i + 1, Lane::default());
        }
        &mut self.lanes[i]
    }
}

impl<P: Protocol> Changes<P> for Recorder<'_, P> {
    fn band(&mut self, node: NodeId, band: &Band<P>) {
        let bands = &mut self.lane(node).bands;
        // two changes in one millisecond: the later one is what it was at that time
        if bands.last().is_some_and(|b| b.t == band.t) {
            bands.pop();
        }
        bands.push(*band);
    }
    fn hw(&mut self, node: NodeId, step: Step) {
        push_step(&mut self.lane(node).hw, step);
    }
    fn leo(&mut self, node: NodeId, step: Step) {
        push_step(&mut self.lane(node).leo, step);
    }
    fn mark(
        &mut self,
        kind: MarkKind,
        node: Option<NodeId>,
        event: &Event<P>,
        removed: impl FnOnce() -> Vec<Option<Epoch>>,
    ) {
        self.marks.push(Mark { kind, node, event: event.clone(), removed: removed() });
    }
}

/// A step series keeps one step per millisecond (the last value) and only changes.
fn push_step(steps: &mut Vec<Step>, step: Step) {
    match steps.last_mut() {
        Some(last) if last.t == step.t => *last = step,
        Some(last) if last.value == step.value => {}
        _ => steps.push(step),
    }
}

/// Builds the lanes of [from, to] from a fold's start and the events after it, in order.
///
/// Message ids grow with their sends, so the messages it follows are kept in vectors by id
/// (found by binary search; a few dozen are on the wire at once).
pub struct Projector<P: Protocol = KRaft> {
    state: LaneState<P>,
    /// Messages sent before the window and not ended yet, by id.
    before: Vec<Span<P>>,
    /// The window's spans not ended yet: their id and index in `out.spans`, by id.
    open: Vec<(u64, usize)>,
    /// The window's connection failures: taken at their end, merged in by send time at the end.
    failures: Vec<Span<P>>,
    entered: bool,
    /// Events read in the window (from <= t <= to).
    events: u64,
    out: Lanes<P>,
}

/// Why a projection stopped: the window holds more events than one reads.
#[derive(Debug, PartialEq, Eq)]
pub struct TooManyEvents;

impl<P: Protocol> Projector<P> {
    /// Starts from `state` (the lanes after the events before the first one taken) with
    /// `on_wire` the messages then in flight whose sends it will not see.
    pub fn new(from: u64, to: u64, state: LaneState<P>, on_wire: impl IntoIterator<Item = Span<P>>) -> Projector<P> {
        let mut before: Vec<Span<P>> = Vec::new();
        for s in on_wire {
            let at = before.partition_point(|b| b.msg < s.msg);
            before.insert(at, s);
        }
        Projector {
            before,
            state,
            open: Vec::new(),
            failures: Vec::new(),
            entered: false,
            events: 0,
            out: Lanes { from, to, horizon: 0, lanes: Vec::new(), spans: Vec::new(), marks: Vec::new() },
        }
    }

    /// Takes the next event (t <= to); refused once the window holds more than
    /// `LANES_EVENTS`.
    pub fn take(&mut self, e: &Event<P>) -> Result<(), TooManyEvents> {
        if e.t < self.out.from {
            self.state.apply(e, &mut ());
            self.track_before(e);
            return Ok(());
        }
        if !self.entered {
            self.enter();
        }
        self.events += 1;
        if self.events > LANES_EVENTS.upper() {
            return Err(TooManyEvents);
        }
        let out = &mut self.out;
        self.state.apply(e, &mut Recorder { lanes: &mut out.lanes, marks: &mut out.marks });
        self.track(e);
        Ok(())
    }

    /// The lanes, running on to `horizon`.
    pub fn finish(mut self, horizon: u64) -> Lanes<P> {
        if !self.entered {
            self.enter();
        }
        self.out.horizon = horizon;
        // One lane a node, those started in the window included.
        self.out.lanes.resize(self.state.nodes.len(), Lane::default());
        // Sends come in time order; a failure goes after the sends at its send time (they are few).
        for f in std::mem::take(&mut self.failures) {
            let at = self.out.spans.partition_point(|s| s.sent <= f.sent);
            self.out.spans.insert(at, f);
        }
        self.out
    }

    /// The window starts: each lane as it is, and the messages on the wire.
    fn enter(&mut self) {
        self.entered = true;
        let from = self.out.from;
        self.out.lanes.resize(self.state.nodes.len(), Lane::default());
        for (lane, node) in self.out.lanes.iter_mut().zip(&self.state.nodes) {
            lane.bands.extend(node.band);
            // each series from the value it had, once an event set one
            if node.hw.seq > 0 {
                lane.hw.push(Step { t: from, ..node.hw });
            }
            if node.leo.seq > 0 {
                lane.leo.push(Step { t: from, ..node.leo });
            }
        }
        for span in std::mem::take(&mut self.before) {
            self.open.push((span.msg.unwrap_or(0), self.out.spans.len()));
            self.out.spans.push(span);
        }
    }

    fn track_before(&mut self, e: &Event<P>) {
        match &e.kind {
            EventKind::Send { .. } => self.before.push(sent(e)),
            EventKind::Deliver { msg, .. } | EventKind::Drop { msg, .. } => {
                if let Ok(i) = self.before.binary_search_by_key(&Some(*msg), |s| s.msg) {
                    self.before.remove(i);
                }
            }
            _ => {}
        }
    }

    /// The index in `out.spans` of message `msg` while it is open, no longer open after.
    fn close(&mut self, msg: u64) -> Option<usize> {
        let at = self.open.binary_search_by_key(&msg, |o| o.0).ok()?;
        Some(self.open.remove(at).1)
    }

    fn track(&mut self, e: &Event<P>) {
        match &e.kind {
            EventKind::Send { msg, .. } => {
                self.open.push((*msg, self.out.spans.len()));
                self.out.spans.push(sent(e));
            }
            EventKind::Deliver { msg, duplicate, .. } => {
                if let Some(i) = self.close(*msg) {
                    let s = &mut self.out.spans[i];
                    (s.end, s.end_seq, s.duplicate) = (Some(e.t), Some(e.seq), *duplicate);
                }
            }
            EventKind::Drop { msg, reason, .. } => {
                if let Some(i) = self.close(*msg) {
                    let s = &mut self.out.spans[i];
                    (s.end, s.end_seq, s.dropped) = (Some(e.t), Some(e.seq), Some(*reason));
                }
            }
            EventKind::Disconnect { node, peer, rpc, sent } => self.failures.push(Span {
                msg: None,
                from: *peer,
                to: *node,
                rpc: *rpc,
                epoch: 0,
                sent: *sent,
                arrives: e.t,
                end: Some(e.t),
                dropped: None,
                planned: None,
                duplicate: false,
                failed: true,
                outcome: Outcome::Plain,
                seq: e.seq,
                end_seq: Some(e.seq),
            }),
            _ => {}
        }
    }
}

/// The span a `send` event opens.
fn sent<P: Protocol>(e: &Event<P>) -> Span<P> {
    let EventKind::Send { msg, from, to, rpc, epoch, summary, arrives, dropped } = &e.kind else {
        unreachable!("only sends open spans")
    };
    Span {
        msg: Some(*msg),
        from: *from,
        to: *to,
        rpc: *rpc,
        epoch: *epoch,
        sent: e.t,
        arrives: *arrives,
        end: None,
        dropped: None,
        planned: *dropped,
        duplicate: false,
        failed: false,
        outcome: summary.outcome(),
        seq: e.seq,
        end_seq: None,
    }
}
