//! Log records and the state machine they build: a tiny model of Kafka's metadata log
//! (brokers registering, topics created) that every node applies below its HW.

use crate::messages::cap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

pub type NodeId = u32;
pub type Epoch = u32;
pub type Offset = u64;

/// What a record says. `LeaderChange` is KRaft's control record written at the start
/// of every epoch; the rest are metadata records a controller would write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum RecordBody {
    LeaderChange {
        leader: NodeId,
        voters: Vec<NodeId>,
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

impl RecordBody {
    pub fn kind(&self) -> &'static str {
        match self {
            RecordBody::LeaderChange { .. } => "LeaderChange",
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
            RecordBody::CreateTopic { name, partitions } => {
                if !name_ok(name) {
                    return Err(format!(
                        "topic name '{}' is invalid: use 1-249 characters of [a-zA-Z0-9._-]",
                        cap(name)
                    ));
                }
                if *partitions == 0 || *partitions > 10_000 {
                    return Err(format!("partitions must be between 1 and 10000, got {partitions}"));
                }
                Ok(())
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub offset: Offset,
    pub epoch: Epoch,
    pub id: u64,
    pub body: RecordBody,
}

/// The metadata image a node builds by applying committed records in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataImage {
    /// Offset of the next record to apply (everything below is in the image).
    #[serde(rename = "appliedOffset")]
    pub applied_offset: Offset,
    pub brokers: Vec<u32>,
    pub topics: BTreeMap<Arc<str>, TopicImage>,
    #[serde(rename = "leaderChanges")]
    pub leader_changes: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicImage {
    /// Partition leaders (broker id) by partition index.
    #[serde(rename = "partitionLeaders")]
    pub partition_leaders: Vec<u32>,
}

impl MetadataImage {
    pub fn apply(&mut self, record: &Record) {
        debug_assert_eq!(record.offset, self.applied_offset);
        match &record.body {
            RecordBody::LeaderChange { .. } => self.leader_changes += 1,
            RecordBody::RegisterBroker { broker_id } => {
                if let Err(i) = self.brokers.binary_search(broker_id) {
                    self.brokers.insert(i, *broker_id);
                }
            }
            RecordBody::UnregisterBroker { broker_id } => {
                if let Ok(i) = self.brokers.binary_search(broker_id) {
                    self.brokers.remove(i);
                }
            }
            RecordBody::CreateTopic { name, partitions } => {
                let leaders = (0..*partitions)
                    .map(|p| if self.brokers.is_empty() { 0 } else { self.brokers[p as usize % self.brokers.len()] })
                    .collect();
                self.topics.entry(name.clone()).or_insert(TopicImage { partition_leaders: leaders });
            }
            RecordBody::DeleteTopic { name } => {
                self.topics.remove(name);
            }
            RecordBody::PartitionChange { topic, partition, leader } => {
                if let Some(t) = self.topics.get_mut(topic) {
                    if let Some(slot) = t.partition_leaders.get_mut(*partition as usize) {
                        *slot = *leader;
                    }
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
