//! What the passes store: distances to win (`Outcome` codes) without the
//! no-capture rule, distances to conversion (`RuleOutcome` codes) under it.
//! The passes are the same for both; only what a capture means and how a
//! resolved position is coded differ, and they live here.

use moulin_core::value::HOLE;
use moulin_probe::{Outcome, RuleOutcome, Rules};

/// How a pass values and codes positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Distance to win, no counter: codes of `Outcome`.
    Dtw,
    /// Distance to conversion under a limit of `N` turns without a capture:
    /// codes of `RuleOutcome`, levels past `N` cursed or blessed.
    Dtc(u16),
}

/// What a capture means for the capturer, as a level of the analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// The capture wins at this level.
    Win(u16),
    /// The capture loses at this level.
    Loss(u16),
    /// The capture draws.
    Draw,
}

/// Highest level a pass may reach: resolved codes stay below the
/// `UNRESOLVED` bit of the moving pass (`0x8000`).
pub const MAX_LEVEL: u16 = 8000;

impl Scheme {
    /// The scheme of a rule set.
    pub fn of(rules: &Rules) -> Scheme {
        match rules.no_capture_limit {
            None => Scheme::Dtw,
            Some(n) => Scheme::Dtc(n),
        }
    }
}

/// What the passes need of a scheme. Implemented by one type per scheme, so
/// that the passes are compiled once for each (the distance-to-win pass as
/// tight as before the rule existed).
pub trait Codes: Copy + Send + Sync {
    /// What a capture into a position with `code` (the opponent to move, at
    /// counter 0) is for the capturer.
    fn capture(self, code: u16) -> Conversion;

    /// The code of a moving-phase position won (or lost) at `level`.
    fn code(self, win: bool, level: u16) -> u16;

    /// Orders successor codes by their value for the player who moves
    /// there (a placement: counter 0 after it): a lower key is better for
    /// the mover. Holes come last.
    fn placement_key(self, code: u16) -> u32;

    /// The code of a placement position whose best successor has `code`:
    /// that value seen before the move, one turn further.
    fn before_move(self, code: u16) -> u16;
}

/// Distances to win: `Outcome` codes, the parity of a level tells the outcome.
#[derive(Clone, Copy, Debug)]
pub struct Dtw;

/// Distances to conversion under a limit of this many turns: `RuleOutcome`
/// codes.
#[derive(Clone, Copy, Debug)]
pub struct Dtc(pub u16);

impl Codes for Dtw {
    /// The distances add up.
    #[inline]
    fn capture(self, code: u16) -> Conversion {
        match Outcome::from_code(code) {
            Some(Outcome::Loss(d)) => Conversion::Win(d + 1),
            Some(Outcome::Win(d)) => Conversion::Loss(d + 1),
            Some(Outcome::Draw) => Conversion::Draw,
            None => unreachable!("index never yields a hole"),
        }
    }

    #[inline]
    fn code(self, _win: bool, level: u16) -> u16 {
        debug_assert!(level < MAX_LEVEL);
        level + 1
    }

    /// Losses by distance, then draws, then wins, slowest first.
    #[inline]
    fn placement_key(self, code: u16) -> u32 {
        match code {
            HOLE => u32::MAX,
            0 => 1 << 16,
            c if c % 2 == 1 => c as u32,
            c => (2 << 16) - c as u32,
        }
    }

    #[inline]
    fn before_move(self, code: u16) -> u16 {
        Outcome::from_code(code)
            .expect("not a hole")
            .before_move()
            .code()
            .expect("a distance a code carries")
    }
}

impl Codes for Dtc {
    /// A capture is a conversion: level 1, or `N + 1` when it lands in a
    /// cursed or blessed value (Syzygy's `CAPT_CWIN`).
    #[inline]
    fn capture(self, code: u16) -> Conversion {
        let n = self.0;
        match RuleOutcome::from_code(code) {
            Some(RuleOutcome::Loss(_)) => Conversion::Win(1),
            Some(RuleOutcome::BlessedLoss(_)) => Conversion::Win(n + 1),
            Some(RuleOutcome::Draw) => Conversion::Draw,
            Some(RuleOutcome::CursedWin(_)) => Conversion::Loss(n + 1),
            Some(RuleOutcome::Win(_)) => Conversion::Loss(1),
            None => unreachable!("index never yields a hole"),
        }
    }

    #[inline]
    fn code(self, win: bool, level: u16) -> u16 {
        assert!(
            level < MAX_LEVEL,
            "level {level}: distances this long do not fit"
        );
        RuleOutcome::by_level(win, level, self.0)
            .code()
            .expect("levels below MAX_LEVEL fit a code")
    }

    #[inline]
    fn placement_key(self, code: u16) -> u32 {
        match RuleOutcome::from_code(code) {
            None => u32::MAX,
            Some(v) => (5_000_000 - v.before_move().rank()) as u32,
        }
    }

    #[inline]
    fn before_move(self, code: u16) -> u16 {
        RuleOutcome::from_code(code)
            .expect("not a hole")
            .before_move()
            .code()
            .expect("a distance a code carries")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_codes_of_levels() {
        let s = Dtc(10);
        assert_eq!(
            RuleOutcome::from_code(s.code(true, 10)),
            Some(RuleOutcome::Win(10))
        );
        assert_eq!(
            RuleOutcome::from_code(s.code(true, 11)),
            Some(RuleOutcome::CursedWin(11))
        );
        assert_eq!(
            RuleOutcome::from_code(s.code(false, 1)),
            Some(RuleOutcome::Loss(1))
        );
        assert_eq!(
            RuleOutcome::from_code(s.code(false, 12)),
            Some(RuleOutcome::BlessedLoss(12))
        );
        let code = |v: RuleOutcome| v.code().unwrap();
        assert_eq!(s.capture(code(RuleOutcome::Loss(7))), Conversion::Win(1));
        assert_eq!(
            s.capture(code(RuleOutcome::BlessedLoss(17))),
            Conversion::Win(11)
        );
        assert_eq!(
            s.capture(code(RuleOutcome::CursedWin(17))),
            Conversion::Loss(11)
        );
        assert_eq!(s.capture(code(RuleOutcome::Win(3))), Conversion::Loss(1));
        assert_eq!(s.capture(0), Conversion::Draw);
        assert_eq!(Dtw.code(true, 5), Outcome::Win(5).code().unwrap());
    }

    #[test]
    fn placement_keys_follow_ranks() {
        let values = [
            RuleOutcome::Win(1),
            RuleOutcome::Win(30),
            RuleOutcome::CursedWin(12),
            RuleOutcome::Draw,
            RuleOutcome::BlessedLoss(12),
            RuleOutcome::BlessedLoss(40),
            RuleOutcome::Loss(0),
            RuleOutcome::Loss(9),
        ];
        let s = Dtc(10);
        for x in values {
            for y in values {
                let by_key =
                    s.placement_key(x.code().unwrap()) < s.placement_key(y.code().unwrap());
                let by_rank = x.before_move().rank() > y.before_move().rank();
                assert_eq!(by_key, by_rank, "{x} vs {y}");
            }
        }
        assert_eq!(
            s.before_move(RuleOutcome::BlessedLoss(12).code().unwrap()),
            RuleOutcome::CursedWin(13).code().unwrap()
        );
    }
}
