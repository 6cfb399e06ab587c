//! Read-only views of the world for the UI, the API and the CLI: each node as a panel
//! shows it, the log records, and the `kafka-metadata-quorum describe` output.

use super::world::World;
pub use kraft_boundary::TimerKind;
use kraft_boundary::{
    DurableState, Epoch, LogEntry, LogView, Named, NodeId, Offset, Protocol, ReplicaCore, SnapshotId,
};
use kraft_protocol::RecordBody;
#[cfg(feature = "ts")]
use kraft_protocol::StateName as KRaftStateName;
use serde::Serialize;

/// One node as the panels show it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "NodeInfo"))]
pub struct NodeView {
    pub id: NodeId,
    pub role: Role,
    /// `crashed` while the process is down (its disk survives).
    // Else the protocol's state name (KRaft's in the generated types).
    #[cfg_attr(feature = "ts", ts(as = "KRaftStateName"))]
    pub state: &'static str,
    pub epoch: Epoch,
    /// The leader it knows for its epoch.
    pub leader: Option<NodeId>,
    pub voted_for: Option<NodeId>,
    /// Log end offset.
    pub leo: Offset,
    /// This node's high watermark: a leader's is what its Fetch responses carry (none
    /// until it commits a record of its epoch); null before it learns one and while crashed.
    pub hw: Option<Offset>,
    pub log_start: Offset,
    /// Offset up to which the log is on disk.
    pub flushed: Offset,
    /// Epoch of the last record in its log.
    pub last_epoch: Epoch,
    /// The timer that ends the current state: when it fires, and its full length.
    pub timer: Option<TimerView>,
    /// Blocked in a flush until this time.
    pub busy_until: Option<u64>,
    pub flush_ms: u64,
    pub snapshot: Option<SnapshotId>,
    /// Offset up to which records are applied to its metadata image.
    pub applied: Offset,
    /// Brokers and topics in its metadata image.
    pub brokers: usize,
    pub topics: usize,
}

/// A node's role in the quorum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Role {
    Voter,
    Observer,
}

/// The timer that ends a node's current state.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TimerInfo"))]
pub struct TimerView {
    pub kind: TimerKind,
    /// When it fires (simulated ms).
    pub deadline: u64,
    /// Its full length in ms.
    pub total: u64,
}

/// One record of a node's log.
// `B`: what the protocol's records say (KRaft's RecordBody in the generated types).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LogRecord", concrete(B = RecordBody)))]
pub struct RecordView<B = RecordBody> {
    pub offset: Offset,
    /// The leader epoch that wrote it.
    pub epoch: Epoch,
    /// Unique id of the write (two records that look alike are told apart by it).
    pub id: u64,
    pub record: B,
}

/// What the records of protocol `P`'s log say.
pub type BodyOf<P> = <<<P as Protocol>::Log as LogView>::Entry as LogEntry>::Body;

/// A node's metadata image now: the state its applied records add up to (what
/// `Cluster.image` returns). Lists are in ascending order and hold at most the limit
/// asked for; the counts say how many there are in all.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "MetadataImageInfo"))]
pub struct ImageView {
    pub node: NodeId,
    /// Offset of the next record to apply: every record below it is in the image (a node
    /// applies the records below its HW, or loads a snapshot that ends here).
    pub applied_offset: Offset,
    /// Registered broker ids.
    pub brokers: Vec<u32>,
    pub broker_count: usize,
    /// Topics by name.
    pub topics: Vec<TopicView>,
    pub topic_count: usize,
    /// `LeaderChange` control records applied (one per epoch that wrote one).
    pub leader_changes: u32,
}

/// How many brokers, topics and partition leaders per topic an image view lists when
/// the caller names no limit.
pub const IMAGE_LIST_DEFAULT: usize = 100;

/// One topic of an image.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TopicInfo"))]
pub struct TopicView {
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub name: std::sync::Arc<str>,
    pub partitions: usize,
    /// The leader (broker id) of each partition, by partition index (the first `limit`).
    pub partition_leaders: Vec<u32>,
}

/// `kafka-metadata-quorum describe --status`. -1 where the tool prints -1.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct QuorumStatus {
    pub cluster_id: &'static str,
    pub leader_id: i64,
    pub leader_epoch: i64,
    pub high_watermark: i64,
    pub max_follower_lag: i64,
    pub max_follower_lag_time_ms: i64,
    pub current_voters: Vec<NodeId>,
    pub current_observers: Vec<NodeId>,
}

/// One row of `kafka-metadata-quorum describe --replication`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReplicationRow {
    pub node_id: NodeId,
    pub log_end_offset: i64,
    pub lag: i64,
    pub last_fetch_timestamp: i64,
    pub last_caught_up_timestamp: i64,
    pub status: ReplicaStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ReplicaStatus {
    Leader,
    Follower,
    Observer,
}

/// What `describeQuorum` returns (asked of the leader).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "QuorumDescription"))]
pub struct QuorumView {
    pub status: QuorumStatus,
    pub replication: Vec<ReplicationRow>,
}

/// A stable id for the playground's one cluster (the tool prints a base64 uuid).
pub const CLUSTER_ID: &str = "kraft-playground0000A";

/// The state a node shows while its process is down.
pub const CRASHED: &str = "crashed";

impl<P: Protocol> World<P> {
    pub fn node_view(&self, id: NodeId) -> NodeView {
        let n = &self.nodes[id as usize];
        // A running node's role is what its replica's voter set says; a crashed one shows
        // the configured quorum's.
        let voter = n.replica.as_ref().map_or(n.is_voter, |r| r.voters().any(|v| v == id));
        let role = if voter { Role::Voter } else { Role::Observer };
        let Some(r) = &n.replica else {
            let log = n.log().expect("a crashed node has its disk");
            let e = n.durable.as_ref().map(|d| d.election()).unwrap_or_default();
            return NodeView {
                id,
                role,
                state: CRASHED,
                epoch: e.epoch,
                leader: e.leader,
                voted_for: e.voted,
                leo: log.end_offset(),
                hw: None,
                log_start: log.start_offset(),
                flushed: log.flushed_offset(),
                last_epoch: log.last_epoch(),
                timer: None,
                busy_until: None,
                flush_ms: n.flush_ms,
                snapshot: log.latest_snapshot(),
                applied: 0,
                brokers: 0,
                topics: 0,
            };
        };
        let log = r.log();
        let timer = r.state_timer().map(|t| TimerView { kind: t.kind, deadline: t.deadline, total: t.total });
        NodeView {
            id,
            role,
            state: r.state_name().name(),
            epoch: r.epoch(),
            leader: r.leader_id(),
            voted_for: r.voted_for(),
            leo: log.end_offset(),
            hw: r.committed_offset(),
            log_start: log.start_offset(),
            flushed: log.flushed_offset(),
            last_epoch: log.last_epoch(),
            timer,
            busy_until: if self.now < n.busy_until { Some(n.busy_until) } else { None },
            flush_ms: n.flush_ms,
            snapshot: log.latest_snapshot(),
            applied: r.image().applied_offset,
            brokers: r.image().brokers.len(),
            topics: r.image().topics.len(),
        }
    }

    pub fn node_views(&self) -> Vec<NodeView> {
        (0..self.nodes.len() as NodeId).map(|id| self.node_view(id)).collect()
    }

    /// Records of a node's log from `from` (default: log start), at most `limit`.
    pub fn log_view(&self, id: NodeId, from: Option<Offset>, limit: usize) -> Vec<RecordView<BodyOf<P>>> {
        let Some(log) = self.nodes[id as usize].log() else {
            return Vec::new();
        };
        let from = from.unwrap_or(log.start_offset()).max(log.start_offset());
        log.read(from, limit)
            .into_iter()
            .map(|r| RecordView { offset: r.offset(), epoch: r.epoch(), id: r.id(), record: r.body().clone() })
            .collect()
    }

    /// A node's metadata image (at most `limit` brokers, topics and partition leaders per
    /// topic), or None while it is crashed: the image lives in memory, and a restart
    /// builds it again from the snapshot and the log.
    pub fn image_view(&self, id: NodeId, limit: usize) -> Option<ImageView> {
        let img = self.nodes[id as usize].replica.as_ref()?.image();
        Some(ImageView {
            node: id,
            applied_offset: img.applied_offset,
            brokers: img.brokers.iter().take(limit).copied().collect(),
            broker_count: img.brokers.len(),
            topics: img
                .topics
                .iter()
                .take(limit)
                .map(|(name, t)| TopicView {
                    name: name.name().clone(),
                    partitions: t.partition_leaders.len(),
                    partition_leaders: t.partition_leaders.iter().take(limit).copied().collect(),
                })
                .collect(),
            topic_count: img.topics.len(),
            leader_changes: img.leader_changes,
        })
    }

    /// What `kafka-metadata-quorum describe --status` and `--replication` would print,
    /// asked of the current leader. -1 where the tool prints -1 (unknown).
    pub fn describe_quorum(&self) -> Option<QuorumView> {
        let (leader_id, _) = self.leader()?;
        let r = self.nodes[leader_id as usize].replica.as_ref()?;
        let mut ordered = r.replication()?;
        let leo = r.log().end_offset() as i64;
        let opt = |o: Option<u64>| o.map(|v| v as i64).unwrap_or(-1);
        let mut rows: Vec<ReplicationRow> = Vec::new();
        // Leader first, then the other voters, then observers (as the tool prints).
        kraft_base::small_sort::by_key(&mut ordered, |p| (p.id != leader_id, !p.is_voter, p.id));
        for p in ordered {
            let is_leader = p.id == leader_id;
            let end = if is_leader { Some(leo as u64) } else { p.end_offset };
            rows.push(ReplicationRow {
                node_id: p.id,
                log_end_offset: opt(end),
                lag: end.map(|e| leo - e as i64).unwrap_or(leo),
                last_fetch_timestamp: if is_leader { self.now as i64 } else { opt(p.last_fetch_ms) },
                last_caught_up_timestamp: if is_leader { self.now as i64 } else { opt(p.last_caught_up_ms) },
                status: if is_leader {
                    ReplicaStatus::Leader
                } else if p.is_voter {
                    ReplicaStatus::Follower
                } else {
                    ReplicaStatus::Observer
                },
            });
        }
        let voters: Vec<&ReplicationRow> = rows.iter().filter(|r| r.status != ReplicaStatus::Observer).collect();
        let laggiest = voters.iter().min_by_key(|r| (r.log_end_offset, r.node_id));
        let max_lag = laggiest.map(|r| leo - r.log_end_offset.max(0)).unwrap_or(0);
        let max_lag_time = match laggiest {
            Some(r) if r.node_id == leader_id => 0,
            Some(r) if r.last_caught_up_timestamp >= 0 => self.now as i64 - r.last_caught_up_timestamp,
            _ => -1,
        };
        Some(QuorumView {
            status: QuorumStatus {
                cluster_id: CLUSTER_ID,
                leader_id: leader_id as i64,
                leader_epoch: r.epoch() as i64,
                high_watermark: opt(r.committed_offset()),
                max_follower_lag: max_lag,
                max_follower_lag_time_ms: max_lag_time,
                current_voters: self.voters.clone(),
                current_observers: rows
                    .iter()
                    .filter(|r| r.status == ReplicaStatus::Observer)
                    .map(|r| r.node_id)
                    .collect(),
            },
            replication: rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Action, ClusterSpec, Simulation};
    use kraft_protocol::{ClientRecord, RecordBody};

    /// `image_view` lists what the applied records add up to, in ascending order, at most
    /// `limit` of each list (the counts say how many in all); a crashed node has none.
    #[test]
    fn the_image_view_shows_the_applied_image_bounded_and_in_order() {
        let mut sim = Simulation::new(ClusterSpec { voters: 3, seed: 3, ..ClusterSpec::default() }).unwrap();
        sim.advance(5_000).unwrap();
        let records = [
            RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 2 }),
            RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 1 }),
            RecordBody::Client(ClientRecord::CreateTopic { name: "b".into(), partitions: 3 }),
            RecordBody::Client(ClientRecord::CreateTopic { name: "a".into(), partitions: 2 }),
        ];
        for record in records {
            assert!(sim
                .act(Action::Write { record: Some(record) })
                .unwrap()
                .is_some_and(|w| matches!(w, crate::world::WriteOutcome::Accepted { .. })));
            sim.advance(200).unwrap();
        }
        sim.advance(3_000).unwrap();
        let hw = sim.world().node_view(0).hw.unwrap();
        let v = sim.world().image_view(0, 100).unwrap();
        assert_eq!((v.node, v.applied_offset, v.brokers.clone(), v.broker_count), (0, hw, vec![1, 2], 2));
        let topics: Vec<(&str, usize, Vec<u32>)> =
            v.topics.iter().map(|t| (&*t.name, t.partitions, t.partition_leaders.clone())).collect();
        assert_eq!(topics, [("a", 2, vec![1, 2]), ("b", 3, vec![1, 2, 1])]);
        assert_eq!((v.topic_count, v.leader_changes), (2, 1));
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["appliedOffset"], hw);
        assert_eq!(json["topics"][0], serde_json::json!({"name": "a", "partitions": 2, "partitionLeaders": [1, 2]}));
        let small = sim.world().image_view(0, 1).unwrap();
        assert_eq!((small.brokers, small.broker_count, small.topic_count), (vec![1], 2, 2));
        assert_eq!(small.topics.len(), 1);
        assert_eq!((small.topics[0].partitions, small.topics[0].partition_leaders.clone()), (2, vec![1]));
        sim.act(Action::Crash { node: 1 }).unwrap();
        assert!(sim.world().image_view(1, 100).is_none(), "a crashed node's image is gone with its memory");
    }

    /// A crashed node's state is the name the generated `StateName` type lists for it.
    #[test]
    fn a_crashed_node_shows_the_state_name_kraft_declares_for_it() {
        let mut sim = Simulation::new(ClusterSpec { voters: 3, ..ClusterSpec::default() }).unwrap();
        sim.act(Action::Crash { node: 1 }).unwrap();
        assert_eq!(sim.world().node_view(1).state, kraft_protocol::StateName::Crashed.name());
        assert_eq!(super::CRASHED, "crashed");
    }
}
