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
    /// The earliest deadline in `in_flight` (None when nothing is out), kept as requests
    /// start and end: the simulator asks for the replica's next deadline after every input.
    earliest_timeout: Option<u64>,
    backoff_until: Vec<Option<u64>>,
    /// The earliest entry of `backoff_until`, passed or not.
    earliest_backoff: Option<u64>,
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

/// `earliest` after `slot` changed from `old` to `new`: a new minimum is taken at once, and
/// the table is searched again only when the old minimum left it.
fn update_earliest(
    earliest: Option<u64>,
    old: Option<u64>,
    new: Option<u64>,
    all: impl Fn() -> Option<u64>,
) -> Option<u64> {
    if old.is_some() && old == earliest && old != new {
        return all();
    }
    match (earliest, new) {
        (Some(e), Some(n)) => Some(e.min(n)),
        (e, n) => e.or(n),
    }
}

impl Requests {
    pub fn reset(&mut self) {
        self.in_flight.clear();
        self.earliest_timeout = None;
        self.backoff_until.clear();
        self.earliest_backoff = None;
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
        self.earliest_timeout.is_some()
    }
    pub(super) fn is_backing_off(&self, to: NodeId, now: u64) -> bool {
        self.backoff_of(to).map(|t| t > now).unwrap_or(false)
    }
    pub(super) fn start(&mut self, to: NodeId, correlation: u64, deadline: u64, rpc: RpcKind) {
        let old = slot(&mut self.in_flight, to).replace((correlation, deadline, rpc));
        self.set_earliest_timeout(old, Some(deadline));
        if let Some(b) = self.backoff_until.get_mut(to as usize) {
            let old = b.take();
            self.set_earliest_backoff(old, None);
        }
    }
    fn set_earliest_timeout(&mut self, old: Option<(u64, u64, RpcKind)>, new: Option<u64>) {
        let old = old.map(|(_, deadline, _)| deadline);
        self.earliest_timeout = update_earliest(self.earliest_timeout, old, new, || self.min_timeout());
    }
    fn set_earliest_backoff(&mut self, old: Option<u64>, new: Option<u64>) {
        self.earliest_backoff = update_earliest(self.earliest_backoff, old, new, || self.min_backoff());
    }
    fn min_timeout(&self) -> Option<u64> {
        self.in_flight.iter().flatten().map(|(_, d, _)| *d).min()
    }
    fn min_backoff(&self) -> Option<u64> {
        self.backoff_until.iter().flatten().copied().min()
    }
    /// The request waiting on `to`, if any: its correlation id and kind.
    pub(super) fn awaiting(&self, to: NodeId) -> Option<(u64, RpcKind)> {
        self.request(to).map(|(c, _, rpc)| (*c, *rpc))
    }
    /// Matches a response to its request; stale or unknown responses are refused.
    pub(super) fn complete(&mut self, from: NodeId, correlation: u64) -> bool {
        match self.in_flight.get_mut(from as usize) {
            Some(r) if matches!(*r, Some((c, ..)) if c == correlation) => {
                let old = r.take();
                self.set_earliest_timeout(old, None);
                true
            }
            _ => false,
        }
    }
    pub(super) fn backoff(&mut self, to: NodeId, until: u64) {
        let old = slot(&mut self.backoff_until, to).replace(until);
        self.set_earliest_backoff(old, Some(until));
    }
    /// Frees the connections whose request has waited `request.timeout.ms`, in id order.
    pub(super) fn expire(&mut self, now: u64) {
        if self.earliest_timeout.is_none_or(|t| t > now) {
            return;
        }
        for (to, r) in self.in_flight.iter_mut().enumerate() {
            if r.map(|(_, deadline, _)| deadline <= now).unwrap_or(false) {
                *r = None;
                self.timed_out.push(to as NodeId);
            }
        }
        self.earliest_timeout = self.min_timeout();
    }
    /// Whether the request to `to` timed out since the last call; forgets every timeout.
    pub(super) fn take_timed_out(&mut self, to: NodeId) -> bool {
        let hit = self.timed_out.contains(&to);
        self.timed_out.clear();
        hit
    }
    pub(super) fn next_deadline(&self, now: u64) -> Option<u64> {
        let a = self.earliest_timeout;
        // A passed backoff no longer holds anything back: only then is the table searched.
        let b = match self.earliest_backoff {
            Some(t) if t <= now => self.backoff_until.iter().flatten().copied().filter(|t| *t > now).min(),
            b => b,
        };
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deadline searched for in both tables, as it was before the minima were kept.
    fn searched(r: &Requests, now: u64) -> Option<u64> {
        let a = r.in_flight.iter().flatten().map(|(_, d, _)| *d).min();
        let b = r.backoff_until.iter().flatten().copied().filter(|t| *t > now).min();
        [a, b].into_iter().flatten().min()
    }

    /// Through a long mixed sequence of requests started, answered, refused, backed off
    /// and timed out, the kept minima answer exactly what searching the tables does.
    #[test]
    fn kept_minima_match_searching_the_tables() {
        let mut r = Requests::default();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut now = 0;
        let mut correlation = 0;
        for _ in 0..20_000 {
            now += next(3);
            let to = next(7) as NodeId;
            match next(10) {
                0..=2 if r.is_ready(to, now) => {
                    correlation += 1;
                    r.start(to, correlation, now + 1 + next(40), RpcKind::Fetch);
                }
                3..=4 => {
                    // Answered, or a stale answer refused.
                    let c = r.awaiting(to).map(|(c, _)| c).unwrap_or(0) + next(2);
                    r.complete(to, c);
                }
                5 => r.backoff(to, now + next(30)),
                6..=8 => r.expire(now),
                9 if next(50) == 0 => r.reset(),
                _ => {}
            }
            assert_eq!(r.next_deadline(now), searched(&r, now), "at {now}");
            assert_eq!(r.any_in_flight(), r.in_flight.iter().any(Option::is_some));
        }
    }
}
