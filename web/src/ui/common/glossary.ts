// Raft words to KRaft words: one table, read by the help dialog (as a table) and by the
// views (as tooltips on the words where they are shown: the status line, the legend,
// the node labels, the panel headings). The help dialog's table is help.ts's.

import { h } from './dom.js';
import type { RpcGroup } from './types.js';

export interface GlossaryEntry {
  /** The word as KRaft (and this playground) says it. */
  kraft: string;
  /** What the Raft paper calls it. */
  raft: string;
  /** What it is and how it differs, in a sentence or two. */
  text: string;
  /** Where Kafka does it. */
  kafka: string;
}

export const GLOSSARY = {
  epoch: {
    kraft: 'epoch',
    raft: 'term',
    text: 'A number that only goes up, with at most one leader each. A candidate bumps it and writes it, with its vote, to its quorum-state file.',
    kafka: 'QuorumState, FileQuorumStateStore',
  },
  vote: {
    kraft: 'Vote',
    raft: 'RequestVote',
    text: 'A candidate asks for votes with its last epoch and log end offset. A voter grants one vote per epoch, only to a log at least as up to date as its own.',
    kafka: 'KafkaRaftClient.handleVoteRequest, EpochState.canGrantVote',
  },
  preVote: {
    kraft: 'pre-vote (Prospective)',
    raft: 'Pre-Vote (thesis §9.6)',
    text: 'Before bumping its epoch a node asks "would you vote for me?" and persists nothing. A follower that has fetched from its leader refuses, so a rejoining node cannot unseat a healthy leader (KIP-996).',
    kafka: 'ProspectiveState, FollowerState.canGrantVote',
  },
  fetch: {
    kraft: 'Fetch',
    raft: 'AppendEntries',
    text: 'Pull, not push: followers and observers ask the leader for records from their log end offset, naming the epoch of their last record. The answer carries records and the HW, or a divergingEpoch, or a snapshot id.',
    kafka: 'KafkaRaftClient.handleFetchRequest',
  },
  hw: {
    kraft: 'high watermark (HW)',
    raft: 'commitIndex',
    text: 'The first offset not yet committed: every record below it is on a majority of voters. The leader moves it only once a record of its own epoch is on a majority; followers learn it from Fetch responses.',
    kafka: 'LeaderState.maybeUpdateHighWatermark',
  },
  leo: {
    kraft: 'log end offset (LEO)',
    raft: 'lastLogIndex + 1',
    text: "The offset the next record will get. A follower's fetch offset is its LEO, and the leader counts those toward the HW.",
    kafka: 'ReplicatedLog.endOffset',
  },
  beginQuorumEpoch: {
    kraft: 'BeginQuorumEpoch',
    raft: 'heartbeat (an empty AppendEntries)',
    text: "A new leader announces itself to the voters. There are no leader heartbeats after that: the followers' own Fetch requests show the leader is alive; it repeats BeginQuorumEpoch only to voters that stopped fetching.",
    kafka: 'KafkaRaftClient.maybeSendBeginQuorumEpochRequests',
  },
  fetchTimeout: {
    kraft: 'fetch timeout',
    raft: 'election timeout (at a follower)',
    text: 'A follower with no successful Fetch response for controller.quorum.fetch.timeout.ms (2 s) gives up on its leader and starts a pre-vote. Elections wait controller.quorum.election.timeout.ms, randomised in [1 s, 2 s).',
    kafka: 'FollowerState (fetch timer)',
  },
  checkQuorum: {
    kraft: 'check-quorum',
    raft: 'leader lease / CheckQuorum',
    text: 'A leader that a majority of voters has not fetched from within 1.5 × fetch.timeout.ms resigns, instead of leading a dead epoch forever (KAFKA-15489).',
    kafka: 'LeaderState.timeUntilCheckQuorumExpires',
  },
  observer: {
    kraft: 'observer',
    raft: 'learner (non-voting member)',
    text: 'A broker: it fetches and applies the metadata log like a follower, but never votes, never counts toward the HW and has no fetch timeout.',
    kafka: 'KafkaRaftClient.pollFollowerAsObserver',
  },
  snapshot: {
    kraft: 'snapshot, FetchSnapshot',
    raft: 'InstallSnapshot',
    text: 'A replica too far behind (or new) is answered with a snapshot id and downloads the metadata image in chunks with FetchSnapshot, pulled by the follower like Fetch.',
    kafka: 'KafkaRaftClient.handleFetchSnapshotRequest',
  },
  image: {
    kraft: 'metadata image, applied offset',
    raft: 'state machine, lastApplied',
    text: 'What the records a node has applied add up to: the registered brokers and the topics with their partition leaders. Every node applies the records below its HW in log order (the applied offset is the next one to apply), or loads a snapshot of an image, so all images converge.',
    kafka: 'MetadataLoader (RaftClient.Listener.handleCommit, handleLoadSnapshot), MetadataImage',
  },
  resign: {
    kraft: 'resign (Resigned, EndQuorumEpoch)',
    raft: 'leadership transfer (TimeoutNow)',
    text: 'A leader shutting down, or failing check-quorum, becomes Resigned and sends EndQuorumEpoch naming preferred successors, who time out sooner. A leader that restarts comes back Resigned: it never leads that epoch again.',
    kafka: 'ResignedState, KafkaRaftClient.handleEndQuorumEpochRequest',
  },
  leaderChange: {
    kraft: 'LeaderChange record',
    raft: "a new leader's no-op entry",
    text: 'The control record a new leader writes first in its epoch. Once it is on a majority the HW can move, exposing the earlier records too.',
    kafka: 'LeaderState.appendStartOfEpochControlRecords',
  },
  divergingEpoch: {
    kraft: 'divergingEpoch, truncation',
    raft: 'the prevLogIndex/prevLogTerm check',
    text: "When a Fetch names an epoch that does not match the leader's log there, the leader answers where that epoch ends; the follower truncates to it and fetches again, maybe several rounds.",
    kafka: 'ReplicatedLog.validateOffsetAndEpoch',
  },
  unattached: {
    kraft: 'Unattached',
    raft: 'follower that knows no leader',
    text: 'In an epoch with no known leader: it asks bootstrap voters who leads and waits out its election timeout.',
    kafka: 'UnattachedState',
  },
} as const satisfies Record<string, GlossaryEntry>;

export type Term = keyof typeof GLOSSARY;

/** The message kinds of the legend, with the entry that explains each. */
export const RPC_TERMS: Record<RpcGroup, Term> = {
  PreVote: 'preVote',
  Vote: 'vote',
  BeginQuorumEpoch: 'beginQuorumEpoch',
  EndQuorumEpoch: 'resign',
  Fetch: 'fetch',
  FetchSnapshot: 'snapshot',
};

/** The state names the ring and the timeline show, with the entry that explains each. */
const STATE_TERMS: Record<string, Term> = { unattached: 'unattached', prospective: 'preVote', resigned: 'resign' };

/** The tooltip of one entry: "epoch (Raft: term). A number that ...". */
export function tip(term: Term): string {
  const e: GlossaryEntry = GLOSSARY[term];
  return `${e.kraft} (Raft: ${e.raft}). ${e.text}`;
}

/** The tooltip for a node state name, if the glossary explains it. */
export function stateTip(state: string): string | null {
  const t = STATE_TERMS[state];
  return t ? tip(t) : null;
}

/** "epoch = Raft's term": one entry in a few words. */
function short(key: Term, word: string): string {
  return `${word}: ${GLOSSARY[key].kraft} (Raft: ${GLOSSARY[key].raft})`;
}

/** The tooltip of a node on the ring: what its label's words mean, and its state or role where KRaft has its own. */
export function nodeTip(role: string, state: string): string {
  const lines = [[short('epoch', 'e'), short('leo', 'LEO'), short('hw', 'HW')].join('\n')];
  const st = stateTip(state);
  if (st) lines.push(st);
  if (role === 'observer') lines.push(tip('observer'));
  return lines.join('\n\n');
}

/** A word with its glossary entry as a tooltip (`text` defaults to the entry's KRaft word); a tap opens the entry in the help, for screens without hover. */
export function term(key: Term, text: string = GLOSSARY[key].kraft): HTMLButtonElement {
  return h('button', { class: 'kp-term', type: 'button', title: tip(key), 'data-term': key }, text);
}
