//! Why each event happened, in one plain sentence naming the rule and where it is
//! stated. The world's own events (faults, drops, violations) are explained here; what
//! a replica did or underwent, its protocol explains (`kraft_boundary::Explain`), from
//! the event's own fields, so the UI never guesses.
//!
//! Every match here is exhaustive: a new event kind, drop reason or fault fails to
//! compile until it has its sentence.

use crate::trace::{DropReason, EventKind, Fault, SnapshotAction};
use kraft_boundary::{Explain, Named, NodeId, Note, PersistedElection};

/// One sentence saying why `event` happened.
pub fn explain<P: Explain>(event: &EventKind<P>) -> String {
    match event {
        EventKind::Send { from, to, rpc, epoch, summary, dropped, .. } => {
            let why = P::sent(*from, *to, *rpc, *epoch, summary);
            match dropped {
                Some(r) => format!("{why}; it will be lost: {}", drop_cause(*r, *to)),
                None => why,
            }
        }
        EventKind::Deliver { from, to, rpc, epoch, summary, duplicate, .. } => {
            let what = P::delivered(*from, *to, *rpc, *epoch, summary);
            if *duplicate {
                format!(
                    "{what} (a duplicate the network made; Raft's requests are idempotent, so it changes nothing new)"
                )
            } else {
                what
            }
        }
        EventKind::Drop { from, to, rpc, reason, .. } => {
            format!("n{from}'s {} to n{to} never arrived: {}", rpc.name(), drop_cause(*reason, *to))
        }
        EventKind::Disconnect { node, peer, rpc, .. } => P::disconnected(*node, *peer, *rpc),
        EventKind::Flush { node, offset } => P::flushed(*node, *offset),
        EventKind::Crash { node, lost_records } => P::crashed(*node, *lost_records),
        EventKind::Restart { node } => P::restarted(*node),
        EventKind::Fault(f) => fault(f),
        EventKind::Write { node, accepted, offset, kind } => P::write(*node, *accepted, *offset, kind),
        EventKind::Admin { node, request, voter, error, rule } => match (node, *error) {
            (Some(n), "NONE") => format!(
                "n{n}, the leader, answered the admin client's {request} for n{voter}: done, the new voter set is \
                 committed (KIP-853: the leader answers AddRaftVoter and RemoveRaftVoter once the VotersRecord commits)"
            ),
            (Some(n), _) => format!(
                "n{n}, the leader, refused the admin client's {request} for n{voter}: {error}, {rule} (the checks of \
                 KafkaRaftClient.handle{}VoterRequest, KIP-853, in Kafka's order)",
                if *request == "add-controller" { "Add" } else { "Remove" }
            ),
            (None, _) => format!(
                "the admin client's {request} for n{voter} found no leader to send it to: {error} ({rule}); \
                 kafka-metadata-quorum.sh would retry until its timeout"
            ),
        },
        EventKind::Violation { invariant, node, detail, .. } => format!(
            "the checker found {}{} broken: {detail}; it requires that {} (a safety property Kafka's \
             RaftEventSimulationTest or the Raft paper checks)",
            invariant.name(),
            node.map(|n| format!(" at n{n}")).unwrap_or_default(),
            invariant.explanation()
        ),
        EventKind::State { .. }
        | EventKind::Persist { .. }
        | EventKind::Vote { .. }
        | EventKind::Append { .. }
        | EventKind::HighWatermark { .. }
        | EventKind::Truncate { .. }
        | EventKind::Snapshot { .. } => {
            let (node, note) = as_note(event).expect("a replica's note");
            P::note(node, &note)
        }
    }
}

/// The note a replica's event was recorded from (`World::emit_note` the other way).
fn as_note<P: Explain>(event: &EventKind<P>) -> Option<(NodeId, Note<P>)> {
    let note = match *event {
        EventKind::State { node, from, to, epoch, leader, voted, reason } => {
            (node, Note::StateChanged { from, to, epoch, leader, voted, reason })
        }
        EventKind::Persist { node, epoch, leader, voted } => {
            (node, Note::Persisted { election: PersistedElection { epoch, leader, voted } })
        }
        EventKind::Vote { node, candidate, epoch, pre_vote, decision } => {
            (node, Note::VoteDecided { candidate, epoch, pre_vote, decision })
        }
        EventKind::Append { node, first, last, epoch, kind } => (node, Note::Appended { first, last, epoch, kind }),
        EventKind::HighWatermark { node, old, new, ref majority } => {
            let majority = majority.iter().fold(0u64, |bits, id| bits | 1 << id);
            (node, Note::HighWatermark { old, new, majority })
        }
        EventKind::Truncate { node, from_leo, to, diverging_epoch, hw } => {
            (node, Note::Truncated { from_leo, to, diverging_epoch, hw })
        }
        EventKind::Snapshot { node, action, id } => (
            node,
            match action {
                SnapshotAction::Taken => Note::SnapshotTaken { id },
                SnapshotAction::Fetched => Note::SnapshotFetched { id },
                SnapshotAction::Loaded => Note::SnapshotLoaded { id },
                SnapshotAction::Deleted => Note::SnapshotDeleted { id },
            },
        ),
        _ => return None,
    };
    Some(note)
}

fn drop_cause(r: DropReason, to: NodeId) -> String {
    match r {
        DropReason::Loss => "the network lost it (the loss probability you set); the sender's request timeout \
                             (request.timeout.ms) or its next poll retries"
            .into(),
        DropReason::Partition => "the link is cut (a partition, isolation or one-way cut), so nothing crosses it; \
                                  the fetch and election timers decide what happens next"
            .into(),
        DropReason::NodeDown => {
            format!("n{to} was crashed when it arrived, so nobody received it and the sender's request expires (request.timeout.ms)")
        }
    }
}

fn fault(f: &Fault) -> String {
    let what = f.explanation();
    format!(
        "{what}: a fault injected by you or the scenario (the simulator's, not a Kafka rule); the nodes notice it only \
         through their timers and messages (fetch.timeout.ms, request.timeout.ms)"
    )
}

#[cfg(test)]
mod tests {
    //! KRaft's sentences, through the dispatcher: every word of its vocabulary has one.
    use super::*;
    use crate::trace::samples;
    use kraft_protocol::election::VoteDecision;
    use kraft_protocol::rpc::{ErrorCode, FetchOutcome, MessageSummary, RpcKind, SnapshotId};
    use kraft_protocol::{Reason, StateName};

    fn errors() -> Vec<ErrorCode> {
        use ErrorCode::*;
        let all = vec![
            None,
            FencedLeaderEpoch,
            UnknownLeaderEpoch,
            NotLeaderOrFollower,
            SnapshotNotFound,
            InvalidRequest,
            RequestTimedOut,
            DuplicateVoter,
            VoterNotFound,
            InvalidVoterKey,
            UnsupportedVersion,
        ];
        let arm = |e: &ErrorCode| match e {
            None => 0,
            FencedLeaderEpoch => 1,
            UnknownLeaderEpoch => 2,
            NotLeaderOrFollower => 3,
            SnapshotNotFound => 4,
            InvalidRequest => 5,
            RequestTimedOut => 6,
            DuplicateVoter => 7,
            VoterNotFound => 8,
            InvalidVoterKey => 9,
            UnsupportedVersion => 10,
        };
        assert!(all.iter().map(arm).eq(0..all.len()), "one error per variant, in order");
        all
    }

    fn fetch_response(error: ErrorCode, records: u32, diverging: bool, snapshot: bool) -> MessageSummary {
        let outcome = match (diverging, snapshot) {
            (true, _) => FetchOutcome::Diverging { epoch: 2, end_offset: 6 },
            (false, true) => FetchOutcome::Snapshot { end_offset: 100, epoch: 2 },
            (false, false) => FetchOutcome::Records { first_offset: 5, count: records },
        };
        MessageSummary::FetchResponse { error, hw_known: true, hw: 4, outcome }
    }

    /// Every variant of every vocabulary the trace records gets its own sentence: event
    /// kinds, transition reasons, vote decisions, drop reasons, fetch answers, snapshot
    /// actions and faults.
    #[test]
    fn every_event_kind_and_reason_has_an_explanation() {
        let mut all: Vec<EventKind> = samples::events();
        for reason in Reason::ALL {
            all.push(EventKind::State {
                node: 1,
                from: StateName::Follower,
                to: StateName::Prospective,
                epoch: 3,
                leader: Some(0),
                voted: None,
                reason,
            });
        }
        for pre_vote in [false, true] {
            for decision in samples::decisions() {
                all.push(EventKind::Vote { node: 2, candidate: 4, epoch: 3, pre_vote, decision });
            }
        }
        for reason in DropReason::ALL {
            all.push(EventKind::Drop { msg: 1, from: 0, to: 1, rpc: RpcKind::Fetch, epoch: 2, sent: 3, reason });
        }
        for error in errors() {
            for summary in [
                fetch_response(error, 0, false, false),
                MessageSummary::VoteResponse { granted: false, error, leader: None },
                MessageSummary::Ack { error, leader: Some(0) },
                MessageSummary::FetchSnapshotResponse { error, position: 0, chunk: 10, size: 30 },
            ] {
                let rpc = match summary {
                    MessageSummary::FetchResponse { .. } => RpcKind::FetchResponse,
                    MessageSummary::VoteResponse { .. } => RpcKind::VoteResponse,
                    MessageSummary::Ack { .. } => RpcKind::BeginQuorumEpochResponse,
                    _ => RpcKind::FetchSnapshotResponse,
                };
                all.push(EventKind::Send { msg: 1, from: 0, to: 1, rpc, epoch: 2, summary, arrives: 5, dropped: None });
            }
        }
        for summary in
            [fetch_response(ErrorCode::None, 3, false, false), fetch_response(ErrorCode::None, 0, true, false)]
                .into_iter()
                .chain([fetch_response(ErrorCode::None, 0, false, true)])
        {
            all.push(EventKind::Deliver {
                msg: 1,
                from: 0,
                to: 1,
                rpc: RpcKind::FetchResponse,
                epoch: 2,
                summary,
                sent: 1,
                duplicate: false,
            });
        }
        for action in SnapshotAction::ALL {
            all.push(EventKind::Snapshot { node: 1, action, id: SnapshotId { end_offset: 10, epoch: 2 } });
        }
        all.extend(samples::faults().into_iter().map(|f| EventKind::Fault(Box::new(f))));
        all.push(EventKind::Truncate { node: 1, from_leo: 9, to: 4, diverging_epoch: None, hw: Some(4) });
        all.push(EventKind::HighWatermark { node: 1, old: Some(3), new: 5, majority: Box::default() });
        let mut seen = std::collections::BTreeSet::new();
        for (i, e) in all.iter().enumerate() {
            if all[..i].contains(e) {
                continue;
            }
            let s = explain(e);
            assert!(s.contains('(') && s.contains(')'), "names a Kafka class, method or KIP: {s}");
            assert!(!s.contains('{') && !s.contains('}'), "no unfilled placeholder: {s}");
            assert!(seen.insert(s.clone()), "each variant has its own sentence: {s}");
        }
    }

    #[test]
    fn sentences_read_as_written() {
        let vote: EventKind = EventKind::Vote {
            node: 2,
            candidate: 4,
            epoch: 3,
            pre_vote: true,
            decision: VoteDecision::FollowerHasFetched(0),
        };
        assert_eq!(
            explain(&vote),
            "n2 rejected n4's pre-vote: it fetched from leader n0 in epoch 3, and a follower that has fetched rejects \
             pre-votes (FollowerState.canGrantVote, KIP-996)"
        );
        let hw: EventKind = EventKind::HighWatermark { node: 0, old: Some(3), new: 5, majority: vec![0, 2].into() };
        assert_eq!(
            explain(&hw),
            "n0's high watermark moved from 3 to 5: voters n0, n2 (a majority) have fetched past offset 4, and the \
             leader exposes an offset only once a majority holds it and it lies past its epoch's start \
             (LeaderState.maybeUpdateHighWatermark)"
        );
        let truncate: EventKind =
            EventKind::Truncate { node: 2, from_leo: 9, to: 7, diverging_epoch: Some(2), hw: Some(5) };
        assert_eq!(
            explain(&truncate),
            "n2 removed records 7..8 (log end 9 -> 7): the leader's Fetch response said its log diverges after epoch \
             2, so the follower truncates to where both logs agree and fetches again \
             (KafkaRaftClient.handleFetchResponse, ReplicatedLog.truncateToEndOffset)"
        );
        let state: EventKind = EventKind::State {
            node: 0,
            from: StateName::Leader,
            to: StateName::Resigned,
            epoch: 4,
            leader: Some(0),
            voted: Some(0),
            reason: Reason::CheckQuorumFailed,
        };
        assert_eq!(
            explain(&state),
            "n0 went from leader to resigned in epoch 4: fewer than a majority of voters fetched from it within 1.5 x \
             fetch.timeout.ms, so it resigns rather than lead a partitioned minority \
             (LeaderState.timeUntilCheckQuorumExpires, KafkaRaftClient.pollLeader, KAFKA-15489)"
        );
        let drop: EventKind = EventKind::Drop {
            msg: 9,
            from: 1,
            to: 2,
            rpc: RpcKind::Vote,
            epoch: 3,
            sent: 5,
            reason: DropReason::NodeDown,
        };
        assert_eq!(
            explain(&drop),
            "n1's Vote to n2 never arrived: n2 was crashed when it arrived, so nobody received it and the sender's \
             request expires (request.timeout.ms)"
        );
    }
}
