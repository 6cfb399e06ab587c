//! `scenarios/schema.json` is generated from what the parser reads: the kinds and fields
//! of `kraft_scenario::vocab`, the event fields, the records, the cluster's limits and names.
//! This test fails when the checked-in file is stale; `UPDATE=1` rewrites it.

use kraft_protocol::config::CONFIG_KEYS;
use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{KafkaRelease, SafetySwitch};
use kraft_scenario::fields::*;
use kraft_sim::limits::{self as limits_table, Limit};
use kraft_sim::trace::Invariant;
use kraft_sim::{ClusterSpec, QuorumKind};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

const MARKUP: &str = "Plain text with **bold**, *em* and `code`; raw HTML is refused.";
const PLAIN: &str = "Plain text, shown as it is; raw HTML is refused.";
/// What the parser refuses as raw HTML: a `<` starting a tag, comment or declaration.
const HTML: &str = "<[A-Za-z/!?]";
const LABEL: &str = "^[A-Za-z][A-Za-z0-9_-]*$";
const NODE_LABEL: &str = "^\\$[A-Za-z][A-Za-z0-9_-]*$";
const KEBAB: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";

fn def(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

fn array_of(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

/// One name or a non-empty list of them.
fn one_or_more(names: Vec<&str>) -> Value {
    json!({"anyOf": [{"enum": names}, {"type": "array", "minItems": 1, "items": {"enum": names}}]})
}

/// An integer within a limit of the core (0 where 0 turns it off).
fn bounded(l: &Limit) -> Value {
    let mut v = json!({"type": "integer", "minimum": if l.zero_turns_off { 0 } else { l.min }});
    if let Some(max) = l.max {
        v["maximum"] = json!(max);
    }
    v
}

fn described(mut v: Value, doc: &str) -> Value {
    v["description"] = json!(doc);
    v
}

/// A probability (the limit is in parts per million).
fn rate(l: &Limit) -> Value {
    let unit = |ppm: u64| if ppm % 1_000_000 == 0 { json!(ppm / 1_000_000) } else { json!(ppm as f64 / 1e6) };
    json!({"type": "number", "minimum": unit(l.min), "maximum": unit(l.upper())})
}

fn ty(t: Ty) -> Value {
    match t {
        Ty::Int => json!({"type": "integer", "minimum": 0}),
        Ty::Positive => json!({"type": "integer", "minimum": 1}),
        Ty::Rate => rate(&limits_table::LOSS),
        Ty::Latency => {
            json!({"type": "array", "items": bounded(&limits_table::LATENCY_MS), "minItems": 2, "maxItems": 2})
        }
        Ty::FlushMs => bounded(&limits_table::FLUSH_MS),
        Ty::WritesPerSecond => bounded(&limits_table::WRITES_PER_SECOND),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Text => json!({"type": "string", "description": MARKUP, "not": {"pattern": HTML}}),
        Ty::Plain => json!({"type": "string", "description": PLAIN, "not": {"pattern": HTML}}),
        Ty::Str => json!({"type": "string"}),
        Ty::Label => json!({"type": "string", "pattern": LABEL}),
        Ty::Kebab => json!({"type": "string", "pattern": KEBAB}),
        Ty::Node => def("nodeRef"),
        Ty::NodeFixed => def("nodeFixed"),
        Ty::NodeSel => def("nodeSel"),
        Ty::NodeSelNow => json!({
            "description": "\"all\", \"voters\", \"observers\", or one node (an id, \"leader\", \"follower\" or \"$label\"), evaluated at that moment.",
            "anyOf": [{"enum": ["all", "voters", "observers"]}, def("nodeRef")]
        }),
        Ty::Time => def("timeRef"),
        Ty::Groups => json!({"type": "array", "minItems": 1, "items": {"anyOf": [{"const": "rest"},
            {"type": "array", "minItems": 1, "items": def("nodeRef")}]}}),
        Ty::Record => def("record"),
        Ty::States => one_or_more(STATES.to_vec()),
        Ty::Condition => def("condition"),
        Ty::Conditions => json!({"type": "array", "minItems": 1, "items": def("condition")}),
        Ty::EventMatch => def("eventMatch"),
        Ty::Invariants => one_or_more(Invariant::ALL.iter().map(|i| i.name()).collect()),
        Ty::Ints => array_of(ty(Ty::Int)),
        Ty::Strs => array_of(ty(Ty::Str)),
        Ty::Switches => array_of(json!({"enum": SafetySwitch::all_names()})),
        Ty::Cluster => def("cluster"),
        Ty::Steps => array_of(def("step")),
        Ty::Expectations => array_of(def("expectation")),
        Ty::Measures => array_of(def("measure")),
        Ty::Variants => array_of(def("variant")),
        Ty::Captions => json!({"type": "object", "additionalProperties": ty(Ty::Text)}),
        Ty::Focus => object(FOCUS),
        Ty::FocusMessages => array_of(object(FOCUS_MESSAGE)),
        Ty::MessageKind => json!({"enum": RpcKind::REQUESTS.map(RpcKind::name)}),
        Ty::RecordNames => json!({"type": "object", "propertyNames": {"pattern": LABEL},
            "additionalProperties": object(RECORD_NAME)}),
        Ty::ActionName => json!({"enum": ActionKind::keys()}),
    }
}

fn field(f: &Field) -> Value {
    let mut v = ty(f.ty);
    if !f.doc.is_empty() {
        v["description"] = json!(f.doc);
    }
    v
}

fn properties(fields: &[Field]) -> Map<String, Value> {
    fields.iter().map(|f| (f.key.to_string(), field(f))).collect()
}

fn required(fields: &[Field]) -> Vec<&'static str> {
    fields.iter().filter(|f| f.required).map(|f| f.key).collect()
}

fn object(fields: &[Field]) -> Value {
    json!({"type": "object", "properties": properties(fields), "required": required(fields),
        "additionalProperties": false})
}

fn shape(s: Shape) -> Value {
    match s {
        Shape::True => json!({"const": true}),
        Shape::Value(t) => ty(t),
        Shape::Object(f) => object(f),
        Shape::TrueOr(f) => json!({"anyOf": [{"const": true}, object(f)]}),
        Shape::TrueOrLabel => json!({"anyOf": [{"const": true}, {"type": "string"}]}),
    }
}

/// Objects with exactly one key naming their kind (plus `extra` keys).
fn one_of<K: Kind>(description: &str, spec: fn(K) -> (Shape, &'static str), extra: &[(&str, Value)]) -> Value {
    let alternatives: Vec<Value> = K::ALL
        .iter()
        .map(|k| {
            let (s, doc) = spec(*k);
            let mut props = Map::new();
            props.insert(k.key().into(), shape(s));
            for (key, v) in extra {
                props.insert(key.to_string(), v.clone());
            }
            json!({"type": "object", "description": doc, "properties": props, "required": [k.key()],
                "additionalProperties": false})
        })
        .collect();
    json!({"description": description, "oneOf": alternatives})
}

fn step() -> Value {
    let mut props = properties(STEP);
    for a in ActionKind::ALL {
        for f in action_fields(*a) {
            props.entry(f.key.to_string()).or_insert_with(|| field(&f));
        }
    }
    let step_keys = keys_of(STEP);
    let mut rules: Vec<Value> = ActionKind::ALL
        .iter()
        .map(|a| {
            let (fields, doc) = (&action_fields(*a)[..], a.doc());
            let mut allowed = step_keys.clone();
            allowed.extend(keys_of(fields));
            let mut then = json!({"propertyNames": {"enum": allowed}});
            if !required(fields).is_empty() {
                then["required"] = json!(required(fields));
            }
            json!({"if": {"properties": {"action": {"const": a.key()}}, "required": ["action"]}, "then": then,
                "description": doc})
        })
        .collect();
    rules.push(json!({"if": {"not": {"required": ["action"]}}, "then": {"propertyNames": {"enum": step_keys}}}));
    json!({
        "type": "object",
        "description": "One step: when (at | after | until, or right after the previous step), what (an action and its fields), and what to tell the reader.",
        "properties": props,
        "additionalProperties": false,
        "allOf": rules,
        "not": {"anyOf": [{"required": ["at", "after"]}, {"required": ["at", "until"]}, {"required": ["after", "until"]}]}
    })
}

fn cluster() -> Value {
    let config: Vec<&str> = CONFIG_KEYS.iter().map(|k| k.limit.key).collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["voters"],
        "description": "The cluster, as the npm API's Cluster.create takes it.",
        "properties": {
            "voters": described(bounded(&limits_table::VOTERS), "Voters are nodes 0..voters-1."),
            "observers": described(bounded(&limits_table::OBSERVERS), "Observers (brokers) follow the voters' ids."),
            "seed": {"type": "integer", "minimum": 0, "description": "The run's seed (RunOptions / --seed override it)."},
            "network": {
                "anyOf": [{"enum": ["datacenter", "teaching", "wan"]},
                    object(&[Field { key: "latencyMs", ty: Ty::Latency, required: true, doc: "" },
                        Field { key: "loss", ty: Ty::Rate, required: false, doc: "" },
                        Field { key: "duplicate", ty: Ty::Rate, required: false, doc: "" }])],
                "description": "A preset (datacenter 1-5 ms, teaching 60-140 ms, wan 20-80 ms) or a link profile. Default datacenter."
            },
            "config": {
                "type": "object",
                "propertyNames": {"enum": config},
                "additionalProperties": {"type": "integer", "minimum": 0},
                "description": "Kafka's controller.quorum.* settings (ms, or bytes for the *.max.bytes limits); sim.fetchMaxWaitMs, a simulator-only knob for Kafka's fixed 500 ms Fetch wait; and Kafka's snapshot and retention keys metadata.log.max.snapshot.interval.ms, metadata.max.retention.bytes and metadata.max.retention.ms, whose defaults are scaled down for a playground (1 min, 256 KiB, 5 min; Kafka: 1 h, 100 MiB, 7 days)."
            },
            "unsafe": {"type": "array", "items": {"enum": SafetySwitch::all_names()}, "description": "Safety rules switched off."},
            "flushMs": described(bounded(&limits_table::FLUSH_MS), "Disk flush latency of every node (default 1)."),
            "snapshotInterval": described(bounded(&limits_table::SNAPSHOT_INTERVAL), "Snapshot every this many applied records (the simulator's stand-in for Kafka's byte trigger metadata.log.max.record.bytes.between.snapshots; the time trigger is metadata.log.max.snapshot.interval.ms); 0 never; else at least 10 (default 1000). Taking a snapshot keeps the log; retention cleans it."),
            "writesPerSecond": described(bounded(&limits_table::WRITES_PER_SECOND), "Client writes per second from the start (default 0)."),
            "stableLeadership": {"type": "boolean", "description": "Also check StableLeadership (for pre-vote stories)."},
            "kafkaRelease": {"enum": KafkaRelease::all_names(), "description": "The Kafka release whose raft behaviour the run models where releases differ (quorum-state flushes, UpdateRaftVoter, kraft.version upgrade, auto-join). Default legacy: the playground's model before releases, no Kafka release."},
            "quorum": {"enum": QuorumKind::ALL.map(QuorumKind::name), "description": "How the controllers were formatted: static (controller.quorum.voters, the default) or dynamic (KIP-853: nodes 0..voters with --initial-controllers, the others observers until addVoter; needs kafkaRelease 3.9 or later)."}
        }
    })
}

fn event_match() -> Value {
    let mut all: Vec<&str> = vec!["type", "text"];
    for (_, fields) in EVENT_FIELDS {
        for f in fields.iter() {
            if !all.contains(f) {
                all.push(f);
            }
        }
    }
    all.sort_unstable();
    let types: Vec<&str> = EVENT_FIELDS.iter().map(|(t, _)| *t).collect();
    let mut props: Map<String, Value> = all.iter().map(|f| (f.to_string(), def("eventValue"))).collect();
    props.insert("type".into(), one_or_more(types));
    let by_type: Map<String, Value> = EVENT_FIELDS.iter().map(|(t, f)| (t.to_string(), json!(f))).collect();
    let listing: Vec<String> = EVENT_FIELDS.iter().map(|(t, f)| format!("{t}: {}", f.join(", "))).collect();
    json!({
        "type": "object",
        "minProperties": 1,
        "additionalProperties": false,
        "description": format!("A pattern over the JSON form of trace events (the npm API's events): every field given must match. Fields per type: {}. Every event also has type and text.", listing.join("; ")),
        "properties": props,
        "x-fieldsByType": by_type,
    })
}

/// A value of an event pattern; its strings (alone or in an array) are plain text.
fn event_value() -> Value {
    let html = json!({"type": "string", "pattern": HTML});
    json!({
        "description": "A value, or an array meaning any of them; on an array-valued field (evidence, nodes), the event's array must contain the value (or every value given). Node fields take \"$label\"; text, summary and detail match as substrings. Strings are plain text: raw HTML is refused.",
        "not": {"anyOf": [html, {"type": "array", "contains": html}]}
    })
}

fn record() -> Value {
    let alternatives: Vec<Value> = RECORDS
        .iter()
        .map(|(name, fields)| {
            let mut props = Map::new();
            props.insert("type".into(), json!({"const": name}));
            let mut req = vec!["type"];
            for (f, kind) in fields.iter() {
                let v = match (*kind, *f) {
                    ("name", _) => json!({"type": "string", "pattern": "^[a-zA-Z0-9._-]{1,249}$"}),
                    (_, "partitions") => bounded(&limits_table::PARTITIONS),
                    _ => ty(Ty::Int),
                };
                props.insert(f.to_string(), v);
                req.push(f);
            }
            json!({"type": "object", "properties": props, "required": req, "additionalProperties": false})
        })
        .collect();
    json!({"description": "A metadata record (as the npm API's write).", "oneOf": alternatives})
}

/// The JSON Schema of the scenario format.
fn json_schema() -> Value {
    let mut top = properties(SCENARIO);
    top["durationMs"] = described(bounded(&limits_table::SCENARIO_DURATION_MS), "The run ends at this simulated time.");
    let mut variant = object(VARIANT);
    variant["description"] =
        json!("A variation of the story, usually with a safety rule off; its expectations replace the scenario's.");
    let note =
        described(ty(Ty::Text), "Why this expectation matters (shown in reports); caption markup, raw HTML refused.");
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://kraft-playground.invalid/scenarios/schema.json",
        "title": "KRaft Playground scenario",
        "description": "A guided KRaft story that is also a test: a cluster, timed steps with captions, expectations and measurements. See scenarios/README.md. Generated from the parser's vocabulary (crate/scenario/src/vocab.rs); do not edit by hand.",
        "type": "object",
        "additionalProperties": false,
        "required": required(SCENARIO),
        "properties": top,
        "$defs": {
            "cluster": cluster(),
            "step": step(),
            "nodeRef": {
                "description": "A node: an id (0-based; voters first, then observers), \"leader\" (the current leader), \"follower\" (the lowest-id voter following the current leader), or \"$label\" (the node a labelled earlier step acted on or found).",
                "anyOf": [ty(Ty::Int), {"enum": ["leader", "follower"]}, {"type": "string", "pattern": NODE_LABEL}]
            },
            "nodeFixed": {
                "description": "A node known after the run: an id or \"$label\".",
                "anyOf": [ty(Ty::Int), {"type": "string", "pattern": NODE_LABEL}]
            },
            "nodeSel": {
                "description": "\"all\", \"voters\", \"observers\", or one node (an id or \"$label\").",
                "anyOf": [{"enum": ["all", "voters", "observers"]}, def("nodeFixed")]
            },
            "timeRef": {
                "description": "A moment: simulated ms, a step label (\"crash\"), a label plus ms (\"crash+500\"), or \"end\".",
                "anyOf": [ty(Ty::Int), {"type": "string", "pattern": "^(end|[A-Za-z][A-Za-z0-9_-]*(\\+[0-9]+)?)$"}]
            },
            "condition": one_of::<ConditionKind>(
                "Something true or false of the cluster at a moment: an object with exactly one of these keys.",
                ConditionKind::spec, &[]),
            "expectation": one_of::<ExpectKind>(
                "A claim about the run: an object with exactly one of these keys (plus an optional note).",
                ExpectKind::spec, &[("note", note)]),
            "measure": one_of::<MeasureKind>(
                "A number to report: an object with exactly one of these keys.", MeasureKind::spec, &[]),
            "eventMatch": event_match(),
            "eventValue": event_value(),
            "record": record(),
            "variant": variant,
        }
    })
}

/// `scenarios/schema.json` is generated from the parser's vocabulary; `UPDATE=1` rewrites it.
#[test]
fn the_schema_is_generated_from_the_parser_vocabulary() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/schema.json");
    let want = serde_json::to_string_pretty(&json_schema()).unwrap() + "\n";
    if let Err(e) = kraft_expect::file(&path, &want) {
        panic!("{e}\nrun UPDATE=1 cargo test --release --test scenario_schema");
    }
}

#[test]
fn the_schema_knows_every_cluster_field() {
    let schema = json_schema();
    // Every field given: an absent release is left out of the JSON.
    let every = ClusterSpec {
        kafka_release: Some("legacy".into()),
        quorum: Some(QuorumKind::Static),
        ..ClusterSpec::default()
    };
    let spec_keys: BTreeSet<String> =
        serde_json::to_value(every).unwrap().as_object().unwrap().keys().cloned().collect();
    let listed: BTreeSet<String> = cluster_fields().iter().map(|s| s.to_string()).collect();
    assert_eq!(spec_keys, listed, "ClusterSpec fields");
    let in_schema: BTreeSet<String> =
        schema["$defs"]["cluster"]["properties"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(in_schema, spec_keys, "cluster");
}

/// The schema's bounds are the core's limits (`kraft_sim::limits`), so an editor
/// that checks a scenario against the schema refuses what the parser refuses.
#[test]
fn schema_bounds_are_the_cores_limits() {
    use kraft_sim::limits;
    let s = json_schema();
    let cluster = &s["$defs"]["cluster"]["properties"];
    let step = &s["$defs"]["step"]["properties"];
    let check = |what: &str, v: &Value, l: &Limit| {
        assert!(v.is_object(), "{what}: the schema has no {}", l.key);
        assert_eq!(
            v["minimum"].as_u64(),
            Some(if l.zero_turns_off { 0 } else { l.min }),
            "{what}: minimum of {}",
            l.key
        );
        assert_eq!(v["maximum"].as_u64(), l.max, "{what}: maximum of {}", l.key);
    };
    check("scenario", &s["properties"]["durationMs"], &limits::SCENARIO_DURATION_MS);
    for l in [limits::VOTERS, limits::OBSERVERS, limits::FLUSH_MS, limits::WRITES_PER_SECOND, limits::SNAPSHOT_INTERVAL]
    {
        check("cluster", &cluster[l.key], &l);
    }
    check("cluster.network", &cluster["network"]["anyOf"][1]["properties"]["latencyMs"]["items"], &limits::LATENCY_MS);
    for l in [limits::FLUSH_MS, limits::WRITES_PER_SECOND] {
        check("step", &step[l.key], &l);
    }
    check("step", &step["latencyMs"]["items"], &limits::LATENCY_MS);
    for (what, v) in [("cluster.network", &cluster["network"]["anyOf"][1]["properties"]), ("step", step)] {
        for l in [limits::LOSS, limits::DUPLICATE] {
            assert_eq!(v[l.key]["minimum"].as_f64(), Some(l.min as f64 / 1e6), "{what}: minimum of {}", l.key);
            assert_eq!(v[l.key]["maximum"].as_f64(), Some(l.upper() as f64 / 1e6), "{what}: maximum of {}", l.key);
        }
    }
}
