//! One test per protocol rule, driven message by message. Each reads as a script:
//! what happens, then the exact messages that go out. The rules told by the messages and
//! the states they lead to are datadriven scripts, one file per rule group in
//! tests/testdata/protocol_rules/ (the commands are listed at the end of this file); the
//! rules told by measures (times, counts, whole logs) are Rust tests here.

mod support;

use kraft_base::rng::Rng;
use kraft_expect::datadriven::{self, Case};
use kraft_protocol::config::SafetySwitch;
use kraft_protocol::log::ReplicaLog;
use kraft_protocol::rpc::{
    BeginQuorumEpochRequest, EndQuorumEpochRequest, Envelope, FetchRequest, Message, VoteRequest,
};
use kraft_protocol::state::{ElectionState, EpochState};
use kraft_protocol::{
    ClientRecord, Ctx, IdSource, NodeId, Note, Output, QuorumConfig, RecordBody, ReplicaKey, StateName, Unsafe,
};
use kraft_sim::trace::EventKind;
use kraft_sim::{Action, ClusterSpec, Simulation};
use support::{log_of, Net};

fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn cold(voters: u32) -> Net {
    Net::new(voters, 0)
}

/// n0 leads 3 voters, everyone caught up and fetching, the transcript emptied.
fn settled_leader_0() -> Net {
    let mut net = cold(3);
    net.elect(0);
    net.settle(3);
    net.take_transcript();
    net
}

#[test]
fn a_follower_grants_pre_votes_until_it_has_fetched() {
    let mut net = cold(3);
    net.expire_election_timer(0);
    while net.state(0) != "leader" {
        net.deliver(1);
    }
    // Only the BeginQuorumEpochs arrive: n1 and n2 follow n0 but never fetch from it.
    let begins: Vec<_> = net.queue.drain(..).filter(|m| m.message.kind().name() == "BeginQuorumEpoch").collect();
    net.queue.extend(begins);
    net.deliver(2);
    net.drop_all();
    assert_eq!((net.state(1), net.state(2)), ("follower", "follower"));
    net.now += 2_000;
    net.with(2, |r, ctx| r.poll(ctx));
    assert_eq!(net.state(2), "prospective");
    net.deliver_all();
    let granted = net.notes.iter().any(|(n, note)| {
        *n == 1
            && matches!(note, Note::VoteDecided { candidate: 2, pre_vote: true, decision, .. } if decision.granted())
    });
    assert!(granted, "n1 never fetched from its leader, so it grants the pre-vote");
}

#[test]
fn votes_go_only_to_logs_at_least_as_up_to_date() {
    let mut net = Net::empty(3, Unsafe::default());
    let e = ElectionState { epoch: 3, leader: None, voted: None, voted_directory: None };
    net.start(0, e, log_of(&[1, 1, 2])); // shorter log, higher last epoch
    net.start(1, e, log_of(&[1, 1, 1, 1])); // longer log, lower last epoch
    net.start(2, e, log_of(&[1, 1, 2, 2]));
    net.drop_all();
    net.take_transcript();
    // n1 asks: (1, 4) < (2, 3) and < (2, 4): everyone refuses, epoch first.
    net.expire_election_timer(1);
    net.deliver_all();
    assert_ne!(net.state(1), "candidate");
    let refused = net
        .notes
        .iter()
        .filter(|(_, n)| matches!(n, Note::VoteDecided { candidate: 1, decision, .. } if decision.name() == "log-not-up-to-date"))
        .count();
    assert_eq!(refused, 2);
    // With vote-ignores-log the same request wins votes.
    let mut net = Net::empty(3, Unsafe::default().with(SafetySwitch::VoteIgnoresLog));
    net.start(0, e, log_of(&[1, 1, 2]));
    net.start(1, e, log_of(&[1, 1, 1, 1]));
    net.start(2, e, log_of(&[1, 1, 2, 2]));
    net.drop_all();
    net.expire_election_timer(1);
    net.deliver_all();
    assert_eq!(net.state(1), "leader", "unsafe: a stale log can win");
}

/// Raft paper figure 7: the leader of term 8 and six followers' logs. Epochs here are
/// Kafka epochs; offsets start at 0.
#[test]
fn figure_7_followers_converge_through_diverging_epochs() {
    let leader_log: &[u32] = &[1, 1, 1, 4, 4, 5, 5, 6, 6, 6];
    let cases: [(&str, &[u32], u64); 6] = [
        ("a", &[1, 1, 1, 4, 4, 5, 5, 6, 6], 0),
        ("b", &[1, 1, 1, 4], 0),
        ("c", &[1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 6], 1),
        ("d", &[1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 7, 7], 1),
        ("e", &[1, 1, 1, 4, 4, 4, 4], 1),
        ("f", &[1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3], 1),
    ];
    for (name, follower, truncations) in cases {
        let mut net = Net::empty(3, Unsafe::default());
        let e = ElectionState { epoch: 7, leader: None, voted: None, voted_directory: None };
        net.start(0, e, log_of(leader_log));
        net.start(1, e, log_of(follower));
        net.start(2, e, log_of(leader_log));
        net.drop_all();
        net.expire_election_timer(0);
        net.deliver_all();
        assert_eq!(net.state(0), "leader", "case {name}");
        net.settle(5);
        let epochs = |id| net.replica(id).log().records().map(|r| r.epoch).collect::<Vec<_>>();
        assert_eq!(epochs(1), epochs(0), "case {name}: follower log equals the leader's");
        let ids = |id| net.replica(id).log().records().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids(1), ids(0), "case {name}: same records, not just same epochs");
        let seen =
            net.notes.iter().filter(|(n, note)| *n == 1 && matches!(note, Note::Truncated { .. })).count() as u64;
        assert_eq!(seen, truncations, "case {name}: truncation rounds");
    }
}

#[test]
fn truncation_can_take_several_fetch_rounds() {
    // Leader epochs [1,1,2,2] (+ its LeaderChange at epoch 5); follower [1,1,1,3,3]: the
    // first answer names epoch 2, which the follower never had, so it truncates to the
    // end of its epoch 1 and asks again; the second answer cuts it to offset 2.
    let mut net = Net::empty(3, Unsafe::default());
    let e = ElectionState { epoch: 4, leader: None, voted: None, voted_directory: None };
    net.start(0, e, log_of(&[1, 1, 2, 2]));
    net.start(1, e, log_of(&[1, 1, 1, 3, 3]));
    net.start(2, e, log_of(&[1, 1, 2, 2]));
    net.drop_all();
    net.expire_election_timer(0);
    net.deliver_all();
    net.settle(5);
    let cuts: Vec<(u64, u64, Option<u32>)> = net
        .notes
        .iter()
        .filter_map(|(n, note)| match note {
            Note::Truncated { from_leo, to, diverging_epoch, .. } if *n == 1 => {
                Some((*from_leo, *to, *diverging_epoch))
            }
            _ => None,
        })
        .collect();
    assert_eq!(cuts, vec![(5, 3, Some(2)), (3, 2, Some(1))]);
    let epochs: Vec<u32> = net.replica(1).log().records().map(|r| r.epoch).collect();
    assert_eq!(epochs, vec![1, 1, 2, 2, 5]);
}

#[test]
fn a_follower_behind_on_the_hw_is_answered_at_once() {
    let mut net = cold(3);
    net.elect(0);
    net.tick(1);
    // Deliver until the leader has a HW but a follower still reports an older one.
    for _ in 0..200 {
        if net.replica(0).leader_state().unwrap().high_watermark.is_some() {
            break;
        }
        net.deliver(1);
    }
    assert_eq!(net.replica(0).leader_state().unwrap().high_watermark, Some(1));
    net.deliver_all();
    let answered_empty = net
        .transcript
        .iter()
        .filter(|l| l.starts_with("n0 -> ") && l.contains("FetchResponse") && l.contains("hw=1 records=none"))
        .count();
    assert!(answered_empty >= 1, "KIP-1166: a fetch carrying an older HW is not parked: {:#?}", net.transcript);
}

#[test]
fn check_quorum_makes_a_cut_off_leader_resign() {
    let mut net = cold(3);
    net.elect(0);
    net.tick(1);
    net.deliver_all();
    net.cut = vec![(0, 1), (0, 2), (1, 0), (2, 0)];
    let start = net.now;
    while net.state(0) == "leader" && net.now < start + 10_000 {
        net.tick(100);
        net.deliver_all();
    }
    assert_eq!(net.state(0), "resigned");
    let waited = net.now - start;
    assert!((3_000..=3_200).contains(&waited), "1.5 x fetch.timeout.ms = 3 s, took {waited}");
    assert!(net.transitions(0).last().unwrap().contains("check-quorum-failed"));
}

#[test]
fn without_check_quorum_a_cut_off_leader_stays_leader() {
    let mut net = Net::with_switches(3, 0, Unsafe::default().with(SafetySwitch::NoCheckQuorum));
    net.elect(0);
    net.cut = vec![(0, 1), (0, 2), (1, 0), (2, 0)];
    for _ in 0..100 {
        net.tick(100);
        net.deliver_all();
    }
    assert_eq!(net.state(0), "leader", "KAFKA-15489");
}

/// Kafka's LeaderState.timeUntilCheckQuorumExpires returns Long.MAX_VALUE for a lone
/// voter: its leader never checks quorum, so there is no check-quorum timer to show;
/// nor with check-quorum switched off. A leader of three shows one.
#[test]
fn only_a_leader_that_checks_quorum_shows_a_check_quorum_timer() {
    let mut alone = Net::new(1, 1);
    assert_eq!(alone.state(0), "leader");
    assert_eq!(alone.replica(0).state_timer(), None, "a lone voter never checks quorum");
    alone.tick(10_000);
    alone.deliver_all();
    assert_eq!((alone.state(0), alone.replica(0).state_timer()), ("leader", None));
    let mut unchecked = Net::with_switches(3, 0, Unsafe::default().with(SafetySwitch::NoCheckQuorum));
    unchecked.elect(0);
    assert_eq!(unchecked.replica(0).state_timer(), None, "no-check-quorum: the leader never checks");
    let mut three = cold(3);
    three.elect(0);
    let (deadline, total) = three.replica(0).state_timer().expect("a leader of three checks quorum");
    assert_eq!(total, 3_000, "1.5 x fetch.timeout.ms");
    assert!(deadline > three.now && deadline <= three.now + total, "{deadline} vs now {}", three.now);
}

#[test]
fn observers_never_vote_and_never_count_toward_the_hw() {
    let mut net = observer_3_following_leader_0();
    assert!(!net.replica(3).is_voter());
    assert!(net.replica(3).next_deadline(net.now).is_some());
    // Cut both voters off: the observer's fetches cannot move the HW.
    let hw = net.replica(0).leader_state().unwrap().high_watermark;
    net.cut = vec![(1, 0), (2, 0), (0, 1), (0, 2)];
    net.with(0, |r, ctx| r.write(ctx, RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 1 })).0).unwrap();
    for _ in 0..5 {
        net.tick(30);
        net.deliver_all();
    }
    assert_eq!(net.replica(3).log().end_offset(), 2, "the observer replicated the record");
    assert_eq!(net.replica(0).leader_state().unwrap().high_watermark, hw, "but it does not count");
}

/// Three voters and an observer, n3. The leader announces itself to voters only; the
/// observer finds it by fetching from a bootstrap voter once its startup fetch (dropped)
/// times out.
fn observer_3_following_leader_0() -> Net {
    let mut net = Net::new(3, 1);
    net.elect(0);
    assert_eq!(net.state(3), "unattached");
    for _ in 0..21 {
        net.tick(100);
        net.deliver_all();
    }
    assert_eq!(net.state(3), "follower");
    net
}

/// Three voters with an edited config; n0 elected, everyone caught up.
fn elected_with(edit: impl FnOnce(&mut QuorumConfig)) -> Net {
    let mut net = Net::empty(3, Unsafe::default());
    edit(&mut net.config);
    for id in 0..3 {
        net.start(id, ElectionState::default(), ReplicaLog::default());
    }
    net.drop_all();
    net.elect(0);
    net.settle(3);
    net
}

fn fetch_deadline(net: &Net, id: NodeId) -> u64 {
    match net.replica(id).state() {
        EpochState::Follower(f) => f.fetch_deadline,
        other => panic!("n{id} should follow, is {:?}", other.name()),
    }
}

fn from_leader_0(to: NodeId, message: Message) -> Envelope {
    Envelope { from: 0, to, correlation: 500, message }
}

/// FollowerState.overrideFetchTimeout (from handleEndQuorumEpochRequest): the follower's
/// fetch timer is set to the successor backoff, even when it was due sooner.
#[test]
fn end_quorum_epoch_sets_the_fetch_timer_even_when_it_was_due_sooner() {
    let mut net = settled_leader_0();
    net.now = fetch_deadline(&net, 2) - 100;
    // n2 is second of two successors: (1000 >> 1) << 0 = 500 ms.
    let end = Message::EndQuorumEpoch(EndQuorumEpochRequest { leader_epoch: 1, preferred_successors: vec![1, 2] });
    net.with(2, |r, ctx| r.handle(ctx, from_leader_0(2, end)));
    assert_eq!(fetch_deadline(&net, 2) - net.now, 500, "not the 100 ms that were left");
}

/// KafkaRaftClient.maybeSendFetchToBestNode with RequestManager.findReadyBootstrapServer:
/// once its Fetch to the leader timed out, the connection is reset and the next Fetch goes
/// to a random bootstrap voter (the leader among them); a non-leader answers
/// NOT_LEADER_OR_FOLLOWER naming the leader, and the follower asks the leader again.
#[test]
fn after_its_leader_request_times_out_a_follower_fetches_from_a_random_bootstrap_voter() {
    // A request timeout well inside the fetch timeout, so the follower keeps following.
    let mut net = elected_with(|c| {
        c.request_timeout_ms = 1_000;
        c.fetch_timeout_ms = 20_000;
    });
    net.take_transcript();
    net.cut = vec![(0, 1)]; // n1's fetches reach the leader, the answers never come back
    let mut after_timeout = Vec::new();
    for _ in 0..100 {
        net.tick(100);
        net.deliver_all();
        let fetches = net.take_transcript().into_iter().filter(|l| l.starts_with("n1 -> ") && l.contains(" Fetch e"));
        after_timeout.extend(fetches);
    }
    assert_eq!(net.state(1), "follower");
    let targets: std::collections::BTreeSet<&str> = after_timeout.iter().map(|l| &l[6..8]).collect();
    assert_eq!(targets, ["n0", "n2"].into_iter().collect(), "{after_timeout:#?}");
    // Each Fetch to n2 is answered NOT_LEADER_OR_FOLLOWER (leader n0), then n1 asks n0.
    let to_n2 = after_timeout.iter().position(|l| l.starts_with("n1 -> n2 Fetch")).unwrap();
    assert!(after_timeout[to_n2 + 1].starts_with("n1 -> n0 Fetch"), "{after_timeout:#?}");
}

/// KafkaRaftClient.pollFollowerAsObserver has no fetch timeout (and QuorumState forbids
/// a same-epoch Follower -> Unattached for an observer): an observer cut off from its
/// leader stays its Follower, its requests timing out and going to bootstrap voters.
#[test]
fn an_observer_never_fetch_times_out() {
    let mut net = observer_3_following_leader_0();
    assert_eq!((net.state(3), net.replica(3).leader_id()), ("follower", Some(0)));
    assert_eq!(net.replica(3).state_timer(), None, "no fetch timer to show");
    net.take_transcript();
    net.notes.clear();
    net.cut = vec![(0, 3), (3, 0)];
    for _ in 0..100 {
        net.tick(100);
        net.deliver_all();
    }
    assert!(net.transitions(3).is_empty(), "10 s without its leader: {:?}", net.transitions(3));
    assert_eq!((net.state(3), net.replica(3).epoch()), ("follower", 1));
    let asked: Vec<String> = net.take_transcript().into_iter().filter(|l| l.starts_with("n3 -> ")).collect();
    assert!(asked.iter().any(|l| l.starts_with("n3 -> n1 Fetch") || l.starts_with("n3 -> n2 Fetch")), "{asked:#?}");
}

/// QuorumState.transitionToLeader and transitionToResigned: neither state carries the HW
/// of the state before it, so a new leader, and a resigned one, has none at first.
#[test]
fn the_high_watermark_is_not_carried_into_leader_or_resigned() {
    let mut net = settled_leader_0();
    assert_eq!((net.replica(0).high_watermark(), net.replica(1).high_watermark()), (Some(1), Some(1)));
    net.with(0, |r, ctx| r.resign(ctx.now).0.unwrap());
    net.tick(0);
    assert_eq!(net.state(0), "resigned");
    assert_eq!(net.replica(0).high_watermark(), None);
    while net.state(1) != "leader" {
        assert!(net.deliver(1) == 1, "n1 should win epoch 2");
    }
    assert_eq!(net.replica(1).high_watermark(), None, "a new leader has no HW until its epoch commits");
    // Unattached after Resigned inherits nothing either (it takes the Resigned state's HW).
    assert_eq!((net.state(0), net.replica(0).high_watermark()), ("unattached", None));
    net.settle(3);
    assert_eq!(net.replica(1).high_watermark(), Some(2), "its LeaderChange at offset 1 committed");
}

/// LeaderState.election: the leader's quorum-state names it as leader and holds no
/// votedId (a candidate's own vote is not kept once it leads).
#[test]
fn the_leaders_quorum_state_file_has_no_voted_id() {
    let mut net = cold(3);
    net.expire_election_timer(0);
    net.deliver(3);
    assert_eq!(
        net.replica(0).election_state(),
        ElectionState { epoch: 1, leader: None, voted: Some(0), voted_directory: None }
    );
    net.deliver_all();
    assert_eq!(net.state(0), "leader");
    assert_eq!(
        net.replica(0).election_state(),
        ElectionState { epoch: 1, leader: Some(0), voted: None, voted_directory: None }
    );
    assert_eq!(net.replica(0).durable().election.voted, None);
}

/// One replica driven by hand, its outputs returned instead of routed.
fn drive<T>(net: &mut Net, id: NodeId, f: impl FnOnce(&mut kraft_protocol::Replica, &mut Ctx) -> T) -> Vec<Output> {
    let (mut out, mut rng, mut ids) = (Vec::new(), Rng::new(1), IdSource::default());
    let mut ctx = Ctx { now: net.now, rng: &mut rng, ids: &mut ids, out: &mut out };
    let _answer = f(net.replicas.get_mut(&id).unwrap(), &mut ctx);
    out
}

fn kinds(out: &[Output]) -> Vec<String> {
    out.iter()
        .map(|o| match o {
            Output::Send(e) => format!("send {}", e.message.kind().name()),
            Output::Flush { up_to } => format!("flush {up_to}"),
            Output::Note(Note::Appended { first, last, .. }) => format!("append {first}..{last}"),
            Output::Note(Note::HighWatermark { old, new, .. }) => format!("hw {old:?} -> {new}"),
            Output::Note(_) => "note".into(),
        })
        .filter(|k| k != "note")
        .collect()
}

/// A Fetch response from n0 answering `to`'s outstanding Fetch with two new records and
/// a HW past them: `to`'s answer to the first write is held back while the other voter
/// commits two writes, then the leader answers `to` at offset 1.
fn lagging_fetch_response(net: &mut Net, to: NodeId) -> Envelope {
    net.with(0, |r, ctx| r.write(ctx, RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 1 })).0).unwrap();
    net.tick(25);
    let held = net.queue.iter().position(|e| e.to == to && e.message.kind().name() == "FetchResponse").unwrap();
    let held = net.queue.remove(held).unwrap();
    net.deliver_all();
    net.with(0, |r, ctx| r.write(ctx, RecordBody::Client(ClientRecord::RegisterBroker { broker_id: 2 })).0).unwrap();
    net.tick(25);
    net.deliver_all();
    net.settle(3);
    assert_eq!(net.replica(0).high_watermark(), Some(3));
    let fetch = Message::Fetch(FetchRequest {
        current_leader_epoch: 1,
        replica_directory: None,
        fetch_offset: 1,
        last_fetched_epoch: 1,
        high_watermark: Some(1),
        max_wait_ms: 500,
        max_bytes: 1 << 20,
    });
    net.with(0, |r, ctx| r.handle(ctx, Envelope { from: to, to: 0, correlation: 77, message: fetch }));
    let answer = net.queue.pop_back().expect("the leader answers at once");
    net.drop_all();
    Envelope { correlation: held.correlation, ..answer }
}

/// A 3-voter datacenter cluster (1-5 ms links) with a settled leader; returns it, the
/// leader, one follower and that follower's fetch deadline.
fn settled_cluster(seed: u64) -> (Simulation, NodeId, NodeId, u64) {
    let mut sim = Simulation::new(ClusterSpec { voters: 3, seed, ..ClusterSpec::default() }).unwrap();
    sim.advance(3_000).unwrap();
    let (leader, _) = sim.world().leader().expect("a leader within 3 s");
    let follower = (leader + 1) % 3;
    let deadline = match sim.world().nodes[follower as usize].replica.as_ref().unwrap().state() {
        EpochState::Follower(f) => f.fetch_deadline,
        other => panic!("n{follower} should follow, is {:?}", other.name()),
    };
    (sim, leader, follower, deadline)
}

/// When `node` became Prospective after `since`, and why.
fn became_prospective(sim: &Simulation, node: NodeId, since: u64) -> (u64, String) {
    sim.trace()
        .iter()
        .filter(|e| e.t >= since)
        .find_map(|e| match &e.kind {
            EventKind::State { node: n, to: StateName::Prospective, reason, .. } if *n == node => {
                Some((e.t, reason.name().to_string()))
            }
            _ => None,
        })
        .expect("became prospective")
}

/// Kafka: a request to a crashed node fails at its sender (NetworkClient completes it as
/// disconnected; KafkaNetworkChannel.sendOnComplete makes that BROKER_NOT_AVAILABLE),
/// KafkaRaftClient.handleTopLevelError reports it as not handled, and
/// RequestManager.onResponseResult backs the connection off for retry.backoff.ms. The
/// follower keeps retrying its dead leader (between tries it asks the other voter,
/// maybeSendFetchToBestNode), but only the fetch timer (pollFollowerAsVoter) detects it.
#[test]
fn a_disconnected_fetch_backs_off_retry_backoff_ms_and_the_fetch_timeout_still_decides() {
    let (mut sim, leader, follower, deadline) = settled_cluster(7);
    let crash_at = sim.now();
    sim.act(Action::Crash { node: leader }).unwrap();
    sim.advance(3_000).unwrap();
    let (prospective_at, reason) = became_prospective(&sim, follower, crash_at);
    assert_eq!(
        (prospective_at, reason.as_str()),
        (deadline, "fetch-timeout"),
        "detection time is the fetch deadline set by the last successful fetch"
    );
    let failed: Vec<u64> = sim
        .trace()
        .iter()
        .filter(|e| e.t >= crash_at && e.t <= prospective_at)
        .filter_map(|e| match &e.kind {
            EventKind::Disconnect { node, peer, rpc, sent } if *node == follower && *peer == leader => {
                assert_eq!(rpc.name(), "Fetch");
                assert!(e.t > *sent, "the failure travels back from the dead node");
                Some(e.t)
            }
            _ => None,
        })
        .collect();
    // The first failure is the held Fetch's connection reset, within one round trip.
    assert!(failed[0] <= crash_at + 11, "first failure at {} after a crash at {crash_at}", failed[0]);
    // Then one attempt per retry.backoff.ms (20) plus the refused round trip (at most
    // 5 + 1 ms) plus, at worst, waiting out a Fetch to the other voter (10 ms).
    for w in failed.windows(2) {
        let gap = w[1] - w[0];
        assert!((22..=36).contains(&gap), "attempts {} ms apart: {failed:?}", gap);
    }
    let window = prospective_at - crash_at;
    assert!(failed.len() as u64 >= window / 36, "{} failed attempts in {window} ms", failed.len());
}

/// A partitioned peer is not a crashed one: no connection is refused, nothing comes back,
/// and the sender waits for request.timeout.ms (RequestManager.hasRequestTimedOut).
#[test]
fn a_partitioned_leader_fails_nothing_fast_and_the_fetch_timeout_decides() {
    let (mut sim, leader, follower, deadline) = settled_cluster(7);
    let cut_at = sim.now();
    sim.act(Action::Isolate { node: leader }).unwrap();
    sim.advance(3_000).unwrap();
    assert_eq!(became_prospective(&sim, follower, cut_at), (deadline, "fetch-timeout".to_string()));
    let fast_failures = sim.trace().iter().filter(|e| matches!(e.kind, EventKind::Disconnect { .. })).count();
    assert_eq!(fast_failures, 0, "no disconnect reaches anyone across a partition");
}
// ---------------------------------------------------------------------------------------
// The scripted rules: tests/testdata/protocol_rules/*.txt, one file per rule group, each a
// datadriven script (see tests/expect/datadriven.rs) of the commands below and the exact
// output each prints; `UPDATE=1` rewrites the expected blocks with what the code prints.
//
// Setting up (print nothing):
//   net voters=N [observers=M] [unsafe=a,b]   a cold cluster (`Net::with_switches`), silent
//   empty voters=N [unsafe=..] [request-timeout-ms=..] [fetch-timeout-ms=..] [fetch-max-bytes=..]
//                                              no replicas yet, the config edited
//   start ID [epoch=E leader=L voted=V] [log=e0,e1,..]   starts a replica on that disk
//   restart ID                                 starts it again on its own disk
// Acting (print nothing, but `write`):
//   elect ID | expire-election-timer ID | poll ID | tick MS
//   settle ROUNDS [ms=MS]                      ROUNDS times: MS (1) pass, all is delivered
//   advance-clock MS                           time passes, nobody is polled
//   deliver [N]                                N queued messages (all without N)
//   deliver-while-queued KIND                  one at a time while a KIND is queued
//   drop                                       drops every queued message
//   cut A>B,..  |  uncut                       links that drop everything, or none
//   write ID broker=B                          a write at ID: prints the offset it got
//   resign ID                                  a graceful resignation
//   receive KIND from=A to=B ..                a request handled by B at once (see `receive`)
//   clear transcript|notes
// Showing:
//   transcript [only=TEXT] [first=N]           the messages sent since last shown or cleared
//   status ID | election-state ID | durable ID | leader-state ID | log ID | record ID OFFSET
//   parked ID | fetch-timer ID | transitions ID
//   votes [by=ID] [candidate=ID] [pre-vote=BOOL]          the vote decisions noted
//   vote-decision ID candidate=C [up-to-date] [pre-vote]  what ID would decide now
// One replica by hand, its outputs shown instead of routed (`drive`):
//   hold-lagging-fetch-response to=ID          see `lagging_fetch_response`: shows the answer
//   drive ID handle-held | drive ID [flushed=OFFSET] poll
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct Script {
    net: Option<Net>,
    held: Option<Envelope>,
}

fn switches(case: &Case) -> Unsafe {
    let mut switches = Unsafe::default();
    for name in case.get("unsafe").unwrap_or("").split(',').filter(|n| !n.is_empty()) {
        let s = SafetySwitch::ALL.iter().find(|s| s.name() == name);
        switches = switches.with(*s.unwrap_or_else(|| panic!("{}: no safety switch {name}", case.at())));
    }
    switches
}

fn node(case: &Case) -> NodeId {
    case.first().unwrap_or_else(|| panic!("{}: which node?", case.at()))
}

fn number<T: std::str::FromStr>(case: &Case) -> T {
    case.first().unwrap_or_else(|| panic!("{}: how many?", case.at()))
}

fn opt(id: Option<NodeId>) -> String {
    id.map(|n| format!("n{n}")).unwrap_or_else(|| "none".into())
}

fn election(e: &ElectionState) -> String {
    format!("epoch={} leader={} voted={}", e.epoch, opt(e.leader), opt(e.voted))
}

fn message_line(e: &Envelope) -> String {
    format!("n{} -> n{} {} e{} {}", e.from, e.to, e.message.kind().name(), e.message.epoch(), e.message.summary())
}

/// What one replica driven by hand put out, as `kinds` names it, with every message sent
/// written out in full.
fn outputs(out: &[Output]) -> Vec<String> {
    out.iter()
        .filter_map(|o| match o {
            Output::Send(e) => Some(format!("send {}", message_line(e))),
            Output::Note(Note::Appended { .. } | Note::HighWatermark { .. }) | Output::Flush { .. } => {
                Some(kinds(std::slice::from_ref(o)).remove(0))
            }
            Output::Note(_) => None,
        })
        .collect()
}

/// A request that arrives at `to` now, handled at once: `Vote` (epoch, last-epoch,
/// last-offset, pre-vote), `BeginQuorumEpoch` (epoch), `EndQuorumEpoch` (epoch,
/// successors), `Fetch` (epoch, offset, last-epoch, hw, max-wait-ms, max-bytes).
fn receive(case: &Case, net: &mut Net) {
    let kind = case.args.iter().find(|(_, v)| v.is_empty()).map(|(k, _)| k.as_str());
    let epoch = case.need("epoch");
    let message = match kind {
        Some("Vote") => Message::Vote(VoteRequest {
            replica_epoch: epoch,
            candidate_directory: None,
            voter_key: ReplicaKey::new(case.need("to"), None),
            last_offset_epoch: case.need("last-epoch"),
            last_offset: case.need("last-offset"),
            pre_vote: case.has("pre-vote"),
        }),
        Some("BeginQuorumEpoch") => Message::BeginQuorumEpoch(BeginQuorumEpochRequest {
            leader_epoch: epoch,
            voter_key: ReplicaKey::new(case.need("to"), None),
        }),
        Some("EndQuorumEpoch") => Message::EndQuorumEpoch(EndQuorumEpochRequest {
            leader_epoch: epoch,
            preferred_successors: case.list("successors"),
        }),
        Some("Fetch") => Message::Fetch(FetchRequest {
            current_leader_epoch: epoch,
            replica_directory: None,
            fetch_offset: case.need("offset"),
            last_fetched_epoch: case.need("last-epoch"),
            high_watermark: case.num("hw"),
            max_wait_ms: case.need("max-wait-ms"),
            max_bytes: case.need("max-bytes"),
        }),
        other => panic!("{}: cannot receive {other:?}", case.at()),
    };
    let (from, to): (NodeId, NodeId) = (case.need("from"), case.need("to"));
    let envelope = Envelope { from, to, correlation: case.need("correlation"), message };
    net.with(to, |r, ctx| r.handle(ctx, envelope));
}

impl Script {
    fn run(&mut self, case: &Case) -> String {
        let at = case.at();
        match case.cmd.as_str() {
            "net" => {
                let observers = case.num("observers").unwrap_or(0);
                self.net = Some(Net::with_switches(case.need("voters"), observers, switches(case)));
                self.held = None;
                return String::new();
            }
            "empty" => {
                let mut net = Net::empty(case.need("voters"), switches(case));
                if let Some(ms) = case.num("request-timeout-ms") {
                    net.config.request_timeout_ms = ms;
                }
                if let Some(ms) = case.num("fetch-timeout-ms") {
                    net.config.fetch_timeout_ms = ms;
                }
                if let Some(bytes) = case.num("fetch-max-bytes") {
                    net.config.fetch_max_bytes = bytes;
                }
                self.net = Some(net);
                self.held = None;
                return String::new();
            }
            _ => {}
        }
        let net = self.net.as_mut().unwrap_or_else(|| panic!("{at}: no `net` or `empty` before it"));
        let mut out: Vec<String> = Vec::new();
        match case.cmd.as_str() {
            "start" => {
                let e = ElectionState {
                    epoch: case.num("epoch").unwrap_or(0),
                    leader: case.num("leader"),
                    voted: case.num("voted"),
                    voted_directory: None,
                };
                let log = if case.has("log") { log_of(&case.list("log")) } else { ReplicaLog::default() };
                net.start(node(case), e, log);
            }
            "restart" => {
                let id = node(case);
                let disk = net.replica(id).durable();
                net.start(id, disk.election, disk.log);
            }
            "elect" => net.elect(node(case)),
            "expire-election-timer" => net.expire_election_timer(node(case)),
            "poll" => {
                let _wake = net.with(node(case), |r, ctx| r.poll(ctx));
            }
            "tick" => net.tick(number(case)),
            "settle" => match case.num("ms") {
                None => net.settle(number(case)),
                Some(ms) => {
                    for _ in 0..number(case) {
                        net.tick(ms);
                        net.deliver_all();
                    }
                }
            },
            "advance-clock" => net.now += number::<u64>(case),
            "deliver" => {
                match case.first::<usize>() {
                    Some(n) => assert_eq!(net.deliver(n), n, "{at}: fewer messages queued"),
                    None => net.deliver_all(),
                };
            }
            "deliver-while-queued" => {
                let kind = case.args.first().map(|(k, _)| k.clone()).unwrap_or_default();
                while net.queue.iter().any(|m| m.message.kind().name() == kind) {
                    net.deliver(1);
                }
            }
            "drop" => net.drop_all(),
            "cut" => {
                net.cut = case.args[0]
                    .0
                    .split(',')
                    .map(|link| {
                        let (a, b) = link.split_once('>').unwrap_or_else(|| panic!("{at}: {link} is not A>B"));
                        (a.parse().unwrap(), b.parse().unwrap())
                    })
                    .collect()
            }
            "uncut" => net.cut.clear(),
            "write" => {
                let broker_id = case.need("broker");
                let (offset, _wake) = net.with(node(case), |r, ctx| {
                    r.write(ctx, RecordBody::Client(ClientRecord::RegisterBroker { broker_id }))
                });
                out.push(format!("offset {}", offset.unwrap_or_else(|e| panic!("{at}: {e}"))));
            }
            "resign" => net.with(node(case), |r, ctx| r.resign(ctx.now).0.unwrap()),
            "receive" => receive(case, net),
            "clear" => match case.args.first().map(|(k, _)| k.as_str()) {
                Some("transcript") => net.transcript.clear(),
                Some("notes") => net.notes.clear(),
                other => panic!("{at}: cannot clear {other:?}"),
            },
            "transcript" => {
                let mut t = net.take_transcript();
                if let Some(only) = case.get("only") {
                    t.retain(|l| l.contains(only));
                }
                if let Some(n) = case.num::<usize>("first") {
                    assert!(t.len() >= n, "{at}: only {} messages: {t:#?}", t.len());
                    t.truncate(n);
                }
                out = if t.is_empty() { lines(&["(no messages)"]) } else { t };
            }
            "status" => {
                let r = net.replica(node(case));
                out.push(format!("{} e{} leader={}", r.state_name().name(), r.epoch(), opt(r.leader_id())));
            }
            "election-state" => out.push(election(&net.replica(node(case)).election_state())),
            "durable" => out.push(election(&net.replica(node(case)).durable().election)),
            "leader-state" => {
                let l = net.replica(node(case)).leader_state().unwrap_or_else(|| panic!("{at}: not a leader"));
                out.push(format!("epoch-start-offset={} hw={:?}", l.epoch_start_offset, l.high_watermark));
            }
            "log" => {
                let r = net.replica(node(case));
                out.push(format!(
                    "end={} flushed={} hw={:?}",
                    r.log().end_offset(),
                    r.log().flushed_offset(),
                    r.high_watermark()
                ));
            }
            "record" => {
                let offset = case.args.get(1).map(|(k, _)| k.parse().unwrap()).expect("record ID OFFSET");
                let r = net.replica(node(case)).log().get(offset).unwrap_or_else(|| panic!("{at}: no record"));
                out.push(format!("offset={} epoch={} {} {} bytes", r.offset, r.epoch, r.body.kind(), r.size_bytes()));
            }
            "parked" => {
                let now = net.now;
                let l = net.replica(node(case)).leader_state().unwrap_or_else(|| panic!("{at}: not a leader"));
                out.extend(
                    l.parked
                        .iter()
                        .map(|p| format!("n{} offset={} expires in {} ms", p.from, p.fetch_offset, p.deadline - now)),
                );
                if out.is_empty() {
                    out.push("(none)".into());
                }
            }
            "fetch-timer" => out.push(format!("expires in {} ms", fetch_deadline(net, node(case)) - net.now)),
            "transitions" => out = net.transitions(node(case)),
            "votes" => {
                let (by, of, pre) =
                    (case.num::<NodeId>("by"), case.num::<NodeId>("candidate"), case.num::<bool>("pre-vote"));
                out = net
                    .notes
                    .iter()
                    .filter_map(|(n, note)| match note {
                        Note::VoteDecided { candidate, epoch, pre_vote, decision }
                            if by.is_none_or(|b| b == *n)
                                && of.is_none_or(|c| c == *candidate)
                                && pre.is_none_or(|p| p == *pre_vote) =>
                        {
                            Some(format!("n{n} on n{candidate} e{epoch} pre-vote={pre_vote}: {}", decision.name()))
                        }
                        _ => None,
                    })
                    .collect();
            }
            "vote-decision" => {
                let state = net.replica(node(case)).state();
                let decision = kraft_protocol::election::vote_decision(
                    state,
                    ReplicaKey::new(case.need("candidate"), None),
                    case.has("up-to-date"),
                    case.has("pre-vote"),
                );
                out.push(decision.name().to_string());
            }
            "hold-lagging-fetch-response" => {
                let held = lagging_fetch_response(net, case.need("to"));
                out.push(message_line(&held));
                self.held = Some(held);
            }
            "drive" => {
                let id = node(case);
                let held = if case.has("handle-held") { self.held.take() } else { None };
                let flushed = case.num::<u64>("flushed");
                let polls = case.has("poll");
                assert!(
                    held.is_some() || polls,
                    "{at}: drive what? (handle-held after hold-lagging-fetch-response, or poll)"
                );
                out = outputs(&drive(net, id, |r, ctx| {
                    // The harness drives by hand: the replica's answers (Wake) are not read.
                    if let Some(env) = held {
                        let _wake = r.handle(ctx, env);
                    }
                    if let Some(up_to) = flushed {
                        let _wake = r.flushed(ctx.now, up_to);
                    }
                    if polls {
                        let _wake = r.poll(ctx);
                    }
                }));
            }
            other => panic!("{at}: no command {other}"),
        }
        out.iter().map(|l| format!("{l}\n")).collect()
    }
}

/// The rule groups scripted in tests/testdata/protocol_rules/.
const SCRIPTS: [&str; 5] = ["elections", "resignation", "fetch", "flush", "prospective"];

fn testdata() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/protocol_rules")
}

fn run_script(name: &str) {
    let mut script = Script::default();
    datadriven::run_file(&testdata().join(format!("{name}.txt")), |case| script.run(case));
}

#[test]
fn scripted_elections() {
    run_script("elections");
}

#[test]
fn scripted_resignation() {
    run_script("resignation");
}

#[test]
fn scripted_fetch() {
    run_script("fetch");
}

#[test]
fn scripted_flush() {
    run_script("flush");
}

#[test]
fn scripted_prospective() {
    run_script("prospective");
}

/// Every script in the directory runs (a new file must be added to `SCRIPTS`).
#[test]
fn every_script_is_run() {
    let mut found: Vec<String> = std::fs::read_dir(testdata())
        .expect("the scripts' directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut listed: Vec<String> = SCRIPTS.iter().map(|s| format!("{s}.txt")).collect();
    listed.sort();
    assert_eq!(found, listed);
}
