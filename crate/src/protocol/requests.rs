//! Which requests are out, per destination (Kafka's RequestManager): one in flight per
//! connection, its timeout, and the retry backoff after a failure.

use super::record::NodeId;
use super::rpc::RpcKind;
use std::collections::BTreeMap;

/// Which requests are out, per destination (Kafka's RequestManager).
#[derive(Clone, Debug, Default)]
pub struct Requests {
    /// Per destination: (correlation id, request.timeout.ms deadline, what was asked).
    in_flight: BTreeMap<NodeId, (u64, u64, RpcKind)>,
    backoff_until: BTreeMap<NodeId, u64>,
    /// Destinations whose request expired unanswered since the follower last looked.
    timed_out: Vec<NodeId>,
}

impl Requests {
    pub fn reset(&mut self) {
        self.in_flight.clear();
        self.backoff_until.clear();
        self.timed_out.clear();
    }
    pub(super) fn is_ready(&self, to: NodeId, now: u64) -> bool {
        !self.in_flight.contains_key(&to) && self.backoff_until.get(&to).map(|t| *t <= now).unwrap_or(true)
    }
    pub(super) fn any_in_flight(&self) -> bool {
        !self.in_flight.is_empty()
    }
    pub(super) fn is_backing_off(&self, to: NodeId, now: u64) -> bool {
        self.backoff_until.get(&to).map(|t| *t > now).unwrap_or(false)
    }
    pub(super) fn start(&mut self, to: NodeId, correlation: u64, deadline: u64, rpc: RpcKind) {
        self.in_flight.insert(to, (correlation, deadline, rpc));
        self.backoff_until.remove(&to);
    }
    /// The request waiting on `to`, if any: its correlation id and kind.
    pub(super) fn awaiting(&self, to: NodeId) -> Option<(u64, RpcKind)> {
        self.in_flight.get(&to).map(|(c, _, rpc)| (*c, *rpc))
    }
    /// Matches a response to its request; stale or unknown responses are refused.
    pub(super) fn complete(&mut self, from: NodeId, correlation: u64) -> bool {
        match self.in_flight.get(&from) {
            Some((c, ..)) if *c == correlation => {
                self.in_flight.remove(&from);
                true
            }
            _ => false,
        }
    }
    pub(super) fn backoff(&mut self, to: NodeId, until: u64) {
        self.backoff_until.insert(to, until);
    }
    /// Frees the connections whose request has waited `request.timeout.ms`.
    pub(super) fn expire(&mut self, now: u64) {
        let timed_out = &mut self.timed_out;
        self.in_flight.retain(|to, (_, deadline, _)| {
            let alive = *deadline > now;
            if !alive {
                timed_out.push(*to);
            }
            alive
        });
    }
    /// Whether the request to `to` timed out since the last call; forgets every timeout.
    pub(super) fn take_timed_out(&mut self, to: NodeId) -> bool {
        let hit = self.timed_out.contains(&to);
        self.timed_out.clear();
        hit
    }
    pub(super) fn next_deadline(&self, now: u64) -> Option<u64> {
        let a = self.in_flight.values().map(|(_, d, _)| *d).min();
        let b = self.backoff_until.values().copied().filter(|t| *t > now).min();
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}
