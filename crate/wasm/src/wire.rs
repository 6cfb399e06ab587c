//! The JSON shapes the npm package reads that are not already types of the core (those
//! derive their own serialization where they are defined), and the test that writes the
//! TypeScript type of every wire shape, and the catalog, into `web/src/generated/wire.ts`.

use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{Epoch, NodeId};
use kraft_sim::network::LinkProfile;
use kraft_sim::view::{NodeView, RecordView};
use serde::Serialize;

/// One node as the panels show it (what `Cluster.nodes` returns).
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "NodeInfo"))]
pub struct NodeOut {
    #[serde(flatten)]
    pub view: NodeView,
    /// Its log records from log start (absent when `nodes({ records: false })`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub records: Option<Vec<RecordView>>,
}

/// `{ id, epoch }` of the current leader.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "LeaderInfo"))]
pub struct LeaderOut {
    pub id: NodeId,
    pub epoch: Epoch,
}

/// What a write action returns: accepted with its node and offset, or rejected with a reason.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "WriteOutput"))]
pub struct WriteOut {
    pub accepted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub node: Option<NodeId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reason: Option<String>,
}

/// The network as it is now (what `Cluster.network` returns).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "NetworkState"))]
pub struct NetworkOut {
    /// One-way latency range in ms, `[min, max]`.
    pub latency_ms: [u64; 2],
    /// Probability in [0, 1] that a message is lost.
    pub loss: f64,
    /// Probability in [0, 1] that a message is delivered twice.
    pub duplicate: f64,
}

impl From<&LinkProfile> for NetworkOut {
    fn from(p: &LinkProfile) -> Self {
        NetworkOut {
            latency_ms: [p.latency_min_ms, p.latency_max_ms],
            loss: p.loss_ppm as f64 / 1_000_000.0,
            duplicate: p.duplicate_ppm as f64 / 1_000_000.0,
        }
    }
}

/// What undoing every fault restores: the network and the disk flush latency the cluster
/// was created with (what `Cluster.baseline` returns).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Baseline"))]
pub struct BaselineOut {
    pub network: NetworkOut,
    pub flush_ms: u64,
}

/// A message on the wire right now.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "InFlightMessage"))]
pub struct InFlightOut {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub rpc: RpcKind,
    pub epoch: Epoch,
    pub summary: String,
    pub sent: u64,
    pub arrives: u64,
    pub duplicate: bool,
}

/// An invariant violation a chaos seed found.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SeedViolation"))]
pub struct ViolationOut {
    #[cfg_attr(test, ts(as = "kraft_sim::trace::Invariant"))]
    pub invariant: &'static str,
    pub detail: String,
}

/// The outcome of one chaos-sweep seed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SeedOutcome"))]
pub struct SeedOut {
    pub seed: u64,
    pub passed: bool,
    /// Did the quorum commit new records in the calm tail after healing?
    pub made_progress: bool,
    pub violations: Vec<ViolationOut>,
    pub events: u64,
    pub simulated_ms: u64,
    /// The native command that reproduces this seed.
    pub reproduce: String,
}

/// Which JS error an [`ApiError`] becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ApiErrorKind"))]
pub enum ErrorKind {
    /// Wrong shape or type.
    TypeError,
    /// A value out of range, or an unknown name or node.
    RangeError,
    /// Anything else (the core could not do what was asked).
    Error,
}

/// An error of the wasm API: the JS error it becomes has this `kind`, the message
/// `field: message` (just `message` when `field` is empty) and a `field` property.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ApiError {
    pub kind: ErrorKind,
    /// The offending field or argument (`voters`, `inputs[3].t`), or empty.
    pub field: String,
    pub message: String,
}

impl ApiError {
    pub fn range(field: &str, message: impl Into<String>) -> ApiError {
        ApiError { kind: ErrorKind::RangeError, field: field.to_string(), message: message.into() }
    }

    pub fn type_error(field: &str, message: impl Into<String>) -> ApiError {
        ApiError { kind: ErrorKind::TypeError, field: field.to_string(), message: message.into() }
    }

    pub fn other(message: impl Into<String>) -> ApiError {
        ApiError { kind: ErrorKind::Error, field: String::new(), message: message.into() }
    }

    /// The JS error's message.
    pub fn text(&self) -> String {
        if self.field.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.field, self.message)
        }
    }
}

#[cfg(test)]
mod tests {
    //! `web/src/generated/wire.ts`: the TypeScript type of every wire shape, generated by
    //! ts-rs from the Rust types (ids, times and offsets are numbers: every value the core
    //! emits is below 2^53). The test fails when the file is stale; `UPDATE=1` rewrites it.
    use super::*;
    use kraft_protocol::config::CONFIG_KEYS;
    use kraft_protocol::rpc::SnapshotId;
    use kraft_protocol::{KafkaRelease, SafetySwitch};
    use kraft_protocol::{Reason, RecordBody, StateName};
    use kraft_scenario::{
        ExpectationReport, Measurement, MeasurementPart, Report, Span, SpanStyle, StepReport, ViolationReport,
    };
    use kraft_sim::lanes;
    use kraft_sim::limits::{Limit, LIMITS};
    use kraft_sim::spec::{LinkProfileSpec, NetworkSpec};
    use kraft_sim::trace::Invariant;
    use kraft_sim::trace::{samples, DropReason, EventJson, EventKind, FaultJson, SnapshotAction};
    use kraft_sim::view::{QuorumStatus, QuorumView, ReplicaStatus, ReplicationRow, Role, TimerKind, TimerView};
    use kraft_sim::ClusterSpec;
    use kraft_sim::{Action, ActionKind, TimedAction};
    use ts_rs::{Config, TS};

    /// A name with what it means.
    #[derive(Serialize, ts_rs::TS)]
    struct Named<T> {
        name: T,
        explanation: &'static str,
    }

    #[derive(Serialize, ts_rs::TS)]
    struct Preset {
        name: &'static str,
        #[serde(flatten)]
        profile: NetworkOut,
    }

    /// Names and limits the package validates against. Static, so it is generated below
    /// into `web/src/generated/wire.ts` as `CATALOG`, which the package carries.
    #[derive(Serialize, ts_rs::TS)]
    #[serde(rename_all = "camelCase")]
    struct Catalog {
        version: &'static str,
        /// The quorum config keys with their defaults and ranges.
        config_keys: Vec<Limit>,
        /// The cluster's other settings and the bounds on calls (`limits::LIMITS`).
        limits: Vec<Limit>,
        switches: Vec<Named<SafetySwitch>>,
        /// The Kafka releases a run may model (`kafkaRelease`), `legacy` first (the default).
        releases: Vec<Named<KafkaRelease>>,
        invariants: Vec<Named<Invariant>>,
        presets: Vec<Preset>,
        /// The spec a cluster gets for every option left out.
        default_spec: ClusterSpec,
    }

    impl Catalog {
        /// Config keys with defaults, safety switches, invariants, network presets, size limits.
        fn new() -> Catalog {
            Catalog {
                version: env!("CARGO_PKG_VERSION"),
                config_keys: CONFIG_KEYS.iter().map(|k| k.limit).collect(),
                limits: LIMITS.to_vec(),
                switches: SafetySwitch::ALL.iter().map(|s| Named { name: *s, explanation: s.explanation() }).collect(),
                releases: KafkaRelease::ALL.iter().map(|r| Named { name: *r, explanation: r.explanation() }).collect(),
                invariants: Invariant::ALL.iter().map(|i| Named { name: *i, explanation: i.explanation() }).collect(),
                presets: ["datacenter", "teaching", "wan"]
                    .into_iter()
                    .filter_map(|name| LinkProfile::preset(name).ok().map(|p| Preset { name, profile: (&p).into() }))
                    .collect(),
                default_spec: ClusterSpec::default(),
            }
        }
    }

    /// One field of an action (`ActionKind::fields`).
    #[derive(Serialize, ts_rs::TS)]
    struct ActionFieldEntry {
        key: &'static str,
        required: bool,
    }

    /// One action of the catalog (`ActionKind`).
    #[derive(Serialize, ts_rs::TS)]
    struct ActionEntry {
        #[ts(type = "Action[\"action\"]")]
        name: &'static str,
        fields: Vec<ActionFieldEntry>,
        /// Recorded in the trace as a `fault` event (crash, restart and write have their own).
        fault: bool,
        #[ts(type = "Action[\"action\"][]")]
        undoes: Vec<&'static str>,
        doc: &'static str,
    }

    fn action_entries() -> Vec<ActionEntry> {
        ActionKind::ALL
            .iter()
            .map(|k| ActionEntry {
                name: k.name(),
                fields: k.fields().iter().map(|f| ActionFieldEntry { key: f.key, required: f.required }).collect(),
                fault: k.is_fault(),
                undoes: k.undoes().iter().map(|u| u.name()).collect(),
                doc: k.doc(),
            })
            .collect()
    }

    fn repairs() -> Vec<&'static str> {
        ActionKind::ALL.iter().filter(|k| k.is_fault() && !k.undoes().is_empty()).map(|k| k.name()).collect()
    }

    /// The fault names in the trace's order (`trace_position`).
    fn fault_names() -> Vec<&'static str> {
        let mut faults: Vec<ActionKind> = ActionKind::ALL.iter().copied().filter(|k| k.is_fault()).collect();
        faults.sort_by_key(|k| k.trace_position());
        assert_eq!(faults.len(), samples::faults().len());
        faults.into_iter().map(|k| k.name()).collect()
    }

    const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/src/generated/wire.ts");

    fn decl<T: TS + ?Sized>(cfg: &Config, out: &mut String) {
        if let Some(docs) = T::docs() {
            out.push_str(&docs);
        }
        out.push_str("export ");
        out.push_str(&T::decl(cfg));
        out.push_str("\n\n");
    }

    /// A union of string literals, for names a data-carrying enum gives by a method.
    fn names(out: &mut String, doc: &str, name: &str, values: impl IntoIterator<Item = &'static str>) {
        let list: Vec<String> = values.into_iter().map(|v| format!("\"{v}\"")).collect();
        out.push_str(&format!("/**\n * {doc}\n */\nexport type {name} = {};\n\n", list.join(" | ")));
    }

    /// A constant list, as JSON (string literals only) typed `type`.
    fn constant(out: &mut String, doc: &str, name: &str, ty: &str, value: &str) {
        out.push_str(&format!("/**\n * {doc}\n */\nexport const {name}: {ty} = {value};\n\n"));
    }

    /// A list as a TS literal, one JSON value a line.
    fn rows<T: Serialize>(list: &[T]) -> String {
        let rows: Vec<String> = list.iter().map(|r| format!("  {},", serde_json::to_string(r).unwrap())).collect();
        format!("[\n{}\n]", rows.join("\n"))
    }

    /// A list of `[name, explanation]` pairs as a TS literal.
    fn pairs(list: impl IntoIterator<Item = (&'static str, &'static str)>) -> String {
        let rows: Vec<String> = list
            .into_iter()
            .map(|(n, e)| format!("  [{}, {}],", serde_json::to_string(n).unwrap(), serde_json::to_string(e).unwrap()))
            .collect();
        format!("[\n{}\n]", rows.join("\n"))
    }

    fn generated() -> String {
        let cfg = Config::new().with_large_int("number");
        let mut out = String::from(
            "// Generated from the Rust types by ts-rs (crate/wasm/src/wire.rs): do not edit.\n\
             // `UPDATE=1 cargo test --release --lib wire` rewrites it.\n\n",
        );
        let o = &mut out;
        // Trace events.
        decl::<EventJson>(&cfg, o);
        decl::<EventKind>(&cfg, o);
        decl::<FaultJson>(&cfg, o);
        names(o, "Fault and operator action kinds as the trace records them.", "FaultName", fault_names());
        names(o, "A voter's decision on a (pre-)vote request.", "VoteReason", {
            samples::decisions().iter().map(|d| d.name()).collect::<Vec<_>>()
        });
        decl::<kraft_sim::packed::PackedRest>(&cfg, o);
        decl::<kraft_sim::packed::Packing>(&cfg, o);
        constant(
            o,
            "The packed event types by code, each with its fields after `seq` and `t` (`packed::ROWS`).",
            "PACKED_ROWS",
            "readonly (readonly [TraceEvent[\"type\"], readonly (readonly [string, PackedField])[]])[]",
            &serde_json::to_string(kraft_sim::packed::ROWS).unwrap(),
        );
        // The timeline's lanes (`lanes`): how their numbers are laid out, and what they read as.
        decl::<lanes::Band>(&cfg, o);
        decl::<lanes::Mark>(&cfg, o);
        decl::<lanes::MarkKind>(&cfg, o);
        let fields = |o: &mut String, what: &str, name: &str, list: &[&str]| {
            constant(o, what, name, "readonly string[]", &serde_json::to_string(list).unwrap())
        };
        fields(
            o,
            "The lanes' numbers begin with these (`lanes::HEADER_FIELDS`); the spans, each lane's bands and steps, and the marks follow.",
            "LANES_HEADER",
            &lanes::HEADER_FIELDS,
        );
        fields(o, "A span's numbers, in order (`lanes::SPAN_FIELDS`).", "SPAN_FIELDS", &lanes::SPAN_FIELDS);
        fields(o, "A band's numbers, in order (`lanes::BAND_FIELDS`).", "BAND_FIELDS", &lanes::BAND_FIELDS);
        fields(
            o,
            "A step's numbers, in order (`lanes::STEP_FIELDS`; `value` NaN for none).",
            "STEP_FIELDS",
            &lanes::STEP_FIELDS,
        );
        let named = |o: &mut String, what: &str, name: &str, ty: &str, list: &[&str]| {
            constant(o, what, name, &format!("readonly {ty}[]"), &serde_json::to_string(list).unwrap())
        };
        named(
            o,
            "A span's `rpc`: the timeline legend's order, each request followed by its response (`lanes::RPC_ORDER`).",
            "SPAN_RPCS",
            "RpcKind",
            &lanes::RPC_ORDER.map(|k| k.name()),
        );
        named(
            o,
            "A span's `dropped` and `planned` (-1: none).",
            "SPAN_DROPS",
            "DropReason",
            &DropReason::ALL.map(|d| d.name()),
        );
        named(
            o,
            "A span's `outcome`: what its summary says that the timeline draws (`lanes::Outcome`).",
            "SPAN_OUTCOMES",
            "string",
            &lanes::Outcome::ALL.map(|d| d.name()),
        );
        named(
            o,
            "A band's `state` and `from` (`lanes::STATES`).",
            "BAND_STATES",
            "StateName",
            &lanes::STATES.map(|s| s.name()),
        );
        named(o, "A band's `reason` (-1: none).", "BAND_REASONS", "TransitionReason", &Reason::ALL.map(|r| r.name()));
        named(o, "A mark's `kind`.", "MARK_KINDS", "LaneMarkKind", &lanes::MarkKind::ALL.map(|k| k.name()));
        constant(
            o,
            "A span's `flags` (`lanes::DUPLICATE`, `lanes::FAILED`).",
            "SPAN_FLAGS",
            "{ readonly duplicate: number; readonly failed: number }",
            &format!("{{ duplicate: {}, failed: {} }}", lanes::DUPLICATE, lanes::FAILED),
        );
        decl::<RpcKind>(&cfg, o);
        decl::<DropReason>(&cfg, o);
        decl::<StateName>(&cfg, o);
        decl::<Reason>(&cfg, o);
        decl::<SnapshotAction>(&cfg, o);
        decl::<SnapshotId>(&cfg, o);
        decl::<Invariant>(&cfg, o);
        // Views.
        decl::<NodeOut>(&cfg, o);
        decl::<Role>(&cfg, o);
        decl::<TimerView>(&cfg, o);
        decl::<TimerKind>(&cfg, o);
        decl::<RecordView>(&cfg, o);
        decl::<kraft_sim::view::ImageView>(&cfg, o);
        decl::<kraft_sim::view::TopicView>(&cfg, o);
        decl::<RecordBody>(&cfg, o);
        decl::<kraft_protocol::voters::VoterSet>(&cfg, o);
        decl::<kraft_protocol::voters::VoterNode>(&cfg, o);
        decl::<kraft_protocol::voters::Endpoints>(&cfg, o);
        decl::<kraft_protocol::voters::Endpoint>(&cfg, o);
        decl::<kraft_protocol::voters::KRaftVersionRange>(&cfg, o);
        decl::<kraft_protocol::KRaftVersion>(&cfg, o);
        decl::<LeaderOut>(&cfg, o);
        decl::<QuorumView>(&cfg, o);
        decl::<QuorumStatus>(&cfg, o);
        decl::<ReplicationRow>(&cfg, o);
        decl::<ReplicaStatus>(&cfg, o);
        decl::<WriteOut>(&cfg, o);
        decl::<NetworkOut>(&cfg, o);
        decl::<BaselineOut>(&cfg, o);
        decl::<kraft_sim::network::LinkFaults>(&cfg, o);
        decl::<kraft_sim::network::SlowLinkFault>(&cfg, o);
        decl::<InFlightOut>(&cfg, o);
        // Runs: the spec and the input log.
        decl::<ClusterSpec>(&cfg, o);
        decl::<NetworkSpec>(&cfg, o);
        decl::<LinkProfileSpec>(&cfg, o);
        decl::<SafetySwitch>(&cfg, o);
        decl::<KafkaRelease>(&cfg, o);
        decl::<kraft_sim::QuorumKind>(&cfg, o);
        decl::<Action>(&cfg, o);
        decl::<TimedAction>(&cfg, o);
        decl::<ActionEntry>(&cfg, o);
        decl::<ActionFieldEntry>(&cfg, o);
        constant(
            o,
            "Every action as `crate/sim/src/spec.rs` declares it: its fields, whether the trace records it as a \
                `fault` event, and the actions it undoes (a test applies each pair and checks).",
            "ACTIONS",
            "readonly ActionEntry[]",
            &rows(&action_entries()),
        );
        constant(
            o,
            "The faults that undo another (`ACTIONS` entries with `undoes`): the timeline draws them as repairs.",
            "REPAIRS",
            "readonly FaultName[]",
            &serde_json::to_string(&repairs()).unwrap(),
        );
        // Scenario reports.
        decl::<Report>(&cfg, o);
        decl::<StepReport>(&cfg, o);
        decl::<Span>(&cfg, o);
        decl::<SpanStyle>(&cfg, o);
        decl::<ExpectationReport>(&cfg, o);
        decl::<ViolationReport>(&cfg, o);
        decl::<Measurement>(&cfg, o);
        decl::<MeasurementPart>(&cfg, o);
        decl::<kraft_sim::failover::LeaderChange>(&cfg, o);
        decl::<kraft_sim::failover::LeaderTerm>(&cfg, o);
        decl::<kraft_sim::failover::Cause>(&cfg, o);
        decl::<kraft_sim::failover::LostRound>(&cfg, o);
        decl::<kraft_scenario::Focus>(&cfg, o);
        decl::<kraft_scenario::FocusMessage>(&cfg, o);
        decl::<kraft_scenario::RecordName>(&cfg, o);
        // The catalog and chaos seeds.
        decl::<Catalog>(&cfg, o);
        decl::<kraft_sim::limits::Limit>(&cfg, o);
        decl::<kraft_sim::limits::Unit>(&cfg, o);
        decl::<Named<SafetySwitch>>(&cfg, o);
        decl::<Preset>(&cfg, o);
        decl::<SeedOut>(&cfg, o);
        decl::<ViolationOut>(&cfg, o);
        decl::<ApiError>(&cfg, o);
        decl::<ErrorKind>(&cfg, o);
        // The catalog itself: static, so the package carries it instead of asking the core
        // for it on every load (a first call into the wasm and a JSON round trip at init).
        constant(
            o,
            "Names and limits of the core (the wire test's `Catalog::new`), what `catalog()` returns.",
            "CATALOG",
            "Catalog",
            &serde_json::to_string_pretty(&Catalog::new()).unwrap(),
        );
        // Names and numbers the package uses without asking the catalog: the element's own
        // copy of this module keeps only these (the catalog stays with the API's).
        names(
            o,
            "A quorum config key (`protocol::config::CONFIG_KEYS`): Kafka's `controller.quorum.*` keys, \
                `sim.fetchMaxWaitMs` (a simulator-only knob for the Fetch wait Kafka fixes at 500 ms, \
                `KafkaRaftClient.MAX_FETCH_WAIT_MS`), and Kafka's snapshot and retention keys (`metadata.*`), \
                whose defaults are scaled down for a playground.",
            "QuorumConfigKey",
            CONFIG_KEYS.iter().map(|k| k.limit.key),
        );
        constant(
            o,
            "Every invariant the checker watches, with what it protects (`trace::Invariant`).",
            "INVARIANTS",
            "readonly (readonly [InvariantName, string])[]",
            &pairs(Invariant::ALL.iter().map(|i| (i.name(), i.explanation()))),
        );
        constant(
            o,
            "Every safety switch, with what turning it off does (`protocol::SafetySwitch`).",
            "SWITCHES",
            "readonly (readonly [SafetySwitch, string])[]",
            &pairs(SafetySwitch::ALL.iter().map(|s| (s.name(), s.explanation()))),
        );
        constant(
            o,
            "Every Kafka release a run may model, with what it changes (`protocol::KafkaRelease`); `legacy`, \
                the default, is the playground's model before releases, no Kafka release.",
            "RELEASES",
            "readonly (readonly [KafkaRelease, string])[]",
            &pairs(KafkaRelease::ALL.iter().map(|r| (r.name(), r.explanation()))),
        );
        constant(
            o,
            "Most characters of user input an error message repeats (`messages::MAX_ECHO_CHARS`).",
            "MAX_ECHO_CHARS",
            "number",
            &kraft_base::messages::MAX_ECHO_CHARS.to_string(),
        );
        out.truncate(out.trim_end().len());
        out.push('\n');
        out
    }

    const READERS_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/src/generated/packed-readers.ts");

    /// `web/src/generated/packed-readers.ts`: one reader per packed row type, from
    /// `packed::ROWS`, each building its event as one object literal (building objects by
    /// field name from the layout table at run time cost twice as much).
    fn packed_readers() -> String {
        use kraft_sim::packed::{Packing, ROWS};
        let mut out = String::from(
            "// Generated from `packed::ROWS` (crate/wasm/src/wire.rs): do not edit.\n\
             // `UPDATE=1 cargo test --release --lib wire` rewrites it.\n\n\
             import type { EventOf, PackedTraceEvent, PackedType } from '../types.js';\n\n\
             /** Reads the row whose fields start at `i` (after code, seq and t) into `out`; returns where the next row starts. */\n\
             export type Reader = (out: PackedTraceEvent[], r: Float64Array, i: number, names: string[]) => number;\n\
             /** A field's type (the core's enum names arrive as indexes into the result's `names`). */\n\
             type As<T extends PackedType, K extends keyof EventOf<T>> = EventOf<T>[K];\n\n\
             /** The reader of each packed type. */\n\
             export const READERS: Record<PackedType, Reader> = {\n",
        );
        for (ty, fields) in ROWS {
            let mut pre = String::new();
            let mut props = vec!["seq: r[i - 2]".to_string(), "t: r[i - 1]".to_string(), format!("type: '{ty}'")];
            let mut end = format!("i + {}", fields.len());
            for (k, (name, packing)) in fields.iter().enumerate() {
                let at = if k == 0 { "r[i]".to_string() } else { format!("r[i + {k}]") };
                let cast = format!("as As<'{ty}', '{name}'>");
                props.push(match packing {
                    Packing::Number => format!("{name}: {at}"),
                    Packing::MaybeNumber => format!("{name}: Number.isNaN({at}) ? null : {at}"),
                    Packing::Flag => format!("{name}: {at} === 1"),
                    Packing::Name => format!("{name}: n[{at}] {cast}"),
                    Packing::MaybeName => format!("{name}: {at} < 0 ? null : (n[{at}] {cast})"),
                    Packing::List => {
                        assert_eq!(k + 1, fields.len(), "{ty}: a list field comes last");
                        pre.push_str(&format!(
                            "    const count = {at};\n    // a loop, not Array.from(r.subarray(...)): no view object, no iterator\n    \
                             const {name}: number[] = new Array(count);\n    \
                             for (let k = 0; k < count; k++) {name}[k] = r[i + {} + k];\n",
                            k + 1
                        ));
                        end = format!("i + {} + count", k + 1);
                        name.to_string()
                    }
                });
            }
            let uses_names = fields.iter().any(|(_, p)| matches!(p, Packing::Name | Packing::MaybeName));
            out.push_str(&format!(
                "  {ty}: (out, r, i{}) => {{\n{pre}    out.push({{ {} }});\n    return {end};\n  }},\n",
                if uses_names { ", n" } else { "" },
                props.join(", ")
            ));
        }
        out.push_str("};\n");
        out
    }

    /// Fails with a diff when a generated file is stale; `UPDATE=1` rewrites it.
    fn current(path: &str, want: &str) {
        if let Err(e) = kraft_expect::file(std::path::Path::new(path), want) {
            panic!("{e}\nrun `UPDATE=1 cargo test --release --lib wire` and review the diff");
        }
    }

    #[test]
    fn generated_packed_readers_are_current() {
        current(READERS_PATH, &packed_readers());
    }

    #[test]
    fn generated_typescript_is_current() {
        current(PATH, &generated());
    }
}
