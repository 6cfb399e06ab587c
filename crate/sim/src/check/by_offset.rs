//! A map from log offsets to notes, kept as a deque: the checker notes something at
//! almost every offset from the lowest it can still compare up to the newest, so an
//! index replaces a tree search. The older slots are a `SharedVec`, so checkpoints share
//! them; the newest are in a small plain vector, where nearly every lookup lands (the
//! nodes append and expose the newest offsets) without the shared vector's indirections.

use kraft_base::shared::{Charge, Holder, Meter, Metering, SharedVec};
use kraft_boundary::Offset;

/// The newest slots are moved into the shared part this many at a time, when the
/// plain part holds twice as many: it always keeps at least this many newest slots.
const SPILL: usize = 64;

#[derive(Clone, Debug)]
pub struct ByOffset<T> {
    /// The note for offset `base + i` is in slot `i` (None where there is none): slots
    /// `0..shared.len()` in `shared`, the next ones in `newest`.
    shared: SharedVec<Option<T>>,
    newest: Vec<Option<T>>,
    base: Offset,
    /// What `newest` holds at most, counted as the shared part counts its chunks.
    _newest_charge: Charge,
}

impl<T: Copy> ByOffset<T> {
    /// `meter` counts the bytes of every slot, noted or not, for the checker (the size
    /// of a slot is the same natively and in wasm: notes hold no pointers).
    pub fn new(meter: &Meter) -> Self {
        let slot_bytes = std::mem::size_of::<Option<T>>() as u64;
        ByOffset {
            shared: SharedVec::new(Metering::new(meter, Holder::Checker, slot_bytes)),
            newest: Vec::with_capacity(2 * SPILL),
            base: 0,
            _newest_charge: Charge::new(meter, Holder::Checker, 2 * SPILL as u64 * slot_bytes),
        }
    }

    fn slot(&self, offset: Offset) -> Option<usize> {
        offset.checked_sub(self.base).and_then(|i| usize::try_from(i).ok())
    }

    /// The note at `offset` if there is one; else notes `make()` there and returns None.
    /// Offsets below the last `forget_below` are never noted (the caller skips them).
    pub fn get_or_note(&mut self, offset: Offset, make: impl FnOnce() -> T) -> Option<T> {
        let Some(i) = self.slot(offset) else {
            debug_assert!(false, "offset {offset} is below the forgotten ones ({})", self.base);
            return None;
        };
        let Some(j) = i.checked_sub(self.shared.len()) else {
            return match self.shared.get(i).copied().flatten() {
                Some(note) => Some(note),
                None => {
                    // `get_mut` copies a chunk a checkpoint shares, which only a new note needs.
                    *self.shared.get_mut(i).expect("i < len") = Some(make());
                    None
                }
            };
        };
        match self.newest.get_mut(j) {
            Some(Some(note)) => return Some(*note),
            Some(slot) => *slot = Some(make()),
            None => {
                while self.shared.len() + self.newest.len() < i {
                    self.push(None); // (moves slots to the shared part: count from `i`)
                }
                self.push(Some(make()));
            }
        }
        None
    }

    fn push(&mut self, slot: Option<T>) {
        self.newest.push(slot);
        if self.newest.len() == 2 * SPILL {
            self.shared.extend(self.newest.drain(..SPILL));
        }
    }

    /// The notes from `from` on, in offset order.
    pub fn iter_from(&self, from: Offset) -> impl Iterator<Item = (Offset, &T)> + '_ {
        let first = from.max(self.base);
        let skip = (first - self.base) as usize;
        let newest = self.newest.get(skip.saturating_sub(self.shared.len())..).unwrap_or_default();
        (first..)
            .zip(self.shared.iter_from(skip).chain(newest))
            .filter_map(|(offset, note)| Some((offset, note.as_ref()?)))
    }

    /// Forgets every note below `offset`.
    pub fn forget_below(&mut self, offset: Offset) {
        let Some(n) = self.slot(offset) else { return };
        match n.checked_sub(self.shared.len()) {
            None => self.shared.drop_front(n),
            Some(rest) => {
                self.shared.clear();
                self.newest.drain(..rest.min(self.newest.len()));
            }
        }
        self.base = offset;
    }
}

/// Native only: proptest's random source has no wasm32-unknown-unknown backend.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::test_runner::{RngAlgorithm, RngSeed};
    use std::collections::BTreeMap;

    /// An operation on a `ByOffset` and a `BTreeMap` alike: offsets are `floor + 0..300`.
    #[derive(Debug, Clone)]
    enum Op {
        Note(u64),
        /// Raises the floor and forgets below it.
        Forget(u64),
        Clone,
        /// Compares the entries from an offset (below `floor + 400`) on.
        Look(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            90 => (0u64..300).prop_map(Op::Note),
            8 => (0u64..100).prop_map(Op::Forget),
            2 => Just(Op::Clone),
            1 => any::<u64>().prop_map(Op::Look),
        ]
    }

    proptest! {
        // A fixed seed and algorithm (every run tries the same cases), no persistence file; a
        // failure prints the operations shrunk to a minimal list.
        #![proptest_config(ProptestConfig {
            cases: 40,
            failure_persistence: None,
            rng_algorithm: RngAlgorithm::ChaCha,
            rng_seed: RngSeed::Fixed(13),
            ..ProptestConfig::default()
        })]
        /// Also across the move of slots into the shared part, and for the clones a
        /// checkpoint keeps: a clone must not see what is noted after it was made.
        #[test]
        fn by_offset_matches_a_btree_map_under_random_notes_and_forgetting(ops in vec(op(), 1..1_000)) {
            let mut ours: ByOffset<u64> = ByOffset::new(&Meter::default());
            let mut theirs: BTreeMap<Offset, u64> = BTreeMap::new();
            let mut kept: Vec<(ByOffset<u64>, BTreeMap<Offset, u64>)> = Vec::new();
            let mut floor = 0;
            for (step, op) in ops.iter().enumerate() {
                let step = step as u64;
                match *op {
                    Op::Note(above) => {
                        let offset = floor + above;
                        let had = theirs.get(&offset).copied();
                        prop_assert_eq!(ours.get_or_note(offset, || step), had);
                        theirs.entry(offset).or_insert(step);
                    }
                    Op::Forget(by) => {
                        floor += by;
                        ours.forget_below(floor);
                        theirs = theirs.split_off(&floor);
                    }
                    Op::Clone => kept.push((ours.clone(), theirs.clone())),
                    Op::Look(from) => {
                        let from = from % (floor + 400);
                        prop_assert!(ours.iter_from(from).eq(theirs.range(from..).map(|(k, v)| (*k, v))), "step {}", step);
                    }
                }
            }
            for (ours, theirs) in &kept {
                prop_assert!(ours.iter_from(0).eq(theirs.iter().map(|(k, v)| (*k, v))));
            }
        }
    }
}
