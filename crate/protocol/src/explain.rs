//! Why a KRaft replica did what the trace records, in one plain sentence naming the
//! rule and the Kafka class or method it follows (the boundary's `Explain`). Built only
//! from the event's own fields (the trace records the reason: a transition's `Reason`, a
//! vote's `VoteDecision`, an HW move's majority, a truncation's diverging epoch), so the
//! UI never guesses.
//!
//! Every match here is exhaustive: a new note, reason, decision or error fails to
//! compile until it has its sentence.

use super::election::VoteDecision;
use super::io::{KRaft, Note};
use super::record::{Epoch, NodeId, Offset};
use super::rpc::{ErrorCode, FetchOutcome, MessageSummary, RpcKind};
use super::state::{Reason, StateName};
use kraft_boundary::Explain;

impl Explain for KRaft {
    fn note(node: NodeId, note: &Note) -> String {
        match note {
            Note::StateChanged { from, to, epoch, leader, voted, reason } => {
                transition(node, *from, *to, *epoch, *leader, *voted, *reason)
            }
            Note::Persisted { election } => {
                let (epoch, leader, voted) = (election.epoch, &election.leader, &election.voted);
                format!(
                    "n{node} wrote its quorum-state file (epoch {epoch}, leader {}, votedFor {}) durably before changing state, \
                     so a restart cannot vote twice or forget the epoch (FileQuorumStateStore.writeElectionState, called from \
                     QuorumState's transitions)",
                    who(*leader),
                    who(*voted)
                )
            }
            Note::VoteDecided { candidate, epoch, pre_vote, decision } => {
                vote(node, *candidate, *epoch, *pre_vote, *decision)
            }
            Note::Appended { first, last, epoch, kind } => {
                let range = if first == last { format!("offset {first}") } else { format!("offsets {first}..{last}") };
                if *kind == "LeaderChange" {
                    format!(
                        "n{node} appended a LeaderChange control record at {range} in epoch {epoch}: a new leader writes one \
                         first, and its HW can move only once a record of its own epoch is committed \
                         (LeaderState.appendLeaderChangeMessage)"
                    )
                } else {
                    format!(
                        "n{node} appended {kind} at {range} in epoch {epoch}: only the leader appends new records, followers \
                         copy them by fetching (KafkaRaftClient.maybeAppendBatches, KafkaRaftClient.appendAsFollower)"
                    )
                }
            }
            Note::HighWatermark { old, new, majority } => {
                let voters = voters_in(*majority);
                let majority = &voters;
                let from = match old {
                    Some(o) => format!("from {o} "),
                    None => String::new(),
                };
                if majority.is_empty() {
                    format!(
                        "n{node}'s high watermark moved {from}to {new}: a follower takes the leader's HW from the Fetch \
                         response, capped by its own log end, after flushing what it appended \
                         (KafkaRaftClient.updateFollowerHighWatermark)"
                    )
                } else {
                    format!(
                        "n{node}'s high watermark moved {from}to {new}: voters {} (a majority) have fetched past offset {}, \
                         and the leader exposes an offset only once a majority holds it and it lies past its epoch's start \
                         (LeaderState.maybeUpdateHighWatermark)",
                        names(majority),
                        new.saturating_sub(1)
                    )
                }
            }
            Note::Truncated { from_leo, to, diverging_epoch, hw } => match diverging_epoch {
                Some(e) => format!(
                    "n{node} removed records {to}..{} (log end {from_leo} -> {to}): the leader's Fetch response said its log \
                     diverges after epoch {e}, so the follower truncates to where both logs agree and fetches again \
                     (KafkaRaftClient.handleFetchResponse, ReplicatedLog.truncateToEndOffset)",
                    from_leo.saturating_sub(1)
                ),
                None => format!(
                    "n{node} replaced its log (log end {from_leo}) by the snapshot ending at {to}{}: the leader answered its \
                     Fetch with a snapshot id, so it downloaded the snapshot and reset its log to start there \
                     (KafkaRaftClient.handleFetchSnapshotResponse, ReplicatedLog.truncateToLatestSnapshot)",
                    match hw {
                        Some(h) => format!(", HW {h}"),
                        None => String::new(),
                    }
                ),
            },
            Note::SnapshotTaken { id } => {
                let (end, e) = (id.end_offset, id.epoch);
                format!(
                "n{node} took a snapshot of its state up to offset {end} (epoch {e}): enough committed records were \
                 applied since the last one, and a snapshot may only cover what is below the HW \
                 (KafkaRaftClient.createSnapshot, metadata.log.max.record.bytes.between.snapshots)"
            )
            }
            Note::SnapshotFetched { id } => {
                let (end, e) = (id.end_offset, id.epoch);
                format!(
                "n{node} finished downloading the leader's snapshot ending at {end} (epoch {e}) with FetchSnapshot: \
                 the leader no longer had the records it asked for (KafkaRaftClient.handleFetchSnapshotResponse)"
            )
            }
            Note::SnapshotLoaded { id } => {
                let (end, e) = (id.end_offset, id.epoch);
                format!(
                "n{node} loaded the snapshot ending at {end} (epoch {e}) into its state machine, as a follower does \
                 after downloading one; a leader never does (KafkaRaftClient.handleFetchSnapshotResponse, \
                 RaftClient.Listener.handleLoadSnapshot)"
            )
            }
            Note::SnapshotDeleted { id } => {
                let (end, e) = (id.end_offset, id.epoch);
                format!(
                "n{node} deleted the snapshot ending at {end} (epoch {e}) and the records before the next one: the log \
                 grew past its retention and a newer snapshot exists, so the log start moved (ReplicatedLog.maybeClean, \
                 metadata.max.retention.bytes)"
            )
            }
        }
    }

    fn sent(from: NodeId, to: NodeId, rpc: RpcKind, epoch: Epoch, summary: &MessageSummary) -> String {
        send_reason(from, to, rpc, epoch, summary)
    }

    fn delivered(from: NodeId, to: NodeId, rpc: RpcKind, epoch: Epoch, summary: &MessageSummary) -> String {
        deliver_meaning(from, to, rpc, epoch, summary)
    }

    fn disconnected(node: NodeId, peer: NodeId, rpc: RpcKind) -> String {
        format!(
            "n{node}'s {} to n{peer} failed because n{peer}'s process is down: the connection is refused, the client \
         sees BROKER_NOT_AVAILABLE and backs off retry.backoff.ms before trying again (KafkaNetworkChannel, \
         KafkaRaftClient.maybeHandleCommonResponse)",
            rpc.name()
        )
    }

    fn flushed(node: NodeId, offset: Offset) -> String {
        format!(
        "n{node} flushed its log to disk up to offset {offset}: a voter flushes before it reports that offset, because \
         the leader counts reported offsets for the HW (KafkaRaftClient.flushLeaderLog, \
         KafkaRaftClient.appendAsFollower); under a Kafka release a flush that follows a quorum-state write is that \
         file's fsync, which blocks the raft thread before the transition (FileQuorumStateStore.writeElectionState)"
    )
    }

    fn crashed(node: NodeId, lost_records: u64) -> String {
        format!(
        "n{node} crashed (a fault you or the scenario injected): it lost {lost_records} unflushed record(s), and its \
         quorum-state file and flushed log survive for the restart (FileQuorumStateStore, ReplicatedLog.flush)"
    )
    }

    fn restarted(node: NodeId) -> String {
        format!(
        "n{node} restarted: it reads its quorum-state file and log and resumes from them, as Resigned if it was the \
         leader so it never leads or votes again in that epoch (QuorumState.initialize, KAFKA-10661)"
    )
    }

    fn write(node: Option<NodeId>, accepted: bool, offset: Option<Offset>, kind: &str) -> String {
        match (accepted, node, offset) {
            (true, Some(n), Some(o)) => format!(
            "a client wrote {kind} to n{n}, the leader, which appended it at offset {o}; it is committed once the HW \
             passes it (KafkaRaftClient.prepareAppend)"
        ),
            (_, Some(n), _) => format!(
                "a client's {kind} write to n{n} was refused: only the leader accepts writes \
             (KafkaRaftClient.prepareAppend throws NotLeaderException elsewhere)"
            ),
            _ => format!(
                "a client's {kind} write was refused: no node is leader right now, so nothing can accept it \
             (KafkaRaftClient.prepareAppend requires the Leader state)"
            ),
        }
    }
}

/// The node ids whose bits are set, lowest first.
fn voters_in(mut bits: u64) -> Vec<NodeId> {
    let mut ids = Vec::with_capacity(bits.count_ones() as usize);
    while bits != 0 {
        ids.push(bits.trailing_zeros());
        bits &= bits - 1;
    }
    ids
}

fn who(n: Option<NodeId>) -> String {
    n.map(|n| format!("n{n}")).unwrap_or_else(|| "none".into())
}

fn names(ids: &[NodeId]) -> String {
    let v: Vec<String> = ids.iter().map(|n| format!("n{n}")).collect();
    v.join(", ")
}

fn error_clause(error: ErrorCode) -> &'static str {
    match error {
        ErrorCode::None => "",
        ErrorCode::FencedLeaderEpoch => {
            "FENCED_LEADER_EPOCH: the request's epoch is older than the receiver's, so the sender learns the newer \
             epoch (KafkaRaftClient.maybeHandleCommonResponse)"
        }
        ErrorCode::UnknownLeaderEpoch => {
            "UNKNOWN_LEADER_EPOCH: the request names an epoch newer than the receiver knows \
             (KafkaRaftClient.maybeHandleCommonResponse)"
        }
        ErrorCode::NotLeaderOrFollower => {
            "NOT_LEADER_OR_FOLLOWER: same epoch, but the receiver is not the leader, so it cannot serve a fetch \
             (KafkaRaftClient.handleFetchRequest)"
        }
        ErrorCode::SnapshotNotFound => {
            "SNAPSHOT_NOT_FOUND: the snapshot asked for no longer exists, so the follower fetches again to learn the \
             latest one (KafkaRaftClient.handleFetchSnapshotRequest)"
        }
        ErrorCode::InvalidRequest => {
            "INVALID_REQUEST: the request cannot be served, e.g. a vote whose last log epoch is beyond its own \
             epoch, or a new voter without a directory id (KafkaRaftClient.handleVoteRequest, \
             handleAddVoterRequest)"
        }
        ErrorCode::RequestTimedOut => {
            "REQUEST_TIMED_OUT: the voter change cannot be made or finished now: another is pending, the leader has \
             not committed its epoch, the latest VotersRecord is uncommitted, or the new voter lags \
             (AddVoterHandler, RemoveVoterHandler, KIP-853)"
        }
        ErrorCode::DuplicateVoter => {
            "DUPLICATE_VOTER: that node id is a voter already (AddVoterHandler.handleAddVoterRequest)"
        }
        ErrorCode::VoterNotFound => {
            "VOTER_NOT_FOUND: the replica key is not a voter's, or it is the last voter \
             (RemoveVoterHandler.handleRemoveVoterRequest, VoterSet.removeVoter)"
        }
        ErrorCode::InvalidVoterKey => {
            "INVALID_VOTER_KEY: the request names another replica key than the receiver's, so it was meant for \
             another disk of that node (KafkaRaftClient.isValidVoterKey, KIP-853)"
        }
        ErrorCode::UnsupportedVersion => {
            "UNSUPPORTED_VERSION: kraft.version is 0, a static voter set, which cannot change \
             (AddVoterHandler, RemoveVoterHandler)"
        }
    }
}

/// Why a message was sent.
fn send_reason(from: NodeId, to: NodeId, rpc: RpcKind, epoch: u32, s: &MessageSummary) -> String {
    match (rpc, s) {
        (RpcKind::PreVote, MessageSummary::Vote { last_epoch, last_offset }) => format!(
            "n{from} asks n{to} for a pre-vote for epoch {epoch} with its log's end (offset {last_offset}, epoch \
             {last_epoch}): a Prospective node checks it could win before bumping the epoch, so a node that cannot \
             win does not disrupt the leader (KafkaRaftClient.maybeSendVoteRequests, KIP-996)"
        ),
        (RpcKind::Vote, MessageSummary::Vote { last_epoch, last_offset }) => format!(
            "n{from} asks n{to} for its vote in epoch {epoch} with its log's end (offset {last_offset}, epoch \
             {last_epoch}): a candidate requests a vote from every voter (KafkaRaftClient.maybeSendVoteRequests, \
             KIP-595)"
        ),
        (RpcKind::VoteResponse | RpcKind::PreVoteResponse, MessageSummary::VoteResponse { granted, error, leader }) => {
            let kind = if rpc == RpcKind::PreVoteResponse { "pre-vote" } else { "vote" };
            let err = error_clause(*error);
            if !err.is_empty() {
                format!("n{from} answers n{to}'s {kind} request with {err}")
            } else {
                format!(
                    "n{from} answers n{to}'s {kind} request: {}{} (KafkaRaftClient.handleVoteRequest)",
                    if *granted { "granted".to_string() } else { format!("rejected, n{from}'s vote event says why") },
                    leader.map(|l| format!(", and it knows leader n{l}")).unwrap_or_default()
                )
            }
        }
        (RpcKind::BeginQuorumEpoch, _) => format!(
            "n{from}, leader of epoch {epoch}, tells n{to} it leads: at election it tells every voter, later only the \
             voters that have not fetched within fetch.timeout.ms / 2 (KafkaRaftClient.maybeSendBeginQuorumEpochRequests)"
        ),
        (RpcKind::EndQuorumEpoch, MessageSummary::EndQuorumEpoch { first_successor, .. }) => format!(
            "n{from} resigned leadership of epoch {epoch} and tells n{to}, naming {} as the preferred successor (the \
             furthest replicated), so followers start an election at once instead of waiting out the fetch timeout \
             (KafkaRaftClient.pollResigned, EndQuorumEpoch)",
            who(*first_successor)
        ),
        (RpcKind::BeginQuorumEpochResponse | RpcKind::EndQuorumEpochResponse, MessageSummary::Ack { error, leader }) => {
            let err = error_clause(*error);
            format!(
                "n{from} acknowledges n{to}'s {}{}{} (KafkaRaftClient.handle{}Request)",
                if rpc == RpcKind::BeginQuorumEpochResponse { "BeginQuorumEpoch" } else { "EndQuorumEpoch" },
                if err.is_empty() { String::new() } else { format!(" with {err}") },
                leader.map(|l| format!("; it knows leader n{l}")).unwrap_or_default(),
                if rpc == RpcKind::BeginQuorumEpochResponse { "BeginQuorumEpoch" } else { "EndQuorumEpoch" },
            )
        }
        (RpcKind::Fetch, MessageSummary::Fetch { offset, last_epoch, hw }) => format!(
            "n{from} fetches from n{to} from offset {offset} (last epoch {last_epoch}{}): KRaft is pull-based, a \
             follower asks the leader for records instead of the leader pushing them, and nodes that know no leader \
             fetch from a voter to find it (KafkaRaftClient.maybeSendFetchOrFetchSnapshot, KIP-595)",
            hw.map(|h| format!(", its HW {h}, KIP-1166")).unwrap_or_default()
        ),
        (RpcKind::FetchResponse, MessageSummary::FetchResponse { error, hw_known, hw, outcome }) => {
            let hw = MessageSummary::fetch_hw(*hw_known, *hw);
            let err = error_clause(*error);
            if !err.is_empty() {
                format!("n{from} answers n{to}'s fetch with {err}")
            } else if let Some(d) = outcome.diverging() {
                format!(
                    "n{from} answers n{to}'s fetch with a diverging epoch (epoch {}, end offset {}): the follower's last \
                     fetched epoch ends earlier in the leader's log, so the follower must truncate to it \
                     (KafkaRaftClient.handleFetchRequest, ReplicatedLog.validateOffsetAndEpoch)",
                    d.epoch, d.end_offset
                )
            } else if let Some(sn) = outcome.snapshot() {
                format!(
                    "n{from} answers n{to}'s fetch with snapshot id (end {}, epoch {}): the records it asked for are \
                     below the leader's log start, so the follower must download the snapshot with FetchSnapshot \
                     (KafkaRaftClient.handleFetchRequest, ReplicatedLog.validateOffsetAndEpoch)",
                    sn.end_offset, sn.epoch
                )
            } else if let FetchOutcome::Records { first_offset, count: records @ 1.. } = outcome {
                format!(
                    "n{from}, the leader, sends n{to} {records} record(s) from offset {first_offset} and its HW {}: a \
                     valid fetch is answered with the records after the fetch offset (KafkaRaftClient.handleFetchRequest)",
                    opt(hw)
                )
            } else {
                format!(
                    "n{from}, the leader, answers n{to}'s fetch with no records and its HW {}: the fetch was parked up to \
                     500 ms and answered when it expired or the HW moved (KafkaRaftClient.handleFetchRequest, \
                     MAX_FETCH_WAIT_MS, KIP-1166)",
                    opt(hw)
                )
            }
        }
        (RpcKind::FetchSnapshot, MessageSummary::FetchSnapshot { snapshot, position }) => format!(
            "n{from} downloads snapshot (end {}, epoch {}) from n{to} at byte {position}: the leader redirected its \
             fetch to a snapshot (KafkaRaftClient.maybeSendFetchOrFetchSnapshot, KIP-630)",
            snapshot.end_offset, snapshot.epoch
        ),
        (RpcKind::FetchSnapshotResponse, MessageSummary::FetchSnapshotResponse { error, position, chunk, size }) => {
            let err = error_clause(*error);
            if err.is_empty() {
                format!(
                    "n{from} sends n{to} bytes {position}..{} of {size} of its snapshot (KafkaRaftClient.\
                     handleFetchSnapshotRequest, fetch.snapshot.max.bytes per response)",
                    position + chunk
                )
            } else {
                format!("n{from} answers n{to}'s FetchSnapshot with {err}")
            }
        }
        // A summary always matches its kind (Message::summary); a mismatch still gets a sentence.
        (rpc, _) => format!("n{from} sends n{to} a {} in epoch {epoch} (KafkaRaftClient.maybeSendRequests)", rpc.name()),
    }
}

/// What receiving a message does.
fn deliver_meaning(from: NodeId, to: NodeId, rpc: RpcKind, epoch: u32, s: &MessageSummary) -> String {
    let sent = send_reason(from, to, rpc, epoch, s);
    let handler = match rpc {
        RpcKind::Vote | RpcKind::PreVote => "KafkaRaftClient.handleVoteRequest decides; see its vote event",
        RpcKind::VoteResponse | RpcKind::PreVoteResponse => "KafkaRaftClient.handleVoteResponse counts it",
        RpcKind::BeginQuorumEpoch => "KafkaRaftClient.handleBeginQuorumEpochRequest makes the receiver follow",
        RpcKind::BeginQuorumEpochResponse => "KafkaRaftClient.handleBeginQuorumEpochResponse",
        RpcKind::EndQuorumEpoch => {
            "KafkaRaftClient.handleEndQuorumEpochRequest shortens the follower's fetch timer by its place in the \
             successor list (FollowerState.overrideFetchTimeout)"
        }
        RpcKind::EndQuorumEpochResponse => "KafkaRaftClient.handleEndQuorumEpochResponse",
        RpcKind::Fetch => "KafkaRaftClient.handleFetchRequest answers or parks it",
        RpcKind::FetchResponse => "KafkaRaftClient.handleFetchResponse appends, truncates or redirects",
        RpcKind::FetchSnapshot => "KafkaRaftClient.handleFetchSnapshotRequest",
        RpcKind::FetchSnapshotResponse => "KafkaRaftClient.handleFetchSnapshotResponse",
        RpcKind::AddRaftVoter => "AddVoterHandler.handleAddVoterRequest checks it and asks the new voter's ApiVersions",
        RpcKind::RemoveRaftVoter => "RemoveVoterHandler.handleRemoveVoterRequest checks it and appends the new set",
        RpcKind::UpdateRaftVoter => "UpdateVoterHandler.handleUpdateVoterRequest replaces the voter's entry",
        RpcKind::ApiVersions => "the node answers with the kraft.version levels its software supports",
        RpcKind::ApiVersionsResponse => {
            "AddVoterHandler.handleApiVersionsResponse checks the versions and whether the new voter is caught up"
        }
        RpcKind::AddRaftVoterResponse | RpcKind::RemoveRaftVoterResponse | RpcKind::UpdateRaftVoterResponse => {
            "the requester learns how its voter change ended"
        }
    };
    format!("n{to} received it: {sent}; on arrival {handler}")
}

fn opt(o: Option<u64>) -> String {
    o.map(|v| v.to_string()).unwrap_or_else(|| "none".into())
}

fn transition(
    node: NodeId,
    from: StateName,
    to: StateName,
    epoch: u32,
    leader: Option<NodeId>,
    voted: Option<NodeId>,
    reason: Reason,
) -> String {
    let head = format!("n{node} went from {} to {} in epoch {epoch}", from.name(), to.name());
    let why = match reason {
        Reason::Startup => "it started: a node begins from its quorum-state file and log, Unattached when they are \
                            empty (QuorumState.initialize)"
            .to_string(),
        Reason::Restart => format!(
            "it restarted and resumed from its quorum-state file{} (QuorumState.initialize; a leader restarts as \
             Resigned, KAFKA-10661)",
            match (to, leader, voted) {
                (StateName::Resigned, _, _) => ": it was the leader, and (offset, epoch) pairs must never be reused"
                    .to_string(),
                (_, Some(l), _) => format!(", which names leader n{l}"),
                (_, None, Some(v)) => format!(", which says it voted for n{v}"),
                _ => String::new(),
            }
        ),
        Reason::ElectionTimeout => match from {
            StateName::Candidate => "its election timed out without a majority, so it starts over with a pre-vote \
                                     (KafkaRaftClient.pollCandidate, KIP-996)"
                .to_string(),
            _ => "its election timeout expired with no leader, so it asks for pre-votes before bumping the epoch \
                  (KafkaRaftClient.pollUnattached, KIP-996)"
                .to_string(),
        },
        Reason::FetchTimeout => format!(
            "no successful Fetch response from {} within fetch.timeout.ms, so it suspects the leader is gone and \
             starts a pre-vote (KafkaRaftClient.pollFollowerAsVoter, KIP-996)",
            from_leader(leader)
        ),
        Reason::PreVoteGranted => "a majority granted its pre-vote, so it becomes a candidate: bumps the epoch and \
                                   votes for itself (KafkaRaftClient.handleVoteResponse, \
                                   QuorumState.transitionToCandidate)"
            .to_string(),
        Reason::PreVoteRejected => format!(
            "a majority rejected its pre-vote, so it gives up this round{} and waits a new random election timeout \
             (prospectiveTransitionAfterElectionLoss, KIP-996)",
            leader.map(|l| format!(" and goes back to following n{l}")).unwrap_or_default()
        ),
        Reason::PreVoteTimedOut => format!(
            "its pre-vote got no majority before the election timeout{}, and it tries again at once \
             (prospectiveTransitionAfterElectionLoss, KIP-996)",
            leader.map(|l| format!(", so it goes back to following n{l}")).unwrap_or_default()
        ),
        Reason::VoteGranted => "a majority of voters granted its vote, so it leads this epoch and appends a \
                                LeaderChange record (KafkaRaftClient.handleVoteResponse, KafkaRaftClient.onBecomeLeader)"
            .to_string(),
        Reason::HigherEpoch => format!(
            "it saw a message with a higher epoch{}; every state steps down to a newer epoch \
             (KafkaRaftClient.maybeTransition, QuorumState.transitionToUnattached)",
            leader.map(|l| format!(" naming leader n{l}")).unwrap_or_else(|| " and no known leader".into())
        ),
        Reason::LeaderDiscovered => format!(
            "it learned that {} leads epoch {epoch} (from BeginQuorumEpoch or a Fetch response), so it follows and \
             fetches from it (KafkaRaftClient.maybeTransition, QuorumState.transitionToFollower)",
            who(leader)
        ),
        Reason::VotedForCandidate => format!(
            "it granted its vote to {} and persisted it, so it votes for no one else in this epoch \
             (KafkaRaftClient.handleVoteRequest, QuorumState.transitionToUnattachedVotedState)",
            who(voted)
        ),
        Reason::Resign => "it was asked to resign leadership (a graceful shutdown or resign()), so it stops leading \
                           and sends EndQuorumEpoch (QuorumState.transitionToResigned)"
            .to_string(),
        Reason::CheckQuorumFailed => "fewer than a majority of voters fetched from it within 1.5 x fetch.timeout.ms, \
                                      so it resigns rather than lead a partitioned minority \
                                      (LeaderState.timeUntilCheckQuorumExpires, KafkaRaftClient.pollLeader, \
                                      KAFKA-15489)"
            .to_string(),
        Reason::ResignedTimeout => "its election timeout as a resigned leader expired, so it moves to the next epoch \
                                    with no leader (KafkaRaftClient.pollResigned)"
            .to_string(),
        Reason::RemovedFromVoters => "the VotersRecord that removes it committed, so it resigns and sends \
                                      EndQuorumEpoch; it had kept leading without counting itself until then \
                                      (RemoveVoterHandler.highWatermarkUpdated, KIP-853)"
            .to_string(),
    };
    format!("{head}: {why}")
}

fn from_leader(leader: Option<NodeId>) -> String {
    leader.map(|l| format!("its leader n{l}")).unwrap_or_else(|| "its leader".into())
}

fn vote(node: NodeId, candidate: NodeId, epoch: u32, pre_vote: bool, d: VoteDecision) -> String {
    let kind = if pre_vote { "pre-vote" } else { "vote" };
    let verb = if d.granted() { "granted" } else { "rejected" };
    let why = match d {
        VoteDecision::Granted if pre_vote => "n{cand}'s log is at least as up to date as n{node}'s (last epoch \
                                              first, then offset), and a pre-vote persists nothing and binds no one \
                                              (EpochState.canGrantVote, KIP-996)"
            .to_string(),
        VoteDecision::Granted => "n{node} had not voted in this epoch, knew no leader, and the candidate's log is at \
                                  least as up to date (UnattachedState.canGrantVote, KIP-595)"
            .to_string(),
        VoteDecision::GrantedAgain => "n{node} already voted for it in this epoch, and a repeated request is granted \
                                       again without the log check (UnattachedState.canGrantVote)"
            .to_string(),
        VoteDecision::LogNotUpToDate => "n{cand}'s log is behind n{node}'s (last epoch first, then offset), so \
                                         electing it could lose committed records (EpochState.canGrantVote's \
                                         isLogUpToDate, KafkaRaftClient.handleVoteRequest)"
            .to_string(),
        VoteDecision::AlreadyVoted(v) => format!(
            "n{{node}} already voted for n{v} in epoch {epoch}, and a voter votes once per epoch \
             (UnattachedState.canGrantVote)"
        ),
        VoteDecision::KnowsLeader(l) => format!(
            "n{{node}} already knows n{l} leads epoch {epoch}, so there is no election to vote in \
             (UnattachedState.canGrantVote)"
        ),
        VoteDecision::IsLeader => "n{node} is the leader of this epoch and rejects every vote \
                                   (LeaderState.canGrantVote)"
            .to_string(),
        VoteDecision::IsCandidate => "n{node} is a candidate that voted for itself in this epoch \
                                      (CandidateState.canGrantVote)"
            .to_string(),
        VoteDecision::IsResigned => "n{node} resigned leadership of this epoch: it grants up-to-date pre-votes but \
                                     never a standard vote in it (ResignedState.canGrantVote)"
            .to_string(),
        VoteDecision::FollowerHasFetched(l) => format!(
            "it fetched from leader n{l} in epoch {epoch}, and a follower that has fetched rejects pre-votes \
             (FollowerState.canGrantVote, KIP-996)"
        ),
        VoteDecision::IsFollower(l) => format!(
            "n{{node}} follows n{l} in epoch {epoch}, and a follower rejects standard votes in its epoch \
             (FollowerState.canGrantVote)"
        ),
        VoteDecision::StaleEpoch => format!(
            "the request's epoch {epoch} is older than n{{node}}'s, so it is fenced (FENCED_LEADER_EPOCH, \
             KafkaRaftClient.handleVoteRequest)"
        ),
        VoteDecision::InvalidVoterKey => "the request names another replica key (directory id) than n{node}'s, so it \
                                          was meant for another disk of that node (INVALID_VOTER_KEY, \
                                          KafkaRaftClient.handleVoteRequest)"
            .to_string(),
        VoteDecision::InvalidRequest => "the request's last log epoch is beyond its own epoch, which no valid \
                                         candidate sends (KafkaRaftClient.handleVoteRequest, INVALID_REQUEST)"
            .to_string(),
    };
    let why = replace(&replace(&why, "{node}", node), "{cand}", candidate);
    format!("n{node} {verb} n{candidate}'s {kind}: {why}")
}

/// `text` with each `pattern` replaced by `id`: `str::replace` without its substring
/// search, which would bring a panic path into the wasm (see `messages::split_around`).
fn replace(text: &str, pattern: &str, id: NodeId) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some((before, after)) = kraft_base::messages::split_around(rest, pattern, false) {
        out.push_str(before);
        out.push_str(&id.to_string());
        rest = after;
    }
    out.push_str(rest);
    out
}
