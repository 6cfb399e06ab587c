//! Conditions on the cluster (for `until` steps and `eventually`/`always`/`holds`
//! expectations), node selections, and event patterns matched against the JSON form
//! of trace events.

use super::NodeRef;
use kraft_protocol::{Epoch, MetadataImage, NodeId};
use kraft_sim::trace::Event;
use kraft_sim::World;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Which nodes an expectation or condition is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeSel {
    Node(NodeRef),
    All,
    Voters,
    Observers,
}

impl std::fmt::Display for NodeSel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeSel::Node(r) => write!(f, "{r}"),
            NodeSel::All => f.write_str("every node"),
            NodeSel::Voters => f.write_str("every voter"),
            NodeSel::Observers => f.write_str("every observer"),
        }
    }
}

/// A pattern over the JSON form of a trace event (`{"type": "truncate", "node": 2}`):
/// every field given must match; an array means "any of these", except on an array-valued
/// field (`evidence`, `nodes`), where the event's array must contain the value (or every
/// value of the array given); `text`, `summary` and `detail` match as substrings;
/// `"$label"` stands for the node of a labelled step.
#[derive(Clone, Debug, PartialEq)]
pub struct EventMatch {
    pub fields: BTreeMap<String, Value>,
}

impl EventMatch {
    fn type_names(&self) -> Option<Vec<&str>> {
        match self.fields.get("type")? {
            Value::String(s) => Some(vec![s.as_str()]),
            Value::Array(a) => Some(a.iter().filter_map(|v| v.as_str()).collect()),
            _ => None,
        }
    }

    /// Does the event match? `resolve` turns `$label` into a node id.
    pub(crate) fn matches(&self, e: &Event, resolve: &dyn Fn(&str) -> Option<NodeId>) -> bool {
        if let Some(types) = self.type_names() {
            if !types.contains(&e.kind.type_name()) {
                return false;
            }
        }
        let Ok(Value::Object(actual)) = serde_json::to_value(e) else {
            return false;
        };
        self.fields.iter().all(|(k, want)| {
            let Some(have) = actual.get(k) else {
                return false;
            };
            let one = |w: &Value| -> bool {
                match w {
                    Value::String(s) if s.starts_with('$') => match resolve(&s[1..]) {
                        Some(id) => have == &json!(id),
                        None => false,
                    },
                    Value::String(s) if matches!(k.as_str(), "text" | "summary" | "detail") => {
                        have.as_str().map(|h| h.contains(s.as_str())).unwrap_or(false)
                    }
                    w => have == w,
                }
            };
            match (want, have) {
                // An array-valued field (a violation's evidence, a fault's nodes): the
                // event's array contains the value, or every value given.
                (Value::Array(wanted), Value::Array(items)) => wanted.iter().all(|w| items.iter().any(|h| h == w)),
                (w, Value::Array(items)) => items.iter().any(|h| h == w),
                (Value::Array(options), _) => options.iter().any(one),
                (w, _) => one(w),
            }
        })
    }
}

impl std::fmt::Display for EventMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("{")?;
        // The type first, then the other fields in name order.
        let ordered = self
            .fields
            .iter()
            .filter(|(k, _)| k.as_str() == "type")
            .chain(self.fields.iter().filter(|(k, _)| k.as_str() != "type"));
        for (i, (k, v)) in ordered.enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match v {
                Value::String(s) => write!(f, "{k}: {s}")?,
                v => write!(f, "{k}: {v}")?,
            }
        }
        f.write_str("}")
    }
}

/// Something true or false of the cluster at a moment.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// A running leader exists (optionally not this node, of at least this epoch).
    LeaderElected {
        other_than: Option<NodeRef>,
        min_epoch: Option<Epoch>,
    },
    /// This node is the running leader.
    LeaderIs(NodeRef),
    /// The node is in one of these states (`crashed` included).
    State {
        node: NodeRef,
        is: Vec<String>,
    },
    /// The selected nodes' HW is at least this offset.
    Hw {
        nodes: NodeSel,
        at_least: u64,
    },
    /// The selected nodes have the leader's LEO and HW.
    CaughtUp {
        nodes: NodeSel,
    },
    /// Every running node has the leader's LEO and HW, has applied everything below it,
    /// and all metadata images are identical.
    Converged,
    /// The selected nodes (and `same_as`) are running and have identical metadata
    /// images, as `want` asks.
    Image {
        nodes: NodeSel,
        same_as: Option<NodeRef>,
        want: ImageWant,
    },
    /// A matching event happened since the wait (or the window) began.
    Event(EventMatch),
    AllOf(Vec<Condition>),
    Not(Box<Condition>),
}

impl Condition {
    /// The node a satisfied condition is about (what `$label` of an `until` step means).
    pub(crate) fn subject(&self, env: &Env) -> Option<NodeId> {
        match self {
            Condition::LeaderElected { other_than, min_epoch } => env.find_leader(other_than.as_ref(), *min_epoch),
            Condition::LeaderIs(n) | Condition::State { node: n, .. } => env.resolve(n).ok(),
            Condition::AllOf(v) => v.iter().find_map(|c| c.subject(env)),
            Condition::Hw { .. }
            | Condition::CaughtUp { .. }
            | Condition::Converged
            | Condition::Image { .. }
            | Condition::Event(_)
            | Condition::Not(_) => None,
        }
    }

    /// Whether a satisfied condition names a node (so an `until` step's `$label` does).
    pub(crate) fn has_subject(&self) -> bool {
        match self {
            Condition::LeaderElected { .. } | Condition::LeaderIs(_) | Condition::State { .. } => true,
            Condition::AllOf(v) => v.iter().any(Condition::has_subject),
            Condition::Hw { .. }
            | Condition::CaughtUp { .. }
            | Condition::Converged
            | Condition::Image { .. }
            | Condition::Event(_)
            | Condition::Not(_) => false,
        }
    }

    fn count_event_leaves(&self) -> usize {
        match self {
            Condition::Event(_) => 1,
            Condition::AllOf(v) => v.iter().map(Condition::count_event_leaves).sum(),
            Condition::Not(c) => c.count_event_leaves(),
            _ => 0,
        }
    }
}

impl std::fmt::Display for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Condition::LeaderElected { other_than, min_epoch } => {
                f.write_str("a leader is elected")?;
                if let Some(o) = other_than {
                    write!(f, " other than {o}")?;
                }
                if let Some(e) = min_epoch {
                    write!(f, " in epoch >= {e}")?;
                }
                Ok(())
            }
            Condition::LeaderIs(n) => write!(f, "{n} is the leader"),
            Condition::State { node, is } => write!(f, "{node} is {}", is.join(" or ")),
            Condition::Hw { nodes, at_least } => write!(f, "HW >= {at_least} on {nodes}"),
            Condition::CaughtUp { nodes } => write!(f, "{nodes} caught up with the leader"),
            Condition::Converged => f.write_str("all running nodes converged"),
            Condition::Image { nodes, same_as, want } => {
                write!(f, "the metadata image of {nodes}")?;
                if !matches!(nodes, NodeSel::Node(_)) {
                    f.write_str(", all alike")?;
                }
                if let Some(n) = same_as {
                    write!(f, ", the same as {n}'s")?;
                }
                write!(f, "{want}")
            }
            Condition::Event(m) => write!(f, "an event {m} happened"),
            Condition::AllOf(v) => {
                for (i, c) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" and ")?;
                    }
                    write!(f, "({c})")?;
                }
                Ok(())
            }
            Condition::Not(c) => write!(f, "not ({c})"),
        }
    }
}

/// What is known about a labelled step once it has happened.
#[derive(Clone, Debug)]
pub(crate) struct LabelInfo {
    pub t: u64,
    /// Trace length when the step acted (events before it).
    pub trace_index: usize,
    /// The node the step acted on or found.
    pub subject: Option<NodeId>,
    /// The leader just before the step acted.
    pub leader_before: Option<(NodeId, Epoch)>,
}

pub(crate) type Labels = BTreeMap<String, LabelInfo>;

/// What a condition is evaluated against.
pub(crate) struct Env<'a> {
    pub world: &'a World,
    pub labels: &'a Labels,
}

impl Env<'_> {
    /// The node a reference names at this moment: the one resolver of node references.
    pub fn resolve(&self, r: &NodeRef) -> Result<NodeId, String> {
        let now = kraft_sim::trace::Seconds(self.world.now);
        match r {
            NodeRef::Id(n) => Ok(*n),
            NodeRef::Leader => {
                self.world.leader().map(|(id, _)| id).ok_or_else(|| format!("there is no leader at {now}"))
            }
            NodeRef::Follower => follower(self.world).ok_or_else(|| format!("no voter follows a leader at {now}")),
            NodeRef::Label(l) => {
                self.label_node(l).ok_or_else(|| format!("step '{l}' did not happen or named no node"))
            }
        }
    }

    /// The node of a labelled step (what `"$label"` means).
    pub fn label_node(&self, l: &str) -> Option<NodeId> {
        self.labels.get(l).and_then(|i| i.subject)
    }

    pub fn select(&self, sel: &NodeSel) -> Result<Vec<NodeId>, String> {
        let n = self.world.nodes.len() as NodeId;
        let voters = self.world.spec.voters;
        Ok(match sel {
            NodeSel::Node(r) => vec![self.resolve(r)?],
            NodeSel::All => (0..n).collect(),
            NodeSel::Voters => (0..voters).collect(),
            NodeSel::Observers => (voters..n).collect(),
        })
    }

    /// The highest-epoch running leader that satisfies the filters.
    pub fn find_leader(&self, other_than: Option<&NodeRef>, min_epoch: Option<Epoch>) -> Option<NodeId> {
        let exclude = other_than.and_then(|r| self.resolve(r).ok());
        if other_than.is_some() && exclude.is_none() {
            return None;
        }
        self.world
            .nodes
            .iter()
            .filter_map(|n| n.replica.as_ref())
            .filter(|r| r.state_name() == kraft_protocol::StateName::Leader)
            .filter(|r| Some(r.id) != exclude)
            .filter(|r| min_epoch.map(|e| r.epoch() >= e).unwrap_or(true))
            .max_by_key(|r| (r.epoch(), std::cmp::Reverse(r.id)))
            .map(|r| r.id)
    }
}

/// A condition being watched over time: event leaves remember what they have seen.
#[derive(Clone, Debug)]
pub(crate) struct LiveCondition {
    pub condition: Condition,
    /// Per event leaf (depth-first order): the next trace index to look at, and
    /// whether a match was seen.
    latches: Vec<(usize, bool)>,
}

impl LiveCondition {
    /// Watches `condition`, counting events from trace index `start`.
    pub fn new(condition: Condition, start: usize) -> Self {
        let n = condition.count_event_leaves();
        LiveCondition { condition, latches: vec![(start, false); n] }
    }

    pub fn eval(&mut self, env: &Env, trace: &[Event]) -> bool {
        let mut leaf = 0;
        eval(&self.condition, env, trace, &mut self.latches, &mut leaf)
    }
}

fn eval(c: &Condition, env: &Env, trace: &[Event], latches: &mut [(usize, bool)], leaf: &mut usize) -> bool {
    let w = env.world;
    match c {
        Condition::LeaderElected { other_than, min_epoch } => {
            env.find_leader(other_than.as_ref(), *min_epoch).is_some()
        }
        Condition::LeaderIs(n) => match env.resolve(n).ok() {
            Some(id) => w.leader().map(|(l, _)| l == id).unwrap_or(false),
            None => false,
        },
        Condition::State { node, is } => match env.resolve(node).ok() {
            Some(id) if (id as usize) < w.nodes.len() => {
                let state = w.node_view(id).state;
                is.iter().any(|s| s == state)
            }
            _ => false,
        },
        Condition::Hw { nodes, at_least } => match env.select(nodes).ok() {
            Some(ids) => ids.iter().all(|id| {
                w.nodes[*id as usize]
                    .replica
                    .as_ref()
                    .and_then(|r| r.high_watermark())
                    .map(|h| h >= *at_least)
                    .unwrap_or(false)
            }),
            None => false,
        },
        Condition::CaughtUp { nodes } => {
            let Ok(ids) = env.select(nodes) else {
                return false;
            };
            caught_up(w, &ids)
        }
        Condition::Converged => {
            let running: Vec<NodeId> = w.nodes.iter().filter(|n| n.replica.is_some()).map(|n| n.id).collect();
            if !caught_up(w, &running) {
                return false;
            }
            let images: Vec<_> = running
                .iter()
                .filter_map(|id| w.nodes[*id as usize].replica.as_ref())
                .map(|r| (r.high_watermark(), r.image()))
                .collect();
            images.iter().all(|(hw, img)| Some(img.applied_offset) == *hw && *img == images[0].1)
        }
        Condition::Image { nodes, same_as, want } => {
            let Some(ids) = image_nodes(env, nodes, same_as.as_ref()) else {
                return false;
            };
            let (problems, shared) = image_problems(w, &ids, want);
            problems.is_empty() && shared.is_some()
        }
        Condition::Event(m) => {
            let slot = &mut latches[*leaf];
            *leaf += 1;
            if !slot.1 {
                let resolve = |l: &str| env.label_node(l);
                let from = slot.0.min(trace.len());
                if trace[from..].iter().any(|e| m.matches(e, &resolve)) {
                    slot.1 = true;
                }
                slot.0 = trace.len();
            }
            slot.1
        }
        Condition::AllOf(v) => {
            // Evaluate every child so event leaves keep their cursors up to date.
            let mut all = true;
            for c in v {
                all &= eval(c, env, trace, latches, leaf);
            }
            all
        }
        Condition::Not(c) => !eval(c, env, trace, latches, leaf),
    }
}

/// What a metadata image must hold (each part only when given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImageWant {
    pub applied_offset: Option<u64>,
    /// Broker ids, ascending, without repeats.
    pub brokers: Option<Vec<u32>>,
    /// Topic names, ascending, without repeats.
    pub topics: Option<Vec<String>>,
}

impl ImageWant {
    pub fn new(applied_offset: Option<u64>, brokers: Option<Vec<u32>>, topics: Option<Vec<String>>) -> ImageWant {
        fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
            v.sort_unstable();
            v.dedup();
            v
        }
        ImageWant { applied_offset, brokers: brokers.map(sorted), topics: topics.map(sorted) }
    }
}

impl std::fmt::Display for ImageWant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(o) = self.applied_offset {
            write!(f, ", applied to offset {o}")?;
        }
        if let Some(b) = &self.brokers {
            write!(f, ", brokers {b:?}")?;
        }
        if let Some(t) = &self.topics {
            write!(f, ", topics {t:?}")?;
        }
        Ok(())
    }
}

/// The nodes an `image` condition compares: `same_as` first, then the selected ones
/// (None: a reference names no node now).
fn image_nodes(env: &Env, nodes: &NodeSel, same_as: Option<&NodeRef>) -> Option<Vec<NodeId>> {
    let mut ids: Vec<NodeId> = same_as.map(|n| env.resolve(n)).transpose().ok()?.into_iter().collect();
    for id in env.select(nodes).ok()? {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Some(ids)
}

/// What differs in the images an unmet condition's `image` parts look at (the parts
/// under `not` excepted: there a match is the failure), for its failure text.
pub(crate) fn image_differences(c: &Condition, env: &Env) -> Vec<String> {
    match c {
        Condition::Image { nodes, same_as, want } => match image_nodes(env, nodes, same_as.as_ref()) {
            Some(ids) => image_problems(env.world, &ids, want).0,
            None => vec![format!("{c}: names no node now")],
        },
        Condition::AllOf(v) => v.iter().flat_map(|c| image_differences(c, env)).collect(),
        _ => Vec::new(),
    }
}

/// The fields in which image `a` (of node `na`) differs from image `b` (of `nb`), each as
/// `field: a's vs b's`.
fn image_diff(na: NodeId, a: &MetadataImage, nb: NodeId, b: &MetadataImage) -> String {
    let mut parts = Vec::new();
    if a.applied_offset != b.applied_offset {
        parts.push(format!("applied to offset {} vs {}", a.applied_offset, b.applied_offset));
    }
    if a.brokers != b.brokers {
        parts.push(format!("brokers {:?} vs {:?}", a.brokers, b.brokers));
    }
    let names = |i: &MetadataImage| i.topics.keys().map(|k| k.to_string()).collect::<Vec<_>>();
    if names(a) != names(b) {
        parts.push(format!("topics {:?} vs {:?}", names(a), names(b)));
    } else if let Some(t) = a.topics.iter().find(|(k, t)| b.topics.get(*k) != Some(*t)).map(|(k, _)| k) {
        let leaders = |i: &MetadataImage| i.topics.get(t).map(|x| x.partition_leaders.clone()).unwrap_or_default();
        parts.push(format!("{}'s partition leaders {:?} vs {:?}", &**t, leaders(a), leaders(b)));
    }
    if parts.is_empty() {
        parts.push(format!("leader changes {} vs {}", a.leader_changes, b.leader_changes));
    }
    format!("n{na}'s image differs from n{nb}'s: {}", parts.join(", "))
}

/// How the images of nodes `ids` fall short of being alike and holding what `want` asks
/// (no problems: they do), and the image of the first running one.
pub(crate) fn image_problems<'w>(
    w: &'w World,
    ids: &[NodeId],
    want: &ImageWant,
) -> (Vec<String>, Option<(NodeId, &'w MetadataImage)>) {
    let mut problems = Vec::new();
    let mut first: Option<(NodeId, &MetadataImage)> = None;
    for n in ids {
        let Some(r) = w.nodes[*n as usize].replica.as_ref() else {
            problems.push(format!("n{n} is crashed"));
            continue;
        };
        let img = r.image();
        if let Some(o) = want.applied_offset.filter(|o| *o != img.applied_offset) {
            problems.push(format!("n{n} has applied to offset {} (expected {o})", img.applied_offset));
        }
        if let Some(b) = want.brokers.as_ref().filter(|b| **img.brokers != ***b) {
            problems.push(format!("n{n} has brokers {:?} (expected {b:?})", img.brokers));
        }
        if let Some(topics) = &want.topics {
            let have: Vec<&str> = img.topics.keys().map(|k| &**k).collect();
            if !have.iter().copied().eq(topics.iter().map(String::as_str)) {
                problems.push(format!("n{n} has topics {have:?} (expected {topics:?})"));
            }
        }
        match first {
            None => first = Some((*n, img)),
            Some((f, fi)) if fi != img => problems.push(image_diff(*n, img, f, fi)),
            Some(_) => {}
        }
    }
    (problems, first)
}

/// The lowest-id running voter that follows the current leader.
pub(crate) fn follower(w: &World) -> Option<NodeId> {
    let (leader, epoch) = w.leader()?;
    w.nodes
        .iter()
        .filter(|n| n.is_voter)
        .filter_map(|n| n.replica.as_ref())
        .find(|r| {
            r.state_name() == kraft_protocol::StateName::Follower && r.epoch() == epoch && r.leader_id() == Some(leader)
        })
        .map(|r| r.id)
}

fn caught_up(w: &World, ids: &[NodeId]) -> bool {
    let Some((leader, _)) = w.leader() else {
        return false;
    };
    let Some(l) = w.nodes[leader as usize].replica.as_ref() else {
        return false;
    };
    let (leo, hw) = (l.log().end_offset(), l.high_watermark());
    if hw.is_none() {
        return false;
    }
    ids.iter().all(|id| {
        w.nodes[*id as usize]
            .replica
            .as_ref()
            .map(|r| r.log().end_offset() == leo && r.high_watermark() == hw)
            .unwrap_or(false)
    })
}
