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

use crate::position::Node;
use crate::rules::Rules;
use crate::value::{Outcome, RuleOutcome};

/// Which positions a play set's distance table holds the distances of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PlaySide {
    /// Won positions (wins and cursed wins); losses are rebuilt by one ply.
    Wins,
    /// Lost positions (losses and blessed losses); wins are rebuilt.
    Losses,
    /// Both: in each block the wins' symbols, then the losses'. Nothing is
    /// rebuilt in the sector, so a play set of both sides may leave out
    /// sectors and rebuild them by one ply (`crate::play`).
    Both,
}

impl PlaySide {
    /// `wins` or `losses`.
    pub fn word(self) -> &'static str {
        match self {
            PlaySide::Wins => "wins",
            PlaySide::Losses => "losses",
            PlaySide::Both => "both",
        }
    }

    /// Whether a table of this side stores the distances of `side` (wins
    /// or losses).
    #[inline]
    pub fn holds(self, side: PlaySide) -> bool {
        self == side || self == PlaySide::Both
    }
}

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
/// rule (`docs/rules.md`, the solver's analysis by levels): during placement one
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
        let moving = Node::moving(0b111, 0b111 << 8);
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
        // A quiet move from a won position: a blessed loss past the limit;
        // a capture into a cursed win: a blessed loss N + 1.
        assert_eq!(
            v(&moving, false, RuleOutcome::Win(10)),
            RuleOutcome::BlessedLoss(11)
        );
        assert_eq!(
            v(&moving, true, RuleOutcome::CursedWin(30)),
            RuleOutcome::BlessedLoss(11)
        );
        // During placement every turn counts one, captures too, and past the
        // limit the values stay cursed and blessed.
        assert_eq!(
            v(&placing, true, RuleOutcome::Loss(30)),
            RuleOutcome::Win(31)
        );
        assert_eq!(
            v(&placing, false, RuleOutcome::BlessedLoss(12)),
            RuleOutcome::CursedWin(13)
        );
        assert_eq!(
            move_value(&Rules::default(), &moving, true, RuleOutcome::Loss(30)),
            RuleOutcome::Win(31)
        );
    }
}
