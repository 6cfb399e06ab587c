//! Reading a scenario: JSON -> checked `Scenario`, with every error naming its path
//! (`steps[3].node`). The sim's own shapes (the cluster, records, switches) and plain
//! values are read by `kraft_sim::input`; the rest is read here so node references, labels and
//! times can be checked against the cluster and the steps as we go.

use super::cond::{Condition, EventMatch, NodeSel};
use super::markup;
use super::vocab::{keys_of, ActionKind, Kind, FOCUS, FOCUS_MESSAGE, RECORD_NAME, SCENARIO, STEP, VARIANT};
use super::*;
use kraft_base::messages::{cap, cap_list, plain_serde, MAX_ECHO_CHARS};
use kraft_protocol::{KRaft, SafetySwitch};
use kraft_sim::input::Read;
use kraft_sim::vocab::{ActionSource, FieldTy};

type R<T> = Result<T, ScenarioError>;

/// Longest run a scenario may ask for (a story, not a soak test): `limits::SCENARIO_DURATION_MS`.
pub const MAX_DURATION_MS: u64 = kraft_sim::limits::SCENARIO_DURATION_MS.upper();

/// The fields an event pattern may name, per event type (the JSON form of events).
pub use kraft_sim::trace::EVENT_FIELDS;
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
pub const STATES: &[&str] = &["unattached", "prospective", "candidate", "leader", "follower", "resigned", "crashed"];
const RESERVED_LABELS: &[&str] = &["leader", "follower", "rest", "end", "all", "voters", "observers"];

mod expect;
mod reader;

use expect::{parse_condition, parse_expect_list, parse_measures};
use reader::*;

// ---- the scenario -------------------------------------------------------------------

pub fn parse(text: &str) -> R<Scenario> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| ScenarioError::new("", format!("the scenario {}", plain_serde(&e.to_string()))))?;
    let o = Obj::new(&root, "", "a scenario")?;
    o.fields(SCENARIO)?;
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
    let record_names = parse_record_names(o.get("recordNames"))?;
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
            check_name(&l, &lp, "label")?;
            if RESERVED_LABELS.contains(&l.as_str()) {
                return err(lp, format!("'{}' is a reserved word; choose another label", cap(&l)));
            }
            if let Some(prev) = cx.labels.get(&l) {
                return err(lp, format!("label '{}' is already used by steps[{}]", cap(&l), prev.step));
            }
            cx.labels.insert(l, LabelDecl { step: i, has_subject: false });
        }
    }
    let mut steps = Vec::new();
    let mut static_time: Option<u64> = Some(0);
    let mut last_at: u64 = 0;
    for (i, s) in step_values.iter().enumerate() {
        cx.in_step = Some(i);
        let step = parse_step(s, &idx("steps", i), &cx, duration_ms, &record_names)?;
        if let Some(decl) = step.label.as_ref().and_then(|l| cx.labels.get_mut(l)) {
            decl.has_subject = match (&step.action, &step.when) {
                (Some(a), _) => step_subject(a).is_some(),
                (None, When::Until { condition, .. }) => condition.has_subject(),
                (None, _) => false,
            };
        }
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
    Ok(Scenario {
        id,
        title,
        summary,
        cluster,
        duration_ms,
        steps,
        expect,
        report,
        variants,
        record_names,
        variant: None,
    })
}

fn parse_cluster(v: &Value) -> R<ClusterSpec> {
    let o = Obj::new(v, "cluster", "the cluster")?;
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
    o.allow(&cluster_fields())?;
    let spec: ClusterSpec = de(v, "cluster")?;
    spec.resolve::<KRaft>().map_err(|(f, m)| ScenarioError::new(join("cluster", &f), m))?;
    Ok(spec)
}

/// The cluster's keys (those of the sim's `ClusterSpec`).
pub fn cluster_fields() -> Vec<&'static str> {
    kraft_sim::input::CLUSTER_FIELDS.to_vec()
}

fn parse_step(
    v: &Value,
    path: &str,
    cx: &Cx,
    duration_ms: u64,
    record_names: &BTreeMap<String, RecordName>,
) -> R<Step> {
    let o = Obj::new(v, path, "a step")?;
    let action_name = o.string("action")?;
    let action_kind = match &action_name {
        None => None,
        Some(a) => match ActionKind::find(a) {
            Some(k) => Some(k),
            None => {
                let names = ActionKind::keys();
                return err(
                    o.p("action"),
                    format!("unknown action '{}'{}; actions: {}", cap(a), suggest(a, &names), names.join(", ")),
                );
            }
        },
    };
    let step_keys = keys_of(STEP);
    let action_fields: Vec<&str> = action_kind.map(|k| k.fields().iter().map(|f| f.key).collect()).unwrap_or_default();
    for k in o.map.keys() {
        if step_keys.contains(&k.as_str()) || action_fields.contains(&k.as_str()) {
            continue;
        }
        let owner: Vec<&str> =
            ActionKind::ALL.iter().filter(|a| a.fields().iter().any(|f| f.key == k)).map(|a| a.key()).collect();
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
                let mut allowed = step_keys.clone();
                allowed.extend_from_slice(&action_fields);
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
    let action = action_kind.map(|k| parse_action(k, &o, cx)).transpose()?;
    let caption = o.string("caption")?;
    if let Some(c) = &caption {
        check_markup(c, &o.p("caption"))?;
    }
    let pause: bool = o.opt("pause")?.unwrap_or(false);
    let optional: bool = o.opt("optional")?.unwrap_or(false);
    if optional && !o.has("until") {
        return err(o.p("optional"), "'optional' only goes with 'until' (a wait that may not happen)");
    }
    let focus = o.get("focus").map(|v| parse_focus(v, &o.p("focus"), cx, duration_ms, record_names)).transpose()?;
    Ok(Step { when, action, label: o.string("label")?, caption, pause, focus, optional })
}

/// A step label or a record name: a letter, then letters, digits, '-' and '_'.
fn check_name(name: &str, path: &str, what: &str) -> R<()> {
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        return Ok(());
    }
    err(path, format!("{what} '{}' must start with a letter and use only letters, digits, '-' and '_'", cap(name)))
}

/// The timeline window a focus shows when it does not say.
const DEFAULT_FOCUS_WINDOW_MS: u64 = 4000;

fn parse_focus(
    v: &Value,
    path: &str,
    cx: &Cx,
    duration_ms: u64,
    record_names: &BTreeMap<String, RecordName>,
) -> R<Focus> {
    let o = Obj::new(v, path, "a focus")?;
    o.fields(FOCUS)?;
    let nodes: Vec<NodeId> = o.opt("nodes")?.unwrap_or_default();
    if let Some((i, n)) = nodes.iter().enumerate().find(|(_, n)| **n >= cx.voters + cx.observers) {
        return no_such_node(idx(&o.p("nodes"), i), *n, cx);
    }
    let records: Vec<String> = o.opt("records")?.unwrap_or_default();
    if let Some((i, r)) = records.iter().enumerate().find(|(_, r)| !record_names.contains_key(*r)) {
        let known: Vec<&str> = record_names.keys().map(String::as_str).collect();
        let list = if known.is_empty() { "none".to_string() } else { cap_list(&known) };
        return err(idx(&o.p("records"), i), format!("'{}' is not in 'recordNames' (named: {list})", cap(r)));
    }
    let window_ms: u64 = o.opt("windowMs")?.unwrap_or(DEFAULT_FOCUS_WINDOW_MS.min(duration_ms));
    if window_ms == 0 || window_ms > duration_ms {
        return err(o.p("windowMs"), format!("must be between 1 and durationMs ({duration_ms}), got {window_ms}"));
    }
    let image = o.opt("image")?.unwrap_or(false);
    let messages = match o.get("messages") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, m)| parse_focus_message(m, &idx(&o.p("messages"), i), cx))
            .collect::<R<_>>()?,
        Some(other) => return err(o.p("messages"), format!("expected a list of messages, got {}", json_kind(other))),
    };
    Ok(Focus { nodes, records, window_ms, image, messages })
}

fn no_such_node<T>(path: String, n: NodeId, cx: &Cx) -> R<T> {
    err(path, format!("there is no node {n}: the cluster has nodes 0 to {}", cx.voters + cx.observers - 1))
}

/// `{"kind": "Fetch", "from": 1, "to": 0}`: the kind is a request's (the legend's names).
fn parse_focus_message(v: &Value, path: &str, cx: &Cx) -> R<FocusMessage> {
    let o = Obj::new(v, path, "a message")?;
    o.fields(FOCUS_MESSAGE)?;
    let name = o.req_string("kind")?;
    let names = RpcKind::REQUESTS.map(RpcKind::name);
    let Some(kind) = RpcKind::REQUESTS.into_iter().find(|k| k.name() == name) else {
        return err(
            o.p("kind"),
            format!("unknown message kind '{}'{}; allowed: {}", cap(&name), suggest(&name, &names), names.join(", ")),
        );
    };
    let side = |key: &str| -> R<Option<NodeId>> {
        let n: Option<NodeId> = o.opt(key)?;
        match n {
            Some(n) if n >= cx.voters + cx.observers => no_such_node(o.p(key), n, cx),
            n => Ok(n),
        }
    };
    Ok(FocusMessage { kind, from: side("from")?, to: side("to")? })
}

fn parse_record_names(v: Option<&Value>) -> R<BTreeMap<String, RecordName>> {
    let Some(v) = v else { return Ok(BTreeMap::new()) };
    let o = Obj::new(v, "recordNames", "record names by name")?;
    let mut out = BTreeMap::new();
    for (name, rv) in o.map.iter() {
        let p = o.p(name);
        check_name(name, &p, "name")?;
        let ro = Obj::new(rv, &p, "a record (offset and epoch)")?;
        ro.fields(RECORD_NAME)?;
        out.insert(name.clone(), RecordName { offset: ro.req("offset")?, epoch: ro.req("epoch")? });
    }
    Ok(out)
}

/// A step's action fields: nodes by reference, checked against the cluster and the
/// labels so far, a record checked field by field.
struct StepFields<'a, 'b> {
    o: &'b Obj<'a>,
    cx: &'b Cx,
}

impl ActionSource for StepFields<'_, '_> {
    type Node = NodeRef;
    type Group = Group;
    type Error = ScenarioError;
    fn node(&self, key: &'static str) -> R<NodeRef> {
        self.cx.node_ref(self.o.req_value(key)?, &self.o.p(key), true)
    }
    fn groups(&self, key: &'static str) -> R<Vec<Group>> {
        parse_groups(self.o.req_value(key)?, &self.o.p(key), self.cx)
    }
    fn req<T: Read>(&self, key: &'static str, _: FieldTy) -> R<T> {
        self.o.req(key)
    }
    fn opt<T: Read>(&self, key: &'static str, ty: FieldTy) -> R<Option<T>> {
        if let (FieldTy::Record, Some(r)) = (ty, self.o.get(key)) {
            check_record(r, &self.o.p(key))?;
        }
        self.o.opt(key)
    }
}

fn parse_action(kind: ActionKind, o: &Obj, cx: &Cx) -> R<StepAction> {
    let action = kind.read(&StepFields { o, cx })?;
    // The sim's own value checks (ranges, records, a link's two ends).
    action.check_values().map_err(|(f, m)| ScenarioError::new(o.p(&f), m))?;
    Ok(action)
}

/// Partition groups: arrays of node references, or "rest" (once) for every node not named.
fn parse_groups(gv: &Value, gp: &str, cx: &Cx) -> R<Vec<Group>> {
    let Value::Array(groups) = gv else {
        return err(gp, format!("expected an array of node groups like [[0, 1], [2]], got {}", json_kind(gv)));
    };
    let mut out = Vec::new();
    let mut seen: Vec<NodeId> = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let p = idx(gp, i);
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
    Ok(out)
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

// ---- variants -----------------------------------------------------------------------

fn parse_variant(v: &Value, path: &str, cx: &Cx) -> R<Variant> {
    let o = Obj::new(v, path, "a variant")?;
    o.fields(VARIANT)?;
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
