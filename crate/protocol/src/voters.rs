//! The voter set: who may be elected, whose fetches move the high watermark and keep a
//! leader's check-quorum alive, whom a leader announces itself to. Kafka's `VoterSet`
//! (org.apache.kafka.raft.VoterSet, 3.7+): data a replica holds and may replace while it
//! runs (KIP-853 reads it from the log's VotersRecords), never a flag fixed at start.

use super::record::NodeId;

/// Node ids in ascending order, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VoterSet {
    ids: Vec<NodeId>,
}

impl VoterSet {
    pub fn new(ids: impl IntoIterator<Item = NodeId>) -> VoterSet {
        let mut ids: Vec<NodeId> = ids.into_iter().collect();
        kraft_base::small_sort::by_key(&mut ids, |&v| v);
        ids.dedup();
        VoterSet { ids }
    }

    /// Kafka's VoterSet.isVoter.
    pub fn contains(&self, id: NodeId) -> bool {
        self.ids.binary_search(&id).is_ok()
    }

    pub fn ids(&self) -> &[NodeId] {
        &self.ids
    }

    pub fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.ids.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Voters that make a majority (Kafka's `voters.size() / 2 + 1`, as in
    /// EpochElection and LeaderState).
    pub fn majority(&self) -> usize {
        self.ids.len() / 2 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sorted_once_each_and_a_majority_is_more_than_half() {
        let v = VoterSet::new([4, 1, 3, 1]);
        assert_eq!(v.ids(), &[1, 3, 4]);
        assert!(v.contains(3) && !v.contains(2));
        assert_eq!(v.majority(), 2);
        assert_eq!(VoterSet::new([0]).majority(), 1);
        assert_eq!(VoterSet::new(0..4).majority(), 3);
        assert_eq!(VoterSet::new(0..5).majority(), 3);
    }
}
