//! Which requests are out, per destination (Kafka's RequestManager): one in flight per
//! connection, its timeout, and the retry backoff after a failure.

use super::record::NodeId;
use super::rpc::RpcKind;

/// Which requests are out, per destination (Kafka's RequestManager). Both tables are
/// indexed by node id (ids are small and dense), so a lookup is an index, not a search.
#[derive(Clone, Debug, Default)]
pub struct Requests {
    /// Per destination: (correlation id, request.timeout.ms deadline, what was asked).
    in_flight: Vec<Option<(u64, u64, RpcKind)>>,
    backoff_until: Vec<Option<u64>>,
    /// Destinations whose request expired unanswered since the follower last looked.
    timed_out: Vec<NodeId>,
}

/// The slot for `to`, made (empty) if the table is shorter.
fn slot<T>(table: &mut Vec<Option<T>>, to: NodeId) -> &mut Option<T> {
    let i = to as usize;
    if table.len() <= i {
        table.resize_with(i + 1, || None);
    }
    &mut table[i]
}

impl Requests {
    pub fn reset(&mut self) {
        self.in_flight.clear();
        self.backoff_until.clear();
        self.timed_out.clear();
    }
    fn request(&self, to: NodeId) -> Option<&(u64, u64, RpcKind)> {
        self.in_flight.get(to as usize).and_then(Option::as_ref)
    }
    fn backoff_of(&self, to: NodeId) -> Option<u64> {
        self.backoff_until.get(to as usize).copied().flatten()
    }
    pub(super) fn is_ready(&self, to: NodeId, now: u64) -> bool {
        self.request(to).is_none() && self.backoff_of(to).map(|t| t <= now).unwrap_or(true)
    }
    pub(super) fn any_in_flight(&self) -> bool {
        self.in_flight.iter().any(Option::is_some)
    }
    pub(super) fn is_backing_off(&self, to: NodeId, now: u64) -> bool {
        self.backoff_of(to).map(|t| t > now).unwrap_or(false)
    }
    pub(super) fn start(&mut self, to: NodeId, correlation: u64, deadline: u64, rpc: RpcKind) {
        *slot(&mut self.in_flight, to) = Some((correlation, deadline, rpc));
        if let Some(b) = self.backoff_until.get_mut(to as usize) {
            *b = None;
        }
    }
    /// The request waiting on `to`, if any: its correlation id and kind.
    pub(super) fn awaiting(&self, to: NodeId) -> Option<(u64, RpcKind)> {
        self.request(to).map(|(c, _, rpc)| (*c, *rpc))
    }
    /// Matches a response to its request; stale or unknown responses are refused.
    pub(super) fn complete(&mut self, from: NodeId, correlation: u64) -> bool {
        match self.in_flight.get_mut(from as usize) {
            Some(r) if matches!(*r, Some((c, ..)) if c == correlation) => {
                *r = None;
                true
            }
            _ => false,
        }
    }
    pub(super) fn backoff(&mut self, to: NodeId, until: u64) {
        *slot(&mut self.backoff_until, to) = Some(until);
    }
    /// Frees the connections whose request has waited `request.timeout.ms`, in id order.
    pub(super) fn expire(&mut self, now: u64) {
        for (to, r) in self.in_flight.iter_mut().enumerate() {
            if r.map(|(_, deadline, _)| deadline <= now).unwrap_or(false) {
                *r = None;
                self.timed_out.push(to as NodeId);
            }
        }
    }
    /// Whether the request to `to` timed out since the last call; forgets every timeout.
    pub(super) fn take_timed_out(&mut self, to: NodeId) -> bool {
        let hit = self.timed_out.contains(&to);
        self.timed_out.clear();
        hit
    }
    pub(super) fn next_deadline(&self, now: u64) -> Option<u64> {
        let a = self.in_flight.iter().flatten().map(|(_, d, _)| *d).min();
        let b = self.backoff_until.iter().flatten().copied().filter(|t| *t > now).min();
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}
