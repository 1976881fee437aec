//! The best capture after a turn that closes a mill: one table, read by
//! every turn that reaches the same stones before its capture.
//!
//! A turn that closes a mill leads from a class `(u, t)` (mover `u`,
//! opponent `t`) to `(t - r, u')` for every stone `r` of `t` the mill may
//! remove, `u'` being the mover's stones after the turn. What the turn is
//! worth is the best of those captures, a function of `(t, u')` alone:
//! of the position of the quiet successors' sector where `t` is to move
//! against `u'`. Many turns share it: every stone of a mill of `u'` could
//! have been the one that closed it (placed there, or moved there from each
//! free point beside it). So the best capture is worked out once per class
//! of that sector and stored at its slot, and a turn that closes a mill
//! reads one code, as a quiet turn does, instead of ranking and reading a
//! successor per stone it may remove.
//!
//! The table is built block by block of the quiet sector: the slots of one
//! block share the opponent's stones `u'` (the block's representative), and
//! so do the captures' slots, one block of the capture sector. Only blocks
//! whose representative holds a mill are built; the others are never read.

use crate::solve::memory::huge_vec;
use moulin_core::board::{removable, removable_in, stones_in_mills, Bitboard, MILLS, POINTS};
use moulin_core::index::{compress, expand, next_of_size, Indexer, PlainRanker, BINOMIAL};
use moulin_core::value::HOLE;
use moulin_probe::Sector;
use rayon::prelude::*;

/// A table of best captures and what it was built from: the quiet turns'
/// sector and the ranks of the captures' codes. A sweep whose mills lead
/// into the same sectors, and value a capture alike, reads it as it is.
pub struct Captures {
    quiet: Sector,
    ranks: Box<[i32]>,
    /// The code of the best capture at every slot of `quiet`
    /// (`best_captures`).
    pub best: Vec<u16>,
}

impl Captures {
    /// The table of `quiet`'s best captures, those of `kept` when it was
    /// built from the same sector and ranks, else built from `codes`.
    pub fn of(quiet: Sector, codes: &[u16], ranks: &[i32], kept: Option<Captures>) -> Captures {
        match kept {
            Some(kept) if kept.quiet == quiet && *kept.ranks == *ranks => kept,
            _ => Captures {
                quiet,
                ranks: ranks.into(),
                best: best_captures(quiet, codes, ranks),
            },
        }
    }
}

/// For every slot of `quiet` (mover `t`, opponent `u'`), the code of the
/// best capture that removes a stone of `t`: the code among those the
/// captures lead to that `ranks` ranks highest, `HOLE` when one cannot be
/// read (a rank of `HOLE` is above every value's) or in a block whose `u'`
/// holds no mill. `codes` are those of the captures' sector: `quiet` with
/// one stone fewer for the mover.
///
/// Each block's codes are first turned into their places in the order of
/// `ranks` (`Order`), so that the best of a slot's captures is the
/// greatest of some places, one load each.
fn best_captures(quiet: Sector, codes: &[u16], ranks: &[i32]) -> Vec<u16> {
    let ix = Indexer::get();
    let (b, a) = (quiet.stm_board as usize, quiet.opp_board as usize);
    let mut out = huge_vec(ix.slots(quiet) as usize, |_| HOLE);
    if b == 0 || a + b > POINTS {
        return out;
    }
    let order = Order::new(ranks);
    let per_block = BINOMIAL[POINTS - a][b] as usize;
    let per_capture = BINOMIAL[POINTS - a][b - 1] as usize;
    out.par_chunks_mut(per_block)
        .enumerate()
        .for_each_init(Vec::new, |places, (orbit, block)| {
            let Some(u) = ix.representative(a, orbit as u64) else {
                return;
            };
            if stones_in_mills(u) == 0 {
                return;
            }
            // The places of the captures' block, `HOLE`'s past the end.
            let start = orbit * per_capture;
            let hole = order.place[HOLE as usize];
            places.clear();
            places.extend((start..start + per_capture).map(|slot| {
                codes
                    .get(slot)
                    .map_or(hole, |&code| order.place[code as usize])
            }));
            // The opponent's sets beside `u` by their codes, in the order
            // of their slots.
            let mut code: u32 = (1 << b) - 1;
            let frame = ix.frame(u);
            if frame.is_plain() {
                // The representative is its own frame: a set's slot in the
                // block is the colexicographic rank of its code, and the
                // stones a mill removes are found among the codes, with
                // the mills `u` leaves free as codes.
                let mills: Vec<Bitboard> = MILLS
                    .iter()
                    .filter(|&&m| m & u == 0)
                    .map(|&m| compress(m, u))
                    .collect();
                for stored in block.iter_mut() {
                    let victims = removable_in(code, &mills);
                    let best = best_without_one(code, victims, places, hole);
                    *stored = order.code(best);
                    code = next_of_size(code);
                }
            } else {
                // Symmetries fix `u`: a slot is the least of the images'.
                let images = PlainRanker::images(&frame, b - 1);
                let slot = |us: Bitboard| {
                    let least = images.iter().map(|r| r.slot(us)).min();
                    least.map_or(usize::MAX, |s| s as usize - start)
                };
                for stored in block.iter_mut() {
                    let t = expand(code, u);
                    let mut best = None;
                    let mut victims = removable(t);
                    while victims != 0 {
                        let r = victims & victims.wrapping_neg();
                        victims ^= r;
                        let place = places.get(slot(t ^ r)).copied().unwrap_or(hole);
                        best = best.max(Some(place));
                    }
                    *stored = order.code(best);
                    code = next_of_size(code);
                }
            }
        });
    out
}

/// The codes in the order of their ranks: a code's place, and the code
/// at each place. The greatest of some places is the place of the
/// highest-ranked of their codes.
struct Order {
    place: Vec<u16>,
    code_at: Vec<u16>,
}

impl Order {
    fn new(ranks: &[i32]) -> Order {
        let mut code_at: Vec<u16> = (0..=u16::MAX).collect();
        code_at.sort_by_key(|&code| ranks[code as usize]);
        let mut place = vec![0; code_at.len()];
        for (i, &code) in code_at.iter().enumerate() {
            place[code as usize] = i as u16;
        }
        Order { place, code_at }
    }

    /// The code at `place`; `HOLE` for none.
    fn code(&self, place: Option<u16>) -> u16 {
        place.map_or(HOLE, |p| self.code_at[p as usize])
    }
}

/// The greatest of `places` at the colexicographic ranks of the sets
/// `set` less one of its points in `victims` (`hole` past their end, as in
/// the other path); `None` without a victim.
///
/// With the points of `set` `p_0 < p_1 < ...`, its rank is the sum of
/// `C(p_i, i + 1)`; without `p_j`, the points above it move down a place:
/// the sum of `C(p_i, i + 1)` below `j` and of `C(p_i, i)` above.
#[inline]
fn best_without_one(set: Bitboard, victims: Bitboard, places: &[u16], hole: u16) -> Option<u16> {
    let mut above = 0;
    let mut left = set;
    let mut i = 0;
    while left != 0 {
        above += BINOMIAL[left.trailing_zeros() as usize][i] as usize;
        left &= left - 1;
        i += 1;
    }
    // One above each place, 0 for none: a point that is no victim gives 0,
    // without a branch.
    let (mut below, mut best) = (0, 0u32);
    let mut left = set;
    let mut i = 0;
    while left != 0 {
        let p = left.trailing_zeros() as usize;
        above -= BINOMIAL[p][i] as usize;
        let place = places.get(below + above).copied().unwrap_or(hole) as u32;
        let victim = (victims >> p & 1).wrapping_neg();
        best = best.max((place + 1) & victim);
        below += BINOMIAL[p][i + 1] as usize;
        left &= left - 1;
        i += 1;
    }
    best.checked_sub(1).map(|p| p as u16)
}
