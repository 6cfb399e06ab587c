//! The format's vocabulary, written once: every kind of action, condition, expectation
//! and measurement as an enum variant with its key, its fields and a one-line doc. The
//! parser dispatches on these enums (a kind without its arm does not compile), checks keys
//! against their fields, and `scenarios/schema.json` is generated from them.

/// An enum of kinds with the key each is written with.
macro_rules! kinds {
    ($(#[$m:meta])* pub enum $name:ident { $($variant:ident = $key:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($variant,)* }

        impl Kind for $name {
            const ALL: &'static [$name] = &[$($name::$variant,)*];

            fn key(self) -> &'static str {
                match self { $($name::$variant => $key,)* }
            }
        }
    };
}

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

/// What a field holds (each becomes one schema fragment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A non-negative integer (ms, an offset, a count).
    Int,
    /// An integer of at least 1.
    Positive,
    /// A number in [0, 1].
    Rate,
    /// `[min, max]` latency in ms.
    Latency,
    /// At most 60,000 ms.
    FlushMs,
    /// At most 1,000 writes per second.
    WritesPerSecond,
    Bool,
    /// Caption markup.
    Text,
    /// A plain string (a name).
    Str,
    /// A step label.
    Label,
    /// A node: id, `leader`, `follower` or `$label`.
    Node,
    /// A node known after the run: id or `$label`.
    NodeFixed,
    /// `all`, `voters`, `observers` or a node known after the run.
    NodeSel,
    /// `all`, `voters`, `observers` or any node, evaluated at that moment.
    NodeSelNow,
    /// A moment: ms, a step label, `label+ms` or `end`.
    Time,
    /// Partition groups.
    Groups,
    /// A metadata record.
    Record,
    /// A state name or a non-empty list of them.
    States,
    Condition,
    /// A non-empty list of conditions.
    Conditions,
    EventMatch,
    /// An invariant name or a non-empty list of them.
    Invariants,
    /// Broker ids.
    Ints,
    /// Topic names.
    Strs,
    /// A kebab-case name (`figure-8`).
    Kebab,
    /// Safety switch names.
    Switches,
    Cluster,
    Steps,
    Expectations,
    Measures,
    Variants,
    /// Caption replacements by step label.
    Captions,
    /// An action's name.
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

const fn req(key: &'static str, ty: Ty) -> Field {
    Field { key, ty, required: true, doc: "" }
}

const fn opt(key: &'static str, ty: Ty) -> Field {
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
    /// One value.
    Value(Ty),
    /// An object with these fields.
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

/// Keys: the fields' keys.
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
    doc(
        opt("optional", Ty::Bool),
        "With 'until': a timeout does not fail the run (for variants that never get there).",
    ),
];

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

// ---- actions -----------------------------------------------------------------------

kinds! {
    /// The `action` of a step (the sim's `Action`, named the same way).
    pub enum ActionKind {
        Crash = "crash",
        Wipe = "wipe",
        Restart = "restart",
        Isolate = "isolate",
        Partition = "partition",
        Cut = "cut",
        Uncut = "uncut",
        SlowLink = "slowLink",
        Heal = "heal",
        Network = "network",
        SlowDisk = "slowDisk",
        Resign = "resign",
        Workload = "workload",
        Write = "write",
    }
}

const NODE: &[Field] = &[req("node", Ty::Node)];
const LINK: &[Field] = &[req("from", Ty::Node), req("to", Ty::Node)];
const LATENCY: Field = doc(
    req("latencyMs", Ty::Latency),
    "[min, max] one-way latency in ms, at least 1 (at zero, replicas can answer each other forever within one millisecond).",
);

impl ActionKind {
    /// Its fields (beside it in the step) and what it does.
    pub fn spec(self) -> (&'static [Field], &'static str) {
        match self {
            ActionKind::Crash => {
                (NODE, "Crash the node: it loses what it had not flushed; its disk (log, quorum-state) stays.")
            }
            ActionKind::Wipe => (NODE, "Crash the node and lose its whole disk."),
            ActionKind::Restart => (NODE, "Restart a crashed node from its disk."),
            ActionKind::Isolate => (NODE, "Cut the node off from every other node (both directions)."),
            ActionKind::Partition => (
                const {
                    &[doc(
                        req("groups", Ty::Groups),
                        "Partition groups: arrays of nodes, or \"rest\" for every node not named in another group.",
                    )]
                },
                "Split the nodes into groups that only talk within themselves.",
            ),
            ActionKind::Cut => (LINK, "Drop every message from one node to another (one way)."),
            ActionKind::Uncut => (LINK, "Restore one link a cut took down (one way)."),
            ActionKind::SlowLink => (
                const { &[req("from", Ty::Node), req("to", Ty::Node), LATENCY] },
                "Give one link (one way) its own latency range [min, max] ms; heal restores the default.",
            ),
            ActionKind::Heal => (&[], "Undo isolations, partitions and cuts."),
            ActionKind::Network => (
                const { &[LATENCY, opt("loss", Ty::Rate), opt("duplicate", Ty::Rate)] },
                "Change every link's latency range, loss and duplication rates.",
            ),
            ActionKind::SlowDisk => (
                const { &[req("node", Ty::Node), req("flushMs", Ty::FlushMs)] },
                "Set how long the node's flushes take (its raft thread is blocked meanwhile).",
            ),
            ActionKind::Resign => (&[], "The current leader resigns gracefully (EndQuorumEpoch)."),
            ActionKind::Workload => (
                const { &[req("writesPerSecond", Ty::WritesPerSecond)] },
                "Set the client write rate (random metadata records).",
            ),
            ActionKind::Write => (
                const { &[opt("record", Ty::Record)] },
                "One client write to the current leader (a given record or a random one).",
            ),
        }
    }

    pub fn fields(self) -> &'static [Field] {
        self.spec().0
    }
}

// ---- conditions --------------------------------------------------------------------

kinds! {
    /// Something true or false of the cluster at a moment.
    pub enum ConditionKind {
        LeaderElected = "leaderElected",
        LeaderIs = "leaderIs",
        State = "state",
        Hw = "hw",
        CaughtUp = "caughtUp",
        Converged = "converged",
        Event = "event",
        AllOf = "allOf",
        Not = "not",
    }
}

impl ConditionKind {
    pub fn spec(self) -> (Shape, &'static str) {
        match self {
            ConditionKind::LeaderElected => (
                Shape::TrueOr(const { &[opt("otherThan", Ty::Node), opt("minEpoch", Ty::Int)] }),
                "A running leader exists (optionally not this node, of at least this epoch). Its node is the step's \"$label\".",
            ),
            ConditionKind::LeaderIs => (Shape::Value(Ty::NodeFixed), "This node is the leader."),
            ConditionKind::State => {
                (Shape::Object(const { &[req("node", Ty::Node), req("is", Ty::States)] }), "The node is in one of these states.")
            }
            ConditionKind::Hw => (
                Shape::Object(const { &[req("node", Ty::NodeSelNow), req("atLeast", Ty::Int)] }),
                "The selected nodes' high watermark is at least this offset.",
            ),
            ConditionKind::CaughtUp => (
                Shape::Object(const { &[req("node", Ty::NodeSelNow)] }),
                "The selected nodes have the leader's log end offset and HW.",
            ),
            ConditionKind::Converged => (
                Shape::True,
                "Every running node has the leader's LEO and HW, has applied everything below it, and all metadata images are equal.",
            ),
            ConditionKind::Event => {
                (Shape::Value(Ty::EventMatch), "A matching trace event happened since the wait began.")
            }
            ConditionKind::AllOf => (Shape::Value(Ty::Conditions), "All of these."),
            ConditionKind::Not => (Shape::Value(Ty::Condition), "Not this."),
        }
    }
}

// ---- expectations ------------------------------------------------------------------

kinds! {
    /// What a scenario claims; each expectation object may also carry a `note`.
    pub enum ExpectKind {
        LeaderElectedBy = "leaderElectedBy",
        HwAtLeast = "hwAtLeast",
        Truncation = "truncation",
        NoTruncation = "noTruncation",
        Failover = "failover",
        NoViolations = "noViolations",
        Violated = "violated",
        Eventually = "eventually",
        Always = "always",
        Holds = "holds",
        Event = "event",
        NoEvent = "noEvent",
        Progress = "progress",
        Metadata = "metadata",
    }
}

const WINDOW_FROM: Field = opt("from", Ty::Time);
const WINDOW_TO: Field = opt("to", Ty::Time);

impl ExpectKind {
    pub fn spec(self) -> (Shape, &'static str) {
        match self {
            ExpectKind::LeaderElectedBy => (Shape::Value(Ty::Int), "A leader is elected by this time (ms)."),
            ExpectKind::HwAtLeast => (
                Shape::Object(const { &[req("node", Ty::NodeSel), req("offset", Ty::Int), req("by", Ty::Time)] }),
                "The selected nodes' HW reaches this offset by that moment.",
            ),
            ExpectKind::Truncation => (
                Shape::Object(const { &[req("node", Ty::NodeSel), opt("rounds", Ty::Positive), WINDOW_FROM, WINDOW_TO] }),
                "Each selected node truncates its log at least 'rounds' times (default 1) in the window.",
            ),
            ExpectKind::NoTruncation => (
                Shape::Object(const { &[opt("node", Ty::NodeSel), WINDOW_FROM, WINDOW_TO] }),
                "No truncation on the selected nodes (default: all) in the window.",
            ),
            ExpectKind::Failover => (
                Shape::Object(const { &[
                    doc(opt("from", Ty::Label), "The step label; default: the first step that took the leader away."),
                    opt("within", Ty::Int),
                    opt("atLeast", Ty::Int),
                ] }),
                "After the step, a leader of a newer epoch is elected within / no sooner than these ms.",
            ),
            ExpectKind::NoViolations => (Shape::True, "No invariant is violated."),
            ExpectKind::Violated => (
                Shape::Value(Ty::Invariants),
                "At least one of these invariants is reported (for unsafe variants). Violations of the named invariants are expected; any other violation fails the run.",
            ),
            ExpectKind::Eventually => (
                Shape::Object(const { &[req("condition", Ty::Condition), WINDOW_FROM, req("by", Ty::Time)] }),
                "The condition holds at some moment in [from, by].",
            ),
            ExpectKind::Always => (
                Shape::Object(const { &[req("condition", Ty::Condition), WINDOW_FROM, WINDOW_TO] }),
                "The condition holds at every moment in [from, to].",
            ),
            ExpectKind::Holds => (
                Shape::Object(const { &[req("condition", Ty::Condition), req("at", Ty::Time)] }),
                "The condition holds at that moment (after that millisecond's events).",
            ),
            ExpectKind::Event => (
                Shape::Object(const { &[
                    req("match", Ty::EventMatch),
                    WINDOW_FROM,
                    WINDOW_TO,
                    opt("atLeast", Ty::Int),
                    opt("atMost", Ty::Int),
                ] }),
                "Matching events happen in the window: at least 'atLeast' (default 1), at most 'atMost'.",
            ),
            ExpectKind::NoEvent => (
                Shape::Object(const { &[req("match", Ty::EventMatch), WINDOW_FROM, WINDOW_TO] }),
                "No matching event in the window.",
            ),
            ExpectKind::Progress => (
                Shape::Object(const { &[req("from", Ty::Time), WINDOW_TO, req("atLeast", Ty::Int)] }),
                "The highest HW grows by at least this many records between from and to.",
            ),
            ExpectKind::Metadata => (
                Shape::Object(const { &[opt("node", Ty::NodeSel), opt("brokers", Ty::Ints), opt("topics", Ty::Strs)] }),
                "At the end, the selected nodes (default: all) have these brokers and topics in their metadata image, and identical images.",
            ),
        }
    }
}

// ---- measurements ------------------------------------------------------------------

kinds! {
    /// A number the scenario asks to report.
    pub enum MeasureKind {
        FirstElection = "firstElection",
        Failover = "failover",
        HwReached = "hwReached",
        Count = "count",
        Interval = "interval",
        Nodes = "nodes",
    }
}

impl MeasureKind {
    pub fn spec(self) -> (Shape, &'static str) {
        match self {
            MeasureKind::FirstElection => {
                (Shape::True, "When the first leader was elected, split into waiting for a timeout and electing.")
            }
            MeasureKind::Failover => (
                Shape::TrueOrLabel,
                "Failover after a step (label; true: the first step that took the leader away), split into detection, election and first commit.",
            ),
            MeasureKind::HwReached => (
                Shape::Object(const { &[req("offset", Ty::Int), opt("node", Ty::NodeSel), WINDOW_FROM] }),
                "When each selected node's HW reached the offset.",
            ),
            MeasureKind::Count => (
                Shape::Object(const { &[opt("name", Ty::Str), req("match", Ty::EventMatch), WINDOW_FROM, WINDOW_TO] }),
                "How many events match in the window.",
            ),
            MeasureKind::Interval => (
                Shape::Object(const { &[opt("name", Ty::Str), req("from", Ty::Time), req("to", Ty::Time)] }),
                "Time between two moments.",
            ),
            MeasureKind::Nodes => (Shape::True, "Every node's state, epoch, LEO and HW at the end."),
        }
    }
}
