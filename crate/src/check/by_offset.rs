//! A map from log offsets to notes, kept as a deque: the checker notes something at
//! almost every offset from the lowest it can still compare up to the newest, so an
//! index replaces a tree search. The slots are a `SharedVec`, so checkpoints share them.

use crate::protocol::Offset;
use crate::shared::{Holder, Meter, Metering, SharedVec};

#[derive(Clone, Debug)]
pub struct ByOffset<T> {
    /// The note for offset `base + i` is in slot `i` (None where there is none).
    slots: SharedVec<Option<T>>,
    base: Offset,
}

impl<T: Clone> ByOffset<T> {
    /// `meter` counts the bytes of every slot, noted or not, for the checker (the size
    /// of a slot is the same natively and in wasm: notes hold no pointers).
    pub fn new(meter: &Meter) -> Self {
        let slot_bytes = std::mem::size_of::<Option<T>>() as u64;
        ByOffset { slots: SharedVec::new(Metering::new(meter, Holder::Checker, slot_bytes)), base: 0 }
    }

    fn slot(&self, offset: Offset) -> Option<usize> {
        offset.checked_sub(self.base).and_then(|i| usize::try_from(i).ok())
    }

    pub fn get(&self, offset: Offset) -> Option<&T> {
        self.slots.get(self.slot(offset)?)?.as_ref()
    }

    /// The note at `offset` if there is one; else notes `make()` there and returns None.
    /// Offsets below the last `forget_below` are never noted (the caller skips them).
    pub fn get_or_note(&mut self, offset: Offset, make: impl FnOnce() -> T) -> Option<&T> {
        let Some(i) = self.slot(offset) else {
            debug_assert!(false, "offset {offset} is below the forgotten ones ({})", self.base);
            return None;
        };
        let len = self.slots.len();
        if i >= len {
            for _ in len..i {
                self.slots.push(None);
            }
            self.slots.push(Some(make()));
            return None;
        }
        // Read first: `get_mut` copies a chunk a checkpoint shares, which only a new note
        // needs. (Twice, since the borrow checker refuses returning the first borrow.)
        if self.slots.get(i).is_some_and(Option::is_some) {
            return self.get(offset);
        }
        *self.slots.get_mut(i).expect("i < len") = Some(make());
        None
    }

    /// The notes from `from` on, in offset order.
    pub fn iter_from(&self, from: Offset) -> impl Iterator<Item = (Offset, &T)> + '_ {
        let first = from.max(self.base);
        let skip = (first - self.base) as usize;
        (first..).zip(self.slots.iter_from(skip)).filter_map(|(offset, note)| Some((offset, note.as_ref()?)))
    }

    /// Forgets every note below `offset`.
    pub fn forget_below(&mut self, offset: Offset) {
        let Some(n) = self.slot(offset) else { return };
        self.slots.drop_front(n);
        self.base = offset;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::collections::BTreeMap;

    #[test]
    fn by_offset_matches_a_btree_map_under_random_notes_and_forgetting() {
        let mut rng = Rng::fork(13, 1);
        let mut ours: ByOffset<u64> = ByOffset::new(&Meter::default());
        let mut theirs: BTreeMap<Offset, u64> = BTreeMap::new();
        let mut floor = 0;
        for step in 0..20_000u64 {
            let offset = floor + rng.below(300);
            match rng.below(100) {
                0..=89 => {
                    let had = theirs.get(&offset).copied();
                    assert_eq!(ours.get_or_note(offset, || step).copied(), had);
                    theirs.entry(offset).or_insert(step);
                }
                _ => {
                    floor += rng.below(100);
                    ours.forget_below(floor);
                    theirs = theirs.split_off(&floor);
                }
            }
            assert_eq!(ours.get(offset), theirs.get(&offset));
            if step % 97 == 0 {
                let from = rng.below(floor + 400);
                assert!(ours.iter_from(from).eq(theirs.range(from..).map(|(k, v)| (*k, v))), "step {step}");
            }
        }
    }
}
