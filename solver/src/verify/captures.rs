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
use moulin_probe::board::{removable, removable_in, stones_in_mills, Bitboard, MILLS, POINTS};
use moulin_probe::index::{
    colex_rank, compress, expand, next_of_size, Indexer, PlainRanker, BINOMIAL,
};
use moulin_probe::value::HOLE;
use moulin_probe::Sector;
use rayon::prelude::*;

/// For every slot of `quiet` (mover `t`, opponent `u'`), the code of the
/// best capture that removes a stone of `t`: the code among those the
/// captures lead to that `ranks` ranks highest, `HOLE` when one cannot be
/// read (a rank of `HOLE` is above every value's) or in a block whose `u'`
/// holds no mill. `codes` are those of the captures' sector: `quiet` with
/// one stone fewer for the mover.
pub fn best_captures(quiet: Sector, codes: &[u16], ranks: &[i32]) -> Vec<u16> {
    let ix = Indexer::get();
    let (b, a) = (quiet.stm_board as usize, quiet.opp_board as usize);
    let mut out = huge_vec(ix.slots(quiet) as usize, |_| HOLE);
    if b == 0 || a + b > POINTS {
        return out;
    }
    let per_block = BINOMIAL[POINTS - a][b] as usize;
    let per_capture = BINOMIAL[POINTS - a][b - 1] as usize;
    out.par_chunks_mut(per_block)
        .enumerate()
        .for_each(|(orbit, block)| {
            let Some(u) = ix.representative(a, orbit as u64) else {
                return;
            };
            if stones_in_mills(u) == 0 {
                return;
            }
            let start = orbit * per_capture;
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
                let slot = |set: Bitboard| start + colex_rank(set) as usize;
                for stored in block.iter_mut() {
                    *stored = best_of(removable_in(code, &mills), code, codes, ranks, slot);
                    code = next_of_size(code);
                }
            } else {
                // Symmetries fix `u`: a slot is the least of the images'.
                let images = PlainRanker::images(&frame, b - 1);
                let slot = |us: Bitboard| {
                    let least = images.iter().map(|r| r.slot(us)).min();
                    least.map_or(usize::MAX, |s| s as usize)
                };
                for stored in block.iter_mut() {
                    let t = expand(code, u);
                    *stored = best_of(removable(t), t, codes, ranks, slot);
                    code = next_of_size(code);
                }
            }
        });
    out
}

/// The best of the captures that remove one of `victims` from the set `t`
/// (a code, or the stones themselves), whose slots `slot` gives: the code
/// `ranks` ranks highest, `HOLE` past the end of `codes`.
#[inline]
fn best_of(
    mut victims: Bitboard,
    t: Bitboard,
    codes: &[u16],
    ranks: &[i32],
    slot: impl Fn(Bitboard) -> usize,
) -> u16 {
    let rank = |code: u16| ranks[code as usize];
    let mut best = None::<u16>;
    while victims != 0 {
        let r = victims & victims.wrapping_neg();
        victims ^= r;
        let c = codes.get(slot(t ^ r)).copied().unwrap_or(HOLE);
        if best.is_none_or(|b| rank(c) > rank(b)) {
            best = Some(c);
        }
    }
    best.unwrap_or(HOLE)
}
