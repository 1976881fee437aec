//! Play sets: every answer of the distance tables from about half their
//! bytes, Syzygy's split for moulin.
//!
//! A play set stores two tables per sector (`moulin pack` writes them from
//! the distance tables):
//! - the **outcome table** `<sector>.mtw`: win, draw or loss in two bits a
//!   position (the WDL table); under the no-capture rule the five values at
//!   counter 0, three positions a byte (`Encoding::RuleOutcomes`);
//! - the **distance table** `<sector>.mtd` of one side (`PlaySide`): the
//!   distance of each position its mover loses (a loss, or under the rule
//!   a blessed loss) as a small symbol (`symbol`), or the same for the
//!   positions its mover wins. Its blocks cover the outcome table's and
//!   hold only the symbols of the side, in slot order
//!   (`Encoding::Dense`): a slot's symbol is at its rank among the side's
//!   slots of the outcome block (`Block::rank`). Where a symbol does not
//!   fit a byte, a symbol per slot, every other slot repeating the one
//!   before it.
//!
//! With `PlaySide::Both` the distance table stores both sides (the wins'
//! symbols of a block, then the losses'), nothing in the sector is
//! rebuilt, and the set may leave sectors out (`moulin pack --leave-out`):
//! a sector without files whose turns all lead into sectors of both sides
//! is valued by one ply over them (`Tablebase::left_out_code`).
//!
//! The other side's distances are not stored. A won position's best move
//! leads to a position its opponent loses (or captures its way to a
//! conversion, or ends the game), whose distance is stored: the winner
//! takes the shortest. A lost position's moves all lead to positions its
//! opponent wins: the loser takes the longest. `Tablebase::code` rebuilds
//! them by one ply, with the same move values as the solver (see
//! `move_value`). Draws need no distance. So a probe reads one table for a
//! draw, two for a position of the stored side, and for one of the other
//! side one plus up to two per move.

use crate::error::{FileError, ProbeError};
use crate::index::Indexer;
use crate::position::Node;
use crate::rules::Rules;
use crate::sector::Sector;
use crate::table::{Encoding, PlaySide};
use crate::tablebase::Tablebase;
use crate::value::{Outcome, RuleOutcome};

/// A distance code (`Outcome::code`, or `RuleOutcome::code` under the
/// rule) read as a value of either kind; `None` for a hole.
#[inline]
pub fn decode(rules: &Rules, code: u16) -> Option<RuleOutcome> {
    match rules.no_capture_limit {
        None => Outcome::from_code(code).map(RuleOutcome::from),
        Some(_) => RuleOutcome::from_code(code),
    }
}

/// The code of a value in tables of these rules.
#[inline]
pub fn encode(rules: &Rules, value: RuleOutcome) -> Option<u16> {
    match rules.no_capture_limit {
        None => match value {
            RuleOutcome::Win(d) => Outcome::Win(d).code(),
            RuleOutcome::Loss(d) => Outcome::Loss(d).code(),
            RuleOutcome::Draw => Outcome::Draw.code(),
            _ => None,
        },
        Some(_) => value.code(),
    }
}

/// What an outcome table stores for a distance code: 0 a draw, 1 a win,
/// 2 a loss, and under the rule 3 a cursed win, 4 a blessed loss; `None`
/// for a hole.
#[inline]
pub fn outcome_code(rules: &Rules, code: u16) -> Option<u16> {
    decode(rules, code).map(RuleOutcome::outcome_code)
}

/// What a play set's distance table of `side` stores for a distance code:
/// a symbol for a position of that side (of either side for `Both`),
/// `None` for any other (a draw, the other side, a hole). Without the rule
/// a win takes an odd number of turns `d` and a loss an even one, and the
/// symbol is `d / 2`; under the rule a win or cursed win with a DTC of `d`
/// (at least 1) has the symbol `d - 1`, a loss or blessed loss the symbol
/// `d`.
#[inline]
pub fn symbol(rules: &Rules, side: PlaySide, code: u16) -> Option<u16> {
    let rule = rules.no_capture_limit.is_some();
    match decode(rules, code)? {
        RuleOutcome::Win(d) | RuleOutcome::CursedWin(d) if side.holds(PlaySide::Wins) => {
            Some(if rule { d.saturating_sub(1) } else { d / 2 })
        }
        RuleOutcome::Loss(d) | RuleOutcome::BlessedLoss(d) if side.holds(PlaySide::Losses) => {
            Some(if rule { d } else { d / 2 })
        }
        _ => None,
    }
}

/// The side of an outcome code (1 a win, 3 a cursed win; 2 a loss, 4 a
/// blessed loss), never `Both`; `None` for a draw or a code above 4.
#[inline]
pub fn side_of(outcome: u16) -> Option<PlaySide> {
    match outcome {
        1 | 3 => Some(PlaySide::Wins),
        2 | 4 => Some(PlaySide::Losses),
        _ => None,
    }
}

/// A position's value from its outcome code and its symbol (`symbol`'s
/// inverse); `None` for a draw, a code above 4 or a symbol out of range.
#[inline]
pub fn stored_value(rules: &Rules, outcome: u16, symbol: u16) -> Option<RuleOutcome> {
    let rule = rules.no_capture_limit.is_some();
    if !rule && outcome > 2 {
        return None;
    }
    let d = match (side_of(outcome)?, rule) {
        (PlaySide::Wins, false) => symbol.checked_mul(2)?.checked_add(1)?,
        (PlaySide::Wins, true) => symbol.checked_add(1)?,
        // `side_of` gives wins or losses.
        (_, false) => symbol.checked_mul(2)?,
        (_, true) => symbol,
    };
    RuleOutcome::from_outcome_code(outcome, d)
}

/// What a move from `node` is worth to its mover, given the stored value of
/// the position it leads to (`Loss(0)` when the game ends there) and
/// whether it captured: the equation every stored value satisfies (the
/// value is the best move's). Without the rule: one turn further. Under the
/// rule (`RULES.md`, the solver's analysis by levels): during placement one
/// turn further; in the moving phase a capture is a conversion (a win 1
/// when it ends the game, else the next value converted by
/// `RuleOutcome::by_capture`), any other turn one turn further, a win past
/// `N` cursed and a loss past `N` blessed.
#[inline]
pub fn move_value(rules: &Rules, node: &Node, capture: bool, after: RuleOutcome) -> RuleOutcome {
    let Some(n) = rules.no_capture_limit else {
        return after.before_move();
    };
    if node.us_hand > 0 {
        return after.before_move();
    }
    if capture {
        return match after {
            RuleOutcome::Loss(0) => RuleOutcome::Win(1),
            v => v.by_capture(n),
        };
    }
    match after.before_move() {
        RuleOutcome::Win(d) if d > n => RuleOutcome::CursedWin(d),
        RuleOutcome::Loss(d) if d > n => RuleOutcome::BlessedLoss(d),
        v => v,
    }
}

/// A value of outcome code `outcome` (not a draw) at the shortest distance
/// it can have: a win in 1 without the rule (its wins take an odd number of
/// turns), 0 otherwise.
#[inline]
pub fn placeholder(rules: &Rules, outcome: u16) -> RuleOutcome {
    let d = u16::from(rules.no_capture_limit.is_none() && side_of(outcome) == Some(PlaySide::Wins));
    RuleOutcome::from_outcome_code(outcome, d).unwrap_or(RuleOutcome::Draw)
}

impl Tablebase {
    /// The distance code of a class's slot in a play set whose distance
    /// tables `play` hold the distances of `side`: the outcome, the stored
    /// distance for a position of that side, the best move's for one of the
    /// other. `slot` must be a class's (not a hole: an outcome table cannot
    /// tell).
    pub(crate) fn play_code(
        &self,
        play: &Tablebase,
        side: PlaySide,
        sector: Sector,
        slot: u64,
    ) -> Result<u16, ProbeError> {
        let rules = self.rules();
        let (outcome, rank) = self.stored_code_and_rank(sector, slot, side, true)?;
        let value = match side_of(outcome) {
            None if outcome == 0 => RuleOutcome::Draw,
            None => return Err(self.damaged(sector, format!("outcome code {outcome}"))),
            Some(s) if side.holds(s) => self.read_value(play, sector, slot, outcome, rank)?,
            Some(_) => self.best_move_value(play, side, sector, slot, Some(outcome))?,
        };
        encode(&rules, value)
            .ok_or_else(|| self.damaged(sector, format!("slot {slot} rebuilds to {value:?}")))
    }

    /// The distance code of a class's slot in a sector the play set leaves
    /// out (`Tablebase::is_left_out`): its best move's value, every sector
    /// its turns lead into storing both sides. A sector without files whose
    /// turns lead into one that is missing, or stores one side only, is
    /// missing.
    pub(crate) fn left_out_code(
        &self,
        play: &Tablebase,
        sector: Sector,
        slot: u64,
    ) -> Result<u16, ProbeError> {
        if !self.rebuilds_whole(sector)? {
            return Err(ProbeError::MissingSector(sector));
        }
        let value = self.best_move_value(play, PlaySide::Both, sector, slot, None)?;
        encode(&self.rules(), value)
            .ok_or_else(|| self.damaged(sector, format!("slot {slot} rebuilds to {value:?}")))
    }

    /// Whether every sector `sector`'s turns lead into stores both sides'
    /// distances in this play set, so that a sector left out can be rebuilt
    /// whole by one ply (false for a tablebase that is not a play set).
    ///
    /// # Errors
    /// A header of a sector its turns lead into that cannot be read.
    pub fn rebuilds_whole(&self, sector: Sector) -> Result<bool, ProbeError> {
        let Some(play) = self.play_distances() else {
            return Ok(false);
        };
        for next in sector.successors() {
            match play.summary(next) {
                Ok(t) if t.play == Some(PlaySide::Both) => {}
                Ok(_) | Err(ProbeError::MissingSector(_)) => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// The value of a position whose distance is stored, given its outcome
    /// code and its place in a dense distance table (`stored_code_and_rank`).
    fn read_value(
        &self,
        play: &Tablebase,
        sector: Sector,
        slot: u64,
        outcome: u16,
        rank: Option<(u32, usize)>,
    ) -> Result<RuleOutcome, ProbeError> {
        let table = play.summary(sector)?;
        let symbol = match table.encoding {
            Encoding::Dense => {
                let own = self.summary(sector)?;
                if table.scheme != own.scheme {
                    return Err(self.damaged(sector, numbering(table.scheme, own.scheme)));
                }
                let blocks = own.block_slots;
                if table.block_slots != blocks {
                    let theirs = table.block_slots;
                    return Err(self.damaged(
                        sector,
                        format!("distance blocks of {theirs} slots, outcome blocks of {blocks}"),
                    ));
                }
                let (block, rank) = rank.ok_or_else(|| {
                    self.damaged(sector, format!("no rank for the symbol of slot {slot}"))
                })?;
                play.block_code(sector, block, rank)?
            }
            _ => play.stored_code(sector, slot)?,
        };
        stored_value(&self.rules(), outcome, symbol)
            .ok_or_else(|| self.damaged(sector, format!("symbol {symbol} at slot {slot}")))
    }

    /// The value of a position whose distance is not stored: the best of
    /// its moves, read from tables of `side`. The moves that can be best
    /// lead to positions of the stored side (or convert, or end the game);
    /// the others are valued from their outcome alone, with any distance,
    /// and a best move that does not give the position's own outcome (when
    /// stored) means damaged tables.
    fn best_move_value(
        &self,
        play: &Tablebase,
        side: PlaySide,
        sector: Sector,
        slot: u64,
        outcome: Option<u16>,
    ) -> Result<RuleOutcome, ProbeError> {
        let rules = self.rules();
        let ix = Indexer::get();
        let node = ix
            .unindex(sector, slot)
            .ok_or_else(|| self.damaged(sector, format!("slot {slot} is past the sector")))?;
        let mut next = Vec::with_capacity(64);
        rules.for_each_move(&node, |m, after| next.push((m.remove.is_some(), after)));
        // A capture of the moving phase converts: its value needs no distance.
        let converts = rules.no_capture_limit.is_some() && node.us_hand == 0;
        let mut best: Option<RuleOutcome> = None;
        let keep = |best: &mut Option<RuleOutcome>, mine: RuleOutcome| {
            if best.is_none_or(|b| mine.rank() > b.rank()) {
                *best = Some(mine);
            }
        };
        // The moves whose value needs a stored distance, with the best rank
        // that distance can give: read only while one can beat the best.
        let mut pending = Vec::new();
        for (capture, after) in next {
            if rules.is_lost(&after) {
                keep(
                    &mut best,
                    move_value(&rules, &node, capture, RuleOutcome::Loss(0)),
                );
                continue;
            }
            let (s, i) = (Sector::of(&after), ix.index(&after));
            let wanted = !(capture && converts);
            let (o, rank) = self.stored_code_and_rank(s, i, side, wanted)?;
            match side_of(o) {
                Some(k) if side.holds(k) && wanted => {
                    // Within one outcome a move's rank only rises or only
                    // falls with the distance: its bound is at an end.
                    let at = |d| {
                        let v = RuleOutcome::from_outcome_code(o, d).unwrap_or(RuleOutcome::Draw);
                        move_value(&rules, &node, capture, v).rank()
                    };
                    pending.push((at(0).max(at(u16::MAX / 2)), capture, s, i, o, rank));
                }
                Some(_) => keep(
                    &mut best,
                    move_value(&rules, &node, capture, placeholder(&rules, o)),
                ),
                None if o == 0 => keep(
                    &mut best,
                    move_value(&rules, &node, capture, RuleOutcome::Draw),
                ),
                None => return Err(self.damaged(s, format!("outcome code {o} at slot {i}"))),
            }
        }
        pending.sort_unstable_by_key(|p| std::cmp::Reverse(p.0));
        for (bound, capture, s, i, o, rank) in pending {
            if best.is_some_and(|b| b.rank() >= bound) {
                break;
            }
            let value = self.read_value(play, s, i, o, rank)?;
            keep(&mut best, move_value(&rules, &node, capture, value));
        }
        // A position without moves has lost already.
        let value = best.unwrap_or(RuleOutcome::Loss(0));
        if let Some(outcome) = outcome.filter(|&o| o != value.outcome_code()) {
            return Err(self.damaged(
                sector,
                format!(
                    "slot {slot} has the outcome code {outcome}, but its best move gives {value:?}"
                ),
            ));
        }
        Ok(value)
    }

    /// The codes a play set holds for the slots of block `block` of a
    /// sector's outcome table, written to the start of `out`, in the
    /// file's numbering (its index scheme); returns how many (the block's
    /// slots). A position of the stored side gets its
    /// full code, a draw the draw's; a position of the other side the code
    /// of its outcome at the shortest distance that outcome can have
    /// (`placeholder`), which a one-ply rebuild may compare but never takes
    /// as a best move's value (see `best_move_value`). A hole gets whatever
    /// the outcome table holds there. The verifier and `moulin pack
    /// --check` rebuild whole sectors from these, a block at a time.
    ///
    /// # Errors
    /// [`ProbeError::MissingSector`]; [`ProbeError::File`] when this is not
    /// a play set, `out` is shorter than the block, a file is damaged, or
    /// the distance block holds another number of symbols than the outcome
    /// block has slots of the side.
    pub fn play_block_codes(
        &self,
        sector: Sector,
        block: u32,
        out: &mut [u16],
    ) -> Result<usize, ProbeError> {
        let rules = self.rules();
        let Some(play) = self.play_distances() else {
            return Err(self.damaged(sector, "not a play set".into()));
        };
        let table = play.summary(sector)?;
        let side = table
            .play
            .ok_or_else(|| self.damaged(sector, "not a play set's distance table".into()))?;
        let dense = table.encoding == Encoding::Dense;
        let own = self.summary(sector)?;
        if table.scheme != own.scheme {
            return Err(self.damaged(sector, numbering(table.scheme, own.scheme)));
        }
        let block_slots = own.block_slots;
        if dense && table.block_slots != block_slots {
            return Err(self.damaged(sector, "distance and outcome blocks differ".into()));
        }
        let outcomes = self.in_own_table(sector, |_, t| t.decode_block(block))?;
        let n = outcomes.len();
        if out.len() < n {
            return Err(self.damaged(sector, "a buffer shorter than the block".into()));
        }
        let first = block as u64 * block_slots as u64;
        let symbols = match dense {
            true => Some(play.in_own_table(sector, |_, t| t.decode_block(block))?),
            false => None,
        };
        // Where the next symbol of each side sits in a dense block: of both
        // sides, the losses' after the wins'.
        let mut next = [0, 0];
        if side == PlaySide::Both {
            next[1] = (0..n)
                .filter(|&i| side_of(outcomes.code(i).unwrap_or(0)) == Some(PlaySide::Wins))
                .count();
        }
        for (i, o) in out[..n].iter_mut().enumerate() {
            let outcome = outcomes.code(i).unwrap_or(u16::MAX);
            let value = match side_of(outcome) {
                None if outcome == 0 => RuleOutcome::Draw,
                None => return Err(self.damaged(sector, format!("outcome code {outcome}"))),
                Some(s) if side.holds(s) => {
                    let k = usize::from(side == PlaySide::Both && s == PlaySide::Losses);
                    let symbol = match &symbols {
                        Some(d) => d.code(next[k]),
                        None => play.file_code(sector, first + i as u64).ok(),
                    };
                    next[k] += 1;
                    symbol
                        .and_then(|symbol| stored_value(&rules, outcome, symbol))
                        .ok_or_else(|| {
                            self.damaged(sector, format!("no symbol for slot {}", first + i as u64))
                        })?
                }
                Some(_) => placeholder(&rules, outcome),
            };
            *o = encode(&rules, value).ok_or_else(|| {
                self.damaged(sector, format!("slot {} holds {value:?}", first + i as u64))
            })?;
        }
        let rank = next[0].max(next[1]);
        if let Some(d) = &symbols {
            if d.len() != rank {
                let held = d.len();
                return Err(self.damaged(
                    sector,
                    format!("block {block} holds {held} symbols for {rank} slots of the side"),
                ));
            }
        }
        Ok(n)
    }

    /// The error of tables that contradict each other.
    fn damaged(&self, sector: Sector, what: String) -> ProbeError {
        ProbeError::File {
            path: self
                .path(sector)
                .map(|p| p.to_path_buf())
                .unwrap_or_else(|_| self.dir().join(sector.name())),
            source: FileError::Corrupt(format!("play set: {what}")),
        }
    }
}

/// The error of a distance table numbered otherwise than its outcome table.
fn numbering(distances: u8, outcomes: u8) -> String {
    format!("distances in index scheme {distances}, outcomes in index scheme {outcomes}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value a table can hold (a win takes a turn at least: the rule
    /// code of a win in 0 is never stored).
    fn every_value(rules: &Rules) -> impl Iterator<Item = (u16, RuleOutcome)> + '_ {
        (0..2000u16)
            .filter_map(move |code| Some((code, decode(rules, code)?)))
            .filter(|(_, v)| !matches!(v, RuleOutcome::Win(0) | RuleOutcome::CursedWin(0)))
    }

    #[test]
    fn a_stored_symbol_gives_back_its_value_and_only_its_side_has_one() {
        let plain = Rules::default();
        let ruled = Rules {
            no_capture_limit: Some(10),
            ..Rules::default()
        };
        for rules in [plain, ruled] {
            let mut seen = [0u32; 5];
            for (code, value) in every_value(&rules) {
                let outcome = value.outcome_code();
                seen[outcome as usize] += 1;
                assert_eq!(outcome_code(&rules, code), Some(outcome));
                for side in [PlaySide::Wins, PlaySide::Losses] {
                    match symbol(&rules, side, code) {
                        Some(s) => {
                            assert_eq!(side_of(outcome), Some(side), "{value:?}");
                            assert_eq!(stored_value(&rules, outcome, s), Some(value));
                            assert_eq!(encode(&rules, value), Some(code));
                        }
                        None => assert_ne!(side_of(outcome), Some(side), "{value:?}"),
                    }
                }
                // Both sides: the symbol of whichever side the value is.
                let both = symbol(&rules, PlaySide::Both, code);
                let own = side_of(outcome).and_then(|s| symbol(&rules, s, code));
                assert_eq!(both, own, "{value:?}");
                assert_eq!(both.is_some(), outcome != 0, "{value:?}");
            }
            // Every kind of value occurs (cursed and blessed under the rule).
            let kinds = if rules.no_capture_limit.is_some() {
                5
            } else {
                3
            };
            assert_eq!(seen[0], 1, "one draw code");
            assert!(seen[1..kinds].iter().all(|&n| n > 100), "{seen:?}");
            assert!(seen[kinds..].iter().all(|&n| n == 0), "{seen:?}");
        }
        // Symbols stay small: a win in 2k + 1 is k, a loss in 2k is k.
        assert_eq!(
            symbol(&plain, PlaySide::Wins, Outcome::Win(7).code().unwrap()),
            Some(3)
        );
        assert_eq!(
            symbol(&plain, PlaySide::Losses, Outcome::Loss(8).code().unwrap()),
            Some(4)
        );
        assert_eq!(stored_value(&plain, 3, 0), None);
        assert_eq!(stored_value(&plain, 0, 0), None);
        assert_eq!(stored_value(&plain, 1, u16::MAX), None);
    }

    #[test]
    fn move_values_follow_the_rule() {
        let ruled = Rules {
            no_capture_limit: Some(10),
            ..Rules::default()
        };
        let moving = Node {
            us: 0b111,
            them: 0b111 << 8,
            us_hand: 0,
            them_hand: 0,
        };
        let placing = Node {
            us_hand: 1,
            ..moving
        };
        let v = |node: &Node, capture, after| move_value(&ruled, node, capture, after);
        // A quiet move: one turn further, cursed past the limit.
        assert_eq!(
            v(&moving, false, RuleOutcome::Loss(9)),
            RuleOutcome::Win(10)
        );
        assert_eq!(
            v(&moving, false, RuleOutcome::Loss(10)),
            RuleOutcome::CursedWin(11)
        );
        // A capture converts, whatever the distance after it.
        assert_eq!(v(&moving, true, RuleOutcome::Loss(30)), RuleOutcome::Win(1));
        assert_eq!(v(&moving, true, RuleOutcome::Loss(0)), RuleOutcome::Win(1));
        assert_eq!(v(&moving, true, RuleOutcome::Win(3)), RuleOutcome::Loss(1));
        // During placement every turn counts one, captures too.
        assert_eq!(
            v(&placing, true, RuleOutcome::Loss(30)),
            RuleOutcome::Win(31)
        );
        assert_eq!(
            move_value(&Rules::default(), &moving, true, RuleOutcome::Loss(30)),
            RuleOutcome::Win(31)
        );
    }
}
