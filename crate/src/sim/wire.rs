//! The messages on the wire, by id. Ids are handed out in increasing order and a message
//! leaves the wire within its latency, so the live ones are a short run of ids: a deque
//! indexed by `id - first` replaces an ordered map (same iteration order, no tree
//! rebalancing on every send and delivery).

use super::world::InFlight;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Wire {
    /// The id of `slots[0]`.
    first: u64,
    /// A slot per id from `first` on; None once the message left the wire (or never
    /// went on it). The front slot is always occupied.
    slots: VecDeque<Option<InFlight>>,
}

impl Wire {
    /// Puts message `m` on the wire; its id is above every id put on it before.
    pub fn insert(&mut self, m: InFlight) {
        if self.slots.is_empty() {
            self.first = m.id;
        }
        let i = (m.id - self.first) as usize;
        debug_assert!(i >= self.slots.len(), "ids increase");
        self.slots.resize_with(i, || None);
        self.slots.push_back(Some(m));
    }

    /// Takes message `id` off the wire, if it is on it.
    pub fn remove(&mut self, id: u64) -> Option<InFlight> {
        let i = id.checked_sub(self.first)? as usize;
        let m = self.slots.get_mut(i)?.take();
        while matches!(self.slots.front(), Some(None)) {
            self.slots.pop_front();
            self.first += 1;
        }
        m
    }

    /// The messages on the wire, by id.
    pub fn values(&self) -> impl Iterator<Item = &InFlight> {
        self.slots.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::rpc::{Envelope, FetchRequest, Message};

    fn message(id: u64) -> InFlight {
        let fetch = FetchRequest {
            current_leader_epoch: 1,
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
