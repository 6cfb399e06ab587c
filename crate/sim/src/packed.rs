//! The packed bulk form of trace events, for scrubbing: the high-volume types (messages,
//! appends, flushes, HW steps; 98% of a busy window) as numbers in one flat array, laid
//! out by [`ROWS`], and every other event as JSON. Building JS objects from numbers costs
//! a fraction of parsing their JSON. The packed types never carry `text`, and a message's
//! `summary` is left out (the UI fetches one when it shows it) unless it tells an outcome
//! the other fields do not (`kraft_boundary::Summary::tells_outcome`): such a message
//! comes as JSON with it.

use crate::trace::{Event, EventKind, EventText};
use kraft_boundary::{Epoch, Named, NodeId, Protocol, Summary};
use serde::Serialize;

/// How one packed field is written as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "PackedField"))]
pub enum Packing {
    /// The value itself.
    Number,
    /// The value, or NaN for null.
    MaybeNumber,
    /// 1 for true, 0 for false.
    Flag,
    /// An index into the packed result's `names`.
    Name,
    /// An index into `names`, or -1 for null.
    MaybeName,
    /// A count, then that many numbers.
    List,
}

use Packing::*;

/// Every packed event type, by its code (the row's first number), with its fields in
/// order after `seq` and `t`: the JSON form's fields (`EVENT_FIELDS`) without `summary`.
pub const ROWS: &[(&str, &[(&str, Packing)])] = &[
    (
        "send",
        &[
            ("msg", Number),
            ("from", Number),
            ("to", Number),
            ("rpc", Name),
            ("epoch", Number),
            ("arrives", Number),
            ("dropped", MaybeName),
        ],
    ),
    (
        "deliver",
        &[
            ("msg", Number),
            ("from", Number),
            ("to", Number),
            ("rpc", Name),
            ("epoch", Number),
            ("sent", Number),
            ("duplicate", Flag),
        ],
    ),
    (
        "drop",
        &[
            ("msg", Number),
            ("from", Number),
            ("to", Number),
            ("rpc", Name),
            ("epoch", Number),
            ("sent", Number),
            ("reason", Name),
        ],
    ),
    ("disconnect", &[("node", Number), ("peer", Number), ("rpc", Name), ("sent", Number)]),
    ("append", &[("node", Number), ("first", Number), ("last", Number), ("epoch", Number), ("kind", Name)]),
    ("flush", &[("node", Number), ("offset", Number)]),
    ("hw", &[("node", Number), ("old", MaybeNumber), ("new", Number), ("majority", List)]),
];

/// Events in the packed form: `numbers` holds the packed ones, each as its code, `seq`,
/// `t` and its fields; `rest` is the JSON of [`PackedRest`]. Together they are the
/// events asked for, in seq order once merged by `seq`.
pub struct Packed {
    pub numbers: Vec<f64>,
    pub rest: String,
}

/// The JSON half of [`Packed`].
#[derive(Serialize)]
#[serde(bound = "")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "PackedRest", concrete(P = kraft_protocol::KRaft)))]
pub struct PackedRest<'a, P: Protocol = kraft_protocol::KRaft> {
    /// The strings the packed rows name, by index.
    names: Vec<&'static str>,
    /// The events that are not packed, oldest first, each with `text` when asked.
    #[cfg_attr(
        feature = "ts",
        ts(
            type = "Array<{ [K in TraceEvent[\"type\"]]: Omit<Extract<TraceEvent, { type: K }>, \"text\"> & { text?: string } }[TraceEvent[\"type\"]]>"
        )
    )]
    events: Vec<EventText<'a, P>>,
}

/// Whether events of this kind's type are packed (the type is in [`ROWS`]): they never
/// carry `text`.
pub fn packs_type<P: Protocol>(kind: &EventKind<P>) -> bool {
    ROWS.iter().any(|(n, _)| *n == kind.type_name())
}

/// The row code of an event written as numbers; None for one written as JSON.
fn code<P: Protocol>(kind: &EventKind<P>) -> Option<usize> {
    Some(match kind {
        EventKind::Send { summary, .. } | EventKind::Deliver { summary, .. } if summary.tells_outcome() => return None,
        EventKind::Send { .. } => 0,
        EventKind::Deliver { .. } => 1,
        EventKind::Drop { .. } => 2,
        EventKind::Disconnect { .. } => 3,
        EventKind::Append { .. } => 4,
        EventKind::Flush { .. } => 5,
        EventKind::HighWatermark { .. } => 6,
        _ => return None,
    })
}

/// Packs `events`; `text` says which of the JSON ones carry their text.
pub fn pack<P: Protocol>(
    events: &[Event<P>],
    text: impl Fn(&EventKind<P>) -> bool,
) -> Result<Packed, serde_json::Error> {
    let mut w = Writer { numbers: Vec::with_capacity(events.len() * 9), names: Vec::new() };
    let mut rest = Vec::new();
    for e in events {
        match code(&e.kind) {
            Some(c) => w.row(c, e),
            None => rest.push(EventText { event: e, text: text(&e.kind) && !packs_type(&e.kind) }),
        }
    }
    let rest = serde_json::to_string(&PackedRest { names: w.names, events: rest })?;
    Ok(Packed { numbers: w.numbers, rest })
}

struct Writer {
    numbers: Vec<f64>,
    names: Vec<&'static str>,
}

impl Writer {
    fn n(&mut self, v: impl Into<u64>) {
        self.numbers.push(v.into() as f64);
    }

    fn maybe(&mut self, v: Option<u64>) {
        self.numbers.push(v.map_or(f64::NAN, |v| v as f64));
    }

    /// The index of `s` in `names` (a handful of distinct names: a linear search).
    fn name(&mut self, s: &'static str) {
        let i = match self.names.iter().position(|n| *n == s) {
            Some(i) => i,
            None => {
                self.names.push(s);
                self.names.len() - 1
            }
        };
        self.numbers.push(i as f64);
    }

    /// The fields every message event starts with.
    fn message(&mut self, msg: u64, from: NodeId, to: NodeId, rpc: impl Named, epoch: Epoch) {
        self.n(msg);
        self.n(from);
        self.n(to);
        self.name(rpc.name());
        self.n(epoch);
    }

    fn row<P: Protocol>(&mut self, code: usize, e: &Event<P>) {
        self.numbers.extend([code as f64, e.seq as f64, e.t as f64]);
        match &e.kind {
            EventKind::Send { msg, from, to, rpc, epoch, summary: _, arrives, dropped } => {
                self.message(*msg, *from, *to, *rpc, *epoch);
                self.n(*arrives);
                match dropped {
                    Some(d) => self.name(d.name()),
                    None => self.numbers.push(-1.0),
                }
            }
            EventKind::Deliver { msg, from, to, rpc, epoch, summary: _, sent, duplicate } => {
                self.message(*msg, *from, *to, *rpc, *epoch);
                self.n(*sent);
                self.n(*duplicate as u64);
            }
            EventKind::Drop { msg, from, to, rpc, epoch, sent, reason } => {
                self.message(*msg, *from, *to, *rpc, *epoch);
                self.n(*sent);
                self.name(reason.name());
            }
            EventKind::Disconnect { node, peer, rpc, sent } => {
                self.n(*node);
                self.n(*peer);
                self.name(rpc.name());
                self.n(*sent);
            }
            EventKind::Append { node, first, last, epoch, kind } => {
                self.n(*node);
                self.n(*first);
                self.n(*last);
                self.n(*epoch);
                self.name(kind);
            }
            EventKind::Flush { node, offset } => {
                self.n(*node);
                self.n(*offset);
            }
            EventKind::HighWatermark { node, old, new, majority } => {
                self.n(*node);
                self.maybe(*old);
                self.n(*new);
                self.n(majority.len() as u64);
                self.numbers.extend(majority.iter().map(|&n| n as f64));
            }
            _ => unreachable!("code() packs only the kinds above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{samples, EVENT_FIELDS};
    use kraft_protocol::rpc::{ErrorCode, MessageSummary, RpcKind};
    use serde_json::{Map, Value};

    /// Reads packed events back as JSON objects by [`ROWS`] alone (what the package's
    /// decoder does), merged with the JSON ones by seq.
    fn unpack(p: &Packed) -> Vec<Value> {
        let rest: Value = serde_json::from_str(&p.rest).unwrap();
        let names: Vec<String> = serde_json::from_value(rest["names"].clone()).unwrap();
        let mut out: Vec<Value> = rest["events"].as_array().unwrap().clone();
        let r = &p.numbers;
        let mut i = 0;
        while i < r.len() {
            let (ty, fields) = ROWS[r[i] as usize];
            let mut o = Map::new();
            o.insert("seq".into(), (r[i + 1] as u64).into());
            o.insert("t".into(), (r[i + 2] as u64).into());
            o.insert("type".into(), ty.into());
            i += 3;
            for (name, packing) in fields.iter() {
                let v = r[i];
                i += 1;
                let value: Value = match packing {
                    Number => (v as u64).into(),
                    MaybeNumber if v.is_nan() => Value::Null,
                    MaybeNumber => (v as u64).into(),
                    Flag => (v == 1.0).into(),
                    Name => names[v as usize].clone().into(),
                    MaybeName if v < 0.0 => Value::Null,
                    MaybeName => names[v as usize].clone().into(),
                    List => {
                        let n = v as usize;
                        i += n;
                        r[i - n..i].iter().map(|&x| Value::from(x as u64)).collect()
                    }
                };
                o.insert((*name).into(), value);
            }
            out.push(Value::Object(o));
        }
        out.sort_by_key(|e| e["seq"].as_u64());
        out
    }

    /// The JSON form; without `text` on a packed type or when not asked; without
    /// `summary` on a packed type unless it tells an outcome.
    fn expected(e: &Event, text: bool) -> Value {
        let mut v = serde_json::to_value(e).unwrap();
        let o = v.as_object_mut().unwrap();
        if packs_type(&e.kind) || !text {
            o.remove("text");
        }
        if code(&e.kind).is_some() {
            o.remove("summary");
        }
        v
    }

    #[test]
    fn rows_name_the_json_fields_without_summary() {
        for (ty, fields) in ROWS {
            let (_, json) = EVENT_FIELDS.iter().find(|(n, _)| n == ty).unwrap();
            let want: Vec<&str> = json.iter().copied().filter(|f| *f != "summary").collect();
            let have: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
            assert_eq!(have, want, "{ty}");
        }
    }

    #[test]
    fn every_event_unpacks_to_its_json_form() {
        let mut kinds = samples::events();
        // the other shapes of the optional fields
        kinds.push(EventKind::Send {
            msg: 8,
            from: 1,
            to: 0,
            rpc: RpcKind::FetchResponse,
            epoch: 2,
            summary: MessageSummary::Ack { error: ErrorCode::None, leader: None },
            arrives: 14,
            dropped: None,
        });
        kinds.push(EventKind::HighWatermark { node: 1, old: Some(6), new: 7, majority: Box::new([]) });
        // a message whose summary tells an outcome (JSON, with it)
        kinds.push(EventKind::Deliver {
            msg: 9,
            from: 1,
            to: 0,
            rpc: RpcKind::VoteResponse,
            epoch: 3,
            summary: MessageSummary::VoteResponse { granted: true, error: ErrorCode::None, leader: None },
            sent: 16,
            duplicate: true,
        });
        let events: Vec<Event> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| Event { seq: i as u64 + 1, t: 10 * i as u64, kind })
            .collect();
        for (ty, _) in ROWS {
            assert!(events.iter().any(|e| e.kind.type_name() == *ty && code(&e.kind).is_some()), "a packed {ty}");
        }
        assert!(events.iter().any(|e| packs_type(&e.kind) && code(&e.kind).is_none()), "a message with an outcome");
        let with_text = |k: &EventKind| matches!(k.type_name(), "state" | "deliver");
        let p = pack(&events, with_text).unwrap();
        let want: Vec<Value> = events.iter().map(|e| expected(e, with_text(&e.kind))).collect();
        assert_eq!(unpack(&p), want);
    }

    #[test]
    fn a_run_unpacks_to_its_json_form_in_order() {
        use crate::{Action, ClusterSpec, Simulation};
        let spec = ClusterSpec { voters: 5, seed: 9, writes_per_second: 50, ..ClusterSpec::default() };
        let mut sim = Simulation::new(spec).unwrap();
        sim.advance(3_000).unwrap();
        sim.act(Action::Crash { node: 1 }).unwrap();
        sim.advance(3_000).unwrap();
        let events = sim.trace();
        let p = pack(events, |_| false).unwrap();
        let want: Vec<Value> = events.iter().map(|e| expected(e, false)).collect();
        assert_eq!(unpack(&p), want);
    }
}
