// What each glossary entry means (glossary.ts has its KRaft word): the Raft word, a
// sentence or two, and where Kafka does it. Loaded with the later chunk, which hands it
// to glossary.ts; the help dialog reads it as a table.

import type { Meaning, Term } from './glossary.js';

export const MEANINGS: Readonly<Record<Term, Meaning>> = {
  epoch: {
    raft: 'term',
    text: 'A number that only goes up, with at most one leader each. A candidate bumps it and writes it, with its vote, to its quorum-state file.',
    kafka: 'QuorumState, FileQuorumStateStore',
  },
  vote: {
    raft: 'RequestVote',
    text: 'A candidate asks for votes with its last epoch and log end offset. A voter grants one vote per epoch, only to a log at least as up to date as its own.',
    kafka: 'KafkaRaftClient.handleVoteRequest, EpochState.canGrantVote',
  },
  preVote: {
    raft: 'Pre-Vote (thesis §9.6)',
    text: 'Before bumping its epoch a node asks "would you vote for me?" and persists nothing. A follower that has fetched from its leader refuses, so a rejoining node cannot unseat a healthy leader (KIP-996).',
    kafka: 'ProspectiveState, FollowerState.canGrantVote',
  },
  fetch: {
    raft: 'AppendEntries',
    text: 'Pull, not push: followers and observers ask the leader for records from their log end offset, naming the epoch of their last record. The answer carries records and the HW, or a divergingEpoch, or a snapshot id.',
    kafka: 'KafkaRaftClient.handleFetchRequest',
  },
  hw: {
    raft: 'commitIndex',
    text: 'The first offset not yet committed: every record below it is on a majority of voters. The leader moves it only once a record of its own epoch is on a majority; followers learn it from Fetch responses.',
    kafka: 'LeaderState.maybeUpdateHighWatermark',
  },
  leo: {
    raft: 'lastLogIndex + 1',
    text: "The offset the next record will get. A follower's fetch offset is its LEO, and the leader counts those toward the HW.",
    kafka: 'ReplicatedLog.endOffset',
  },
  beginQuorumEpoch: {
    raft: 'heartbeat (an empty AppendEntries)',
    text: "A new leader announces itself to the voters. There are no leader heartbeats after that: the followers' own Fetch requests show the leader is alive; it repeats BeginQuorumEpoch only to voters that stopped fetching.",
    kafka: 'KafkaRaftClient.maybeSendBeginQuorumEpochRequests',
  },
  fetchTimeout: {
    raft: 'election timeout (at a follower)',
    text: 'A follower with no successful Fetch response for controller.quorum.fetch.timeout.ms (2 s) gives up on its leader and starts a pre-vote. Elections wait controller.quorum.election.timeout.ms, randomised in [1 s, 2 s).',
    kafka: 'FollowerState (fetch timer)',
  },
  checkQuorum: {
    raft: 'leader lease / CheckQuorum',
    text: 'A leader that a majority of voters has not fetched from within 1.5 × fetch.timeout.ms resigns, instead of leading a dead epoch forever (KAFKA-15489).',
    kafka: 'LeaderState.timeUntilCheckQuorumExpires',
  },
  observer: {
    raft: 'learner (non-voting member)',
    text: 'A broker: it fetches and applies the metadata log like a follower, but never votes, never counts toward the HW and has no fetch timeout.',
    kafka: 'KafkaRaftClient.pollFollowerAsObserver',
  },
  snapshot: {
    raft: 'InstallSnapshot',
    text: 'A replica too far behind (or new) is answered with a snapshot id and downloads the metadata image in chunks with FetchSnapshot, pulled by the follower like Fetch.',
    kafka: 'KafkaRaftClient.handleFetchSnapshotRequest',
  },
  image: {
    raft: 'state machine, lastApplied',
    text: 'What the records a node has applied add up to: the registered brokers and the topics with their partition leaders. Every node applies the records below its HW in log order (the applied offset is the next one to apply), or loads a snapshot of an image, so all images converge.',
    kafka: 'MetadataLoader (RaftClient.Listener.handleCommit, handleLoadSnapshot), MetadataImage',
  },
  resign: {
    raft: 'leadership transfer (TimeoutNow)',
    text: 'A leader shutting down, or failing check-quorum, becomes Resigned and sends EndQuorumEpoch naming preferred successors, who time out sooner. A leader that restarts comes back Resigned: it never leads that epoch again.',
    kafka: 'ResignedState, KafkaRaftClient.handleEndQuorumEpochRequest',
  },
  leaderChange: {
    raft: "a new leader's no-op entry",
    text: 'The control record a new leader writes first in its epoch. Once it is on a majority the HW can move, exposing the earlier records too.',
    kafka: 'LeaderState.appendStartOfEpochControlRecords',
  },
  divergingEpoch: {
    raft: 'the prevLogIndex/prevLogTerm check',
    text: "When a Fetch names an epoch that does not match the leader's log there, the leader answers where that epoch ends; the follower truncates to it and fetches again, maybe several rounds.",
    kafka: 'ReplicatedLog.validateOffsetAndEpoch',
  },
  unattached: {
    raft: 'follower that knows no leader',
    text: 'In an epoch with no known leader: it asks bootstrap voters who leads and waits out its election timeout.',
    kafka: 'UnattachedState',
  },
};
