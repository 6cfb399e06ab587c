//! The voter set: who may be elected, whose fetches move the high watermark and keep a
//! leader's check-quorum alive, whom a leader announces itself to. Kafka's `VoterSet`
//! (org.apache.kafka.raft.VoterSet) with its `VoterNode`s, and the `kraft.version`
//! feature that says whether the set may change (KRaftVersion). The set a replica uses is
//! the latest one its log holds (`voter_history`); the static `controller.quorum.voters`
//! only when the log holds none.

use super::ids::NodeId;
use super::replica_key::ReplicaKey;
use serde::Serialize;
use std::sync::Arc;

/// The `kraft.version` feature level (Kafka's KRaftVersion): 0 is a static voter set,
/// 1 (Kafka 3.9+) one kept in the log and changed by AddRaftVoter and RemoveRaftVoter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KRaftVersion(pub u8);

impl KRaftVersion {
    pub const V0: KRaftVersion = KRaftVersion(0);
    pub const V1: KRaftVersion = KRaftVersion(1);

    /// KRaftVersion.isReconfigSupported: voters can be added and removed from 1 on.
    pub fn is_reconfig_supported(self) -> bool {
        self.0 >= 1
    }
}

/// The `kraft.version` levels a node's software supports (VotersRecord's
/// KRaftVersionFeature, ApiVersions' supported feature range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KRaftVersionRange {
    #[serde(rename = "minSupportedVersion")]
    pub min: KRaftVersion,
    #[serde(rename = "maxSupportedVersion")]
    pub max: KRaftVersion,
}

impl KRaftVersionRange {
    /// What a static voter entry claims (VoterSet.fromInetSocketAddresses: 0 to 0).
    pub const STATIC: KRaftVersionRange = KRaftVersionRange { min: KRaftVersion::V0, max: KRaftVersion::V0 };
    /// What Kafka 3.9 and later support, and every simulated node runs.
    pub const SUPPORTED: KRaftVersionRange = KRaftVersionRange { min: KRaftVersion::V0, max: KRaftVersion::V1 };

    pub fn contains(self, v: KRaftVersion) -> bool {
        self.min <= v && v <= self.max
    }
}

/// The listener every simulated controller serves the quorum on, Kafka's conventional
/// `controller.listener.names` entry. The leader reaches a new voter through it
/// (AddVoterHandler sends ApiVersions to the request's endpoint for the leader's listener).
pub const CONTROLLER_LISTENER: &str = "CONTROLLER";

/// The port the simulated controllers listen on (Kafka's conventional 9093).
pub const CONTROLLER_PORT: u16 = 9093;

/// One listener's address (an entry of Kafka's Endpoints).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Endpoint {
    #[serde(rename = "name")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub listener: Arc<str>,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub host: Arc<str>,
    pub port: u16,
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}://{}:{}", self.listener, self.host, self.port)
    }
}

/// A node's listeners (Kafka's Endpoints).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Endpoints(pub Vec<Endpoint>);

impl Endpoints {
    /// Where simulated node `id` listens: `CONTROLLER://n{id}:9093`.
    pub fn of_node(id: NodeId) -> Endpoints {
        Endpoints(vec![Endpoint {
            listener: CONTROLLER_LISTENER.into(),
            host: format!("n{id}").into(),
            port: CONTROLLER_PORT,
        }])
    }

    /// The address for `listener` (Endpoints.address), if the node has one.
    pub fn address(&self, listener: &str) -> Option<&Endpoint> {
        self.0.iter().find(|e| &*e.listener == listener)
    }
}

/// One voter (Kafka's VoterSet.VoterNode): its key, its listeners and the kraft.version
/// levels its software supports.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VoterNode {
    #[serde(rename = "voterId")]
    pub id: NodeId,
    #[serde(rename = "voterDirectoryId", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string", optional))]
    pub directory: Option<super::replica_key::DirectoryId>,
    pub endpoints: Endpoints,
    #[serde(rename = "kRaftVersionFeature")]
    pub supported: KRaftVersionRange,
}

impl VoterNode {
    pub fn new(key: ReplicaKey, endpoints: Endpoints, supported: KRaftVersionRange) -> VoterNode {
        VoterNode { id: key.id, directory: key.directory, endpoints, supported }
    }

    pub fn key(&self) -> ReplicaKey {
        ReplicaKey::new(self.id, self.directory)
    }

    /// VoterNode.isVoter: `replica` is this voter (same id; same disk if the entry names one).
    pub fn is_voter(&self, replica: ReplicaKey) -> bool {
        self.key().matches(replica)
    }
}

/// The voters, ascending by node id, each id once (Kafka keys its map by id, so a new
/// directory id for a voter means RemoveVoter then AddVoter: VoterSet.addVoter refuses a
/// known id).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VoterSet(Vec<VoterNode>);

impl VoterSet {
    /// The voters of a static `controller.quorum.voters` (VoterSet.fromInetSocketAddresses):
    /// no directory ids, kraft.version 0 only.
    pub fn from_static(ids: impl IntoIterator<Item = NodeId>) -> VoterSet {
        VoterSet::from_nodes(
            ids.into_iter()
                .map(|id| VoterNode::new(ReplicaKey::new(id, None), Endpoints::of_node(id), KRaftVersionRange::STATIC)),
        )
    }

    /// A set of these voters; a node id given twice keeps its last entry.
    pub fn from_nodes(nodes: impl IntoIterator<Item = VoterNode>) -> VoterSet {
        let mut set = VoterSet::default();
        for n in nodes {
            match set.position(n.id) {
                Ok(i) => set.0[i] = n,
                Err(i) => set.0.insert(i, n),
            }
        }
        set
    }

    fn position(&self, id: NodeId) -> Result<usize, usize> {
        self.0.binary_search_by_key(&id, |n| n.id)
    }

    /// Whether `id` is a voter's node id, on whatever disk (Kafka's voterIds().contains).
    pub fn contains(&self, id: NodeId) -> bool {
        self.position(id).is_ok()
    }

    /// VoterSet.isVoter: `replica` is one of the voters, directory id included.
    pub fn is_voter(&self, replica: ReplicaKey) -> bool {
        self.node(replica.id).is_some_and(|n| n.is_voter(replica))
    }

    pub fn node(&self, id: NodeId) -> Option<&VoterNode> {
        self.position(id).ok().map(|i| &self.0[i])
    }

    pub fn nodes(&self) -> &[VoterNode] {
        &self.0
    }

    /// The voters' node ids, ascending.
    pub fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.0.iter().map(|n| n.id)
    }

    pub fn keys(&self) -> impl Iterator<Item = ReplicaKey> + '_ {
        self.0.iter().map(VoterNode::key)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Voters that make a majority (Kafka's `voters.size() / 2 + 1`, as in
    /// EpochElection and LeaderState).
    pub fn majority(&self) -> usize {
        self.0.len() / 2 + 1
    }

    /// VoterSet.addVoter: None when the node id is a voter already (on any disk).
    pub fn add_voter(&self, node: VoterNode) -> Option<VoterSet> {
        let i = self.position(node.id).err()?;
        let mut next = self.clone();
        next.0.insert(i, node);
        Some(next)
    }

    /// VoterSet.removeVoter: None unless `key` is exactly a voter's key (a key without a
    /// directory id removes only an entry without one) and another voter remains.
    pub fn remove_voter(&self, key: ReplicaKey) -> Option<VoterSet> {
        let i = self.position(key.id).ok()?;
        if self.0[i].key() != key || self.0.len() == 1 {
            return None;
        }
        let mut next = self.clone();
        next.0.remove(i);
        Some(next)
    }

    /// VoterSet.updateVoter: replaces the entry `node` is a voter of (None if there is none).
    pub fn update_voter(&self, node: VoterNode) -> Option<VoterSet> {
        let i = self.position(node.id).ok().filter(|&i| self.0[i].is_voter(node.key()))?;
        let mut next = self.clone();
        next.0[i] = node;
        Some(next)
    }

    /// VoterSet.updateVoterIgnoringDirectoryId (4.1+, for a kraft.version 0 leader's
    /// in-memory set): replaces the entry with `node`'s id, taking its directory id too.
    pub fn update_voter_ignoring_directory_id(&self, node: VoterNode) -> Option<VoterSet> {
        let i = self.position(node.id).ok()?;
        let mut next = self.clone();
        next.0[i] = node;
        Some(next)
    }

    /// VoterSet.voterNodeNeedsUpdate: `node` is a voter here but its entry says otherwise
    /// (other listeners or supported versions).
    pub fn voter_node_needs_update(&self, node: &VoterNode) -> bool {
        self.node(node.id).is_some_and(|n| n.is_voter(node.key()) && n != node)
    }

    /// VoterSet.hasOverlappingMajority: the sets differ by at most one key each way, so any
    /// majority of one overlaps any majority of the other (KIP-853's one change at a time).
    pub fn has_overlapping_majority(&self, other: &VoterSet) -> bool {
        let only_in = |a: &VoterSet, b: &VoterSet| a.keys().filter(|k| !b.keys().any(|o| o == *k)).count();
        only_in(self, other) <= 1 && only_in(other, self) <= 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replica_key::DirectoryId;

    fn node(id: NodeId, dir: u64) -> VoterNode {
        VoterNode::new(ReplicaKey::new(id, DirectoryId::new(dir)), Endpoints::of_node(id), KRaftVersionRange::SUPPORTED)
    }
    fn key(id: NodeId, dir: u64) -> ReplicaKey {
        ReplicaKey::new(id, DirectoryId::new(dir))
    }

    #[test]
    fn ids_are_sorted_once_each_and_a_majority_is_more_than_half() {
        let v = VoterSet::from_static([4, 1, 3, 1]);
        assert_eq!(v.iter().collect::<Vec<_>>(), vec![1, 3, 4]);
        assert!(v.contains(3) && !v.contains(2));
        assert_eq!(v.majority(), 2);
        assert_eq!(VoterSet::from_static([0]).majority(), 1);
        assert_eq!(VoterSet::from_static(0..4).majority(), 3);
        assert_eq!(VoterSet::from_static(0..5).majority(), 3);
    }

    /// VoterSetTest.testAddVoter: a new id joins; a known id is refused, whatever its disk.
    #[test]
    fn add_voter_refuses_a_known_id() {
        let v = VoterSet::from_nodes([node(1, 11), node(2, 12)]);
        assert_eq!(v.add_voter(node(2, 99)), None);
        let added = v.add_voter(node(3, 13)).unwrap();
        assert!(added.is_voter(key(3, 13)) && !added.is_voter(key(3, 14)));
    }

    /// VoterSetTest.testRemoveVoter: only the exact key, and never the last voter.
    #[test]
    fn remove_voter_needs_the_exact_key_and_leaves_one_voter() {
        let v = VoterSet::from_nodes([node(1, 11), node(2, 12)]);
        assert_eq!(v.remove_voter(key(2, 99)), None, "another disk of node 2 is not the voter");
        assert_eq!(v.remove_voter(key(2, 0)), None, "a key without a directory id is not the entry");
        let one = v.remove_voter(key(2, 12)).unwrap();
        assert_eq!(one.iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!(one.remove_voter(key(1, 11)), None, "the last voter stays");
    }

    /// VoterSetTest.testUpdateVoter and the static set: a voter's entry is updated by its
    /// own key; a static entry (no directory id) by any disk of its node.
    #[test]
    fn update_voter_replaces_the_entry_of_the_same_replica() {
        let v = VoterSet::from_nodes([node(1, 11), node(2, 12)]);
        let mut moved = node(2, 12);
        moved.endpoints = Endpoints(vec![]);
        assert!(v.voter_node_needs_update(&moved));
        assert!(!v.voter_node_needs_update(&node(2, 12)));
        assert_eq!(v.update_voter(moved.clone()).unwrap().node(2), Some(&moved));
        assert_eq!(v.update_voter(node(2, 13)), None);
        let s = VoterSet::from_static([1, 2]);
        assert!(s.is_voter(key(2, 13)) && s.voter_node_needs_update(&node(2, 13)));
        assert_eq!(s.update_voter_ignoring_directory_id(node(2, 13)).unwrap().node(2), Some(&node(2, 13)));
    }

    /// VoterSetTest.testOverlappingMajority: one key in, one key out at most.
    #[test]
    fn majorities_overlap_when_the_sets_differ_by_one_key() {
        let v = VoterSet::from_nodes([node(1, 11), node(2, 12), node(3, 13)]);
        assert!(v.has_overlapping_majority(&v.add_voter(node(4, 14)).unwrap()));
        assert!(v.has_overlapping_majority(&v.remove_voter(key(3, 13)).unwrap()));
        let replaced = VoterSet::from_nodes([node(1, 11), node(2, 12), node(3, 99)]);
        assert!(v.has_overlapping_majority(&replaced), "one out, one in");
        let two = VoterSet::from_nodes([node(1, 11), node(4, 14), node(5, 15)]);
        assert!(!v.has_overlapping_majority(&two));
    }
}
