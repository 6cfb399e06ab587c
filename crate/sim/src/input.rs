//! Reading the sim's inputs from JSON: cluster specs (with their network), actions and
//! timed actions and records, read by hand from a `serde_json::Value` through `read`
//! (whose errors name the field's path and say what the value must be and what it was).
//!
//! The wasm API, links, the chaos sweep and scenario files all read through here. By hand
//! rather than serde-derived: serde loses the path inside tagged and flattened shapes, and
//! its derived deserializers were a fifth of the page's wasm.

use crate::read::{fail, must, one_of};
pub use crate::read::{index, join, shown, InputError, Obj, Read, R};
use crate::spec::{self, Action, ActionKind, ClusterSpec, LinkProfileSpec, NetworkSpec, QuorumKind, TimedAction};
use crate::vocab::{ActionSource, FieldTy};
use kraft_protocol::{ClientRecord, NodeId, RecordBody};
use serde_json::Value;

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
    "kafkaRelease",
    "quorum",
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
            // Any name, read in place (a string that is not one: "must be a name"); which
            // names there are is the protocol's to say (`ClusterSpec::resolve`).
            kafka_release: match o.map.get("kafkaRelease") {
                Some(Value::String(s)) => Some(s.clone()),
                Some(v) => return must(&o.at("kafkaRelease"), "a name", v),
                None => None,
            },
            quorum: o.opt("quorum")?,
        })
    }
}

impl Read for QuorumKind {
    fn read(v: &Value, path: &str) -> R<QuorumKind> {
        match v.as_str().and_then(|s| QuorumKind::ALL.into_iter().find(|q| q.name() == s)) {
            Some(q) => Ok(q),
            None => one_of(path, &QuorumKind::ALL.map(QuorumKind::name), v),
        }
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

/// An action's fields as the API, links and the chaos sweep give them: node ids, and a
/// missing field named at the object.
struct ApiFields<'a>(Obj<'a>);

impl ActionSource for ApiFields<'_> {
    type Node = NodeId;
    type Group = Vec<NodeId>;
    type Error = InputError;
    fn node(&self, key: &'static str) -> R<NodeId> {
        self.0.req(key)
    }
    fn groups(&self, key: &'static str) -> R<Vec<Vec<NodeId>>> {
        self.0.req(key)
    }
    fn req<T: Read>(&self, key: &'static str, _: FieldTy) -> R<T> {
        self.0.req(key)
    }
    fn opt<T: Read>(&self, key: &'static str, _: FieldTy) -> R<Option<T>> {
        self.0.opt(key)
    }
}

/// An action object (`{"action": "crash", "node": 1}`) whose `also` keys the caller reads.
fn action_in(v: &Value, path: &str, also: &[&str]) -> R<Action> {
    let o = Obj::new(v, path)?;
    let tag = o
        .map
        .get("action")
        .ok_or_else(|| InputError { path: path.to_string(), message: "needs the field \"action\"".into() })?;
    let Some(kind) = tag.as_str().and_then(ActionKind::find) else {
        return one_of(path, &ActionKind::names(), tag);
    };
    let mut skip = vec!["action"];
    skip.extend_from_slice(also);
    let fields: Vec<&str> = kind.fields().iter().map(|f| f.key).collect();
    o.only(&fields, &skip)?;
    kind.read(&ApiFields(o))
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
    ("LeaderChange", &["leader", "voters", "grantingVoters"]),
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
            "LeaderChange" => RecordBody::leader_change(
                o.req("leader")?,
                o.req("voters")?,
                o.opt("grantingVoters")?.unwrap_or_default(),
            ),
            "RegisterBroker" => RecordBody::Client(ClientRecord::RegisterBroker { broker_id: o.req("brokerId")? }),
            "UnregisterBroker" => RecordBody::Client(ClientRecord::UnregisterBroker { broker_id: o.req("brokerId")? }),
            "CreateTopic" => {
                RecordBody::Client(ClientRecord::CreateTopic { name: o.req("name")?, partitions: o.req("partitions")? })
            }
            "DeleteTopic" => RecordBody::Client(ClientRecord::DeleteTopic { name: o.req("name")? }),
            _ => RecordBody::Client(ClientRecord::PartitionChange {
                topic: o.req("topic")?,
                partition: o.req("partition")?,
                leader: o.req("leader")?,
            }),
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
        .map_err(|e| InputError { path: path.to_string(), message: kraft_base::messages::plain_serde(&e.to_string()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraft_base::messages::MAX_ECHO_CHARS;
    use kraft_protocol::SafetySwitch;

    fn error<T: Read + std::fmt::Debug>(json: &str) -> String {
        let e = from_json::<T>(json, "").unwrap_err();
        if e.path.is_empty() {
            e.message
        } else {
            format!("{}: {}", e.path, e.message)
        }
    }

    #[test]
    fn type_errors_say_what_the_json_must_be() {
        let spec = error::<ClusterSpec>;
        assert_eq!(spec(r#"{"voters":-1}"#), "voters: must be a whole number from 0 to 4294967295, got -1");
        assert_eq!(
            spec(r#"{"voters":99999999999}"#),
            "voters: must be a whole number from 0 to 4294967295, got 99999999999"
        );
        assert_eq!(spec(r#"{"voters":1.5}"#), "voters: must be a whole number from 0 to 4294967295, got 1.5");
        assert_eq!(spec(r#"{"voters":"5"}"#), r#"voters: must be a whole number from 0 to 4294967295, got "5""#);
        assert_eq!(spec(r#"{"voters":null}"#), "voters: must be a whole number from 0 to 4294967295, got null");
        assert_eq!(spec(r#"{"voters":[1]}"#), "voters: must be a whole number from 0 to 4294967295, got an array");
        assert_eq!(spec(r#"{"voters":3,"stableLeadership":1}"#), "stableLeadership: must be true or false, got 1");
        assert_eq!(
            spec(r#"{"voters":3,"network":{"latencyMs":[1]}}"#),
            "network.latencyMs: must be an array of 2 elements, got 1 element(s)"
        );
        assert_eq!(
            spec(r#"{"voters":3,"network":{"latencyMs":[1,2,3]}}"#),
            "network.latencyMs: has too many elements (3)"
        );
        assert_eq!(
            spec(r#"{"voters":3,"network":{"latencyMs":[1,"2"]}}"#),
            r#"network.latencyMs[1]: must be a whole number from 0 to 18446744073709551615, got "2""#
        );
        assert_eq!(
            spec(r#"{"voters":3,"network":5}"#),
            r#"network: must be a preset name (datacenter, teaching, wan) or an object {"latencyMs": [min, max], "loss": 0..1, "duplicate": 0..1}, got 5"#
        );
        assert_eq!(
            spec(r#"{"voters":3,"unsafe":["three"]}"#),
            r#"unsafe[0]: must be one of hw-before-own-epoch, vote-ignores-log, no-pre-vote, no-check-quorum, no-resign-on-restart, ack-before-flush, multi-voter-change; got "three""#
        );
        assert_eq!(spec(r#"{"voters":3,"unsafe":[1]}"#), "unsafe[0]: must be a name, got 1");
        // A release is a name; which names there are is the protocol's to say (below).
        assert_eq!(spec(r#"{"voters":3,"kafkaRelease":4.1}"#), "kafkaRelease: must be a name, got 4.1");
        assert_eq!(spec(r#"{"voters":3,"kafkaRelease":null}"#), "kafkaRelease: must be a name, got null");
        assert_eq!(
            spec(r#"{"voters":3,"config":{"x.y":-5}}"#),
            "config.x.y: must be a whole number from 0 to 18446744073709551615, got -5"
        );
        assert_eq!(
            spec(r#"{"voters":1,"zz":2}"#),
            r#"unknown field "zz"; allowed: voters, observers, seed, network, config, unsafe, flushMs, snapshotInterval, writesPerSecond, stableLeadership, kafkaRelease, quorum"#
        );
        assert_eq!(spec(r#"{}"#), r#"needs the field "voters""#);
        assert_eq!(spec(r#"[]"#), "must be an object, got an array");
        for json in [r#"{"voters":-1}"#, r#"{"voters":3,"unsafe":["x"]}"#, r#"[]"#] {
            let m = spec(json);
            for rust in ["u32", "u64", "usize", "struct", "sequence", "line 1", "`"] {
                assert!(!m.contains(rust), "{m:?} mentions {rust}");
            }
        }
    }

    /// A release outside the protocol's known set is refused when the spec is resolved,
    /// naming the field, the value and every allowed one (KRaft's `configure`).
    #[test]
    fn an_unknown_release_is_refused_by_the_protocol() {
        let resolve = |json: &str| {
            let spec: ClusterSpec = from_json(json, "").unwrap();
            spec.resolve::<kraft_protocol::KRaft>().err()
        };
        assert_eq!(
            resolve(r#"{"voters":3,"kafkaRelease":"3.8"}"#),
            Some(("kafkaRelease".to_string(), r#"must be one of legacy, 3.9, 4.0, 4.1, 4.2; got "3.8""#.to_string()))
        );
        for ok in ["legacy", "3.9", "4.0", "4.1", "4.2"] {
            assert_eq!(resolve(&format!(r#"{{"voters":3,"kafkaRelease":"{ok}"}}"#)), None, "{ok}");
        }
    }

    #[test]
    fn action_errors_name_the_field_inside_the_tagged_shape() {
        let timed = error::<Vec<TimedAction>>;
        assert_eq!(timed(r#"{}"#), "must be an array, got an object");
        assert_eq!(
            timed(r#"[{"t":1,"action":"crash","node":-1}]"#),
            "[0].node: must be a whole number from 0 to 4294967295, got -1"
        );
        assert_eq!(
            timed(r#"[{"t":5.5,"action":"heal"}]"#),
            "[0].t: must be a whole number from 0 to 18446744073709551615, got 5.5"
        );
        assert_eq!(timed(r#"[{"action":"heal"}]"#), r#"[0]: needs the field "t""#);
        assert_eq!(
            timed(r#"[{"t":1,"action":"heal","node":1}]"#),
            r#"[0]: unknown field "node"; this takes no fields"#
        );
        let action = error::<Action>;
        assert_eq!(action(r#"{"node":1}"#), r#"needs the field "action""#);
        assert_eq!(action(r#"{"action":7}"#), "must be a name, got 7");
        assert_eq!(action(r#"{"action":"crash","node":1,"t":1}"#), r#"unknown field "t"; allowed: node"#);
        assert_eq!(
            action(r#"{"action":"partition","groups":[[0],[1,-2]]}"#),
            "groups[1][1]: must be a whole number from 0 to 4294967295, got -2"
        );
        assert_eq!(
            action(r#"{"action":"network","latencyMs":[1,2],"loss":"lots"}"#),
            r#"loss: must be a number, got "lots""#
        );
        assert_eq!(
            action(r#"{"action":"write","record":{"type":"CreateTopic","name":"a","partitions":-3}}"#),
            "record.partitions: must be a whole number from 0 to 4294967295, got -3"
        );
        assert_eq!(
            action(r#"{"action":"write","record":{"type":"CreateTopic","name":"a","partitions":1,"replicas":3}}"#),
            r#"record: unknown field "replicas"; allowed: name, partitions"#
        );
        assert_eq!(
            action(r#"{"action":"write","record":{"type":"Nope"}}"#),
            r#"record: must be one of LeaderChange, RegisterBroker, UnregisterBroker, CreateTopic, DeleteTopic, PartitionChange; got "Nope""#
        );
        assert_eq!(from_json::<Action>(r#"{"action":"write","record":null}"#, ""), Ok(Action::Write { record: None }));
    }

    #[test]
    fn echoed_input_is_capped() {
        let long = "x".repeat(1_000_000);
        let m = error::<Action>(&format!(r#"{{"action":"{long}"}}"#));
        assert!(m.len() < 400, "{} chars", m.len());
        assert!(m.ends_with("…\""), "{m}");
        let key = error::<Action>(&format!(r#"{{"action":"heal","{long}":1}}"#));
        assert!(key.len() < 200 && key.contains(&format!("{}…", "x".repeat(MAX_ECHO_CHARS))), "{key}");
    }

    /// What the sim writes (an input log, a spec) reads back as itself: the reader and the
    /// serde `Serialize` forms agree on every action, record and field.
    #[test]
    fn every_written_shape_reads_back() {
        let r = |body| Action::Write { record: Some(body) };
        let mut actions = Action::samples();
        let kinds: Vec<ActionKind> = actions.iter().map(Action::kind).collect();
        assert_eq!(kinds, ActionKind::ALL, "one sample per action, in order");
        actions.extend([
            Action::Network { latency_ms: [1, 5], loss: 0.25, duplicate: 0.125 },
            r(RecordBody::leader_change(1, vec![0, 1, 2], vec![0, 1])),
            r(RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 3 })),
            r(RecordBody::Client(ClientRecord::UnregisterBroker { broker_id: 3 })),
            r(RecordBody::Client(ClientRecord::CreateTopic { name: "orders".into(), partitions: 3 })),
            r(RecordBody::Client(ClientRecord::DeleteTopic { name: "orders".into() })),
            r(RecordBody::Client(ClientRecord::PartitionChange { topic: "orders".into(), partition: 1, leader: 2 })),
        ]);
        let timed: Vec<TimedAction> =
            actions.into_iter().enumerate().map(|(i, action)| TimedAction { t: i as u64, action }).collect();
        let json = serde_json::to_string(&timed).unwrap();
        assert_eq!(from_json::<Vec<TimedAction>>(&json, "inputs"), Ok(timed));
        let spec = ClusterSpec {
            voters: 5,
            observers: 2,
            seed: 42,
            network: NetworkSpec::Profile(LinkProfileSpec { latency_ms: [2, 8], loss: 0.5, duplicate: 0.01 }),
            config: [("controller.quorum.fetch.timeout.ms".to_string(), 3000)].into(),
            unsafe_switches: SafetySwitch::ALL.to_vec(),
            flush_ms: 7,
            snapshot_interval: 100,
            writes_per_second: 20,
            stable_leadership: true,
            kafka_release: Some("4.1".into()),
            quorum: Some(QuorumKind::Dynamic),
        };
        assert_eq!(from_json::<ClusterSpec>(&serde_json::to_string(&spec).unwrap(), ""), Ok(spec));
        let preset = ClusterSpec::default();
        assert_eq!(from_json::<ClusterSpec>(&serde_json::to_string(&preset).unwrap(), ""), Ok(preset));
    }
}
