//! The position index: a dense rank of every position of a sector modulo the
//! 16 board symmetries.
//!
//! # Layout
//! A sector with `a` stones for the player to move and `b` for the opponent
//! has `orbits(b) * C(24 - b, a)` slots. The opponent's stones are reduced to
//! the representative of their symmetry orbit (the numerically smallest
//! image); `orbit` is that representative's rank among all representatives
//! with `b` stones. The mover's stones, mapped by the same symmetry, are
//! ranked in the colexicographic order among the `24 - b` points the
//! representative leaves free. `slot = orbit * C(24 - b, a) + rank`.
//!
//! The opponent's stones come first because the positions one turn before a
//! given one (what retrograde analysis enumerates) all share them: one
//! `Frame` serves them all, and each is ranked from its mover's stones.
//!
//! # Positions with symmetry
//! When the representative is fixed by some symmetries (its stabiliser is not
//! trivial), several symmetries map the mover's stones onto it and each gives
//! the mover's stones another rank. The index takes the smallest, so every
//! position of a symmetry class gets one slot. The other slots of such a class
//! are *holes*: they decode to a valid position, but that position indexes to
//! another slot. `is_canonical` tells them apart; tables store a marker there.
//! Holes make up a small share of the slots (`moulin sectors` lists them).

use crate::board::{Bitboard, Point, Symmetries, Symmetry, POINTS, SYMMETRY_COUNT};
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

/// `COLEX[chunk][before][byte]`: the part of a colexicographic rank that the
/// byte `chunk` of a set contributes when `before` points lie below it.
static COLEX: [[[u32; 256]; POINTS + 1]; 3] = {
    let mut t = [[[0u32; 256]; POINTS + 1]; 3];
    let mut chunk = 0;
    while chunk < 3 {
        let mut before = 0;
        while before <= POINTS {
            let mut byte = 0;
            while byte < 256 {
                let mut sum = 0u64;
                let mut k = before;
                let mut bit = 0;
                while bit < 8 {
                    if byte & (1 << bit) != 0 {
                        k += 1;
                        if k <= POINTS {
                            sum += BINOMIAL[chunk * 8 + bit][k];
                        }
                    }
                    bit += 1;
                }
                t[chunk][before][byte] = sum as u32;
                byte += 1;
            }
            before += 1;
        }
        chunk += 1;
    }
    t
};

/// The next larger set with as many points (Gosper's hack): sets of one
/// size in increasing numeric order, which is their colexicographic order.
/// `set` must not be empty. The division by the lowest point's bit is a
/// shift.
#[inline]
pub fn next_of_size(set: u32) -> u32 {
    let low = set & set.wrapping_neg();
    let ripple = set + low;
    (((ripple ^ set) >> 2) >> low.trailing_zeros()) | ripple
}

/// A map of sets of points that sends each point `p` to `point(p)` and a
/// union to the union of the images, as one table per byte of the set: the
/// image of a set is then the union of three entries. Each entry is built
/// from the one without its lowest point.
fn byte_tables(point: impl Fn(usize) -> Bitboard) -> [[Bitboard; 256]; 3] {
    let mut tables = [[0; 256]; 3];
    for (k, table) in tables.iter_mut().enumerate() {
        for byte in 1..256usize {
            let low = 8 * k + byte.trailing_zeros() as usize;
            table[byte] = table[byte & (byte - 1)] | point(low);
        }
    }
    tables
}

/// Colexicographic rank of a set of points among all sets of the same size.
#[inline]
pub fn colex_rank(set: Bitboard) -> u64 {
    let b0 = (set & 0xff) as usize;
    let b1 = ((set >> 8) & 0xff) as usize;
    let b2 = ((set >> 16) & 0xff) as usize;
    let c0 = b0.count_ones() as usize;
    let c1 = c0 + b1.count_ones() as usize;
    (COLEX[0][0][b0] + COLEX[1][c0][b1] + COLEX[2][c1][b2]) as u64
}

/// The points outside `taken`, in increasing order, and how many: the
/// points that the codes of sets beside `taken` number (bit `i` of a code
/// is the point `free[i]`).
#[inline]
pub fn points_beside(taken: Bitboard) -> ([u8; POINTS], usize) {
    let mut free = [0u8; POINTS];
    let mut n = 0;
    for p in 0..POINTS {
        if taken & (1 << p) == 0 {
            free[n] = p as u8;
            n += 1;
        }
    }
    (free, n)
}

/// `COMPRESS[taken][set]`: `compress` within one byte of the board.
static COMPRESS: [[u8; 256]; 256] = {
    let mut t = [[0u8; 256]; 256];
    let mut taken = 0;
    while taken < 256 {
        let mut set = 0;
        while set < 256 {
            let mut out = 0u32;
            let mut p = 0;
            while p < 8 {
                if set & (1 << p) != 0 {
                    let below = (taken & ((1u32 << p) - 1)).count_ones();
                    out |= 1 << (p - below);
                }
                p += 1;
            }
            t[taken as usize][set as usize] = out as u8;
            set += 1;
        }
        taken += 1;
    }
    t
};

/// Renumbers the points of `set` by the number of points outside `taken`
/// below them: the set as a subset of the free points (`set` and `taken`
/// disjoint). One lookup per byte of the board.
#[inline]
pub fn compress(set: Bitboard, taken: Bitboard) -> Bitboard {
    debug_assert_eq!(set & taken, 0);
    let (t0, t1, t2) = (taken & 0xff, (taken >> 8) & 0xff, (taken >> 16) & 0xff);
    let c0 = COMPRESS[t0 as usize][(set & 0xff) as usize] as u32;
    let c1 = COMPRESS[t1 as usize][((set >> 8) & 0xff) as usize] as u32;
    let c2 = COMPRESS[t2 as usize][((set >> 16) & 0xff) as usize] as u32;
    let free0 = 8 - t0.count_ones();
    let free1 = free0 + 8 - t1.count_ones();
    c0 | c1 << free0 | c2 << free1
}

/// `compress` one point at a time: the definition, for the tests.
#[cfg(test)]
fn compress_by_points(mut set: Bitboard, taken: Bitboard) -> Bitboard {
    let mut out = 0;
    while set != 0 {
        let p = set.trailing_zeros();
        out |= 1 << (p - (taken & ((1u32 << p) - 1)).count_ones());
        set &= set - 1;
    }
    out
}

/// `EXPAND[taken][code]`: the inverse of `compress` within one byte of
/// the board, the low bits of `code` spread over the points outside `taken`.
static EXPAND: [[u8; 256]; 256] = {
    let mut t = [[0u8; 256]; 256];
    let mut taken = 0;
    while taken < 256 {
        let mut code = 0;
        while code < 256 {
            let mut out = 0u32;
            let mut bit = 0;
            let mut p = 0;
            while p < 8 {
                if taken & (1 << p) == 0 {
                    if code & (1 << bit) != 0 {
                        out |= 1 << p;
                    }
                    bit += 1;
                }
                p += 1;
            }
            t[taken as usize][code as usize] = out as u8;
            code += 1;
        }
        taken += 1;
    }
    t
};

/// The set whose `compress` beside `taken` is `code`: bit `i` of `code` on
/// the `i`-th point outside `taken`. One lookup per byte of the board.
#[inline]
pub fn expand(code: Bitboard, taken: Bitboard) -> Bitboard {
    let (t0, t1, t2) = (taken & 0xff, (taken >> 8) & 0xff, (taken >> 16) & 0xff);
    let free0 = 8 - t0.count_ones();
    let free1 = 8 - t1.count_ones();
    let (c1, c2) = (code >> free0, code >> (free0 + free1));
    let e0 = EXPAND[t0 as usize][(code & 0xff) as usize] as u32;
    let e1 = EXPAND[t1 as usize][(c1 & 0xff) as usize] as u32;
    let e2 = EXPAND[t2 as usize][(c2 & 0xff) as usize] as u32;
    e0 | e1 << 8 | e2 << 16
}

/// `BY_SIZE[i][c]` = C(c, i): per size, the binomials of every point
/// count, for `colex_unrank`'s comparisons.
static BY_SIZE: [[u32; POINTS]; MAX_STONES + 1] = {
    let mut t = [[0u32; POINTS]; MAX_STONES + 1];
    let mut i = 0;
    while i <= MAX_STONES {
        let mut c = 0;
        while c < POINTS {
            t[i][c] = BINOMIAL[c][i] as u32;
            c += 1;
        }
        i += 1;
    }
    t
};

/// The `k`-point set (`k` <= 9) of colexicographic rank `rank` among all
/// subsets of the 24 points (`rank` < C(24, k)). The combinatorial number
/// system taken greedily: the largest element `c` has the largest C(c, k)
/// not above `rank`, and so on down. Each element is a count of binomials
/// not above the rank, without a branch.
#[inline]
pub fn colex_unrank(rank: u64, k: usize) -> Bitboard {
    colex_unrank_each([rank], k)[0]
}

/// `colex_unrank` of several ranks, their steps alternating (see
/// `Indexer::unindex_each`).
#[inline]
pub fn colex_unrank_each<const N: usize>(ranks: [u64; N], k: usize) -> [Bitboard; N] {
    let mut rank = ranks.map(|r| r as u32);
    let mut set = [0; N];
    for i in (1..=k.min(MAX_STONES)).rev() {
        for j in 0..N {
            let below = BY_SIZE[i]
                .iter()
                .map(|&b| (b <= rank[j]) as u32)
                .sum::<u32>();
            let c = below - 1;
            rank[j] -= BY_SIZE[i][c as usize];
            set[j] |= 1 << c;
        }
    }
    set
}

/// The `k`-point set of colexicographic rank `rank` among the points
/// outside `taken`, one point at a time: the definition, for the tests.
#[cfg(test)]
fn colex_unrank_among_free(mut rank: u64, k: usize, taken: Bitboard) -> Bitboard {
    let mut set = 0;
    let mut free = POINTS - taken.count_ones() as usize; // free points below `point`
    let mut point = POINTS as u32;
    for i in (1..=k).rev() {
        loop {
            point -= 1;
            if taken & (1 << point) != 0 {
                continue;
            }
            free -= 1;
            if BINOMIAL[free][i] <= rank {
                break;
            }
        }
        rank -= BINOMIAL[free][i];
        set |= 1 << point;
    }
    set
}

const SYM_BITS: u32 = 4;
const STAB_FLAG: u32 = 1 << SYM_BITS;
const ORBIT_SHIFT: u32 = SYM_BITS + 1;

/// Index scheme 0: slots numbered by the opponent's stones first
/// ([`Indexer::index`], the module's layout). Every table of the solver.
pub const OPPONENT_MAJOR: u8 = 0;
/// Index scheme 1: slots numbered by the mover's stones first, the roles of
/// [`OPPONENT_MAJOR`] swapped ([`Indexer::index_in`]). A play set's tables
/// use it: every quiet turn of a position leads into positions whose mover
/// holds the same stones (the opponent's before the turn), so a probe that
/// reads every move's value reads one orbit's slots, a block or two.
pub const MOVER_MAJOR: u8 = 1;

/// The sector whose opponent-major slots number `sector`'s in `scheme`:
/// its mirror for [`MOVER_MAJOR`] (the roles swapped), else itself. A
/// class keeps its size and its positions there.
pub fn numbered_as(sector: Sector, scheme: u8) -> Sector {
    match scheme {
        MOVER_MAJOR => sector.mirrored(),
        _ => sector,
    }
}

/// The tables behind `index` and `unindex`, built once per process (about
/// 12 MB, some tens of milliseconds: `orbits.rs`).
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
    /// The shared tables, built on first use.
    pub fn get() -> &'static Indexer {
        static TABLES: OnceLock<Indexer> = OnceLock::new();
        TABLES.get_or_init(Indexer::build)
    }

    /// Hints the processor to fetch what `frame(them)` reads first, a word
    /// of a table of some megabytes: a search that ranks many positions
    /// asks for all their frames first, and the misses overlap.
    #[inline]
    pub fn prefetch_frame(&self, them: Bitboard) {
        let k = (them.count_ones() as usize).min(MAX_STONES);
        if let Some(entry) = self.entries.get(self.base[k] + colex_rank(them) as usize) {
            crate::prefetch(entry);
        }
    }

    #[inline]
    fn entry(&self, set: Bitboard) -> u32 {
        let k = set.count_ones() as usize;
        self.entries[self.base[k] + colex_rank(set) as usize]
    }

    /// Number of symmetry orbits of sets of `k` points (`k` <= 9).
    ///
    /// # Panics
    /// For `k` above 9: the index covers at most nine stones a side.
    pub fn orbits(&self, k: usize) -> u64 {
        self.reps[k].len() as u64
    }

    /// The representative of orbit `orbit` of the sets of `k` points (the
    /// numerically smallest set of the orbit; orbits in increasing order of
    /// it), `None` past the last orbit.
    pub fn representative(&self, k: usize, orbit: u64) -> Option<Bitboard> {
        self.reps.get(k)?.get(usize::try_from(orbit).ok()?).copied()
    }

    /// The classes of `sector` whose mover's stones lie in orbit `orbit` of
    /// the sets of `sector.stm_board` points, each once, mover-major: with
    /// `u` the orbit's representative, calls `f(u, t, size)` for every set
    /// `t` of `sector.opp_board` points beside `u` that is the smallest of
    /// its images under the symmetries fixing `u` (so that `(u, t)` stands
    /// for its class alone), `size` being the class's number of positions.
    /// The sets come in colexicographic order. Nothing past the last orbit.
    ///
    /// Positions sharing the mover's stones are what a pass over the turns
    /// wants together: a turn of `u` leads, whatever `t`, into the positions
    /// of one frame (`frame(u after the turn)`), one block of slots.
    pub fn for_each_class_of_mover(
        &self,
        sector: Sector,
        orbit: u64,
        mut f: impl FnMut(Bitboard, Bitboard, u32),
    ) {
        let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
        let Some(u) = self.representative(a, orbit) else {
            return;
        };
        if a + b > POINTS {
            return;
        }
        let sym = Symmetries::get();
        let stabiliser = self.frame(u).stabiliser;
        let mut fixing = [Symmetry(0); SYMMETRY_COUNT];
        let mut k = 0;
        for g in Symmetries::all().skip(1) {
            if stabiliser & (1 << g.0) != 0 {
                fixing[k] = g;
                k += 1;
            }
        }
        let fixing = &fixing[..k];
        // The opponent's sets: the `b`-point subsets of the points beside
        // `u`, by their codes among those points (Gosper's hack).
        let (free, n) = points_beside(u);
        // The set of each byte of a code.
        let deposit = byte_tables(|bit| match bit < n {
            true => 1 << free[bit],
            false => 0,
        });
        let limit = 1u32 << n;
        let mut code: u32 = (1 << b) - 1;
        while code < limit {
            let t = deposit[0][(code & 0xff) as usize]
                | deposit[1][(code >> 8 & 0xff) as usize]
                | deposit[2][(code >> 16 & 0xff) as usize];
            code = if b == 0 { limit } else { next_of_size(code) };
            let mut fixed = 1;
            let mut smallest = true;
            for &g in fixing {
                let image = sym.map(g, t);
                if image < t {
                    smallest = false;
                    break;
                }
                fixed += (image == t) as u32;
            }
            if smallest {
                f(u, t, SYMMETRY_COUNT as u32 / fixed);
            }
        }
    }

    /// Number of slots of a sector.
    pub fn slots(&self, sector: Sector) -> u64 {
        let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
        if a > MAX_STONES || b > MAX_STONES {
            return 0;
        }
        self.orbits(b) * BINOMIAL[POINTS - b][a]
    }

    /// The frame of every position whose opponent holds `them`: the symmetry
    /// and orbit of `them`, from which `Frame::slot` ranks the mover's stones.
    ///
    /// # Panics
    /// If `them` has more than nine points.
    #[inline]
    pub fn frame(&self, them: Bitboard) -> Frame {
        let b = them.count_ones() as usize;
        let e = self.entry(them);
        let orbit = (e >> ORBIT_SHIFT) as usize;
        Frame {
            symmetry: Symmetry((e & 15) as u8),
            orbit: orbit as u64,
            rep: self.reps[b][orbit],
            stabiliser: if e & STAB_FLAG != 0 {
                self.stabilisers[b][orbit]
            } else {
                1
            },
        }
    }

    /// The slot of a position within its sector (`Sector::of(node)`).
    ///
    /// Every position of a symmetry class gets the same slot.
    ///
    /// # Panics
    /// The slot is defined for the stones of a valid position (at most nine
    /// a side, on distinct points of the board:
    /// [`Position::validate`](crate::Position::validate)); more than nine
    /// stones of the opponent panic, other invalid nodes get a meaningless
    /// slot. The tablebase validates positions before it indexes them.
    ///
    /// # Example
    /// ```
    /// use moulin_core::index::Indexer;
    /// use moulin_core::{Position, Sector};
    ///
    /// let ix = Indexer::get();
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// // Its mirror image (left and right swapped) shares its slot.
    /// let mirror: Position = "W:g1,d1,a7 B:f2,d2,b6 w".parse()?;
    /// let slot = ix.index(&pos.node());
    /// assert_eq!(ix.index(&mirror.node()), slot);
    /// assert!(slot < ix.slots(Sector::moving(3, 3)));
    /// assert!(ix.is_canonical(Sector::moving(3, 3), slot));
    /// # Ok::<(), moulin_core::PositionError>(())
    /// ```
    #[inline]
    pub fn index(&self, node: &Node) -> u64 {
        self.frame(node.them).slot(node.us)
    }

    /// The position stored at a slot (hands from the sector). For a hole this
    /// is a position whose own slot is another one. `None` past the last slot.
    pub fn unindex(&self, sector: Sector, slot: u64) -> Option<Node> {
        self.unindex_each(sector, [slot])[0]
    }

    /// `unindex` of several slots of one sector at once: `out[i]` is
    /// `unindex(sector, slots[i])`. A slot's unranking is a chain of
    /// dependent steps, one per stone; here the steps of the `N` slots
    /// alternate, so that the processor works on several chains at a time.
    pub fn unindex_each<const N: usize>(
        &self,
        sector: Sector,
        slots: [u64; N],
    ) -> [Option<Node>; N] {
        let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
        if a > MAX_STONES || b > MAX_STONES || a + b > POINTS {
            return [None; N];
        }
        let per_orbit = BINOMIAL[POINTS - b][a];
        let them = slots.map(|slot| self.reps[b].get((slot / per_orbit) as usize).copied());
        let codes = colex_unrank_each(slots.map(|slot| slot % per_orbit), a);
        std::array::from_fn(|i| {
            them[i].map(|them| Node {
                us: expand(codes[i], them),
                them,
                us_hand: sector.stm_hand,
                them_hand: sector.opp_hand,
            })
        })
    }

    /// The positions stored at the slots `range` of a sector, with their
    /// slots, in order: as `unindex` slot by slot, but much faster.
    pub fn positions(&self, sector: Sector, range: std::ops::Range<u64>) -> Positions<'_> {
        let end = range.end.min(self.slots(sector));
        let start = range.start.min(end);
        let mut it = Positions {
            ix: self,
            sector,
            slot: start,
            end,
            orbit: 0,
            code: 0,
            free: [0; POINTS],
        };
        if let Some(node) = self.unindex(sector, start).filter(|_| start < end) {
            let per_orbit = BINOMIAL[POINTS - sector.opp_board as usize][sector.stm_board as usize];
            it.orbit = (start / per_orbit) as usize;
            it.code = compress(node.us, node.them);
            it.load_orbit();
        }
        it
    }

    /// Whether a slot holds the representative of its class (not a hole).
    pub fn is_canonical(&self, sector: Sector, slot: u64) -> bool {
        match self.unindex(sector, slot) {
            Some(node) => self.index(&node) == slot,
            None => false,
        }
    }

    /// The representative of the position's class: the position stored at its slot.
    ///
    /// # Panics
    /// As [`Indexer::index`], for a node that is not a valid position's.
    pub fn canonical(&self, node: &Node) -> Node {
        self.unindex(Sector::of(node), self.index(node))
            .expect("a valid position's slot decodes")
    }

    /// Number of slots of a sector's table numbered by `scheme`
    /// ([`OPPONENT_MAJOR`] or [`MOVER_MAJOR`]); 0 for another scheme.
    pub fn slots_in(&self, sector: Sector, scheme: u8) -> u64 {
        match scheme {
            OPPONENT_MAJOR | MOVER_MAJOR => self.slots(numbered_as(sector, scheme)),
            _ => 0,
        }
    }

    /// The slot of a position in a table numbered by `scheme`: [`index`]
    /// for [`OPPONENT_MAJOR`]; for [`MOVER_MAJOR`], the frame of the
    /// mover's stones ranks the opponent's (`index` of the position with
    /// the roles swapped, in the mirrored sector).
    ///
    /// [`index`]: Indexer::index
    #[inline]
    pub fn index_in(&self, node: &Node, scheme: u8) -> u64 {
        match scheme {
            MOVER_MAJOR => self.frame(node.us).slot(node.them),
            _ => self.index(node),
        }
    }

    /// A table of `sector` renumbered between the two schemes, for the
    /// slots `first..first + out.len()` of `sector` (opponent-major):
    /// `out[i]` gets `from[index_in(position, MOVER_MAJOR)]` for the
    /// position at slot `first + i`, and `hole` where that slot is a hole.
    /// With `sector.mirrored()` and a table of `sector` opponent-major in
    /// `from`, it writes the mover-major table instead: the mover-major
    /// numbering of a sector is the opponent-major numbering of its mirror,
    /// the roles swapped. Slots past the sector get `hole`; an index into
    /// `from` past its end too.
    pub fn renumber<T: Copy>(
        &self,
        sector: Sector,
        first: u64,
        out: &mut [T],
        from: &[T],
        hole: T,
    ) {
        let end = first.saturating_add(out.len() as u64);
        out.fill(hole);
        // The reads of `from` go all over it: they are gathered a batch at
        // a time, each asked for before the batch reads them, so the misses
        // overlap.
        let mut batch = Batch::default();
        let mut frame: Option<(Bitboard, Frame)> = None;
        for (slot, node) in self.positions(sector, first..end) {
            let own = match frame {
                Some((them, f)) if them == node.them => f,
                _ => {
                    let f = self.frame(node.them);
                    frame = Some((node.them, f));
                    f
                }
            };
            if !own.is_plain() && own.slot(node.us) != slot {
                continue; // a hole
            }
            if batch.push((slot - first) as u32, node.us, node.them) {
                batch.gather(self, out, from);
            }
        }
        batch.gather(self, out, from);
    }
}

/// A batch of `Indexer::renumber`: where each position goes in the run,
/// its stones, then its slot in the other numbering.
struct Batch {
    len: usize,
    at: [u32; BATCH],
    us: [Bitboard; BATCH],
    them: [Bitboard; BATCH],
    slot: [u64; BATCH],
}

/// Positions of a `Batch`.
const BATCH: usize = 64;

impl Default for Batch {
    fn default() -> Batch {
        Batch {
            len: 0,
            at: [0; BATCH],
            us: [0; BATCH],
            them: [0; BATCH],
            slot: [0; BATCH],
        }
    }
}

impl Batch {
    /// Adds a position (`at` within the run); whether the batch is full.
    #[inline]
    fn push(&mut self, at: u32, us: Bitboard, them: Bitboard) -> bool {
        self.at[self.len] = at;
        self.us[self.len] = us;
        self.them[self.len] = them;
        self.len += 1;
        self.len == BATCH
    }

    /// Reads the batch's codes from `from` into `out` and empties it: the
    /// frames of the mover's stones first asked for, then the codes.
    fn gather<T: Copy>(&mut self, ix: &Indexer, out: &mut [T], from: &[T]) {
        let n = self.len;
        for &us in &self.us[..n] {
            ix.prefetch_frame(us);
        }
        for k in 0..n {
            let slot = ix.frame(self.us[k]).slot(self.them[k]);
            self.slot[k] = slot;
            if let Some(v) = from.get(slot as usize) {
                crate::prefetch(v);
            }
        }
        for k in 0..n {
            if let Some(&v) = from.get(self.slot[k] as usize) {
                out[self.at[k] as usize] = v;
            }
        }
        self.len = 0;
    }
}

/// The positions of a run of consecutive slots, in slot order, without
/// decoding each slot from scratch (see `Indexer::positions`).
pub struct Positions<'a> {
    ix: &'a Indexer,
    sector: Sector,
    slot: u64,
    end: u64,
    orbit: usize,
    code: Bitboard,
    free: [u8; POINTS],
}

impl<'a> Positions<'a> {
    fn load_orbit(&mut self) {
        let rep = self.ix.reps[self.sector.opp_board as usize][self.orbit];
        self.free = points_beside(rep).0;
    }
}

impl Iterator for Positions<'_> {
    type Item = (u64, Node);

    #[inline]
    fn next(&mut self) -> Option<(u64, Node)> {
        if self.slot >= self.end {
            return None;
        }
        let (a, b) = (
            self.sector.stm_board as usize,
            self.sector.opp_board as usize,
        );
        let mut us = 0;
        let mut c = self.code;
        while c != 0 {
            us |= 1 << self.free[c.trailing_zeros() as usize];
            c &= c - 1;
        }
        let item = (
            self.slot,
            Node {
                us,
                them: self.ix.reps[b][self.orbit],
                us_hand: self.sector.stm_hand,
                them_hand: self.sector.opp_hand,
            },
        );
        self.slot += 1;
        // The next set of `a` free points in colexicographic order (Gosper's hack).
        let limit = 1u32 << (POINTS - b);
        let next = if a == 0 {
            limit
        } else {
            next_of_size(self.code)
        };
        if next >= limit || a == 0 {
            self.orbit += 1;
            self.code = (1 << a) - 1;
            if self.slot < self.end {
                self.load_orbit();
            }
        } else {
            self.code = next;
        }
        Some(item)
    }
}

/// Everything the index needs about the opponent's stones: positions that
/// share them (the predecessors of a position, the captures of one turn) are
/// ranked from one frame, by their mover's stones only.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// The symmetry taking the opponent's stones to their representative.
    pub symmetry: Symmetry,
    /// The representative's orbit number.
    pub orbit: u64,
    /// The representative.
    pub rep: Bitboard,
    /// The symmetries fixing the representative (bit per symmetry; 1 = only the identity).
    pub stabiliser: u16,
}

impl Frame {
    /// Whether only the identity fixes the opponent's stones: then `code` and
    /// `slot_of_code` give the slot, and codes of sets differing in a few
    /// points differ by the codes of those points.
    #[inline]
    pub fn is_plain(&self) -> bool {
        self.stabiliser == 1
    }

    /// The mover's stones, mapped by the frame's symmetry and renumbered among
    /// the points the representative leaves free.
    #[inline]
    pub fn code(&self, us: Bitboard) -> Bitboard {
        compress(Symmetries::get().map(self.symmetry, us), self.rep)
    }

    /// The code of a single point (not one of the representative's images).
    #[inline]
    pub fn point_code(&self, p: usize) -> Bitboard {
        let q = Symmetries::get().map_point(self.symmetry, crate::board::Point::new(p).unwrap());
        let q = q.index() as u32;
        1 << (q - (self.rep & ((1u32 << q) - 1)).count_ones())
    }

    /// The slot of the code of a set of `a` stones, for a plain frame.
    #[inline]
    pub fn slot_of_code(&self, code: Bitboard) -> u64 {
        let a = code.count_ones() as usize;
        let b = self.rep.count_ones() as usize;
        self.orbit * BINOMIAL[POINTS - b][a] + colex_rank(code)
    }

    /// The slot of the position with the frame's opponent stones and `us`.
    #[inline]
    pub fn slot(&self, us: Bitboard) -> u64 {
        let sym = Symmetries::get();
        let mapped = sym.map(self.symmetry, us);
        let mut rank = colex_rank(compress(mapped, self.rep));
        let mut fixing = self.stabiliser & !1;
        while fixing != 0 {
            let g = Symmetry(fixing.trailing_zeros() as u8);
            fixing &= fixing - 1;
            rank = rank.min(colex_rank(compress(sym.map(g, mapped), self.rep)));
        }
        let a = us.count_ones() as usize;
        let b = self.rep.count_ones() as usize;
        self.orbit * BINOMIAL[POINTS - b][a] + rank
    }
}

/// Positions of one frame from which ranking them through a `PlainRanker`
/// pays: building one costs about as much as ranking a few hundred.
pub const PLAIN_RANKER_FROM: usize = 256;

/// `Frame::slot` for one plain frame, many times: the frame's symmetry and
/// compression folded into one table per byte of the mover's stones, so a
/// slot is three loads from 3 KiB and a colex rank. Worth it from a few
/// hundred slots of one frame on (the tables take 768 steps to build).
#[derive(Clone)]
pub struct PlainRanker {
    codes: [[Bitboard; 256]; 3],
    base: u64,
}

impl PlainRanker {
    /// The ranker of a plain frame's sets of `a` stones; `None` when the
    /// frame is not plain (its slots take the least of several images).
    pub fn new(frame: &Frame, a: usize) -> Option<PlainRanker> {
        match frame.is_plain() {
            true => Some(PlainRanker::mapped_by(frame, frame.symmetry, a)),
            false => None,
        }
    }

    /// The rankers of any frame's sets of `a` stones, one per symmetry
    /// fixing its representative: the least of their slots is
    /// `Frame::slot` (for a plain frame, the one ranker of `new`).
    pub fn images(frame: &Frame, a: usize) -> Vec<PlainRanker> {
        let sym = Symmetries::get();
        Symmetries::all()
            .filter(|g| frame.stabiliser & (1 << g.0) != 0)
            .map(|g| PlainRanker::mapped_by(frame, sym.then(frame.symmetry, g), a))
            .collect()
    }

    /// The ranker that maps the mover's stones by `symmetry`, then numbers
    /// them among the points the frame's representative leaves free.
    fn mapped_by(frame: &Frame, symmetry: Symmetry, a: usize) -> PlainRanker {
        let b = frame.rep.count_ones() as usize;
        let sym = Symmetries::get();
        let codes = byte_tables(|p| {
            let q = sym
                .map_point(symmetry, Point::new(p).expect("a point"))
                .index() as u32;
            // Points of the representative's preimage never hold the
            // mover's stones: their entries are never read.
            match frame.rep & (1 << q) {
                0 => 1 << (q - (frame.rep & ((1u32 << q) - 1)).count_ones()),
                _ => 0,
            }
        });
        PlainRanker {
            codes,
            base: frame.orbit * BINOMIAL[POINTS - b][a],
        }
    }

    /// The slot of the position with the frame's opponent stones and `us`
    /// (`a` stones, none on the representative's preimage): `Frame::slot`.
    #[inline]
    pub fn slot(&self, us: Bitboard) -> u64 {
        self.slot_of_code(self.code(us))
    }

    /// The mover's stones `us` (any number, none on the representative's
    /// preimage) mapped and renumbered: the code of a set is the union of
    /// its points' codes, so a set less one of its points `p` has the code
    /// `code(us) ^ point_code(p)`.
    #[inline]
    pub fn code(&self, us: Bitboard) -> Bitboard {
        let c = &self.codes;
        c[0][(us & 0xff) as usize]
            | c[1][((us >> 8) & 0xff) as usize]
            | c[2][((us >> 16) & 0xff) as usize]
    }

    /// The code of the point `p` (`0..24`, not on the representative's
    /// preimage).
    #[inline]
    pub fn point_code(&self, p: usize) -> Bitboard {
        self.codes[p >> 3][1 << (p & 7)]
    }

    /// The slot of a code of `a` stones.
    #[inline]
    pub fn slot_of_code(&self, code: Bitboard) -> u64 {
        self.base + colex_rank(code)
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

mod classes;
mod mover;
mod orbits;
#[cfg(test)]
mod tests;
