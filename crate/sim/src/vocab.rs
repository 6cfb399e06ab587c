//! The machinery behind the one declaration of every action (`spec.rs`, `actions!`): each
//! action is written once, with its JSON key, fields, docs, subject, what it undoes, its
//! place in the trace digest and its texts, and `actions!` expands that into the `Action`
//! enum, the `ActionKind` catalog, the reader the API, links and scenarios share, the
//! trace's fault texts and digest words, and the test samples. Adding an action is one
//! entry there plus what it does (`World::apply`).
//!
//! `named!` does the same for the plain name tables of small enums.

use crate::limits::{self, Limit};
use crate::read::Read;
use kraft_protocol::{Epoch, NodeId, Offset, RecordBody};
use std::hash::{Hash, Hasher};

/// What an action's field holds: the scenario schema's fragment for it, its bound, and
/// the reader's stricter checks (a scenario checks a record field by field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldTy {
    /// A node: an id in the API, an id, `leader`, `follower` or `$label` in a scenario.
    Node,
    /// Partition groups: arrays of nodes (a scenario may write one as `"rest"`).
    Groups,
    /// `[min, max]` one-way latency in ms.
    Latency,
    /// A probability in [0, 1].
    Rate,
    FlushMs,
    WritesPerSecond,
    /// A metadata record (`RecordBody`).
    Record,
}

impl FieldTy {
    /// The bound its values are checked against.
    pub fn limit(self) -> Option<&'static Limit> {
        match self {
            FieldTy::Latency => Some(&limits::LATENCY_MS),
            FieldTy::FlushMs => Some(&limits::FLUSH_MS),
            FieldTy::WritesPerSecond => Some(&limits::WRITES_PER_SECOND),
            FieldTy::Node | FieldTy::Groups | FieldTy::Rate | FieldTy::Record => None,
        }
    }

    /// What a field of this type means, for the schema (empty: its key says it).
    pub fn doc(self) -> &'static str {
        match self {
            FieldTy::Latency => "[min, max] one-way latency in ms, at least 1 (at zero, replicas can answer each other forever within one millisecond).",
            FieldTy::Groups => "Partition groups: arrays of nodes, or \"rest\" for every node not named in another group.",
            _ => "",
        }
    }
}

/// One field of an action as JSON writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionField {
    pub key: &'static str,
    pub ty: FieldTy,
    pub required: bool,
}

/// The node an action is about (what a scenario step's `$label` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject<N> {
    Node(N),
    /// The leader at that moment (`resign`).
    Leader,
}

/// Where an action's fields come from, and how its nodes are named: the API reads node
/// ids and reports a missing field its way, a scenario reads node references (`"leader"`,
/// `"$crash"`) and its own messages. `ActionKind::read` is the one reader over both.
pub trait ActionSource {
    type Node;
    type Group;
    type Error;
    fn node(&self, key: &'static str) -> Result<Self::Node, Self::Error>;
    fn groups(&self, key: &'static str) -> Result<Vec<Self::Group>, Self::Error>;
    fn req<T: Read>(&self, key: &'static str, ty: FieldTy) -> Result<T, Self::Error>;
    /// The field when present.
    fn opt<T: Read>(&self, key: &'static str, ty: FieldTy) -> Result<Option<T>, Self::Error>;
}

/// What a fault's trace texts may name besides its action's fields.
pub struct FaultCx {
    /// The leader an action aimed at "the leader" found (`resign`).
    pub leader: Option<NodeId>,
    /// The node the action started (`addController`).
    pub added: Option<NodeId>,
}

/// The result of a client write (the `write` action's outcome).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    Accepted { node: NodeId, offset: Offset },
    Rejected { reason: String },
}

/// What a scenario step's description may name besides its action's fields.
pub struct StepCx {
    /// The leader when the step ran, with its epoch.
    pub leader: Option<(NodeId, Epoch)>,
    /// What a write came to.
    pub outcome: Option<WriteOutcome>,
}

impl StepCx {
    /// `n1`, or `n1 (leader of epoch 3)` when it was the leader.
    pub fn role(&self, n: NodeId) -> String {
        match self.leader {
            Some((l, e)) if l == n => format!("n{n} (leader of epoch {e})"),
            _ => format!("n{n}"),
        }
    }
}

/// How a fault's field is hashed into the trace digest: exactly the words the trace's
/// first, hand-written fault enum hashed (a latency as its two bounds, a rate as its
/// parts per million), so digests recorded before the one declaration still match.
pub trait DigestField {
    fn digest<H: Hasher>(&self, h: &mut H);
}

impl DigestField for u32 {
    fn digest<H: Hasher>(&self, h: &mut H) {
        self.hash(h)
    }
}

impl DigestField for u64 {
    fn digest<H: Hasher>(&self, h: &mut H) {
        self.hash(h)
    }
}

impl DigestField for Vec<Vec<NodeId>> {
    fn digest<H: Hasher>(&self, h: &mut H) {
        self.hash(h)
    }
}

impl DigestField for [u64; 2] {
    fn digest<H: Hasher>(&self, h: &mut H) {
        self[0].hash(h);
        self[1].hash(h);
    }
}

/// A rate, as the world applies it (validated before, so the fallback never happens).
impl DigestField for f64 {
    fn digest<H: Hasher>(&self, h: &mut H) {
        limits::rate_ppm(&limits::LOSS, *self).unwrap_or(0).hash(h)
    }
}

/// `write` is no fault, so this is never part of a digest.
impl DigestField for Option<RecordBody> {
    fn digest<H: Hasher>(&self, h: &mut H) {
        self.is_some().hash(h)
    }
}

/// A percentage with two decimals from parts per million: `1.25%`.
pub fn percent(ppm: u32) -> String {
    format!("{}.{:02}%", ppm / 10_000, ppm % 10_000 / 100)
}

/// A rate as parts per million, as the world applies it.
pub fn ppm(rate: f64) -> u32 {
    limits::rate_ppm(&limits::LOSS, rate).unwrap_or(0)
}

/// Node ids as `n0,n1` (`sep` between them).
pub fn node_list(nodes: &[NodeId], sep: &str) -> String {
    nodes.iter().map(|n| format!("n{n}")).collect::<Vec<_>>().join(sep)
}

// ---- the expansion ---------------------------------------------------------------------

/// One field read through an `ActionSource`, by how it is declared.
#[doc(hidden)]
#[macro_export]
macro_rules! __action_read {
    ($src:ident, node, $key:literal, $fty:ident, $t:ty) => {
        $src.node($key)?
    };
    ($src:ident, groups, $key:literal, $fty:ident, $t:ty) => {
        $src.groups($key)?
    };
    ($src:ident, req, $key:literal, $fty:ident, $t:ty) => {
        $src.req::<$t>($key, $crate::vocab::FieldTy::$fty)?
    };
    ($src:ident, opt, $key:literal, $fty:ident, $t:ty, $default:expr) => {
        $src.opt::<$t>($key, $crate::vocab::FieldTy::$fty)?.unwrap_or($default)
    };
}

/// One field with its nodes renamed (`try_map`).
#[doc(hidden)]
#[macro_export]
macro_rules! __action_map {
    ($node:ident, $groups:ident, node, $v:ident) => {
        $node($v)?
    };
    ($node:ident, $groups:ident, groups, $v:ident) => {
        $groups($v)?
    };
    ($node:ident, $groups:ident, $how:ident, $v:ident) => {
        $v.clone()
    };
}

/// The nodes one field names, appended to `$out`.
#[doc(hidden)]
#[macro_export]
macro_rules! __action_nodes {
    ($out:ident, node, $v:ident) => {
        $out.push(*$v)
    };
    ($out:ident, groups, $v:ident) => {
        $out.extend($v.iter().flatten().copied())
    };
    ($out:ident, $how:ident, $v:ident) => {};
}

/// Checks one field's nodes against the cluster.
#[doc(hidden)]
#[macro_export]
macro_rules! __action_validate {
    ($nodes:ident, node, $key:literal, $v:ident) => {
        $crate::spec::check_node($key, *$v, $nodes)?
    };
    ($nodes:ident, groups, $key:literal, $v:ident) => {
        $crate::spec::check_groups($v, $nodes)?
    };
    ($nodes:ident, $how:ident, $key:literal, $v:ident) => {};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __action_required {
    (opt) => {
        false
    };
    ($how:ident) => {
        true
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __action_subject {
    (()) => {
        None
    };
    ((leader)) => {
        Some($crate::vocab::Subject::Leader)
    };
    (($f:ident)) => {
        Some($crate::vocab::Subject::Node($f))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __action_fault {
    (position, ()) => {
        None
    };
    (position, ($pos:literal, text: $text:expr, explain: $explain:expr)) => {
        Some($pos)
    };
    (text, ()) => {
        None
    };
    (text, ($pos:literal, text: $text:expr, explain: $explain:expr)) => {
        Some($text)
    };
    (explain, ()) => {
        None
    };
    (explain, ($pos:literal, text: $text:expr, explain: $explain:expr)) => {
        Some($explain)
    };
}

/// Declares every action once; see `spec.rs` for the declaration and this module's doc
/// for what it expands to. `$cx` names the context the texts read (`FaultCx` for the
/// trace's texts, `StepCx` for a step's description).
#[macro_export]
macro_rules! actions {
    (
        context $cx:ident;
        $(
            $(#[$meta:meta])*
            $V:ident = $name:literal $({
                $( $(#[$fmeta:meta])* $f:ident : $t:ty = $how:ident($key:literal, $fty:ident $(, $default:expr)?) ~ $sample:expr ),* $(,)?
            })?
            subject: $subject:tt,
            undoes: [$($undo:ident),*],
            fault: $fault:tt,
            doc: $doc:literal,
            step: $step:expr;
        )*
    ) => {
        /// Something a user (or a scenario, or the chaos generator) does to the cluster.
        /// Generic in how it names nodes: the sim takes ids (`Action`), a scenario step
        /// names them by reference (`Action<NodeRef, Group>`) and resolves them when the
        /// step runs.
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[serde(tag = "action", deny_unknown_fields)]
        // The field types reach the derive wrapped (macro fragments), so its bounds are given.
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(bound = "N: ts_rs::TS, G: ts_rs::TS"))]
        pub enum Action<N = kraft_protocol::NodeId, G = Vec<N>> {
            $(
                $(#[$meta])*
                #[serde(rename = $name)]
                $V $({ $( $(#[$fmeta])* #[serde(rename = $key)] $f: $t ),* })?,
            )*
        }

        /// Every kind of action, in declaration order: the catalog of their names, fields,
        /// docs, undo relations and trace positions.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum ActionKind { $($V,)* }

        impl ActionKind {
            pub const ALL: &'static [ActionKind] = &[$(ActionKind::$V,)*];

            /// The JSON key (`action` tag) it is written with.
            pub const fn name(self) -> &'static str {
                match self { $(ActionKind::$V => $name,)* }
            }

            pub fn find(name: &str) -> Option<ActionKind> {
                Self::ALL.iter().copied().find(|k| k.name() == name)
            }

            pub fn names() -> Vec<&'static str> {
                Self::ALL.iter().map(|k| k.name()).collect()
            }

            /// Its fields as JSON writes them, in order.
            pub const fn fields(self) -> &'static [$crate::vocab::ActionField] {
                match self {
                    $(ActionKind::$V => &[$($($crate::vocab::ActionField {
                        key: $key,
                        ty: $crate::vocab::FieldTy::$fty,
                        required: $crate::__action_required!($how),
                    },)*)?],)*
                }
            }

            /// What it does, in one line (the scenario schema's description).
            pub const fn doc(self) -> &'static str {
                match self { $(ActionKind::$V => $doc,)* }
            }

            /// The actions whose effect it takes back (`reconnect` undoes `isolate`).
            pub const fn undoes(self) -> &'static [ActionKind] {
                match self { $(ActionKind::$V => &[$(ActionKind::$undo),*],)* }
            }

            /// Its variant position in the trace digest, for an action the trace records as
            /// a `fault` event (None: crash, restart and write have events of their own).
            pub const fn trace_position(self) -> Option<isize> {
                match self { $(ActionKind::$V => $crate::__action_fault!(position, $fault),)* }
            }

            pub const fn is_fault(self) -> bool {
                self.trace_position().is_some()
            }

            /// Reads this kind's fields from `src`: the one reader of actions.
            pub fn read<S: $crate::vocab::ActionSource>(self, src: &S) -> Result<Action<S::Node, S::Group>, S::Error> {
                Ok(match self {
                    $(ActionKind::$V => Action::$V {
                        $($($f: $crate::__action_read!(src, $how, $key, $fty, $t $(, $default)?),)*)?
                    },)*
                })
            }
        }

        impl<N, G> Action<N, G> {
            pub fn kind(&self) -> ActionKind {
                match self { $(Action::$V { .. } => ActionKind::$V,)* }
            }

            /// The node it is about (what a scenario step's `$label` names).
            #[allow(unused_variables)]
            pub fn subject(&self) -> Option<$crate::vocab::Subject<&N>> {
                match self { $(Action::$V { $($($f,)*)? } => $crate::__action_subject!($subject),)* }
            }

            /// The same action with its nodes named another way (`node` maps each node,
            /// `groups` a partition's groups as a whole); the first error stops it.
            #[allow(unused_variables, unused_mut)]
            pub fn try_map<M, H, E>(
                &self,
                mut node: impl FnMut(&N) -> Result<M, E>,
                groups: impl FnOnce(&[G]) -> Result<Vec<H>, E>,
            ) -> Result<Action<M, H>, E> {
                Ok(match self {
                    $(Action::$V { $($($f,)*)? } => Action::$V {
                        $($($f: $crate::__action_map!(node, groups, $how, $f),)*)?
                    },)*
                })
            }
        }

        impl Action {
            /// The nodes it names, in order (a partition: every node of every group).
            #[allow(unused_variables, unused_mut)]
            pub fn nodes(&self) -> Vec<kraft_protocol::NodeId> {
                let mut out = Vec::new();
                match self { $(Action::$V { $($($f,)*)? } => { $($($crate::__action_nodes!(out, $how, $f);)*)? })* }
                out
            }

            /// Checks its node ids against the cluster of `nodes` nodes; the error names the field.
            #[allow(unused_variables)]
            fn check_nodes(&self, nodes: u32) -> Result<(), (String, String)> {
                match self { $(Action::$V { $($($f,)*)? } => { $($($crate::__action_validate!(nodes, $how, $key, $f);)*)? })* }
                Ok(())
            }

            /// Hashes its fields into the trace digest (see `DigestField`).
            #[allow(unused_variables)]
            pub fn digest_fields<H: std::hash::Hasher>(&self, h: &mut H) {
                match self { $(Action::$V { $($($f,)*)? } => { $($($crate::vocab::DigestField::digest($f, h);)*)? })* }
            }

            /// The trace's one-line text of it as a fault (None: not a fault).
            #[allow(unused_variables)]
            pub fn fault_text(&self, $cx: &$crate::vocab::FaultCx) -> Option<String> {
                match self { $(Action::$V { $($($f,)*)? } => $crate::__action_fault!(text, $fault),)* }
            }

            /// Why it happened and what it changes, for the explanation of its fault event.
            #[allow(unused_variables)]
            pub fn fault_explanation(&self, $cx: &$crate::vocab::FaultCx) -> Option<String> {
                match self { $(Action::$V { $($($f,)*)? } => $crate::__action_fault!(explain, $fault),)* }
            }

            /// What a scenario step doing it did, for the report.
            #[allow(unused_variables)]
            pub fn describe(&self, $cx: &$crate::vocab::StepCx) -> String {
                match self { $(Action::$V { $($($f,)*)? } => $step,)* }
            }

            /// One valid value of every action, in declaration order: the samples tests
            /// read back and the catalog's undo checks apply.
            pub fn samples() -> Vec<Action> {
                vec![$(Action::$V { $($($f: $sample,)*)? },)*]
            }
        }
    };
}

/// An enum of plain names: the enum, `ALL` and `name()` from one list. Serde's names are
/// still given on the enum (a rename rule): a test checks they agree with `name()`.
#[macro_export]
macro_rules! named {
    ($(#[$m:meta])* $vis:vis enum $E:ident { $($(#[$vm:meta])* $V:ident = $name:literal),* $(,)? }) => {
        $(#[$m])*
        $vis enum $E { $($(#[$vm])* $V,)* }

        impl $E {
            pub const ALL: [$E; <[&str]>::len(&[$($name),*])] = [$($E::$V,)*];

            pub const fn name(self) -> &'static str {
                match self { $($E::$V => $name,)* }
            }
        }
    };
}

/// `n` or `-` for none.
pub fn node_or_dash(n: Option<NodeId>) -> String {
    n.map_or_else(|| "-".to_string(), |n| n.to_string())
}

#[cfg(test)]
mod tests {
    use crate::spec::{Action, ActionKind};

    /// The digest hashes a fault's position: each is used once, and they run 0..faults.
    #[test]
    fn trace_positions_are_distinct_and_dense() {
        let mut positions: Vec<isize> = ActionKind::ALL.iter().filter_map(|k| k.trace_position()).collect();
        positions.sort();
        assert!(positions.iter().copied().eq(0..positions.len() as isize), "{positions:?}");
    }

    #[test]
    fn names_are_distinct_and_samples_valid() {
        for (i, k) in ActionKind::ALL.iter().enumerate() {
            assert!(ActionKind::ALL[..i].iter().all(|o| o.name() != k.name()), "{} twice", k.name());
            assert!(!k.undoes().contains(k), "{} undoes itself", k.name());
        }
        for a in Action::samples() {
            assert_eq!(a.validate(3, crate::spec::QuorumKind::Dynamic), Ok(()), "{a:?}");
        }
    }
}
