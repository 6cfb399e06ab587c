//! Snapshots and log retention on the full simulator. Kafka never moves the log start
//! when it takes a snapshot (SnapshotGenerator only writes one); the periodic cleaner
//! (KafkaRaftClient's RaftMetadataLogCleanerManager -> KafkaMetadataLog.maybeClean) drops
//! old snapshots and the records before the next one, and only when the log is over its
//! retention. So a FetchSnapshot redirect means "new or far behind", never "in sync".

use kraft_protocol::rpc::{FetchOutcome, MessageSummary};
use kraft_protocol::NodeId;
use kraft_sim::trace::{EventKind, SnapshotAction};
use kraft_sim::{ClusterSpec, Simulation};
use std::collections::BTreeMap;

/// Voters redirected to a snapshot in one run: (voter, records it was behind the
/// leader's log end when it asked). Fetch offsets come from the voter's own Fetch sends.
fn voter_snapshot_redirects(spec: ClusterSpec, ms: u64) -> (Vec<(NodeId, u64)>, usize) {
    let voters = spec.voters;
    let mut sim = Simulation::new(spec).expect("valid spec");
    let mut since = 0;
    let mut fetch_offset: BTreeMap<NodeId, u64> = BTreeMap::new();
    let mut redirects = Vec::new();
    let mut snapshots_taken = 0;
    for _ in 0..ms / 500 {
        sim.advance(500).unwrap();
        for e in sim.events_since(since).iter() {
            match &e.kind {
                EventKind::Send { from, summary: MessageSummary::Fetch { offset, .. }, .. } => {
                    fetch_offset.insert(*from, *offset);
                }
                EventKind::Deliver {
                    from,
                    to,
                    summary: MessageSummary::FetchResponse { outcome: FetchOutcome::Snapshot { .. }, .. },
                    ..
                } if *to < voters => {
                    let leo = sim.world().node_view(*from).leo;
                    redirects.push((*to, leo.saturating_sub(fetch_offset.get(to).copied().unwrap_or(0))));
                }
                EventKind::Snapshot { action: SnapshotAction::Taken, .. } => snapshots_taken += 1,
                _ => {}
            }
            since = e.seq + 1;
        }
    }
    let v: Vec<String> = sim.violations().map(|e| e.to_string()).collect();
    assert!(v.is_empty(), "invariant violations:\n{}", v.join("\n"));
    (redirects, snapshots_taken)
}

/// The reported finding (issue 9, item 3): teaching network, 50 writes/s, default
/// settings, 60 s. Every voter starts with the cluster and stays in sync, so none may
/// ever be sent to FetchSnapshot. Before retention, a voter two records behind was
/// redirected in about one seed in three, because a snapshot moved the log start.
#[test]
fn no_in_sync_voter_is_redirected_to_a_snapshot() {
    let mut total_snapshots = 0;
    for seed in 0..12 {
        let spec = ClusterSpec {
            voters: 3,
            seed,
            network: kraft_sim::NetworkSpec::Preset("teaching".into()),
            writes_per_second: 50,
            ..ClusterSpec::default()
        };
        let (redirects, taken) = voter_snapshot_redirects(spec, 60_000);
        assert!(redirects.is_empty(), "seed {seed}: in-sync voters redirected (voter, records behind): {redirects:?}");
        total_snapshots += taken;
    }
    assert!(total_snapshots > 0, "the runs take snapshots, so the test exercises them");
}

/// The cleaner runs every 60 s (KafkaRaftClient's RaftMetadataLogCleanerManager), so the
/// log start stays at 0 until then however many snapshots were taken; then, with the log
/// over `metadata.max.retention.bytes`, KafkaMetadataLog.cleanSnapshotsRetentionSize
/// deletes every snapshot but the latest and moves the log start exactly to it.
#[test]
fn the_periodic_cleaner_moves_the_log_start_only_to_a_snapshot() {
    let mut spec =
        ClusterSpec { voters: 3, seed: 4, writes_per_second: 100, snapshot_interval: 100, ..Default::default() };
    spec.config.insert("metadata.max.retention.bytes".into(), 1);
    let mut sim = Simulation::new(spec).expect("valid spec");
    sim.advance(59_999).unwrap();
    let taken = |sim: &Simulation| {
        sim.events_since(0)
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Snapshot { action: SnapshotAction::Taken, .. }))
            .count()
    };
    assert!(taken(&sim) > 3 * 20, "every node took many snapshots");
    for n in sim.world().node_views() {
        assert_eq!(n.log_start, 0, "n{}: no snapshot moved the log start before the cleaner ran", n.id);
    }
    let before = sim.last_seq();
    sim.advance(1).unwrap();
    let deleted: Vec<(NodeId, u64)> = sim
        .events_since(before + 1)
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Snapshot { node, action: SnapshotAction::Deleted, id } => Some((node, id.end_offset)),
            _ => None,
        })
        .collect();
    for n in sim.world().node_views() {
        let latest = n.snapshot.expect("a snapshot").end_offset;
        assert_eq!(n.log_start, latest, "n{}: cleaned up to its latest snapshot, no further", n.id);
        assert!(n.leo > n.log_start, "n{}: the records after the latest snapshot stay", n.id);
        assert!(deleted.iter().filter(|(d, _)| *d == n.id).count() > 20, "n{}: deleted {deleted:?}", n.id);
    }
    let v: Vec<String> = sim.violations().map(|e| e.to_string()).collect();
    assert!(v.is_empty(), "invariant violations:\n{}", v.join("\n"));
}
