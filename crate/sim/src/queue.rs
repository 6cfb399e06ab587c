//! The world's event queue: events in (time, scheduling order), popped earliest first.
//! Nearly every event is due within a few milliseconds (message latencies, flushes, the
//! workload), so those go into a ring of per-millisecond FIFO slots (a timing wheel):
//! scheduling and popping them is O(1), where a binary heap sifts on every pop. Events
//! due beyond the ring's horizon (timeouts) wait in a heap and move into their slot when
//! the horizon reaches them, before anything can be scheduled directly into that slot,
//! so every slot stays in scheduling order and the order is exactly (time, seq).
//!
//! A caller that supersedes its own events (a node's next wake-up replaces its last one)
//! pushes them under a key: the key's previous event, while it still waits beyond the
//! horizon, is dropped instead of moving into the ring to be popped and thrown away.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Milliseconds the ring covers.
const HORIZON: u64 = 256;
/// Words of the ring's occupancy bitmap (a bit per slot).
const WORDS: usize = HORIZON as usize / 64;
const _: () = assert!(HORIZON % 64 == 0, "whole bitmap words");

#[derive(Clone, Debug)]
pub struct EventQueue<T> {
    /// Every queued event is due at or after `base`; slot `t % HORIZON` holds the events
    /// due at `t` for `base <= t < base + HORIZON`.
    base: u64,
    ring: Vec<VecDeque<T>>,
    /// Bit `i % 64` of word `i / 64` is set while slot `i` holds events, so the next
    /// busy slot is found a word at a time instead of slot by slot.
    occupied: [u64; WORDS],
    in_ring: usize,
    far: BinaryHeap<Far<T>>,
    /// Per key, the far event last pushed under it (see [`EventQueue::push_superseding`]);
    /// it joins `far` when the horizon reaches it.
    keyed: Vec<Option<Far<T>>>,
    /// The earliest time in `keyed` (`u64::MAX` when it holds nothing).
    keyed_next: u64,
    seq: u64,
    /// The earliest due time, if any event is queued.
    next: Option<u64>,
}

impl<T> Default for EventQueue<T> {
    fn default() -> Self {
        EventQueue {
            base: 0,
            ring: (0..HORIZON).map(|_| VecDeque::new()).collect(),
            occupied: [0; WORDS],
            in_ring: 0,
            far: BinaryHeap::new(),
            keyed: Vec::new(),
            keyed_next: u64::MAX,
            seq: 0,
            next: None,
        }
    }
}

impl<T> EventQueue<T> {
    /// Queues `what` at `t`, after everything queued at `t` before. `t` must not be
    /// before the last popped event's time.
    #[inline]
    pub fn push(&mut self, t: u64, what: T) {
        debug_assert!(t >= self.base, "scheduled in the past");
        if t < self.base + HORIZON {
            self.push_ring(t, what);
        } else {
            self.seq += 1;
            self.far.push(Far { t, seq: self.seq, what });
        }
        self.next = Some(self.next.map_or(t, |n| n.min(t)));
    }

    /// Queues `what` at `t` like [`EventQueue::push`], as the event of `key` that
    /// supersedes the key's previous one: the caller ignores that one when it pops, so
    /// while it still waits beyond the horizon it is dropped here (one within the horizon
    /// still pops).
    pub fn push_superseding(&mut self, key: usize, t: u64, what: T) {
        if self.keyed.len() <= key {
            self.keyed.resize_with(key + 1, || None);
        }
        if let Some(old) = self.keyed[key].take() {
            if old.t == self.keyed_next {
                self.keyed_next = self.keyed_min();
            }
            if self.next == Some(old.t) {
                self.next = self.find_next();
            }
        }
        if t < self.base + HORIZON {
            self.push_ring(t, what);
        } else {
            self.seq += 1;
            self.keyed[key] = Some(Far { t, seq: self.seq, what });
            self.keyed_next = self.keyed_next.min(t);
        }
        self.next = Some(self.next.map_or(t, |n| n.min(t)));
    }

    /// The time of the earliest queued event.
    pub fn next_time(&self) -> Option<u64> {
        self.next
    }

    /// Pops the earliest event if it is due at or before `now`.
    pub fn pop_due(&mut self, now: u64) -> Option<T> {
        let t = self.next.filter(|t| *t <= now)?;
        if t != self.base {
            // (At the same base no far event can have come within the horizon.)
            self.advance_base(t);
        }
        let slot = &mut self.ring[(t % HORIZON) as usize];
        let what = slot.pop_front().expect("the next event is in its slot");
        self.in_ring -= 1;
        if slot.is_empty() {
            let i = (t % HORIZON) as usize;
            self.occupied[i / 64] &= !(1 << (i % 64));
            self.next = self.find_next();
        }
        Some(what)
    }

    pub fn len(&self) -> usize {
        self.in_ring + self.far.len() + self.keyed.iter().flatten().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the ring itself, beyond the events it holds.
    pub fn ring_bytes(&self) -> u64 {
        (self.ring.len() * std::mem::size_of::<VecDeque<T>>()) as u64
    }

    /// Moves the ring's start to `t` (the earliest queued time) and brings the far events
    /// now within the horizon into their slots, in (time, seq) order.
    fn advance_base(&mut self, t: u64) {
        self.base = t;
        if self.keyed_next < t + HORIZON {
            // Into the heap with their seq, to take their place among the other far events.
            for k in &mut self.keyed {
                if k.as_ref().is_some_and(|f| f.t < t + HORIZON) {
                    self.far.push(k.take().expect("checked"));
                }
            }
            self.keyed_next = self.keyed_min();
        }
        while self.far.peek().is_some_and(|f| f.t < t + HORIZON) {
            let f = self.far.pop().expect("peeked");
            self.push_ring(f.t, f.what);
        }
    }

    fn push_ring(&mut self, t: u64, what: T) {
        let i = (t % HORIZON) as usize;
        self.ring[i].push_back(what);
        self.occupied[i / 64] |= 1 << (i % 64);
        self.in_ring += 1;
    }

    fn find_next(&self) -> Option<u64> {
        if self.in_ring > 0 {
            return Some(self.base + self.first_busy_slot_ahead().expect("a ring event"));
        }
        let far = self.far.peek().map_or(u64::MAX, |f| f.t).min(self.keyed_next);
        (far != u64::MAX).then_some(far)
    }

    fn keyed_min(&self) -> u64 {
        self.keyed.iter().flatten().map(|f| f.t).min().unwrap_or(u64::MAX)
    }

    /// How far ahead of `base` the first busy slot is (the ring wraps around).
    fn first_busy_slot_ahead(&self) -> Option<u64> {
        let start = (self.base % HORIZON) as usize;
        let (w0, b0) = (start / 64, start % 64);
        // The start word from the start bit, the other words in ring order, then the
        // start word's bits before the start bit.
        for k in 0..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = match k {
                0 => self.occupied[w] & (u64::MAX << b0),
                WORDS => self.occupied[w] & !(u64::MAX << b0),
                _ => self.occupied[w],
            };
            if bits != 0 {
                let slot = (w * 64 + bits.trailing_zeros() as usize) as u64;
                return Some((slot + HORIZON - start as u64) % HORIZON);
            }
        }
        None
    }
}

#[derive(Clone, Debug)]
struct Far<T> {
    t: u64,
    seq: u64,
    what: T,
}
impl<T> PartialEq for Far<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl<T> Eq for Far<T> {}
impl<T> PartialOrd for Far<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for Far<T> {
    // BinaryHeap is a max-heap: reversed, so the earliest (t, seq) pops first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

/// Model tests against a sorted list, as proptest properties over lists of pushes and pops:
/// a fixed seed and algorithm (every run tries the same cases), no persistence file, and a
/// failure prints the list shrunk to a minimal one. Native only: proptest's random source
/// has no wasm32-unknown-unknown backend.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::test_runner::{RngAlgorithm, RngSeed, TestError, TestRunner};
    use std::cell::Cell;

    fn config(cases: u32, seed: u64) -> ProptestConfig {
        ProptestConfig {
            cases,
            failure_persistence: None,
            rng_algorithm: RngAlgorithm::ChaCha,
            rng_seed: RngSeed::Fixed(seed),
            ..ProptestConfig::default()
        }
    }

    /// A push `after` ms from now, with a supersede key or none; or a pop of what is due next.
    #[derive(Debug, Clone)]
    enum Op {
        Push { after: u64, key: Option<usize> },
        Pop,
    }

    /// Near (0..6 ms) three times in four, else anywhere up to three horizons away.
    fn after() -> impl Strategy<Value = u64> {
        prop_oneof![3 => 0u64..6, 1 => 0..3 * HORIZON]
    }

    proptest! {
        #![proptest_config(config(40, 7))]
        /// Random schedules near and far (across the horizon), against a stable sort.
        #[test]
        fn pops_in_time_then_scheduling_order_like_a_sorted_list(
            ops in vec(prop_oneof![2 => after().prop_map(|after| Op::Push { after, key: None }), 1 => Just(Op::Pop)], 1..1_000)
        ) {
            let mut q = EventQueue::default();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let (mut now, mut n) = (0, 0);
            for op in &ops {
                match *op {
                    Op::Push { after, .. } => {
                        let t = now + after;
                        n += 1;
                        q.push(t, n);
                        reference.push((t, n));
                    }
                    Op::Pop => {
                        if let Some(t) = q.next_time() {
                            now = now.max(t);
                            let i = (0..reference.len()).min_by_key(|&i| reference[i]).expect("not empty");
                            let expected = reference.remove(i);
                            prop_assert_eq!(q.pop_due(now), Some(expected.1));
                        }
                    }
                }
                prop_assert_eq!(q.len(), reference.len());
                prop_assert_eq!(q.next_time(), reference.iter().map(|r| r.0).min());
            }
        }
    }

    /// Runs a superseding list; returns how many superseded events the queue skipped.
    fn superseding(ops: &[Op]) -> Result<usize, TestCaseError> {
        struct Entry {
            t: u64,
            n: u64,
            key: Option<usize>,
            live: bool,
            /// Superseded while certainly beyond the horizon: must never pop.
            dropped: bool,
        }
        let mut q = EventQueue::default();
        let mut reference: Vec<Entry> = Vec::new();
        let (mut now, mut n, mut skipped) = (0, 0, 0);
        for op in ops {
            match *op {
                Op::Push { after, key } => {
                    let t = now + after;
                    n += 1;
                    if let Some(k) = key {
                        for e in reference.iter_mut().filter(|e| e.key == Some(k) && e.live) {
                            e.live = false;
                            e.dropped = e.t >= now + HORIZON;
                        }
                        q.push_superseding(k, t, n);
                    } else {
                        q.push(t, n);
                    }
                    reference.push(Entry { t, n, key, live: true, dropped: false });
                }
                Op::Pop => {
                    let Some(t) = q.next_time() else {
                        prop_assert!(reference.iter().all(|e| !e.live), "a live event is lost");
                        continue;
                    };
                    now = now.max(t);
                    let popped = q.pop_due(now).expect("due");
                    reference.sort_by_key(|e| (e.t, e.n));
                    let i = reference.iter().position(|e| e.n == popped).expect("queued");
                    let e = &reference[i];
                    prop_assert_eq!(e.t, t, "popped at its time");
                    prop_assert!(!e.dropped, "{} was superseded beyond the horizon, yet popped", popped);
                    prop_assert!(reference[..i].iter().all(|e| !e.live), "a live event was skipped");
                    skipped += i;
                    reference.drain(..=i);
                }
            }
            let earliest_live = reference.iter().filter(|e| e.live).map(|e| e.t).min();
            prop_assert!(q.next_time() <= earliest_live.or(Some(u64::MAX)));
        }
        Ok(skipped)
    }

    /// Keyed pushes that supersede (as a node's wake-ups do) among plain ones, near and
    /// far, against a stable sort that keeps everything: the queue pops the live events
    /// exactly in the sort's order, may skip superseded ones but never a live one, and
    /// never pops one that was superseded while still beyond the horizon. Over all the
    /// lists, superseded far events are dropped.
    #[test]
    fn superseding_drops_only_superseded_events_and_keeps_the_order() {
        let push = (after(), prop_oneof![Just(None), (0usize..5).prop_map(Some)])
            .prop_map(|(after, key)| Op::Push { after, key });
        let list = vec(prop_oneof![push, Just(Op::Pop)], 1..2_000);
        let skipped = Cell::new(0);
        let mut runner = TestRunner::new(config(60, 8));
        match runner.run(&list, |ops| {
            skipped.set(skipped.get() + superseding(&ops)?);
            Ok(())
        }) {
            Ok(()) => {}
            Err(TestError::Fail(why, ops)) => panic!("{why}\nminimal failing list: {ops:#?}"),
            Err(e) => panic!("{e}"),
        }
        let skipped = skipped.get();
        assert!(skipped > 1000, "superseded far events are dropped ({skipped})");
    }
}
