//! The position index: a dense rank of every position of a sector modulo the
//! 16 board symmetries.
//!
//! # Layout
//! A sector with `a` stones for the player to move and `b` for the opponent
//! has `orbits(a) * C(24 - a, b)` slots. The mover's stones are reduced to the
//! representative of their symmetry orbit (the numerically smallest image);
//! `orbit` is that representative's rank among all representatives with `a`
//! stones. The opponent's stones, mapped by the same symmetry, are ranked in
//! the colexicographic order among the `24 - a` points the representative
//! leaves free. `slot = orbit * C(24 - a, b) + rank`.
//!
//! # Positions with symmetry
//! When the representative is fixed by some symmetries (its stabiliser is not
//! trivial), several symmetries map the mover's stones onto it and each gives
//! the opponent's stones another rank. The index takes the smallest, so every
//! position of a symmetry class gets one slot. The other slots of such a class
//! are *holes*: they decode to a valid position, but that position indexes to
//! another slot. `is_canonical` tells them apart; tables store a marker there.
//! Holes make up a small share of the slots (`moulin sectors` lists them).

use crate::board::{Bitboard, Symmetries, Symmetry, POINTS, SYMMETRY_COUNT};
use crate::position::{Node, STONES};
use crate::sector::Sector;
use std::sync::OnceLock;

/// `BINOMIAL[n][k]` = n choose k, for n, k <= 24.
pub const BINOMIAL: [[u64; POINTS + 1]; POINTS + 1] = {
    let mut t = [[0u64; POINTS + 1]; POINTS + 1];
    let mut n = 0;
    while n <= POINTS {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

const MAX_STONES: usize = STONES as usize;

/// Colexicographic rank of a set of points among all sets of the same size.
#[inline]
fn colex_rank(mut set: Bitboard) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        rank += BINOMIAL[set.trailing_zeros() as usize][i];
        i += 1;
        set &= set - 1;
    }
    rank
}

/// Colexicographic rank of `set` among the sets of points outside `taken`,
/// each point renumbered by the number of free points below it.
#[inline]
fn colex_rank_among_free(mut set: Bitboard, taken: Bitboard) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        let p = set.trailing_zeros();
        let below = (taken & ((1u32 << p) - 1)).count_ones();
        rank += BINOMIAL[(p - below) as usize][i];
        i += 1;
        set &= set - 1;
    }
    rank
}

/// The `k`-point set of colexicographic rank `rank` among the points outside `taken`.
fn colex_unrank_among_free(mut rank: u64, k: usize, taken: Bitboard) -> Bitboard {
    let free: Vec<u32> = (0..POINTS as u32)
        .filter(|p| taken & (1 << p) == 0)
        .collect();
    let mut set = 0;
    let mut p = free.len();
    for i in (1..=k).rev() {
        p -= 1;
        while BINOMIAL[p][i] > rank {
            p -= 1;
        }
        rank -= BINOMIAL[p][i];
        set |= 1 << free[p];
    }
    set
}

const SYM_BITS: u32 = 4;
const STAB_FLAG: u32 = 1 << SYM_BITS;
const ORBIT_SHIFT: u32 = SYM_BITS + 1;

/// The tables behind `index` and `unindex`, built once per process (about
/// 12 MB, a fraction of a second).
pub struct Indexer {
    /// Start of each set size in `entries`.
    base: [usize; MAX_STONES + 2],
    /// Per set of at most nine points (by size, then colex rank): the symmetry
    /// to its representative, a flag for a non-trivial stabiliser of the
    /// representative, and the representative's orbit number.
    entries: Vec<u32>,
    /// Per set size, the representatives in increasing order.
    reps: Vec<Vec<Bitboard>>,
    /// Per set size and orbit, the symmetries fixing the representative (bit per symmetry).
    stabilisers: Vec<Vec<u16>>,
}

impl Indexer {
    fn build() -> Indexer {
        let sym = Symmetries::get();
        let mut base = [0; MAX_STONES + 2];
        for k in 0..=MAX_STONES {
            base[k + 1] = base[k] + BINOMIAL[POINTS][k] as usize;
        }
        let mut entries = vec![0u32; base[MAX_STONES + 1]];
        let mut reps = Vec::new();
        let mut stabilisers = Vec::new();
        for k in 0..=MAX_STONES {
            let mut rep_of = Vec::with_capacity(BINOMIAL[POINTS][k] as usize);
            let mut k_reps = Vec::new();
            let mut k_stabs = Vec::new();
            // Sets of k points in increasing numeric order = colex order.
            let mut set: u32 = if k == 0 { 0 } else { (1 << k) - 1 };
            for _ in 0..BINOMIAL[POINTS][k] {
                let (mut best, mut best_sym, mut fixed) = (set, 0u8, 0u16);
                for s in Symmetries::all() {
                    let image = sym.map(s, set);
                    if image == set {
                        fixed |= 1 << s.0;
                    }
                    if image < best {
                        best = image;
                        best_sym = s.0;
                    }
                }
                if best == set {
                    k_reps.push(set);
                    k_stabs.push(fixed);
                }
                rep_of.push((best, best_sym, fixed != 1));
                if k == 0 {
                    break;
                }
                // Next set with the same number of points (Gosper's hack).
                let c = set & set.wrapping_neg();
                let r = set + c;
                set = (((r ^ set) >> 2) / c) | r;
            }
            for (rank, (rep, s, stab)) in rep_of.into_iter().enumerate() {
                let orbit = k_reps.binary_search(&rep).expect("representative is listed");
                entries[base[k] + rank] =
                    s as u32 | if stab { STAB_FLAG } else { 0 } | (orbit as u32) << ORBIT_SHIFT;
            }
            reps.push(k_reps);
            stabilisers.push(k_stabs);
        }
        Indexer {
            base,
            entries,
            reps,
            stabilisers,
        }
    }

    /// The shared tables, built on first use.
    pub fn get() -> &'static Indexer {
        static TABLES: OnceLock<Indexer> = OnceLock::new();
        TABLES.get_or_init(Indexer::build)
    }

    #[inline]
    fn entry(&self, set: Bitboard) -> u32 {
        let k = set.count_ones() as usize;
        self.entries[self.base[k] + colex_rank(set) as usize]
    }

    /// Number of symmetry orbits of sets of `k` points (`k` <= 9).
    pub fn orbits(&self, k: usize) -> u64 {
        self.reps[k].len() as u64
    }

    /// Number of slots of a sector.
    pub fn slots(&self, sector: Sector) -> u64 {
        let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
        self.orbits(a) * BINOMIAL[POINTS - a][b]
    }

    /// The slot of a position within its sector (`Sector::of(node)`).
    ///
    /// Every position of a symmetry class gets the same slot.
    #[inline]
    pub fn index(&self, node: &Node) -> u64 {
        let sym = Symmetries::get();
        let a = node.us.count_ones() as usize;
        let b = node.them.count_ones() as usize;
        let e = self.entry(node.us);
        let orbit = (e >> ORBIT_SHIFT) as usize;
        let rep = self.reps[a][orbit];
        let them = sym.map(Symmetry((e & 15) as u8), node.them);
        let mut rank = colex_rank_among_free(them, rep);
        if e & STAB_FLAG != 0 {
            let mut fixing = self.stabilisers[a][orbit] & !1;
            while fixing != 0 {
                let g = Symmetry(fixing.trailing_zeros() as u8);
                fixing &= fixing - 1;
                rank = rank.min(colex_rank_among_free(sym.map(g, them), rep));
            }
        }
        orbit as u64 * BINOMIAL[POINTS - a][b] + rank
    }

    /// The position stored at a slot (hands from the sector). For a hole this
    /// is a position whose own slot is another one. `None` past the last slot.
    pub fn unindex(&self, sector: Sector, slot: u64) -> Option<Node> {
        let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
        if a > MAX_STONES || b > MAX_STONES || a + b > POINTS {
            return None;
        }
        let per_orbit = BINOMIAL[POINTS - a][b];
        let orbit = (slot / per_orbit) as usize;
        let us = *self.reps[a].get(orbit)?;
        let them = colex_unrank_among_free(slot % per_orbit, b, us);
        Some(Node {
            us,
            them,
            us_hand: sector.stm_hand,
            them_hand: sector.opp_hand,
        })
    }

    /// Whether a slot holds the representative of its class (not a hole).
    pub fn is_canonical(&self, sector: Sector, slot: u64) -> bool {
        match self.unindex(sector, slot) {
            Some(node) => self.index(&node) == slot,
            None => false,
        }
    }

    /// The representative of the position's class: the position stored at its slot.
    pub fn canonical(&self, node: &Node) -> Node {
        self.unindex(Sector::of(node), self.index(node))
            .expect("a valid position's slot decodes")
    }

    /// Number of positions in the class stored at a slot (16 divided by the
    /// stabiliser's size); cheap unless the mover's stones are symmetric.
    #[inline]
    pub fn class_size(&self, sector: Sector, slot: u64) -> u32 {
        let a = sector.stm_board as usize;
        let per_orbit = BINOMIAL[POINTS - a][sector.opp_board as usize];
        match self.stabilisers[a].get((slot / per_orbit) as usize) {
            Some(1) => SYMMETRY_COUNT as u32,
            Some(_) => match self.unindex(sector, slot) {
                Some(node) => SYMMETRY_COUNT as u32 / self.stabiliser_size(&node),
                None => 0,
            },
            None => 0,
        }
    }

    /// Number of symmetries that map the position onto itself (1, 2, 4, 8 or 16).
    #[inline]
    pub fn stabiliser_size(&self, node: &Node) -> u32 {
        let e = self.entry(node.us);
        if e & STAB_FLAG == 0 {
            return 1;
        }
        let sym = Symmetries::get();
        Symmetries::all()
            .filter(|&g| sym.map(g, node.us) == node.us && sym.map(g, node.them) == node.them)
            .count() as u32
    }
}

/// Number of positions of a sector, every symmetric copy counted.
pub fn count_positions(sector: Sector) -> u64 {
    let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
    if a + b > POINTS {
        return 0;
    }
    BINOMIAL[POINTS][a] * BINOMIAL[POINTS - a][b]
}

/// Number of symmetry classes of a sector, by Burnside's lemma over the
/// cycles of each symmetry (independent of the index).
pub fn count_classes(sector: Sector) -> u64 {
    let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
    if a + b > POINTS {
        return 0;
    }
    let sym = Symmetries::get();
    let mut total = 0u64;
    for g in Symmetries::all() {
        let perm = sym.permutation(g);
        let mut seen = [false; POINTS];
        // fixed[x][y]: colourings fixed by g with x stones of ours and y of theirs.
        let mut fixed = vec![vec![0u64; POINTS + 1]; POINTS + 1];
        fixed[0][0] = 1;
        for start in 0..POINTS {
            if seen[start] {
                continue;
            }
            let mut len = 0;
            let mut p = start;
            while !seen[p] {
                seen[p] = true;
                p = perm[p] as usize;
                len += 1;
            }
            let mut next = vec![vec![0u64; POINTS + 1]; POINTS + 1];
            for x in 0..=POINTS {
                for y in 0..=POINTS {
                    let f = fixed[x][y];
                    if f == 0 {
                        continue;
                    }
                    next[x][y] += f;
                    if x + len <= POINTS {
                        next[x + len][y] += f;
                    }
                    if y + len <= POINTS {
                        next[x][y + len] += f;
                    }
                }
            }
            fixed = next;
        }
        total += fixed[a][b];
    }
    total / SYMMETRY_COUNT as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(BINOMIAL[24][12], 2_704_156);
        assert_eq!(BINOMIAL[5][0], 1);
        assert_eq!(BINOMIAL[3][5], 0);
    }

    #[test]
    fn colex_round_trip() {
        let taken = 0b1011_0000_0000_0000_0110_0001;
        let free = 24 - 7;
        for k in 0..4 {
            for rank in 0..BINOMIAL[free][k] {
                let set = colex_unrank_among_free(rank, k, taken);
                assert_eq!(set & taken, 0);
                assert_eq!(set.count_ones() as usize, k);
                assert_eq!(colex_rank_among_free(set, taken), rank);
            }
        }
    }

    #[test]
    fn orbit_counts_match_burnside() {
        let ix = Indexer::get();
        for k in 0..=9u8 {
            let classes = count_classes(Sector::moving(k, 0));
            assert_eq!(ix.orbits(k as usize), classes, "sets of {k} points");
        }
    }
}
