//! What a run is made of: the cluster spec and the timed user actions. Together with the
//! seed they describe a run completely (links and scenarios store exactly these).

use super::network::LinkProfile;
use crate::limits::{self, DUPLICATE, FLUSH_MS, LOSS, OBSERVERS, SNAPSHOT_INTERVAL, VOTERS, WRITES_PER_SECOND};
use kraft_protocol::{NodeId, QuorumConfig, RecordBody, SafetySwitch, Unsafe};
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

/// A spec checked and turned into what the world needs.
#[derive(Clone, Debug)]
pub struct ResolvedSpec {
    pub voters: u32,
    pub observers: u32,
    pub seed: u64,
    pub network: LinkProfile,
    pub quorum: QuorumConfig,
    pub switches: Unsafe,
    pub flush_ms: u64,
    pub snapshot_interval: u64,
    pub writes_per_second: u32,
    pub stable_leadership: bool,
}

impl ClusterSpec {
    /// Checks every field; the error names the field (`voters`, `config.<key>`, ...).
    pub fn resolve(&self) -> Result<ResolvedSpec, (String, String)> {
        VOTERS.check_field(self.voters.into())?;
        OBSERVERS.check_field(self.observers.into())?;
        let network = self
            .network
            .profile()
            .map_err(|(f, e)| (if f.is_empty() { "network".to_string() } else { format!("network.{f}") }, e))?;
        let mut quorum = QuorumConfig::default();
        for (k, v) in &self.config {
            quorum.set(k, *v).map_err(|e| (format!("config.{k}"), e))?;
        }
        let switches = self.unsafe_switches.iter().fold(Unsafe::default(), |u, s| u.with(*s));
        FLUSH_MS.check_field(self.flush_ms)?;
        WRITES_PER_SECOND.check_field(self.writes_per_second.into())?;
        SNAPSHOT_INTERVAL.check_field(self.snapshot_interval)?;
        Ok(ResolvedSpec {
            voters: self.voters,
            observers: self.observers,
            seed: self.seed,
            network,
            quorum,
            switches,
            flush_ms: self.flush_ms,
            snapshot_interval: self.snapshot_interval,
            writes_per_second: self.writes_per_second,
            stable_leadership: self.stable_leadership,
        })
    }
}

impl ResolvedSpec {
    pub fn node_count(&self) -> u32 {
        self.voters + self.observers
    }
}

/// Something a user (or a scenario, or the chaos generator) does to the cluster. Generic
/// in how it names nodes: the sim takes ids (`Action`), a scenario step names them by
/// reference (`Action<NodeRef, Group>`) and resolves them when the step runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Action<N = NodeId, G = Vec<N>> {
    Crash {
        node: N,
    },
    /// Crash and lose the whole disk (quorum-state and log), as Kafka's
    /// canRecoverFromSingleNodeCommittedDataLoss does. The node stays down until restarted.
    Wipe {
        node: N,
    },
    Restart {
        node: N,
    },
    Isolate {
        node: N,
    },
    /// Undoes `isolate`: the node's links are as they were before it (its partition
    /// group and cuts still apply).
    Reconnect {
        node: N,
    },
    Partition {
        groups: Vec<G>,
    },
    Cut {
        from: N,
        to: N,
    },
    /// Restores one one-way link that `cut` took down.
    Uncut {
        from: N,
        to: N,
    },
    /// Gives one one-way link its own latency range (`heal` restores the default).
    #[serde(rename_all = "camelCase")]
    SlowLink {
        from: N,
        to: N,
        latency_ms: [u64; 2],
    },
    /// Undoes `slowLink`: the link is back at the network's latency.
    ClearSlowLink {
        from: N,
        to: N,
    },
    /// Undoes the partition only (isolations, cuts and slow links stay).
    HealPartition,
    Heal,
    #[serde(rename_all = "camelCase")]
    Network {
        latency_ms: [u64; 2],
        #[serde(default)]
        loss: f64,
        #[serde(default)]
        duplicate: f64,
    },
    #[serde(rename_all = "camelCase")]
    SlowDisk {
        node: N,
        flush_ms: u64,
    },
    /// Graceful resignation of the current leader (EndQuorumEpoch).
    Resign,
    #[serde(rename_all = "camelCase")]
    Workload {
        writes_per_second: u32,
    },
    Write {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<RecordBody>,
    },
}

impl<N, G> Action<N, G> {
    /// The same action with its nodes named another way (`node` maps each node, `groups`
    /// a partition's groups as a whole); the first error stops it.
    pub fn try_map<M, H, E>(
        &self,
        mut node: impl FnMut(&N) -> Result<M, E>,
        groups: impl FnOnce(&[G]) -> Result<Vec<H>, E>,
    ) -> Result<Action<M, H>, E> {
        Ok(match self {
            Action::Crash { node: n } => Action::Crash { node: node(n)? },
            Action::Wipe { node: n } => Action::Wipe { node: node(n)? },
            Action::Restart { node: n } => Action::Restart { node: node(n)? },
            Action::Isolate { node: n } => Action::Isolate { node: node(n)? },
            Action::Reconnect { node: n } => Action::Reconnect { node: node(n)? },
            Action::Partition { groups: g } => Action::Partition { groups: groups(g)? },
            Action::Cut { from, to } => Action::Cut { from: node(from)?, to: node(to)? },
            Action::Uncut { from, to } => Action::Uncut { from: node(from)?, to: node(to)? },
            Action::SlowLink { from, to, latency_ms } => {
                Action::SlowLink { from: node(from)?, to: node(to)?, latency_ms: *latency_ms }
            }
            Action::ClearSlowLink { from, to } => Action::ClearSlowLink { from: node(from)?, to: node(to)? },
            Action::HealPartition => Action::HealPartition,
            Action::Heal => Action::Heal,
            Action::Network { latency_ms, loss, duplicate } => {
                Action::Network { latency_ms: *latency_ms, loss: *loss, duplicate: *duplicate }
            }
            Action::SlowDisk { node: n, flush_ms } => Action::SlowDisk { node: node(n)?, flush_ms: *flush_ms },
            Action::Resign => Action::Resign,
            Action::Workload { writes_per_second } => Action::Workload { writes_per_second: *writes_per_second },
            Action::Write { record } => Action::Write { record: record.clone() },
        })
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
    /// Checks node ids and values against the cluster; the error names the field.
    pub fn validate(&self, nodes: u32) -> Result<(), (String, String)> {
        let node_ok = |field: &str, n: NodeId| -> Result<(), (String, String)> {
            if n >= nodes {
                return Err((field.into(), format!("node {n} does not exist; nodes are 0..{}", nodes - 1)));
            }
            Ok(())
        };
        match self {
            Action::Crash { node }
            | Action::Restart { node }
            | Action::Isolate { node }
            | Action::Reconnect { node }
            | Action::Wipe { node }
            | Action::SlowDisk { node, .. } => node_ok("node", *node)?,
            Action::Partition { groups } => {
                let mut seen = Vec::new();
                for (i, g) in groups.iter().enumerate() {
                    if g.is_empty() {
                        return Err((format!("groups[{i}]"), "a group must name at least one node".into()));
                    }
                    for (j, n) in g.iter().enumerate() {
                        node_ok(&format!("groups[{i}][{j}]"), *n)?;
                        if seen.contains(n) {
                            return Err((
                                format!("groups[{i}][{j}]"),
                                format!("node {n} is named twice; each node may be in one group"),
                            ));
                        }
                        seen.push(*n);
                    }
                }
            }
            Action::SlowLink { from, to, .. }
            | Action::Cut { from, to }
            | Action::Uncut { from, to }
            | Action::ClearSlowLink { from, to } => {
                node_ok("from", *from)?;
                node_ok("to", *to)?;
            }
            Action::Heal
            | Action::HealPartition
            | Action::Network { .. }
            | Action::Resign
            | Action::Workload { .. }
            | Action::Write { .. } => {}
        }
        self.check_values()
    }
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
