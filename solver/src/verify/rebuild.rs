//! A whole sector of a play set rebuilt at once: what `Tablebase::code`
//! gives slot by slot, for `moulin pack --check` and the verifier.
//!
//! The play set holds, per slot, the outcome, and the distance of the
//! positions of its side (`Tablebase::play_block_codes`). A position of
//! the other side takes the value of its best move, read from the same
//! codes of the sectors its turns lead into; the sweep (`Sweep`) plays
//! those turns mover-major, as the verifier does, so the reads stay within
//! a few blocks, instead of a probe's per-slot lookups through the block
//! cache (about ten times slower). The equation is the probe's: the same
//! move values (`moulin_core::play::move_value`), the same placeholder for
//! a successor of the other side, and a best move that does not give the
//! position's own outcome is an error naming the file.

use super::sweep::{Scratch, Sweep};
use crate::solve::memory::huge_vec;
use moulin_core::index::{Indexer, OPPONENT_MAJOR};
use moulin_core::play::{decode, encode, side_of};
use moulin_core::table::PlaySide;
use moulin_core::value::HOLE;
use moulin_probe::{ProbeError, RuleOutcome, Sector, Tablebase};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};
use std::sync::Mutex;

/// The codes a play set holds for every slot of a sector
/// (`Tablebase::play_block_codes`), block by block on the threads of the
/// current pool, numbered as the tables number them (`HOLE` at the holes
/// of a mover-major play set).
pub fn stored_codes(play: &Tablebase, sector: Sector) -> Result<Vec<u16>, ProbeError> {
    let summary = *play.summary(sector)?;
    let mut codes = vec![HOLE; summary.slots as usize];
    let per_block = (summary.block_slots as usize).max(1);
    codes
        .par_chunks_mut(per_block)
        .enumerate()
        .try_for_each(|(block, out)| {
            let n = play.play_block_codes(sector, block as u32, out)?;
            match n == out.len() {
                true => Ok(()),
                false => Err(corrupt(
                    play,
                    sector,
                    format!("block {block} has {n} slots, not {}", out.len()),
                )),
            }
        })?;
    if summary.scheme == OPPONENT_MAJOR {
        return Ok(codes);
    }
    // Numbered as the tables number them.
    Ok(renumbered(sector, &codes))
}

/// A table renumbered (`Indexer::renumber`) into the slots of `sector`
/// opponent-major, on the threads of the current pool: a mover-major table
/// of `sector` as the tables number it, or with `sector` mirrored, an
/// opponent-major table of its mirror numbered mover-major.
pub fn renumbered(sector: Sector, from: &[u16]) -> Vec<u16> {
    const RUN: usize = 1 << 16;
    let ix = Indexer::get();
    let mut out = huge_vec(ix.slots(sector) as usize, |_| HOLE);
    out.par_chunks_mut(RUN).enumerate().for_each(|(i, run)| {
        ix.renumber(sector, (i * RUN) as u64, run, from, HOLE);
    });
    out
}

/// Every code of a sector of a play set, as `Tablebase::code` gives it
/// (`HOLE` at the holes), on the threads of `pool`.
pub fn sector(
    play: &Tablebase,
    sector: Sector,
    pool: &rayon::ThreadPool,
) -> Result<Vec<u16>, ProbeError> {
    pool.install(|| rebuild(play, sector))
}

fn rebuild(play: &Tablebase, sector: Sector) -> Result<Vec<u16>, ProbeError> {
    let rules = play.rules();
    // A sector left out: every class rebuilt, over placeholder codes.
    let left_out = play.is_left_out(sector);
    let side = match left_out {
        true => PlaySide::Both,
        false => play
            .play_distances()
            .and_then(|d| d.summary(sector).ok())
            .and_then(|s| s.play)
            .ok_or_else(|| corrupt(play, sector, "not a play set's sector".into()))?,
    };
    if side == PlaySide::Both && !left_out {
        // Both sides stored: nothing to rebuild but the holes.
        let mut codes = stored_codes(play, sector)?;
        let ix = Indexer::get();
        codes.par_iter_mut().enumerate().for_each(|(slot, c)| {
            if !ix.is_canonical(sector, slot as u64) {
                *c = HOLE;
            }
        });
        return Ok(codes);
    }
    let draw = encode(&rules, RuleOutcome::Draw).unwrap_or(HOLE);
    let own = match left_out {
        true => huge_vec(play.slots(sector)? as usize, |_| draw),
        false => stored_codes(play, sector)?,
    };
    // The sectors its turns lead into, those the play set has (a missing
    // one leaves its successors unreadable, an error below).
    let mut read = Vec::new();
    for next in sector.successors() {
        if next != sector && play.summary(next).is_ok() {
            read.push((next, stored_codes(play, next)?));
        }
    }
    let mut tables = Vec::new();
    if !left_out {
        tables.push((sector, own.as_slice()));
    }
    tables.extend(read.iter().map(|(s, c)| (*s, c.as_slice())));
    let sweep = Sweep::new(rules, sector, &tables);

    // The other side's positions are the ones rebuilt (all of a sector
    // left out).
    let other = |code: u16| {
        left_out
            || decode(&rules, code)
                .and_then(|v| side_of(v.outcome_code()))
                .is_some_and(|s| !side.holds(s))
    };
    let out: Vec<AtomicU16> = huge_vec(own.len(), |_| AtomicU16::new(HOLE));
    let first_error: Mutex<Option<(u64, String)>> = Mutex::new(None);
    (0..sweep.orbits())
        .into_par_iter()
        .for_each_init(Scratch::default, |scratch, orbit| {
            sweep.visit_where(orbit, &own, other, scratch, |slot, _, _, code, best| {
                let Some(code) = code else { return };
                let rebuilt = match (left_out, other(code)) {
                    (true, _) => best_of(&rules, best),
                    (false, false) => Ok(code),
                    (false, true) => value_of(&rules, code, best),
                };
                match rebuilt {
                    Ok(c) => out[slot as usize].store(c, Relaxed),
                    Err(what) => {
                        let mut first = first_error.lock().unwrap_or_else(|e| e.into_inner());
                        if first.as_ref().is_none_or(|(s, _)| slot < *s) {
                            *first = Some((slot, what));
                        }
                    }
                }
            });
        });
    if let Some((slot, what)) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(corrupt(play, sector, format!("slot {slot} {what}")));
    }
    Ok(out.into_iter().map(AtomicU16::into_inner).collect())
}

/// The code of a rebuilt position: its best move's value (`best`, a rank),
/// which must have the outcome stored for it (`code`'s).
fn value_of(rules: &moulin_probe::Rules, code: u16, best: Option<i32>) -> Result<u16, String> {
    let outcome = decode(rules, code).map_or(u16::MAX, RuleOutcome::outcome_code);
    let value = best_value(best)?;
    if value.outcome_code() != outcome {
        return Err(format!(
            "has the outcome code {outcome}, but its best move gives {value:?}"
        ));
    }
    encode(rules, value).ok_or_else(|| format!("rebuilds to {value:?}"))
}

/// The code of a position of a sector left out: its best move's value.
fn best_of(rules: &moulin_probe::Rules, best: Option<i32>) -> Result<u16, String> {
    let value = best_value(best)?;
    encode(rules, value).ok_or_else(|| format!("rebuilds to {value:?}"))
}

/// The value of a best move's rank.
fn best_value(best: Option<i32>) -> Result<RuleOutcome, String> {
    best.and_then(RuleOutcome::from_rank)
        .ok_or_else(|| "has a move into a sector the play set cannot answer".into())
}

/// The error of a play set that contradicts itself, naming the sector's
/// distance table.
fn corrupt(play: &Tablebase, sector: Sector, what: String) -> ProbeError {
    let path = play
        .play_distances()
        .and_then(|d| d.path(sector).ok())
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| play.dir().to_path_buf());
    ProbeError::File {
        path,
        source: moulin_probe::error::FileError::Corrupt(format!("play set: {what}")),
    }
}
