//! Log records and the state machine they build: a tiny model of Kafka's metadata log
//! (brokers registering, topics created) that every node applies below its HW.

use super::voters::{Endpoint, KRaftVersion, VoterNode, VoterSet};
use kraft_base::limit::{limit, Limit};
use kraft_base::messages::cap;
use kraft_base::shared::{Charge, Holder, Meter, Metering, SharedMap};
use serde::Serialize;
use std::sync::Arc;

/// The most partitions one CreateTopic record may create.
pub const PARTITIONS: Limit =
    limit("partitions", None, 1, 10_000, None, "partitions of a topic a CreateTopic record creates");

pub use super::ids::{Epoch, NodeId, Offset};

/// What a record says. The first three are KRaft's control records: `LeaderChange` opens
/// every epoch; `KRaftVersion` and `Voters` (Kafka's KRaftVersionRecord and VotersRecord,
/// KIP-853) set the kraft.version and the voter set. The rest are metadata records a
/// controller would write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RecordBody {
    /// LeaderChangeMessage: the new leader, the voters it leads and those that elected it.
    LeaderChange {
        leader: NodeId,
        #[serde(flatten)]
        voters: Box<LeaderChangeVoters>,
    },
    KRaftVersion {
        #[serde(rename = "kRaftVersion")]
        version: KRaftVersion,
    },
    Voters {
        voters: VoterSet,
    },
    RegisterBroker {
        #[serde(rename = "brokerId")]
        broker_id: u32,
    },
    UnregisterBroker {
        #[serde(rename = "brokerId")]
        broker_id: u32,
    },
    CreateTopic {
        name: Arc<str>,
        partitions: u32,
    },
    DeleteTopic {
        name: Arc<str>,
    },
    PartitionChange {
        topic: Arc<str>,
        partition: u32,
        leader: u32,
    },
}

/// LeaderChangeMessage's two lists. Boxed in the record: inline they would make every
/// record of every log 24 bytes larger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LeaderChangeVoters {
    pub voters: Vec<NodeId>,
    #[serde(rename = "grantingVoters")]
    pub granting_voters: Vec<NodeId>,
}

impl RecordBody {
    pub fn leader_change(leader: NodeId, voters: Vec<NodeId>, granting_voters: Vec<NodeId>) -> RecordBody {
        RecordBody::LeaderChange { leader, voters: Box::new(LeaderChangeVoters { voters, granting_voters }) }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            RecordBody::LeaderChange { .. } => "LeaderChange",
            RecordBody::KRaftVersion { .. } => "KRaftVersion",
            RecordBody::Voters { .. } => "Voters",
            RecordBody::RegisterBroker { .. } => "RegisterBroker",
            RecordBody::UnregisterBroker { .. } => "UnregisterBroker",
            RecordBody::CreateTopic { .. } => "CreateTopic",
            RecordBody::DeleteTopic { .. } => "DeleteTopic",
            RecordBody::PartitionChange { .. } => "PartitionChange",
        }
    }

    /// Checks a user-supplied record; errors say what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let name_ok = |n: &str| {
            !n.is_empty()
                && n.len() <= 249
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
        };
        match self {
            RecordBody::LeaderChange { .. } => Err("LeaderChange is a control record only a new leader writes".into()),
            RecordBody::KRaftVersion { .. } | RecordBody::Voters { .. } => {
                Err(format!("{} is a control record only the leader writes", self.kind()))
            }
            RecordBody::CreateTopic { name, partitions } => {
                if !name_ok(name) {
                    return Err(format!(
                        "topic name '{}' is invalid: use 1-249 characters of [a-zA-Z0-9._-]",
                        cap(name)
                    ));
                }
                let limit = PARTITIONS;
                limit.check((*partitions).into()).map(|_| ()).map_err(|e| format!("{} {e}", limit.key))
            }
            RecordBody::DeleteTopic { name } | RecordBody::PartitionChange { topic: name, .. } => {
                if name_ok(name) {
                    Ok(())
                } else {
                    Err(format!("topic name '{}' is invalid: use 1-249 characters of [a-zA-Z0-9._-]", cap(name)))
                }
            }
            RecordBody::RegisterBroker { .. } | RecordBody::UnregisterBroker { .. } => Ok(()),
        }
    }
}

/// One entry of the replicated log. `id` is unique across a simulation, so two records
/// that look alike but were written separately are told apart by the checker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    pub offset: Offset,
    pub epoch: Epoch,
    pub id: u64,
    pub body: RecordBody,
}

/// Bytes of a record's framing in Kafka's v2 format (length, attributes, timestamp and
/// offset deltas, key and value lengths, header count: one varint each).
const RECORD_FRAMING_BYTES: u64 = 8;

impl Record {
    /// An estimate of the record's serialized size, which the byte limits of Fetch
    /// responses count (`controller.quorum.fetch.max.bytes`). The bodies are sized after
    /// the metadata records they stand for (ids 4 bytes, epochs 8, topic ids 16).
    #[inline]
    pub fn size_bytes(&self) -> u64 {
        let body = match &self.body {
            // LeaderChangeMessage: version, leader id, voters and granting voters arrays (a
            // voter's id in both: the granting voters are nearly always all of them).
            RecordBody::LeaderChange { voters, .. } => 12 + 8 * voters.voters.len() as u64,
            // KRaftVersionRecord: version and level.
            RecordBody::KRaftVersion { .. } => 4,
            // VotersRecord: per voter its id, directory id (a Uuid), endpoints and versions.
            RecordBody::Voters { voters } => {
                let endpoint = |e: &Endpoint| 8 + e.listener.len() as u64 + e.host.len() as u64;
                let voter = |n: &VoterNode| 24 + n.endpoints.0.iter().map(endpoint).sum::<u64>();
                4 + voters.nodes().iter().map(voter).sum::<u64>()
            }
            // RegisterBrokerRecord: id, incarnation id, epoch, one endpoint, a feature, log dir.
            RecordBody::RegisterBroker { .. } => 120,
            // UnregisterBrokerRecord: id and epoch.
            RecordBody::UnregisterBroker { .. } => 16,
            // TopicRecord (name, topic id) and one PartitionRecord per partition.
            RecordBody::CreateTopic { name, partitions } => 20 + name.len() as u64 + 48 * *partitions as u64,
            // RemoveTopicRecord: the topic id.
            RecordBody::DeleteTopic { .. } => 20,
            // PartitionChangeRecord: partition, topic id, leader.
            RecordBody::PartitionChange { .. } => 32,
        };
        RECORD_FRAMING_BYTES + body
    }
}

/// What the memory budget counts for a topic in an image, besides its partitions.
const TOPIC_BYTES: u64 = 64;
/// ... and for each of its partitions.
const PARTITION_BYTES: u64 = 4;

/// The metadata image a node builds by applying committed records in order. A clone
/// shares its topics (see `shared`): the snapshots, the checkpoints and the live image
/// hold one copy of each topic version between them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetadataImage {
    /// Offset of the next record to apply (everything below is in the image).
    pub applied_offset: Offset,
    pub brokers: Arc<Vec<u32>>,
    pub topics: SharedMap<TopicName, Arc<TopicImage>>,
    pub leader_changes: u32,
}

/// A topic's name as the image's key. It orders exactly as the name's bytes do, but
/// keeps the first eight of them as one big-endian word: the map's searches compare
/// names (`topic-17`) that nearly always differ in those, so a comparison is one integer
/// compare instead of a call to compare byte strings.
#[derive(Clone, Debug)]
pub struct TopicName {
    /// The name's first eight bytes, zero-padded: when two heads differ they order as the
    /// names do (a zero pad sorts first, as a shorter name does); when equal, the names decide.
    head: u64,
    name: Arc<str>,
}

impl TopicName {
    pub fn new(name: &Arc<str>) -> TopicName {
        let bytes = name.as_bytes();
        let head = (0..8).fold(0u64, |head, i| head << 8 | bytes.get(i).copied().unwrap_or(0) as u64);
        TopicName { head, name: name.clone() }
    }
    pub fn name(&self) -> &Arc<str> {
        &self.name
    }
}

impl std::ops::Deref for TopicName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.name
    }
}

impl Ord for TopicName {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if Arc::ptr_eq(&self.name, &other.name) {
            return std::cmp::Ordering::Equal; // the same name, shared (as the workload's are)
        }
        self.head.cmp(&other.head).then_with(|| self.name.cmp(&other.name))
    }
}
impl PartialOrd for TopicName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for TopicName {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for TopicName {}

#[derive(Clone, Debug)]
pub struct TopicImage {
    /// Partition leaders (broker id) by partition index.
    pub partition_leaders: Vec<u32>,
    _charge: Charge,
}

impl PartialEq for TopicImage {
    fn eq(&self, other: &Self) -> bool {
        self.partition_leaders == other.partition_leaders
    }
}
impl Eq for TopicImage {}

impl MetadataImage {
    /// An empty image whose topics are counted on `meter`.
    pub fn new(meter: &Meter) -> MetadataImage {
        // A map entry is a name pointer and a topic pointer.
        let topics = SharedMap::new(Metering::new(meter, Holder::Images, 24));
        MetadataImage { topics, ..Default::default() }
    }

    pub fn apply(&mut self, record: &Record) {
        debug_assert_eq!(record.offset, self.applied_offset);
        match &record.body {
            RecordBody::LeaderChange { .. } => self.leader_changes += 1,
            // The voter set lives in the raft layer's own history (voter_history), not in the
            // metadata image the controllers build.
            RecordBody::KRaftVersion { .. } | RecordBody::Voters { .. } => {}
            RecordBody::RegisterBroker { broker_id } => {
                if let Err(i) = self.brokers.binary_search(broker_id) {
                    Arc::make_mut(&mut self.brokers).insert(i, *broker_id);
                }
            }
            RecordBody::UnregisterBroker { broker_id } => {
                if let Ok(i) = self.brokers.binary_search(broker_id) {
                    Arc::make_mut(&mut self.brokers).remove(i);
                }
            }
            RecordBody::CreateTopic { name, partitions } => {
                let key = TopicName::new(name);
                if !self.topics.contains_key(&key) {
                    let partition_leaders: Vec<u32> = (0..*partitions)
                        .map(
                            |p| if self.brokers.is_empty() { 0 } else { self.brokers[p as usize % self.brokers.len()] },
                        )
                        .collect();
                    let bytes = TOPIC_BYTES + name.len() as u64 + *partitions as u64 * PARTITION_BYTES;
                    let charge = Charge::new(&self.topics.metering().meter, Holder::Images, bytes);
                    self.topics.insert(key, Arc::new(TopicImage { partition_leaders, _charge: charge }));
                }
            }
            RecordBody::DeleteTopic { name } => {
                self.topics.remove(&TopicName::new(name));
            }
            RecordBody::PartitionChange { topic, partition, leader } => {
                let changes =
                    |t: &Arc<TopicImage>| t.partition_leaders.get(*partition as usize).is_some_and(|l| l != leader);
                if let Some(t) = self.topics.get_mut_if(&TopicName::new(topic), changes) {
                    Arc::make_mut(t).partition_leaders[*partition as usize] = *leader;
                }
            }
        }
        self.applied_offset = record.offset + 1;
    }

    /// A rough size in bytes, used for snapshot transfer chunks.
    pub fn size_bytes(&self) -> u64 {
        64 + self.brokers.len() as u64 * 16
            + self.topics.iter().map(|(n, t)| 32 + n.len() as u64 + t.partition_leaders.len() as u64 * 8).sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_order_as_their_bytes() {
        let names = ["", "a", "a\0", "a\0b", "ab", "topic-1", "topic-10", "topic-100", "topic-1000", "topic-10000x"];
        let names: Vec<Arc<str>> =
            names.iter().chain(["topic-9", "topic-99999", "b", "Z"].iter()).map(|&n| n.into()).collect();
        for a in &names {
            for b in &names {
                assert_eq!(TopicName::new(a).cmp(&TopicName::new(b)), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }
}
