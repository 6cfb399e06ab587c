//! The checker's KIP-853 invariants (`check::membership`, and MajorityReachedHighWatermark
//! against a changing voter set), each shown firing and not firing. To hold messages back
//! exactly where a rule is at stake, KRaft replicas are driven by hand (the protocol's own
//! reconfiguration test cluster, `crate/protocol/tests/support`), their notes turned into
//! events as the world turns them, and the checker reads the replicas through a small
//! `ClusterView`. Where KRaft cannot break a rule even with its safety switches off, the
//! test hands the checker the event that would break it (a made-up state change), over
//! the real replicas. The last test runs the world itself (`addVoter`).

#[path = "../../protocol/tests/support/mod.rs"]
mod kraft_cluster;

use kraft_base::shared::Meter;
use kraft_boundary::{LogEntry, ReplicaCore};
use kraft_cluster::{dir, key, Cluster};
use kraft_protocol::log::ReplicaLog;
use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{ClientRecord, KRaft, Note, RecordBody, Replica, SafetySwitch, StateName, Unsafe};
use kraft_protocol::{NodeId, Reason};
use kraft_sim::check::{Checker, ClusterView};
use kraft_sim::trace::{Event, EventKind, Invariant};
use std::collections::BTreeMap;

/// The cluster as the checker sees it, with some nodes' logs swapped for others (a disk a
/// fault changed).
struct View<'a> {
    cluster: &'a Cluster,
    logs: &'a BTreeMap<NodeId, ReplicaLog>,
}

impl ClusterView<KRaft> for View<'_> {
    fn node_count(&self) -> usize {
        self.cluster.replicas.keys().max().map_or(0, |m| *m as usize + 1)
    }
    fn replica(&self, id: NodeId) -> Option<&Replica> {
        self.cluster.replicas.get(&id)
    }
    fn log(&self, id: NodeId) -> Option<&ReplicaLog> {
        self.logs.get(&id).or_else(|| self.cluster.replicas.get(&id).map(|r| r.log()))
    }
}

/// Feeds the checker the cluster's notes as events (as `World::emit_note` makes them),
/// each read against the cluster as it is when `watch` is called.
struct Watch {
    checker: Checker,
    seq: u64,
    seen: usize,
    /// Logs the view shows instead of the replicas' own.
    logs: BTreeMap<NodeId, ReplicaLog>,
    reports: Vec<(Invariant, String)>,
}

impl Watch {
    fn new(c: &Cluster) -> Watch {
        let nodes = c.replicas.keys().max().map_or(0, |m| *m as usize + 1);
        Watch { checker: Checker::new(nodes, false), seq: 0, seen: 0, logs: BTreeMap::new(), reports: Vec::new() }
    }

    /// Checks every note since the last call.
    fn watch(&mut self, c: &Cluster) {
        let notes: Vec<(NodeId, Note)> = c.notes[self.seen..].to_vec();
        self.seen = c.notes.len();
        for (node, note) in notes {
            let kind = match note {
                Note::StateChanged { from, to, epoch, leader, voted, reason } => {
                    EventKind::State { node, from, to, epoch, leader, voted, reason }
                }
                Note::Persisted { election } => {
                    EventKind::Persist { node, epoch: election.epoch, leader: election.leader, voted: election.voted }
                }
                Note::Appended { first, last, epoch, kind } => EventKind::Append { node, first, last, epoch, kind },
                Note::HighWatermark { old, new, majority } => {
                    let ids: Vec<NodeId> = (0..64).filter(|b| majority >> b & 1 == 1).collect();
                    EventKind::HighWatermark { node, old, new, majority: ids.into_boxed_slice() }
                }
                Note::Truncated { from_leo, to, diverging_epoch, hw } => {
                    EventKind::Truncate { node, from_leo, to, diverging_epoch, hw }
                }
                _ => continue, // votes; no snapshots in these runs
            };
            self.event(c, kind);
        }
    }

    /// Checks one event, made up or from a note.
    fn event(&mut self, c: &Cluster, kind: EventKind) {
        self.seq += 1;
        let event = Event { seq: self.seq, t: c.now, kind };
        let view = View { cluster: c, logs: &self.logs };
        for v in self.checker.observe(&view, &event) {
            if let EventKind::Violation { invariant, detail, .. } = v {
                self.reports.push((invariant, detail.to_string()));
            }
        }
    }

    fn reported(&self, invariant: Invariant) -> Vec<&str> {
        self.reports.iter().filter(|(i, _)| *i == invariant).map(|(_, d)| d.as_str()).collect()
    }
}

fn switches(unsafe_multi: bool) -> Unsafe {
    if unsafe_multi {
        Unsafe::default().with(SafetySwitch::MultiVoterChange)
    } else {
        Unsafe::default()
    }
}

/// A dynamic quorum of `voters` and `observers`, n0 elected and everyone caught up,
/// watched from the start.
fn settled(unsafe_multi: bool, voters: &[u32], observers: &[u32]) -> (Cluster, Watch) {
    let mut c = Cluster::dynamic_unsafe(switches(unsafe_multi), voters, observers);
    let mut w = Watch::new(&c);
    c.elect(0);
    c.settle(300);
    c.take_answers();
    w.watch(&c);
    assert_eq!(w.reports, vec![], "a dynamic quorum that elects a leader breaks nothing");
    (c, w)
}

/// SingleUncommittedVoterChange. With `multi-voter-change` unsafe the leader appends a
/// second VotersRecord while the first is uncommitted (nobody acknowledges either): the
/// checker reports its log at that append. Safe, the second change is refused and nothing
/// is reported.
#[test]
fn two_uncommitted_voter_changes_in_one_log_are_reported() {
    for unsafe_multi in [false, true] {
        let (mut c, mut w) = settled(unsafe_multi, &[0, 1, 2], &[3, 4]);
        c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
        c.add_voter(0, key(3));
        w.watch(&c);
        // n3 counts now; hold its acknowledgements too, so the second change cannot commit.
        c.hold.extend([(3, RpcKind::Fetch), (4, RpcKind::Fetch)]);
        c.add_voter(0, key(4));
        w.watch(&c);
        let reported = w.reported(Invariant::SingleUncommittedVoterChange);
        if unsafe_multi {
            assert_eq!(c.voters(0), vec![0, 1, 2, 3, 4], "the second change was appended");
            assert_eq!(reported.len(), 1, "{:?}", w.reports);
            assert!(reported[0].starts_with("n0's log holds voter-set records at "), "{}", reported[0]);
        } else {
            assert_eq!(c.voters(0), vec![0, 1, 2, 3]);
            assert_eq!(w.reports, vec![], "safe: one change at a time");
        }
    }
}

/// SingleUncommittedVoterChange does not fire for a log that holds several VotersRecords
/// of which all but the newest are committed, nor at the followers that fetch them.
#[test]
fn voter_changes_one_after_the_other_are_fine() {
    let (mut c, mut w) = settled(false, &[0, 1, 2], &[3, 4]);
    c.add_voter(0, key(3));
    c.settle(5);
    c.add_voter(0, key(4));
    c.settle(5);
    c.remove_voter(0, key(1));
    c.settle(5);
    assert_eq!(c.take_answers(), vec!["NONE", "NONE", "NONE"]);
    w.watch(&c);
    assert_eq!(c.voters(2), vec![0, 2, 3, 4]);
    assert_eq!(w.reports, vec![]);
}

/// OverlappingVoterMajorities. Unsafe, the leader holds {0, 1, 2} -> {0, 1, 2, 3} ->
/// {0, 1, 2, 3, 4}, nothing acknowledged. Released, the new voters acknowledge the records
/// one at a time and the committed set moves one voter per HW move: nothing to report
/// (SingleUncommittedVoterChange caught the run at the second append). Had the HW passed
/// both records in one move, as a leader whose followers fetched both at once would move
/// it, the committed set would have jumped from {0, 1, 2} by two voters, whose majorities
/// need not overlap: the checker is handed that move and reports it. Safe, the HW passes
/// the one change on its own.
#[test]
fn a_committed_voter_set_that_jumps_by_two_voters_is_reported() {
    for unsafe_multi in [false, true] {
        let (mut c, mut w) = settled(unsafe_multi, &[0, 1, 2], &[3, 4]);
        let hw = c.replica(0).high_watermark().unwrap();
        c.hold = [1, 2, 3, 4].map(|n| (n, RpcKind::Fetch)).to_vec();
        c.add_voter(0, key(3));
        c.add_voter(0, key(4));
        w.watch(&c);
        let leo = c.replica(0).log().end_offset();
        assert_eq!(c.replica(0).high_watermark(), Some(hw), "nothing acknowledged");
        w.reports.retain(|(i, _)| *i != Invariant::SingleUncommittedVoterChange);
        // The HW over every record appended since it was `hw`, in one move.
        w.event(&c, EventKind::HighWatermark { node: 0, old: Some(hw), new: leo, majority: Box::new([0, 3, 4]) });
        let reported = w.reported(Invariant::OverlappingVoterMajorities);
        if unsafe_multi {
            assert_eq!(reported.len(), 1, "{:?}", w.reports);
            let d = reported[0];
            assert!(d.starts_with(&format!("the committed offset moved from {hw} to {leo} (n0)")), "{d}");
            assert!(d.contains("by 2 voters: added {n3:") && d.contains(", n4:") && d.ends_with("removed {}"), "{d}");
        } else {
            assert_eq!(c.voters(0), vec![0, 1, 2, 3]);
            assert_eq!(w.reports, vec![], "one voter added");
        }
    }
    // The real unsafe run, released: the HW passes the two records one at a time.
    let (mut c, mut w) = settled(true, &[0, 1, 2], &[3, 4]);
    c.hold = vec![(1, RpcKind::Fetch), (2, RpcKind::Fetch)];
    c.add_voter(0, key(3));
    c.add_voter(0, key(4));
    assert_eq!(c.take_answers(), vec!["REQUEST_TIMED_OUT", "NONE"], "both committed");
    w.watch(&c);
    assert_eq!(w.reported(Invariant::SingleUncommittedVoterChange).len(), 1, "{:?}", w.reports);
    assert_eq!(w.reported(Invariant::OverlappingVoterMajorities), Vec::<&str>::new());
}

/// MajorityReachedHighWatermark against a set that changes (KAFKA-16580). n2 lags; n0 and
/// n1 commit a write. Removing n1 leaves {0, 2}, of which only n0 holds the HW: the latest
/// set alone has no majority there, but the set in force at HW - 1, {0, 1, 2}, has (the
/// leader computed the HW with it, and never lowers it). Nothing is reported; once n1's
/// disk no longer holds the records (a view with its log cut), neither set has a majority
/// and the checker reports it, naming both.
#[test]
fn the_hw_majority_is_counted_in_the_latest_set_or_the_set_at_hw_minus_1() {
    let (mut c, mut w) = settled(false, &[0, 1, 2], &[]);
    c.cut = vec![(0, 2), (2, 0)];
    let write = RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 7 });
    c.with(0, |r, ctx| r.write(ctx, write).0).unwrap();
    c.tick(c.config.append_linger_ms);
    c.settle(3);
    let hw = c.replica(0).high_watermark().unwrap();
    assert!(c.replica(2).log().end_offset() < hw, "n2 lags behind the HW");
    c.remove_voter(0, key(1));
    w.watch(&c);
    assert_eq!(c.voters(0), vec![0, 2]);
    assert_eq!(c.replica(0).high_watermark(), Some(hw), "the removal is not committed");
    assert_eq!(w.reports, vec![], "the HW stands on {{0, 1, 2}}, the set at HW - 1");
    // n1's disk loses the records: now neither set has a majority at the HW.
    let mut cut = c.replica(1).log().clone();
    cut.truncate_to(hw - 1);
    w.logs.insert(1, cut);
    w.event(&c, EventKind::HighWatermark { node: 0, old: Some(hw), new: hw, majority: Box::new([]) });
    let reported = w.reported(Invariant::MajorityReachedHighWatermark);
    assert_eq!(
        reported,
        vec![format!(
            "leader n0 has HW {hw} but only 1 of the 2 voters of its latest set and 1 of the 3 voters in force at \
             HW - 1 hold records up to it"
        )]
    );
}

/// A voter holds records only on the disk its key names, and a voter whose disk is gone
/// for good (its node runs on a disk with another directory id: wiped and formatted
/// again) counts as holding: it can never vote again (a candidate asks for its key and
/// the new disk answers INVALID_VOTER_KEY), so it cannot help elect a leader without the
/// records. n2 on its own disk but empty does not hold; with n1's disk lost the HW still
/// stands on two of three; with n1 back on its own, empty disk it stands on one.
#[test]
fn the_hw_majority_counts_a_voter_on_its_own_disk_or_lost() {
    let (c, mut w) = settled(false, &[0, 1, 2], &[]);
    let hw = c.replica(0).high_watermark().unwrap();
    let moved = EventKind::HighWatermark { node: 0, old: Some(hw), new: hw, majority: Box::new([]) };
    w.event(&c, moved.clone());
    assert_eq!(w.reports, vec![]);
    w.logs.insert(2, ReplicaLog::format(&Meter::default(), dir(2, 0), None));
    let mut other_disk = ReplicaLog::format(&Meter::default(), dir(1, 1), None);
    assert!(other_disk.append(c.replica(1).log().records().take(1).cloned().collect()));
    w.logs.insert(1, other_disk);
    w.event(&c, moved.clone());
    assert_eq!(w.reported(Invariant::MajorityReachedHighWatermark), Vec::<String>::new());
    w.logs.insert(1, ReplicaLog::format(&Meter::default(), dir(1, 0), None));
    w.event(&c, moved);
    assert_eq!(
        w.reported(Invariant::MajorityReachedHighWatermark),
        vec![format!("leader n0 has HW {hw} but only 1 of 3 voters hold records up to it")]
    );
}

/// LeaderInOwnVoterSet. KRaft elects only voters (an observer never stands), so the
/// elections of a real run report nothing, and neither does a leader elected again after
/// the voters changed. The checker is then handed a made-up election of the observer n3,
/// and of n1 after its removal: both are reported.
#[test]
fn a_leader_outside_its_own_voter_set_is_reported() {
    let (mut c, mut w) = settled(false, &[0, 1, 2], &[3]);
    c.remove_voter(0, key(1));
    c.settle(5);
    assert_eq!(c.take_answers(), vec!["NONE"]);
    w.watch(&c);
    assert_eq!(c.voters(1), vec![0, 2], "n1 read its removal");
    assert_eq!(w.reports, vec![]);
    let next = c.replica(0).epoch() + 1;
    for (node, epoch) in [(3, next), (1, next + 1)] {
        let from = c.state(node);
        let state = EventKind::State {
            node,
            from,
            to: StateName::Leader,
            epoch,
            leader: Some(node),
            voted: Some(node),
            reason: Reason::VoteGranted,
        };
        w.event(&c, EventKind::Persist { node, epoch, leader: Some(node), voted: Some(node) });
        w.event(&c, state);
    }
    let reported = w.reported(Invariant::LeaderInOwnVoterSet);
    assert_eq!(reported.len(), 2, "{:?}", w.reports);
    assert!(reported[0].starts_with("n3:") && reported[0].contains(&format!("became leader of epoch {next}")));
    assert!(reported[1].starts_with("n1:") && reported[1].contains("its latest voter set is {n0:"));
}

/// RemovedLeaderResignsAfterCommit. A leader that removes itself keeps leading until the
/// set without it commits, then resigns (RemoveVoterHandler.highWatermarkUpdated): the
/// real run reports nothing. Made-up resignations are reported: one while the removal is
/// still uncommitted, and one by a leader still in its own latest set.
#[test]
fn a_removed_leader_resigns_only_after_the_commit() {
    let (mut c, mut w) = settled(false, &[0, 1, 2], &[]);
    let resign = |c: &Cluster| EventKind::State {
        node: 0,
        from: StateName::Leader,
        to: StateName::Resigned,
        epoch: c.replica(0).epoch(),
        leader: Some(0),
        voted: Some(0),
        reason: Reason::RemovedFromVoters,
    };
    // Still a voter: a resignation "as removed" is wrong.
    w.event(&c, resign(&c));
    // The removal appended but not committed (n2's fetches held: {1, 2} has no majority).
    c.hold = vec![(2, RpcKind::Fetch)];
    c.remove_voter(0, key(0));
    w.watch(&c);
    assert_eq!(c.state(0), StateName::Leader, "it keeps leading until the change commits");
    w.event(&c, resign(&c));
    let reported = w.reported(Invariant::RemovedLeaderResignsAfterCommit);
    assert_eq!(reported.len(), 2, "{:?}", w.reports);
    assert_eq!(reported[0], "leader n0 resigned as removed while it is in its own latest voter set");
    assert!(reported[1].starts_with("leader n0 resigned as removed before the voter set without it"));
    // The real resignation, after the commit.
    let before = w.reports.len();
    c.release();
    c.settle(3);
    assert_eq!(c.transitions(0).last(), Some(&(StateName::Resigned, Reason::RemovedFromVoters)));
    w.watch(&c);
    assert_eq!(&w.reports[before..], &[], "resigned after its removal committed");
}

/// End to end, in the world: a dynamic quorum of 3 voters (n0 leads) and 2 observers whose
/// two followers have slow disks (300 ms a flush, so a VotersRecord needs 300 ms or more
/// to commit), and the admin client's add-controller n3, then n4 50 ms later. Safe, the
/// second is refused (REQUEST_TIMED_OUT: the first is pending) and nothing is reported.
/// With `multi-voter-change` unsafe the leader appends {0, 1, 2, 3, 4} on the uncommitted
/// {0, 1, 2, 3}: SingleUncommittedVoterChange fires at that append, and n0, n3 and n4
/// commit the new set without n1 and n2 (KAFKA-20740's effect). With fast disks the first
/// change commits within the second's ApiVersions round trip, and the log never holds two
/// uncommitted changes.
#[test]
fn two_add_voters_in_quick_succession_break_the_one_change_rule_only_when_unsafe() {
    use kraft_sim::{Action, ClusterSpec, QuorumKind, Simulation, TimedAction};
    let at = |t, action| TimedAction { t, action };
    for unsafe_multi in [false, true] {
        let spec = ClusterSpec {
            voters: 3,
            observers: 2,
            seed: 5,
            kafka_release: Some("4.1".into()),
            quorum: Some(QuorumKind::Dynamic),
            unsafe_switches: if unsafe_multi { vec![SafetySwitch::MultiVoterChange] } else { vec![] },
            ..ClusterSpec::default()
        };
        let inputs = vec![
            at(2_000, Action::SlowDisk { node: 1, flush_ms: 300 }),
            at(2_000, Action::SlowDisk { node: 2, flush_ms: 300 }),
            at(3_000, Action::AddVoter { node: 3 }),
            at(3_050, Action::AddVoter { node: 4 }),
        ];
        let sim = Simulation::replay_once(spec, inputs, 6_000).unwrap();
        assert_eq!(sim.world().leader().map(|l| l.0), Some(0), "n0 leads throughout");
        let answers: Vec<(u32, &str)> = sim
            .trace()
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Admin { voter, error, .. } => Some((voter, error)),
                _ => None,
            })
            .collect();
        let violations: Vec<(Invariant, String)> = sim
            .violations()
            .filter_map(|e| match &e.kind {
                EventKind::Violation { invariant, detail, .. } => Some((*invariant, detail.to_string())),
                _ => None,
            })
            .collect();
        if unsafe_multi {
            assert_eq!(answers, [(3, "REQUEST_TIMED_OUT"), (4, "NONE")], "the second change superseded the first");
            assert!(!violations.is_empty());
            assert!(violations.iter().all(|(i, _)| *i == Invariant::SingleUncommittedVoterChange), "{violations:?}");
            assert!(violations[0].1.starts_with("n0's log holds voter-set records at "), "{violations:?}");
        } else {
            assert_eq!(answers, [(4, "REQUEST_TIMED_OUT"), (3, "NONE")], "one change at a time");
            assert_eq!(violations, vec![]);
        }
    }
    // Fast disks, unsafe, 10 ms apart: both changes are appended, the second after the first
    // committed. Nothing to report.
    let spec = ClusterSpec {
        voters: 3,
        observers: 2,
        seed: 5,
        kafka_release: Some("4.1".into()),
        quorum: Some(QuorumKind::Dynamic),
        unsafe_switches: vec![SafetySwitch::MultiVoterChange],
        ..ClusterSpec::default()
    };
    let inputs = vec![at(3_000, Action::AddVoter { node: 3 }), at(3_010, Action::AddVoter { node: 4 })];
    let sim = Simulation::replay_once(spec, inputs, 6_000).unwrap();
    let leader = sim.world().nodes[0].replica.as_ref().expect("n0 runs");
    let log = ReplicaCore::log(leader);
    let sets: Vec<usize> = log.read(0, 1_000).iter().filter_map(|r| r.voters()).map(|v| v.len()).collect();
    assert_eq!(sets, [3, 4, 5], "the leader's VotersRecords: its epoch's start, then the two changes");
    assert_eq!(sim.violations().count(), 0);
}
