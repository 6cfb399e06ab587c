//! Sorting a cluster's few nodes (at most 15) by insertion. Each instantiation of std's
//! sorts, built for long slices, adds 4 to 7 KB to the wasm; this one adds a few hundred
//! bytes, and on so few items it is as fast.

/// Sorts `items` by `key`, stably, in place. Quadratic: for slices of a few items only.
pub fn by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && key(&items[j - 1]) > key(&items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_std_stable_sort_does() {
        // Every list of up to 6 items drawn from 0..4 (ties included), keyed by value / 2
        // so equal keys must keep their order.
        for len in 0..=6u32 {
            for mut code in 0..4u32.pow(len) {
                let mut items = Vec::new();
                for _ in 0..len {
                    items.push(code % 4);
                    code /= 4;
                }
                let mut want = items.clone();
                want.sort_by_key(|v| v / 2);
                by_key(&mut items, |v| v / 2);
                assert_eq!(items, want);
            }
        }
    }
}
