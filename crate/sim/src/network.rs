//! The network: per-link latency, loss, duplication, partitions and one-way cuts.
//! Links are FIFO like TCP: a message never overtakes an earlier one on the same link.

use crate::limits::{DUPLICATE, LATENCY_MS, LOSS};
use kraft_base::messages::cap;
use kraft_base::rng::Rng;
use kraft_protocol::NodeId;
use serde::Serialize;
use std::collections::BTreeMap;

/// Latency range and fault rates. Rates are parts per million (integers keep native and
/// wasm runs identical).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkProfile {
    pub latency_min_ms: u64,
    pub latency_max_ms: u64,
    pub loss_ppm: u32,
    pub duplicate_ppm: u32,
}

impl LinkProfile {
    /// Named presets; both keep Kafka's timeouts.
    pub fn preset(name: &str) -> Result<LinkProfile, String> {
        match name {
            "datacenter" => Ok(LinkProfile { latency_min_ms: 1, latency_max_ms: 5, loss_ppm: 0, duplicate_ppm: 0 }),
            "teaching" => Ok(LinkProfile { latency_min_ms: 60, latency_max_ms: 140, loss_ppm: 0, duplicate_ppm: 0 }),
            "wan" => Ok(LinkProfile { latency_min_ms: 20, latency_max_ms: 80, loss_ppm: 0, duplicate_ppm: 0 }),
            _ => Err(format!("unknown network preset '{}'; known presets: datacenter, teaching, wan", cap(name))),
        }
    }

    /// Checks the ranges (`limits`); an error names the field at fault, the end of the
    /// latency range included (`latencyMs[0]` is the least, `latencyMs[1]` the most).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.latency_min_ms < LATENCY_MS.min {
            return Err((
                "latencyMs[0]",
                format!(
                    "latency must be at least {} ms (at zero latency replicas can answer each other \
                     forever within one millisecond), got {} ms",
                    LATENCY_MS.min, self.latency_min_ms
                ),
            ));
        }
        if self.latency_max_ms > LATENCY_MS.upper() {
            return Err((
                "latencyMs[1]",
                format!("latency must be at most {} ms, got {}", LATENCY_MS.upper(), self.latency_max_ms),
            ));
        }
        if self.latency_min_ms > self.latency_max_ms {
            return Err((
                "latencyMs",
                format!("latency min {} ms is above max {} ms", self.latency_min_ms, self.latency_max_ms),
            ));
        }
        for (limit, ppm) in [(LOSS, self.loss_ppm), (DUPLICATE, self.duplicate_ppm)] {
            if !limit.accepts(ppm.into()) {
                return Err((
                    limit.key,
                    format!("must be a number between 0 and 1, got {}", kraft_base::messages::number(ppm as f64 / 1e6)),
                ));
            }
        }
        Ok(())
    }
}

/// The link faults in force, each as it was made (what `Network::link_faults` returns).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LinkFaults {
    /// The partition's groups (every node in one of them), or empty when not partitioned.
    pub groups: Vec<Vec<NodeId>>,
    /// Isolated nodes, ascending (cut off from every other node until reconnected).
    pub isolated: Vec<NodeId>,
    /// One-way cuts `[from, to]`, oldest first.
    pub cuts: Vec<(NodeId, NodeId)>,
    pub slow_links: Vec<SlowLinkFault>,
}

/// One one-way link with its own latency range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SlowLinkFault {
    pub from: NodeId,
    pub to: NodeId,
    pub latency_ms: [u64; 2],
}

/// Where one sent message ends up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub arrives: u64,
    pub lost: bool,
}

#[derive(Clone, Debug)]
pub struct Network {
    pub profile: LinkProfile,
    /// Partition group of each node; nodes talk only within their group.
    groups: Vec<u32>,
    /// The group of the nodes the partition did not name (0 when not partitioned): a
    /// node added later joins it.
    unnamed_group: u32,
    /// Isolated nodes, ascending: cut off from every other node whatever their group, until
    /// reconnected (a Vec, like `cuts`: a handful of nodes, and less wasm than a set).
    isolated: Vec<NodeId>,
    /// One-way cuts (from, to).
    cuts: Vec<(NodeId, NodeId)>,
    /// One-way links with their own latency range (min, max) ms.
    slow_links: BTreeMap<(NodeId, NodeId), (u64, u64)>,
    /// Latest arrival scheduled per link, to keep links FIFO: `from * nodes + to`.
    last_arrival: Vec<u64>,
    /// Whether each link is up (`from * nodes + to`), from the groups, isolations and cuts:
    /// asked for every message sent and delivered, recomputed when a fault changes.
    up: Vec<bool>,
    rng: Rng,
}

impl Network {
    pub fn new(nodes: usize, profile: LinkProfile, rng: Rng) -> Network {
        Network {
            profile,
            groups: vec![0; nodes],
            unnamed_group: 0,
            isolated: Vec::new(),
            cuts: Vec::new(),
            slow_links: BTreeMap::new(),
            last_arrival: vec![0; nodes * nodes],
            up: vec![true; nodes * nodes],
            rng,
        }
    }

    #[inline]
    pub fn link_up(&self, from: NodeId, to: NodeId) -> bool {
        self.up[from as usize * self.groups.len() + to as usize]
    }

    fn refresh_links(&mut self) {
        let n = self.groups.len();
        for (i, up) in self.up.iter_mut().enumerate() {
            let (from, to) = ((i / n) as NodeId, (i % n) as NodeId);
            *up = self.groups[from as usize] == self.groups[to as usize]
                && !self.isolated.contains(&from)
                && !self.isolated.contains(&to)
                && !self.cuts.contains(&(from, to));
        }
    }

    pub fn is_healed(&self) -> bool {
        self.cuts.is_empty() && self.slow_links.is_empty() && self.isolated.is_empty() && !self.is_partitioned()
    }

    fn is_partitioned(&self) -> bool {
        self.groups.iter().any(|g| *g != self.groups[0])
    }

    /// Each link fault on its own, so each can be undone on its own.
    pub fn link_faults(&self) -> LinkFaults {
        // groups in the order of their first node
        let mut groups: Vec<(u32, Vec<NodeId>)> = Vec::new();
        if self.is_partitioned() {
            for (n, g) in self.groups.iter().enumerate() {
                match groups.iter_mut().find(|(id, _)| id == g) {
                    Some((_, members)) => members.push(n as NodeId),
                    None => groups.push((*g, vec![n as NodeId])),
                }
            }
        }
        LinkFaults {
            groups: groups.into_iter().map(|(_, members)| members).collect(),
            isolated: self.isolated.clone(),
            cuts: self.cuts.clone(),
            slow_links: self
                .slow_links
                .iter()
                .map(|(&(from, to), &(min, max))| SlowLinkFault { from, to, latency_ms: [min, max] })
                .collect(),
        }
    }

    /// Links that are down, for the UI: (from, to) pairs.
    pub fn down_links(&self) -> Vec<(NodeId, NodeId)> {
        let n = self.groups.len() as NodeId;
        let mut out = Vec::new();
        for a in 0..n {
            for b in 0..n {
                if a != b && !self.link_up(a, b) {
                    out.push((a, b));
                }
            }
        }
        out
    }

    /// One more node, the last id (`addController`): its links up as the others' are,
    /// with the nodes the partition in force did not name, its links' FIFO order kept.
    pub fn add_node(&mut self) {
        let n = self.groups.len();
        let mut last_arrival = vec![0; (n + 1) * (n + 1)];
        for from in 0..n {
            last_arrival[from * (n + 1)..][..n].copy_from_slice(&self.last_arrival[from * n..][..n]);
        }
        self.last_arrival = last_arrival;
        self.groups.push(self.unnamed_group);
        self.up = vec![true; (n + 1) * (n + 1)];
        self.refresh_links();
    }

    pub fn isolate(&mut self, node: NodeId) {
        if let Err(at) = self.isolated.binary_search(&node) {
            self.isolated.insert(at, node);
        }
        self.refresh_links();
    }

    /// Undoes `isolate`: the node's links are as they were before (its partition group
    /// and its cuts still apply).
    pub fn reconnect(&mut self, node: NodeId) {
        self.isolated.retain(|n| *n != node);
        self.refresh_links();
    }

    /// Nodes in the same listed group talk; unlisted nodes form one more group. A new
    /// partition replaces the old one and every isolation.
    pub fn partition(&mut self, groups: &[Vec<NodeId>]) {
        self.isolated.clear();
        let unlisted = groups.len() as u32 + 1;
        for g in self.groups.iter_mut() {
            *g = unlisted;
        }
        self.unnamed_group = unlisted;
        for (i, group) in groups.iter().enumerate() {
            for n in group {
                self.groups[*n as usize] = i as u32 + 1;
            }
        }
        self.refresh_links();
    }

    pub fn cut(&mut self, from: NodeId, to: NodeId) {
        if !self.cuts.contains(&(from, to)) {
            self.cuts.push((from, to));
        }
        self.refresh_links();
    }

    pub fn uncut(&mut self, from: NodeId, to: NodeId) {
        self.cuts.retain(|c| *c != (from, to));
        self.refresh_links();
    }

    pub fn slow_link(&mut self, from: NodeId, to: NodeId, min_ms: u64, max_ms: u64) {
        self.slow_links.insert((from, to), (min_ms, max_ms));
    }

    /// Undoes `slow_link`: the link is back at the network's latency.
    pub fn clear_slow_link(&mut self, from: NodeId, to: NodeId) {
        self.slow_links.remove(&(from, to));
    }

    /// Undoes the partition only: isolations, cuts and slow links stay.
    pub fn heal_partition(&mut self) {
        self.groups.iter_mut().for_each(|g| *g = 0);
        self.unnamed_group = 0;
        self.refresh_links();
    }

    /// Every link up again, at the default latency.
    pub fn heal(&mut self) {
        self.groups.iter_mut().for_each(|g| *g = 0);
        self.unnamed_group = 0;
        self.isolated.clear();
        self.cuts.clear();
        self.slow_links.clear();
        self.refresh_links();
    }

    /// Decides a message's fate: arrival time (FIFO per link) and whether it is lost;
    /// a second plan when the network duplicates it.
    pub fn plan(&mut self, now: u64, from: NodeId, to: NodeId) -> (Plan, Option<Plan>) {
        let p = self.profile;
        let lost = self.rng.chance(p.loss_ppm);
        let first = self.arrival(now, from, to);
        let dup = if self.rng.chance(p.duplicate_ppm) {
            Some(Plan { arrives: self.arrival(now, from, to), lost: false })
        } else {
            None
        };
        (Plan { arrives: first, lost }, dup)
    }

    fn latency_range(&self, from: NodeId, to: NodeId) -> (u64, u64) {
        self.slow_links.get(&(from, to)).copied().unwrap_or((self.profile.latency_min_ms, self.profile.latency_max_ms))
    }

    /// How long a connection reset (a TCP RST or FIN, no payload) takes from `from` to
    /// `to`: the link's least latency, so it draws nothing from the random stream.
    pub fn reset_latency(&self, from: NodeId, to: NodeId) -> u64 {
        self.latency_range(from, to).0
    }

    #[inline]
    fn arrival(&mut self, now: u64, from: NodeId, to: NodeId) -> u64 {
        let (lo, hi) = self.latency_range(from, to);
        let latency = self.rng.range(lo, hi);
        let last = &mut self.last_arrival[from as usize * self.groups.len() + to as usize];
        let t = (now + latency).max(*last);
        *last = t;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_names_the_end_of_the_latency_range_at_fault() {
        let p = |lo, hi| LinkProfile { latency_min_ms: lo, latency_max_ms: hi, loss_ppm: 0, duplicate_ppm: 0 };
        assert_eq!(
            p(0, 5).validate().unwrap_err(),
            (
                "latencyMs[0]",
                "latency must be at least 1 ms (at zero latency replicas can answer each other forever within \
                 one millisecond), got 0 ms"
                    .to_string()
            )
        );
        assert_eq!(
            p(5, 60_001).validate().unwrap_err(),
            ("latencyMs[1]", "latency must be at most 60000 ms, got 60001".to_string())
        );
        assert_eq!(p(9, 5).validate().unwrap_err(), ("latencyMs", "latency min 9 ms is above max 5 ms".to_string()));
        let lossy = LinkProfile { loss_ppm: 1_000_001, ..p(1, 5) };
        assert_eq!(
            lossy.validate().unwrap_err(),
            ("loss", "must be a number between 0 and 1, got 1.000001".to_string())
        );
        assert_eq!(p(1, 5).validate(), Ok(()));
    }

    #[test]
    fn partitions_and_cuts() {
        let mut n = Network::new(5, LinkProfile::preset("datacenter").unwrap(), Rng::new(1));
        n.partition(&[vec![0, 1], vec![2, 3]]);
        assert!(n.link_up(0, 1) && n.link_up(2, 3));
        assert!(!n.link_up(1, 2) && !n.link_up(4, 0));
        n.heal();
        n.cut(0, 1);
        assert!(!n.link_up(0, 1) && n.link_up(1, 0), "a cut is one-way");
        n.cut(0, 2);
        n.uncut(0, 1);
        assert!(n.link_up(0, 1) && !n.link_up(0, 2), "uncut restores one link only");
        n.heal();
        n.isolate(3);
        assert!(!n.link_up(3, 0) && !n.link_up(0, 3) && n.link_up(0, 1));
    }

    /// A fault, or its undoing, between nodes `a` and `b` of six.
    #[cfg(not(target_arch = "wasm32"))]
    #[derive(Debug, Clone)]
    enum Fault {
        Isolate(NodeId),
        Reconnect(NodeId),
        Cut(NodeId, NodeId),
        Uncut(NodeId, NodeId),
        HealPartition,
        Heal,
        SlowLink(NodeId, NodeId),
        Partition(Vec<Vec<NodeId>>),
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod properties {
        use super::*;
        use proptest::prelude::{prop, prop_assert_eq, prop_oneof, proptest, Just, ProptestConfig, Strategy};
        use proptest::test_runner::{RngAlgorithm, RngSeed};

        const NODES: u32 = 6;

        fn fault() -> impl Strategy<Value = Fault> {
            let n = || 0..NODES;
            // A group: each node in it with probability 1/3.
            let group = proptest::collection::vec(prop::bool::weighted(1.0 / 3.0), NODES as usize)
                .prop_map(|inside| (0..NODES).filter(|&x| inside[x as usize]).collect::<Vec<_>>());
            prop_oneof![
                9 => n().prop_map(Fault::Isolate),
                9 => n().prop_map(Fault::Reconnect),
                9 => (n(), n()).prop_map(|(a, b)| Fault::Cut(a, b)),
                9 => (n(), n()).prop_map(|(a, b)| Fault::Uncut(a, b)),
                9 => Just(Fault::HealPartition),
                3 => Just(Fault::Heal),
                9 => (n(), n()).prop_map(|(a, b)| Fault::SlowLink(a, b)),
                15 => proptest::collection::vec(group, 0..3).prop_map(Fault::Partition),
            ]
        }

        proptest! {
            // A fixed seed and algorithm (every run tries the same cases), no persistence
            // file; a failure prints the faults shrunk to a minimal list.
            #![proptest_config(ProptestConfig {
                cases: 20,
                failure_persistence: None,
                rng_algorithm: RngAlgorithm::ChaCha,
                rng_seed: RngSeed::Fixed(9),
                ..ProptestConfig::default()
            })]
            /// Through random faults and their undoing, the kept link table answers what the
            /// faults in force (as `link_faults` reports them) say: a link is up when both ends
            /// are in one partition group, neither is isolated and it is not cut.
            #[test]
            fn kept_links_match_the_faults_in_force(faults in proptest::collection::vec(fault(), 1..200)) {
                let mut n = Network::new(NODES as usize, LinkProfile::preset("datacenter").unwrap(), Rng::new(1));
                for fault in &faults {
                    match fault {
                        Fault::Isolate(a) => n.isolate(*a),
                        Fault::Reconnect(a) => n.reconnect(*a),
                        Fault::Cut(a, b) => n.cut(*a, *b),
                        Fault::Uncut(a, b) => n.uncut(*a, *b),
                        Fault::HealPartition => n.heal_partition(),
                        Fault::Heal => n.heal(),
                        Fault::SlowLink(a, b) => n.slow_link(*a, *b, 10, 20),
                        Fault::Partition(groups) => n.partition(groups),
                    }
                    let f = n.link_faults();
                    let group = |x: NodeId| f.groups.iter().position(|g| g.contains(&x));
                    for from in 0..NODES as NodeId {
                        for to in 0..NODES as NodeId {
                            let up = group(from) == group(to)
                                && !f.isolated.contains(&from)
                                && !f.isolated.contains(&to)
                                && !f.cuts.contains(&(from, to));
                            prop_assert_eq!(n.link_up(from, to), up, "{} -> {} with {:?}", from, to, f);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn links_are_fifo() {
        let mut n = Network::new(
            2,
            LinkProfile { latency_min_ms: 1, latency_max_ms: 100, loss_ppm: 0, duplicate_ppm: 0 },
            Rng::new(3),
        );
        let mut last = 0;
        for t in 0..200 {
            let (p, _) = n.plan(t, 0, 1);
            assert!(p.arrives >= last);
            last = p.arrives;
        }
    }
}
