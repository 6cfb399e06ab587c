//! The words a protocol's trace is written in. The world records each protocol's own
//! names (KRaft's `Fetch` and `prospective`, Raft's `AppendEntries` and `follower`) and
//! reads only what these traits say of them: a name, whether an RPC is a request,
//! whether a state leads, whether a vote was granted. Every value is small and `Copy`,
//! and hashes into the trace's digest as its protocol declares it.

use serde::Serialize;
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// A value of a small vocabulary with a fixed name (the trace's text and JSON form).
pub trait Named: Copy + Debug + Eq + Hash + Serialize + 'static {
    fn name(self) -> &'static str;
}

/// The kind of an RPC, request or response (what the timeline colours).
pub trait RpcName: Named {
    fn is_request(self) -> bool;
}

/// The name of a replica's state (Kafka's epoch states; Raft's follower, candidate, leader).
pub trait StateName: Named {
    /// The name the timeline gives a replica whose process is down (no replica is ever
    /// in it; the node view's `crashed`).
    const CRASHED: Self;
    /// The state of a replica that leads its epoch (term).
    fn is_leader(self) -> bool;
    /// The state of a replica that asks the voters for their votes, in a pre-vote or a
    /// vote (KRaft's prospective and candidate; Raft's candidate): the first voter to
    /// enter it after the leader was lost detected the loss.
    fn seeks_votes(self) -> bool;
    /// The state of a replica that stands for election in its epoch (term): it asks for
    /// the votes that elect, not a pre-vote's (KRaft's and Raft's candidate).
    fn is_candidate(self) -> bool;
    /// Entering it, a replica has no committed offset until it learns one again (its next
    /// `hw` event): KRaft's leader and resigned (Kafka carries no HW into either); a Raft
    /// leader keeps its commitIndex.
    fn clears_committed_offset(self) -> bool;
}

/// A voter's decision on a vote request, and why. Its JSON form is an object with
/// `granted`, `reason` (its `name`) and `detail` (its `describe`), which the `vote`
/// event flattens into itself.
pub trait Verdict: Copy + Debug + Eq + Hash + Serialize {
    fn granted(self) -> bool;
    fn name(self) -> &'static str;
    fn describe(self) -> String;
}

/// A message's one-line summary: what the trace keeps of it besides its kind and epoch,
/// formatted only when asked (`Display`).
pub trait Summary: Copy + Debug + PartialEq + Hash + Display {
    /// What it says that the event's other fields do not and the timeline draws.
    fn outcome(&self) -> Outcome;
    /// Whether it tells an outcome: the packed form keeps such a message's summary.
    fn tells_outcome(&self) -> bool {
        self.outcome() != Outcome::Plain
    }
}

/// What a message's summary says that the timeline draws (its other fields do not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Outcome {
    #[default]
    Plain,
    /// A (pre-)vote granted.
    Granted,
    Refused,
    /// A request answered with an error.
    Error,
    /// A request answered with a diverging epoch (the follower truncates).
    Diverging,
    /// A request answered with a snapshot to fetch.
    Snapshot,
}

impl Outcome {
    /// Every outcome, in declaration order (the packed lanes' numbers).
    pub const ALL: [Outcome; 6] =
        [Outcome::Plain, Outcome::Granted, Outcome::Refused, Outcome::Error, Outcome::Diverging, Outcome::Snapshot];

    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Plain => "plain",
            Outcome::Granted => "granted",
            Outcome::Refused => "refused",
            Outcome::Error => "error",
            Outcome::Diverging => "diverging",
            Outcome::Snapshot => "snapshot",
        }
    }
}

// The timer that ends a replica's current state, as the node view names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum TimerKind {
    /// Election timeout: a replica that knows no leader (or, in Raft, any follower).
    Election,
    /// KRaft's fetch timeout: a voter following a leader.
    Fetch,
    /// KRaft's check-quorum timeout: a leader.
    CheckQuorum,
}
