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
//!
//! The lanes of any protocol's run: the fold reads states and message outcomes through
//! the boundary's vocabulary (`kraft_boundary::StateName`, `Summary::outcome`). Their
//! packed form, the numbers the page reads, is KRaft's: its tables index KRaft's states
//! and RPC kinds.

use crate::trace::{DropReason, Event};
use crate::wire::InFlight;
use kraft_boundary::{Epoch, NodeId, Offset, Protocol, Summary as _, WireMessage};
use kraft_protocol::KRaft;

mod fold;
mod packed;
mod projector;
#[cfg(test)]
mod tests;

pub use fold::{Changes, LaneState, MAX_REMOVED};
/// What a span's message said that the timeline draws (`Summary::outcome`).
pub use kraft_boundary::Outcome;
pub use packed::{BAND_FIELDS, DUPLICATE, FAILED, HEADER_FIELDS, RPC_ORDER, SPAN_FIELDS, STATES, STEP_FIELDS};
pub use projector::{Projector, TooManyEvents};

/// A node's state from the event that began it until the next band.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LaneBand", concrete(P = KRaft)))]
pub struct Band<P: Protocol = KRaft> {
    /// When it began: the time and seq of its `state` (or `crash`) event.
    pub t: u64,
    pub seq: u64,
    pub state: P::State,
    /// The state before it (a crash: the one it crashed in).
    pub from: P::State,
    pub epoch: Epoch,
    pub leader: Option<NodeId>,
    /// Why, as its `state` event says; none for a crash.
    pub reason: Option<P::Reason>,
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
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LaneMarkKind", rename_all = "lowercase"))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LaneMark", concrete(P = KRaft)))]
pub struct Mark<P: Protocol = KRaft> {
    pub kind: MarkKind,
    /// Its lane; none: the whole cluster (a new leader, a fault).
    pub node: Option<NodeId>,
    /// With its `text`.
    #[cfg_attr(feature = "ts", ts(type = "TraceEvent"))]
    pub event: Event<P>,
    /// A truncation: the epochs of the records it removed, from its `to` on (at most
    /// `MAX_REMOVED`; none: not known any more).
    pub removed: Vec<Option<Epoch>>,
}

/// A message from its send to its delivery or drop, or a connection failure travelling
/// back to the requester (a `disconnect`).
#[derive(Clone, Debug, PartialEq)]
pub struct Span<P: Protocol = KRaft> {
    /// The message's id; none for a connection failure.
    pub msg: Option<u64>,
    pub from: NodeId,
    pub to: NodeId,
    pub rpc: P::Rpc,
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

impl<P: Protocol> Span<P> {
    /// A message on the wire where a fold begins, its send not read.
    pub fn on_wire(m: &InFlight<P::Message>) -> Span<P> {
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
            outcome: message.summary().outcome(),
            seq: 0,
            end_seq: None,
        }
    }
}

/// One lane as the window shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane<P: Protocol = KRaft> {
    /// From the one in force at the window's start.
    pub bands: Vec<Band<P>>,
    /// From the value at the window's start.
    pub hw: Vec<Step>,
    pub leo: Vec<Step>,
}

// By hand: derived, it would ask for `P: Default`.
impl<P: Protocol> Default for Lane<P> {
    fn default() -> Self {
        Lane { bands: Vec::new(), hw: Vec::new(), leo: Vec::new() }
    }
}

/// The timeline's lanes over [from, to].
#[derive(Clone, Debug, PartialEq)]
pub struct Lanes<P: Protocol = KRaft> {
    pub from: u64,
    pub to: u64,
    /// The end of the recorded run (now, or later after a seek back): the last band and
    /// step of each lane run on to it.
    pub horizon: u64,
    /// One per node.
    pub lanes: Vec<Lane<P>>,
    /// By send time.
    pub spans: Vec<Span<P>>,
    /// In event order.
    pub marks: Vec<Mark<P>>,
}
