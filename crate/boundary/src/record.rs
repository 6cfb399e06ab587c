//! What clients write and the state machine it builds: a tiny model of Kafka's metadata
//! (brokers registering, topics created) that every node applies below its high
//! watermark, whatever protocol replicates it. The client workload writes these records
//! into any protocol's log, so runs of two protocols replicate the same data. A
//! protocol's own records (KRaft's control records) are its own; the image counts the
//! ones that open a leader's term and skips the rest.

use kraft_base::limit::{limit, Limit};
use kraft_base::messages::cap;
use kraft_base::shared::{Charge, Holder, Meter, Metering, SharedMap};
use serde::Serialize;
use std::sync::Arc;

pub type NodeId = u32;
pub type Epoch = u32;
pub type Offset = u64;

/// The most partitions one CreateTopic record may create.
pub const PARTITIONS: Limit =
    limit("partitions", None, 1, 10_000, None, "partitions of a topic a CreateTopic record creates");

/// What the memory budget counts for one record held in a log or carried by a message
/// (the record and a share of the names it points to).
pub const RECORD_BYTES: u64 = 80;

/// A record a client writes: the metadata records a controller would write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ClientRecord {
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

impl ClientRecord {
    pub fn kind(&self) -> &'static str {
        match self {
            ClientRecord::RegisterBroker { .. } => "RegisterBroker",
            ClientRecord::UnregisterBroker { .. } => "UnregisterBroker",
            ClientRecord::CreateTopic { .. } => "CreateTopic",
            ClientRecord::DeleteTopic { .. } => "DeleteTopic",
            ClientRecord::PartitionChange { .. } => "PartitionChange",
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
            ClientRecord::CreateTopic { name, partitions } => {
                if !name_ok(name) {
                    return Err(format!(
                        "topic name '{}' is invalid: use 1-249 characters of [a-zA-Z0-9._-]",
                        cap(name)
                    ));
                }
                let limit = PARTITIONS;
                limit.check((*partitions).into()).map(|_| ()).map_err(|e| format!("{} {e}", limit.key))
            }
            ClientRecord::DeleteTopic { name } | ClientRecord::PartitionChange { topic: name, .. } => {
                if name_ok(name) {
                    Ok(())
                } else {
                    Err(format!("topic name '{}' is invalid: use 1-249 characters of [a-zA-Z0-9._-]", cap(name)))
                }
            }
            ClientRecord::RegisterBroker { .. } | ClientRecord::UnregisterBroker { .. } => Ok(()),
        }
    }

    /// An estimate of its serialized body, after the metadata record it stands for (ids
    /// 4 bytes, epochs 8, topic ids 16): what Fetch responses' byte limits count.
    #[inline]
    pub fn size_bytes(&self) -> u64 {
        match self {
            // RegisterBrokerRecord: id, incarnation id, epoch, one endpoint, a feature, log dir.
            ClientRecord::RegisterBroker { .. } => 120,
            // UnregisterBrokerRecord: id and epoch.
            ClientRecord::UnregisterBroker { .. } => 16,
            // TopicRecord (name, topic id) and one PartitionRecord per partition.
            ClientRecord::CreateTopic { name, partitions } => 20 + name.len() as u64 + 48 * *partitions as u64,
            // RemoveTopicRecord: the topic id.
            ClientRecord::DeleteTopic { .. } => 20,
            // PartitionChangeRecord: partition, topic id, leader.
            ClientRecord::PartitionChange { .. } => 32,
        }
    }
}

/// What applying a record at an offset does to the image.
#[derive(Clone, Copy, Debug)]
pub enum Applied<'a> {
    /// A client's record: the image changes.
    Client(&'a ClientRecord),
    /// The record a new leader writes first (KRaft's LeaderChange; Raft's no-op entry):
    /// counted in `leader_changes`.
    LeaderChange,
    /// Any other record of the protocol's own (KRaft's voter set lives in its own
    /// history, not in the image): only the applied offset moves.
    Control,
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
        let mut first = [0u8; 8];
        let n = bytes.len().min(8);
        first[..n].copy_from_slice(&bytes[..n]);
        TopicName { head: u64::from_be_bytes(first), name: name.clone() }
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
        match self.head.cmp(&other.head) {
            // The same name, shared (as the workload's are), needs no byte compare.
            std::cmp::Ordering::Equal if !Arc::ptr_eq(&self.name, &other.name) => self.name.cmp(&other.name),
            by_head => by_head,
        }
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

    /// Applies the record at `offset`, the next one (`applied_offset`).
    pub fn apply(&mut self, offset: Offset, record: Applied<'_>) {
        debug_assert_eq!(offset, self.applied_offset);
        match record {
            Applied::LeaderChange => self.leader_changes += 1,
            Applied::Control => {}
            Applied::Client(ClientRecord::RegisterBroker { broker_id }) => {
                if let Err(i) = self.brokers.binary_search(broker_id) {
                    Arc::make_mut(&mut self.brokers).insert(i, *broker_id);
                }
            }
            Applied::Client(ClientRecord::UnregisterBroker { broker_id }) => {
                if let Ok(i) = self.brokers.binary_search(broker_id) {
                    Arc::make_mut(&mut self.brokers).remove(i);
                }
            }
            Applied::Client(ClientRecord::CreateTopic { name, partitions }) => {
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
            Applied::Client(ClientRecord::DeleteTopic { name }) => {
                self.topics.remove(&TopicName::new(name));
            }
            Applied::Client(ClientRecord::PartitionChange { topic, partition, leader }) => {
                let changes =
                    |t: &Arc<TopicImage>| t.partition_leaders.get(*partition as usize).is_some_and(|l| l != leader);
                if let Some(t) = self.topics.get_mut_if(&TopicName::new(topic), changes) {
                    Arc::make_mut(t).partition_leaders[*partition as usize] = *leader;
                }
            }
        }
        self.applied_offset = offset + 1;
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
