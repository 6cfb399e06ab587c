//! Collections whose clones share their unchanged parts, so a checkpoint of the world
//! costs what changed since the one before it, not a copy of every log and image; and
//! the `Meter` that counts the bytes those parts hold, for the memory budget.
//!
//! Both keep their items in fixed-size parts behind `Arc`s. A clone copies the pointers
//! at the top; a change copies only the parts on its path, and only when another clone
//! still holds them (`Arc::make_mut`), so the live world changes in place between
//! checkpoints.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What a part holds bytes for: the budget has one limit per holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    Logs,
    Images,
    Checker,
}

const HOLDERS: usize = 3;

/// Bytes held by the parts of one simulation's collections, by holder. Every clone of
/// a world shares its meter; a part adds its bytes when it is made (or copied) and
/// takes them back when its last owner drops it, so the counts are what every version
/// (the live world and all checkpoints) holds together. The byte counts are estimates
/// from fixed per-item sizes, the same natively and in wasm.
#[derive(Clone, Debug, Default)]
pub struct Meter(Option<Arc<[AtomicU64; HOLDERS]>>);

impl Meter {
    /// A meter that counts (`Meter::default()` counts nothing).
    pub fn new() -> Meter {
        Meter(Some(Arc::new(Default::default())))
    }

    pub fn bytes(&self, holder: Holder) -> u64 {
        self.0.as_ref().map(|c| c[holder as usize].load(Ordering::Relaxed)).unwrap_or(0)
    }

    fn charge(&self, holder: Holder, bytes: u64) -> Charge {
        if let Some(c) = &self.0 {
            c[holder as usize].fetch_add(bytes, Ordering::Relaxed);
        }
        Charge { meter: self.clone(), holder, bytes }
    }
}

/// One part's bytes on a meter, given back when the part is dropped.
#[derive(Debug)]
pub struct Charge {
    meter: Meter,
    holder: Holder,
    bytes: u64,
}

impl Default for Charge {
    fn default() -> Self {
        Charge { meter: Meter::default(), holder: Holder::Logs, bytes: 0 }
    }
}

impl Charge {
    pub fn new(meter: &Meter, holder: Holder, bytes: u64) -> Charge {
        meter.charge(holder, bytes)
    }
}

impl Clone for Charge {
    fn clone(&self) -> Self {
        self.meter.charge(self.holder, self.bytes)
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        if let Some(c) = &self.meter.0 {
            c[self.holder as usize].fetch_sub(self.bytes, Ordering::Relaxed);
        }
    }
}

/// Where a collection's parts are charged, and at how many bytes per item.
#[derive(Clone, Debug, Default)]
pub struct Metering {
    pub meter: Meter,
    pub holder: Option<Holder>,
    pub item_bytes: u64,
}

impl Metering {
    pub fn new(meter: &Meter, holder: Holder, item_bytes: u64) -> Metering {
        Metering { meter: meter.clone(), holder: Some(holder), item_bytes }
    }
    fn charge(&self, items: usize) -> Charge {
        self.charge_bytes(items as u64 * self.item_bytes)
    }
    fn charge_bytes(&self, bytes: u64) -> Charge {
        match self.holder {
            Some(h) => self.meter.charge(h, bytes),
            None => Charge::default(),
        }
    }
}

// ---- SharedVec ---------------------------------------------------------------------

/// Items per chunk, and chunks per page.
const CHUNK: usize = 64;
const PAGE: usize = 64;
const PAGE_ITEMS: usize = CHUNK * PAGE;
/// What the meter counts for one pointer to a part (8 bytes natively, 4 in wasm).
const POINTER_BYTES: u64 = 8;

#[derive(Debug)]
struct Chunk<T> {
    items: Vec<T>,
    _charge: Charge,
}

impl<T: Clone> Clone for Chunk<T> {
    fn clone(&self) -> Self {
        let mut items = Vec::with_capacity(CHUNK);
        items.extend_from_slice(&self.items);
        Chunk { items, _charge: self._charge.clone() }
    }
}

#[derive(Clone, Debug)]
struct Page<T> {
    chunks: Vec<Arc<Chunk<T>>>,
    _charge: Charge,
}

/// A vector that can drop items at both ends, in pages of chunks: item `i` is at
/// `skip + i`, every page and chunk but the last is full, and chunks wholly before
/// `skip` are released. Get is O(1); a clone copies one pointer per 4,096 items.
#[derive(Clone, Debug)]
pub struct SharedVec<T> {
    pages: Vec<Arc<Page<T>>>,
    skip: usize,
    len: usize,
    metering: Metering,
}

impl<T> Default for SharedVec<T> {
    fn default() -> Self {
        SharedVec { pages: Vec::new(), skip: 0, len: 0, metering: Metering::default() }
    }
}

impl<T: Clone> SharedVec<T> {
    pub fn new(metering: Metering) -> SharedVec<T> {
        SharedVec { pages: Vec::new(), skip: 0, len: 0, metering }
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn metering(&self) -> &Metering {
        &self.metering
    }

    #[inline]
    fn at(&self, slot: usize) -> &T {
        &self.pages[slot / PAGE_ITEMS].chunks[slot / CHUNK % PAGE].items[slot % CHUNK]
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| self.at(self.skip + i))
    }

    pub fn last(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// Copies the page and chunk of item `i` first if a clone still shares them.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len {
            return None;
        }
        let slot = self.skip + i;
        let page = Arc::make_mut(&mut self.pages[slot / PAGE_ITEMS]);
        let chunk = Arc::make_mut(&mut page.chunks[slot / CHUNK % PAGE]);
        Some(&mut chunk.items[slot % CHUNK])
    }

    pub fn push(&mut self, item: T) {
        self.tail().push(item);
        self.len += 1;
    }

    /// Pushes every item in order; the tail's page and chunk are made writable once per
    /// chunk filled, not once per item.
    pub fn extend(&mut self, items: impl IntoIterator<Item = T>) {
        let mut items = items.into_iter().peekable();
        while items.peek().is_some() {
            let room = CHUNK - (self.skip + self.len) % CHUNK;
            let tail = self.tail();
            let before = tail.len();
            tail.extend(items.by_ref().take(room));
            self.len += tail.len() - before;
        }
    }

    /// The items of the chunk the next item goes into (made, or copied from a clone
    /// that shares it, first).
    fn tail(&mut self) -> &mut Vec<T> {
        let slot = self.skip + self.len;
        if slot % PAGE_ITEMS == 0 {
            let charge = self.metering.charge_bytes(PAGE as u64 * POINTER_BYTES);
            self.pages.push(Arc::new(Page { chunks: Vec::with_capacity(PAGE), _charge: charge }));
        }
        let page = Arc::make_mut(self.pages.last_mut().expect("a page"));
        if slot % CHUNK == 0 {
            let chunk = Chunk { items: Vec::with_capacity(CHUNK), _charge: self.metering.charge(CHUNK) };
            page.chunks.push(Arc::new(chunk));
        }
        &mut Arc::make_mut(page.chunks.last_mut().expect("a chunk")).items
    }

    /// Keeps the first `n` items.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        if n == 0 {
            return self.clear();
        }
        let end = self.skip + n; // slots below `end` stay
        let pages = end.div_ceil(PAGE_ITEMS);
        self.pages.truncate(pages);
        let page = Arc::make_mut(self.pages.last_mut().expect("n > 0"));
        let in_page = end - (pages - 1) * PAGE_ITEMS;
        let chunks = in_page.div_ceil(CHUNK);
        page.chunks.truncate(chunks);
        let chunk = Arc::make_mut(page.chunks.last_mut().expect("n > 0"));
        chunk.items.truncate(in_page - (chunks - 1) * CHUNK);
        self.len = n;
    }

    /// Drops the first `n` items.
    pub fn drop_front(&mut self, n: usize) {
        if n >= self.len {
            return self.clear();
        }
        self.skip += n;
        self.len -= n;
        let whole_pages = self.skip / PAGE_ITEMS;
        self.pages.drain(..whole_pages);
        self.skip -= whole_pages * PAGE_ITEMS;
        // Release the chunks of the first page that are wholly dropped; their places
        // stay (the positions of the others must not move) but hold nothing.
        let dead = self.skip / CHUNK;
        if dead > 0 && !self.pages[0].chunks[dead - 1].items.is_empty() {
            let page = Arc::make_mut(&mut self.pages[0]);
            let empty = Arc::new(Chunk { items: Vec::new(), _charge: Charge::default() });
            for c in &mut page.chunks[..dead] {
                *c = empty.clone();
            }
        }
    }

    pub fn clear(&mut self) {
        self.pages.clear();
        self.skip = 0;
        self.len = 0;
    }

    /// The items from `from` on, in order, as contiguous slices.
    pub fn slices_from(&self, from: usize) -> impl Iterator<Item = &[T]> + '_ {
        let first = self.skip + from.min(self.len);
        let end = self.skip + self.len;
        let mut slot = first;
        std::iter::from_fn(move || {
            if slot >= end {
                return None;
            }
            let items = &self.pages[slot / PAGE_ITEMS].chunks[slot / CHUNK % PAGE].items;
            let s = &items[slot % CHUNK..(end - slot + slot % CHUNK).min(items.len())];
            slot += s.len();
            Some(s)
        })
    }

    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = &T> + '_ {
        self.slices_from(from).flatten()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.iter_from(0)
    }
}

// ---- SharedMap ---------------------------------------------------------------------

/// Entries per leaf and children per branch, at most.
const FANOUT: usize = 32;

/// A branch's entry: the least key below it and the node.
type Child<K, V> = (K, Arc<Node<K, V>>);

#[derive(Clone, Debug)]
enum Entries<K, V> {
    Leaf(Vec<(K, V)>),
    /// Each child holds keys from its key (a lower bound; the first child's key is
    /// ignored) up to the next child's key.
    Branch(Vec<Child<K, V>>),
}

#[derive(Clone, Debug)]
struct Node<K, V> {
    entries: Entries<K, V>,
    _charge: Charge,
}

/// The child of a branch whose range holds `key`.
fn child_for<K: Ord, T>(children: &[(K, T)], key: &K) -> usize {
    children.partition_point(|(k, _)| k <= key).saturating_sub(1)
}

impl<K: Ord + Clone, V: Clone> Node<K, V> {
    fn len(&self) -> usize {
        match &self.entries {
            Entries::Leaf(e) => e.len(),
            Entries::Branch(c) => c.len(),
        }
    }

    fn get(&self, key: &K) -> Option<&V> {
        match &self.entries {
            Entries::Leaf(e) => e.binary_search_by(|(k, _)| k.cmp(key)).ok().map(|i| &e[i].1),
            Entries::Branch(c) => c[child_for(c, key)].1.get(key),
        }
    }

    fn get_mut<'a>(node: &'a mut Arc<Self>, key: &K) -> Option<&'a mut V> {
        match &mut Arc::make_mut(node).entries {
            Entries::Leaf(e) => e.binary_search_by(|(k, _)| k.cmp(key)).ok().map(|i| &mut e[i].1),
            Entries::Branch(c) => {
                let i = child_for(c, key);
                Node::get_mut(&mut c[i].1, key)
            }
        }
    }

    /// Inserts; returns the value replaced and, when the node split, its new right half.
    fn insert(node: &mut Arc<Self>, key: K, value: V, m: &Metering) -> (Option<V>, Option<(K, Arc<Self>)>) {
        let node = Arc::make_mut(node);
        let old = match &mut node.entries {
            Entries::Leaf(e) => match e.binary_search_by(|(k, _)| k.cmp(&key)) {
                Ok(i) => Some(std::mem::replace(&mut e[i].1, value)),
                Err(i) => {
                    e.insert(i, (key, value));
                    None
                }
            },
            Entries::Branch(c) => {
                let i = child_for(c, &key);
                let (old, split) = Node::insert(&mut c[i].1, key, value, m);
                if let Some(right) = split {
                    c.insert(i + 1, right);
                }
                old
            }
        };
        if node.len() <= FANOUT {
            return (old, None);
        }
        let half = node.len() / 2;
        let (first, entries) = match &mut node.entries {
            Entries::Leaf(e) => {
                let right = e.split_off(half);
                (right[0].0.clone(), Entries::Leaf(right))
            }
            Entries::Branch(c) => {
                let right = c.split_off(half);
                (right[0].0.clone(), Entries::Branch(right))
            }
        };
        (old, Some((first, Arc::new(Node::new(entries, m)))))
    }

    fn new(entries: Entries<K, V>, m: &Metering) -> Self {
        let charge = match entries {
            Entries::Leaf(_) => m.charge(FANOUT),
            Entries::Branch(_) => m.charge_bytes(FANOUT as u64 * 2 * POINTER_BYTES),
        };
        Node { entries, _charge: charge }
    }

    /// Removes `key`; the caller drops this node when it ends up empty.
    fn remove(node: &mut Arc<Self>, key: &K) -> Option<V> {
        match &mut Arc::make_mut(node).entries {
            Entries::Leaf(e) => e.binary_search_by(|(k, _)| k.cmp(key)).ok().map(|i| e.remove(i).1),
            Entries::Branch(c) => {
                let i = child_for(c, key);
                let old = Node::remove(&mut c[i].1, key);
                if c[i].1.len() == 0 {
                    c.remove(i);
                }
                old
            }
        }
    }

    /// Removes every key below `key`; returns how many went.
    fn remove_below(node: &mut Arc<Self>, key: &K) -> usize {
        match &mut Arc::make_mut(node).entries {
            Entries::Leaf(e) => {
                let n = e.partition_point(|(k, _)| k < key);
                e.drain(..n);
                n
            }
            Entries::Branch(c) => {
                let i = child_for(c, key);
                let mut removed: usize = c.drain(..i).map(|(_, child)| child.count()).sum();
                removed += Node::remove_below(&mut c[0].1, key);
                if c[0].1.len() == 0 {
                    c.remove(0);
                }
                removed
            }
        }
    }

    fn count(&self) -> usize {
        match &self.entries {
            Entries::Leaf(e) => e.len(),
            Entries::Branch(c) => c.iter().map(|(_, child)| child.count()).sum(),
        }
    }
}

/// An ordered map (a B+ tree of `Arc`ed nodes): a clone is one pointer, a change copies
/// the nodes on its path that a clone still shares.
#[derive(Clone)]
pub struct SharedMap<K, V> {
    root: Option<Arc<Node<K, V>>>,
    len: usize,
    metering: Metering,
}

impl<K, V> Default for SharedMap<K, V> {
    fn default() -> Self {
        SharedMap { root: None, len: 0, metering: Metering::default() }
    }
}

impl<K: Ord + Clone, V: Clone> SharedMap<K, V> {
    pub fn new(metering: Metering) -> SharedMap<K, V> {
        SharedMap { root: None, len: 0, metering }
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn metering(&self) -> &Metering {
        &self.metering
    }
    pub fn get(&self, key: &K) -> Option<&V> {
        self.root.as_ref()?.get(key)
    }
    pub fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        if !self.contains_key(key) {
            return None; // no copying of a path that leads nowhere
        }
        Node::get_mut(self.root.as_mut()?, key)
    }
    /// The value of `key` to change, when there is one and `wanted` says it needs to: one
    /// search to look, one to copy the shared path (`get` then `get_mut` would search twice
    /// to look).
    ///
    /// The look remembers the child taken at each level, so the copy of the path (what
    /// `Node::get_mut` copies) walks it again without comparing keys.
    pub fn get_mut_if(&mut self, key: &K, wanted: impl FnOnce(&V) -> bool) -> Option<&mut V> {
        const DEPTH: usize = 16; // a deeper tree (never met) copies its path by key
        let mut path = [0usize; DEPTH];
        let mut depth = 0;
        let mut deep = false;
        let mut node = self.root.as_ref()?;
        let at = loop {
            match &node.entries {
                Entries::Leaf(e) => {
                    let i = e.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
                    if !wanted(&e[i].1) {
                        return None;
                    }
                    break i;
                }
                Entries::Branch(c) => {
                    let i = child_for(c, key);
                    match path.get_mut(depth) {
                        Some(p) => *p = i,
                        None => deep = true,
                    }
                    depth += 1;
                    node = &c[i].1;
                }
            }
        };
        if deep {
            return Node::get_mut(self.root.as_mut()?, key);
        }
        let mut node = self.root.as_mut()?;
        for &i in &path[..depth] {
            let Entries::Branch(c) = &mut Arc::make_mut(node).entries else { return None };
            node = &mut c[i].1;
        }
        let Entries::Leaf(e) = &mut Arc::make_mut(node).entries else { return None };
        Some(&mut e[at].1)
    }

    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let m = &self.metering;
        let root = self.root.get_or_insert_with(|| Arc::new(Node::new(Entries::Leaf(Vec::new()), m)));
        let (old, split) = Node::insert(root, key, value, m);
        if let Some(right) = split {
            let left = self.root.take().expect("split a root");
            let first = match &left.entries {
                Entries::Leaf(e) => e[0].0.clone(),
                Entries::Branch(c) => c[0].0.clone(),
            };
            self.root = Some(Arc::new(Node::new(Entries::Branch(vec![(first, left), right]), m)));
        }
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        if !self.contains_key(key) {
            return None;
        }
        let old = Node::remove(self.root.as_mut()?, key);
        self.len -= 1;
        self.shrink_root();
        old
    }

    /// Removes every key below `key`.
    pub fn remove_below(&mut self, key: &K) {
        if self.first_key().map(|k| k >= key).unwrap_or(true) {
            return;
        }
        let Some(root) = self.root.as_mut() else { return };
        self.len -= Node::remove_below(root, key);
        self.shrink_root();
    }

    fn first_key(&self) -> Option<&K> {
        self.iter().next().map(|(k, _)| k)
    }

    /// Drops an empty root and branch roots with a single child.
    fn shrink_root(&mut self) {
        while let Some(root) = &self.root {
            match &root.entries {
                Entries::Leaf(e) if e.is_empty() => self.root = None,
                Entries::Branch(c) if c.is_empty() => self.root = None,
                Entries::Branch(c) if c.len() == 1 => self.root = Some(c[0].1.clone()),
                _ => return,
            }
        }
    }

    /// Entries with keys at or above `from`, in order.
    pub fn range_from<'a>(&'a self, from: &K) -> Iter<'a, K, V> {
        let mut it = Iter { branches: Vec::new(), leaf: [].iter() };
        let mut node = self.root.as_deref();
        while let Some(n) = node {
            match &n.entries {
                Entries::Leaf(e) => {
                    it.leaf = e[e.partition_point(|(k, _)| k < from)..].iter();
                    node = None;
                }
                Entries::Branch(c) => {
                    let i = child_for(c, from);
                    it.branches.push(c[i + 1..].iter());
                    node = Some(&c[i].1);
                }
            }
        }
        it
    }

    pub fn iter(&self) -> Iter<'_, K, V> {
        let mut it = Iter { branches: Vec::new(), leaf: [].iter() };
        if let Some(root) = &self.root {
            it.descend(root);
        }
        it
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.iter().map(|(k, _)| k)
    }
}

pub struct Iter<'a, K, V> {
    branches: Vec<std::slice::Iter<'a, Child<K, V>>>,
    leaf: std::slice::Iter<'a, (K, V)>,
}

impl<'a, K, V> Iter<'a, K, V> {
    /// Goes down the leftmost path of `node`, remembering the siblings to visit later.
    fn descend(&mut self, mut node: &'a Node<K, V>) {
        loop {
            match &node.entries {
                Entries::Leaf(e) => {
                    self.leaf = e.iter();
                    return;
                }
                Entries::Branch(c) => {
                    let mut rest = c.iter();
                    let Some((_, first)) = rest.next() else { return };
                    self.branches.push(rest);
                    node = first;
                }
            }
        }
    }
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((k, v)) = self.leaf.next() {
                return Some((k, v));
            }
            let next = loop {
                let top = self.branches.last_mut()?;
                match top.next() {
                    Some((_, child)) => break child,
                    None => {
                        self.branches.pop();
                    }
                }
            };
            self.descend(next);
        }
    }
}

impl<K: Ord + Clone + std::fmt::Debug, V: Clone + std::fmt::Debug> std::fmt::Debug for SharedMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Ord + Clone, V: Clone + PartialEq> PartialEq for SharedMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}
impl<K: Ord + Clone, V: Clone + Eq> Eq for SharedMap<K, V> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Model tests against std's collections, as proptest properties (native only: proptest's
    /// random source has no wasm32-unknown-unknown backend).
    #[cfg(not(target_arch = "wasm32"))]
    mod properties {
        use super::*;
        use proptest::collection::vec;
        use proptest::prelude::*;
        use proptest::test_runner::{RngAlgorithm, RngSeed};
        use std::collections::BTreeMap;

        /// Every clone kept still holds what it held when taken, and once they are all gone
        /// every part has given its bytes back.
        fn assert_kept<C, W>(kept: Vec<(C, W)>, same: impl Fn(&C, &W) -> bool, meter: &Meter, holder: Holder) {
            assert!(kept.iter().all(|(c, want)| same(c, want)), "a clone changed when the original did");
            drop(kept);
            assert_eq!(meter.bytes(holder), 0);
        }

        /// A fixed seed and algorithm (every run tries the same cases), no persistence file; a
        /// failure prints the operations shrunk to a minimal list.
        fn config(cases: u32) -> ProptestConfig {
            ProptestConfig {
                cases,
                failure_persistence: None,
                rng_algorithm: RngAlgorithm::ChaCha,
                rng_seed: RngSeed::Fixed(11),
                ..ProptestConfig::default()
            }
        }

        /// An operation on a `SharedVec` and a `Vec` alike; an index is taken modulo what the
        /// operation may reach.
        #[derive(Debug, Clone)]
        enum VecOp {
            Push,
            /// Up to two chunks and a bit, so an extend crosses chunk boundaries.
            Extend(u64),
            Truncate(usize),
            DropFront(usize),
            Bump(usize),
            Clone,
            /// Compares the elements from an index on.
            Look(usize),
        }

        fn vec_op() -> impl Strategy<Value = VecOp> {
            prop_oneof![
                75 => Just(VecOp::Push),
                5 => (0..2 * CHUNK as u64 + 10).prop_map(VecOp::Extend),
                5 => any::<usize>().prop_map(VecOp::Truncate),
                5 => any::<usize>().prop_map(VecOp::DropFront),
                5 => any::<usize>().prop_map(VecOp::Bump),
                4 => Just(VecOp::Clone),
                1 => any::<usize>().prop_map(VecOp::Look),
            ]
        }

        proptest! {
            #![proptest_config(config(60))]
            #[test]
            fn shared_vec_matches_a_vec_under_random_changes_and_clones(ops in vec(vec_op(), 1..1_000)) {
                let meter = Meter::new();
                let mut ours: SharedVec<u64> = SharedVec::new(Metering::new(&meter, Holder::Logs, 8));
                let mut theirs: Vec<u64> = Vec::new();
                let mut kept: Vec<(SharedVec<u64>, Vec<u64>)> = Vec::new();
                for (step, op) in ops.iter().enumerate() {
                    let step = step as u64;
                    match *op {
                        VecOp::Push => {
                            ours.push(step);
                            theirs.push(step);
                        }
                        VecOp::Extend(n) => {
                            ours.extend((0..n).map(|i| step * 1000 + i));
                            theirs.extend((0..n).map(|i| step * 1000 + i));
                        }
                        VecOp::Truncate(n) => {
                            let n = n % (theirs.len() + 1);
                            ours.truncate(n);
                            theirs.truncate(n);
                        }
                        VecOp::DropFront(n) => {
                            let n = n % (theirs.len() / 2 + 1);
                            ours.drop_front(n);
                            theirs.drain(..n);
                        }
                        VecOp::Bump(i) => {
                            let i = i % (theirs.len() + 1);
                            if let (Some(a), Some(b)) = (ours.get_mut(i), theirs.get_mut(i)) {
                                *a += 1_000_000;
                                *b += 1_000_000;
                            } else {
                                prop_assert_eq!(i, theirs.len());
                                prop_assert!(ours.get_mut(i).is_none());
                            }
                        }
                        VecOp::Clone => kept.push((ours.clone(), theirs.clone())),
                        VecOp::Look(from) => {
                            let from = from % (theirs.len() + 2);
                            prop_assert!(ours.iter_from(from).eq(theirs.iter().skip(from)), "step {}", step);
                            prop_assert_eq!(ours.get(from), theirs.get(from));
                        }
                    }
                    prop_assert_eq!(ours.len(), theirs.len());
                }
                drop(ours);
                assert_kept(kept, |v, want| v.iter().eq(want.iter()), &meter, Holder::Logs);
            }
        }

        /// An operation on a `SharedMap` and a `BTreeMap` alike, at a key below 3000.
        #[derive(Debug, Clone)]
        enum MapOp {
            Insert(u64),
            Remove(u64),
            Bump(u64),
            RemoveBelow(u64),
            Clone,
            /// Compares the entries from a key on, and all of them.
            Look(u64),
        }

        fn map_op() -> impl Strategy<Value = MapOp> {
            let key = || 0u64..3000;
            prop_oneof![
                60 => key().prop_map(MapOp::Insert),
                20 => key().prop_map(MapOp::Remove),
                10 => key().prop_map(MapOp::Bump),
                2 => (0u64..1500).prop_map(MapOp::RemoveBelow),
                7 => Just(MapOp::Clone),
                1 => key().prop_map(MapOp::Look),
            ]
        }

        proptest! {
            #![proptest_config(config(40))]
            #[test]
            fn shared_map_matches_a_btree_map_under_random_changes_and_clones(ops in vec(map_op(), 1..2_000)) {
                let meter = Meter::new();
                let mut ours: SharedMap<u64, u64> = SharedMap::new(Metering::new(&meter, Holder::Checker, 16));
                let mut theirs: BTreeMap<u64, u64> = BTreeMap::new();
                let mut kept: Vec<(SharedMap<u64, u64>, BTreeMap<u64, u64>)> = Vec::new();
                for (step, op) in ops.iter().enumerate() {
                    let step = step as u64;
                    let key = match *op {
                        MapOp::Insert(key) => {
                            prop_assert_eq!(ours.insert(key, step), theirs.insert(key, step));
                            key
                        }
                        MapOp::Remove(key) => {
                            prop_assert_eq!(ours.remove(&key), theirs.remove(&key));
                            key
                        }
                        MapOp::Bump(key) => {
                            if let (Some(a), Some(b)) = (ours.get_mut(&key), theirs.get_mut(&key)) {
                                *a += 1;
                                *b += 1;
                            }
                            key
                        }
                        MapOp::RemoveBelow(below) => {
                            ours.remove_below(&below);
                            theirs = theirs.split_off(&below);
                            below
                        }
                        MapOp::Clone => {
                            kept.push((ours.clone(), theirs.clone()));
                            step % 3000
                        }
                        MapOp::Look(key) => {
                            prop_assert!(ours.range_from(&key).eq(theirs.range(key..)), "step {}", step);
                            prop_assert!(ours.iter().eq(theirs.iter()));
                            key
                        }
                    };
                    prop_assert_eq!(ours.len(), theirs.len());
                    prop_assert_eq!(ours.get(&key), theirs.get(&key));
                }
                drop(ours);
                assert_kept(kept, |m, want| m.iter().eq(want.iter()), &meter, Holder::Checker);
            }
        }
    }

    /// get_mut_if finds what get finds and copies the path get_mut copies, at every depth.
    #[test]
    fn get_mut_if_walks_the_path_get_mut_walks() {
        for n in [1u64, 20, 40, 1_000, 40_000] {
            let (m1, m2) = (Meter::new(), Meter::new());
            let mut a: SharedMap<u64, u64> = SharedMap::new(Metering::new(&m1, Holder::Images, 16));
            let mut b: SharedMap<u64, u64> = SharedMap::new(Metering::new(&m2, Holder::Images, 16));
            for k in 0..n {
                a.insert(k * 2, k);
                b.insert(k * 2, k);
            }
            for k in [0, 1, n / 2 * 2, n / 2 * 2 + 1, n * 2 - 2, n * 2, n * 3] {
                let (ca, cb) = (a.clone(), b.clone());
                let got = a.get_mut_if(&k, |v| v % 2 == 0).map(|v| {
                    *v += 1;
                    *v
                });
                let want = match b.get(&k) {
                    Some(v) if v % 2 == 0 => b.get_mut(&k).map(|v| {
                        *v += 1;
                        *v
                    }),
                    _ => None,
                };
                assert_eq!(got, want, "n {n} key {k}");
                assert_eq!(m1.bytes(Holder::Images), m2.bytes(Holder::Images), "n {n} key {k}: the same copies");
                assert_eq!((ca.get(&k), a.get(&k)), (cb.get(&k), b.get(&k)));
            }
        }
    }

    #[test]
    fn get_mut_if_copies_nothing_it_does_not_change() {
        let meter = Meter::new();
        let mut map: SharedMap<u64, u64> = SharedMap::new(Metering::new(&meter, Holder::Images, 16));
        for k in 0..1_000 {
            map.insert(k, k);
        }
        let copy = map.clone();
        let whole = meter.bytes(Holder::Images);
        assert_eq!(map.get_mut_if(&5, |v| *v != 5), None, "not wanted");
        assert_eq!(map.get_mut_if(&5_000, |_| true), None, "absent");
        assert_eq!(meter.bytes(Holder::Images), whole, "nothing was copied");
        *map.get_mut_if(&5, |v| *v == 5).expect("wanted") = 0;
        assert_eq!((map.get(&5), copy.get(&5)), (Some(&0), Some(&5)));
    }

    #[test]
    fn a_clone_shares_all_but_the_path_of_a_change() {
        let meter = Meter::new();
        let mut map: SharedMap<u64, u64> = SharedMap::new(Metering::new(&meter, Holder::Images, 16));
        for k in 0..100_000 {
            map.insert(k, k);
        }
        let whole = meter.bytes(Holder::Images);
        let copy = map.clone();
        map.insert(5, 0);
        let grown = meter.bytes(Holder::Images) - whole;
        assert!(grown < whole / 500, "one change copied {grown} of {whole} bytes");
        assert_eq!(copy.get(&5), Some(&5));

        let mut log: SharedVec<u64> = SharedVec::new(Metering::new(&meter, Holder::Logs, 8));
        for k in 0..100_000 {
            log.push(k);
        }
        let whole = meter.bytes(Holder::Logs);
        let copy = log.clone();
        log.push(1);
        assert!(meter.bytes(Holder::Logs) - whole <= (CHUNK as u64) * 8 * 2);
        assert_eq!(copy.len() + 1, log.len());
    }
}
