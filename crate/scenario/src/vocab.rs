//! The format's vocabulary, written once: every kind of condition, expectation and
//! measurement as an enum variant with its key, its fields and a one-line doc (actions are
//! the sim's, declared once in `kraft_sim::spec`). The
//! parser dispatches on these enums (a kind without its arm does not compile), checks keys
//! against their fields, and `scenarios/schema.json` is generated from them.

use kraft_sim::vocab::FieldTy;

/// A family of kinds: every kind and the key it is written with.
pub trait Kind: Copy + 'static {
    const ALL: &'static [Self];

    fn key(self) -> &'static str;

    fn keys() -> Vec<&'static str> {
        Self::ALL.iter().map(|k| k.key()).collect()
    }

    fn find(key: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.key() == key)
    }
}

/// An enum of kinds, each with its key, what the key holds (`$spec`) and a doc line.
macro_rules! kinds {
    ($(#[$m:meta])* pub enum $name:ident: $spec:ty { $($variant:ident = $key:literal, $shape:expr, $doc:literal;)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($variant,)* }

        impl Kind for $name {
            const ALL: &'static [$name] = &[$($name::$variant,)*];

            fn key(self) -> &'static str {
                match self { $($name::$variant => $key,)* }
            }
        }

        impl $name {
            /// What its key holds and what it means.
            pub fn spec(self) -> ($spec, &'static str) {
                match self { $($name::$variant => (const { $shape }, $doc),)* }
            }
        }
    };
}

/// What a field holds (each becomes one schema fragment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A non-negative integer (ms, an offset, a count); `Positive` is at least 1.
    Int,
    Positive,
    /// A number in [0, 1].
    Rate,
    /// `[min, max]` latency in ms.
    Latency,
    /// At most 60,000 ms; at most 1,000 writes per second.
    FlushMs,
    WritesPerSecond,
    Bool,
    /// Caption markup; plain text shown as it is (no markup, no HTML); any string; a
    /// step label; a kebab-case name.
    Text,
    Plain,
    Str,
    Label,
    Kebab,
    /// A node: id, `leader`, `follower` or `$label`; one known after the run (id or
    /// `$label`); `all`/`voters`/`observers` or one known after the run; the same with
    /// any node, evaluated at that moment.
    Node,
    NodeFixed,
    NodeSel,
    NodeSelNow,
    /// A moment: ms, a step label, `label+ms` or `end`.
    Time,
    Groups,
    Record,
    /// A state name, or a non-empty list of them; the same for invariants.
    States,
    Invariants,
    Condition,
    /// A non-empty list of conditions.
    Conditions,
    EventMatch,
    /// Broker ids; topic names; safety switch names.
    Ints,
    Strs,
    Switches,
    Cluster,
    Steps,
    Expectations,
    Measures,
    Variants,
    /// Caption replacements by step label.
    Captions,
    /// What a caption names (`FOCUS`); record names by name (`RECORD_NAME`).
    Focus,
    /// The messages a caption names (`FOCUS_MESSAGE`); a request kind's name.
    FocusMessages,
    MessageKind,
    RecordNames,
    ActionName,
}

/// A key of an object, what it holds, and whether it must be there.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub key: &'static str,
    pub ty: Ty,
    pub required: bool,
    pub doc: &'static str,
}

pub const fn req(key: &'static str, ty: Ty) -> Field {
    Field { key, ty, required: true, doc: "" }
}

pub const fn opt(key: &'static str, ty: Ty) -> Field {
    Field { key, ty, required: false, doc: "" }
}

const fn doc(f: Field, doc: &'static str) -> Field {
    Field { doc, ..f }
}

/// What a kind's key holds.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// `true` (and nothing else).
    True,
    Value(Ty),
    Object(&'static [Field]),
    /// `true`, or an object with these (optional) fields.
    TrueOr(&'static [Field]),
    /// `true`, or a step label.
    TrueOrLabel,
}

impl Shape {
    pub fn fields(self) -> &'static [Field] {
        match self {
            Shape::Object(f) | Shape::TrueOr(f) => f,
            Shape::True | Shape::Value(_) | Shape::TrueOrLabel => &[],
        }
    }
}

pub fn keys_of(fields: &[Field]) -> Vec<&'static str> {
    fields.iter().map(|f| f.key).collect()
}

// ---- the objects -------------------------------------------------------------------

pub const SCENARIO: &[Field] = &[
    doc(req("id", Ty::Kebab), "Stable kebab-case id: the file name and the ?scenario= link."),
    req("title", Ty::Text),
    req("summary", Ty::Text),
    req("cluster", Ty::Cluster),
    doc(req("durationMs", Ty::Int), "The run ends at this simulated time."),
    opt("steps", Ty::Steps),
    opt("expect", Ty::Expectations),
    opt("report", Ty::Measures),
    opt("variants", Ty::Variants),
    doc(
        opt("recordNames", Ty::RecordNames),
        "Names the captions give records (\"X\"), each an offset and epoch: the UI labels those records.",
    ),
];

/// Keys of a step besides the fields of its action.
pub const STEP: &[Field] = &[
    doc(opt("at", Ty::Int), "Happens at this simulated time (ms). 'at' times must not go back."),
    doc(opt("after", Ty::Int), "Happens this many ms after the previous step."),
    doc(
        opt("until", Ty::Condition),
        "Happens as soon as this condition holds (checked after every millisecond of events).",
    ),
    doc(
        opt("timeoutMs", Ty::Positive),
        "With 'until': fail the step if the condition does not hold within this many ms of the previous step (default: the end of the run).",
    ),
    doc(opt("action", Ty::ActionName), "What the step does; its fields sit beside it in the step."),
    doc(
        opt("label", Ty::Label),
        "A name for this step: \"$label\" is the node it acted on or found, \"label\" the moment it happened.",
    ),
    opt("caption", Ty::Text),
    doc(opt("pause", Ty::Bool), "Ask the player to pause here so the reader can look."),
    doc(opt("focus", Ty::Focus), "What the caption names: the UI zooms the timeline to this step and highlights them."),
    doc(opt("optional", Ty::Bool), "With 'until': a timeout does not fail the run (for variants that never get there)."),
];

pub const FOCUS: &[Field] = &[
    doc(opt("nodes", Ty::Ints), "The node ids the caption names."),
    doc(opt("records", Ty::Strs), "The records the caption names, by their 'recordNames'."),
    doc(
        opt("windowMs", Ty::Positive),
        "How much of the timeline (ms) to show around the step's moment (default 4000, at most durationMs).",
    ),
    doc(opt("image", Ty::Bool), "The caption talks about these nodes' metadata images: the UI shows them."),
    doc(
        opt("messages", Ty::FocusMessages),
        "The messages the caption names: the timeline draws their arrows in the window emphasized, the others dimmed.",
    ),
];

pub const FOCUS_MESSAGE: &[Field] = &[
    doc(req("kind", Ty::MessageKind), "The request's kind (as in the timeline legend); its responses go with it."),
    doc(opt("from", Ty::Int), "Only the requests this node sends (and the responses to them)."),
    doc(opt("to", Ty::Int), "Only the requests this node receives (and its responses to them)."),
];

pub const RECORD_NAME: &[Field] =
    &[doc(req("offset", Ty::Int), "The record's offset."), doc(req("epoch", Ty::Int), "The epoch it was written in.")];

pub const VARIANT: &[Field] = &[
    req("name", Ty::Kebab),
    opt("title", Ty::Text),
    opt("summary", Ty::Text),
    opt("unsafe", Ty::Switches),
    opt("seed", Ty::Int),
    opt("expect", Ty::Expectations),
    opt("report", Ty::Measures),
    doc(opt("captions", Ty::Captions), "Caption replacements by step label."),
];

// ---- the kinds ---------------------------------------------------------------------

const FROM: Field = opt("from", Ty::Time);
const TO: Field = opt("to", Ty::Time);
const FAILOVER_FROM: Field =
    doc(opt("from", Ty::Label), "The step label; default: the first step that took the leader away.");

/// The `action` of a step: the sim's actions (`kraft_sim::spec`, declared once there),
/// whose fields sit beside it in the step.
pub use kraft_sim::ActionKind;

impl Kind for ActionKind {
    const ALL: &'static [ActionKind] = ActionKind::ALL;

    fn key(self) -> &'static str {
        self.name()
    }
}

/// What a field of an action holds, in the format's terms.
fn action_ty(ty: FieldTy) -> Ty {
    match ty {
        FieldTy::Node => Ty::Node,
        FieldTy::Groups => Ty::Groups,
        FieldTy::Latency => Ty::Latency,
        FieldTy::Rate => Ty::Rate,
        FieldTy::FlushMs => Ty::FlushMs,
        FieldTy::WritesPerSecond => Ty::WritesPerSecond,
        FieldTy::Record => Ty::Record,
    }
}

/// An action's fields as the format's vocabulary gives them (for the schema).
pub fn action_fields(kind: ActionKind) -> Vec<Field> {
    kind.fields()
        .iter()
        .map(|f| Field { key: f.key, ty: action_ty(f.ty), required: f.required, doc: f.ty.doc() })
        .collect()
}

kinds! {
    /// Something true or false of the cluster at a moment.
    pub enum ConditionKind: Shape {
        LeaderElected = "leaderElected", Shape::TrueOr(&[opt("otherThan", Ty::Node), opt("minEpoch", Ty::Int)]),
            "A running leader exists (optionally not this node, of at least this epoch). Its node is the step's \"$label\".";
        LeaderIs = "leaderIs", Shape::Value(Ty::NodeFixed), "This node is the leader.";
        State = "state", Shape::Object(&[req("node", Ty::Node), req("is", Ty::States)]),
            "The node is in one of these states.";
        Hw = "hw", Shape::Object(&[req("node", Ty::NodeSelNow), req("atLeast", Ty::Int)]),
            "The selected nodes' high watermark is at least this offset.";
        CaughtUp = "caughtUp", Shape::Object(&[req("node", Ty::NodeSelNow)]),
            "The selected nodes have the leader's log end offset and HW.";
        Converged = "converged", Shape::True,
            "Every running node has the leader's LEO and HW, has applied everything below it, and all metadata images are equal.";
        Image = "image",
            Shape::Object(&[opt("node", Ty::NodeSelNow), opt("sameAs", Ty::Node), opt("appliedOffset", Ty::Int), opt("brokers", Ty::Ints), opt("topics", Ty::Strs)]),
            "The selected nodes (default: all) are running and have identical metadata images, the same as node 'sameAs''s when given, applied to 'appliedOffset' and holding these brokers and topics when given.";
        Event = "event", Shape::Value(Ty::EventMatch), "A matching trace event happened since the wait began.";
        AllOf = "allOf", Shape::Value(Ty::Conditions), "All of these.";
        Not = "not", Shape::Value(Ty::Condition), "Not this.";
    }
}

kinds! {
    /// What a scenario claims; each expectation object may also carry a `note`.
    pub enum ExpectKind: Shape {
        LeaderElectedBy = "leaderElectedBy", Shape::Value(Ty::Int), "A leader is elected by this time (ms).";
        HwAtLeast = "hwAtLeast", Shape::Object(&[req("node", Ty::NodeSel), req("offset", Ty::Int), req("by", Ty::Time)]),
            "The selected nodes' HW reaches this offset by that moment.";
        Truncation = "truncation", Shape::Object(&[req("node", Ty::NodeSel), opt("rounds", Ty::Positive), FROM, TO]),
            "Each selected node truncates its log at least 'rounds' times (default 1) in the window.";
        NoTruncation = "noTruncation", Shape::Object(&[opt("node", Ty::NodeSel), FROM, TO]),
            "No truncation on the selected nodes (default: all) in the window.";
        Failover = "failover", Shape::Object(&[FAILOVER_FROM, opt("within", Ty::Int), opt("atLeast", Ty::Int)]),
            "After the step, a leader of a newer epoch is elected within / no sooner than these ms.";
        NoViolations = "noViolations", Shape::True, "No invariant is violated.";
        Violated = "violated", Shape::Value(Ty::Invariants),
            "At least one of these invariants is reported (for unsafe variants). Violations of the named invariants are expected; any other violation fails the run.";
        Eventually = "eventually", Shape::Object(&[req("condition", Ty::Condition), FROM, req("by", Ty::Time)]),
            "The condition holds at some moment in [from, by].";
        Always = "always", Shape::Object(&[req("condition", Ty::Condition), FROM, TO]),
            "The condition holds at every moment in [from, to].";
        Holds = "holds", Shape::Object(&[req("condition", Ty::Condition), req("at", Ty::Time)]),
            "The condition holds at that moment (after that millisecond's events).";
        Event = "event",
            Shape::Object(&[req("match", Ty::EventMatch), FROM, TO, opt("atLeast", Ty::Int), opt("atMost", Ty::Int)]),
            "Matching events happen in the window: at least 'atLeast' (default 1), at most 'atMost'.";
        NoEvent = "noEvent", Shape::Object(&[req("match", Ty::EventMatch), FROM, TO]), "No matching event in the window.";
        Progress = "progress", Shape::Object(&[req("from", Ty::Time), TO, req("atLeast", Ty::Int)]),
            "The highest HW grows by at least this many records between from and to.";
        Metadata = "metadata", Shape::Object(&[opt("node", Ty::NodeSel), opt("brokers", Ty::Ints), opt("topics", Ty::Strs)]),
            "At the end, the selected nodes (default: all) have these brokers and topics in their metadata image, and identical images.";
    }
}

kinds! {
    /// A number the scenario asks to report.
    pub enum MeasureKind: Shape {
        FirstElection = "firstElection", Shape::True,
            "When the first leader was elected, split into waiting for a timeout and electing.";
        Failover = "failover", Shape::TrueOrLabel,
            "Failover after a step (label; true: the first step that took the leader away), split into detection, election and first commit.";
        HwReached = "hwReached", Shape::Object(&[req("offset", Ty::Int), opt("node", Ty::NodeSel), FROM]),
            "When each selected node's HW reached the offset.";
        Count = "count", Shape::Object(&[opt("name", Ty::Plain), req("match", Ty::EventMatch), FROM, TO]),
            "How many events match in the window.";
        Interval = "interval", Shape::Object(&[opt("name", Ty::Plain), req("from", Ty::Time), req("to", Ty::Time)]),
            "Time between two moments.";
        Nodes = "nodes", Shape::True, "Every node's state, epoch, LEO and HW at the end.";
    }
}
