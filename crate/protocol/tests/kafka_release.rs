//! The behaviours a run's Kafka release decides (`KafkaRelease`), at the replica, each test
//! naming the Kafka code or test it follows; the legacy model (no release) is checked to
//! do none of it. Here: the quorum-state file's fsync (FileQuorumStateStore.writeElectionState).

mod support;

use kraft_base::shared::Meter;
use kraft_protocol::log::ReplicaLog;
use kraft_protocol::rpc::{Envelope, Message, RpcKind, VoteRequest};
use kraft_protocol::state::ElectionState;
use kraft_protocol::{
    Ctx, Durable, IdSource, KafkaRelease, Note, Output, QuorumConfig, Reason, Replica, ReplicaSetup, StateName, Unsafe,
};
use support::{dir, key, Cluster};
use KafkaRelease::{Legacy, V3_9, V4_0, V4_1, V4_2};

fn config(release: KafkaRelease) -> QuorumConfig {
    QuorumConfig { release, ..QuorumConfig::default() }
}

/// What a list of outputs says, briefly: `persist`, `flush`, `state <to>`, `vote`,
/// `append <kind>`, `send <rpc>` (Fetch and its answers left out).
fn brief(out: &[Output]) -> Vec<String> {
    out.iter()
        .filter_map(|o| match o {
            Output::Flush { .. } => Some("flush".to_string()),
            Output::Send(e) if matches!(e.message.kind(), RpcKind::Fetch | RpcKind::FetchResponse) => None,
            Output::Send(e) => Some(format!("send {}", e.message.kind().name())),
            Output::Note(Note::Persisted { .. }) => Some("persist".to_string()),
            Output::Note(Note::StateChanged { to, .. }) => Some(format!("state {}", to.name())),
            Output::Note(Note::VoteDecided { .. }) => Some("vote".to_string()),
            Output::Note(Note::Appended { kind, .. }) => Some(format!("append {kind}")),
            Output::Note(_) => None,
        })
        .collect()
}

// ---- the quorum-state file costs a flush (every Kafka release) ---------------------------

/// FileQuorumStateStore.writeElectionState fsyncs the file on the raft thread and
/// QuorumState.durableTransitionTo moves only then, so KafkaRaftClient.handleVoteRequest's
/// two transitions (to the request's epoch, then the vote) each wait for a flush before
/// the vote is answered. The legacy model writes the file for free.
#[test]
fn a_release_flushes_the_quorum_state_before_it_answers_a_vote() {
    let vote = Message::Vote(VoteRequest {
        replica_epoch: 1,
        candidate_directory: Some(dir(0, 0)),
        voter_key: key(1),
        last_offset_epoch: 0,
        last_offset: 0,
        pre_vote: false,
    });
    let answer = |release| {
        let mut c = Cluster::static_quorum_with(config(release), &[0, 1, 2], &[]);
        let env = Envelope { from: 0, to: 1, correlation: 1, message: vote.clone() };
        brief(&c.outputs(1, |r, ctx| {
            r.handle(ctx, env);
        }))
    };
    let with_flushes =
        ["persist", "flush", "state unattached", "vote", "persist", "flush", "state unattached", "send VoteResponse"];
    for release in [V3_9, V4_0, V4_1, V4_2] {
        assert_eq!(answer(release), with_flushes, "{release:?}");
    }
    assert_eq!(
        answer(Legacy),
        ["persist", "state unattached", "vote", "persist", "state unattached", "send VoteResponse"]
    );
}

/// QuorumState.initialize ends in durableTransitionTo(initialState): every start writes
/// the file and waits, Resigned after a leader's restart too (the legacy model writes
/// only a blank disk's default state, for free).
#[test]
fn every_start_writes_the_quorum_state() {
    for (release, leader_restart) in
        [(V4_0, vec!["persist", "flush", "state resigned"]), (Legacy, vec!["state resigned"])]
    {
        let setup = ReplicaSetup {
            id: 0,
            voters: vec![0, 1, 2],
            config: config(release),
            switches: Unsafe::default(),
            snapshot_interval: 0,
        };
        let log = ReplicaLog::format(&Meter::default(), dir(0, 0), None);
        let election = ElectionState::new(3, Some(0), None);
        let (mut rng, mut ids, mut out) = (kraft_base::rng::Rng::new(1), IdSource::default(), Vec::new());
        let mut ctx = Ctx { now: 0, rng: &mut rng, ids: &mut ids, out: &mut out };
        let (r, _) = Replica::start(&mut ctx, setup, Durable { election, log }, Reason::Restart);
        assert_eq!(r.state_name(), StateName::Resigned);
        let mut want = leader_restart;
        want.extend(["send EndQuorumEpoch", "send EndQuorumEpoch"]);
        assert_eq!(brief(&out), want, "{release:?}");
    }
}

/// Prospective and Resigned are memory-only transitions (QuorumState.transitionToProspective
/// and transitionToResigned: memoryTransitionTo): nothing is written, nothing waits.
#[test]
fn prospective_and_resigned_write_nothing() {
    let mut c = Cluster::static_quorum_with(config(V4_1), &[0, 1, 2], &[]);
    let deadline = c.replica(0).state_timer().unwrap().0;
    c.now = deadline;
    let out = brief(&c.outputs(0, |r, ctx| {
        r.poll(ctx);
    }));
    assert_eq!(out, ["state prospective", "send PreVote", "send PreVote"]);
    c.deliver_all();
    assert_eq!(c.state(0), StateName::Leader);
    let out = brief(&c.outputs(0, |r, ctx| {
        r.resign(ctx.now).0.unwrap();
        r.poll(ctx);
    }));
    assert_eq!(out, ["state resigned", "send EndQuorumEpoch", "send EndQuorumEpoch"]);
}

/// A candidate that wins writes the leader's quorum-state (QuorumState.transitionToLeader)
/// and waits for it; then its LeaderChange is appended and flushed
/// (KafkaRaftClient.flushLeaderLog); only then does BeginQuorumEpoch go out: two flushes
/// of a slow disk before the voters hear of the new leader.
#[test]
fn a_new_leader_flushes_its_quorum_state_then_its_log_before_it_announces_itself() {
    let mut c = Cluster::static_quorum_with(config(V3_9), &[0, 1, 2], &[]);
    c.hold = vec![(1, RpcKind::VoteResponse), (2, RpcKind::VoteResponse)];
    c.expire_timer(0);
    c.deliver_all();
    assert_eq!(c.state(0), StateName::Candidate);
    let granted = c.held.remove(0);
    let out = brief(&c.outputs(0, |r, ctx| {
        r.handle(ctx, granted);
    }));
    assert_eq!(
        out,
        [
            "persist",
            "flush",
            "state leader",
            "append LeaderChange",
            "flush",
            "send BeginQuorumEpoch",
            "send BeginQuorumEpoch"
        ]
    );
}
