//! The tablebase's answers from a play set (see `moulin_core::play` for
//! what a play set stores): the distances of the side not stored, rebuilt
//! by one ply.

use super::Tablebase;
use crate::error::{FileError, ProbeError};
use moulin_core::index::Indexer;
use moulin_core::play::{encode, move_value, placeholder, side_of, stored_value};
use moulin_core::sector::Sector;
use moulin_core::table::{Encoding, PlaySide};
use moulin_core::value::RuleOutcome;

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
