//! The dense index of the reference: every `(us, them)` pair of a sector,
//! without symmetry reduction, ranked in colex order.

use super::{bits, geo, FULL};
use moulin_core::Node;
use std::sync::OnceLock;

/// All `k`-subsets of `n` points in colex order (increasing as integers).
pub(super) fn combos(n: usize, k: usize) -> &'static [u32] {
    static TABLES: [[OnceLock<Vec<u32>>; 10]; 25] = [const { [const { OnceLock::new() }; 10] }; 25];
    TABLES[n][k].get_or_init(|| {
        let mut out = Vec::with_capacity(geo().binom[n][k] as usize);
        if k == 0 {
            out.push(0);
            return out;
        }
        let mut set: u32 = (1 << k) - 1;
        while set < 1 << n {
            out.push(set);
            // Gosper's hack: the next larger integer with as many bits.
            let low = set & set.wrapping_neg();
            let ripple = set + low;
            set = ripple | (((set ^ ripple) >> 2) / low);
        }
        out
    })
}

/// `RANK[c][below][byte]`: the colex-rank contribution of the set bits of
/// byte `c` of a set with `below` set bits under that byte.
fn rank_tables() -> &'static [[[u32; 256]; 10]; 3] {
    static TABLES: OnceLock<Box<[[[u32; 256]; 10]; 3]>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let b = &geo().binom;
        let mut t = Box::new([[[0u32; 256]; 10]; 3]);
        for (c, chunk) in t.iter_mut().enumerate() {
            for (below, row) in chunk.iter_mut().enumerate() {
                for (byte, entry) in row.iter_mut().enumerate() {
                    *entry = bits(byte as u32)
                        .enumerate()
                        .filter(|&(i, _)| below + i < 9)
                        .map(|(i, bit)| b[8 * c + bit][below + i + 1])
                        .sum();
                }
            }
        }
        t
    })
}

/// Colex rank of a set of at most 9 points among the sets of its size: the
/// sum over its `i`-th lowest point `p` of `C(p, i + 1)`.
#[inline]
pub(super) fn rank(set: u32) -> usize {
    debug_assert!(set.count_ones() <= 9);
    let t = rank_tables();
    let (lo, mid, hi) = (set & 0xff, set >> 8 & 0xff, set >> 16 & 0xff);
    let below_mid = pop(lo) as usize;
    let below_hi = below_mid + pop(mid) as usize;
    (t[0][0][lo as usize] + t[1][below_mid][mid as usize] + t[2][below_hi.min(9)][hi as usize])
        as usize
}

/// Number of set bits (a byte table: the target may lack `popcnt`).
#[inline]
pub(super) fn pop(x: u32) -> u32 {
    const POP8: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u8).count_ones() as u8;
            i += 1;
        }
        t
    };
    (POP8[(x & 0xff) as usize]
        + POP8[(x >> 8 & 0xff) as usize]
        + POP8[(x >> 16 & 0xff) as usize]
        + POP8[(x >> 24) as usize]) as u32
}

/// Byte tables for `squeeze` and `deposit`, indexed `[mask][value]`: the
/// bits of `value` at the set positions of `mask` packed low (extract), and
/// the low bits of `value` spread over the set positions of `mask` (spread).
type ByteTables = (Vec<[u8; 256]>, Vec<[u8; 256]>);

fn byte_tables() -> &'static ByteTables {
    static TABLES: OnceLock<ByteTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut extract = vec![[0u8; 256]; 256];
        let mut spread = vec![[0u8; 256]; 256];
        for mask in 0..256usize {
            for value in 0..256usize {
                for (i, p) in bits(mask as u32).enumerate() {
                    extract[mask][value] |= ((value >> p & 1) << i) as u8;
                    spread[mask][value] |= ((value >> i & 1) << p) as u8;
                }
            }
        }
        (extract, spread)
    })
}

/// Position of point `p` among the points outside `taken`.
#[inline]
pub(super) fn squeezed_point(p: usize, taken: u32) -> usize {
    p - pop(taken & ((1u32 << p) - 1)) as usize
}

/// Removes the points of `taken` from the numbering: the inverse of `deposit`.
#[inline]
pub(super) fn squeeze(set: u32, taken: u32) -> u32 {
    let (extract, _) = byte_tables();
    let keep = FULL & !taken;
    let mut out = 0;
    let mut shift = 0;
    for c in 0..3 {
        let (m, v) = (
            (keep >> (8 * c) & 0xff) as usize,
            (set >> (8 * c) & 0xff) as usize,
        );
        out |= (extract[m][v] as u32) << shift;
        shift += pop(m as u32);
    }
    out
}

/// Spreads the bits of `squeezed` over the set bits of `mask`, lowest first.
#[inline]
pub(super) fn deposit(squeezed: u32, mask: u32) -> u32 {
    let (_, spread) = byte_tables();
    let mut out = 0;
    let mut rest = squeezed;
    for c in 0..3 {
        let m = (mask >> (8 * c) & 0xff) as usize;
        out |= (spread[m][(rest & 0xff) as usize] as u32) << (8 * c);
        rest >>= pop(m as u32);
    }
    out
}

/// A sector of the reference: stones on the board and in hand of each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// Stones of the mover on the board.
    pub us: u8,
    /// Stones of the opponent on the board.
    pub them: u8,
    /// Stones in the mover's hand.
    pub us_hand: u8,
    /// Stones in the opponent's hand.
    pub them_hand: u8,
}

impl Key {
    /// The sector of a position.
    pub fn of(node: &Node) -> Key {
        Key {
            us: pop(node.us) as u8,
            them: pop(node.them) as u8,
            us_hand: node.us_hand,
            them_hand: node.them_hand,
        }
    }

    pub(super) fn width(&self) -> usize {
        geo().binom[24 - self.them as usize][self.us as usize] as usize
    }

    /// Number of sets of the mover's stones (`positions_by_us_in` ranks).
    pub fn mover_sets(&self) -> usize {
        geo().binom[24][self.us as usize] as usize
    }

    /// Number of `(us, them)` pairs: every placement of the stones, unreduced.
    pub fn size(&self) -> usize {
        geo().binom[24][self.them as usize] as usize * self.width()
    }

    /// Dense index of a pair of this sector: the colex rank of `them` among
    /// the subsets of the 24 points, then that of `us` among the points
    /// `them` leaves free. (Opponent-major, so that the positions a turn of
    /// the opponent can come from lie close together.)
    #[inline]
    pub fn index(&self, us: u32, them: u32) -> usize {
        rank(them) * self.width() + rank(squeeze(us, them))
    }

    /// The pair at a dense index (inverse of `index`).
    #[inline]
    pub fn pair(&self, index: usize) -> (u32, u32) {
        let width = self.width();
        let them = combos(24, self.them as usize)[index / width];
        let squeezed = combos(24 - self.them as usize, self.us as usize)[index % width];
        (deposit(squeezed, FULL & !them), them)
    }

    pub(super) fn slot(&self) -> usize {
        let [a, b, c, d] = [self.us, self.them, self.us_hand, self.them_hand].map(usize::from);
        ((a * 10 + b) * 10 + c) * 10 + d
    }
}

/// Every position of a sector as `(index, us, them)`, grouped by the mover's
/// stones (whose successors then share few blocks of their sectors).
pub fn positions_by_us(key: Key) -> impl Iterator<Item = (usize, u32, u32)> {
    positions_by_us_in(key, 0..key.mover_sets())
}

/// The part of `positions_by_us` whose mover's stones have a colex rank in
/// `ranks`.
pub fn positions_by_us_in(
    key: Key,
    ranks: std::ops::Range<usize>,
) -> impl Iterator<Item = (usize, u32, u32)> {
    let width = key.width();
    combos(24, key.us as usize)[ranks]
        .iter()
        .flat_map(move |&us| {
            combos(24 - key.us as usize, key.them as usize)
                .iter()
                .map(move |&squeezed| {
                    let them = deposit(squeezed, FULL & !us);
                    (rank(them) * width + rank(squeeze(us, them)), us, them)
                })
        })
}
