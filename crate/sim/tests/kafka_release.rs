//! Runs that model a Kafka release (`kafkaRelease`), in the world: the quorum-state fsync
//! that makes slow-disk vote rounds three flushes long, voters telling a kraft.version 0 leader their
//! entry (4.1+), and every invariant kept through random faults. `golden/kafka-releases.txt`
//! pins one run of each release (its digest and every event but message traffic); a change
//! shows as a reviewable diff, `UPDATE=1` rewrites it. Runs without the field are the legacy
//! model, whose goldens (scenarios/golden, golden/checker-reports.txt) stay as they were.

use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{KRaft, KafkaRelease, StateName};
use kraft_sim::chaos::{heal_at_ms, liveness_bound_ms, random_run, watch_recovery, ChaosOptions, FaultMix};
use kraft_sim::trace::{Event, EventKind};
use kraft_sim::{Action, ClusterSpec, NetworkSpec, Simulation, TimedAction};
use std::path::Path;
use KafkaRelease::{Legacy, V3_9, V4_0, V4_1, V4_2};

fn spec(release: KafkaRelease, flush_ms: u64) -> ClusterSpec {
    ClusterSpec {
        voters: 3,
        observers: 1,
        seed: 11,
        network: NetworkSpec::Preset("datacenter".into()),
        flush_ms,
        kafka_release: Some(release.name().into()),
        ..ClusterSpec::default()
    }
}

fn at(t: u64, action: Action) -> TimedAction {
    TimedAction { t, action }
}

/// The leader crashes at 5 s: how long the winner of the next election spends from its
/// candidacy (its `state` event to candidate) to office (to leader), averaged over seeds.
fn vote_round_ms(release: KafkaRelease, flush_ms: u64) -> u64 {
    let seeds = 1..=10;
    let total: u64 = seeds
        .clone()
        .map(|seed| {
            let spec = ClusterSpec { seed, ..spec(release, flush_ms) };
            let probe = Simulation::replay_once(spec.clone(), vec![], 5_000).expect("valid");
            let (old, epoch) = probe.world().leader().expect("a leader by 5 s");
            let sim =
                Simulation::replay_once(spec, vec![at(5_000, Action::Crash { node: old })], 20_000).expect("valid");
            let mut candidacy = 0;
            for e in sim.trace() {
                match e.kind {
                    EventKind::State { to: StateName::Candidate, .. } => candidacy = e.t,
                    EventKind::State { to: StateName::Leader, epoch: e2, .. } if e2 > epoch => return e.t - candidacy,
                    _ => {}
                }
            }
            panic!("{release:?} seed {seed}: no new leader");
        })
        .sum();
    total / seeds.count() as u64
}

/// FileQuorumStateStore.writeElectionState fsyncs on the raft thread before every durable
/// transition: a voter's two writes for a vote (the new epoch, then the vote) and the new
/// leader's own, so on a 100 ms disk a vote round takes three flushes; the legacy model
/// writes the file for free (a few ms of network). On a 1 ms disk a release costs little.
#[test]
fn slow_disk_elections_are_slower_under_a_release() {
    let legacy = vote_round_ms(Legacy, 100);
    assert!(legacy < 50, "legacy: {legacy} ms");
    for release in [V3_9, V4_1, V4_2] {
        let with_fsync = vote_round_ms(release, 100);
        assert!((300..350).contains(&with_fsync), "{release:?}: {with_fsync} ms, legacy {legacy} ms");
    }
    assert!(vote_round_ms(V4_1, 1) < 20);
}

/// A spec without the field, `legacy` given, and `legacy` read from JSON are one run.
#[test]
fn a_spec_without_a_release_is_the_legacy_run() {
    let digest = |s: ClusterSpec| Simulation::replay_once(s, vec![], 8_000).unwrap().digest().hex();
    let plain = ClusterSpec { kafka_release: None, ..spec(Legacy, 1) };
    let json = r#"{"voters":3,"observers":1,"seed":11,"flushMs":1}"#;
    let read: ClusterSpec = kraft_sim::input::from_json(json, "spec").unwrap();
    assert_eq!(read.kafka_release, None);
    let explicit = r#"{"voters":3,"observers":1,"seed":11,"flushMs":1,"kafkaRelease":"legacy"}"#;
    let explicit: ClusterSpec = kraft_sim::input::from_json(explicit, "spec").unwrap();
    assert_eq!(digest(plain.clone()), digest(read));
    assert_eq!(digest(plain.clone()), digest(explicit));
    assert_ne!(digest(plain), digest(spec(V3_9, 1)), "a release's quorum-state flushes show");
}

fn sent(trace: &[Event], rpc: RpcKind) -> Vec<(u32, u32)> {
    trace
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Send { from, to, rpc: r, .. } if r == rpc => Some((from, to)),
            _ => None,
        })
        .collect()
}

/// KafkaRaftClient.shouldSendUpdateVoteRequest at kraft.version 0: from 4.1 each voter
/// follower tells the leader its entry once (after the update voter period, three fetch
/// timeouts), and again after a new leader is elected; 3.9 and 4.0 voters, observers and
/// the legacy model never send it.
#[test]
fn voters_tell_each_kraft_version_0_leader_their_entry_from_4_1() {
    for release in [Legacy, V3_9, V4_0, V4_1, V4_2] {
        let probe = Simulation::replay_once(spec(release, 1), vec![], 5_000).expect("valid");
        let (leader, _) = probe.world().leader().expect("a leader");
        let sim = Simulation::replay_once(spec(release, 1), vec![at(12_000, Action::Resign)], 30_000).expect("valid");
        let trace = sim.trace();
        let updates = sent(trace, RpcKind::UpdateRaftVoter);
        if release < V4_1 {
            assert_eq!(updates, vec![], "{release:?}");
            continue;
        }
        let before: Vec<_> = updates.iter().filter(|(_, to)| *to == leader).collect();
        assert_eq!(before.len(), 2, "{release:?}: both voter followers told n{leader} once: {updates:?}");
        assert!(updates.iter().all(|(from, _)| *from < 3), "observers never send it");
        let (next, _) = sim.world().leader().expect("a leader after the resignation");
        assert_ne!(next, leader);
        assert_eq!(updates.iter().filter(|(_, to)| *to == next).count(), 2, "{release:?}: the new leader hears again");
        assert_eq!(sim.violations().count(), 0);
    }
}

/// Random faults under each release (the chaos sweep's own runs, with the release set):
/// no invariant is violated, and after the heal a leader commits within the sweep's
/// liveness bound and keeps committing.
#[test]
fn release_runs_keep_every_invariant_and_recover() {
    let opts =
        ChaosOptions { seconds: 40, voters: 3, observers: 1, unsafe_switches: vec![], ..ChaosOptions::default() };
    let heal_at = heal_at_ms(&opts);
    for release in [V3_9, V4_1, V4_2] {
        for seed in 0..25 {
            let (mut spec, actions) = random_run(seed, &opts);
            spec.kafka_release = Some(release.name().into());
            let bound = liveness_bound_ms(&spec.resolve::<KRaft>().unwrap().protocol.quorum, &FaultMix::of_seed(seed));
            let mut sim = Simulation::replay_once(spec, actions, heal_at).expect("valid");
            let recovery = watch_recovery(&mut sim, bound, opts.seconds * 1000);
            let violations: Vec<String> = sim.violations().map(|e| format!("{}", e)).collect();
            assert!(violations.is_empty(), "{release:?} seed {seed}: {violations:?}");
            assert!(
                recovery.hw_ms.is_some_and(|h| h <= bound) && recovery.kept_committing,
                "{release:?} seed {seed}: {recovery:?} (bound {bound} ms)"
            );
        }
    }
}

/// One run per release, pinned: 3 voters and an observer on a 20 ms disk, the leader
/// crashed at 4 s and restarted at 9 s, 14 s in all. The file holds each run's digest and
/// event count and every event but message traffic, with the UpdateRaftVoter exchanges.
#[test]
fn each_release_run_matches_its_golden() {
    let mut lines = Vec::new();
    for release in KafkaRelease::ALL {
        let probe = Simulation::replay_once(spec(release, 20), vec![], 4_000).expect("valid");
        let (leader, _) = probe.world().leader().expect("a leader by 4 s");
        let actions = vec![at(4_000, Action::Crash { node: leader }), at(9_000, Action::Restart { node: leader })];
        let sim = Simulation::replay_once(spec(release, 20), actions, 14_000).expect("valid");
        let trace = sim.trace();
        lines.push(format!("## {} digest {} events {}", release.name(), sim.digest().hex(), trace.len()));
        for e in trace {
            let keep = match &e.kind {
                EventKind::Send { rpc, .. } | EventKind::Deliver { rpc, .. } => {
                    matches!(rpc, RpcKind::UpdateRaftVoter | RpcKind::UpdateRaftVoterResponse)
                }
                EventKind::Drop { .. } | EventKind::Disconnect { .. } => false,
                _ => true,
            };
            if keep {
                lines.push(e.to_string());
            }
        }
    }
    if let Err(e) =
        kraft_expect::golden(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/kafka-releases.txt"), &lines)
    {
        panic!("{e}");
    }
}
