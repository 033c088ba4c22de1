//! A tiny seeded random number generator for deterministic generators, simulations and tests.
//!
//! The rules crate stays free of clocks and global state: every random choice comes from a
//! seed the caller passes, so the reference set and the benchmark boards are reproducible.

/// SplitMix64 (Steele, Lea and Flood 2014): small, fast and good enough for choosing moves.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // Multiply-shift keeps the bias below 2^-32 for the small n used here.
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_and_below_stays_in_range() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        let mut seen = [0usize; 6];
        for _ in 0..6000 {
            let x = a.below(6);
            assert_eq!(x, b.below(6));
            seen[x] += 1;
        }
        // Each value turns up roughly a sixth of the time.
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
        assert_eq!(a.below(0), 0);
    }
}
