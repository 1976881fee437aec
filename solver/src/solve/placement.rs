//! The placement phase: sectors where the player to move still has stones in
//! hand. A placement uses up a stone from the hand, so turns never lead back
//! into the same sector: each sector is one forward pass, every position's
//! value the best of its successors, read from sectors already solved.
//!
//! The pass goes orbit block by orbit block: the slots of one block share
//! the opponent's stones (the block's representative), and a placement only
//! adds a stone to the mover's. So a turn's successors depend only on the
//! mover's stones after it, one set of `a + 1` free points reached from
//! `a + 1` positions of the block, and on whether the placed stone closed a
//! mill. Each block first ranks and reads, once per such set, the successor
//! without capture and the best successor over every capture (for the sets
//! that hold a mill), then values its positions from those small arrays.
//! That ranks `a + 1` times fewer successors than asking every position for
//! its own turns, and the reads that miss the cache go down by as much.
//! Those reads go to sectors of up to a gigabyte in no useful order: each
//! is asked for ahead of its use, so many are under way at once, and the
//! values of a position's turns are compared without a branch on them.

use super::retro::{for_each_capture_slot, LowerSectors, Progress};
use super::scheme::{Codes, Dtc, Dtw, Scheme};
use moulin_core::board::{removable, stones_in_mills, POINTS};
use moulin_core::index::{colex_rank, compress, Indexer, BINOMIAL};
use moulin_core::prefetch;
use moulin_core::value::{HOLE, LOST_NOW as LOST};
use moulin_probe::{Rules, Sector};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The sectors a placement turn from `sector` leads into, with and without a
/// capture, where the next mover has not lost by material.
pub fn placement_needs(sector: Sector) -> Vec<Sector> {
    sector.successors()
}

/// What a placement that closes a mill leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Capture {
    /// No mill can close: the mover has fewer than two stones on the board,
    /// or the opponent none.
    Impossible,
    /// The capture leaves the opponent with two stones: won at once.
    Wins,
    /// The capture leads into this sector.
    Read(Sector),
}

/// The sectors a placement from `sector` leads into: without capture, and
/// with one.
fn placement_reads(sector: Sector) -> (Sector, Capture) {
    let quiet = Sector {
        stm_board: sector.opp_board,
        opp_board: sector.stm_board + 1,
        stm_hand: sector.opp_hand,
        opp_hand: sector.stm_hand - 1,
    };
    if sector.stm_board + 1 < 3 || sector.opp_board == 0 {
        return (quiet, Capture::Impossible);
    }
    let capture = Sector {
        stm_board: sector.opp_board - 1,
        ..quiet
    };
    // The opponent moves next with its stones on the board plus its hand.
    if capture.stm_board + capture.stm_hand < 3 {
        (quiet, Capture::Wins)
    } else {
        (quiet, Capture::Read(capture))
    }
}

/// The sectors and codes a placement pass reads.
struct Successors<'a, S> {
    /// Codes of the sector after a placement without capture.
    quiet: &'a [u16],
    /// Codes of the sector after a placement with capture (empty when no
    /// mill can close or a capture leaves the opponent lost).
    capture: &'a [u16],
    /// Whether a capture leaves the opponent with fewer than three stones.
    capture_loses: bool,
    /// How the codes read.
    scheme: S,
}

/// Solves one placement sector (the player to move has stones in hand).
/// `lower` holds its successor sectors. The result does not depend on the
/// number of threads.
pub fn solve_placement(
    rules: &Rules,
    sector: Sector,
    lower: &dyn LowerSectors,
    progress: &dyn Progress,
) -> Vec<u16> {
    assert!(sector.stm_hand > 0, "{sector} is not a placement sector");
    // Placements are the same with or without flying; under the no-capture
    // rule every successor is at counter 0 (a placement resets it), so the
    // pass is the same minimax over the successors' stored values, one
    // turn further each, with rule codes ordered by `RuleOutcome::rank`.
    match Scheme::of(rules) {
        Scheme::Dtw => solve_placement_as(Dtw, sector, lower, progress),
        Scheme::Dtc(n) => solve_placement_as(Dtc(n), sector, lower, progress),
    }
}

/// `solve_placement` for one scheme of values.
fn solve_placement_as<S: Codes>(
    scheme: S,
    sector: Sector,
    lower: &dyn LowerSectors,
    progress: &dyn Progress,
) -> Vec<u16> {
    let ix = Indexer::get();
    let n = ix.slots(sector);
    let (quiet, capture) = placement_reads(sector);
    let next = Successors {
        quiet: lower.values(quiet),
        capture: match capture {
            Capture::Read(capture) => lower.values(capture),
            Capture::Impossible | Capture::Wins => &[],
        },
        capture_loses: capture == Capture::Wins,
        scheme,
    };
    let orbits = ix.orbits(sector.opp_board as usize);
    let per_orbit = n.checked_div(orbits).unwrap_or(0);
    let done = AtomicU64::new(0);
    // Each orbit block's codes go straight to their place: a collect would
    // hold blocks beside the result before it joins them (about 290 MiB
    // beyond the 2 bytes a slot on 8v8h1v0, over the memory budget).
    let mut codes = vec![0u16; n as usize];
    if per_orbit == 0 {
        return codes;
    }
    codes
        .par_chunks_mut(per_orbit as usize)
        .enumerate()
        .for_each_init(Block::default, |block, (orbit, out)| {
            block.solve(sector, orbit as u64, &next, out);
            let now = done.fetch_add(per_orbit, Relaxed) + per_orbit;
            progress.initialised(now, n);
        });
    codes
}

/// Work space of one orbit block, reused from block to block. Entries are
/// by colex rank of the mover's code after a placement (a set of `a + 1`
/// free points of the block).
#[derive(Default)]
struct Block {
    /// Slots of the successors after a placement without capture.
    slots: Vec<u32>,
    /// The best successor code over every capture, for a set that holds a
    /// mill (`HOLE` for the others).
    capture: Vec<u16>,
    /// (entry, slot) of every capture successor, ranked before they are read.
    capture_slots: Vec<(u32, u32)>,
    /// Per entry, what a placement leads to as `ranked` keys: without a
    /// capture, and with one.
    turns: Vec<[u64; 2]>,
    /// Per entry, the code bits of its stones in a mill (none when the
    /// opponent has no stone to lose): a placement on one of them closes it.
    mills: Vec<u32>,
}

/// How many reads of a successor sector ahead a block asks for.
const AHEAD: usize = 40;

/// A successor code with its placement key above it: the smaller of two is
/// the better turn, and the code comes back from its low 16 bits.
#[inline]
fn ranked<S: Codes>(scheme: S, code: u16) -> u64 {
    (scheme.placement_key(code) as u64) << 16 | code as u64
}

impl Block {
    /// The codes of the slots of orbit block `orbit` of `sector`, into `out`.
    fn solve<S: Codes>(
        &mut self,
        sector: Sector,
        orbit: u64,
        next: &Successors<S>,
        out: &mut [u16],
    ) {
        let ix = Indexer::get();
        let (a, b) = (sector.stm_board as usize, sector.opp_board as usize);
        let free_points = POINTS - b;
        let per_orbit = BINOMIAL[free_points][a];
        let first = orbit * per_orbit;
        let rep = ix
            .unindex(sector, first)
            .expect("orbit within the sector")
            .them;
        let plain = ix.frame(rep).is_plain();
        let victims = if rep != 0 { removable(rep) } else { 0 };

        // Every successor of the block, ranked then read: the quiet one of
        // each set after a placement, and the captures of each set with a mill.
        let after = Sector {
            stm_board: sector.stm_board + 1,
            ..sector
        };
        let per_after = BINOMIAL[free_points][a + 1];
        self.slots.clear();
        self.mills.clear();
        self.capture_slots.clear();
        self.capture.clear();
        self.capture.resize(per_after as usize, HOLE);
        for (k, (_, node)) in ix
            .positions(after, orbit * per_after..(orbit + 1) * per_after)
            .enumerate()
        {
            let frame = ix.frame(node.us);
            self.slots.push(frame.slot(rep) as u32);
            let in_mills = if victims != 0 {
                stones_in_mills(node.us)
            } else {
                0
            };
            self.mills.push(compress(in_mills, rep));
            if in_mills != 0 {
                if next.capture_loses {
                    // The opponent is left with two stones: lost at once.
                    self.capture[k] = LOST;
                } else {
                    for_each_capture_slot(&frame, rep, victims, |s| {
                        self.capture_slots.push((k as u32, s as u32));
                    });
                }
            }
        }
        // The reads miss the cache, and a branch on what one brings back
        // would hold up the next ones: each read is asked for `AHEAD` reads
        // before it is needed.
        let scheme = next.scheme;
        for (i, &(k, s)) in self.capture_slots.iter().enumerate() {
            if let Some(&(_, ahead)) = self.capture_slots.get(i + AHEAD) {
                prefetch(&next.capture[ahead as usize]);
            }
            let code = next.capture[s as usize];
            let best = &mut self.capture[k as usize];
            let key = |c| scheme.placement_key(c);
            if *best == HOLE || key(code) < key(*best) {
                *best = code;
            }
        }
        self.turns.clear();
        for (i, (&s, &capture)) in self.slots.iter().zip(&self.capture).enumerate() {
            if let Some(&ahead) = self.slots.get(i + AHEAD) {
                prefetch(&next.quiet[ahead as usize]);
            }
            let quiet = next.quiet[s as usize];
            self.turns
                .push([ranked(scheme, quiet), ranked(scheme, capture)]);
        }

        // Each position's turns: a placement on free point `j` leads to the
        // entry of its stones plus `j`, with a capture when `j` is in one of
        // that entry's mills. No branch on either (they are unpredictable).
        let all_free = (1u32 << free_points) - 1;
        debug_assert_eq!(out.len() as u64, per_orbit);
        let positions = ix.positions(sector, first..first + per_orbit);
        for (code_out, (slot, node)) in out.iter_mut().zip(positions) {
            *code_out = 'position: {
                if !plain && ix.index(&node) != slot {
                    break 'position HOLE;
                }
                let code = compress(node.us, rep);
                let mut best = u64::MAX;
                let mut open = all_free & !code;
                while open != 0 {
                    let j = open.trailing_zeros();
                    open &= open - 1;
                    let entry = colex_rank(code | 1 << j) as usize;
                    let closes = (self.mills[entry] >> j & 1) as usize;
                    best = best.min(self.turns[entry][closes]);
                }
                value_of_best(scheme, best)
            };
        }
    }
}

/// The code of a position whose best turn has the `ranked` key `best`
/// (`u64::MAX` for none): that successor's value seen before the move, one
/// turn further. A position without a turn is lost (never the case while
/// the mover has stones in hand and the board has room).
#[inline]
fn value_of_best<S: Codes>(scheme: S, best: u64) -> u16 {
    match best as u16 {
        HOLE => LOST,
        code => scheme.before_move(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use moulin_probe::Outcome;

    #[test]
    fn a_placement_pass_reads_only_the_sectors_it_needs() {
        // The solver loads `placement_needs` before the pass; reading any
        // other sector would stop a full solve (as 1v2h8v7 once did: a
        // mover with one stone cannot close a mill, and its capture sector
        // does not exist).
        for sector in Sector::all(true).into_iter().filter(|s| s.stm_hand > 0) {
            let needs = placement_needs(sector);
            let (quiet, capture) = placement_reads(sector);
            assert!(needs.contains(&quiet), "{sector} reads {quiet}");
            if let Capture::Read(c) = capture {
                assert!(needs.contains(&c), "{sector} reads {c}");
            }
            if sector.stm_board >= 2 && sector.opp_board > 0 {
                assert_ne!(capture, Capture::Impossible, "{sector}");
            }
        }
    }

    #[test]
    fn best_orders_codes_like_outcome_ranks() {
        let outcomes = [
            Outcome::Draw,
            Outcome::Loss(0),
            Outcome::Loss(2),
            Outcome::Loss(40),
            Outcome::Win(1),
            Outcome::Win(3),
            Outcome::Win(201),
        ];
        for x in outcomes {
            for y in outcomes {
                // The opponent's view after the move: a lower key is better for the mover.
                let key = |o: Outcome| Dtw.placement_key(o.code().unwrap());
                let by_key = key(x) < key(y);
                let by_rank = x.before_move().rank() > y.before_move().rank();
                assert_eq!(by_key, by_rank, "{x} vs {y}");
            }
        }
        let best = outcomes
            .iter()
            .map(|o| ranked(Dtw, o.code().unwrap()))
            .min()
            .unwrap();
        assert_eq!(Some(value_of_best(Dtw, best)), Outcome::Win(1).code());
        assert_eq!(value_of_best(Dtw, u64::MAX), LOST);
    }
}
