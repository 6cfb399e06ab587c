//! One test per protocol rule, driven message by message. Each reads as a script:
//! what happens, then the exact messages that go out.

mod support;

use kraft_playground::protocol::config::SafetySwitch;
use kraft_playground::protocol::log::ReplicaLog;
use kraft_playground::protocol::state::ElectionState;
use kraft_playground::protocol::{Note, RecordBody, Unsafe};
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
    // n2 stops hearing from the leader (its fetch timer fires) and asks for pre-votes.
    net.now += 2_000;
    net.with(2, |r, ctx| r.poll(ctx));
    assert_eq!(net.state(2), "prospective");
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
    let vote = |from: u32| kraft_playground::protocol::rpc::Envelope {
        from,
        to: 2,
        correlation: 99,
        message: kraft_playground::protocol::rpc::Message::Vote {
            replica_epoch: 1,
            last_offset_epoch: 0,
            last_offset: 0,
            pre_vote: false,
        },
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
    assert_eq!(net.state(0), "resigned", "never lead (or vote) again in the epoch it led");
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
    // A resigned node rejects votes in its epoch, pre-votes included.
    let d = kraft_playground::protocol::election::vote_decision(net.replica(0).state(), 1, true, true);
    assert_eq!(d.name(), "is-resigned");
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
    let offset = net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: 7 })).unwrap();
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

#[test]
fn graceful_resign_lets_the_preferred_successor_start_first() {
    let mut net = settled_leader_0();
    net.with(0, |r, _| r.resign().unwrap());
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
        kraft_playground::protocol::state::EpochState::Follower(f) => f.fetch_deadline,
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
    let mut net = Net::new(3, 1);
    net.elect(0);
    // The leader announces itself to voters only; the observer finds it by fetching from
    // a bootstrap voter once its startup fetch (dropped) times out.
    assert_eq!(net.state(3), "unattached");
    net.tick(2_000);
    net.settle(3);
    assert_eq!(net.state(3), "follower");
    assert!(!net.replica(3).is_voter());
    assert!(net.replica(3).next_deadline(net.now).is_some());
    // Cut both voters off: the observer's fetches cannot move the HW.
    let hw = net.replica(0).leader_state().unwrap().high_watermark;
    net.cut = vec![(1, 0), (2, 0), (0, 1), (0, 2)];
    net.with(0, |r, ctx| r.write(ctx, RecordBody::RegisterBroker { broker_id: 1 })).unwrap();
    for _ in 0..5 {
        net.tick(30);
        net.deliver_all();
    }
    assert_eq!(net.replica(3).log().end_offset(), 2, "the observer replicated the record");
    assert_eq!(net.replica(0).leader_state().unwrap().high_watermark, hw, "but it does not count");
}
