//! The scenarios of Kafka's RaftEventSimulationTest, on the full simulator (network,
//! disks, timers), with every invariant checked after every event.

use kraft_protocol::NodeId;
use kraft_sim::trace::{EventKind, Invariant};
use kraft_sim::{Action, ClusterSpec, Simulation};

fn cluster(voters: u32, observers: u32, seed: u64) -> Simulation {
    Simulation::new(ClusterSpec { voters, observers, seed, writes_per_second: 50, ..ClusterSpec::default() })
        .expect("valid spec")
}

/// Advances in 10 ms steps until `done` holds; panics after `timeout_ms`.
fn run_until(sim: &mut Simulation, timeout_ms: u64, what: &str, done: impl Fn(&Simulation) -> bool) {
    let end = sim.now() + timeout_ms;
    while !done(sim) {
        assert!(sim.now() < end, "{what} did not happen within {timeout_ms} ms (now {})", sim.now());
        sim.advance(10).unwrap();
    }
}

fn leader(sim: &Simulation) -> Option<(NodeId, u32)> {
    sim.world().leader()
}

/// Every running node agrees on the leader and epoch (Kafka's hasConsistentLeader).
fn consistent_leader(sim: &Simulation) -> bool {
    let Some((l, e)) = leader(sim) else {
        return false;
    };
    sim.world().node_views().iter().filter(|n| n.state != "crashed").all(|n| n.epoch == e && n.leader == Some(l))
}

fn hw(sim: &Simulation, id: NodeId) -> u64 {
    sim.world().node_view(id).hw.unwrap_or(0)
}

fn all_running_reach(sim: &Simulation, offset: u64) -> bool {
    sim.world().node_views().iter().filter(|n| n.state != "crashed").all(|n| n.hw.unwrap_or(0) >= offset)
}

fn assert_safe(sim: &Simulation) {
    let v: Vec<String> = sim.violations().map(|e| e.to_string()).collect();
    assert!(v.is_empty(), "invariant violations:\n{}", v.join("\n"));
}

fn act(sim: &mut Simulation, a: Action) {
    sim.act(a).expect("valid action");
}

#[test]
fn can_elect_initial_leader() {
    for voters in 1..=5 {
        for observers in [0, 2] {
            let mut sim = cluster(voters, observers, voters as u64 * 10 + observers as u64);
            run_until(&mut sim, 10_000, "a consistent leader", consistent_leader);
            run_until(&mut sim, 10_000, "HW > 10 everywhere", |s| all_running_reach(s, 11));
            assert_safe(&sim);
        }
    }
}

#[test]
fn can_elect_new_leader_after_old_leader_failure() {
    for (voters, graceful) in [(3, false), (3, true), (5, false), (5, true)] {
        let mut sim = cluster(voters, 1, 7);
        run_until(&mut sim, 10_000, "first leader", consistent_leader);
        let (old, epoch) = leader(&sim).unwrap();
        if graceful {
            act(&mut sim, Action::Resign);
            run_until(&mut sim, 2_000, "old leader resigned", |s| s.world().node_view(old).state != "leader");
        }
        act(&mut sim, Action::Crash { node: old });
        run_until(&mut sim, 15_000, "a new leader", |s| leader(s).map(|(l, e)| l != old && e > epoch).unwrap_or(false));
        run_until(&mut sim, 10_000, "HW 20 on the running nodes", |s| all_running_reach(s, 20));
        act(&mut sim, Action::Restart { node: old });
        let target = (0..voters + 1).map(|n| hw(&sim, n)).max().unwrap() + 10;
        run_until(&mut sim, 15_000, "everyone catches up, old leader too", |s| all_running_reach(s, target));
        assert_safe(&sim);
    }
}

#[test]
fn can_recover_after_all_nodes_killed() {
    for voters in [1, 3, 5] {
        let mut sim = cluster(voters, 0, 3);
        run_until(&mut sim, 10_000, "HW 10", |s| all_running_reach(s, 10));
        for n in 0..voters {
            act(&mut sim, Action::Crash { node: n });
        }
        sim.advance(1_000).unwrap();
        let before = (0..voters).map(|n| sim.world().node_view(n).leo).max().unwrap();
        // Restart the first majority of node ids only, as Kafka's test does.
        for n in 0..voters / 2 + 1 {
            act(&mut sim, Action::Restart { node: n });
        }
        run_until(&mut sim, 20_000, "progress past the old log end", |s| all_running_reach(s, before + 10));
        assert_safe(&sim);
    }
}

#[test]
fn can_elect_new_leader_after_old_leader_partitioned_away() {
    for voters in [3, 4, 5] {
        let mut sim = cluster(voters, 0, 11);
        run_until(&mut sim, 10_000, "first leader", consistent_leader);
        let (old, _) = leader(&sim).unwrap();
        act(&mut sim, Action::Isolate { node: old });
        let others: Vec<NodeId> = (0..voters).filter(|n| *n != old).collect();
        let start = sim.now();
        run_until(&mut sim, 20_000, "others reach HW 20 under a new leader", |s| {
            others.iter().all(|n| hw(s, *n) >= 20) && leader(s).map(|(l, _)| l != old).unwrap_or(false)
        });
        // Check-quorum: the cut-off leader steps down on its own within 1.5 fetch timeouts.
        run_until(&mut sim, 4_000, "old leader resigns", |s| s.world().node_view(old).state != "leader");
        assert!(sim.now() - start <= 3_000 + 4_000);
        assert_safe(&sim);
    }
}

#[test]
fn can_make_progress_if_majority_is_reachable() {
    let mut sim = cluster(5, 0, 21);
    run_until(&mut sim, 10_000, "HW 10", |s| all_running_reach(s, 10));
    act(&mut sim, Action::Partition { groups: vec![vec![0, 1], vec![2, 3, 4]] });
    let leo = sim.world().node_views().iter().map(|n| n.leo).max().unwrap();
    run_until(&mut sim, 20_000, "majority side doubles the log", |s| [2, 3, 4].iter().any(|n| hw(s, *n) > 2 * leo));
    let minority = hw(&sim, 0).max(hw(&sim, 1));
    let majority = [2, 3, 4].iter().map(|n| hw(&sim, *n)).max().unwrap();
    assert!(majority > minority, "majority HW {majority} must pass minority HW {minority}");
    act(&mut sim, Action::Heal);
    run_until(&mut sim, 20_000, "all catch up", |s| all_running_reach(s, majority));
    assert_safe(&sim);
}

#[test]
fn can_make_progress_after_back_to_back_leader_failures() {
    for voters in [3, 5] {
        let mut sim = cluster(voters, 0, 31);
        run_until(&mut sim, 10_000, "first leader", consistent_leader);
        let (first, _) = leader(&sim).unwrap();
        act(&mut sim, Action::Isolate { node: first });
        run_until(&mut sim, 20_000, "second leader", |s| leader(s).map(|(l, _)| l != first).unwrap_or(false));
        let (second, _) = leader(&sim).unwrap();
        act(&mut sim, Action::Heal);
        act(&mut sim, Action::Isolate { node: second });
        let target = (0..voters).map(|n| hw(&sim, n)).max().unwrap() + 10;
        run_until(&mut sim, 20_000, "progress under a third leader", |s| {
            leader(s).map(|(l, _)| l != second).unwrap_or(false) && (0..voters).any(|n| hw(s, n) >= target)
        });
        assert_safe(&sim);
    }
}

#[test]
fn can_recover_from_single_node_committed_data_loss() {
    for voters in [3, 5] {
        let mut sim = cluster(voters, 2, 41);
        run_until(&mut sim, 10_000, "HW 10", |s| all_running_reach(s, 10));
        let (l, _) = leader(&sim).unwrap();
        let victim = (l + 1) % voters;
        act(&mut sim, Action::Wipe { node: victim });
        run_until(&mut sim, 15_000, "a consistent leader other than the wiped node", |s| {
            consistent_leader(s) && leader(s).map(|(x, _)| x != victim).unwrap_or(false)
        });
        act(&mut sim, Action::Restart { node: victim });
        let target = (0..voters).map(|n| hw(&sim, n)).max().unwrap() + 10;
        run_until(&mut sim, 20_000, "everyone, the wiped node too, reaches HW + 10", |s| all_running_reach(s, target));
        // Kafka checks only these here: a wiped disk legitimately resets the node's epoch.
        let allowed = [Invariant::MonotonicEpoch];
        let bad: Vec<String> = sim
            .violations()
            .filter(|e| !matches!(&e.kind, EventKind::Violation { invariant, .. } if allowed.contains(invariant)))
            .map(|e| e.to_string())
            .collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

/// KIP-996's partial partition: only links 0-2, 1-3, 2-3, 2-4, 3-4 work.
fn partial_partition(sim: &mut Simulation, links: &[(NodeId, NodeId)]) {
    for a in 0..5 {
        for b in 0..5 {
            if a != b && !links.contains(&(a, b)) && !links.contains(&(b, a)) {
                act(sim, Action::Cut { from: a, to: b });
            }
        }
    }
}

#[test]
fn leadership_assigned_only_once_with_partial_partition() {
    for seed in 0..10 {
        let spec =
            ClusterSpec { voters: 5, seed, writes_per_second: 50, stable_leadership: true, ..ClusterSpec::default() };
        let mut sim = Simulation::new(spec).unwrap();
        partial_partition(&mut sim, &[(0, 2), (1, 3), (2, 3), (2, 4), (3, 4)]);
        run_until(&mut sim, 20_000, "a leader", |s| leader(s).is_some());
        let (l, _) = leader(&sim).unwrap();
        assert!([2, 3, 4].contains(&l), "seed {seed}: leader {l} must be 2, 3 or 4");
        let majority: Vec<NodeId> = match l {
            2 => vec![0, 2, 3, 4],
            3 => vec![1, 2, 3, 4],
            _ => vec![2, 3, 4],
        };
        run_until(&mut sim, 20_000, "majority at HW 20", |s| majority.iter().all(|n| hw(s, *n) >= 20));
        sim.advance(20_000).unwrap();
        assert_safe(&sim);
    }
}

#[test]
fn leadership_does_not_change_in_partial_partition_if_majority_reachable() {
    for seed in 0..5 {
        let spec =
            ClusterSpec { voters: 5, seed, writes_per_second: 50, stable_leadership: true, ..ClusterSpec::default() };
        let mut sim = Simulation::new(spec).unwrap();
        run_until(&mut sim, 10_000, "a consistent leader", consistent_leader);
        let (c, _) = leader(&sim).unwrap();
        let (a, b, d, e) = ((c + 1) % 5, (c + 2) % 5, (c + 3) % 5, (c + 4) % 5);
        partial_partition(&mut sim, &[(a, c), (b, d), (c, d), (c, e), (d, e)]);
        run_until(&mut sim, 20_000, "A, C, D, E at HW 20 more", |s| [a, c, d, e].iter().all(|n| hw(s, *n) >= 20));
        sim.advance(30_000).unwrap();
        assert_eq!(leader(&sim).map(|(l, _)| l), Some(c), "seed {seed}: the healthy leader keeps leading");
        assert_safe(&sim);
    }
}

#[test]
fn without_pre_vote_a_partial_partition_makes_leadership_ping_pong() {
    let spec = ClusterSpec {
        voters: 5,
        seed: 1,
        writes_per_second: 50,
        stable_leadership: true,
        unsafe_switches: vec![kraft_protocol::SafetySwitch::NoPreVote],
        ..ClusterSpec::default()
    };
    let mut sim = Simulation::new(spec).unwrap();
    run_until(&mut sim, 10_000, "a consistent leader", consistent_leader);
    let (c, _) = leader(&sim).unwrap();
    let (a, b, d, e) = ((c + 1) % 5, (c + 2) % 5, (c + 3) % 5, (c + 4) % 5);
    partial_partition(&mut sim, &[(a, c), (b, d), (c, d), (c, e), (d, e)]);
    sim.advance(60_000).unwrap();
    let unstable = sim
        .violations()
        .any(|e| matches!(&e.kind, EventKind::Violation { invariant: Invariant::StableLeadership, .. }));
    assert!(unstable, "without pre-vote the cut-off voters disrupt the leader");
}

/// An observer (n3) down while the voters snapshot and the cleaner moves their log start
/// (a small `metadata.max.retention.bytes`, so KafkaMetadataLog.maybeClean cleans on its
/// first run, at 60 s), then restarted until it has fetched a snapshot. Returns the
/// sequence number of its restart.
fn late_observer_fetches_a_snapshot(config: &[(&str, u64)]) -> (Simulation, u64) {
    let mut spec = ClusterSpec {
        voters: 3,
        observers: 1,
        seed: 2,
        writes_per_second: 100,
        snapshot_interval: 50,
        ..ClusterSpec::default()
    };
    spec.config.insert("metadata.max.retention.bytes".into(), 1);
    spec.config.extend(config.iter().map(|(k, v)| (k.to_string(), *v)));
    let mut sim = Simulation::new(spec).unwrap();
    act(&mut sim, Action::Crash { node: 3 });
    run_until(&mut sim, 70_000, "the leader's log starts past 0", |s| {
        leader(s).map(|(l, _)| s.world().node_view(l).log_start > 0).unwrap_or(false)
    });
    act(&mut sim, Action::Restart { node: 3 });
    let restarted_at = sim.trace().last().unwrap().seq;
    run_until(&mut sim, 10_000, "the observer loads a snapshot", |s| {
        s.events_since(restarted_at).iter().any(|e| {
            matches!(e.kind, EventKind::Snapshot { node: 3, action: kraft_sim::trace::SnapshotAction::Fetched, .. })
        })
    });
    (sim, restarted_at)
}

#[test]
fn a_late_observer_catches_up_through_fetch_snapshot() {
    let (mut sim, restarted_at) = late_observer_fetches_a_snapshot(&[]);
    let fetched = sim
        .events_since(restarted_at)
        .iter()
        .filter(|e| {
            e.kind.node() == Some(3) && matches!(&e.kind, EventKind::Send { rpc, .. } if rpc.name() == "FetchSnapshot")
        })
        .count();
    assert!(fetched >= 1, "the observer asked with FetchSnapshot");
    let target = hw(&sim, leader(&sim).unwrap().0);
    run_until(&mut sim, 10_000, "the observer follows on from the snapshot", |s| hw(s, 3) >= target);
    let v = sim.world().node_view(3);
    assert!(v.log_start > 0 && v.snapshot.is_some());
    // Stop writing: every node's metadata image converges to the same one.
    act(&mut sim, Action::Workload { writes_per_second: 0 });
    sim.advance(3_000).unwrap();
    let images: Vec<_> = sim.world().nodes.iter().map(|n| n.replica.as_ref().unwrap().image().clone()).collect();
    assert!(images[0].applied_offset > 0);
    assert!(images.iter().all(|i| *i == images[0]), "all images equal at offset {}", images[0].applied_offset);
    assert_safe(&sim);
}

#[test]
fn a_slow_link_delays_one_direction_and_uncut_restores_one_link() {
    let mut sim = cluster(3, 0, 5);
    run_until(&mut sim, 10_000, "a leader", consistent_leader);
    act(&mut sim, Action::SlowLink { from: 0, to: 1, latency_ms: [300, 300] });
    act(&mut sim, Action::Cut { from: 2, to: 0 });
    act(&mut sim, Action::Cut { from: 2, to: 1 });
    act(&mut sim, Action::Uncut { from: 2, to: 1 });
    let from = sim.last_seq();
    sim.advance(5_000).unwrap();
    let events = sim.events_since(from);
    let delays = |a: u32, b: u32| -> Vec<u64> {
        events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Deliver { from, to, sent, .. } if from == a && to == b => Some(e.t - sent),
                _ => None,
            })
            .collect()
    };
    let slow = delays(0, 1);
    assert!(!slow.is_empty() && slow.iter().all(|d| *d >= 300), "n0 -> n1 takes 300 ms: {slow:?}");
    assert!(delays(1, 0).iter().all(|d| *d <= 5), "the other direction keeps the default 1-5 ms");
    assert!(delays(2, 0).is_empty(), "n2 -> n0 stays cut");
    assert!(!delays(2, 1).is_empty(), "n2 -> n1 is back");
    act(&mut sim, Action::Heal);
    assert!(sim.world().network.is_healed());
    assert_safe(&sim);
}

/// KafkaRaftClient.handleFetchSnapshotRequest slices the snapshot by the request's
/// `maxBytes` (`controller.quorum.fetch.snapshot.max.bytes`): with 64 bytes, a late
/// observer downloads the image in as many chunks as its size needs.
#[test]
fn fetch_snapshot_chunks_are_limited_by_fetch_snapshot_max_bytes() {
    let (sim, restarted_at) = late_observer_fetches_a_snapshot(&[("controller.quorum.fetch.snapshot.max.bytes", 64)]);
    let chunks: Vec<(u64, u64)> = sim
        .events_since(restarted_at)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Deliver {
                to: 3,
                summary: kraft_protocol::rpc::MessageSummary::FetchSnapshotResponse { chunk, size, .. },
                ..
            } => Some((*chunk, *size)),
            _ => None,
        })
        .collect();
    let size = chunks[0].1;
    assert!(size > 64, "the image is larger than one chunk ({size} bytes)");
    assert_eq!(chunks.len() as u64, size.div_ceil(64), "{chunks:?}");
    assert!(chunks.iter().all(|(c, _)| *c <= 64));
    assert_safe(&sim);
}
