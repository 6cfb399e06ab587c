//! The messages on the wire, by id. Ids are handed out in increasing order and a message
//! leaves the wire within its latency, so the live ones are a run of ids: a deque indexed
//! by `id - first` replaces an ordered map (same iteration order, no tree rebalancing on
//! every send and delivery). The deque holds 4-byte slot numbers, the messages live in a
//! slab whose slots are reused, so a message held up on a slow link costs 4 bytes per
//! later id, not a message's size.

use kraft_boundary::Envelope;
use std::collections::VecDeque;

/// A message on the wire, visible to the UI while in flight (`M`: the protocol's message).
#[derive(Clone, Debug)]
pub struct InFlight<M> {
    pub id: u64,
    pub envelope: Envelope<M>,
    pub sent: u64,
    pub arrives: u64,
    pub duplicate: bool,
}

/// The deque's mark for an id that is not (or no longer) on the wire.
const GONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Wire<M> {
    /// The id of `ids[0]`.
    first: u64,
    /// The slab slot of each id from `first` on, or GONE; the front is never GONE.
    ids: VecDeque<u32>,
    slab: Vec<Option<InFlight<M>>>,
    free: Vec<u32>,
}

impl<M> Default for Wire<M> {
    fn default() -> Self {
        Wire { first: 0, ids: VecDeque::new(), slab: Vec::new(), free: Vec::new() }
    }
}

impl<M> Wire<M> {
    /// Puts message `m` on the wire; its id is above every id put on it before.
    #[inline]
    pub fn insert(&mut self, m: InFlight<M>) {
        if self.ids.is_empty() {
            self.first = m.id;
        }
        let i = (m.id - self.first) as usize;
        debug_assert!(i >= self.ids.len(), "ids increase");
        if i > self.ids.len() {
            self.ids.resize(i, GONE); // ids of messages never put on the wire (dropped at once)
        }
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot as usize] = Some(m);
                slot
            }
            None => {
                self.slab.push(Some(m));
                (self.slab.len() - 1) as u32
            }
        };
        self.ids.push_back(slot);
    }

    /// Takes message `id` off the wire, if it is on it.
    #[inline]
    pub fn remove(&mut self, id: u64) -> Option<InFlight<M>> {
        let i = id.checked_sub(self.first)? as usize;
        let slot = std::mem::replace(self.ids.get_mut(i)?, GONE);
        if slot == GONE {
            return None;
        }
        while self.ids.front() == Some(&GONE) {
            self.ids.pop_front();
            self.first += 1;
        }
        self.free.push(slot);
        self.slab[slot as usize].take()
    }

    /// The messages on the wire, by id.
    pub fn values(&self) -> impl Iterator<Item = &InFlight<M>> {
        self.ids.iter().filter(|s| **s != GONE).filter_map(|s| self.slab[*s as usize].as_ref())
    }

    /// Bytes of bookkeeping beyond the messages themselves.
    pub fn index_bytes(&self) -> u64 {
        (self.ids.len() * 4 + self.free.len() * 4) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraft_protocol::rpc::{Envelope, FetchRequest, Message};

    fn message(id: u64) -> InFlight<Message> {
        let fetch = FetchRequest {
            current_leader_epoch: 1,
            replica_directory: None,
            fetch_offset: 0,
            last_fetched_epoch: 0,
            high_watermark: None,
            max_wait_ms: 500,
            max_bytes: 8192,
        };
        let envelope = Envelope { from: 0, to: 1, correlation: id, message: Message::Fetch(fetch) };
        InFlight { id, envelope, sent: 0, arrives: 1, duplicate: false }
    }

    #[test]
    fn keeps_messages_by_id_across_gaps_and_removals() {
        let mut w = Wire::default();
        for id in [3, 4, 7, 8] {
            w.insert(message(id));
        }
        assert_eq!(w.remove(5).map(|m| m.id), None, "never on the wire");
        assert_eq!(w.remove(7).map(|m| m.id), Some(7));
        assert_eq!(w.remove(7).map(|m| m.id), None, "already taken");
        assert_eq!(w.remove(3).map(|m| m.id), Some(3));
        assert_eq!(w.values().map(|m| m.id).collect::<Vec<_>>(), [4, 8]);
        assert_eq!(w.remove(2).map(|m| m.id), None);
        assert_eq!((w.remove(4).map(|m| m.id), w.remove(8).map(|m| m.id)), (Some(4), Some(8)));
        assert_eq!(w.values().count(), 0);
        w.insert(message(20));
        assert_eq!(w.values().map(|m| m.id).collect::<Vec<_>>(), [20]);
    }
}
