//! Read-only views of the world for the UI, the API and the CLI: each node as a panel
//! shows it, the log records, and the `kafka-metadata-quorum describe` output.

use super::world::World;
use crate::protocol::rpc::SnapshotId;
use crate::protocol::{Epoch, NodeId, Offset, RecordBody, StateName};
use serde::Serialize;

/// One node as the panels show it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "NodeInfo"))]
pub struct NodeView {
    pub id: NodeId,
    pub role: Role,
    /// `crashed` while the process is down (its disk survives).
    #[cfg_attr(test, ts(as = "StateName"))]
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
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Role {
    Voter,
    Observer,
}

/// The timer that ends a node's current state.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "TimerInfo"))]
pub struct TimerView {
    pub kind: TimerKind,
    /// When it fires (simulated ms).
    pub deadline: u64,
    /// Its full length in ms.
    pub total: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum TimerKind {
    Election,
    Fetch,
    CheckQuorum,
}

/// One record of a node's log.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "LogRecord"))]
pub struct RecordView {
    pub offset: Offset,
    /// The leader epoch that wrote it.
    pub epoch: Epoch,
    /// Unique id of the write (two records that look alike are told apart by it).
    pub id: u64,
    pub record: RecordBody,
}

/// `kafka-metadata-quorum describe --status`. -1 where the tool prints -1.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
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
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ReplicationRow {
    pub node_id: NodeId,
    pub log_end_offset: i64,
    pub lag: i64,
    pub last_fetch_timestamp: i64,
    pub last_caught_up_timestamp: i64,
    pub status: ReplicaStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ReplicaStatus {
    Leader,
    Follower,
    Observer,
}

/// What `describeQuorum` returns (asked of the leader).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "QuorumDescription"))]
pub struct QuorumView {
    pub status: QuorumStatus,
    pub replication: Vec<ReplicationRow>,
}

/// A stable id for the playground's one cluster (the tool prints a base64 uuid).
pub const CLUSTER_ID: &str = "kraft-playground0000A";

impl World {
    pub fn node_view(&self, id: NodeId) -> NodeView {
        let n = &self.nodes[id as usize];
        let role = if n.is_voter { Role::Voter } else { Role::Observer };
        let Some(r) = &n.replica else {
            let log = n.log().expect("a crashed node has its disk");
            let e = n.durable.as_ref().map(|d| d.election).unwrap_or_default();
            return NodeView {
                id,
                role,
                state: StateName::Crashed.name(),
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
                snapshot: log.snapshot().map(|s| s.id),
                applied: 0,
                brokers: 0,
                topics: 0,
            };
        };
        let log = r.log();
        let timer = r.state_timer().map(|(deadline, total)| TimerView {
            kind: match r.state_name() {
                StateName::Follower => TimerKind::Fetch,
                StateName::Leader => TimerKind::CheckQuorum,
                _ => TimerKind::Election,
            },
            deadline,
            total,
        });
        NodeView {
            id,
            role,
            state: r.state_name().name(),
            epoch: r.epoch(),
            leader: r.leader_id(),
            voted_for: r.voted_for(),
            leo: log.end_offset(),
            hw: r.high_watermark(),
            log_start: log.start_offset(),
            flushed: log.flushed_offset(),
            last_epoch: log.last_epoch(),
            timer,
            busy_until: if self.now < n.busy_until { Some(n.busy_until) } else { None },
            flush_ms: n.flush_ms,
            snapshot: log.snapshot().map(|s| s.id),
            applied: r.image().applied_offset,
            brokers: r.image().brokers.len(),
            topics: r.image().topics.len(),
        }
    }

    pub fn node_views(&self) -> Vec<NodeView> {
        (0..self.nodes.len() as NodeId).map(|id| self.node_view(id)).collect()
    }

    /// Records of a node's log from `from` (default: log start), at most `limit`.
    pub fn log_view(&self, id: NodeId, from: Option<Offset>, limit: usize) -> Vec<RecordView> {
        let Some(log) = self.nodes[id as usize].log() else {
            return Vec::new();
        };
        let from = from.unwrap_or(log.start_offset()).max(log.start_offset());
        log.read(from, limit)
            .into_iter()
            .map(|r| RecordView { offset: r.offset, epoch: r.epoch, id: r.id, record: r.body })
            .collect()
    }

    /// What `kafka-metadata-quorum describe --status` and `--replication` would print,
    /// asked of the current leader. -1 where the tool prints -1 (unknown).
    pub fn describe_quorum(&self) -> Option<QuorumView> {
        let (leader_id, _) = self.leader()?;
        let r = self.nodes[leader_id as usize].replica.as_ref()?;
        let l = r.leader_state()?;
        let leo = r.log().end_offset() as i64;
        let opt = |o: Option<u64>| o.map(|v| v as i64).unwrap_or(-1);
        let mut rows: Vec<ReplicationRow> = Vec::new();
        let mut ordered: Vec<_> = l.replicas.iter().collect();
        // Leader first, then the other voters, then observers (as the tool prints).
        ordered.sort_by_key(|p| (p.id != leader_id, !p.is_voter, p.id));
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
                high_watermark: opt(l.high_watermark),
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
