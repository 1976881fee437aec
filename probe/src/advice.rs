//! Advice beyond the value: the practical chances of each move, that is what
//! the opponent's replies do, and a ranking of moves of equal value by those
//! chances.
//!
//! Perfect play often leaves many moves of the same value (at the start all
//! 24 placements draw). Among them, the one that leaves the opponent more ways
//! to go wrong is the better practical choice. For every legal move the
//! tables tell what each of the opponent's replies leads to; [`Chances`]
//! counts them, and [`Tablebase::advise`] ranks the moves by value first and
//! by those counts next, so that the ranking is explained by the numbers it
//! returns.

use crate::error::ProbeError;
use crate::tablebase::Tablebase;
use moulin_core::position::Position;
use moulin_core::rules::Move;
use moulin_core::value::Outcome;
use std::cmp::Ordering;

/// Plies looked at by default: the move and the opponent's replies.
pub const DEFAULT_DEPTH: u8 = 2;
/// Table probes a deeper look may spend by default (about a second).
pub const DEFAULT_BUDGET: u64 = 1_000_000;

/// How far [`Tablebase::advise`] looks.
///
/// Built with `AdviceOptions::default()` and the `with_*` methods, so that
/// options can be added without breaking callers. Under the no-capture rule
/// (`docs/rules.md`) the advice reads every position at counter 0, as
/// [`Tablebase::probe`] does (cursed wins and blessed losses as draws).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AdviceOptions {
    /// Plies: 2 (the default) counts the opponent's replies; 4, 6, ... also
    /// follow the replies that are not mistakes (see
    /// [`Chances::error_chance`]). Odd values are rounded down, below 2 is 2.
    pub depth: u8,
    /// Table probes that deeper levels may spend, over all moves together:
    /// a deeper level is computed only if it fits entirely, otherwise the
    /// deepest level that fitted is kept ([`Chances::depth`] says which).
    /// Two plies are always computed, whatever the budget.
    pub budget: u64,
}

impl Default for AdviceOptions {
    fn default() -> AdviceOptions {
        AdviceOptions {
            depth: DEFAULT_DEPTH,
            budget: DEFAULT_BUDGET,
        }
    }
}

impl AdviceOptions {
    /// Looks this many plies deep (even, at least 2).
    pub fn with_depth(mut self, depth: u8) -> AdviceOptions {
        self.depth = depth;
        self
    }

    /// Spends at most this many table probes on levels beyond two plies.
    pub fn with_budget(mut self, budget: u64) -> AdviceOptions {
        self.budget = budget;
        self
    }

    fn plies(&self) -> u8 {
        (self.depth.max(2)) & !1
    }
}

/// What the opponent's replies to one move lead to, counted from the tables.
///
/// Outcomes are those of `Tablebase::probe_moves` on the position after the
/// move, seen by the opponent who replies. A move that ends the game (the
/// opponent has lost, a win in 1) has no reply: every count is 0. Serialised
/// as the `chances` object of `moulin probe --json`, field by field.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Chances {
    /// Legal replies of the opponent (each removal is a reply of its own).
    pub replies: u32,
    /// Replies after which the opponent loses (a mistake unless every reply loses).
    pub losing: u32,
    /// Replies after which the game is drawn.
    pub drawing: u32,
    /// Replies after which the opponent wins.
    pub winning: u32,
    /// The quickest the opponent can lose by a reply: the smallest distance
    /// among the losing replies, in turns counted from the opponent's turn
    /// (as `moves[].distance` of `moulin probe --json` on the position after
    /// the move); `None` if no reply loses.
    pub fastest_loss: Option<u16>,
    /// Replies that are mistakes for the opponent: they give up part of the
    /// opponent's value after the move. If the opponent then wins: replies
    /// that draw or lose; if it is a draw: replies that lose; if the
    /// opponent loses in `d`: replies that lose sooner than `d`.
    pub traps: u32,
    /// The chance that an opponent who picks each reply at random goes wrong.
    /// At two plies it is `traps / replies` (0 without replies). At `2k`
    /// plies it is, averaged over the replies: 1 for a trap; for another
    /// reply, the largest error chance at `2k - 2` plies among our best moves
    /// (equal best value) in the position it leads to (0 if the game is over
    /// there). So it is the chance that a random opponent errs within its
    /// next `k` turns while we keep the value and aim at its errors.
    pub error_chance: f64,
    /// The plies the error chance was computed over (see `AdviceOptions`).
    pub depth: u8,
}

/// One legal move, its value and its practical chances.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct MoveAdvice {
    /// The move (placement, slide or flight, with its removal).
    pub mv: Move,
    /// Its value for the player who makes it (as in `probe_moves`).
    pub outcome: Outcome,
    /// What the opponent's replies do.
    pub chances: Chances,
}

impl MoveAdvice {
    /// The practical order of two moves (`Less`: `self` is better):
    /// 1. the value: faster wins, then draws, then slower losses;
    /// 2. among equal values, a larger `error_chance` (more replies go wrong);
    /// 3. more `losing` replies;
    /// 4. a smaller `fastest_loss` (a reply that loses sooner; `None` last).
    ///
    /// Moves equal on all four keep the order of `Rules::legal_moves`.
    pub fn practical_order(&self, other: &MoveAdvice) -> Ordering {
        let (a, b) = (&self.chances, &other.chances);
        other
            .outcome
            .rank()
            .cmp(&self.outcome.rank())
            .then(b.error_chance.total_cmp(&a.error_chance))
            .then(b.losing.cmp(&a.losing))
            .then(
                a.fastest_loss
                    .unwrap_or(u16::MAX)
                    .cmp(&b.fastest_loss.unwrap_or(u16::MAX)),
            )
    }
}

/// Whether a reply of outcome `reply` (for the replier) gives up part of the
/// replier's value `best` (the value of the position it replies in).
fn is_trap(best: Outcome, reply: Outcome) -> bool {
    match best {
        Outcome::Win(_) => !matches!(reply, Outcome::Win(_)),
        Outcome::Draw => matches!(reply, Outcome::Loss(_)),
        Outcome::Loss(d) => matches!(reply, Outcome::Loss(e) if e < d),
    }
}

/// Counts probes against a budget; `None` once it is spent.
struct Budget(u64);

impl Budget {
    fn spend(&mut self, probes: usize) -> Option<()> {
        self.0 = self.0.checked_sub(probes as u64)?;
        Some(())
    }
}

impl Tablebase {
    /// Every legal move with its value and practical chances, best first in
    /// the order of [`MoveAdvice::practical_order`]. Empty when the game is
    /// over. Two plies cost one `probe_moves` per legal move.
    ///
    /// # Errors
    /// Those of [`Tablebase::probe`], for the position and every position
    /// within the plies looked at (a missing table among them is
    /// [`ProbeError::MissingSector`]).
    ///
    /// # Example
    /// A capture that leaves the opponent two stones ends the game: it is
    /// worth a win in 1 and leaves no reply to count. (The table is the
    /// 3 v 3 table of the crate's example.)
    ///
    /// ```
    /// use moulin_probe::{AdviceOptions, Outcome, Position, Rules, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// let advice = tb.advise(&pos, &AdviceOptions::default())?;
    ///
    /// assert_eq!(advice.len(), tb.probe_moves(&pos)?.len());
    /// for best in &advice[..3] {
    ///     assert!(best.mv.remove.is_some(), "{}", best.mv);
    ///     assert_eq!(best.outcome, Outcome::Win(1));
    ///     assert_eq!(best.chances.replies, 0);
    /// }
    /// // Every other move leaves Black replies to count.
    /// assert!(advice[3..].iter().all(|a| a.chances.replies > 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn advise(
        &self,
        pos: &Position,
        options: &AdviceOptions,
    ) -> Result<Vec<MoveAdvice>, ProbeError> {
        let mut advice = Vec::new();
        // The replies of each move, kept for the deeper levels.
        let mut all_replies = Vec::new();
        for (mv, next, outcome) in self.successors(pos)? {
            let replies = self.successors(&next)?;
            let opponent = outcome_after(outcome);
            let mut chances = Chances {
                replies: replies.len() as u32,
                losing: 0,
                drawing: 0,
                winning: 0,
                fastest_loss: None,
                traps: 0,
                error_chance: 0.0,
                depth: 2,
            };
            for &(_, _, o) in &replies {
                match o {
                    Outcome::Win(_) => chances.winning += 1,
                    Outcome::Draw => chances.drawing += 1,
                    Outcome::Loss(d) => {
                        chances.losing += 1;
                        chances.fastest_loss = Some(chances.fastest_loss.map_or(d, |f| f.min(d)));
                    }
                }
                chances.traps += is_trap(opponent, o) as u32;
            }
            if chances.replies > 0 {
                chances.error_chance = chances.traps as f64 / chances.replies as f64;
            }
            advice.push(MoveAdvice {
                mv,
                outcome,
                chances,
            });
            all_replies.push((opponent, replies));
        }
        let mut budget = Budget(options.budget);
        for plies in (4..=options.plies()).step_by(2) {
            let mut deeper = Vec::with_capacity(advice.len());
            for (opponent, replies) in &all_replies {
                match self.error_chance(*opponent, replies, plies, &mut budget)? {
                    Some(e) => deeper.push(e),
                    None => break,
                }
            }
            if deeper.len() < advice.len() {
                break;
            }
            for (a, e) in advice.iter_mut().zip(deeper) {
                a.chances.error_chance = e;
                a.chances.depth = plies;
            }
        }
        advice.sort_by(MoveAdvice::practical_order);
        Ok(advice)
    }

    /// The error chance (see `Chances::error_chance`) over `plies` of a move
    /// after which the opponent's value is `opponent` and its replies are
    /// `replies`; `None` when the budget runs out.
    fn error_chance(
        &self,
        opponent: Outcome,
        replies: &[(Move, Position, Outcome)],
        plies: u8,
        budget: &mut Budget,
    ) -> Result<Option<f64>, ProbeError> {
        if replies.is_empty() {
            return Ok(Some(0.0));
        }
        let mut sum = 0.0;
        for (_, ours, o) in replies {
            let o = *o;
            if is_trap(opponent, o) {
                sum += 1.0;
                continue;
            }
            if plies <= 2 {
                continue;
            }
            let our_moves = self.successors(ours)?;
            if budget.spend(our_moves.len()).is_none() {
                return Ok(None);
            }
            let Some(top) = our_moves.iter().map(|(_, _, v)| v.rank()).max() else {
                continue;
            };
            let mut best: f64 = 0.0;
            for (_, after, v) in our_moves.iter().filter(|(_, _, v)| v.rank() == top) {
                let theirs = self.successors(after)?;
                if budget.spend(theirs.len()).is_none() {
                    return Ok(None);
                }
                let Some(e) = self.error_chance(outcome_after(*v), &theirs, plies - 2, budget)?
                else {
                    return Ok(None);
                };
                best = best.max(e);
            }
            sum += best;
        }
        Ok(Some(sum / replies.len() as f64))
    }
}

impl Tablebase {
    /// Every legal move, the position it leads to and its value for the
    /// player who makes it (`probe_moves` with the positions), in the order
    /// of `Rules::legal_moves`.
    pub(crate) fn successors(
        &self,
        pos: &Position,
    ) -> Result<Vec<(Move, Position, Outcome)>, ProbeError> {
        pos.validate()?;
        let mut next = Vec::new();
        let side = pos.side.opponent();
        self.rules().for_each_move(&pos.node(), |m, node| {
            next.push((m, Position::from_node(node, side)))
        });
        next.into_iter()
            .map(|(m, p)| Ok((m, p, self.probe(&p)?.before_move())))
            .collect()
    }
}

/// The value for the opponent of the position after a move of value `mine`
/// for its maker (the inverse of `Outcome::before_move`).
pub(crate) fn outcome_after(mine: Outcome) -> Outcome {
    match mine {
        Outcome::Draw => Outcome::Draw,
        Outcome::Win(d) => Outcome::Loss(d - 1),
        Outcome::Loss(d) => Outcome::Win(d - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traps_are_replies_that_give_up_value() {
        assert!(is_trap(Outcome::Win(5), Outcome::Draw));
        assert!(is_trap(Outcome::Win(5), Outcome::Loss(2)));
        assert!(!is_trap(Outcome::Win(5), Outcome::Win(7)));
        assert!(is_trap(Outcome::Draw, Outcome::Loss(8)));
        assert!(!is_trap(Outcome::Draw, Outcome::Draw));
        assert!(is_trap(Outcome::Loss(8), Outcome::Loss(4)));
        assert!(!is_trap(Outcome::Loss(8), Outcome::Loss(8)));
        assert!(!is_trap(Outcome::Loss(0), Outcome::Loss(0)));
    }

    #[test]
    fn outcome_after_inverts_before_move() {
        for o in [
            Outcome::Draw,
            Outcome::Loss(0),
            Outcome::Win(3),
            Outcome::Loss(12),
        ] {
            assert_eq!(outcome_after(o.before_move()), o);
        }
    }

    #[test]
    fn options_round_depth_to_even_plies() {
        let o = AdviceOptions::default();
        assert_eq!(o.plies(), 2);
        assert_eq!(o.with_depth(5).plies(), 4);
        assert_eq!(o.with_depth(0).plies(), 2);
        assert_eq!(o.with_depth(6).plies(), 6);
    }
}
