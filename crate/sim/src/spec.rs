//! What a run is made of: the cluster spec and the timed user actions. Together with the
//! seed they describe a run completely (links and scenarios store exactly these).

use super::network::LinkProfile;
use crate::limits::{self, DUPLICATE, FLUSH_MS, LOSS, OBSERVERS, SNAPSHOT_INTERVAL, VOTERS, WRITES_PER_SECOND};
use crate::vocab;
use kraft_boundary::{Protocol, ProtocolSpec};
use kraft_protocol::{KRaft, NodeId, RecordBody, SafetySwitch};
use serde::Serialize;
use std::collections::BTreeMap;

/// The cluster: voters are nodes 0..voters, observers follow them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClusterSpec {
    pub voters: u32,
    #[serde(default)]
    pub observers: u32,
    #[serde(default)]
    pub seed: u64,
    /// Preset name or explicit profile.
    #[serde(default = "default_network")]
    pub network: NetworkSpec,
    /// Kafka config keys (`controller.quorum.*`) to values in ms.
    #[serde(default)]
    pub config: BTreeMap<String, u64>,
    /// Safety switches turned off (unsafe mode), by name.
    #[serde(default, rename = "unsafe")]
    pub unsafe_switches: Vec<SafetySwitch>,
    /// Disk flush latency of every node, ms.
    #[serde(default = "default_flush_ms")]
    pub flush_ms: u64,
    /// Each node snapshots its state machine every this many applied records (0: never).
    #[serde(default = "default_snapshot_interval")]
    pub snapshot_interval: u64,
    /// Client writes per second from the start (0: none).
    #[serde(default)]
    pub writes_per_second: u32,
    /// Also check StableLeadership (for scenarios about pre-vote).
    #[serde(default)]
    pub stable_leadership: bool,
    /// The release of the protocol whose behaviour the run models where releases differ,
    /// by name; the protocol reads it (`ProtocolSpec::release`). KRaft's are Kafka releases
    /// (`kraft_protocol::KafkaRelease`: `3.9`, `4.0`, `4.1`, `4.2`, or `legacy`); absent:
    /// the protocol's default (KRaft's `legacy`, the model every run had before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub kafka_release: Option<String>,
    /// How the controllers' disks were formatted: a static quorum
    /// (`controller.quorum.voters`) or a dynamic one (KIP-853, Kafka 3.9+). Absent:
    /// static, what every run before dynamic quorums had, so old links replay as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub quorum: Option<QuorumKind>,
}

/// How a quorum is bootstrapped (Kafka's `kafka-storage.sh format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum QuorumKind {
    /// Every node is configured with `controller.quorum.voters` naming nodes 0..voters;
    /// the set is fixed at kraft.version 0 (a 4.1+ leader can upgrade it to 1).
    #[default]
    Static,
    /// Nodes 0..voters are formatted with `--initial-controllers` naming them and their
    /// directory ids (kraft.version 1); the others with `--no-initial-controllers`, observers
    /// until the admin client adds them (`addVoter`). Needs a Kafka release, 3.9 or later.
    Dynamic,
}

impl QuorumKind {
    pub const ALL: [QuorumKind; 2] = [QuorumKind::Static, QuorumKind::Dynamic];
    pub fn name(self) -> &'static str {
        match self {
            QuorumKind::Static => "static",
            QuorumKind::Dynamic => "dynamic",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum NetworkSpec {
    Preset(String),
    Profile(LinkProfileSpec),
}

/// The JSON form of a link profile: latency range in ms and rates in [0, 1].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LinkProfileSpec {
    pub latency_ms: [u64; 2],
    #[serde(default)]
    pub loss: f64,
    #[serde(default)]
    pub duplicate: f64,
}

pub(crate) fn default_network() -> NetworkSpec {
    NetworkSpec::Preset("datacenter".into())
}
pub(crate) fn default_flush_ms() -> u64 {
    FLUSH_MS.default.unwrap_or(0)
}
pub(crate) fn default_snapshot_interval() -> u64 {
    SNAPSHOT_INTERVAL.default.unwrap_or(0)
}

impl Default for ClusterSpec {
    fn default() -> Self {
        ClusterSpec {
            voters: VOTERS.default.unwrap_or(1) as u32,
            observers: OBSERVERS.default.unwrap_or(0) as u32,
            seed: 0,
            network: default_network(),
            config: BTreeMap::new(),
            unsafe_switches: Vec::new(),
            flush_ms: default_flush_ms(),
            snapshot_interval: default_snapshot_interval(),
            writes_per_second: WRITES_PER_SECOND.default.unwrap_or(0) as u32,
            stable_leadership: false,
            kafka_release: None,
            quorum: None,
        }
    }
}

impl NetworkSpec {
    /// The profile it names or gives; an error names the field below `network` at fault
    /// (empty: the preset name).
    pub fn profile(&self) -> Result<LinkProfile, (&'static str, String)> {
        match self {
            NetworkSpec::Preset(name) => LinkProfile::preset(name).map_err(|e| ("", e)),
            NetworkSpec::Profile(p) => {
                let profile = LinkProfile {
                    latency_min_ms: p.latency_ms[0],
                    latency_max_ms: p.latency_ms[1],
                    loss_ppm: limits::rate_ppm(&LOSS, p.loss).map_err(|e| ("", e))?,
                    duplicate_ppm: limits::rate_ppm(&DUPLICATE, p.duplicate).map_err(|e| ("", e))?,
                };
                profile.validate()?;
                Ok(profile)
            }
        }
    }
}

/// A spec checked and turned into what the world needs: its own settings, and the
/// config of protocol `P` (KRaft, the playground's, unless named).
#[derive(Clone, Debug)]
pub struct ResolvedSpec<P: Protocol = KRaft> {
    pub voters: u32,
    pub observers: u32,
    pub seed: u64,
    pub network: LinkProfile,
    pub protocol: P::Config,
    pub flush_ms: u64,
    pub writes_per_second: u32,
    pub stable_leadership: bool,
    pub quorum: QuorumKind,
}

impl ClusterSpec {
    /// Checks every field and reads protocol `P`'s config from it; the error names the
    /// field (`voters`, `config.<key>`, ...).
    pub fn resolve<P: Protocol>(&self) -> Result<ResolvedSpec<P>, (String, String)> {
        VOTERS.check_field(self.voters.into())?;
        OBSERVERS.check_field(self.observers.into())?;
        let network = self
            .network
            .profile()
            .map_err(|(f, e)| (if f.is_empty() { "network".to_string() } else { format!("network.{f}") }, e))?;
        let unsafe_switches: Vec<&'static str> = self.unsafe_switches.iter().map(|s| s.name()).collect();
        let quorum = self.quorum.unwrap_or_default();
        let protocol = P::configure(&ProtocolSpec {
            config: &self.config,
            unsafe_switches: &unsafe_switches,
            snapshot_interval: self.snapshot_interval,
            release: self.kafka_release.as_deref(),
            dynamic_quorum: quorum == QuorumKind::Dynamic,
        })?;
        FLUSH_MS.check_field(self.flush_ms)?;
        WRITES_PER_SECOND.check_field(self.writes_per_second.into())?;
        SNAPSHOT_INTERVAL.check_field(self.snapshot_interval)?;
        Ok(ResolvedSpec {
            voters: self.voters,
            observers: self.observers,
            seed: self.seed,
            network,
            protocol,
            flush_ms: self.flush_ms,
            writes_per_second: self.writes_per_second,
            stable_leadership: self.stable_leadership,
            quorum,
        })
    }
}

impl<P: Protocol> ResolvedSpec<P> {
    pub fn node_count(&self) -> u32 {
        self.voters + self.observers
    }
}

// Every action, declared once (`vocab::actions!` expands it): its JSON key and fields
// (`how(key, type) ~ sample`), its rust doc, the node it is about, what it undoes, its
// place in the trace digest with its texts there (faults only), the scenario schema's
// doc line and a scenario step's description of it.
crate::actions! {
    context cx;
    Crash = "crash" { node: N = node("node", Node) ~ 1 }
        subject: (node), undoes: [], fault: (),
        doc: "Crash the node: it loses what it had not flushed; its disk (log, quorum-state) stays.",
        step: format!("crash {}", cx.role(*node));
    /// Crash and lose the whole disk (quorum-state and log), as Kafka's
    /// canRecoverFromSingleNodeCommittedDataLoss does. The node stays down until restarted.
    Wipe = "wipe" { node: N = node("node", Node) ~ 2 }
        subject: (node), undoes: [],
        fault: (10, text: format!("wipe n{node} (disk lost)"), explain: format!(
            "n{node}'s disk was wiped: log and quorum-state are gone, so it rejoins with nothing, which Raft's safety \
             does not cover"
        )),
        doc: "Crash the node and lose its whole disk.",
        step: format!("crash {} and wipe its disk", cx.role(*node));
    Restart = "restart" { node: N = node("node", Node) ~ 1 }
        subject: (node), undoes: [Crash], fault: (),
        doc: "Restart a crashed node from its disk.",
        step: format!("restart n{node}");
    Isolate = "isolate" { node: N = node("node", Node) ~ 1 }
        subject: (node), undoes: [],
        fault: (0, text: format!("isolate n{node}"), explain: format!("n{node} was cut off from every other node")),
        doc: "Cut the node off from every other node (both directions).",
        step: format!("isolate {}", cx.role(*node));
    /// Undoes `isolate`: the node's links are as they were before it (its partition
    /// group and cuts still apply).
    Reconnect = "reconnect" { node: N = node("node", Node) ~ 1 }
        subject: (node), undoes: [Isolate],
        fault: (11, text: format!("reconnect n{node}"),
            explain: format!("n{node}'s links were restored (only its own: other cuts and groups stay)")),
        doc: "Undo isolate: the node's links are as before it (its partition group and cuts still apply).",
        step: format!("reconnect n{node}");
    Partition = "partition" { groups: Vec<G> = groups("groups", Groups) ~ vec![vec![0, 1], vec![2]] }
        subject: (), undoes: [],
        fault: (1,
            text: format!("partition {}", groups.iter().map(|g| format!("[{}]", vocab::node_list(g, ","))).collect::<Vec<_>>().join(" ")),
            explain: format!(
                "the network was split into {}: messages cross no group boundary",
                groups.iter().map(|g| format!("[{}]", vocab::node_list(g, ", "))).collect::<Vec<_>>().join(" and ")
            )),
        doc: "Split the nodes into groups that only talk within themselves.",
        step: format!("partition {}", groups.iter().map(|g| format!("[{}]", vocab::node_list(g, ","))).collect::<Vec<_>>().join(" "));
    Cut = "cut" { from: N = node("from", Node) ~ 0, to: N = node("to", Node) ~ 1 }
        subject: (), undoes: [],
        fault: (2, text: format!("cut n{from} -> n{to}"), explain: format!("the link from n{from} to n{to} was cut one way")),
        doc: "Drop every message from one node to another (one way).",
        step: format!("cut n{from} -> n{to}");
    /// Restores one one-way link that `cut` took down.
    Uncut = "uncut" { from: N = node("from", Node) ~ 0, to: N = node("to", Node) ~ 1 }
        subject: (), undoes: [Cut],
        fault: (3, text: format!("uncut n{from} -> n{to}"), explain: format!("the link from n{from} to n{to} was restored")),
        doc: "Restore one link a cut took down (one way).",
        step: format!("restore the link n{from} -> n{to}");
    /// Gives one one-way link its own latency range (`heal` restores the default).
    SlowLink = "slowLink" {
        from: N = node("from", Node) ~ 0,
        to: N = node("to", Node) ~ 2,
        latency_ms: [u64; 2] = req("latencyMs", Latency) ~ [5, 9],
    }
        subject: (), undoes: [],
        fault: (4, text: format!("link n{from} -> n{to} latency={}..{}ms", latency_ms[0], latency_ms[1]),
            explain: format!("the link from n{from} to n{to} now takes {}..{} ms", latency_ms[0], latency_ms[1])),
        doc: "Give one link (one way) its own latency range [min, max] ms; heal restores the default.",
        step: format!("slow the link n{from} -> n{to} to {}-{} ms", latency_ms[0], latency_ms[1]);
    /// Undoes `slowLink`: the link is back at the network's latency.
    ClearSlowLink = "clearSlowLink" { from: N = node("from", Node) ~ 0, to: N = node("to", Node) ~ 2 }
        subject: (), undoes: [SlowLink],
        fault: (13, text: format!("link n{from} -> n{to} latency=network"),
            explain: format!("the link from n{from} to n{to} takes the network's latency again")),
        doc: "Undo slowLink: the link (one way) is back at the network's latency.",
        step: format!("the link n{from} -> n{to} back at the network's latency");
    /// Undoes the partition only (isolations, cuts and slow links stay).
    HealPartition = "healPartition"
        subject: (), undoes: [Partition],
        fault: (12, text: "heal partition".to_string(),
            explain: "the partition was healed: every node is in one group again (cuts, isolations and slow links \
                      stay)".to_string()),
        doc: "Undo the partition only (isolations, cuts and slow links stay).",
        step: "heal the partition".to_string();
    Heal = "heal"
        subject: (), undoes: [Isolate, Partition, Cut, SlowLink],
        fault: (5, text: "heal".to_string(), explain: "every link was restored".to_string()),
        doc: "Undo isolations, partitions, cuts and slow links: every link up again, at the network's latency.",
        step: "heal the network".to_string();
    Network = "network" {
        latency_ms: [u64; 2] = req("latencyMs", Latency) ~ [1, 5],
        loss: f64 = opt("loss", Rate, 0.0) ~ 0.0125,
        duplicate: f64 = opt("duplicate", Rate, 0.0) ~ 0.0,
    }
        subject: (), undoes: [],
        fault: (6,
            text: format!(
                "network latency={}..{}ms loss={} duplicate={}",
                latency_ms[0], latency_ms[1], vocab::percent(vocab::ppm(*loss)), vocab::percent(vocab::ppm(*duplicate))
            ),
            explain: format!(
                "the network now takes {}..{} ms, loses {} and duplicates {} of messages",
                latency_ms[0], latency_ms[1], vocab::percent(vocab::ppm(*loss)), vocab::percent(vocab::ppm(*duplicate))
            )),
        doc: "Change every link's latency range, loss and duplication rates.",
        step: format!(
            "network latency {}..{} ms, loss {}%, duplicate {}%",
            latency_ms[0], latency_ms[1], loss * 100.0, duplicate * 100.0
        );
    SlowDisk = "slowDisk" {
        node: N = node("node", Node) ~ 2,
        flush_ms: u64 = req("flushMs", FlushMs) ~ 40,
    }
        subject: (node), undoes: [],
        fault: (7, text: format!("disk n{node} flush={flush_ms}ms"), explain: format!(
            "n{node}'s disk now takes {flush_ms} ms per flush, and a flush blocks its raft thread \
             (KafkaRaftClient.poll runs on one thread)"
        )),
        doc: "Set how long the node's flushes take (its raft thread is blocked meanwhile).",
        step: format!("disk of n{node}: flush takes {flush_ms} ms");
    /// Graceful resignation of the current leader (EndQuorumEpoch).
    Resign = "resign"
        subject: (leader), undoes: [],
        fault: (9, text: format!("resign n{}", vocab::node_or_dash(cx.leader)), explain: format!(
            "n{} was asked to resign leadership gracefully (KafkaRaftClient.resign, EndQuorumEpoch)",
            vocab::node_or_dash(cx.leader)
        )),
        doc: "The current leader resigns gracefully (EndQuorumEpoch).",
        step: match cx.leader {
            Some((l, e)) => format!("leader n{l} resigns epoch {e}"),
            None => "resign (no leader)".into(),
        };
    /// The admin client's `kafka-metadata-quorum.sh add-controller` for the node, sent to
    /// the leader at this time: AddRaftVoter with the node's replica key (its id and the
    /// directory id on its disk), answered once the new voter set commits or the leader
    /// refuses (an `admin` event). Dynamic quorums only.
    AddVoter = "addVoter" { node: N = node("node", Node) ~ 2 }
        subject: (node), undoes: [],
        fault: (14, text: format!("add-controller n{node}"), explain: format!(
            "the admin client asked the leader to add n{node} to the voters \
             (kafka-metadata-quorum.sh add-controller: AddRaftVoter, KIP-853)"
        )),
        doc: "Ask the leader to add the node to the voters (kafka-metadata-quorum.sh add-controller).",
        step: format!("add-controller n{node}");
    /// The admin client's `remove-controller` for the node, with the directory id the
    /// leader's voter set names for it (what `describe --status` shows), sent to the
    /// leader at this time: RemoveRaftVoter, answered once the smaller set commits or the
    /// leader refuses (an `admin` event). Dynamic quorums only.
    RemoveVoter = "removeVoter" { node: N = node("node", Node) ~ 1 }
        subject: (node), undoes: [],
        fault: (15, text: format!("remove-controller n{node}"), explain: format!(
            "the admin client asked the leader to remove n{node} from the voters \
             (kafka-metadata-quorum.sh remove-controller: RemoveRaftVoter, KIP-853)"
        )),
        doc: "Ask the leader to remove the node from the voters (kafka-metadata-quorum.sh remove-controller).",
        step: format!("remove-controller n{node}");
    /// A new machine's controller (KIP-853, a dynamic quorum): its disk formatted with
    /// `kafka-storage.sh format --no-initial-controllers` (StorageTool, Kafka 3.9+: a new
    /// directory id, no bootstrap checkpoint, so no voter set of its own), then started as
    /// the node after the others. It finds the leader through the bootstrap servers and
    /// fetches as an observer until `addVoter` adds it.
    AddController = "addController"
        subject: (), undoes: [],
        fault: (16, text: format!("new controller n{} (format --no-initial-controllers)", vocab::node_or_dash(cx.added)),
            explain: format!(
                "a new controller, n{}, started on a disk formatted with kafka-storage.sh format \
                 --no-initial-controllers (KIP-853): a new directory id and no voter set, so it fetches from the \
                 leader as an observer until add-controller makes it a voter",
                vocab::node_or_dash(cx.added)
            )),
        doc: "Start a new controller formatted with --no-initial-controllers (a dynamic quorum's next node): an observer until addVoter.",
        step: "start a new controller (format --no-initial-controllers)".to_string();
    Workload = "workload" { writes_per_second: u32 = req("writesPerSecond", WritesPerSecond) ~ 10 }
        subject: (), undoes: [],
        fault: (8, text: format!("workload {writes_per_second} writes/s"),
            explain: format!("clients now write {writes_per_second} records per second to the leader")),
        doc: "Set the client write rate (random metadata records).",
        step: format!("workload {writes_per_second} writes/s");
    Write = "write" {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<RecordBody> = opt("record", Record, None) ~ None,
    }
        subject: (), undoes: [], fault: (),
        doc: "One client write to the current leader (a given record or a random one).",
        step: describe_write(record.as_ref(), cx.outcome.as_ref());
}

/// A scenario step's description of a write and what it came to.
fn describe_write(record: Option<&RecordBody>, outcome: Option<&crate::WriteOutcome>) -> String {
    let kind = record.map(|r| r.kind()).unwrap_or("a random record");
    match outcome {
        Some(crate::WriteOutcome::Accepted { node, offset }) => {
            format!("write {kind}: accepted by n{node} at offset {offset}")
        }
        Some(crate::WriteOutcome::Rejected { reason }) => format!("write {kind}: rejected ({reason})"),
        None => format!("write {kind}"),
    }
}

impl<N: PartialEq, G> Action<N, G> {
    /// Checks what does not depend on the cluster (ranges, records, a link's two ends
    /// differ); the error names the field.
    pub fn check_values(&self) -> Result<(), (String, String)> {
        match self {
            Action::SlowLink { from, to, latency_ms } => {
                if from == to {
                    return Err(("to".into(), "a link joins two different nodes".into()));
                }
                validate_latency(*latency_ms)
            }
            Action::Cut { from, to } | Action::Uncut { from, to } | Action::ClearSlowLink { from, to }
                if from == to =>
            {
                Err(("to".into(), "a cut needs two different nodes".into()))
            }
            Action::Network { latency_ms, loss, duplicate } => {
                limits::rate_ppm(&LOSS, *loss).map_err(|e| (LOSS.key.to_string(), e))?;
                limits::rate_ppm(&DUPLICATE, *duplicate).map_err(|e| (DUPLICATE.key.to_string(), e))?;
                validate_latency(*latency_ms)
            }
            Action::SlowDisk { flush_ms, .. } => FLUSH_MS.check_field(*flush_ms).map(|_| ()),
            Action::Workload { writes_per_second } => {
                WRITES_PER_SECOND.check_field((*writes_per_second).into()).map(|_| ())
            }
            Action::Write { record: Some(r) } => r.validate().map_err(|e| ("record".to_string(), e)),
            _ => Ok(()),
        }
    }
}

impl Action {
    /// Checks node ids and values against a cluster of `nodes` nodes bootstrapped as
    /// `quorum`; the error names the field.
    pub fn validate(&self, nodes: u32, quorum: QuorumKind) -> Result<(), (String, String)> {
        if let Action::AddController = self {
            check_add_controller(nodes, quorum)?;
        }
        self.check_nodes(nodes)?;
        self.check_values()
    }

    /// The nodes a cluster of `nodes` has after it (`addController` starts one).
    pub fn nodes_after(&self, nodes: u32) -> u32 {
        nodes + u32::from(matches!(self, Action::AddController))
    }
}

/// Whether a cluster of `nodes` nodes bootstrapped as `quorum` may start another
/// controller: only a dynamic quorum's are formatted without a voter set
/// (`--no-initial-controllers`), and the cluster stays within [`limits::NODES`].
fn check_add_controller(nodes: u32, quorum: QuorumKind) -> Result<(), (String, String)> {
    if quorum != QuorumKind::Dynamic {
        return Err((
            "quorum".into(),
            format!(
                "addController needs a dynamic quorum (quorum \"dynamic\"); this cluster's quorum is \"{}\": its \
                 controllers are fixed by controller.quorum.voters",
                quorum.name()
            ),
        ));
    }
    let after = u64::from(nodes) + 1;
    limits::NODES
        .check(after)
        .map_err(|m| (limits::NODES.key.to_string(), format!("addController would make {after} nodes: {m}")))?;
    Ok(())
}

/// Checks a node id against a cluster of `nodes` nodes; the error names `field`.
pub fn check_node(field: &str, n: NodeId, nodes: u32) -> Result<(), (String, String)> {
    if n >= nodes {
        return Err((field.into(), format!("node {n} does not exist; nodes are 0..{}", nodes - 1)));
    }
    Ok(())
}

/// Checks a partition's groups: each names a node, and no node twice.
pub fn check_groups(groups: &[Vec<NodeId>], nodes: u32) -> Result<(), (String, String)> {
    let mut seen = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        if g.is_empty() {
            return Err((format!("groups[{i}]"), "a group must name at least one node".into()));
        }
        for (j, n) in g.iter().enumerate() {
            check_node(&format!("groups[{i}][{j}]"), *n, nodes)?;
            if seen.contains(n) {
                return Err((
                    format!("groups[{i}][{j}]"),
                    format!("node {n} is named twice; each node may be in one group"),
                ));
            }
            seen.push(*n);
        }
    }
    Ok(())
}

/// Checks an action's `latencyMs` range (`limits::LATENCY_MS`).
pub fn validate_latency(latency_ms: [u64; 2]) -> Result<(), (String, String)> {
    let p = LinkProfile { latency_min_ms: latency_ms[0], latency_max_ms: latency_ms[1], loss_ppm: 0, duplicate_ppm: 0 };
    p.validate().map_err(|(f, e)| (f.to_string(), e))
}

/// An action at a simulated time.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TimedAction {
    pub t: u64,
    #[serde(flatten)]
    pub action: Action,
}
