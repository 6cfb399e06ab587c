//! Reading a scenario: JSON -> checked `Scenario`, with every error naming its path
//! (`steps[3].node`). Shapes are checked with `serde_path_to_error` where a serde type
//! exists (the cluster, records, switches); the rest is read by hand so node references,
//! labels and times can be checked against the cluster and the steps as we go.

use super::cond::{Condition, EventMatch, NodeSel};
use super::markup;
use super::*;
use crate::messages::{cap, plain_serde, MAX_ECHO_CHARS};
use crate::protocol::SafetySwitch;
use crate::sim::spec::validate_latency;
use crate::sim::Action;
use serde::de::DeserializeOwned;
use std::collections::BTreeSet;

type R<T> = Result<T, ScenarioError>;

/// Longest run a scenario may ask for (a story, not a soak test): `limits::SCENARIO_DURATION_MS`.
pub const MAX_DURATION_MS: u64 = crate::limits::SCENARIO_DURATION_MS.upper();

/// Top-level keys.
pub const SCENARIO: &[&str] =
    &["id", "title", "summary", "cluster", "durationMs", "steps", "expect", "report", "variants"];
/// Keys of a step besides the fields of its action.
pub const STEP: &[&str] = &["at", "after", "until", "timeoutMs", "action", "label", "caption", "pause", "optional"];
pub const VARIANT: &[&str] = &["name", "title", "summary", "unsafe", "seed", "expect", "report", "captions"];
/// Each action and its fields.
pub const ACTIONS: &[(&str, &[&str])] = &[
    ("crash", &["node"]),
    ("wipe", &["node"]),
    ("restart", &["node"]),
    ("isolate", &["node"]),
    ("partition", &["groups"]),
    ("cut", &["from", "to"]),
    ("uncut", &["from", "to"]),
    ("slowLink", &["from", "to", "latencyMs"]),
    ("heal", &[]),
    ("network", &["latencyMs", "loss", "duplicate"]),
    ("slowDisk", &["node", "flushMs"]),
    ("resign", &[]),
    ("workload", &["writesPerSecond"]),
    ("write", &["record"]),
];
/// Each condition and, when its value is an object, that object's fields.
pub const CONDITIONS: &[(&str, &[&str])] = &[
    ("leaderElected", &["otherThan", "minEpoch"]),
    ("leaderIs", &[]),
    ("state", &["node", "is"]),
    ("hw", &["node", "atLeast"]),
    ("caughtUp", &["node"]),
    ("converged", &[]),
    ("event", &[]),
    ("allOf", &[]),
    ("anyOf", &[]),
    ("not", &[]),
];
/// Each expectation and, when its value is an object, that object's fields. Every
/// expectation object may also carry a `note`.
pub const EXPECTATIONS: &[(&str, &[&str])] = &[
    ("leaderElectedBy", &[]),
    ("hwAtLeast", &["node", "offset", "by"]),
    ("truncation", &["node", "rounds", "from", "to"]),
    ("noTruncation", &["node", "from", "to"]),
    ("failoverWithin", &[]),
    ("failover", &["from", "within", "atLeast"]),
    ("noViolations", &[]),
    ("violated", &[]),
    ("eventually", &["condition", "from", "by"]),
    ("always", &["condition", "from", "to"]),
    ("holds", &["condition", "at"]),
    ("stateAt", &["at", "node", "state"]),
    ("event", &["match", "from", "to", "atLeast", "atMost"]),
    ("noEvent", &["match", "from", "to"]),
    ("progress", &["from", "to", "atLeast"]),
    ("metadata", &["node", "brokers", "topics"]),
];
/// Each measurement and, when its value is an object, that object's fields.
pub const MEASURES: &[(&str, &[&str])] = &[
    ("firstElection", &[]),
    ("failover", &[]),
    ("hwReached", &["offset", "node", "from"]),
    ("count", &["name", "match", "from", "to"]),
    ("interval", &["name", "from", "to"]),
    ("nodes", &[]),
];
/// The fields an event pattern may name, per event type (the JSON form of events).
pub use crate::trace::EVENT_FIELDS;
/// Fields every event has (besides those of its type).
const EVENT_COMMON: &[&str] = &["type", "text"];
/// Node-valued event fields, per event type (where `"$label"` may stand).
fn node_fields(ty: Option<&str>) -> &'static [&'static str] {
    match ty {
        Some("send" | "deliver" | "drop") => &["from", "to"],
        Some("state" | "persist") => &["node", "leader", "votedFor"],
        Some("vote") => &["node", "candidate"],
        Some("disconnect") => &["node", "peer"],
        Some(_) => &["node"],
        None => &["node", "from", "to", "candidate", "leader", "votedFor", "peer"],
    }
}
const STATES: &[&str] = &["unattached", "prospective", "candidate", "leader", "follower", "resigned", "crashed"];
const RESERVED_LABELS: &[&str] = &["leader", "follower", "rest", "end", "all", "voters", "observers"];

// ---- small JSON helpers -------------------------------------------------------------

fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        cap(key).into_owned()
    } else {
        format!("{base}.{}", cap(key))
    }
}

fn idx(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, msg))
}

/// Deserializes a value with its path, prefixing `base`.
fn de<T: DeserializeOwned>(v: &Value, base: &str) -> R<T> {
    serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
        let mut path = base.to_string();
        for seg in e.path().iter() {
            match seg {
                serde_path_to_error::Segment::Seq { index } => path = idx(&path, *index),
                serde_path_to_error::Segment::Map { key } | serde_path_to_error::Segment::Enum { variant: key } => {
                    path = join(&path, key)
                }
                serde_path_to_error::Segment::Unknown => {}
            }
        }
        ScenarioError::new(path, plain_serde(&e.into_inner().to_string()))
    })
}

/// Edit distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggest(word: &str, known: &[&str]) -> String {
    if word.len() > MAX_ECHO_CHARS {
        return String::new();
    }
    let best = known.iter().map(|k| (distance(&word.to_lowercase(), &k.to_lowercase()), *k)).min();
    match best {
        Some((d, k)) if d <= 2 || k.to_lowercase().contains(&word.to_lowercase()) => {
            format!(" (did you mean '{k}'?)")
        }
        _ => String::new(),
    }
}

/// An object being read: its fields and where it is.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn new(v: &'a Value, path: &str, what: &str) -> R<Obj<'a>> {
        match v {
            Value::Object(map) => Ok(Obj { map, path: path.to_string() }),
            other => err(path, format!("expected {what} (an object), got {}", json_kind(other))),
        }
    }

    fn p(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// The value, treating null as absent.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn req_value(&self, key: &str) -> R<&'a Value> {
        self.get(key).ok_or_else(|| ScenarioError::new(self.p(key), "missing required field"))
    }

    fn req<T: DeserializeOwned>(&self, key: &str) -> R<T> {
        de(self.req_value(key)?, &self.p(key))
    }

    fn opt<T: DeserializeOwned>(&self, key: &str) -> R<Option<T>> {
        match self.get(key) {
            Some(v) => de(v, &self.p(key)).map(Some),
            None => Ok(None),
        }
    }

    fn string(&self, key: &str) -> R<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => err(self.p(key), format!("expected a string, got {}", json_kind(v))),
        }
    }

    fn req_string(&self, key: &str) -> R<String> {
        self.string(key)?.ok_or_else(|| ScenarioError::new(self.p(key), "missing required field"))
    }

    /// Refuses keys not in `allowed`.
    fn allow(&self, allowed: &[&str]) -> R<()> {
        for k in self.map.keys() {
            if !allowed.contains(&k.as_str()) {
                return err(
                    self.p(k),
                    format!("unknown field '{}'{}; allowed here: {}", cap(k), suggest(k, allowed), allowed.join(", ")),
                );
            }
        }
        Ok(())
    }

    /// For objects with exactly one key naming what they are (`{"crash": ...}`), plus
    /// the optional extra keys: the key, its value and its path.
    fn single(&self, known: &[&str], extra: &[&str], what: &str) -> R<(&'a str, &'a Value, String)> {
        let mut found: Option<(&'a str, &'a Value)> = None;
        for (k, v) in self.map.iter() {
            if extra.contains(&k.as_str()) {
                continue;
            }
            if !known.contains(&k.as_str()) {
                return err(
                    self.p(k),
                    format!("unknown {what} '{}'{}; known: {}", cap(k), suggest(k, known), known.join(", ")),
                );
            }
            if let Some((first, _)) = found {
                return err(self.p(k), format!("one {what} per object: found both '{}' and '{}'", cap(first), cap(k)));
            }
            found = Some((k.as_str(), v));
        }
        match found {
            Some((k, v)) => Ok((k, v, self.p(k))),
            None => err(self.path.clone(), format!("expected one {what}: {}", known.join(", "))),
        }
    }
}

fn expect_true(v: &Value, path: &str, hint: &str) -> R<()> {
    match v {
        Value::Bool(true) => Ok(()),
        Value::Bool(false) => err(path, format!("must be true; {hint}")),
        other => err(path, format!("expected true, got {}", json_kind(other))),
    }
}

fn u64_of(v: &Value, path: &str) -> R<u64> {
    de::<u64>(v, path)
}

// ---- the reading context ------------------------------------------------------------

#[derive(Clone, Copy)]
struct LabelDecl {
    step: usize,
    has_subject: bool,
}

struct Cx {
    voters: u32,
    observers: u32,
    labels: BTreeMap<String, LabelDecl>,
    /// While reading steps: the index of the step being read (labels must be earlier).
    in_step: Option<usize>,
}

impl Cx {
    fn nodes(&self) -> u32 {
        self.voters + self.observers
    }

    fn node_range(&self) -> String {
        let mut s = format!("nodes are 0..{} ({} voter", self.nodes() - 1, self.voters);
        if self.voters != 1 {
            s.push('s');
        }
        if self.observers > 0 {
            s.push_str(&format!(
                " 0..{}, {} observer{} {}..{}",
                self.voters - 1,
                self.observers,
                if self.observers == 1 { "" } else { "s" },
                self.voters,
                self.nodes() - 1
            ));
        }
        s.push(')');
        s
    }

    fn label(&self, label: &str, path: &str, need_subject: bool) -> R<()> {
        let Some(decl) = self.labels.get(label) else {
            let known: Vec<&str> = self.labels.keys().map(|s| s.as_str()).collect();
            return err(
                path,
                if known.is_empty() {
                    format!("no step is labelled '{}' (no step has a label)", cap(label))
                } else {
                    format!(
                        "no step is labelled '{}'{}; labels: {}",
                        cap(label),
                        suggest(label, &known),
                        known.join(", ")
                    )
                },
            );
        };
        if let Some(cur) = self.in_step {
            if decl.step >= cur {
                return err(
                    path,
                    format!(
                        "step '{}' (steps[{}]) has not happened yet here; a step can only refer to earlier steps",
                        cap(label),
                        decl.step
                    ),
                );
            }
        }
        if need_subject && !decl.has_subject {
            return err(
                path,
                format!(
                    "step '{}' names no node (only steps that crash/wipe/restart/isolate/slowDisk a node, resign, or wait for a leader or a node's state do)", cap(label)),
            );
        }
        Ok(())
    }

    fn node_ref(&self, v: &Value, path: &str, allow_leader: bool) -> R<NodeRef> {
        match v {
            Value::Number(_) => {
                let n: u32 = de(v, path)?;
                if n >= self.nodes() {
                    return err(path, format!("node {n} does not exist; {}", self.node_range()));
                }
                Ok(NodeRef::Id(n))
            }
            Value::String(s) if s == "leader" || s == "follower" => {
                if allow_leader {
                    Ok(if s == "leader" { NodeRef::Leader } else { NodeRef::Follower })
                } else {
                    err(
                        path,
                        "'leader' and 'follower' are only meaningful in steps and conditions (they mean a node's role at that moment); here name a node id or a step label like \"$crash\"",
                    )
                }
            }
            Value::String(s) if s.starts_with('$') => {
                self.label(&s[1..], path, true)?;
                Ok(NodeRef::Label(s[1..].to_string()))
            }
            other => err(
                path,
                format!(
                    "expected a node: an id (0..{}), \"leader\", \"follower\" or a step label like \"$crash\"; got {}",
                    self.nodes() - 1,
                    match other {
                        Value::String(s) => format!("\"{}\"", cap(s)),
                        o => json_kind(o).to_string(),
                    }
                ),
            ),
        }
    }

    fn node_sel(&self, v: &Value, path: &str, allow_leader: bool) -> R<NodeSel> {
        match v.as_str() {
            Some("all") => Ok(NodeSel::All),
            Some("voters") => Ok(NodeSel::Voters),
            Some("observers") => Ok(NodeSel::Observers),
            _ => self.node_ref(v, path, allow_leader).map(NodeSel::Node).map_err(|e| {
                if e.message.starts_with("expected a node") {
                    ScenarioError::new(
                        e.path,
                        e.message.replace("expected a node:", "expected \"all\", \"voters\", \"observers\" or a node:"),
                    )
                } else {
                    e
                }
            }),
        }
    }

    fn time_ref(&self, v: &Value, path: &str) -> R<TimeRef> {
        match v {
            Value::Number(_) => Ok(TimeRef::Ms(u64_of(v, path)?)),
            Value::String(s) if s == "end" => Ok(TimeRef::End),
            Value::String(s) => {
                let (label, plus) = match s.split_once('+') {
                    Some((l, p)) => match p.trim().parse::<u64>() {
                        Ok(p) => (l.trim(), p),
                        Err(_) => {
                            return err(
                                path,
                                format!("'{}': after '+' comes a number of ms, like \"crash+500\"", cap(s)),
                            )
                        }
                    },
                    None => (s.trim(), 0),
                };
                self.label(label, path, false)?;
                Ok(TimeRef::Step { label: label.to_string(), plus })
            }
            other => err(
                path,
                format!(
                    "expected a time: ms, a step label (\"crash\", \"crash+500\") or \"end\"; got {}",
                    json_kind(other)
                ),
            ),
        }
    }

    fn opt_time(&self, o: &Obj, key: &str) -> R<Option<TimeRef>> {
        o.get(key).map(|v| self.time_ref(v, &o.p(key))).transpose()
    }
}

fn check_markup(text: &str, path: &str) -> R<()> {
    markup::check(text).map_err(|m| ScenarioError::new(path, m))
}

fn check_kebab(s: &str, path: &str, what: &str) -> R<()> {
    let ok = !s.is_empty()
        && s.split('-').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
    if ok {
        Ok(())
    } else {
        err(
            path,
            format!(
                "{what} '{}' must be kebab-case: lowercase letters and digits joined by '-' (like 'figure-8')",
                cap(s)
            ),
        )
    }
}

// ---- the scenario -------------------------------------------------------------------

pub fn parse(text: &str) -> R<Scenario> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| ScenarioError::new("", format!("the scenario {}", plain_serde(&e.to_string()))))?;
    let o = Obj::new(&root, "", "a scenario")?;
    o.allow(SCENARIO)?;
    let id = o.req_string("id")?;
    check_kebab(&id, "id", "id")?;
    let title = o.req_string("title")?;
    if title.trim().is_empty() {
        return err("title", "must not be empty");
    }
    check_markup(&title, "title")?;
    let summary = o.req_string("summary")?;
    check_markup(&summary, "summary")?;
    let cluster = parse_cluster(o.req_value("cluster")?)?;
    let duration_ms: u64 = o.req("durationMs")?;
    if duration_ms == 0 || duration_ms > MAX_DURATION_MS {
        return err("durationMs", format!("must be between 1 and {MAX_DURATION_MS} (ten minutes), got {duration_ms}"));
    }
    let mut cx = Cx { voters: cluster.voters, observers: cluster.observers, labels: BTreeMap::new(), in_step: None };
    let step_values: Vec<Value> = match o.get("steps") {
        None => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(v) => return err("steps", format!("expected an array, got {}", json_kind(v))),
    };
    // Declare labels first so the error for a forward reference can say so.
    for (i, s) in step_values.iter().enumerate() {
        let path = idx("steps", i);
        let so = Obj::new(s, &path, "a step")?;
        if let Some(l) = so.string("label")? {
            let lp = so.p("label");
            let ok = l.chars().next().map(|c| c.is_ascii_alphabetic()).unwrap_or(false)
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !ok {
                return err(
                    lp,
                    format!("label '{}' must start with a letter and use only letters, digits, '-' and '_'", cap(&l)),
                );
            }
            if RESERVED_LABELS.contains(&l.as_str()) {
                return err(lp, format!("'{}' is a reserved word; choose another label", cap(&l)));
            }
            if let Some(prev) = cx.labels.get(&l) {
                return err(lp, format!("label '{}' is already used by steps[{}]", cap(&l), prev.step));
            }
            cx.labels.insert(l, LabelDecl { step: i, has_subject: step_has_subject(s) });
        }
    }
    let mut steps = Vec::new();
    let mut static_time: Option<u64> = Some(0);
    let mut last_at: u64 = 0;
    for (i, s) in step_values.iter().enumerate() {
        cx.in_step = Some(i);
        let step = parse_step(s, &idx("steps", i), &cx, duration_ms)?;
        let path = idx("steps", i);
        match &step.when {
            When::At(t) => {
                if let Some(prev) = static_time.filter(|p| t < p) {
                    return err(
                        join(&path, "at"),
                        format!("{t} is before the previous step (at {prev} ms); steps run in order"),
                    );
                }
                if *t < last_at {
                    return err(
                        join(&path, "at"),
                        format!("{t} is before an earlier step's 'at' ({last_at}); steps run in order"),
                    );
                }
                last_at = *t;
                static_time = Some(*t);
            }
            When::After(d) => {
                if *d > duration_ms {
                    return err(
                        join(&path, "after"),
                        format!("{d} ms is after the end of the run (durationMs {duration_ms})"),
                    );
                }
                static_time = static_time.map(|p| p + d)
            }
            When::Next => {}
            When::Until { .. } => static_time = None,
        }
        if let Some(t) = static_time.filter(|t| *t > duration_ms) {
            let key = match step.when {
                When::At(_) => "at",
                _ => "after",
            };
            return err(
                join(&path, key),
                format!("this step would happen at {t} ms, after the end of the run (durationMs {duration_ms})"),
            );
        }
        steps.push(step);
    }
    cx.in_step = None;
    let expect = match o.get("expect") {
        None => Vec::new(),
        Some(v) => parse_expect_list(v, "expect", &cx)?,
    };
    let report = match o.get("report") {
        None => Vec::new(),
        Some(v) => parse_measures(v, "report", &cx)?,
    };
    let mut variants: Vec<Variant> = Vec::new();
    match o.get("variants") {
        None => {}
        Some(Value::Array(a)) => {
            for (i, v) in a.iter().enumerate() {
                let path = idx("variants", i);
                let var = parse_variant(v, &path, &cx)?;
                if variants.iter().any(|x| x.name == var.name) {
                    return err(join(&path, "name"), format!("variant name '{}' is used twice", var.name));
                }
                variants.push(var);
            }
        }
        Some(v) => return err("variants", format!("expected an array, got {}", json_kind(v))),
    }
    Ok(Scenario { id, title, summary, cluster, duration_ms, steps, expect, report, variants, variant: None })
}

fn parse_cluster(v: &Value) -> R<ClusterSpec> {
    let o = Obj::new(v, "cluster", "the cluster")?;
    // The network is a preset name or a profile; check its shape here so the error
    // names the field instead of "did not match any variant".
    if let Some(n) = o.get("network") {
        match n {
            Value::String(_) => {}
            Value::Object(_) => {
                de::<crate::sim::spec::LinkProfileSpec>(n, "cluster.network")?;
            }
            other => {
                return err(
                    "cluster.network",
                    format!(
                        "expected a preset name (\"datacenter\", \"teaching\", \"wan\") or an object {{\"latencyMs\": [min, max], \"loss\": 0..1, \"duplicate\": 0..1}}, got {}",
                        json_kind(other)
                    ),
                )
            }
        }
    }
    if let Some(Value::Object(c)) = o.get("config") {
        for (k, val) in c {
            if !val.is_u64() {
                return err(
                    format!("cluster.config.{k}"),
                    format!("expected a number of ms (a non-negative integer), got {}", json_kind(val)),
                );
            }
        }
    }
    if let Some(Value::Array(a)) = o.get("unsafe") {
        for (i, s) in a.iter().enumerate() {
            if let Some(name) = s.as_str() {
                SafetySwitch::parse(name).map_err(|m| ScenarioError::new(idx("cluster.unsafe", i), m))?;
            }
        }
    }
    let known = cluster_fields();
    if let Some(k) = o.map.keys().find(|k| !known.contains(&k.as_str())) {
        return err(
            o.p(k),
            format!("unknown field '{}'{}; allowed here: {}", cap(k), suggest(k, &known), known.join(", ")),
        );
    }
    let spec: ClusterSpec = de(v, "cluster")?;
    spec.resolve().map_err(|(f, m)| ScenarioError::new(join("cluster", &f), m))?;
    Ok(spec)
}

/// The cluster's keys (those of the sim's `ClusterSpec`).
pub fn cluster_fields() -> Vec<&'static str> {
    vec![
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
    ]
}

fn step_has_subject(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    match o.get("action").and_then(|a| a.as_str()) {
        Some("crash" | "wipe" | "restart" | "isolate" | "slowDisk" | "resign") => return true,
        Some(_) => return false,
        None => {}
    }
    // A wait for a leader or a node's state finds a node.
    fn cond_subject(c: &Value) -> bool {
        let Some(o) = c.as_object() else { return false };
        o.contains_key("leaderElected")
            || o.contains_key("leaderIs")
            || o.contains_key("state")
            || o.get("allOf").and_then(|a| a.as_array()).map(|a| a.iter().any(cond_subject)).unwrap_or(false)
    }
    o.get("until").map(cond_subject).unwrap_or(false)
}

fn parse_step(v: &Value, path: &str, cx: &Cx, duration_ms: u64) -> R<Step> {
    let o = Obj::new(v, path, "a step")?;
    let action_name = o.string("action")?;
    let action_fields: &[&str] = match &action_name {
        None => &[],
        Some(a) => match ACTIONS.iter().find(|(n, _)| n == a) {
            Some((_, f)) => f,
            None => {
                let names: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
                return err(
                    o.p("action"),
                    format!("unknown action '{}'{}; actions: {}", cap(a), suggest(a, &names), names.join(", ")),
                );
            }
        },
    };
    for k in o.map.keys() {
        if STEP.contains(&k.as_str()) || action_fields.contains(&k.as_str()) {
            continue;
        }
        let owner = ACTIONS.iter().filter(|(_, f)| f.contains(&k.as_str())).map(|(n, _)| *n).collect::<Vec<_>>();
        let msg = match (&action_name, owner.is_empty()) {
            (Some(a), false) => format!(
                "'{}' is not a field of action '{}' (it belongs to {}); '{}' takes: {}",
                cap(k),
                cap(a),
                owner.join(", "),
                cap(a),
                if action_fields.is_empty() { "no fields".to_string() } else { action_fields.join(", ") }
            ),
            (None, false) => {
                format!("'{}' is a field of action {}, but this step has no \"action\"", cap(k), owner.join(", "))
            }
            _ => {
                let mut allowed: Vec<&str> = STEP.to_vec();
                allowed.extend_from_slice(action_fields);
                format!("unknown field '{}'{}; allowed here: {}", cap(k), suggest(k, &allowed), allowed.join(", "))
            }
        };
        return err(o.p(k), msg);
    }
    let timing: Vec<&str> = ["at", "after", "until"].into_iter().filter(|k| o.has(k)).collect();
    if timing.len() > 1 {
        return err(
            o.p(timing[1]),
            format!("a step takes one of 'at', 'after' and 'until'; this one has '{}' and '{}'", timing[0], timing[1]),
        );
    }
    if o.has("timeoutMs") && !o.has("until") {
        return err(o.p("timeoutMs"), "'timeoutMs' only goes with 'until'");
    }
    let when = if let Some(v) = o.get("at") {
        When::At(u64_of(v, &o.p("at"))?)
    } else if let Some(v) = o.get("after") {
        When::After(u64_of(v, &o.p("after"))?)
    } else if let Some(v) = o.get("until") {
        let condition = parse_condition(v, &o.p("until"), cx)?;
        let timeout_ms: Option<u64> = o.opt("timeoutMs")?;
        if let Some(t) = timeout_ms {
            if t == 0 || t > duration_ms {
                return err(o.p("timeoutMs"), format!("must be between 1 and durationMs ({duration_ms}), got {t}"));
            }
        }
        When::Until { condition, timeout_ms }
    } else {
        When::Next
    };
    let action = match &action_name {
        None => None,
        Some(a) => Some(parse_action(a, &o, cx)?),
    };
    let caption = o.string("caption")?;
    if let Some(c) = &caption {
        check_markup(c, &o.p("caption"))?;
    }
    let pause: bool = o.opt("pause")?.unwrap_or(false);
    let optional: bool = o.opt("optional")?.unwrap_or(false);
    if optional && !o.has("until") {
        return err(o.p("optional"), "'optional' only goes with 'until' (a wait that may not happen)");
    }
    Ok(Step { when, action, label: o.string("label")?, caption, pause, optional })
}

fn parse_action(name: &str, o: &Obj, cx: &Cx) -> R<ActionSpec> {
    let node = |key: &str| -> R<NodeRef> { cx.node_ref(o.req_value(key)?, &o.p(key), true) };
    let spec = match name {
        "crash" => ActionSpec::Crash { node: node("node")? },
        "wipe" => ActionSpec::Wipe { node: node("node")? },
        "restart" => ActionSpec::Restart { node: node("node")? },
        "isolate" => ActionSpec::Isolate { node: node("node")? },
        "partition" => {
            let gv = o.req_value("groups")?;
            let gp = o.p("groups");
            let Value::Array(groups) = gv else {
                return err(gp, format!("expected an array of node groups like [[0, 1], [2]], got {}", json_kind(gv)));
            };
            let mut out = Vec::new();
            let mut seen: Vec<NodeId> = Vec::new();
            for (i, g) in groups.iter().enumerate() {
                let p = idx(&gp, i);
                let members = match g {
                    Value::Array(m) => m,
                    Value::String(r) if r == "rest" => {
                        if out.contains(&Group::Rest) {
                            return err(p, "only one group can be \"rest\"");
                        }
                        out.push(Group::Rest);
                        continue;
                    }
                    _ => {
                        return err(
                            p,
                            format!(
                                "expected an array of nodes or \"rest\" (every node not named elsewhere), got {}",
                                json_kind(g)
                            ),
                        )
                    }
                };
                if members.is_empty() {
                    return err(p, "a group must name at least one node");
                }
                let mut group = Vec::new();
                for (j, m) in members.iter().enumerate() {
                    let mp = idx(&p, j);
                    let r = cx.node_ref(m, &mp, true)?;
                    if let NodeRef::Id(n) = r {
                        if seen.contains(&n) {
                            return err(mp, format!("node {n} is named twice; each node may be in one group"));
                        }
                        seen.push(n);
                    }
                    group.push(r);
                }
                out.push(Group::Nodes(group));
            }
            ActionSpec::Partition { groups: out }
        }
        "cut" => {
            let from = node("from")?;
            let to = node("to")?;
            if from == to {
                return err(o.p("to"), "a cut needs two different nodes");
            }
            ActionSpec::Cut { from, to }
        }
        "uncut" => ActionSpec::Uncut { from: node("from")?, to: node("to")? },
        "slowLink" => {
            let from = node("from")?;
            let to = node("to")?;
            if from == to {
                return err(o.p("to"), "a link joins two different nodes");
            }
            ActionSpec::SlowLink { from, to, latency_ms: o.req("latencyMs")? }
        }
        "heal" => ActionSpec::Heal,
        "resign" => ActionSpec::Resign,
        "network" => ActionSpec::Network {
            latency_ms: o.req("latencyMs")?,
            loss: o.opt("loss")?.unwrap_or(0.0),
            duplicate: o.opt("duplicate")?.unwrap_or(0.0),
        },
        "slowDisk" => ActionSpec::SlowDisk { node: node("node")?, flush_ms: o.req("flushMs")? },
        "workload" => ActionSpec::Workload { writes_per_second: o.req("writesPerSecond")? },
        "write" => ActionSpec::Write {
            record: match o.get("record") {
                Some(r) => {
                    check_record(r, &o.p("record"))?;
                    Some(de(r, &o.p("record"))?)
                }
                None => None,
            },
        },
        _ => unreachable!("checked by the caller"),
    };
    // Value checks of the sim (ranges, record contents), with node references as 0.
    let concrete = match &spec {
        ActionSpec::Network { latency_ms, loss, duplicate } => {
            Some(Action::Network { latency_ms: *latency_ms, loss: *loss, duplicate: *duplicate })
        }
        ActionSpec::SlowDisk { flush_ms, .. } => Some(Action::SlowDisk { node: 0, flush_ms: *flush_ms }),
        ActionSpec::Workload { writes_per_second } => Some(Action::Workload { writes_per_second: *writes_per_second }),
        ActionSpec::Write { record } => Some(Action::Write { record: record.clone() }),
        _ => None,
    };
    if let Some(a) = concrete {
        a.validate(cx.nodes()).map_err(|(f, m)| ScenarioError::new(o.p(&f), m))?;
    }
    if let ActionSpec::SlowLink { latency_ms, .. } = &spec {
        validate_latency(*latency_ms).map_err(|(f, m)| ScenarioError::new(o.p(&f), m))?;
    }
    Ok(spec)
}

/// The metadata records a scenario may write, with their fields (the JSON form of the
/// protocol's `RecordBody`): checked here so errors name the field.
pub const RECORDS: &[(&str, &[(&str, &str)])] = &[
    ("RegisterBroker", &[("brokerId", "id")]),
    ("UnregisterBroker", &[("brokerId", "id")]),
    ("CreateTopic", &[("name", "name"), ("partitions", "count")]),
    ("DeleteTopic", &[("name", "name")]),
    ("PartitionChange", &[("topic", "name"), ("partition", "id"), ("leader", "id")]),
];

fn check_record(v: &Value, path: &str) -> R<()> {
    let o = Obj::new(v, path, "a record like {\"type\": \"CreateTopic\", \"name\": \"orders\", \"partitions\": 3}")?;
    let names: Vec<&str> = RECORDS.iter().map(|(n, _)| *n).collect();
    let ty = o.req_string("type")?;
    let Some((_, fields)) = RECORDS.iter().find(|(n, _)| *n == ty) else {
        return err(
            o.p("type"),
            format!(
                "unknown record type '{}'{}; a scenario can write: {}",
                cap(&ty),
                suggest(&ty, &names),
                names.join(", ")
            ),
        );
    };
    let mut allowed = vec!["type"];
    allowed.extend(fields.iter().map(|(f, _)| *f));
    o.allow(&allowed)?;
    for (f, kind) in fields.iter() {
        let val = o.req_value(f)?;
        let ok = match *kind {
            "name" => val.is_string(),
            _ => val.as_u64().map(|n| n <= u32::MAX as u64).unwrap_or(false),
        };
        if !ok {
            return err(
                o.p(f),
                format!(
                    "expected {}, got {}",
                    if *kind == "name" { "a name (a string)" } else { "a non-negative integer" },
                    match val {
                        Value::String(s) => format!("\"{}\"", cap(s)),
                        other => json_kind(other).to_string(),
                    }
                ),
            );
        }
    }
    Ok(())
}

// ---- conditions ---------------------------------------------------------------------

fn names(table: &[(&'static str, &'static [&'static str])]) -> Vec<&'static str> {
    table.iter().map(|(n, _)| *n).collect()
}

fn fields_of(table: &[(&'static str, &'static [&'static str])], key: &str) -> &'static [&'static str] {
    table.iter().find(|(n, _)| *n == key).map(|(_, f)| *f).unwrap_or(&[])
}

fn parse_condition(v: &Value, path: &str, cx: &Cx) -> R<Condition> {
    let o = Obj::new(v, path, "a condition")?;
    let known = names(CONDITIONS);
    let (key, val, p) = o.single(&known, &[], "condition")?;
    let fields = fields_of(CONDITIONS, key);
    Ok(match key {
        "leaderElected" => match val {
            Value::Bool(_) => {
                expect_true(val, &p, "to wait for no leader, use {\"not\": {\"leaderElected\": true}}")?;
                Condition::LeaderElected { other_than: None, min_epoch: None }
            }
            _ => {
                let c = Obj::new(val, &p, "true or {\"otherThan\": node, \"minEpoch\": n}")?;
                c.allow(fields)?;
                Condition::LeaderElected {
                    other_than: c.get("otherThan").map(|v| cx.node_ref(v, &c.p("otherThan"), true)).transpose()?,
                    min_epoch: c.opt("minEpoch")?,
                }
            }
        },
        "leaderIs" => Condition::LeaderIs(cx.node_ref(val, &p, false)?),
        "state" => {
            let c = Obj::new(val, &p, "{\"node\": n, \"is\": state}")?;
            c.allow(fields)?;
            Condition::State {
                node: cx.node_ref(c.req_value("node")?, &c.p("node"), true)?,
                is: parse_states(c.req_value("is")?, &c.p("is"))?,
            }
        }
        "hw" => {
            let c = Obj::new(val, &p, "{\"node\": n, \"atLeast\": offset}")?;
            c.allow(fields)?;
            Condition::Hw { nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), true)?, at_least: c.req("atLeast")? }
        }
        "caughtUp" => {
            let c = Obj::new(val, &p, "{\"node\": n}")?;
            c.allow(fields)?;
            Condition::CaughtUp { nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), true)? }
        }
        "converged" => {
            expect_true(val, &p, "use {\"not\": {\"converged\": true}}")?;
            Condition::Converged
        }
        "event" => Condition::Event(parse_event_match(val, &p, cx)?),
        "allOf" | "anyOf" => {
            let Value::Array(items) = val else {
                return err(p, format!("expected an array of conditions, got {}", json_kind(val)));
            };
            if items.is_empty() {
                return err(p, "needs at least one condition");
            }
            let mut out = Vec::new();
            for (i, c) in items.iter().enumerate() {
                out.push(parse_condition(c, &idx(&p, i), cx)?);
            }
            if key == "allOf" {
                Condition::AllOf(out)
            } else {
                Condition::AnyOf(out)
            }
        }
        "not" => Condition::Not(Box::new(parse_condition(val, &p, cx)?)),
        _ => unreachable!("single() checked the key"),
    })
}

fn parse_states(v: &Value, path: &str) -> R<Vec<String>> {
    let one = |s: &Value, p: &str| -> R<String> {
        match s.as_str() {
            Some(name) if STATES.contains(&name) => Ok(name.to_string()),
            Some(name) => {
                err(p, format!("unknown state '{}'{}; states: {}", cap(name), suggest(name, STATES), STATES.join(", ")))
            }
            None => err(p, format!("expected a state name, got {}", json_kind(s))),
        }
    };
    match v {
        Value::Array(a) if !a.is_empty() => a.iter().enumerate().map(|(i, s)| one(s, &idx(path, i))).collect(),
        Value::Array(_) => err(path, "needs at least one state"),
        s => Ok(vec![one(s, path)?]),
    }
}

fn parse_event_match(v: &Value, path: &str, cx: &Cx) -> R<EventMatch> {
    let o = Obj::new(v, path, "an event pattern like {\"type\": \"truncate\", \"node\": 2}")?;
    let types = names(EVENT_FIELDS);
    let mut ty: Option<&str> = None;
    if let Some(t) = o.get("type") {
        let list: Vec<(&Value, String)> = match t {
            Value::Array(a) => a.iter().enumerate().map(|(i, x)| (x, idx(&o.p("type"), i))).collect(),
            x => vec![(x, o.p("type"))],
        };
        for (x, p) in &list {
            match x.as_str() {
                Some(n) if types.contains(&n) => {}
                Some(n) => {
                    return err(
                        p.clone(),
                        format!("unknown event type '{}'{}; types: {}", cap(n), suggest(n, &types), types.join(", ")),
                    )
                }
                None => return err(p.clone(), format!("expected an event type name, got {}", json_kind(x))),
            }
        }
        if list.len() == 1 {
            ty = list[0].0.as_str();
        }
    }
    let allowed: Vec<&str> = match ty {
        Some(t) => EVENT_COMMON.iter().chain(fields_of(EVENT_FIELDS, t).iter()).copied().collect(),
        None => {
            let mut all: BTreeSet<&str> = EVENT_COMMON.iter().copied().collect();
            for (_, f) in EVENT_FIELDS {
                all.extend(f.iter().copied());
            }
            all.into_iter().collect()
        }
    };
    for (k, val) in o.map.iter() {
        if !allowed.contains(&k.as_str()) {
            return err(
                o.p(k),
                match ty {
                    Some(t) => format!(
                        "'{}' events have no field '{}'{}; their fields: {}",
                        cap(t),
                        cap(k),
                        suggest(k, &allowed),
                        allowed.join(", ")
                    ),
                    None => format!("no event has a field '{}'{}", cap(k), suggest(k, &allowed)),
                },
            );
        }
        let check_label = |x: &Value, p: String| -> R<()> {
            if let Some(s) = x.as_str().filter(|s| s.starts_with('$')) {
                if !node_fields(ty).contains(&k.as_str()) {
                    return err(
                        p,
                        format!(
                            "'{}': a step label stands only for a node (fields {})",
                            cap(s),
                            node_fields(ty).join(", ")
                        ),
                    );
                }
                cx.label(&s[1..], &p, true)?;
            }
            Ok(())
        };
        match val {
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    check_label(x, idx(&o.p(k), i))?;
                }
            }
            x => check_label(x, o.p(k))?,
        }
    }
    if o.map.is_empty() {
        return err(path, "an empty pattern matches every event; name at least a \"type\"");
    }
    Ok(EventMatch { fields: o.map.iter().map(|(k, v)| (k.clone(), v.clone())).collect() })
}

// ---- expectations -------------------------------------------------------------------

fn parse_expect_list(v: &Value, path: &str, cx: &Cx) -> R<Vec<Expect>> {
    let Value::Array(items) = v else {
        return err(path, format!("expected an array of expectations, got {}", json_kind(v)));
    };
    items.iter().enumerate().map(|(i, e)| parse_expect(e, &idx(path, i), cx)).collect()
}

fn parse_expect(v: &Value, path: &str, cx: &Cx) -> R<Expect> {
    let o = Obj::new(v, path, "an expectation like {\"leaderElectedBy\": 5000}")?;
    let known = names(EXPECTATIONS);
    let (key, val, p) = o.single(&known, &["note"], "expectation")?;
    let note = o.string("note")?;
    if let Some(n) = &note {
        check_markup(n, &o.p("note"))?;
    }
    let fields = fields_of(EXPECTATIONS, key);
    let obj = |what: &str| -> R<Obj> {
        let c = Obj::new(val, &p, what)?;
        c.allow(fields)?;
        Ok(c)
    };
    let expectation = match key {
        "leaderElectedBy" => Expectation::LeaderElectedBy(u64_of(val, &p)?),
        "hwAtLeast" => {
            let c = obj("{\"node\": n, \"offset\": x, \"by\": ms}")?;
            Expectation::HwAtLeast {
                nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), false)?,
                offset: c.req("offset")?,
                by: cx.time_ref(c.req_value("by")?, &c.p("by"))?,
            }
        }
        "truncation" => {
            let c = obj("{\"node\": n}")?;
            let rounds: u64 = c.opt("rounds")?.unwrap_or(1);
            if rounds == 0 {
                return err(c.p("rounds"), "must be at least 1 (use noTruncation for none)");
            }
            Expectation::Truncation {
                nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), false)?,
                rounds,
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
            }
        }
        "noTruncation" => {
            let c = obj("{\"node\": n}")?;
            Expectation::NoTruncation {
                nodes: match c.get("node") {
                    Some(n) => cx.node_sel(n, &c.p("node"), false)?,
                    None => NodeSel::All,
                },
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
            }
        }
        "failoverWithin" => Expectation::Failover { from: None, within: Some(u64_of(val, &p)?), at_least: None },
        "failover" => {
            let c = obj("{\"from\": label, \"within\": ms}")?;
            let from = c.string("from")?;
            if let Some(l) = &from {
                cx.label(l, &c.p("from"), false)?;
            }
            let within: Option<u64> = c.opt("within")?;
            let at_least: Option<u64> = c.opt("atLeast")?;
            if within.is_none() && at_least.is_none() {
                return err(p, "give 'within' (ms) and/or 'atLeast' (ms)");
            }
            Expectation::Failover { from, within, at_least }
        }
        "noViolations" => {
            expect_true(val, &p, "to expect a violation use {\"violated\": \"InvariantName\"}")?;
            Expectation::NoViolations
        }
        "violated" => {
            let list: Vec<(&Value, String)> = match val {
                Value::Array(a) if !a.is_empty() => a.iter().enumerate().map(|(i, x)| (x, idx(&p, i))).collect(),
                Value::Array(_) => return err(p, "name at least one invariant"),
                x => vec![(x, p.clone())],
            };
            let known: Vec<&str> = Invariant::ALL.iter().map(|i| i.name()).collect();
            let mut out = Vec::new();
            for (x, xp) in list {
                let Some(name) = x.as_str() else {
                    return err(xp, format!("expected an invariant name, got {}", json_kind(x)));
                };
                match Invariant::parse(name) {
                    Some(i) => out.push(i),
                    None => {
                        return err(
                            xp,
                            format!(
                                "unknown invariant '{}'{}; invariants: {}",
                                cap(name),
                                suggest(name, &known),
                                known.join(", ")
                            ),
                        )
                    }
                }
            }
            Expectation::Violated(out)
        }
        "eventually" => {
            let c = obj("{\"condition\": ..., \"by\": ms}")?;
            Expectation::Eventually {
                condition: parse_condition(c.req_value("condition")?, &c.p("condition"), cx)?,
                from: cx.opt_time(&c, "from")?,
                by: cx.time_ref(c.req_value("by")?, &c.p("by"))?,
            }
        }
        "always" => {
            let c = obj("{\"condition\": ..., \"from\": t, \"to\": t}")?;
            Expectation::Always {
                condition: parse_condition(c.req_value("condition")?, &c.p("condition"), cx)?,
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
            }
        }
        "holds" => {
            let c = obj("{\"condition\": ..., \"at\": t}")?;
            Expectation::Holds {
                condition: parse_condition(c.req_value("condition")?, &c.p("condition"), cx)?,
                at: cx.time_ref(c.req_value("at")?, &c.p("at"))?,
            }
        }
        "stateAt" => {
            let c = obj("{\"at\": t, \"node\": n, \"state\": s}")?;
            Expectation::Holds {
                condition: Condition::State {
                    node: cx.node_ref(c.req_value("node")?, &c.p("node"), true)?,
                    is: parse_states(c.req_value("state")?, &c.p("state"))?,
                },
                at: cx.time_ref(c.req_value("at")?, &c.p("at"))?,
            }
        }
        "event" | "noEvent" => {
            let c = obj("{\"match\": {\"type\": ...}}")?;
            let matcher = parse_event_match(c.req_value("match")?, &c.p("match"), cx)?;
            let (at_least, at_most) = if key == "noEvent" {
                (0, Some(0))
            } else {
                let at_least: u64 = c.opt("atLeast")?.unwrap_or(1);
                let at_most: Option<u64> = c.opt("atMost")?;
                if let Some(m) = at_most {
                    if m < at_least {
                        return err(c.p("atMost"), format!("{m} is below atLeast ({at_least})"));
                    }
                }
                (at_least, at_most)
            };
            Expectation::Event {
                matcher,
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
                at_least,
                at_most,
            }
        }
        "progress" => {
            let c = obj("{\"from\": t, \"atLeast\": records}")?;
            Expectation::Progress {
                from: cx.time_ref(c.req_value("from")?, &c.p("from"))?,
                to: cx.opt_time(&c, "to")?,
                at_least: c.req("atLeast")?,
            }
        }
        "metadata" => {
            let c = obj("{\"node\": n, \"brokers\": [...], \"topics\": [...]}")?;
            Expectation::Metadata {
                nodes: match c.get("node") {
                    Some(n) => cx.node_sel(n, &c.p("node"), false)?,
                    None => NodeSel::All,
                },
                brokers: c.opt("brokers")?,
                topics: c.opt("topics")?,
            }
        }
        _ => unreachable!("single() checked the key"),
    };
    Ok(Expect { expectation, note })
}

// ---- measurements -------------------------------------------------------------------

fn parse_measures(v: &Value, path: &str, cx: &Cx) -> R<Vec<Measure>> {
    let Value::Array(items) = v else {
        return err(path, format!("expected an array of measurements, got {}", json_kind(v)));
    };
    let mut out = Vec::new();
    for (i, m) in items.iter().enumerate() {
        let mp = idx(path, i);
        let o = Obj::new(m, &mp, "a measurement like {\"failover\": \"crash\"}")?;
        let known = names(MEASURES);
        let (key, val, p) = o.single(&known, &[], "measurement")?;
        let fields = fields_of(MEASURES, key);
        let obj = |what: &str| -> R<Obj> {
            let c = Obj::new(val, &p, what)?;
            c.allow(fields)?;
            Ok(c)
        };
        out.push(match key {
            "firstElection" => {
                expect_true(val, &p, "leave it out instead")?;
                Measure::FirstElection
            }
            "failover" => match val {
                Value::Bool(_) => {
                    expect_true(val, &p, "leave it out instead")?;
                    Measure::Failover { from: None }
                }
                Value::String(l) => {
                    cx.label(l, &p, false)?;
                    Measure::Failover { from: Some(l.clone()) }
                }
                other => return err(p, format!("expected a step label or true, got {}", json_kind(other))),
            },
            "hwReached" => {
                let c = obj("{\"offset\": x}")?;
                Measure::HwReached {
                    offset: c.req("offset")?,
                    nodes: match c.get("node") {
                        Some(n) => cx.node_sel(n, &c.p("node"), false)?,
                        None => NodeSel::All,
                    },
                    from: cx.opt_time(&c, "from")?,
                }
            }
            "count" => {
                let c = obj("{\"match\": {...}}")?;
                let matcher = parse_event_match(c.req_value("match")?, &c.p("match"), cx)?;
                Measure::Count {
                    name: c.string("name")?.unwrap_or_else(|| format!("events {matcher}")),
                    matcher,
                    from: cx.opt_time(&c, "from")?,
                    to: cx.opt_time(&c, "to")?,
                }
            }
            "interval" => {
                let c = obj("{\"from\": t, \"to\": t}")?;
                let from = cx.time_ref(c.req_value("from")?, &c.p("from"))?;
                let to = cx.time_ref(c.req_value("to")?, &c.p("to"))?;
                Measure::Interval {
                    name: c.string("name")?.unwrap_or_else(|| format!("from {from} to {to}")),
                    from,
                    to,
                }
            }
            "nodes" => {
                expect_true(val, &p, "leave it out instead")?;
                Measure::Nodes
            }
            _ => unreachable!("single() checked the key"),
        });
    }
    Ok(out)
}

// ---- variants -----------------------------------------------------------------------

fn parse_variant(v: &Value, path: &str, cx: &Cx) -> R<Variant> {
    let o = Obj::new(v, path, "a variant")?;
    o.allow(VARIANT)?;
    let name = o.req_string("name")?;
    check_kebab(&name, &o.p("name"), "variant name")?;
    let title = o.string("title")?;
    if let Some(t) = &title {
        check_markup(t, &o.p("title"))?;
    }
    let summary = o.string("summary")?;
    if let Some(t) = &summary {
        check_markup(t, &o.p("summary"))?;
    }
    if let Some(Value::Array(a)) = o.get("unsafe") {
        for (i, s) in a.iter().enumerate() {
            if let Some(n) = s.as_str() {
                SafetySwitch::parse(n).map_err(|m| ScenarioError::new(idx(&o.p("unsafe"), i), m))?;
            }
        }
    }
    let unsafe_switches: Vec<SafetySwitch> = o.opt("unsafe")?.unwrap_or_default();
    let expect = o.get("expect").map(|v| parse_expect_list(v, &o.p("expect"), cx)).transpose()?;
    let report = o.get("report").map(|v| parse_measures(v, &o.p("report"), cx)).transpose()?;
    let mut captions = BTreeMap::new();
    if let Some(c) = o.get("captions") {
        let co = Obj::new(c, &o.p("captions"), "captions by step label")?;
        for (label, text) in co.map {
            let p = co.p(label);
            cx.label(label, &p, false)?;
            let Some(t) = text.as_str() else {
                return err(p, format!("expected a caption (a string), got {}", json_kind(text)));
            };
            check_markup(t, &p)?;
            captions.insert(label.clone(), t.to_string());
        }
    }
    Ok(Variant { name, title, summary, unsafe_switches, seed: o.opt("seed")?, expect, report, captions })
}

// ---- back to JSON -------------------------------------------------------------------

fn opt_insert(m: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(key.into(), v);
    }
}

pub fn step_to_json(s: &Step) -> Value {
    let mut m = Map::new();
    match &s.when {
        When::Next => {}
        When::At(t) => {
            m.insert("at".into(), json!(t));
        }
        When::After(t) => {
            m.insert("after".into(), json!(t));
        }
        When::Until { condition, timeout_ms } => {
            m.insert("until".into(), condition.to_json());
            opt_insert(&mut m, "timeoutMs", timeout_ms.map(|t| json!(t)));
        }
    }
    if let Some(a) = &s.action {
        m.insert("action".into(), json!(a.name()));
        m.extend(a.fields_json());
    }
    opt_insert(&mut m, "label", s.label.as_ref().map(|l| json!(l)));
    opt_insert(&mut m, "caption", s.caption.as_ref().map(|l| json!(l)));
    if s.pause {
        m.insert("pause".into(), json!(true));
    }
    if s.optional {
        m.insert("optional".into(), json!(true));
    }
    Value::Object(m)
}

fn window(m: &mut Map<String, Value>, from: &Option<TimeRef>, to: &Option<TimeRef>) {
    opt_insert(m, "from", from.as_ref().map(TimeRef::to_json));
    opt_insert(m, "to", to.as_ref().map(TimeRef::to_json));
}

pub fn expect_to_json(e: &Expect) -> Value {
    let (key, val) = match &e.expectation {
        Expectation::LeaderElectedBy(t) => ("leaderElectedBy", json!(t)),
        Expectation::HwAtLeast { nodes, offset, by } => {
            ("hwAtLeast", json!({"node": nodes.to_json(), "offset": offset, "by": by.to_json()}))
        }
        Expectation::Truncation { nodes, rounds, from, to } => {
            let mut m = Map::new();
            m.insert("node".into(), nodes.to_json());
            m.insert("rounds".into(), json!(rounds));
            window(&mut m, from, to);
            ("truncation", Value::Object(m))
        }
        Expectation::NoTruncation { nodes, from, to } => {
            let mut m = Map::new();
            m.insert("node".into(), nodes.to_json());
            window(&mut m, from, to);
            ("noTruncation", Value::Object(m))
        }
        Expectation::Failover { from, within, at_least } => {
            let mut m = Map::new();
            opt_insert(&mut m, "from", from.as_ref().map(|f| json!(f)));
            opt_insert(&mut m, "within", within.map(|f| json!(f)));
            opt_insert(&mut m, "atLeast", at_least.map(|f| json!(f)));
            ("failover", Value::Object(m))
        }
        Expectation::NoViolations => ("noViolations", json!(true)),
        Expectation::Violated(v) => ("violated", json!(v.iter().map(|i| i.name()).collect::<Vec<_>>())),
        Expectation::Eventually { condition, from, by } => {
            let mut m = Map::new();
            m.insert("condition".into(), condition.to_json());
            opt_insert(&mut m, "from", from.as_ref().map(TimeRef::to_json));
            m.insert("by".into(), by.to_json());
            ("eventually", Value::Object(m))
        }
        Expectation::Always { condition, from, to } => {
            let mut m = Map::new();
            m.insert("condition".into(), condition.to_json());
            window(&mut m, from, to);
            ("always", Value::Object(m))
        }
        Expectation::Holds { condition, at } => {
            ("holds", json!({"condition": condition.to_json(), "at": at.to_json()}))
        }
        Expectation::Event { matcher, from, to, at_least, at_most } => {
            let mut m = Map::new();
            m.insert("match".into(), matcher.to_json());
            window(&mut m, from, to);
            if *at_most == Some(0) {
                ("noEvent", Value::Object(m))
            } else {
                m.insert("atLeast".into(), json!(at_least));
                opt_insert(&mut m, "atMost", at_most.map(|x| json!(x)));
                ("event", Value::Object(m))
            }
        }
        Expectation::Progress { from, to, at_least } => {
            let mut m = Map::new();
            m.insert("from".into(), from.to_json());
            opt_insert(&mut m, "to", to.as_ref().map(TimeRef::to_json));
            m.insert("atLeast".into(), json!(at_least));
            ("progress", Value::Object(m))
        }
        Expectation::Metadata { nodes, brokers, topics } => {
            let mut m = Map::new();
            m.insert("node".into(), nodes.to_json());
            opt_insert(&mut m, "brokers", brokers.as_ref().map(|b| json!(b)));
            opt_insert(&mut m, "topics", topics.as_ref().map(|b| json!(b)));
            ("metadata", Value::Object(m))
        }
    };
    let mut m = Map::new();
    m.insert(key.into(), val);
    opt_insert(&mut m, "note", e.note.as_ref().map(|n| json!(n)));
    Value::Object(m)
}

pub fn measure_to_json(m: &Measure) -> Value {
    match m {
        Measure::FirstElection => json!({"firstElection": true}),
        Measure::Failover { from: None } => json!({"failover": true}),
        Measure::Failover { from: Some(l) } => json!({ "failover": l }),
        Measure::HwReached { offset, nodes, from } => {
            let mut o = Map::new();
            o.insert("offset".into(), json!(offset));
            o.insert("node".into(), nodes.to_json());
            opt_insert(&mut o, "from", from.as_ref().map(TimeRef::to_json));
            json!({ "hwReached": o })
        }
        Measure::Count { name, matcher, from, to } => {
            let mut o = Map::new();
            o.insert("name".into(), json!(name));
            o.insert("match".into(), matcher.to_json());
            window(&mut o, from, to);
            json!({ "count": o })
        }
        Measure::Interval { name, from, to } => {
            json!({"interval": {"name": name, "from": from.to_json(), "to": to.to_json()}})
        }
        Measure::Nodes => json!({"nodes": true}),
    }
}

pub fn scenario_to_json(s: &Scenario) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(s.id));
    m.insert("title".into(), json!(s.title));
    m.insert("summary".into(), json!(s.summary));
    m.insert("cluster".into(), serde_json::to_value(&s.cluster).unwrap_or(Value::Null));
    m.insert("durationMs".into(), json!(s.duration_ms));
    m.insert("steps".into(), Value::Array(s.steps.iter().map(step_to_json).collect()));
    m.insert("expect".into(), Value::Array(s.expect.iter().map(expect_to_json).collect()));
    m.insert("report".into(), Value::Array(s.report.iter().map(measure_to_json).collect()));
    let variants: Vec<Value> = s
        .variants
        .iter()
        .map(|v| {
            let mut o = Map::new();
            o.insert("name".into(), json!(v.name));
            opt_insert(&mut o, "title", v.title.as_ref().map(|t| json!(t)));
            opt_insert(&mut o, "summary", v.summary.as_ref().map(|t| json!(t)));
            o.insert("unsafe".into(), json!(v.unsafe_switches.iter().map(|s| s.name()).collect::<Vec<_>>()));
            opt_insert(&mut o, "seed", v.seed.map(|s| json!(s)));
            opt_insert(
                &mut o,
                "expect",
                v.expect.as_ref().map(|e| Value::Array(e.iter().map(expect_to_json).collect())),
            );
            opt_insert(
                &mut o,
                "report",
                v.report.as_ref().map(|e| Value::Array(e.iter().map(measure_to_json).collect())),
            );
            if !v.captions.is_empty() {
                o.insert("captions".into(), json!(v.captions));
            }
            Value::Object(o)
        })
        .collect();
    if !variants.is_empty() {
        m.insert("variants".into(), Value::Array(variants));
    }
    if let Some(v) = &s.variant {
        // Not part of the input format: which variant this scenario was made from.
        m.insert("appliedVariant".into(), json!(v));
    }
    Value::Object(m)
}
