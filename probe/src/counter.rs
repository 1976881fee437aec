//! Probing under the no-capture rule (`docs/rules.md`): the value of a position
//! at any counter from the one value a rule table stores per position.
//!
//! A rule table stores the value at counter 0 (`RuleOutcome`, with its
//! distance to conversion, DTC). In the moving phase the value at counter
//! `c` follows by the threshold property (`RuleOutcome::at_counter`). During
//! placement the counter is always 0 (a placement resets it), and the stored
//! distance counts the turns to the first conversion of the moving phase
//! (placements and placement captures counted as ordinary turns), the winner
//! shortest and the loser longest.
//!
//! A move is valued at the counter it leads to: after a capture in the
//! moving phase the next position at counter 0, and the capture itself is a
//! conversion (DTC 1, or `N + 1` when it keeps a cursed or blessed value);
//! after any other moving turn the next position at `c + 1`, which at
//! `c + 1 = N` is a draw unless the turn ended the game; after a placement
//! the next position at counter 0, one turn further.

use crate::error::ProbeError;
use crate::tablebase::Tablebase;
use moulin_core::index::Indexer;
use moulin_core::position::{Node, Position};
use moulin_core::rules::Move;
use moulin_core::sector::Sector;
use moulin_core::value::RuleOutcome;

impl Tablebase {
    /// The no-capture limit of the tables, `None` for tables without the rule.
    pub fn no_capture_limit(&self) -> Option<u16> {
        self.rules().no_capture_limit
    }

    /// The value of a position under the tables' no-capture rule when
    /// `counter` turns have passed since the last capture or placement
    /// (`0 <= counter < N`; always 0 with stones in hand).
    ///
    /// # Errors
    /// [`ProbeError::NoCaptureRule`] for tables without the rule,
    /// [`ProbeError::CounterOutOfRange`] for `counter >= N`,
    /// [`ProbeError::CounterInPlacement`] for a counter other than 0 while a
    /// player has stones in hand, and those of [`Tablebase::probe`].
    ///
    /// # Example
    /// Under a limit of 50 turns a capture on the 50th turn still counts
    /// (`docs/rules.md`): a mover who closes a mill at once wins in 1 at every
    /// counter. The rule table here is the 3 v 3 table of the crate's
    /// example written for `N = 50`; real ones come from `moulin solve
    /// --no-capture-limit 50`.
    ///
    /// ```
    /// use moulin_probe::error::ProbeError;
    /// use moulin_probe::{Position, RuleOutcome, Rules, Tablebase};
    ///
    /// let rules = Rules { no_capture_limit: Some(50), ..Rules::default() };
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), rules)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// assert_eq!(tb.no_capture_limit(), Some(50));
    ///
    /// // White flies g7-g1 and closes a1-d1-g1.
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// assert_eq!(tb.probe_counter(&pos, 0)?, RuleOutcome::Win(1));
    /// assert_eq!(tb.probe_counter(&pos, 49)?, RuleOutcome::Win(1));
    /// assert!(matches!(
    ///     tb.probe_counter(&pos, 50),
    ///     Err(ProbeError::CounterOutOfRange { counter: 50, limit: 50 })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_counter(&self, pos: &Position, counter: u16) -> Result<RuleOutcome, ProbeError> {
        pos.validate()?;
        let node = pos.node();
        let n = self.check_counter(&node, counter)?;
        let stored = self.stored_rule_value(&node)?;
        Ok(if node.us_hand > 0 || node.them_hand > 0 {
            stored
        } else {
            stored.at_counter(n, counter)
        })
    }

    /// Every legal move with its value for the player who makes it, at the
    /// counter it leads to (see the module docs), in the order of
    /// [`Rules::legal_moves`](crate::Rules::legal_moves). Empty when the
    /// game is over.
    ///
    /// # Errors
    /// Those of [`Tablebase::probe_counter`]; an example is at
    /// [`Tablebase::best_moves_counter`].
    pub fn probe_moves_counter(
        &self,
        pos: &Position,
        counter: u16,
    ) -> Result<Vec<(Move, RuleOutcome)>, ProbeError> {
        pos.validate()?;
        let node = pos.node();
        let n = self.check_counter(&node, counter)?;
        let rules = self.rules_for(Sector::of(&node))?;
        let placing = node.us_hand > 0;
        let mut next = Vec::new();
        rules.for_each_move(&node, |m, after| next.push((m, after)));
        next.into_iter()
            .map(|(m, after)| {
                let value = self.stored_rule_value(&after)?;
                let mine = if placing {
                    value.before_move()
                } else if m.remove.is_some() {
                    if rules.is_lost(&after) {
                        RuleOutcome::Win(1)
                    } else {
                        value.by_capture(n)
                    }
                } else if counter + 1 == n {
                    // The counter reaches the limit: a draw, unless the turn
                    // ended the game (the end-of-game rules come first).
                    if rules.is_lost(&after) {
                        RuleOutcome::Win(1)
                    } else {
                        RuleOutcome::Draw
                    }
                } else {
                    value.at_counter(n, counter + 1).before_move()
                };
                Ok((m, mine))
            })
            .collect()
    }

    /// Every move that keeps the value optimal at this counter: the fastest
    /// wins, else the fastest cursed wins, else any draw, else the slowest
    /// blessed losses, else the slowest losses. Empty when the game is over.
    ///
    /// # Errors
    /// Those of [`Tablebase::probe_moves_counter`].
    ///
    /// # Example
    /// At counter `N - 1` a move without a capture reaches the limit: a draw
    /// unless it ends the game. So a mover who can close a mill there has
    /// the captures as its only winning moves. (The rule table is the 3 v 3
    /// table of the crate's example, written for `N = 50`.)
    ///
    /// ```
    /// use moulin_probe::{Position, RuleOutcome, Rules, Tablebase};
    ///
    /// let rules = Rules { no_capture_limit: Some(50), ..Rules::default() };
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), rules)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    ///
    /// for (mv, value) in tb.probe_moves_counter(&pos, 49)? {
    ///     let want = if mv.remove.is_some() { RuleOutcome::Win(1) } else { RuleOutcome::Draw };
    ///     assert_eq!(value, want, "{mv}");
    /// }
    /// let best: Vec<String> = tb.best_moves_counter(&pos, 49)?.iter().map(|m| m.to_string()).collect();
    /// assert_eq!(best, ["g7-g1xb2", "g7-g1xd2", "g7-g1xf6"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn best_moves_counter(
        &self,
        pos: &Position,
        counter: u16,
    ) -> Result<Vec<Move>, ProbeError> {
        let moves = self.probe_moves_counter(pos, counter)?;
        let best = moves.iter().map(|(_, v)| v.rank()).max();
        Ok(moves
            .into_iter()
            .filter(|(_, v)| Some(v.rank()) == best)
            .map(|(m, _)| m)
            .collect())
    }

    /// The limit, after checking that `counter` can occur at `node`.
    fn check_counter(&self, node: &Node, counter: u16) -> Result<u16, ProbeError> {
        let rules = self.rules_for(Sector::of(node))?;
        let n = rules.no_capture_limit.ok_or(ProbeError::NoCaptureRule)?;
        if counter >= n {
            return Err(ProbeError::CounterOutOfRange { counter, limit: n });
        }
        if counter != 0 && (node.us_hand > 0 || node.them_hand > 0) {
            return Err(ProbeError::CounterInPlacement { counter });
        }
        Ok(n)
    }

    /// The stored value (at counter 0) of a valid node of rule tables;
    /// `Loss(0)` when its mover has lost.
    pub(crate) fn stored_rule_value(&self, node: &Node) -> Result<RuleOutcome, ProbeError> {
        let sector = Sector::of(node);
        let rules = self.rules_for(sector)?;
        if rules.no_capture_limit.is_none() {
            return Err(ProbeError::NoCaptureRule);
        }
        if rules.is_lost(node) {
            return Ok(RuleOutcome::Loss(0));
        }
        let slot = Indexer::get().index(node);
        let code = self.class_code(sector, slot)?;
        RuleOutcome::from_code(code).ok_or_else(|| self.hole(sector, slot))
    }
}
