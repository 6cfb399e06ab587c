//! Messages on the wire: the envelope the network carries and what the world reads of a
//! protocol's message (its kind, epoch and summary for the trace, the records it
//! carries for the memory budget). What a message means is the protocol's business.

use crate::record::{Epoch, NodeId};
use crate::vocab::{RpcName, Summary};
use std::fmt::Debug;

/// A message on the wire. `correlation` pairs a response with its request.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope<M> {
    pub from: NodeId,
    pub to: NodeId,
    pub correlation: u64,
    pub message: M,
}

/// One of a protocol's messages, request or response.
pub trait WireMessage: Clone + Debug {
    type Rpc: RpcName;
    type Summary: Summary;
    fn kind(&self) -> Self::Rpc;
    /// The epoch (term) the message speaks for: the request's, or the responder's.
    fn epoch(&self) -> Epoch;
    fn summary(&self) -> Self::Summary;
    /// Records it carries (each counted as `record::RECORD_BYTES` by the memory budget).
    fn records_carried(&self) -> u64;
    /// An answer to the admin client's voter change: the protocol's error name (Kafka's
    /// error code, `NONE` on success) and the rule that refused, empty on success.
    fn voter_change_answer(&self) -> Option<(&'static str, &'static str)> {
        None
    }
}
