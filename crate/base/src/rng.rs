//! The simulator's random numbers: SplitMix64, hand-written on purpose. A run is
//! reproduced from its seed by links people share, so the stream must never change
//! with a dependency upgrade (rand's generators make no such promise across versions),
//! and it must be identical natively and in wasm (no floats in the state, no platform
//! word size).

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// An independent stream for one purpose (a node, the network, the workload...).
    pub fn fork(seed: u64, stream: u64) -> Rng {
        let mut mixer = Rng::new(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        let s = mixer.next_u64();
        Rng::new(s)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, n); 0 when n is 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let x = self.next_u64();
        if n >> 32 == 0 {
            // The same high word of x * n from two 64-bit products: wasm32 has no 64x64->128
            // multiply, so the u128 product below is a call to a 128-bit multiply routine.
            // With n < 2^32 neither product nor their sum can overflow.
            let (hi, lo) = (x >> 32, x & 0xFFFF_FFFF);
            return (hi * n + ((lo * n) >> 32)) >> 32;
        }
        ((x as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in [lo, hi] (inclusive); `lo` when hi < lo.
    #[inline]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `per_million` / 1,000,000 (integer, so native and wasm agree).
    #[inline]
    pub fn chance(&mut self, per_million: u32) -> bool {
        per_million > 0 && self.below(1_000_000) < per_million as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_stable() {
        // Changing these numbers breaks every shared link: don't.
        let mut r = Rng::new(42);
        assert_eq!(r.next_u64(), 0xBDD7_3226_2FEB_6E95);
        let mut f = Rng::fork(42, 1);
        let a = f.below(1000);
        let mut g = Rng::fork(42, 1);
        assert_eq!(a, g.below(1000));
    }

    #[test]
    fn below_is_the_high_word_of_the_128_bit_product() {
        let mut r = Rng::new(3);
        let mut s = Rng::new(3);
        let ns = [1, 2, 3, 7, 1_000, 1_000_000, u32::MAX as u64 - 1, u32::MAX as u64, 1 << 32, u64::MAX];
        for i in 0..100_000 {
            let n = ns[i % ns.len()];
            let x = s.next_u64();
            assert_eq!(r.below(n), ((x as u128 * n as u128) >> 64) as u64, "n = {n}");
        }
        for x in [0, 1, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 32) - 1] {
            for n in [1, 2, u32::MAX as u64] {
                let (hi, lo) = (x >> 32, x & 0xFFFF_FFFF);
                assert_eq!((hi * n + ((lo * n) >> 32)) >> 32, ((x as u128 * n as u128) >> 64) as u64);
            }
        }
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(7);
        for _ in 0..10_000 {
            assert!(r.below(3) < 3);
            let v = r.range(5, 9);
            assert!((5..=9).contains(&v));
        }
    }
}
