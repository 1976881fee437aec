//! How many positions a slot stands for: 16 divided by the number of
//! symmetries that map its position onto itself.

use super::{Indexer, BINOMIAL, MAX_STONES, STAB_FLAG};
use crate::board::{Bitboard, Symmetries, Symmetry, POINTS, SYMMETRY_COUNT};
use crate::position::Node;
use crate::sector::Sector;
use std::ops::Range;

impl Indexer {
    /// Number of positions in the class stored at a canonical slot (16
    /// divided by the stabiliser's size); cheap unless the opponent's stones
    /// are symmetric (then only the symmetries fixing them are tried on the
    /// mover's stones). Meaningless for a hole.
    #[inline]
    pub fn class_size(&self, sector: Sector, slot: u64) -> u32 {
        let Some(per_orbit) = per_orbit(sector) else {
            return 0;
        };
        let b = sector.opp_board as usize;
        match self.stabilisers[b].get((slot / per_orbit) as usize) {
            Some(1) => SYMMETRY_COUNT as u32,
            Some(&fixing) => match self.unindex(sector, slot) {
                Some(node) => SYMMETRY_COUNT as u32 / fixed_by(fixing, node.us),
                None => 0,
            },
            None => 0,
        }
    }

    /// `class_size` of every slot of `slots` in turn, as `f(slot, size)`
    /// (0 past the sector's end): an orbit block at a time, its positions
    /// walked in order rather than each ranked back. For counting a whole
    /// table.
    pub fn class_sizes(&self, sector: Sector, slots: Range<u64>, mut f: impl FnMut(u64, u32)) {
        let Some(per_orbit) = per_orbit(sector).filter(|&n| n > 0) else {
            slots.for_each(|slot| f(slot, 0));
            return;
        };
        let stabilisers = &self.stabilisers[sector.opp_board as usize];
        let mut start = slots.start;
        while start < slots.end {
            let orbit = start / per_orbit;
            let end = ((orbit + 1) * per_orbit).min(slots.end);
            match stabilisers.get(orbit as usize) {
                Some(1) => (start..end).for_each(|slot| f(slot, SYMMETRY_COUNT as u32)),
                Some(&fixing) => {
                    // The opponent's stones are the orbit's representative:
                    // a symmetry fixes the position when it is one of those
                    // fixing them and fixes the mover's stones too.
                    for (slot, node) in self.positions(sector, start..end) {
                        f(slot, SYMMETRY_COUNT as u32 / fixed_by(fixing, node.us));
                    }
                }
                None => (start..end).for_each(|slot| f(slot, 0)),
            }
            start = end;
        }
    }

    /// Number of symmetries that map the position onto itself (1, 2, 4, 8 or 16).
    ///
    /// # Panics
    /// If the opponent has more than nine stones.
    #[inline]
    pub fn stabiliser_size(&self, node: &Node) -> u32 {
        let e = self.entry(node.them);
        if e & STAB_FLAG == 0 {
            return 1;
        }
        let sym = Symmetries::get();
        Symmetries::all()
            .filter(|&g| sym.map(g, node.us) == node.us && sym.map(g, node.them) == node.them)
            .count() as u32
    }
}

/// How many of the symmetries `fixing` (a bit each; those fixing the
/// opponent's stones, the identity among them) also fix the mover's
/// stones `us`: the size of the position's stabiliser.
#[inline]
fn fixed_by(fixing: u16, us: Bitboard) -> u32 {
    let sym = Symmetries::get();
    let mut rest = fixing;
    let mut fixed = 0;
    while rest != 0 {
        let g = Symmetry(rest.trailing_zeros() as u8);
        rest &= rest - 1;
        fixed += u32::from(sym.map(g, us) == us);
    }
    fixed
}

/// Slots of one orbit block of `sector`; `None` for a sector the index
/// does not hold.
fn per_orbit(sector: Sector) -> Option<u64> {
    let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
    (a <= MAX_STONES && b <= MAX_STONES && a + b <= POINTS).then(|| BINOMIAL[POINTS - b][a])
}
