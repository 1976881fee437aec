//! The placement phase: sectors where the player to move still has stones in
//! hand. A placement uses up a stone from the hand, so turns never lead back
//! into the same sector: each sector is one forward pass, every position's
//! value the best of its successors, read from sectors already solved.

use super::retro::{for_each_capture_slot, LowerSectors, Progress};
use moulin_probe::board::{forms_mill, points, removable, ALL_POINTS};
use moulin_probe::index::Indexer;
use moulin_probe::value::HOLE;
use moulin_probe::{Node, Outcome, Rules, Sector};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Slots handled per parallel task.
const CHUNK: usize = 1 << 14;

/// The sectors a placement turn from `sector` leads into, with and without a
/// capture, where the next mover has not lost by material.
pub fn placement_needs(sector: Sector) -> Vec<Sector> {
    sector.successors()
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
    let _ = rules; // placements are the same with or without flying
    let ix = Indexer::get();
    let n = ix.slots(sector) as usize;
    let quiet = Sector {
        stm_board: sector.opp_board,
        opp_board: sector.stm_board + 1,
        stm_hand: sector.opp_hand,
        opp_hand: sector.stm_hand - 1,
    };
    let capture = Sector {
        stm_board: sector.opp_board.saturating_sub(1),
        ..quiet
    };
    // The opponent moves next with its stones on the board plus its hand.
    let quiet_values = lower.values(quiet);
    let capture_loses = capture.stm_board + capture.stm_hand < 3;
    let capture_values = if sector.opp_board > 0 && !capture_loses {
        lower.values(capture)
    } else {
        &[]
    };
    let done = AtomicU64::new(0);
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            let range = (c * CHUNK) as u64..((c + 1) * CHUNK).min(n) as u64;
            let len = range.end - range.start;
            let out: Vec<u16> = ix
                .positions(sector, range)
                .map(|(slot, node)| {
                    if !ix.frame(node.them).is_plain() && ix.index(&node) != slot {
                        return HOLE;
                    }
                    value(&node, quiet_values, capture_values, capture_loses).code()
                })
                .collect();
            let now = done.fetch_add(len, Relaxed) + len;
            progress.initialised(now, n as u64);
            out
        })
        .collect()
}

/// The value of a position with stones in hand, from its successors'.
///
/// The successors' slots are ranked first and their codes read together,
/// so the cache misses overlap instead of waiting one after the other (the
/// reads were 80 % of the time when each was used as soon as it was made).
fn value(node: &Node, quiet: &[u16], capture: &[u16], capture_loses: bool) -> Outcome {
    let ix = Indexer::get();
    let empty = ALL_POINTS & !(node.us | node.them);
    let victims = if node.them != 0 {
        removable(node.them)
    } else {
        0
    };
    // At most 24 placements, each with at most 9 removals.
    let mut quiet_slots = [0u32; 24];
    let mut capture_slots = [0u32; 24 * 9];
    let (mut nq, mut nc) = (0, 0);
    let mut capture_wins = false;
    for to in points(empty) {
        let us_after = node.us | to.bit();
        // The opponent moves next, against `us_after`.
        let frame = ix.frame(us_after);
        if victims != 0 && forms_mill(us_after, to.index()) {
            if capture_loses {
                capture_wins = true;
                continue;
            }
            for_each_capture_slot(&frame, node.them, victims, |slot| {
                capture_slots[nc] = slot as u32;
                nc += 1;
            });
        } else {
            quiet_slots[nq] = frame.slot(node.them) as u32;
            nq += 1;
        }
    }
    if capture_wins {
        // The opponent is left with two stones: lost at once, the fastest win.
        return Outcome::Loss(0).before_move();
    }
    let mut codes = [0u16; 24 + 24 * 9];
    for k in 0..nq {
        codes[k] = quiet[quiet_slots[k] as usize];
    }
    for k in 0..nc {
        codes[nq + k] = capture[capture_slots[k] as usize];
    }
    let mut best = Outcome::Loss(0);
    for &code in &codes[..nq + nc] {
        let mine = Outcome::from_code(code)
            .expect("index never yields a hole")
            .before_move();
        if mine.rank() > best.rank() {
            best = mine;
        }
    }
    best
}
