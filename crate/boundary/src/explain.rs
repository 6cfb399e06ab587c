//! Why a replica did what the trace records, in one plain sentence naming the rule and
//! where its protocol states it (for KRaft a Kafka class or method, for Raft a section
//! of the paper). The world explains its own events (faults, drops, violations) and
//! asks the protocol for everything its replicas do or undergo, from the event's own
//! fields, so the UI never guesses.

use crate::protocol::{Note, Protocol};
use crate::record::{Epoch, NodeId, Offset};

pub trait Explain: Protocol {
    /// Why `node` reported `note`.
    fn note(node: NodeId, note: &Note<Self>) -> String;
    /// Why `from` sent `to` this message.
    fn sent(from: NodeId, to: NodeId, rpc: Self::Rpc, epoch: Epoch, summary: &Self::Summary) -> String;
    /// What receiving it does at `to`.
    fn delivered(from: NodeId, to: NodeId, rpc: Self::Rpc, epoch: Epoch, summary: &Self::Summary) -> String;
    /// `node`'s request to `peer` failed because `peer`'s process is down.
    fn disconnected(node: NodeId, peer: NodeId, rpc: Self::Rpc) -> String;
    /// `node`'s disk finished flushing its log up to `offset`.
    fn flushed(node: NodeId, offset: Offset) -> String;
    /// `node` crashed, losing its unflushed records.
    fn crashed(node: NodeId, lost_records: u64) -> String;
    /// `node` restarted from its disk.
    fn restarted(node: NodeId) -> String;
    /// A client's write, taken by leader `node` at `offset` or refused (by `node`, or for
    /// want of a leader).
    fn write(node: Option<NodeId>, accepted: bool, offset: Option<Offset>, kind: &str) -> String;
}
