//! Runs that once fooled the checker, each cut down from a chaos seed
//! (`sim::chaos::random_run`) to the few actions that still show what went wrong. The
//! runs are spelled out rather than regenerated from the seed, so a change to the chaos
//! generator cannot quietly turn a test into one that checks nothing: each test first
//! asserts that its run still shows the situation, then what the checker makes of it.

use kraft_base::shared::Meter;
use kraft_protocol::log::{ReplicaLog, Retention};
use kraft_protocol::rpc::{FetchOutcome, MessageSummary, RpcKind, Snapshot, SnapshotId};
use kraft_protocol::{ClientRecord, KRaft, MetadataImage, NodeId, Offset, Record, RecordBody, Replica, StateName};
use kraft_sim::check::{Checker, ClusterView};
use kraft_sim::trace::{Event, EventKind, Invariant};
use kraft_sim::{Action, ClusterSpec, Simulation, TimedAction};
use std::sync::Arc;

fn replay(spec: &str, actions: &str, until: u64) -> Simulation {
    let spec: ClusterSpec = kraft_sim::input::from_json(spec, "spec").expect("spec");
    let actions: Vec<TimedAction> = kraft_sim::input::from_json(actions, "actions").expect("actions");
    Simulation::replay_once(spec, actions, until).expect("valid run")
}

fn violations(sim: &Simulation, invariant: Invariant) -> Vec<&Event> {
    sim.violations()
        .filter(|e| matches!(&e.kind, EventKind::Violation { invariant: i, .. } if *i == invariant))
        .collect()
}

fn all_violations(sim: &Simulation) -> String {
    sim.violations().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
}

/// Seed 1 with `hw-before-own-epoch`: n1 wins epoch 4 with HW 736 from following n0;
/// n2, back from a crash, fetches at 704, so n1's HW as leader becomes 704 (the rule
/// that would hold it back is off) and its FetchResponse carries hw=704. No `hw` event
/// said so and the node view showed 736, so nothing was reported.
#[test]
fn a_new_leader_advertising_a_lower_hw_is_reported() {
    let sim = replay(
        r#"{"voters":3,"observers":1,"seed":1,"unsafe":["hw-before-own-epoch"],"flushMs":2,"snapshotInterval":200,"writesPerSecond":45}"#,
        r#"[{"t":2988,"action":"isolate","node":2},{"t":5926,"action":"partition","groups":[[0,1,2,3]]},
            {"t":8405,"action":"crash","node":1},{"t":8577,"action":"restart","node":1},
            {"t":10663,"action":"isolate","node":0},{"t":11797,"action":"heal"},{"t":14685,"action":"crash","node":2},
            {"t":16573,"action":"crash","node":3},{"t":19223,"action":"crash","node":0},{"t":19290,"action":"restart","node":2}]"#,
        21_300,
    );
    // The situation: a FetchResponse carries a HW below one a leader exposed before.
    let mut highest: Option<Offset> = None;
    let mut lower = None;
    for e in sim.trace() {
        if let EventKind::Send {
            from,
            rpc: RpcKind::FetchResponse,
            summary: MessageSummary::FetchResponse { hw_known: true, hw, .. },
            ..
        } = &e.kind
        {
            if highest.map(|h| *hw < h).unwrap_or(false) {
                lower = Some((e.seq, *from, *hw));
                break;
            }
            highest = highest.max(Some(*hw));
        }
    }
    let (send, leader, hw) = lower.expect("the run should still send a HW below one exposed before");
    // The leader's HW move is traced before the response that carries it, and reported.
    let moved = sim
        .trace()
        .iter()
        .rev()
        .filter(|e| e.seq < send)
        .find(|e| matches!(e.kind, EventKind::HighWatermark { node, new, .. } if node == leader && new == hw));
    let moved = moved.unwrap_or_else(|| panic!("no hw event for n{leader}'s HW {hw} before event {send}"));
    let reported = violations(&sim, Invariant::MonotonicHighWatermark);
    assert!(
        reported.iter().any(|v| v.seq > moved.seq && v.seq < send),
        "MonotonicHighWatermark not reported between {moved} and event {send}; violations:\n{}",
        all_violations(&sim)
    );
}

/// The node view shows the HW a leader advertises: in the run above, at the moment n1
/// sends the FetchResponse with the lower HW, its view says that HW. (Before the fix the
/// view kept the HW n1 had as a follower. Kafka carries no HW into Leader,
/// `QuorumState.transitionToLeader`, so a leader's `hw` is the one its responses carry.)
#[test]
fn the_node_view_shows_the_hw_a_leader_advertises() {
    let spec = r#"{"voters":3,"observers":1,"seed":1,"unsafe":["hw-before-own-epoch"],"flushMs":2,"snapshotInterval":200,"writesPerSecond":45}"#;
    let actions = r#"[{"t":2988,"action":"isolate","node":2},{"t":5926,"action":"partition","groups":[[0,1,2,3]]},
            {"t":8405,"action":"crash","node":1},{"t":8577,"action":"restart","node":1},
            {"t":10663,"action":"isolate","node":0},{"t":11797,"action":"heal"},{"t":14685,"action":"crash","node":2},
            {"t":16573,"action":"crash","node":3},{"t":19223,"action":"crash","node":0},{"t":19290,"action":"restart","node":2}]"#;
    let mut sim = replay(spec, actions, 0);
    let (mut seen, mut highest) = (0, None::<Offset>);
    while sim.step().expect("a valid run never livelocks") && sim.now() < 21_300 {
        let lower = sim.events_since(seen).iter().find_map(|e| match &e.kind {
            EventKind::Send {
                from,
                rpc: RpcKind::FetchResponse,
                summary: MessageSummary::FetchResponse { hw_known: true, hw, .. },
                ..
            } => {
                let below = highest.map(|h| *hw < h).unwrap_or(false);
                highest = highest.max(Some(*hw));
                below.then_some((*from, *hw))
            }
            _ => None,
        });
        seen = sim.last_seq();
        if let Some((leader, hw)) = lower {
            let view = sim.world().node_view(leader);
            assert_eq!(view.state, "leader");
            assert_eq!(view.hw, Some(hw), "n{leader}'s view shows the HW its FetchResponse carries");
            return;
        }
    }
    panic!("the run should still show a leader advertising a HW below one exposed before");
}

/// Seed 3 of the chaos mix with `vote-ignores-log` (30 s worlds), cut down to 3 actions:
/// n1, isolated from 6.9 s, lacks the records committed in epoch 1 from offset 540 on;
/// after the heal it wins epoch 2, and n2 truncates to 540, below its HW 1029, and appends
/// n1's records there (540..547), under the HW it already exposed. ConsistentCommittedData
/// compared only offsets a HW newly moved over, so the append itself went unreported.
#[test]
fn records_appended_below_the_hw_after_a_truncation_are_compared() {
    let sim = replay(
        r#"{"voters":3,"observers":1,"seed":3,"network":"wan","config":{"controller.quorum.append.linger.ms":0},"unsafe":["vote-ignores-log"],"flushMs":2,"snapshotInterval":100,"writesPerSecond":100}"#,
        r#"[{"t":6859,"action":"isolate","node":1},{"t":11508,"action":"network","latencyMs":[10,32],"loss":0.03,"duplicate":0.0},
            {"t":15000,"action":"heal"}]"#,
        16_500,
    );
    let reports = violations(&sim, Invariant::ConsistentCommittedData);
    let at_append = reports.iter().find_map(|v| {
        let EventKind::Violation { evidence, .. } = &v.kind else { unreachable!() };
        let seq = *evidence.last().expect("evidence");
        sim.trace().iter().find(|e| e.seq == seq && matches!(e.kind, EventKind::Append { .. }))
    });
    let append = at_append.unwrap_or_else(|| {
        panic!("no ConsistentCommittedData report at an append; violations:\n{}", all_violations(&sim))
    });
    // That append wrote below the HW its node had already exposed, after truncating there.
    let EventKind::Append { node, first, .. } = append.kind else { unreachable!() };
    let exposed = sim.trace().iter().filter(|e| e.seq < append.seq).rev().find_map(|e| match e.kind {
        EventKind::HighWatermark { node: n, new, .. } if n == node => Some(new),
        _ => None,
    });
    assert!(exposed.map(|hw| first < hw).unwrap_or(false), "{append} is not below n{node}'s HW {exposed:?}");
    let truncated = sim.trace().iter().any(|e| {
        e.seq < append.seq && matches!(e.kind, EventKind::Truncate { node: n, to, .. } if n == node && to <= first)
    });
    assert!(truncated, "n{node} should have truncated before {append}");
}

/// Records a node exposes (its HW passes them) and the log cleaner compacts away in the
/// same step must still be compared: the checker sees the log as the step left it, and
/// before the `compacted` buffer it never recorded them as committed, so a node later
/// exposing a different record at one of those offsets went unreported. (This was first
/// found in a run where a snapshot compacted the log at once; snapshots no longer move the
/// log start, only KafkaMetadataLog.maybeClean does, every 60 s, so the step is built by
/// hand: n0's HW moves to 10 and its cleaner drops offsets 0..8 in that step.)
#[test]
fn records_exposed_and_compacted_in_one_step_are_still_compared() {
    struct Logs(Vec<ReplicaLog>);
    impl ClusterView<KRaft> for Logs {
        fn node_count(&self) -> usize {
            self.0.len()
        }
        fn replica(&self, _: NodeId) -> Option<&Replica> {
            None
        }
        fn log(&self, id: NodeId) -> Option<&ReplicaLog> {
            self.0.get(id as usize)
        }
    }
    let meter = Meter::new();
    let log = |id_base: u64| {
        let mut log = ReplicaLog::new(&meter);
        let records: Vec<Record> = (0..10)
            .map(|o| Record {
                offset: o,
                epoch: 1,
                id: id_base + o,
                body: RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 0 }),
            })
            .collect();
        assert!(log.append(records));
        log
    };
    let snapshot = |end: Offset| Snapshot {
        id: SnapshotId { end_offset: end, epoch: 1 },
        image: Arc::new(MetadataImage::new(&meter)),
        size_bytes: 1,
        last_contained_log_ms: 0,
        kraft_version: Default::default(),
        voters: None,
    };
    let (mut n0, n1) = (log(100), log(200));
    n0.add_snapshot(snapshot(5));
    n0.add_snapshot(snapshot(8));
    assert_eq!(n0.clean(0, &Retention { max_bytes: 0, max_ms: u64::MAX }).len(), 1);
    assert_eq!(n0.start_offset(), 8, "the cleaner dropped offsets 0..8 in this step");
    let mut view = Logs(vec![n0, n1]);
    let mut checker = Checker::new(2, false);
    let event = |seq: u64, node: NodeId, new: Offset| Event {
        seq,
        t: 0,
        kind: EventKind::HighWatermark { node, old: None, new, majority: Box::default() },
    };
    assert!(checker.observe(&view, &event(1, 0, 10)).is_empty());
    view.0[0].forget_compacted();
    let found = checker.observe(&view, &event(2, 1, 4));
    assert!(
        found.iter().any(|v| matches!(v, EventKind::Violation { invariant: Invariant::ConsistentCommittedData, .. })),
        "n1 exposes other records at offsets n0 exposed while compacting them: {found:?}"
    );
}

/// A wiped node loses its quorum-state file: its epoch goes back to 0, reported once
/// with the epoch it had. Later restarts, its disk still at epoch 0 or at an epoch it
/// learned since, drop nothing and report nothing. (Before, the checker kept the epoch
/// from before the wipe: every restart of the wiped node reported the same drop again,
/// and a second report named that old epoch as the "persisted" one.)
#[test]
fn a_wipe_is_one_monotonic_epoch_report_with_the_lost_epoch() {
    let spec = ClusterSpec { voters: 3, seed: 4, writes_per_second: 20, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).expect("valid spec");
    let act = |sim: &mut Simulation, a: Action| {
        sim.act(a).expect("valid action");
    };
    // Three elections, so the epoch on every disk is well above 0.
    for _ in 0..3 {
        sim.advance(3_000).unwrap();
        act(&mut sim, Action::Resign);
    }
    sim.advance(3_000).unwrap();
    let wiped: NodeId = 2;
    let lost = sim.world().node_view(wiped).epoch;
    assert!(lost >= 3, "epoch {lost} should show three elections");
    // Wipe it while cut off, so it restarts twice on an empty disk before it learns an epoch.
    act(&mut sim, Action::Isolate { node: wiped });
    act(&mut sim, Action::Wipe { node: wiped });
    sim.advance(500).unwrap();
    act(&mut sim, Action::Restart { node: wiped });
    sim.advance(500).unwrap();
    act(&mut sim, Action::Crash { node: wiped });
    act(&mut sim, Action::Restart { node: wiped });
    sim.advance(500).unwrap();
    assert_eq!(sim.world().node_view(wiped).epoch, 0, "still cut off: nothing learned");
    act(&mut sim, Action::Heal);
    sim.advance(5_000).unwrap();
    assert!(sim.world().node_view(wiped).epoch >= lost, "rejoined at the quorum's epoch");
    act(&mut sim, Action::Crash { node: wiped });
    act(&mut sim, Action::Restart { node: wiped });
    sim.advance(3_000).unwrap();

    let reports = violations(&sim, Invariant::MonotonicEpoch);
    assert_eq!(reports.len(), 1, "one report, for the wipe:\n{}", all_violations(&sim));
    let EventKind::Violation { node, detail, evidence, .. } = &reports[0].kind else { unreachable!() };
    assert_eq!(*node, Some(wiped));
    assert!(detail.contains(&format!("from {lost} down to 0")), "{detail}");
    let wipe = sim.trace().iter().find(|e| e.seq == evidence[0]).expect("evidence event");
    assert!(wipe.to_string().contains(&format!("wipe n{wiped}")), "evidence is the wipe: {wipe}");
    assert_eq!(sim.violation_count(), 1, "nothing else:\n{}", all_violations(&sim));
}

/// A truncation into the log's start (unsafe `vote-ignores-log`): the log stops at the
/// snapshot there, and the truncate event must say where the log ends, not the point it
/// was told (before, NoTruncationBelowHighWatermark judged the told point at every further
/// Fetch response). Snapshots no longer move the log start, only the cleaner does (every
/// 60 s, KafkaMetadataLog.maybeClean; retention 1 byte cleans up to the latest snapshot),
/// so the run is seed 225 of the chaos mix (90 s worlds), past its 60 s cleaning,
/// minimised to 3 actions: n1, isolated from 41.6 s, its log ending at 2002, wins epoch 2
/// after the heal and tells n2 and n0 their logs diverge there; their cleaners had moved
/// their log starts to their snapshots at 2010 and 2004, so n2 truncates to 2010 with HW
/// 3467 (reported below it) and n0 to 2004 with no HW.
#[test]
fn a_truncation_stopped_by_the_snapshot_says_where_the_log_ends() {
    let mut sim = replay(
        r#"{"voters":3,"observers":1,"seed":225,"network":"wan","config":{"controller.quorum.append.linger.ms":0,"metadata.max.retention.bytes":1},"unsafe":["vote-ignores-log"],"flushMs":2,"snapshotInterval":1000,"writesPerSecond":50}"#,
        r#"[{"t":41618,"action":"isolate","node":1},{"t":70981,"action":"isolate","node":0},{"t":73295,"action":"heal"}]"#,
        0,
    );
    let mut seen = 0;
    let mut clamped = Vec::new();
    let mut told: Vec<Option<Offset>> = vec![None; 4];
    while sim.step().expect("a valid run never livelocks") && sim.now() <= 75_100 {
        for e in sim.events_since(seen).into_owned() {
            seen = e.seq;
            match e.kind {
                EventKind::Deliver {
                    to,
                    summary: MessageSummary::FetchResponse { outcome: FetchOutcome::Diverging { end_offset, .. }, .. },
                    ..
                } => told[to as usize] = Some(end_offset),
                EventKind::Truncate { node, to, diverging_epoch: Some(_), hw, .. }
                    if told[node as usize].map(|d| d < to).unwrap_or(false) =>
                {
                    let view = sim.world().node_view(node);
                    assert_eq!(view.snapshot.map(|s| s.end_offset), Some(to), "{e}: stopped at the snapshot's end");
                    assert_eq!((view.log_start, view.leo), (to, to), "{e}: the log ends where the event says");
                    clamped.push((e.seq, to, hw));
                }
                _ => {}
            }
        }
    }
    assert!(!clamped.is_empty(), "the run should still truncate into a snapshot");
    // NoTruncationBelowHighWatermark judges where the log really ends.
    let reports = violations(&sim, Invariant::NoTruncationBelowHighWatermark);
    for (seq, to, hw) in clamped {
        let report =
            reports.iter().find(|v| matches!(&v.kind, EventKind::Violation { evidence, .. } if evidence[..] == [seq]));
        match (hw.filter(|hw| to < *hw), report) {
            (Some(hw), Some(r)) => {
                assert!(r.to_string().contains(&format!("truncated to {to}, below its HW {hw}")), "{r}")
            }
            (None, None) => {}
            (hw, r) => panic!("truncation to {to} with HW {hw:?} (event {seq}): report {r:?}"),
        }
    }
}

/// Seed 9191 of the soak (3 voters + 1 observer): n0, a candidate of epoch 4, gets n1's
/// vote over a slow link 400 ms late, after n2 has won epoch 5 with n1 and committed
/// records n0 never fetched. n0 still becomes leader of epoch 4: Kafka counts a granted
/// vote of the candidate's own epoch (KafkaRaftClient.handleVoteResponse, after
/// maybeHandleCommonResponse has passed a response of the current epoch), and the stale
/// leader can commit nothing, the majority being in epoch 5. LeaderCompleteness reported
/// it, holding every new leader to every record committed so far; Raft's property is
/// owed to leaders of later epochs than the commit only.
#[test]
fn a_candidate_winning_an_older_epoch_after_a_newer_commit_breaks_nothing() {
    let sim = replay(
        r#"{"voters":3,"observers":1,"seed":9191,"network":"datacenter","flushMs":5,"snapshotInterval":100,"writesPerSecond":200}"#,
        r#"[{"t":1925,"action":"network","latencyMs":[1,8],"loss":0.19,"duplicate":0.0},{"t":2538,"action":"slowLink","from":0,"to":2,"latencyMs":[146,322]},
            {"t":3397,"action":"network","latencyMs":[1,3],"loss":0.03,"duplicate":0.02},{"t":3890,"action":"isolate","node":1},{"t":4696,"action":"crash","node":1},
            {"t":5706,"action":"restart","node":1},{"t":5902,"action":"partition","groups":[[2],[0,1,3]]},{"t":7072,"action":"isolate","node":0},
            {"t":7896,"action":"network","latencyMs":[1,4],"loss":0.03,"duplicate":0.01},{"t":8229,"action":"crash","node":0},
            {"t":8425,"action":"slowLink","from":0,"to":3,"latencyMs":[42,172]},{"t":9376,"action":"slowLink","from":2,"to":0,"latencyMs":[47,502]},
            {"t":11104,"action":"crash","node":2},{"t":11246,"action":"partition","groups":[[0,1,2,3]]},{"t":11389,"action":"restart","node":2},
            {"t":12263,"action":"workload","writesPerSecond":38},{"t":12970,"action":"restart","node":0},{"t":14031,"action":"resign"},
            {"t":14731,"action":"slowLink","from":1,"to":0,"latencyMs":[187,419]}]"#,
        16_000,
    );
    // The situation: a leader of a later epoch moves its HW past where a node that then
    // wins an earlier epoch has its log end (its LeaderChange goes there).
    let mut leading: Vec<Option<u32>> = vec![None; 4];
    let mut newer: Option<(u32, Offset)> = None;
    let mut stale_win = None;
    let mut won: Option<(NodeId, u32)> = None;
    for e in sim.trace() {
        match &e.kind {
            EventKind::State { node, to, epoch, .. } => {
                leading[*node as usize] = (*to == StateName::Leader).then_some(*epoch);
                if *to == StateName::Leader && newer.is_some_and(|(ep, _)| ep > *epoch) {
                    won = Some((*node, *epoch));
                }
            }
            EventKind::HighWatermark { node, new, .. } => {
                if let Some(ep) = leading[*node as usize] {
                    newer = Some((ep, *new));
                }
            }
            EventKind::Append { node, first, epoch, .. } if won == Some((*node, *epoch)) => {
                stale_win = Some((*node, *epoch, *first, newer.expect("a newer HW")));
                break;
            }
            _ => {}
        }
    }
    let (node, epoch, leo, (newer_epoch, hw)) =
        stale_win.expect("a node should still win an older epoch after a newer commit");
    assert!(
        newer_epoch > epoch && leo < hw,
        "n{node} leads e{epoch} from offset {leo}; e{newer_epoch} committed below {hw}"
    );
    assert_eq!(all_violations(&sim), "", "nothing is broken");
}

/// Seed 43 of the sweep with `vote-ignores-log` (5 voters + 1 observer), cut down to 6
/// actions: n2 leads epoch 2 and exposes HW 638, resigns when check-quorum fails, and
/// follows leaders of epochs 3 and 4 before either tells it a HW; n4, whose log lacks
/// what n2 committed, wins epoch 4 and n2 truncates to 383 with no HW (`hw=-`: Kafka's
/// LeaderState starts without one and ResignedState has none, so the node's HW is empty
/// until a leader's Fetch response sets it). The checker compared the truncation with
/// that empty HW only and reported nothing; it must remember what the node exposed since
/// its restart (the HW lives in memory).
#[test]
fn a_truncation_below_a_hw_exposed_before_resigning_is_reported() {
    let sim = replay(
        r#"{"voters":5,"observers":1,"seed":43,"network":"datacenter","unsafe":["vote-ignores-log"],"flushMs":0,"snapshotInterval":20,"writesPerSecond":100}"#,
        r#"[{"t":2533,"action":"resign"},{"t":5168,"action":"crash","node":4},{"t":6187,"action":"cut","from":1,"to":4},
            {"t":7512,"action":"network","latencyMs":[5,30],"loss":0.19,"duplicate":0.0},{"t":10406,"action":"restart","node":4},
            {"t":11606,"action":"resign"}]"#,
        12_000,
    );
    // The situation: a truncation with no HW, below the highest HW its node exposed since
    // it last restarted.
    let mut exposed: Vec<Option<(Offset, u64)>> = vec![None; 6];
    let mut hidden = Vec::new();
    for e in sim.trace() {
        match e.kind {
            EventKind::HighWatermark { node, new, .. } => {
                let slot = &mut exposed[node as usize];
                if slot.is_none_or(|(hw, _)| new > hw) {
                    *slot = Some((new, e.seq));
                }
            }
            EventKind::Restart { node } => exposed[node as usize] = None,
            EventKind::Truncate { node, to, hw: None, .. } => {
                if let Some((hw, at)) = exposed[node as usize].filter(|(hw, _)| to < *hw) {
                    hidden.push((e.seq, node, to, hw, at));
                }
            }
            _ => {}
        }
    }
    assert!(!hidden.is_empty(), "the run should still truncate below a HW exposed before, with hw=-");
    let reports = violations(&sim, Invariant::NoTruncationBelowHighWatermark);
    for (seq, node, to, hw, at) in hidden {
        let report = reports
            .iter()
            .find(|v| matches!(&v.kind, EventKind::Violation { evidence, .. } if evidence[..] == [at, seq]))
            .unwrap_or_else(|| {
                panic!(
                    "truncation {seq} of n{node} to {to}, below HW {hw} of event {at}, not reported; violations:\n{}",
                    all_violations(&sim)
                )
            });
        let expected = format!("n{node} truncated to {to}, below the HW {hw} it exposed before (its HW now: -)");
        assert!(report.to_string().contains(&expected), "{report}");
    }
}
