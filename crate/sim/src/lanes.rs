//! The timeline's lanes over a window of a run, read from the trace: each node's state
//! bands, its HW and LEO as step series and its marks (a new leader, a crash, a
//! truncation, a vote, a write ...), and the messages that cross the window as spans.
//! The UI draws what this serves; it keeps no model of the run of its own.
//!
//! One fold ([`LaneState::apply`]) turns events into what each lane looks like. The
//! simulation folds every event it records, so each checkpoint carries the lanes as they
//! were there; a projection ([`Projector`]) starts from a checkpoint's, folds the events
//! before the window and keeps what the window's events change. A window reads the same
//! whichever checkpoint it starts from, and costs the events since that checkpoint.

use crate::limits::LANES_EVENTS;
use crate::trace::{DropReason, Event, EventKind, SnapshotAction};
use kraft_protocol::rpc::{ErrorCode, FetchOutcome, MessageSummary, RpcKind};
use kraft_protocol::{Epoch, NodeId, Offset, Reason, StateName};
use serde::Serialize;

/// At most this many removed records of one truncation are listed (a snapshot can
/// replace a whole log).
pub const MAX_REMOVED: u64 = 1000;
/// Epoch runs kept per log for the epochs of removed records: older ones are forgotten
/// (their records then show no epoch).
const MAX_RUNS: usize = 256;

/// A node's state from the event that began it until the next band.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LaneBand"))]
pub struct Band {
    /// When it began: the time and seq of its `state` (or `crash`) event.
    pub t: u64,
    pub seq: u64,
    pub state: StateName,
    /// The state before it (a crash: the one it crashed in).
    pub from: StateName,
    pub epoch: Epoch,
    pub leader: Option<NodeId>,
    /// Why, as its `state` event says; none for a crash.
    pub reason: Option<Reason>,
    /// A crash: the HW the node last had (a crash forgets it; the logs still mark it).
    pub hw: Option<Offset>,
}

/// One step of a lane's HW or LEO: its value from `t` on (none: no HW, the line breaks),
/// set by event `seq` (0 before any).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Step {
    pub t: u64,
    pub seq: u64,
    pub value: Option<Offset>,
}

crate::named! {
    /// What the timeline draws a marked event as.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "lowercase")]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LaneMarkKind"))]
    pub enum MarkKind {
        /// A `state` event into leader: a line across the lanes.
        Leader = "leader",
        Truncate = "truncate",
        Crash = "crash",
        Restart = "restart",
        Snapshot = "snapshot",
        Vote = "vote",
        Write = "write",
        Fault = "fault",
        Violation = "violation",
    }
}

/// A marked event.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LaneMark"))]
pub struct Mark {
    pub kind: MarkKind,
    /// Its lane; none: the whole cluster (a new leader, a fault).
    pub node: Option<NodeId>,
    /// With its `text`.
    #[cfg_attr(feature = "ts", ts(type = "TraceEvent"))]
    pub event: Event,
    /// A truncation: the epochs of the records it removed, from its `to` on (at most
    /// `MAX_REMOVED`; none: not known any more).
    pub removed: Vec<Option<Epoch>>,
}

crate::named! {
    /// What a message's summary says that the timeline draws (its other fields do not).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Outcome {
        #[default]
        Plain = "plain",
        /// A (pre-)vote granted.
        Granted = "granted",
        Refused = "refused",
        /// A fetch answered with an error.
        Error = "error",
        /// A fetch answered with a diverging epoch (the follower truncates).
        Diverging = "diverging",
        /// A fetch answered with a snapshot to fetch.
        Snapshot = "snapshot",
    }
}

impl Outcome {
    fn of(summary: &MessageSummary) -> Outcome {
        match summary {
            MessageSummary::VoteResponse { granted: true, .. } => Outcome::Granted,
            MessageSummary::VoteResponse { .. } => Outcome::Refused,
            MessageSummary::FetchResponse { error, .. } if *error != ErrorCode::None => Outcome::Error,
            MessageSummary::FetchResponse { outcome: FetchOutcome::Diverging { .. }, .. } => Outcome::Diverging,
            MessageSummary::FetchResponse { outcome: FetchOutcome::Snapshot { .. }, .. } => Outcome::Snapshot,
            _ => Outcome::Plain,
        }
    }
}

/// A message from its send to its delivery or drop, or a connection failure travelling
/// back to the requester (a `disconnect`).
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The message's id; none for a connection failure.
    pub msg: Option<u64>,
    pub from: NodeId,
    pub to: NodeId,
    pub rpc: RpcKind,
    pub epoch: Epoch,
    pub sent: u64,
    pub arrives: u64,
    /// When it was delivered or dropped; none while unknown (in flight, or after the
    /// window).
    pub end: Option<u64>,
    pub dropped: Option<DropReason>,
    /// The drop the network planned at send (a partition: at once; loss: halfway).
    pub planned: Option<DropReason>,
    pub duplicate: bool,
    pub failed: bool,
    pub outcome: Outcome,
    /// Its send (or failure) event; 0 when it was on the wire where the fold began.
    pub seq: u64,
    pub end_seq: Option<u64>,
}

impl Span {
    /// A message on the wire where a fold begins, its send not read.
    pub fn on_wire(m: &crate::wire::InFlight) -> Span {
        let message = &m.envelope.message;
        Span {
            msg: Some(m.id),
            from: m.envelope.from,
            to: m.envelope.to,
            rpc: message.kind(),
            epoch: message.epoch(),
            sent: m.sent,
            arrives: m.arrives,
            end: None,
            dropped: None,
            planned: None,
            duplicate: false,
            failed: false,
            outcome: Outcome::of(&message.summary()),
            seq: 0,
            end_seq: None,
        }
    }
}

/// One lane as the window shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lane {
    /// From the one in force at the window's start.
    pub bands: Vec<Band>,
    /// From the value at the window's start.
    pub hw: Vec<Step>,
    pub leo: Vec<Step>,
}

/// The timeline's lanes over [from, to].
#[derive(Clone, Debug, PartialEq)]
pub struct Lanes {
    pub from: u64,
    pub to: u64,
    /// The end of the recorded run (now, or later after a seek back): the last band and
    /// step of each lane run on to it.
    pub horizon: u64,
    /// One per node.
    pub lanes: Vec<Lane>,
    /// By send time.
    pub spans: Vec<Span>,
    /// In event order.
    pub marks: Vec<Mark>,
}

/// What a fold reports as it goes: the projection records it, the simulation's own
/// fold does not.
pub trait Changes {
    fn band(&mut self, node: NodeId, band: &Band);
    fn hw(&mut self, node: NodeId, step: Step);
    fn leo(&mut self, node: NodeId, step: Step);
    fn mark(&mut self, kind: MarkKind, node: Option<NodeId>, event: &Event, removed: Vec<Option<Epoch>>);
}

/// Reports nothing.
impl Changes for () {
    fn band(&mut self, _: NodeId, _: &Band) {}
    fn hw(&mut self, _: NodeId, _: Step) {}
    fn leo(&mut self, _: NodeId, _: Step) {}
    fn mark(&mut self, _: MarkKind, _: Option<NodeId>, _: &Event, _: Vec<Option<Epoch>>) {}
}

/// What each lane looks like after a prefix of the trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneState {
    nodes: Vec<NodeLane>,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct NodeLane {
    band: Option<Band>,
    hw: Step,
    /// The last HW it had (what a crash forgets).
    last_hw: Option<Offset>,
    leo: Step,
    /// Which epoch last wrote each offset of its log: `(first offset, epoch)` runs, for
    /// the epochs of the records a truncation removes.
    runs: Vec<(Offset, Epoch)>,
}

impl NodeLane {
    fn set_hw(&mut self, node: NodeId, e: &Event, value: Option<Offset>, out: &mut dyn Changes) {
        self.hw = Step { t: e.t, seq: e.seq, value };
        if value.is_some() {
            self.last_hw = value;
        }
        out.hw(node, self.hw);
    }

    fn set_leo(&mut self, node: NodeId, e: &Event, leo: Offset, out: &mut dyn Changes) {
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

impl LaneState {
    pub fn new(nodes: usize) -> LaneState {
        LaneState { nodes: vec![NodeLane::default(); nodes] }
    }

    /// Folds one event in, telling `out` what it changed. One copy of it, not inlined: the
    /// simulation folds every event it records, and the page's wasm is weighed.
    #[inline(never)]
    pub fn apply(&mut self, e: &Event, out: &mut dyn Changes) {
        let lane = e.kind.node().and_then(|n| self.nodes.get_mut(n as usize).map(|l| (n, l)));
        match (&e.kind, lane) {
            (EventKind::State { from, to, epoch, leader, reason, .. }, Some((n, lane))) => {
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
                out.band(n, &band);
                lane.band = Some(band);
                if *to == StateName::Leader {
                    out.mark(MarkKind::Leader, None, e, Vec::new());
                }
                // Kafka carries no HW into Leader or Resigned (QuorumState.transitionToLeader):
                // the node has none until its next `hw` event.
                if matches!(to, StateName::Leader | StateName::Resigned) {
                    lane.set_hw(n, e, None, out);
                }
            }
            (EventKind::Crash { lost_records, .. }, Some((n, lane))) => {
                let before = lane.band.as_ref();
                let band = Band {
                    t: e.t,
                    seq: e.seq,
                    state: StateName::Crashed,
                    from: before.map_or(StateName::Unattached, |b| b.state),
                    epoch: before.map_or(0, |b| b.epoch),
                    leader: None,
                    reason: None,
                    hw: lane.last_hw,
                };
                out.band(n, &band);
                lane.band = Some(band);
                lane.set_hw(n, e, None, out);
                let leo = lane.leo().saturating_sub(*lost_records);
                lane.set_leo(n, e, leo, out);
                out.mark(MarkKind::Crash, Some(n), e, Vec::new());
            }
            (EventKind::HighWatermark { new, .. }, Some((n, lane))) => lane.set_hw(n, e, Some(*new), out),
            (EventKind::Append { first, last, epoch, .. }, Some((n, lane))) => {
                lane.wrote(*first, *epoch);
                lane.set_leo(n, e, last + 1, out);
            }
            (EventKind::Truncate { from_leo, to, .. }, Some((n, lane))) => {
                let removed = lane.epochs(*to, (*from_leo).min(to + MAX_REMOVED));
                out.mark(MarkKind::Truncate, Some(n), e, removed);
                lane.set_leo(n, e, *to, out);
            }
            (EventKind::Snapshot { action, id, .. }, Some((n, lane))) => {
                if matches!(action, SnapshotAction::Fetched | SnapshotAction::Loaded) {
                    let leo = lane.leo().max(id.end_offset);
                    lane.set_leo(n, e, leo, out);
                    lane.set_hw(n, e, Some(id.end_offset), out);
                }
                out.mark(MarkKind::Snapshot, Some(n), e, Vec::new());
            }
            (EventKind::Restart { node }, _) => out.mark(MarkKind::Restart, Some(*node), e, Vec::new()),
            (EventKind::Vote { node, .. }, _) => out.mark(MarkKind::Vote, Some(*node), e, Vec::new()),
            (EventKind::Write { node, .. }, _) => out.mark(MarkKind::Write, *node, e, Vec::new()),
            (EventKind::Violation { node, .. }, _) => out.mark(MarkKind::Violation, *node, e, Vec::new()),
            (EventKind::Fault(_), _) => out.mark(MarkKind::Fault, None, e, Vec::new()),
            (EventKind::Truncate { node, .. }, None) => out.mark(MarkKind::Truncate, Some(*node), e, Vec::new()),
            (EventKind::Crash { node, .. }, None) => out.mark(MarkKind::Crash, Some(*node), e, Vec::new()),
            (EventKind::Snapshot { node, .. }, None) => out.mark(MarkKind::Snapshot, Some(*node), e, Vec::new()),
            _ => {}
        }
    }

    /// Bytes it holds, for a checkpoint's memory estimate.
    pub fn bytes(&self) -> u64 {
        let runs: usize = self.nodes.iter().map(|l| l.runs.len()).sum();
        (self.nodes.len() * std::mem::size_of::<NodeLane>() + runs * 16) as u64
    }
}

/// The window's lanes as the fold reports their changes.
struct Recorder<'a> {
    lanes: &'a mut [Lane],
    marks: &'a mut Vec<Mark>,
}

impl Changes for Recorder<'_> {
    fn band(&mut self, node: NodeId, band: &Band) {
        let bands = &mut self.lanes[node as usize].bands;
        // two changes in one millisecond: the later one is what it was at that time
        if bands.last().is_some_and(|b| b.t == band.t) {
            bands.pop();
        }
        bands.push(*band);
    }
    fn hw(&mut self, node: NodeId, step: Step) {
        push_step(&mut self.lanes[node as usize].hw, step);
    }
    fn leo(&mut self, node: NodeId, step: Step) {
        push_step(&mut self.lanes[node as usize].leo, step);
    }
    fn mark(&mut self, kind: MarkKind, node: Option<NodeId>, event: &Event, removed: Vec<Option<Epoch>>) {
        self.marks.push(Mark { kind, node, event: event.clone(), removed });
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
pub struct Projector {
    state: LaneState,
    /// Messages sent before the window and not ended yet, by id.
    before: Vec<Span>,
    /// The window's spans not ended yet: their id and index in `out.spans`, by id.
    open: Vec<(u64, usize)>,
    /// The window's connection failures: taken at their end, merged in by send time at the end.
    failures: Vec<Span>,
    entered: bool,
    /// Events read in the window (from <= t <= to).
    events: u64,
    out: Lanes,
}

/// Why a projection stopped: the window holds more events than one reads.
#[derive(Debug, PartialEq, Eq)]
pub struct TooManyEvents;

impl Projector {
    /// Starts from `state` (the lanes after the events before the first one taken) with
    /// `on_wire` the messages then in flight whose sends it will not see.
    pub fn new(from: u64, to: u64, state: LaneState, on_wire: impl IntoIterator<Item = Span>) -> Projector {
        let lanes = vec![Lane::default(); state.nodes.len()];
        let mut before: Vec<Span> = Vec::new();
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
            out: Lanes { from, to, horizon: 0, lanes, spans: Vec::new(), marks: Vec::new() },
        }
    }

    /// Takes the next event (t <= to); refused once the window holds more than
    /// `LANES_EVENTS`.
    pub fn take(&mut self, e: &Event) -> Result<(), TooManyEvents> {
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
    #[inline(never)]
    pub fn finish(mut self, horizon: u64) -> Lanes {
        if !self.entered {
            self.enter();
        }
        self.out.horizon = horizon;
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

    fn track_before(&mut self, e: &Event) {
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

    fn track(&mut self, e: &Event) {
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
fn sent(e: &Event) -> Span {
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
        outcome: Outcome::of(summary),
        seq: e.seq,
        end_seq: None,
    }
}

// ---- the packed form -----------------------------------------------------------------

/// The lanes' numbers: this header, the spans ([`SPAN_FIELDS`] each), then per lane its
/// band, HW step and LEO step counts and those ([`BAND_FIELDS`], [`STEP_FIELDS`] each),
/// then per mark its kind (an index into `MarkKind::ALL`), its node (-1: none) and the
/// epochs of the records it removed (a count, then each; NaN: not known).
pub const HEADER_FIELDS: [&str; 6] = ["from", "to", "horizon", "spans", "lanes", "marks"];
/// A span's numbers: `msg` (a connection failure: minus its seq), `rpc` (an index into
/// [`RPC_ORDER`]), `end` (Infinity while unknown), `dropped` and `planned` (indexes into
/// `DropReason::ALL`, -1 for none), `flags` ([`DUPLICATE`], [`FAILED`]), `outcome` (an
/// index into `Outcome::ALL`), `endSeq` (-1 for none).
pub const SPAN_FIELDS: [&str; 14] = [
    "msg", "from", "to", "rpc", "epoch", "sent", "arrives", "end", "dropped", "planned", "flags", "outcome", "seq",
    "endSeq",
];
/// A band's numbers: `state` and `from` (indexes into [`STATES`]), `leader` (-1 for none),
/// `reason` (an index into `Reason::ALL`, -1 for none), `hw` (NaN for none).
pub const BAND_FIELDS: [&str; 8] = ["t", "seq", "state", "from", "epoch", "leader", "reason", "hw"];
/// A step's numbers (`value` NaN for none).
pub const STEP_FIELDS: [&str; 3] = ["t", "value", "seq"];
/// A span's `flags`.
pub const DUPLICATE: u32 = 1;
pub const FAILED: u32 = 2;

/// The states by the number a band carries (their declaration order).
pub const STATES: [StateName; 7] = [
    StateName::Unattached,
    StateName::Prospective,
    StateName::Candidate,
    StateName::Leader,
    StateName::Follower,
    StateName::Resigned,
    StateName::Crashed,
];

/// The RPC kinds by the number a span carries: the timeline legend's order, each request
/// followed by its response.
pub const RPC_ORDER: [RpcKind; 12] = [
    RpcKind::PreVote,
    RpcKind::PreVoteResponse,
    RpcKind::Vote,
    RpcKind::VoteResponse,
    RpcKind::BeginQuorumEpoch,
    RpcKind::BeginQuorumEpochResponse,
    RpcKind::EndQuorumEpoch,
    RpcKind::EndQuorumEpochResponse,
    RpcKind::Fetch,
    RpcKind::FetchResponse,
    RpcKind::FetchSnapshot,
    RpcKind::FetchSnapshotResponse,
];

/// A number, or `none` for nothing.
fn or(v: Option<u64>, none: f64) -> f64 {
    v.map_or(none, |v| v as f64)
}

impl Lanes {
    /// The lanes as they cross to JS: everything as numbers, but the marks' events (with
    /// their text), which the caller writes as the packed form's JSON (`packed::pack`: one
    /// JSON writer in the wasm), in mark order.
    #[inline(never)]
    pub fn pack(self) -> (Vec<f64>, Vec<Event>) {
        let mut n: Vec<f64> = Vec::with_capacity(HEADER_FIELDS.len() + self.spans.len() * SPAN_FIELDS.len());
        n.extend(
            [
                self.from,
                self.to,
                self.horizon,
                self.spans.len() as u64,
                self.lanes.len() as u64,
                self.marks.len() as u64,
            ]
            .map(|v| v as f64),
        );
        // the enums' lists (`ALL`, `STATES`) are in declaration order
        let drop = |d: Option<DropReason>| d.map_or(-1.0, |d| d as usize as f64);
        for s in &self.spans {
            let flags = if s.duplicate { DUPLICATE } else { 0 } | if s.failed { FAILED } else { 0 };
            n.extend([
                s.msg.map_or(-(s.seq as f64), |m| m as f64),
                s.from as f64,
                s.to as f64,
                RPC_ORDER.iter().position(|k| *k == s.rpc).unwrap_or(0) as f64,
                s.epoch as f64,
                s.sent as f64,
                s.arrives as f64,
                or(s.end, f64::INFINITY),
                drop(s.dropped),
                drop(s.planned),
                flags as f64,
                s.outcome as usize as f64,
                s.seq as f64,
                or(s.end_seq, -1.0),
            ]);
        }
        for lane in &self.lanes {
            n.extend([lane.bands.len(), lane.hw.len(), lane.leo.len()].map(|c| c as f64));
            for b in &lane.bands {
                n.extend([
                    b.t as f64,
                    b.seq as f64,
                    b.state as usize as f64,
                    b.from as usize as f64,
                    b.epoch as f64,
                    or(b.leader.map(u64::from), -1.0),
                    b.reason.map_or(-1.0, |r| r as usize as f64),
                    or(b.hw, f64::NAN),
                ]);
            }
            for s in lane.hw.iter().chain(&lane.leo) {
                n.extend([s.t as f64, or(s.value, f64::NAN), s.seq as f64]);
            }
        }
        for m in &self.marks {
            n.extend([m.kind as usize as f64, or(m.node.map(u64::from), -1.0), m.removed.len() as f64]);
            n.extend(m.removed.iter().map(|e| or(e.map(u64::from), f64::NAN)));
        }
        (n, self.marks.into_iter().map(|m| m.event).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, ClusterSpec, NetworkSpec, Simulation};

    /// A busy run with every kind of lane change: elections, crashes (losing unflushed
    /// records), a minority partition whose leader's tail is truncated, connection
    /// failures, loss, a slow disk, writes. Returns it with every event as it was recorded.
    fn busy_run(seconds: u64) -> (Simulation, Vec<Event>) {
        let spec = ClusterSpec {
            voters: 5,
            observers: 2,
            seed: 11,
            writes_per_second: 20,
            network: NetworkSpec::Preset("teaching".into()),
            ..ClusterSpec::default()
        };
        let mut sim = Simulation::new(spec).unwrap();
        let mut live = sim.trace().to_vec();
        for s in 0..seconds {
            let leader = sim.world().leader().map(|(id, _)| id).unwrap_or(0);
            match s % 20 {
                3 => drop(sim.act(Action::Crash { node: (leader + 1) % 5 })),
                6 => drop(sim.act(Action::Restart { node: (leader + 4) % 5 })),
                8 => drop(sim.act(Action::Partition { groups: vec![vec![leader], vec![(leader + 1) % 5]] })),
                12 => drop(sim.act(Action::Heal)),
                14 => drop(sim.act(Action::SlowDisk { node: 5, flush_ms: 300 })),
                16 => drop(sim.act(Action::Network { latency_ms: [60, 140], loss: 0.05, duplicate: 0.05 })),
                18 => drop(sim.act(Action::Network { latency_ms: [60, 140], loss: 0.0, duplicate: 0.0 })),
                _ => {}
            }
            sim.advance(1_000).unwrap();
            let after = live.last().map_or(0, |e| e.seq);
            live.extend(sim.trace()[sim.trace().partition_point(|e| e.seq <= after)..].iter().cloned());
        }
        assert_eq!(live.len() as u64, sim.last_seq());
        (sim, live)
    }

    /// The lanes of [from, to] as folding every event from the run's start gives them.
    fn from_the_start(sim: &Simulation, events: &[Event], from: u64, to: u64, horizon: u64) -> Lanes {
        let mut p = Projector::new(from, to, LaneState::new(sim.world().nodes.len()), Vec::new());
        for e in events.iter().take_while(|e| e.t <= to) {
            p.take(e).unwrap();
        }
        p.finish(horizon)
    }

    /// Windows at and around the checkpoints and in between, from the run's start to past its end.
    fn windows(end: u64) -> Vec<(u64, u64)> {
        let mut out = vec![(0, 0), (0, 3_500), (0, end), (end - 3_500, end + 500)];
        for k in 1..end / 10_000 {
            let cp = k * 10_000;
            for from in [cp - 1, cp, cp + 1, cp + 70, cp + 3_333] {
                out.push((from, from + 3_500));
            }
        }
        out
    }

    #[test]
    fn a_window_reads_what_folding_the_run_from_its_start_keeps_of_it() {
        let (sim, live) = busy_run(60);
        for (from, to) in windows(sim.now()) {
            let got = sim.lanes(from, to).unwrap();
            assert_eq!(got, from_the_start(&sim, &live, from, to, sim.now()), "window {from}..{to}");
        }
        // The run has what the lanes show: truncations with their removed records, connection
        // failures, drops, duplicates, crashes with the HW they forgot.
        let all = sim.lanes(0, sim.now()).unwrap();
        let truncation = all.marks.iter().find(|m| m.kind == MarkKind::Truncate && !m.removed.is_empty());
        assert!(
            truncation.is_some_and(|m| m.removed.iter().all(Option::is_some)),
            "a truncation removes records of known epochs"
        );
        assert!(all.spans.iter().any(|s| s.failed) && all.spans.iter().any(|s| s.dropped.is_some()));
        assert!(all.spans.iter().any(|s| s.duplicate) && all.spans.iter().any(|s| s.planned.is_some()));
        assert!(all.lanes.iter().flat_map(|l| &l.bands).any(|b| b.state == StateName::Crashed && b.hw.is_some()));
    }

    #[test]
    fn after_a_seek_back_the_recorded_future_reads_as_it_was_until_an_action_forks_it() {
        let (mut sim, live) = busy_run(60);
        let end = sim.now();
        sim.seek(31_234).unwrap();
        assert_eq!(sim.horizon(), end);
        for (from, to) in [(28_000, 33_000), (31_234, 36_000), (40_000, 45_000), (end - 3_000, end + 1_000)] {
            assert_eq!(sim.lanes(from, to).unwrap(), from_the_start(&sim, &live, from, to, end), "window {from}..{to}");
        }
        // An action here forks the run: the recorded future is gone, what follows is new.
        sim.act(Action::Crash { node: 0 }).unwrap();
        assert_eq!(sim.horizon(), sim.now());
        let forked: Vec<Event> = sim.events_since(0).into_owned();
        let lanes = sim.lanes(28_000, 40_000).unwrap();
        assert_eq!(lanes, from_the_start(&sim, &forked, 28_000, 40_000, sim.now()));
        assert!(lanes.spans.iter().all(|s| s.sent <= sim.now()) && lanes.marks.iter().all(|m| m.event.t <= sim.now()));
        assert!(lanes.marks.iter().any(|m| m.kind == MarkKind::Crash && m.event.t == sim.now()));
        sim.advance(9_000).unwrap();
        let forked: Vec<Event> = sim.events_since(0).into_owned();
        assert_ne!(forked, live[..forked.len()], "the fork made another run");
        assert_eq!(sim.lanes(28_000, 40_000).unwrap(), from_the_start(&sim, &forked, 28_000, 40_000, sim.now()));
    }

    #[test]
    fn a_window_that_starts_mid_state_starts_each_lane_with_what_it_had_then() {
        let (sim, _) = busy_run(60);
        let lanes = sim.lanes(44_321, 45_000).unwrap();
        for lane in &lanes.lanes {
            // The band in force began before the window, with the event that began it.
            let first = &lane.bands[0];
            assert!(first.t < 44_321 && first.seq > 0, "{first:?}");
            let events = sim.events_between(first.t, first.t);
            assert!(events.iter().any(|e| e.seq == first.seq), "band {first:?}: its event is in the trace");
            // The LEO is a step at the window's start, set by an earlier event.
            assert!(lane.leo[0].t == 44_321 && lane.leo[0].seq > 0);
        }
        let views = sim.nodes_at(44_320).unwrap();
        for (lane, view) in lanes.lanes.iter().zip(&views) {
            assert_eq!(lane.bands[0].state.name(), view.state, "n{}", view.id);
            assert_eq!(lane.bands[0].epoch, view.epoch, "n{}", view.id);
            assert_eq!(lane.leo[0].value, Some(view.leo), "n{}", view.id);
        }
    }

    #[test]
    fn a_story_opened_at_its_start_has_its_whole_run_as_recorded_future() {
        let (sim, live) = busy_run(20);
        let story = Simulation::replay_at(sim.spec().clone(), sim.inputs().to_vec(), sim.now(), 0).unwrap();
        assert_eq!((story.now(), story.horizon()), (0, sim.now()));
        for (from, to) in [(0, 3_500), (5_000, 12_000), (0, sim.now())] {
            assert_eq!(story.lanes(from, to).unwrap(), from_the_start(&sim, &live, from, to, sim.now()));
        }
    }

    #[test]
    fn windows_past_the_in_memory_events_are_regenerated_and_a_window_is_bounded() {
        // About 2,300 events a simulated second: the window of memory has moved on.
        let spec = ClusterSpec { voters: 5, observers: 2, seed: 3, writes_per_second: 100, ..ClusterSpec::default() };
        let mut sim = Simulation::new(spec).unwrap();
        let mut live = sim.trace().to_vec();
        for _ in 0..130 {
            sim.advance(1_000).unwrap();
            let after = live.last().map_or(0, |e| e.seq);
            live.extend(sim.trace()[sim.trace().partition_point(|e| e.seq <= after)..].iter().cloned());
        }
        assert!(sim.trace()[0].t > 20_000, "the window starts at {} ms", sim.trace()[0].t);
        for (from, to) in [(3_000, 6_500), (19_999, 21_000), (sim.trace()[0].t - 500, sim.trace()[0].t + 500)] {
            assert_eq!(
                sim.lanes(from, to).unwrap(),
                from_the_start(&sim, &live, from, to, sim.now()),
                "window {from}..{to}"
            );
        }
        let e = sim.lanes(0, sim.now()).unwrap_err();
        assert_eq!(e.field, "to");
        assert!(e.message.contains("more than 250000 events") && e.message.contains("lanesEvents"), "{}", e.message);
        let e = sim.lanes(0, 600_001).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("to", "to - from must be between 0 and 600000 ms, got 600001 (lanesSpanMs)")
        );
        assert_eq!(sim.lanes(5, 4).unwrap_err().message, "must not be before from (5), got 4");
    }

    fn event(seq: u64, t: u64, kind: EventKind) -> Event {
        Event { seq, t, kind }
    }

    #[test]
    fn the_fold_draws_states_hw_leo_and_truncations_as_the_timeline_shows_them() {
        use StateName::*;
        let state = |seq, t, from, to, epoch| {
            event(
                seq,
                t,
                EventKind::State {
                    node: 0,
                    from,
                    to,
                    epoch,
                    leader: None,
                    voted: None,
                    reason: Reason::ElectionTimeout,
                },
            )
        };
        let append =
            |seq, t, first, last, epoch| event(seq, t, EventKind::Append { node: 0, first, last, epoch, kind: "x" });
        let hw =
            |seq, t, new| event(seq, t, EventKind::HighWatermark { node: 0, old: None, new, majority: Box::new([]) });
        let events = [
            state(1, 10, Unattached, Follower, 1),
            append(2, 20, 0, 4, 1),
            hw(3, 20, 3),
            hw(4, 30, 3),
            state(5, 40, Follower, Candidate, 2),
            state(6, 40, Candidate, Leader, 2),
            append(7, 50, 5, 6, 2),
            event(8, 60, EventKind::Crash { node: 0, lost_records: 1 }),
            event(9, 70, EventKind::Truncate { node: 0, from_leo: 6, to: 4, diverging_epoch: Some(1), hw: None }),
        ];
        let mut p = Projector::new(15, 100, LaneState::new(1), Vec::new());
        events.iter().for_each(|e| p.take(e).unwrap());
        let lanes = p.finish(100);
        let lane = &lanes.lanes[0];
        let bands: Vec<(u64, u64, StateName, Option<Offset>)> =
            lane.bands.iter().map(|b| (b.t, b.seq, b.state, b.hw)).collect();
        // Two changes in one millisecond: the band shows the later; a crash remembers the HW.
        assert_eq!(bands, [(10, 1, Follower, None), (40, 6, Leader, None), (60, 8, Crashed, Some(3))]);
        let steps = |s: &[Step]| s.iter().map(|s| (s.t, s.value, s.seq)).collect::<Vec<_>>();
        // The same HW again is no step; a new leader has none until it commits; nor has a crashed node.
        assert_eq!(steps(&lane.hw), [(20, Some(3), 3), (40, None, 6)]);
        assert_eq!(steps(&lane.leo), [(20, Some(5), 2), (50, Some(7), 7), (60, Some(6), 8), (70, Some(4), 9)]);
        let kinds: Vec<MarkKind> = lanes.marks.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, [MarkKind::Leader, MarkKind::Crash, MarkKind::Truncate]);
        // The removed records: offset 4 written in epoch 1, offset 5 in epoch 2.
        assert_eq!(lanes.marks[2].removed, [Some(1), Some(2)]);
        // A window starting later starts from what the lane had then.
        let mut p = Projector::new(45, 100, LaneState::new(1), Vec::new());
        events.iter().for_each(|e| p.take(e).unwrap());
        let lane = &p.finish(100).lanes[0];
        assert_eq!(lane.bands[0].seq, 6);
        assert_eq!((steps(&lane.hw), steps(&lane.leo)[0]), (vec![(45, None, 6)], (45, Some(5), 2)));
    }

    #[test]
    fn the_packed_form_lays_out_every_number_in_order() {
        for (i, k) in RPC_ORDER.iter().enumerate() {
            assert_eq!(k.is_request(), i % 2 == 0, "{k:?}");
            if i % 2 == 0 {
                assert_eq!(RpcKind::REQUESTS[i / 2], *k);
            }
        }
        assert!(STATES.iter().enumerate().all(|(i, s)| *s as usize == i));
        assert!(DropReason::ALL.iter().enumerate().all(|(i, d)| *d as usize == i));
        assert!(Reason::ALL.iter().enumerate().all(|(i, r)| *r as usize == i));
        assert!(MarkKind::ALL.iter().enumerate().all(|(i, k)| *k as usize == i));
        assert!(Outcome::ALL.iter().enumerate().all(|(i, o)| *o as usize == i));
        let (sim, _) = busy_run(10);
        let lanes = sim.lanes(0, 10_000).unwrap();
        let (numbers, events) = lanes.clone().pack();
        let sum = |f: fn(&Lane) -> usize| lanes.lanes.iter().map(f).sum::<usize>();
        let removed: usize = lanes.marks.iter().map(|m| m.removed.len()).sum();
        let want = HEADER_FIELDS.len()
            + lanes.spans.len() * SPAN_FIELDS.len()
            + lanes.lanes.len() * 3
            + sum(|l| l.bands.len()) * BAND_FIELDS.len()
            + sum(|l| l.hw.len() + l.leo.len()) * STEP_FIELDS.len()
            + lanes.marks.len() * 3
            + removed;
        assert_eq!(numbers.len(), want);
        assert_eq!(numbers[..6], [0.0, 10_000.0, 10_000.0, lanes.spans.len() as f64, 7.0, lanes.marks.len() as f64]);
        assert!(events.iter().eq(lanes.marks.iter().map(|m| &m.event)));
    }
}
