//! The slots of many positions that share the mover's stones, ranked
//! together: what a pass over the classes mover-major (`for_each_class_of_mover`)
//! asks for every class.

use super::{colex_rank, compress, Indexer, BINOMIAL, ORBIT_SHIFT, STAB_FLAG};
use crate::board::{Bitboard, Symmetries, Symmetry, POINTS, SYMMETRY_COUNT};

/// Positions whose table entries are asked for before the first is read.
const AHEAD: usize = 16;
/// Positions whose entries are read before their slots are computed.
const CHUNK: usize = 64;

impl Indexer {
    /// The slots of the positions whose mover holds `us` and whose opponent
    /// holds each of `them` in turn, into `out` (cleared first): `out[i]` is
    /// `frame(them[i]).slot(us)`. The opponent's stones lead to the table's
    /// entries all over it, a cache miss each, and to their
    /// representatives, another: here each entry is asked for `AHEAD`
    /// positions before it is read and each representative as soon as its
    /// entry is, so the misses overlap; the images of `us` under the 16
    /// symmetries are made once.
    ///
    /// # Panics
    /// As [`Indexer::frame`], if a set of `them` has more than nine points.
    pub fn slots_beside(&self, us: Bitboard, them: &[Bitboard], out: &mut Vec<u64>) {
        let sym = Symmetries::get();
        let images: [Bitboard; SYMMETRY_COUNT] =
            std::array::from_fn(|g| sym.map(Symmetry(g as u8), us));
        let a = us.count_ones() as usize;
        let at = |t: Bitboard| self.base[t.count_ones() as usize] + colex_rank(t) as usize;
        out.clear();
        for &t in them.iter().take(AHEAD) {
            crate::prefetch(&self.entries[at(t)]);
        }
        let mut entries = [0u32; CHUNK];
        for (c, chunk) in them.chunks(CHUNK).enumerate() {
            for (i, &t) in chunk.iter().enumerate() {
                if let Some(&ahead) = them.get(c * CHUNK + i + AHEAD) {
                    crate::prefetch(&self.entries[at(ahead)]);
                }
                let e = self.entries[at(t)];
                let reps = &self.reps[t.count_ones() as usize];
                crate::prefetch(&reps[(e >> ORBIT_SHIFT) as usize]);
                entries[i] = e;
            }
            for (&e, &t) in entries.iter().zip(chunk) {
                let b = t.count_ones() as usize;
                let orbit = (e >> ORBIT_SHIFT) as usize;
                let rep = self.reps[b][orbit];
                let mapped = images[(e & 15) as usize];
                let mut rank = colex_rank(compress(mapped, rep));
                if e & STAB_FLAG != 0 {
                    let mut fixing = self.stabilisers[b][orbit] & !1;
                    while fixing != 0 {
                        let g = Symmetry(fixing.trailing_zeros() as u8);
                        fixing &= fixing - 1;
                        rank = rank.min(colex_rank(compress(sym.map(g, mapped), rep)));
                    }
                }
                out.push(orbit as u64 * BINOMIAL[POINTS - b][a] + rank);
            }
        }
    }
}
