//! A tiny deterministic pseudo-random number generator.
//!
//! SplitMix64 is fast, has a 64-bit state and good enough statistical quality for
//! picking words and sizes. Reproducibility from a seed is the only hard requirement.

/// SplitMix64 generator; the same seed always yields the same sequence.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed ^ 0x5EED_5E55_10A5_C0DE }
    }

    /// Derives an independent generator, so that a sub-task (an agent file, a text
    /// pool) does not shift the main sequence when its own consumption changes.
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..bound`; returns 0 when `bound` is 0.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        // Multiply-shift reduction: unbiased enough for our purposes and branch-free.
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }

    /// A uniform integer in the inclusive range `low..=high`.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        low + self.below(high - low + 1)
    }

    /// A uniform index into a collection of `len` elements.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Picks one element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.index(items.len())]
    }

    /// A Pareto-distributed value with minimum `min` and tail index `alpha`, capped at `max`.
    /// Small `alpha` means a heavy tail.
    pub fn pareto(&mut self, min: f64, alpha: f64, max: f64) -> f64 {
        let u = 1.0 - self.unit(); // In (0, 1], so the power below is finite.
        (min / u.powf(1.0 / alpha)).min(max)
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_same_sequence() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn below_stays_in_bounds() {
        let mut rng = Rng::new(1);
        for bound in 1..50 {
            assert!(rng.below(bound) < bound);
        }
        assert_eq!(rng.below(0), 0);
    }
}
