//! Values of positions: the outcome for the player to move with its distance,
//! and the 16-bit code the solver and the tables store per slot.

use std::fmt;

/// The game-theoretic value of a position for the player to move, with the
/// distance in turns (plies) to the end of the game under perfect play:
/// the winner takes the shortest way, the loser the longest.
///
/// # Example
/// ```
/// use moulin_core::Outcome;
///
/// // Moving into a position the opponent loses in 4 is a win in 5.
/// assert_eq!(Outcome::Loss(4).before_move(), Outcome::Win(5));
/// // Better for the mover: faster wins, then draws, then slower losses.
/// assert!(Outcome::Win(3).rank() > Outcome::Win(5).rank());
/// assert!(Outcome::Draw.rank() > Outcome::Loss(100).rank());
/// // The stored code: the parity of the distance tells wins from losses.
/// assert_eq!(Outcome::Win(7).code(), Some(8));
/// assert_eq!(Outcome::from_code(8), Some(Outcome::Win(7)));
/// assert_eq!(Outcome::Win(6).code(), None); // wins take an odd number of turns
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player to move wins in this many turns (odd).
    Win(u16),
    /// The player to move loses in this many turns (even; 0: already lost).
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

/// Stored code of a draw.
pub const DRAW: u16 = 0;
/// Stored code of `Loss(0)`: the player to move has lost.
pub const LOST_NOW: u16 = 1;
/// Stored code of a hole: a slot whose position is stored at another slot.
pub const HOLE: u16 = u16::MAX;
/// Largest distance a code can carry.
pub const MAX_DISTANCE: u16 = u16::MAX - 2;

impl Outcome {
    /// The stored code: 0 draw, `d + 1` for a win or loss in `d` (the parity of
    /// `d` tells which), `u16::MAX` for a hole. `None` for a distance beyond
    /// `MAX_DISTANCE` or of the wrong parity (a win in an even number of
    /// turns): no code stands for it.
    #[inline]
    pub fn code(self) -> Option<u16> {
        match self {
            Outcome::Draw => Some(DRAW),
            Outcome::Win(d) if d % 2 == 1 && d <= MAX_DISTANCE => Some(d + 1),
            Outcome::Loss(d) if d % 2 == 0 && d <= MAX_DISTANCE => Some(d + 1),
            _ => None,
        }
    }

    /// The outcome of a stored code; `None` for a hole.
    #[inline]
    pub fn from_code(code: u16) -> Option<Outcome> {
        match code {
            DRAW => Some(Outcome::Draw),
            HOLE => None,
            c if (c - 1) % 2 == 1 => Some(Outcome::Win(c - 1)),
            c => Some(Outcome::Loss(c - 1)),
        }
    }

    /// What the outcome of the position after a move means for the player who
    /// made it: a loss in `n` for the opponent is a win in `n + 1`.
    #[inline]
    pub fn before_move(self) -> Outcome {
        match self {
            Outcome::Draw => Outcome::Draw,
            Outcome::Win(d) => Outcome::Loss(d.saturating_add(1)),
            Outcome::Loss(d) => Outcome::Win(d.saturating_add(1)),
        }
    }

    /// The distance in turns, `None` for a draw.
    pub fn distance(self) -> Option<u16> {
        match self {
            Outcome::Draw => None,
            Outcome::Win(d) | Outcome::Loss(d) => Some(d),
        }
    }

    /// `win`, `loss` or `draw`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Win(_) => "win",
            Outcome::Loss(_) => "loss",
            Outcome::Draw => "draw",
        }
    }

    /// Orders outcomes from the mover's point of view: a higher rank is
    /// better (faster wins, then draws, then slower losses).
    pub fn rank(self) -> i32 {
        match self {
            Outcome::Win(d) => 1_000_000 - d as i32,
            Outcome::Draw => 0,
            Outcome::Loss(d) => -1_000_000 + d as i32,
        }
    }
}

/// A position's value under the no-capture rule (`docs/rules.md`) at a given
/// counter, in five values, with the distance to conversion (DTC): turns to
/// the next capture or the end of the game, the winner shortest, the loser
/// longest. Rule tables store the value at counter 0; for a position of the
/// moving phase one stored DTC answers every counter (see
/// `RuleOutcome::at_counter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleOutcome {
    /// The player to move wins: it forces a winning conversion within the
    /// turns the counter leaves.
    Win(u16),
    /// Won without the rule, drawn under it (at this counter).
    CursedWin(u16),
    /// Drawn with or without the rule.
    Draw,
    /// Lost without the rule, drawn under it (at this counter).
    BlessedLoss(u16),
    /// The player to move loses before the counter runs out.
    Loss(u16),
}

/// Largest distance a rule code can carry.
pub const MAX_RULE_DISTANCE: u16 = (u16::MAX - 4) / 4 - 1;

impl RuleOutcome {
    /// The stored code of a rule table: 0 draw, `4d + 1` loss, `4d + 2`
    /// win, `4d + 3` blessed loss, `4d + 4` cursed win (the outcome is
    /// stored, not told by the parity of the distance); `None` for a
    /// distance beyond `MAX_RULE_DISTANCE`.
    #[inline]
    pub fn code(self) -> Option<u16> {
        let (d, kind) = match self {
            RuleOutcome::Draw => return Some(DRAW),
            RuleOutcome::Loss(d) => (d, 1),
            RuleOutcome::Win(d) => (d, 2),
            RuleOutcome::BlessedLoss(d) => (d, 3),
            RuleOutcome::CursedWin(d) => (d, 4),
        };
        (d <= MAX_RULE_DISTANCE).then(|| 4 * d + kind)
    }

    /// The value of a stored rule code; `None` for a hole.
    #[inline]
    pub fn from_code(code: u16) -> Option<RuleOutcome> {
        if code == HOLE {
            return None;
        }
        let d = (code.wrapping_sub(1)) / 4;
        Some(match code {
            DRAW => RuleOutcome::Draw,
            c => match (c - 1) % 4 {
                0 => RuleOutcome::Loss(d),
                1 => RuleOutcome::Win(d),
                2 => RuleOutcome::BlessedLoss(d),
                _ => RuleOutcome::CursedWin(d),
            },
        })
    }

    /// The value at counter `c` of a moving-phase position whose value at
    /// counter 0 is `self`, under a limit of `n` turns (`c < n`): a win
    /// (loss) with a DTC of at most `n - c` stays one, a longer one is
    /// drawn at that counter (cursed, blessed). The threshold property of
    /// `docs/rules.md`, checked against a brute force over (position, counter).
    ///
    /// # Example
    /// ```
    /// use moulin_core::RuleOutcome;
    ///
    /// // A capture due in 30 turns, under a limit of 50: in time at counter
    /// // 20, too late at counter 25 (the game is drawn at 50).
    /// assert_eq!(RuleOutcome::Win(30).at_counter(50, 20), RuleOutcome::Win(30));
    /// assert_eq!(RuleOutcome::Win(30).at_counter(50, 25), RuleOutcome::CursedWin(30));
    /// assert_eq!(RuleOutcome::Loss(30).at_counter(50, 25), RuleOutcome::BlessedLoss(30));
    /// ```
    #[inline]
    pub fn at_counter(self, n: u16, c: u16) -> RuleOutcome {
        let left = n.saturating_sub(c);
        match self {
            RuleOutcome::Win(d) if d > left => RuleOutcome::CursedWin(d),
            RuleOutcome::Loss(d) if d > left => RuleOutcome::BlessedLoss(d),
            v => v,
        }
    }

    /// A moving-phase value found by levels under a limit of `n` turns:
    /// past `n` a win is cursed and a loss blessed.
    #[inline]
    pub fn by_level(win: bool, level: u16, n: u16) -> RuleOutcome {
        match (win, level <= n) {
            (true, true) => RuleOutcome::Win(level),
            (true, false) => RuleOutcome::CursedWin(level),
            (false, true) => RuleOutcome::Loss(level),
            (false, false) => RuleOutcome::BlessedLoss(level),
        }
    }

    /// What the value of the position after a move means for the player who
    /// made it (a loss of the opponent is a win, a blessed loss a cursed
    /// win), one turn further.
    #[inline]
    pub fn before_move(self) -> RuleOutcome {
        match self {
            RuleOutcome::Draw => RuleOutcome::Draw,
            RuleOutcome::Win(d) => RuleOutcome::Loss(d.saturating_add(1)),
            RuleOutcome::CursedWin(d) => RuleOutcome::BlessedLoss(d.saturating_add(1)),
            RuleOutcome::BlessedLoss(d) => RuleOutcome::CursedWin(d.saturating_add(1)),
            RuleOutcome::Loss(d) => RuleOutcome::Win(d.saturating_add(1)),
        }
    }

    /// What a capture into a position of this value (at counter 0) is for
    /// the capturer: a conversion, so a DTC of 1, or `n + 1` when it keeps
    /// a cursed or blessed value (Syzygy's way of ordering them).
    #[inline]
    pub fn by_capture(self, n: u16) -> RuleOutcome {
        match self {
            RuleOutcome::Draw => RuleOutcome::Draw,
            RuleOutcome::Loss(_) => RuleOutcome::Win(1),
            RuleOutcome::BlessedLoss(_) => RuleOutcome::CursedWin(n + 1),
            RuleOutcome::CursedWin(_) => RuleOutcome::BlessedLoss(n + 1),
            RuleOutcome::Win(_) => RuleOutcome::Loss(1),
        }
    }

    /// The DTC, `None` for a draw.
    pub fn distance(self) -> Option<u16> {
        match self {
            RuleOutcome::Draw => None,
            RuleOutcome::Win(d)
            | RuleOutcome::CursedWin(d)
            | RuleOutcome::BlessedLoss(d)
            | RuleOutcome::Loss(d) => Some(d),
        }
    }

    /// The outcome under the rule: cursed wins and blessed losses are draws.
    pub fn outcome(self) -> Outcome {
        match self {
            RuleOutcome::Win(d) => Outcome::Win(d),
            RuleOutcome::Loss(d) => Outcome::Loss(d),
            _ => Outcome::Draw,
        }
    }

    /// `win`, `cursed-win`, `draw`, `blessed-loss` or `loss`.
    pub fn word(self) -> &'static str {
        match self {
            RuleOutcome::Win(_) => "win",
            RuleOutcome::CursedWin(_) => "cursed-win",
            RuleOutcome::Draw => "draw",
            RuleOutcome::BlessedLoss(_) => "blessed-loss",
            RuleOutcome::Loss(_) => "loss",
        }
    }

    /// The outcome alone, as a rule outcome table stores it: 0 a draw, 1 a
    /// win, 2 a loss, 3 a cursed win, 4 a blessed loss (the first three as
    /// in a WDL table).
    #[inline]
    pub fn outcome_code(self) -> u16 {
        match self {
            RuleOutcome::Draw => 0,
            RuleOutcome::Win(_) => 1,
            RuleOutcome::Loss(_) => 2,
            RuleOutcome::CursedWin(_) => 3,
            RuleOutcome::BlessedLoss(_) => 4,
        }
    }

    /// The value of an outcome code (`outcome_code`) with the distance
    /// `d` (ignored for a draw); `None` for a code above 4.
    #[inline]
    pub fn from_outcome_code(code: u16, d: u16) -> Option<RuleOutcome> {
        Some(match code {
            0 => RuleOutcome::Draw,
            1 => RuleOutcome::Win(d),
            2 => RuleOutcome::Loss(d),
            3 => RuleOutcome::CursedWin(d),
            4 => RuleOutcome::BlessedLoss(d),
            _ => return None,
        })
    }

    /// Whether the player to move wins without the rule (a win or a cursed
    /// win): the values whose distances a play set stores.
    #[inline]
    pub fn is_winning(self) -> bool {
        matches!(self, RuleOutcome::Win(_) | RuleOutcome::CursedWin(_))
    }

    /// Orders values from the mover's point of view: a higher rank is
    /// better (wins, then cursed wins, draws, blessed losses, losses; the
    /// shorter win and the longer loss first).
    pub fn rank(self) -> i32 {
        match self {
            RuleOutcome::Win(d) => 4_000_000 - d as i32,
            RuleOutcome::CursedWin(d) => 2_000_000 - d as i32,
            RuleOutcome::Draw => 0,
            RuleOutcome::BlessedLoss(d) => -2_000_000 + d as i32,
            RuleOutcome::Loss(d) => -4_000_000 + d as i32,
        }
    }

    /// The value of a rank (`rank`'s inverse); `None` for a number no
    /// value ranks at.
    pub fn from_rank(rank: i32) -> Option<RuleOutcome> {
        let d = |from: i32| u16::try_from(from).ok();
        Some(match rank {
            0 => RuleOutcome::Draw,
            r if r > 3_000_000 => RuleOutcome::Win(d(4_000_000 - r)?),
            r if r > 0 => RuleOutcome::CursedWin(d(2_000_000 - r)?),
            r if r > -3_000_000 => RuleOutcome::BlessedLoss(d(r + 2_000_000)?),
            r => RuleOutcome::Loss(d(r + 4_000_000)?),
        })
    }
}

/// A value without distance, for the player to move: what a WDL table
/// stores, and what a search that needs no distance reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    /// The player to move loses with perfect play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The player to move wins with perfect play.
    Win,
}

impl Wdl {
    /// The value of a WDL table's 2-bit code: 0 a draw, 1 a win, 2 a loss;
    /// `None` for 3, which no table holds.
    #[inline]
    pub fn from_code(code: u16) -> Option<Wdl> {
        match code {
            0 => Some(Wdl::Draw),
            1 => Some(Wdl::Win),
            2 => Some(Wdl::Loss),
            _ => None,
        }
    }

    /// The value of a rule outcome table's code (`RuleOutcome::outcome_code`):
    /// a cursed win or a blessed loss is a draw; `None` above 4.
    #[inline]
    pub fn from_rule_code(code: u16) -> Option<Wdl> {
        match code {
            3 | 4 => Some(Wdl::Draw),
            c => Wdl::from_code(c),
        }
    }

    /// The 2-bit code of a WDL table.
    pub fn code(self) -> u16 {
        match self {
            Wdl::Draw => 0,
            Wdl::Win => 1,
            Wdl::Loss => 2,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn word(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The value of the same game for the other player.
    pub fn flipped(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

impl From<Outcome> for Wdl {
    fn from(o: Outcome) -> Wdl {
        match o {
            Outcome::Win(_) => Wdl::Win,
            Outcome::Loss(_) => Wdl::Loss,
            Outcome::Draw => Wdl::Draw,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl From<Outcome> for RuleOutcome {
    /// A value without the rule, as a rule value (no cursed or blessed one).
    fn from(o: Outcome) -> RuleOutcome {
        match o {
            Outcome::Win(d) => RuleOutcome::Win(d),
            Outcome::Loss(d) => RuleOutcome::Loss(d),
            Outcome::Draw => RuleOutcome::Draw,
        }
    }
}

impl fmt::Display for RuleOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.distance() {
            None => f.write_str("draw"),
            Some(d) => write!(f, "{} {d}", self.word()),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Draw => f.write_str("draw"),
            Outcome::Win(d) | Outcome::Loss(d) => write!(f, "{} {d}", self.word()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_gives_back_its_value_and_nothing_else_has_one() {
        let kinds = [
            RuleOutcome::Win,
            RuleOutcome::CursedWin,
            RuleOutcome::BlessedLoss,
            RuleOutcome::Loss,
        ];
        for d in [0, 1, 2, 999, 65_534, u16::MAX] {
            for v in kinds.map(|kind| kind(d)) {
                assert_eq!(RuleOutcome::from_rank(v.rank()), Some(v));
            }
        }
        assert_eq!(RuleOutcome::from_rank(0), Some(RuleOutcome::Draw));
        // Between and beyond the kinds' ranges: no value.
        for r in [
            i32::MIN,
            -4_000_001,
            -3_000_000,
            -2_000_001,
            -1,
            1,
            1_000_000,
            3_000_000,
            4_000_001,
            i32::MAX,
        ] {
            assert_eq!(RuleOutcome::from_rank(r), None, "{r}");
        }
    }

    #[test]
    fn codes_round_trip_and_keep_parity() {
        for o in [
            Outcome::Draw,
            Outcome::Loss(0),
            Outcome::Win(1),
            Outcome::Loss(26),
            Outcome::Win(301),
        ] {
            assert_eq!(Outcome::from_code(o.code().unwrap()), Some(o));
        }
        // Distances no code can carry are refused, not wrapped to a draw.
        assert_eq!(Outcome::Win(u16::MAX).code(), None);
        assert_eq!(Outcome::Loss(MAX_DISTANCE + 1).code(), None);
        assert_eq!(Outcome::Win(MAX_DISTANCE).code(), Some(u16::MAX - 1));
        assert_eq!(Outcome::Win(4).code(), None);
        assert_eq!(Outcome::Loss(3).code(), None);
        assert_eq!(
            Outcome::Loss(u16::MAX).before_move(),
            Outcome::Win(u16::MAX)
        );
        assert_eq!(Outcome::from_code(HOLE), None);
        assert_eq!(Outcome::Loss(12).before_move(), Outcome::Win(13));
        assert!(Outcome::Win(3).rank() > Outcome::Win(5).rank());
        assert!(Outcome::Loss(8).rank() > Outcome::Loss(2).rank());
        assert!(Outcome::Draw.rank() > Outcome::Loss(100).rank());
    }

    #[test]
    fn rule_codes_round_trip_and_keep_the_outcome() {
        let mut seen = std::collections::HashSet::new();
        for d in [0, 1, 2, 3, 50, 51, 255, 256, MAX_RULE_DISTANCE] {
            for v in [
                RuleOutcome::Win(d),
                RuleOutcome::CursedWin(d),
                RuleOutcome::BlessedLoss(d),
                RuleOutcome::Loss(d),
                RuleOutcome::Draw,
            ] {
                let code = v.code().unwrap();
                assert_ne!(code, HOLE);
                assert_eq!(RuleOutcome::from_code(code), Some(v), "{v}");
                seen.insert((code, v));
            }
        }
        // Distinct values never share a code.
        let codes: std::collections::HashSet<u16> = seen.iter().map(|&(c, _)| c).collect();
        let values: std::collections::HashSet<RuleOutcome> = seen.iter().map(|&(_, v)| v).collect();
        assert_eq!(codes.len(), values.len());
        assert_eq!(RuleOutcome::Loss(0).code(), Some(LOST_NOW));
        assert_eq!(RuleOutcome::Win(MAX_RULE_DISTANCE + 1).code(), None);
        assert_eq!(RuleOutcome::from_code(HOLE), None);
        // Every code but the hole is some value.
        for code in 0..HOLE {
            assert!(RuleOutcome::from_code(code).is_some());
        }
    }

    #[test]
    fn the_threshold_reads_a_counter() {
        // N = 10: a win in 4 holds up to counter 6, then is drawn.
        assert_eq!(RuleOutcome::Win(4).at_counter(10, 6), RuleOutcome::Win(4));
        assert_eq!(
            RuleOutcome::Win(4).at_counter(10, 7),
            RuleOutcome::CursedWin(4)
        );
        assert_eq!(
            RuleOutcome::Loss(10).at_counter(10, 0),
            RuleOutcome::Loss(10)
        );
        assert_eq!(
            RuleOutcome::Loss(10).at_counter(10, 1),
            RuleOutcome::BlessedLoss(10)
        );
        assert_eq!(RuleOutcome::Loss(0).at_counter(10, 9), RuleOutcome::Loss(0));
        assert_eq!(RuleOutcome::Draw.at_counter(10, 9), RuleOutcome::Draw);
        assert_eq!(
            RuleOutcome::by_level(true, 11, 10),
            RuleOutcome::CursedWin(11)
        );
        assert_eq!(RuleOutcome::by_level(false, 10, 10), RuleOutcome::Loss(10));
        assert_eq!(
            RuleOutcome::BlessedLoss(7).before_move(),
            RuleOutcome::CursedWin(8)
        );
        assert_eq!(RuleOutcome::Loss(30).by_capture(10), RuleOutcome::Win(1));
        assert_eq!(
            RuleOutcome::CursedWin(30).by_capture(10),
            RuleOutcome::BlessedLoss(11)
        );
        let order = [
            RuleOutcome::Win(1),
            RuleOutcome::Win(9),
            RuleOutcome::CursedWin(11),
            RuleOutcome::CursedWin(40),
            RuleOutcome::Draw,
            RuleOutcome::BlessedLoss(40),
            RuleOutcome::BlessedLoss(11),
            RuleOutcome::Loss(9),
            RuleOutcome::Loss(0),
        ];
        for w in order.windows(2) {
            assert!(w[0].rank() > w[1].rank(), "{} before {}", w[0], w[1]);
        }
    }
}
