//! Seeded, reproducible pseudo-random numbers (splitmix64): the positions
//! `moulin pack --check` samples, the key a playing level mixes into its
//! seed, and the draws of the tests, the benchmarks and the studies.
//! The same seed gives the same numbers on every platform and in every
//! version, so a sample can be drawn again.

/// The increment of the splitmix64 sequence (2^64 divided by the golden ratio).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The splitmix64 step: a well-mixed 64-bit value of `x`. Equal inputs give
/// equal outputs; `splitmix64(seed ^ splitmix64(k))` is the `k`-th draw of
/// `seed`, whatever order the draws are made in.
///
/// ```
/// use moulin_core::seeded::splitmix64;
///
/// assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
/// ```
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The splitmix64 sequence of a seed: each number is [`splitmix64`] of the
/// state, which then advances by a constant.
///
/// ```
/// use moulin_core::seeded::{splitmix64, SplitMix64};
///
/// let mut rng = SplitMix64::new(7);
/// assert_eq!(rng.next_u64(), splitmix64(7));
/// assert!(rng.below(24) < 24);
/// assert!(rng.index(3) < 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The sequence of `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        let value = splitmix64(self.state);
        self.state = self.state.wrapping_add(GAMMA);
        value
    }

    /// The next number reduced to `0..n` (by remainder: slightly uneven for
    /// large `n`). `n` must not be 0.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// The next number reduced to `0..len`, as [`below`](Self::below): an
    /// index into a slice of `len` elements. `len` must not be 0.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference values of splitmix64 (seed 1234567, as published with
    /// the generator).
    #[test]
    fn the_sequence_is_splitmix64() {
        let mut rng = SplitMix64::new(1234567);
        let got: Vec<u64> = (0..5).map(|_| rng.next_u64()).collect();
        assert_eq!(
            got,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423,
                4593380528125082431,
                16408922859458223821,
            ]
        );
    }
}
