// Raft words to KRaft words, in two halves: the KRaft word of each entry here, drawn with
// the first frame; what it means (the Raft word, a sentence or two, where Kafka does it)
// in glossary-text.ts, which comes with the later chunk. Read by the help dialog (as a
// table) and by the views, as tooltips on the words where they are shown (the status
// line, the legend, the node labels, the panel headings): a tooltip shows the word alone
// until the meanings arrive, a moment after the first frame, then the whole entry.

import { h } from './dom.js';
import type { RpcGroup } from './types.js';

/** One glossary entry's meaning (its KRaft word is in `WORDS`). */
export interface Meaning {
  /** What the Raft paper calls it. */
  raft: string;
  /** What it is and how it differs, in a sentence or two. */
  text: string;
  /** Where Kafka does it. */
  kafka: string;
}

/** Each entry's word as KRaft (and this playground) says it. */
export const WORDS = {
  epoch: 'epoch',
  vote: 'Vote',
  preVote: 'pre-vote (Prospective)',
  fetch: 'Fetch',
  hw: 'high watermark (HW)',
  leo: 'log end offset (LEO)',
  beginQuorumEpoch: 'BeginQuorumEpoch',
  fetchTimeout: 'fetch timeout',
  checkQuorum: 'check-quorum',
  observer: 'observer',
  snapshot: 'snapshot, FetchSnapshot',
  image: 'metadata image, applied offset',
  resign: 'resign (Resigned, EndQuorumEpoch)',
  leaderChange: 'LeaderChange record',
  divergingEpoch: 'divergingEpoch, truncation',
  unattached: 'Unattached',
} as const;

export type Term = keyof typeof WORDS;

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

/** The meanings, once the later chunk has brought them. */
let meanings: Readonly<Record<Term, Meaning>> | null = null;
/** What to redo when they arrive: tooltips set before. */
const waiting = new Set<() => void>();

/** The meanings arrived (the later chunk calls this): every tooltip set before is set again. */
export function explainTerms(all: Readonly<Record<Term, Meaning>>): void {
  meanings = all;
  for (const redo of waiting) redo();
  waiting.clear();
}

/** Whether the meanings have arrived. */
export const hasMeanings = (): boolean => meanings !== null;

/** Calls `redo` now, and again once the meanings arrive if they have not yet. */
export function withMeanings(redo: () => void): void {
  redo();
  if (!meanings) waiting.add(redo);
}

/** The tooltip of one entry: "epoch (Raft: term). A number that ..."; the word alone until the meanings arrive. */
export function tip(term: Term): string {
  const m = meanings?.[term];
  return m ? `${WORDS[term]} (Raft: ${m.raft}). ${m.text}` : WORDS[term];
}

/** The tooltip for a node state name, if the glossary explains it. */
export function stateTip(state: string): string | null {
  const t = STATE_TERMS[state];
  return t ? tip(t) : null;
}

/** "epoch = Raft's term": one entry in a few words. */
function short(key: Term, word: string): string {
  const m = meanings?.[key];
  return m ? `${word}: ${WORDS[key]} (Raft: ${m.raft})` : `${word}: ${WORDS[key]}`;
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
export function term(key: Term, text: string = WORDS[key]): HTMLButtonElement {
  const b = h('button', { class: 'kp-term', type: 'button', 'data-term': key }, text);
  withMeanings(() => {
    b.title = tip(key);
  });
  return b;
}
