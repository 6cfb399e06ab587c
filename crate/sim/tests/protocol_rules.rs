//! One test per protocol rule, driven message by message. Each reads as a script:
//! what happens, then the exact messages that go out.

mod support;

use kraft_base::rng::Rng;
use kraft_protocol::config::SafetySwitch;
use kraft_protocol::log::ReplicaLog;
use kraft_protocol::rpc::{
    BeginQuorumEpochRequest, EndQuorumEpochRequest, Envelope, FetchRequest, FetchResponse, Message, VoteRequest,
};
use kraft_protocol::state::{ElectionState, EpochState};
use kraft_protocol::{Ctx, IdSource, NodeId, Note, Output, QuorumConfig, RecordBody, StateName, Unsafe};
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
fn pre_vote_then_vote_then_leader_change_record() {
    let mut net = cold(3);
    net.expire_election_timer(0);
    assert_eq!(net.state(0), "prospective");
    assert_eq!(
        net.take_transcript(),
        lines(&["n0 -> n1 PreVote e0 lastEpoch=0 lastOffset=0", "n0 -> n2 PreVote e0 lastEpoch=0 lastOffset=0",]),
        "a pre-vote asks at the current epoch: nothing is persisted or bumped"
    );
    assert_eq!(net.replica(0).election_state().epoch, 0);
    net.deliver(2);
    assert_eq!(
        net.take_transcript(),
        lines(&["n1 -> n0 PreVoteResponse e0 granted=true", "n2 -> n0 PreVoteResponse e0 granted=true"])
    );
    net.deliver(1);
    assert_eq!(net.state(0), "candidate", "self + one grant is a majority of 3");
    assert_eq!(
        net.take_transcript(),
        lines(&["n0 -> n1 Vote e1 lastEpoch=0 lastOffset=0", "n0 -> n2 Vote e1 lastEpoch=0 lastOffset=0"]),
        "the candidate bumps the epoch (persisted, voted for itself) and asks for votes"
    );
    assert_eq!(net.replica(0).election_state(), ElectionState { epoch: 1, leader: None, voted: Some(0) });
    net.deliver(1); // n2's late pre-vote response: the pre-vote is over, ignored
    assert!(net.take_transcript().is_empty());
    net.deliver(2);
    let t = net.take_transcript();
    assert_eq!(&t[..1], &lines(&["n1 -> n0 VoteResponse e1 granted=true"])[..]);
    assert_eq!(net.replica(1).election_state(), ElectionState { epoch: 1, leader: None, voted: Some(0) });
    net.deliver(1);
    assert_eq!(net.state(0), "leader");
    let t = net.take_transcript();
    assert_eq!(
        &t[..2],
        &lines(&["n0 -> n1 BeginQuorumEpoch e1 ", "n0 -> n2 BeginQuorumEpoch e1 "])[..],
        "the new leader announces itself to every voter"
    );
    let lc = net.replica(0).log().get(0).expect("LeaderChange at the epoch start offset");
    assert_eq!((lc.offset, lc.epoch, lc.body.kind()), (0, 1, "LeaderChange"));
    assert_eq!(net.replica(0).leader_state().unwrap().epoch_start_offset, 0);
}

#[test]
fn followers_that_fetched_reject_pre_votes_and_the_prospective_returns_to_its_leader() {
    let mut net = cold(3);
    net.elect(0);
    net.tick(1);
    net.deliver_all();
    assert_eq!(net.state(2), "follower");
    net.drop_all();
    net.take_transcript();
    // n2 stops hearing from the leader while n1 keeps fetching; n2's fetch timer fires and
    // it asks for pre-votes.
    net.cut = vec![(0, 2)];
    net.tick(1_000);
    net.deliver_all();
    net.now += 1_000;
    net.with(2, |r, ctx| r.poll(ctx));
    assert_eq!(net.state(2), "prospective");
    net.cut.clear();
    let asked: Vec<String> = net.take_transcript().into_iter().filter(|l| l.contains("PreVote")).collect();
    assert_eq!(
        asked,
        lines(&["n2 -> n0 PreVote e1 lastEpoch=1 lastOffset=1", "n2 -> n1 PreVote e1 lastEpoch=1 lastOffset=1"])
    );
    net.deliver_all();
    let decisions: Vec<String> = net
        .notes
        .iter()
        .filter_map(|(n, note)| match note {
            Note::VoteDecided { candidate: 2, pre_vote: true, decision, .. } => {
                Some(format!("n{n}: {}", decision.name()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(decisions, lines(&["n0: is-leader", "n1: follower-has-fetched"]));
    assert_eq!(net.state(2), "follower", "a rejected pre-vote returns to the known leader");
    assert_eq!(net.replica(2).epoch(), 1, "and no epoch was bumped: the leader was never disturbed");
    assert_eq!(net.state(0), "leader");
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
fn a_vote_is_granted_once_per_epoch_and_persisted_before_the_answer() {
    let mut net = Net::empty(3, Unsafe::default());
    for id in 0..3 {
        net.start(id, ElectionState::default(), ReplicaLog::default());
    }
    net.drop_all();
    // Two candidates in epoch 1 (pre-vote switched off by hand: Candidate directly).
    net.with(0, |r, ctx| {
        r.poll(ctx);
    });
    net.drop_all();
    let vote = |from: u32| kraft_protocol::rpc::Envelope {
        from,
        to: 2,
        correlation: 99,
        message: Message::Vote(VoteRequest { replica_epoch: 1, last_offset_epoch: 0, last_offset: 0, pre_vote: false }),
    };
    net.with(2, |r, ctx| r.handle(ctx, vote(0)));
    assert_eq!(net.replica(2).election_state().voted, Some(0));
    net.with(2, |r, ctx| r.handle(ctx, vote(1)));
    net.with(2, |r, ctx| r.handle(ctx, vote(0)));
    let t: Vec<String> = net.take_transcript().into_iter().filter(|l| l.contains("VoteResponse")).collect();
    assert_eq!(
        t,
        lines(&[
            "n2 -> n0 VoteResponse e1 granted=true",
            "n2 -> n1 VoteResponse e1 granted=false",
            "n2 -> n0 VoteResponse e1 granted=true",
        ]),
        "one vote per epoch; the same candidate asking again is granted again"
    );
}

#[test]
fn votes_go_only_to_logs_at_least_as_up_to_date() {
    let mut net = Net::empty(3, Unsafe::default());
    let e = ElectionState { epoch: 3, leader: None, voted: None };
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

/// `QuorumState.initialize`: a persisted state naming this node as leader restarts as
/// Resigned; `ResignedState.canGrantVote` then decides its votes.
#[test]
fn restarted_leader_comes_back_resigned_and_hands_over() {
    let mut net = cold(3);
    net.elect(0);
    net.tick(1);
    net.deliver_all();
    let disk = net.replica(0).durable();
    assert_eq!(disk.election.leader, Some(0));
    net.take_transcript();
    net.notes.clear();
    net.start(0, disk.election, disk.log);
    assert_eq!(net.state(0), "resigned", "never lead again in the epoch it led");
    assert_eq!(net.replica(0).epoch(), 1);
    assert_eq!(
        net.take_transcript(),
        lines(&["n0 -> n1 EndQuorumEpoch e1 successors=0", "n0 -> n2 EndQuorumEpoch e1 successors=0"]),
        "an empty successor list lets every follower start at once"
    );
    net.deliver(2);
    net.tick(0);
    assert_eq!(net.state(1), "prospective");
    assert_eq!(net.state(2), "prospective");
    // ResignedState.canGrantVote (ResignedStateTest.testGrantVote): the resigned node
    // rejects every standard vote in the epoch it led...
    let standard = kraft_protocol::election::vote_decision(net.replica(0).state(), 1, true, false);
    assert_eq!(standard.name(), "is-resigned");
    // ...but grants up-to-date pre-votes, so the first pre-vote round can win at once.
    net.deliver_all();
    let by_n0: Vec<String> = net
        .notes
        .iter()
        .filter_map(|(n, note)| match note {
            Note::VoteDecided { candidate, epoch, pre_vote, decision } if *n == 0 => {
                Some(format!("n{candidate} e{epoch} pre-vote={pre_vote}: {}", decision.name()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        by_n0,
        lines(&[
            "n1 e1 pre-vote=true: granted",
            "n2 e1 pre-vote=true: granted",
            // Standard votes come in epoch 2, which n0 (Unattached there) may grant once.
            "n1 e2 pre-vote=false: granted",
            "n2 e2 pre-vote=false: already-voted",
        ])
    );
    assert_eq!((net.state(1), net.replica(1).epoch()), ("leader", 2));
}

#[test]
fn without_resign_on_restart_the_old_leader_resumes_its_epoch() {
    let mut net = Net::with_switches(3, 0, Unsafe::default().with(SafetySwitch::NoResignOnRestart));
    net.elect(0);
    let disk = net.replica(0).durable();
    net.start(0, disk.election, disk.log);
    assert_eq!(net.state(0), "leader", "KAFKA-10527: leads epoch 1 again");
    assert_eq!(net.replica(0).epoch(), 1);
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
        let e = ElectionState { epoch: 7, leader: None, voted: None };
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
    let e = ElectionState { epoch: 4, leader: None, voted: None };
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
fn leader_parks_an_empty_fetch_and_answers_when_records_arrive() {
    let mut net = settled_leader_0();
    // Both followers are caught up and their HW matches: their fetches are parked.
    assert_eq!(net.replica(0).leader_state().unwrap().parked.len(), 2);
    let offset = net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: 7 }).0).unwrap();
    assert_eq!(offset, 1);
    assert!(net.take_transcript().is_empty(), "the write lingers for append.linger.ms");
    net.tick(25);
    assert_eq!(
        net.take_transcript(),
        lines(&["n0 -> n1 FetchResponse e1 hw=1 records=1..1", "n0 -> n2 FetchResponse e1 hw=1 records=1..1"]),
        "appending completes the parked fetches at once"
    );
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
fn an_expired_parked_fetch_answers_with_the_hw_it_was_parked_with() {
    let mut net = settled_leader_0();
    let parked = &net.replica(0).leader_state().unwrap().parked;
    assert_eq!(parked.len(), 2);
    let expiry = parked.iter().map(|p| p.deadline).min().unwrap();
    net.tick(expiry - 1 - net.now);
    assert!(net.take_transcript().is_empty(), "still parked just before maxWaitMs");
    net.tick(1);
    assert_eq!(
        net.take_transcript(),
        lines(&["n0 -> n1 FetchResponse e1 hw=1 records=none", "n0 -> n2 FetchResponse e1 hw=1 records=none"]),
        "maxWaitMs = 500: the answer prepared when the fetch was parked goes out"
    );
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
fn graceful_resign_lets_the_preferred_successor_start_first() {
    let mut net = settled_leader_0();
    net.with(0, |r, ctx| r.resign(ctx.now).0.unwrap());
    net.tick(0);
    assert_eq!(net.state(0), "resigned");
    let t = net.take_transcript();
    assert!(t.iter().any(|l| l == "n0 -> n1 EndQuorumEpoch e1 preferred=1 successors=2"), "{t:#?}");
    while net.queue.iter().any(|m| m.message.kind().name() == "EndQuorumEpoch") {
        net.deliver(1);
    }
    // Position 0 waits 0 ms: the preferred successor is already running a pre-vote.
    assert_eq!(net.state(1), "prospective");
    // Position 1 waits (1000 >> 1) << 0 = 500 ms.
    let deadline = match net.replica(2).state() {
        kraft_protocol::state::EpochState::Follower(f) => f.fetch_deadline,
        other => panic!("n2 should still follow, is {:?}", other.name()),
    };
    assert_eq!(deadline - net.now, 500);
}

#[test]
fn a_lone_voter_elects_itself_at_every_start() {
    let mut net = Net::new(1, 0);
    assert_eq!(net.state(0), "leader");
    assert_eq!(
        net.transitions(0),
        lines(&[
            "unattached e0 (startup)",
            "prospective e0 (startup)",
            "candidate e1 (pre-vote-granted)",
            "leader e1 (vote-granted)"
        ])
    );
    let disk = net.replica(0).durable();
    net.notes.clear();
    net.start(0, disk.election, disk.log);
    assert_eq!(net.state(0), "leader");
    assert_eq!(net.replica(0).epoch(), 2);
}

#[test]
fn observers_never_vote_and_never_count_toward_the_hw() {
    let mut net = observer_3_following_leader_0();
    assert!(!net.replica(3).is_voter());
    assert!(net.replica(3).next_deadline(net.now).is_some());
    // Cut both voters off: the observer's fetches cannot move the HW.
    let hw = net.replica(0).leader_state().unwrap().high_watermark;
    net.cut = vec![(1, 0), (2, 0), (0, 1), (0, 2)];
    net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: 1 }).0).unwrap();
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

/// Makes n2 Prospective through its fetch timeout (it still knows leader n0), its
/// pre-votes dropped.
fn n2_prospective_knowing_leader_0() -> Net {
    let mut net = settled_leader_0();
    net.now = fetch_deadline(&net, 2);
    net.with(2, |r, ctx| r.poll(ctx));
    net.drop_all();
    net.take_transcript();
    assert_eq!((net.state(2), net.replica(2).leader_id()), ("prospective", Some(0)));
    net
}

fn from_leader_0(to: NodeId, message: Message) -> Envelope {
    Envelope { from: 0, to, correlation: 500, message }
}

/// KafkaRaftClient.maybeTransition (from handleBeginQuorumEpochRequest): in the same
/// epoch a replica moves to Follower only if it knows no leader yet.
#[test]
fn prospective_that_knows_its_leader_stays_prospective_on_its_begin_quorum_epoch() {
    let mut net = n2_prospective_knowing_leader_0();
    net.with(2, |r, ctx| {
        r.handle(ctx, from_leader_0(2, Message::BeginQuorumEpoch(BeginQuorumEpochRequest { leader_epoch: 1 })))
    });
    assert_eq!(net.state(2), "prospective", "its pre-vote goes on");
    assert_eq!(net.take_transcript(), lines(&["n2 -> n0 BeginQuorumEpochResponse e1 error=NONE leader=0"]));
}

/// KafkaRaftClient.handleEndQuorumEpochRequest: maybeTransition as above, and the
/// backoff applies only to a Follower of that leader.
#[test]
fn prospective_that_knows_its_leader_stays_prospective_on_its_end_quorum_epoch() {
    let mut net = n2_prospective_knowing_leader_0();
    let end = Message::EndQuorumEpoch(EndQuorumEpochRequest { leader_epoch: 1, preferred_successors: vec![1, 2] });
    net.with(2, |r, ctx| r.handle(ctx, from_leader_0(2, end)));
    assert_eq!(net.state(2), "prospective");
    assert_eq!(net.take_transcript(), lines(&["n2 -> n0 EndQuorumEpochResponse e1 error=NONE leader=0"]));
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
    assert_eq!(net.replica(0).election_state(), ElectionState { epoch: 1, leader: None, voted: Some(0) });
    net.deliver_all();
    assert_eq!(net.state(0), "leader");
    assert_eq!(net.replica(0).election_state(), ElectionState { epoch: 1, leader: Some(0), voted: None });
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
    net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: 1 }).0).unwrap();
    net.tick(25);
    let held = net.queue.iter().position(|e| e.to == to && e.message.kind().name() == "FetchResponse").unwrap();
    let held = net.queue.remove(held).unwrap();
    net.deliver_all();
    net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: 2 }).0).unwrap();
    net.tick(25);
    net.deliver_all();
    net.settle(3);
    assert_eq!(net.replica(0).high_watermark(), Some(3));
    let fetch = Message::Fetch(FetchRequest {
        current_leader_epoch: 1,
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

/// KafkaRaftClient.handleFetchResponse: appendAsFollower flushes first when the node is a
/// voter, and only then does updateFollowerHighWatermark move the HW; the next Fetch, sent
/// after the flush, already reports it.
#[test]
fn a_voter_sets_its_hw_after_flushing_the_appended_records() {
    let mut net = settled_leader_0();
    let response = lagging_fetch_response(&mut net, 2);
    let out = drive(&mut net, 2, |r, ctx| r.handle(ctx, response));
    assert_eq!(kinds(&out), lines(&["append 1..2", "flush 3"]), "no HW and no Fetch before the flush returns");
    assert_eq!(net.replica(2).high_watermark(), Some(1));
    let out = drive(&mut net, 2, |r, ctx| {
        let _wake = r.flushed(ctx.now, 3);
        r.poll(ctx)
    });
    assert_eq!(kinds(&out), lines(&["hw Some(1) -> 3", "send Fetch"]));
    match out.iter().find_map(|o| if let Output::Send(e) = o { Some(&e.message) } else { None }) {
        Some(Message::Fetch(FetchRequest { fetch_offset: 3, high_watermark: Some(3), .. })) => {}
        other => panic!("the next Fetch reports offset 3 and HW 3: {other:?}"),
    }
}

/// KafkaRaftClient.appendAsFollower flushes only for voters: an observer's append sets its
/// HW at once and leaves the records unflushed.
#[test]
fn an_observer_does_not_flush_on_append() {
    let mut net = observer_3_following_leader_0();
    let response = lagging_fetch_response(&mut net, 3);
    let out = drive(&mut net, 3, |r, ctx| r.handle(ctx, response));
    let k = kinds(&out);
    assert_eq!(&k[..2], &lines(&["append 1..2", "hw Some(1) -> 3"])[..], "{k:?}");
    assert!(!k.iter().any(|x| x.starts_with("flush")), "{k:?}");
    assert_eq!(net.replica(3).log().flushed_offset(), 0, "a crash now would lose its records");
}

/// KafkaRaftClient.handleFetchRequest reads the log with the request's `maxBytes`
/// (`controller.quorum.fetch.max.bytes` of the fetcher), always returning at least one
/// batch: a follower far behind catches up in byte-limited responses.
#[test]
fn fetch_responses_are_limited_by_fetch_max_bytes() {
    // RegisterBroker records are 128 bytes each in the size model: two fit in 300 bytes.
    let mut net = elected_with(|c| c.fetch_max_bytes = 300);
    net.cut = vec![(0, 2), (2, 0)];
    for b in 0..5 {
        net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: b }).0).unwrap();
    }
    net.tick(25);
    net.settle(3);
    assert_eq!(net.replica(0).log().end_offset(), 6);
    assert_eq!(net.replica(0).log().get(1).unwrap().size_bytes(), 128);
    net.cut.clear();
    net.take_transcript();
    let fetch = |max_bytes| {
        Message::Fetch(FetchRequest {
            current_leader_epoch: 1,
            fetch_offset: 1,
            last_fetched_epoch: 1,
            high_watermark: Some(1),
            max_wait_ms: 500,
            max_bytes,
        })
    };
    net.with(0, |r, ctx| r.handle(ctx, Envelope { from: 2, to: 0, correlation: 9, message: fetch(300) }));
    net.with(0, |r, ctx| r.handle(ctx, Envelope { from: 2, to: 0, correlation: 10, message: fetch(1) }));
    assert_eq!(
        net.take_transcript(),
        lines(&["n0 -> n2 FetchResponse e1 hw=6 records=1..2", "n0 -> n2 FetchResponse e1 hw=6 records=1..1"]),
        "two records fit in 300 bytes; a limit below one record still returns one"
    );
}

/// KafkaRaftClient.flushLeaderLog runs updateLeaderEndOffsetAndTimestamp before it calls
/// log.flush: LeaderState.updateLocalState records the unflushed log end offset, and
/// maybeUpdateHighWatermark takes the offset at index voters/2 of the descending offsets,
/// which with one voter is the leader's own. So the HW moves (onUpdateLeaderHighWatermark:
/// append purgatory and handleCommit listeners) and fetchPurgatory.maybeComplete answers a
/// parked observer Fetch with that HW (tryCompleteFetchRequest), all before the flush.
#[test]
fn a_lone_voter_exposes_its_hw_before_its_flush() {
    let mut net = Net::new(1, 1);
    for _ in 0..21 {
        net.tick(100);
        net.deliver_all();
    }
    assert_eq!(net.state(1), "follower", "the observer found the lone leader");
    net.settle(3);
    assert_eq!(net.replica(0).leader_state().unwrap().parked.len(), 1, "the observer's fetch is parked");
    net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: 7 }).0).unwrap();
    net.now += 25; // append.linger.ms
    let out = drive(&mut net, 0, |r, ctx| r.poll(ctx));
    assert_eq!(
        kinds(&out),
        lines(&["append 1..1", "hw Some(1) -> 2", "send FetchResponse", "flush 2"]),
        "HW and the observer's answer go out before the flush"
    );
    match out.iter().find_map(|o| if let Output::Send(e) = o { Some(&e.message) } else { None }) {
        Some(Message::FetchResponse(FetchResponse { high_watermark: Some(2), .. })) => {}
        other => panic!("the parked Fetch is answered with HW 2: {other:?}"),
    }
    assert_eq!(net.replica(0).log().flushed_offset(), 1, "record 1 is committed but not yet on disk");
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
