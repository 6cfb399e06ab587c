//! The lanes as they cross to JS: numbers laid out by the field lists here, but the marks'
//! events, which the caller writes as the packed events' JSON (`packed::pack`).

use super::Lanes;
use crate::trace::{DropReason, Event};
use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{KRaft, StateName};

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

/// KRaft's lanes: the page reads KRaft's runs, and the tables above are its words.
impl Lanes<KRaft> {
    /// The lanes as they cross to JS: everything as numbers, but the marks' events (with
    /// their text), which the caller writes as the packed form's JSON (`packed::pack`: one
    /// JSON writer in the wasm), in mark order.
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
