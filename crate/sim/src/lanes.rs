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

use crate::trace::{DropReason, Event};
use kraft_boundary::Summary as _;
use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{Epoch, NodeId, Offset, Reason, StateName};

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
            outcome: message.summary().outcome(),
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
