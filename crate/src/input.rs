//! Reading the sim's inputs from JSON: cluster specs (with their network), actions and
//! timed actions, records, safety switches and the plain values inside them, read by hand
//! from a `serde_json::Value`. Every error names the field's path (`inputs[2].latencyMs`)
//! and says what the value must be and what it was, in the words of JSON (echoes capped).
//!
//! The wasm API, links, the chaos sweep and scenario files all read through here. By hand
//! rather than serde-derived: serde loses the path inside tagged and flattened shapes, and
//! its derived deserializers were a fifth of the page's wasm.

use crate::messages::cap;
use crate::protocol::{NodeId, RecordBody, SafetySwitch};
use crate::sim::spec::{self, Action, ClusterSpec, LinkProfileSpec, NetworkSpec, TimedAction};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What is wrong with an input, and where (`inputs[0].node`; empty: the whole input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub path: String,
    pub message: String,
}

pub type R<T> = Result<T, InputError>;

fn fail<T>(path: &str, message: String) -> R<T> {
    Err(InputError { path: path.to_string(), message })
}

/// `base.key` (just `key` at the top).
pub fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        cap(key).into_owned()
    } else {
        format!("{base}.{}", cap(key))
    }
}

/// `base[i]`.
pub fn index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// A value as an error quotes it: numbers and booleans as written, strings in quotes
/// (capped), arrays and objects by kind.
pub fn shown(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => cap(&n.to_string()).into_owned(),
        Value::String(s) => format!("\"{}\"", cap(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// `must be <what>, got <value>`.
fn must<T>(path: &str, what: &str, got: &Value) -> R<T> {
    fail(path, format!("must be {what}, got {}", shown(got)))
}

/// `must be one of a, b, c; got "x"` for a string, `must be a name` for anything else.
fn one_of<T>(path: &str, names: &[&str], got: &Value) -> R<T> {
    match got {
        Value::String(s) => fail(path, format!("must be one of {}; got \"{}\"", names.join(", "), cap(s))),
        other => must(path, "a name", other),
    }
}

/// A value read from JSON at a path.
pub trait Read: Sized {
    fn read(v: &Value, path: &str) -> R<Self>;
}

impl Read for u64 {
    fn read(v: &Value, path: &str) -> R<u64> {
        v.as_u64().map_or_else(|| must(path, "a whole number from 0 to 18446744073709551615", v), Ok)
    }
}

impl Read for u32 {
    fn read(v: &Value, path: &str) -> R<u32> {
        match v.as_u64().map(u32::try_from) {
            Some(Ok(n)) => Ok(n),
            _ => must(path, "a whole number from 0 to 4294967295", v),
        }
    }
}

impl Read for f64 {
    fn read(v: &Value, path: &str) -> R<f64> {
        v.as_f64().map_or_else(|| must(path, "a number", v), Ok)
    }
}

impl Read for bool {
    fn read(v: &Value, path: &str) -> R<bool> {
        v.as_bool().map_or_else(|| must(path, "true or false", v), Ok)
    }
}

impl Read for String {
    fn read(v: &Value, path: &str) -> R<String> {
        v.as_str().map_or_else(|| must(path, "a string", v), |s| Ok(s.to_string()))
    }
}

impl Read for Arc<str> {
    fn read(v: &Value, path: &str) -> R<Arc<str>> {
        v.as_str().map_or_else(|| must(path, "a string", v), |s| Ok(s.into()))
    }
}

impl<T: Read> Read for Vec<T> {
    fn read(v: &Value, path: &str) -> R<Vec<T>> {
        match v {
            Value::Array(a) => a.iter().enumerate().map(|(i, e)| T::read(e, &index(path, i))).collect(),
            other => must(path, "an array", other),
        }
    }
}

/// null as None, anything else as a `T`.
impl<T: Read> Read for Option<T> {
    fn read(v: &Value, path: &str) -> R<Option<T>> {
        if v.is_null() {
            Ok(None)
        } else {
            T::read(v, path).map(Some)
        }
    }
}

/// `[min, max]`: a latency range in ms.
impl Read for [u64; 2] {
    fn read(v: &Value, path: &str) -> R<[u64; 2]> {
        match v {
            Value::Array(a) if a.len() > 2 => fail(path, format!("has too many elements ({})", a.len())),
            Value::Array(a) if a.len() < 2 => {
                fail(path, format!("must be an array of 2 elements, got {} element(s)", a.len()))
            }
            Value::Array(a) => Ok([u64::read(&a[0], &index(path, 0))?, u64::read(&a[1], &index(path, 1))?]),
            other => must(path, "an array of 2 elements", other),
        }
    }
}

/// Whole numbers by name (the quorum config).
impl Read for BTreeMap<String, u64> {
    fn read(v: &Value, path: &str) -> R<BTreeMap<String, u64>> {
        let o = Obj::new(v, path)?;
        o.map.iter().map(|(k, v)| Ok((k.clone(), u64::read(v, &o.at(k))?))).collect()
    }
}

impl Read for SafetySwitch {
    fn read(v: &Value, path: &str) -> R<SafetySwitch> {
        match v.as_str().and_then(|s| SafetySwitch::ALL.into_iter().find(|x| x.name() == s)) {
            Some(s) => Ok(s),
            None => one_of(path, &SafetySwitch::all_names(), v),
        }
    }
}

/// An object being read: its fields and where it is.
pub struct Obj<'a> {
    pub map: &'a Map<String, Value>,
    pub path: &'a str,
}

impl<'a> Obj<'a> {
    pub fn new(v: &'a Value, path: &'a str) -> R<Obj<'a>> {
        match v {
            Value::Object(map) => Ok(Obj { map, path }),
            other => must(path, "an object", other),
        }
    }

    /// The path of one of its fields.
    pub fn at(&self, key: &str) -> String {
        join(self.path, key)
    }

    /// Refuses keys that are neither `fields` nor `also` (keys read elsewhere, such as an
    /// action's `t`); the error lists `fields`.
    pub fn only(&self, fields: &[&str], also: &[&str]) -> R<()> {
        match self.map.keys().find(|k| !fields.contains(&k.as_str()) && !also.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) if fields.is_empty() => {
                fail(self.path, format!("unknown field \"{}\"; this takes no fields", cap(k)))
            }
            Some(k) => fail(self.path, format!("unknown field \"{}\"; allowed: {}", cap(k), fields.join(", "))),
        }
    }

    pub fn req<T: Read>(&self, key: &str) -> R<T> {
        match self.map.get(key) {
            Some(v) => T::read(v, &self.at(key)),
            None => fail(self.path, format!("needs the field \"{key}\"")),
        }
    }

    /// The field when present (null too is read as its type).
    pub fn opt<T: Read>(&self, key: &str) -> R<Option<T>> {
        self.map.get(key).map(|v| T::read(v, &self.at(key))).transpose()
    }
}

// ---- the cluster ----------------------------------------------------------------------

/// The keys of a cluster spec.
pub const CLUSTER_FIELDS: &[&str] = &[
    "voters",
    "observers",
    "seed",
    "network",
    "config",
    "unsafe",
    "flushMs",
    "snapshotInterval",
    "writesPerSecond",
    "stableLeadership",
];

impl Read for ClusterSpec {
    fn read(v: &Value, path: &str) -> R<ClusterSpec> {
        let o = Obj::new(v, path)?;
        o.only(CLUSTER_FIELDS, &[])?;
        Ok(ClusterSpec {
            voters: o.req("voters")?,
            observers: o.opt("observers")?.unwrap_or(0),
            seed: o.opt("seed")?.unwrap_or(0),
            network: o.opt("network")?.unwrap_or_else(spec::default_network),
            config: o.opt("config")?.unwrap_or_default(),
            unsafe_switches: o.opt("unsafe")?.unwrap_or_default(),
            flush_ms: o.opt("flushMs")?.unwrap_or_else(spec::default_flush_ms),
            snapshot_interval: o.opt("snapshotInterval")?.unwrap_or_else(spec::default_snapshot_interval),
            writes_per_second: o.opt("writesPerSecond")?.unwrap_or(0),
            stable_leadership: o.opt("stableLeadership")?.unwrap_or(false),
        })
    }
}

/// A preset's name or a profile.
impl Read for NetworkSpec {
    fn read(v: &Value, path: &str) -> R<NetworkSpec> {
        match v {
            Value::String(name) => Ok(NetworkSpec::Preset(name.clone())),
            Value::Object(_) => LinkProfileSpec::read(v, path).map(NetworkSpec::Profile),
            other => must(
                path,
                "a preset name (datacenter, teaching, wan) or an object {\"latencyMs\": [min, max], \"loss\": 0..1, \"duplicate\": 0..1}",
                other,
            ),
        }
    }
}

impl Read for LinkProfileSpec {
    fn read(v: &Value, path: &str) -> R<LinkProfileSpec> {
        let o = Obj::new(v, path)?;
        o.only(&["latencyMs", "loss", "duplicate"], &[])?;
        Ok(LinkProfileSpec {
            latency_ms: o.req("latencyMs")?,
            loss: o.opt("loss")?.unwrap_or(0.0),
            duplicate: o.opt("duplicate")?.unwrap_or(0.0),
        })
    }
}

// ---- actions and records --------------------------------------------------------------

/// Each action's name (its `action` tag) and fields.
pub const ACTIONS: &[(&str, &[&str])] = &[
    ("crash", &["node"]),
    ("wipe", &["node"]),
    ("restart", &["node"]),
    ("isolate", &["node"]),
    ("reconnect", &["node"]),
    ("partition", &["groups"]),
    ("cut", &["from", "to"]),
    ("uncut", &["from", "to"]),
    ("slowLink", &["from", "to", "latencyMs"]),
    ("clearSlowLink", &["from", "to"]),
    ("healPartition", &[]),
    ("heal", &[]),
    ("network", &["latencyMs", "loss", "duplicate"]),
    ("slowDisk", &["node", "flushMs"]),
    ("resign", &[]),
    ("workload", &["writesPerSecond"]),
    ("write", &["record"]),
];

/// An action object (`{"action": "crash", "node": 1}`) whose `also` keys the caller reads.
fn action_in(v: &Value, path: &str, also: &[&str]) -> R<Action> {
    let o = Obj::new(v, path)?;
    let tag = o
        .map
        .get("action")
        .ok_or_else(|| InputError { path: path.to_string(), message: "needs the field \"action\"".into() })?;
    let names: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
    let Some(&(name, fields)) = ACTIONS.iter().find(|(n, _)| Some(*n) == tag.as_str()) else {
        return one_of(path, &names, tag);
    };
    let mut skip = vec!["action"];
    skip.extend_from_slice(also);
    o.only(fields, &skip)?;
    Ok(match name {
        "crash" => Action::Crash { node: o.req("node")? },
        "wipe" => Action::Wipe { node: o.req("node")? },
        "restart" => Action::Restart { node: o.req("node")? },
        "isolate" => Action::Isolate { node: o.req("node")? },
        "reconnect" => Action::Reconnect { node: o.req("node")? },
        "partition" => Action::Partition { groups: o.req::<Vec<Vec<NodeId>>>("groups")? },
        "cut" => Action::Cut { from: o.req("from")?, to: o.req("to")? },
        "uncut" => Action::Uncut { from: o.req("from")?, to: o.req("to")? },
        "slowLink" => Action::SlowLink { from: o.req("from")?, to: o.req("to")?, latency_ms: o.req("latencyMs")? },
        "clearSlowLink" => Action::ClearSlowLink { from: o.req("from")?, to: o.req("to")? },
        "healPartition" => Action::HealPartition,
        "heal" => Action::Heal,
        "network" => Action::Network {
            latency_ms: o.req("latencyMs")?,
            loss: o.opt("loss")?.unwrap_or(0.0),
            duplicate: o.opt("duplicate")?.unwrap_or(0.0),
        },
        "slowDisk" => Action::SlowDisk { node: o.req("node")?, flush_ms: o.req("flushMs")? },
        "resign" => Action::Resign,
        "workload" => Action::Workload { writes_per_second: o.req("writesPerSecond")? },
        _ => Action::Write { record: o.opt("record")?.flatten() },
    })
}

impl Read for Action {
    fn read(v: &Value, path: &str) -> R<Action> {
        action_in(v, path, &[])
    }
}

/// An action with its time: `{"t": 5, "action": "crash", "node": 1}`.
impl Read for TimedAction {
    fn read(v: &Value, path: &str) -> R<TimedAction> {
        let action = action_in(v, path, &["t"])?;
        Ok(TimedAction { t: Obj::new(v, path)?.req("t")?, action })
    }
}

/// Each record type (its `type` tag) and fields.
pub const RECORD_TYPES: &[(&str, &[&str])] = &[
    ("LeaderChange", &["leader", "voters"]),
    ("RegisterBroker", &["brokerId"]),
    ("UnregisterBroker", &["brokerId"]),
    ("CreateTopic", &["name", "partitions"]),
    ("DeleteTopic", &["name"]),
    ("PartitionChange", &["topic", "partition", "leader"]),
];

impl Read for RecordBody {
    fn read(v: &Value, path: &str) -> R<RecordBody> {
        let o = Obj::new(v, path)?;
        let Some(tag) = o.map.get("type") else { return fail(path, "needs the field \"type\"".into()) };
        let names: Vec<&str> = RECORD_TYPES.iter().map(|(n, _)| *n).collect();
        let Some(&(name, fields)) = RECORD_TYPES.iter().find(|(n, _)| Some(*n) == tag.as_str()) else {
            return one_of(path, &names, tag);
        };
        o.only(fields, &["type"])?;
        Ok(match name {
            "LeaderChange" => RecordBody::LeaderChange { leader: o.req("leader")?, voters: o.req("voters")? },
            "RegisterBroker" => RecordBody::RegisterBroker { broker_id: o.req("brokerId")? },
            "UnregisterBroker" => RecordBody::UnregisterBroker { broker_id: o.req("brokerId")? },
            "CreateTopic" => RecordBody::CreateTopic { name: o.req("name")?, partitions: o.req("partitions")? },
            "DeleteTopic" => RecordBody::DeleteTopic { name: o.req("name")? },
            _ => RecordBody::PartitionChange {
                topic: o.req("topic")?,
                partition: o.req("partition")?,
                leader: o.req("leader")?,
            },
        })
    }
}

/// Parses JSON text (the error says where its syntax breaks) and reads a `T` from it.
pub fn from_json<T: Read>(json: &str, path: &str) -> R<T> {
    T::read(&json_value(json, path)?, path)
}

/// Parses JSON text; a syntax error says where, in characters.
pub fn json_value(json: &str, path: &str) -> R<Value> {
    serde_json::from_str(json)
        .map_err(|e| InputError { path: path.to_string(), message: crate::messages::plain_serde(&e.to_string()) })
}
