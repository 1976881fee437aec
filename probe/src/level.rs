//! Playing levels for front ends: `Tablebase::choose_move` plays perfectly
//! and varied at the top level and errs at a documented rate below it,
//! preferring the mistakes a person would make.
//!
//! Randomness comes from a `XorShiftRng` seeded with the caller's seed
//! (`rand_xorshift`, a documented, portable generator): the same position,
//! level and seed always give the same move, on every platform, wasm
//! included; nothing reads the operating system's randomness.

use crate::advice::{AdviceOptions, MoveAdvice};
use crate::error::ProbeError;
use crate::tablebase::Tablebase;
use moulin_core::position::Position;
use moulin_core::rules::Move;
use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;

/// A playing level, from 0 (weakest) to [`Level::TOP`] (perfect play).
///
/// At each turn a level below the top errs with the chance
/// [`Level::error_rate`] when it has a move worse than the best value; when
/// it does not err it plays as the top level does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// Chance of a mistake per turn, by level.
const ERROR_RATES: [f64; 6] = [0.5, 0.35, 0.2, 0.1, 0.05, 0.0];

/// How far below the best error chance a best-value move may be and still be
/// chosen by the top level (absolute, as a chance): the variety margin.
pub const VARIETY_MARGIN: f64 = 0.1;

impl Level {
    /// The strongest level: perfect, varied play.
    pub const TOP: Level = Level(5);
    /// The weakest level.
    pub const BOTTOM: Level = Level(0);

    /// The level `n` (0..=5), `None` beyond.
    pub fn new(n: u8) -> Option<Level> {
        (n <= Level::TOP.0).then_some(Level(n))
    }

    /// The level's number, 0..=5.
    pub fn number(self) -> u8 {
        self.0
    }

    /// The chance of a mistake at a turn that offers one: 50 %, 35 %, 20 %,
    /// 10 %, 5 % and 0 % for levels 0 to 5.
    pub fn error_rate(self) -> f64 {
        ERROR_RATES[self.0 as usize]
    }
}

impl Tablebase {
    /// A move for the player to move at this level, reproducible from the
    /// seed; `None` when the game is over. The draws depend on the seed and
    /// the position, so a front end may keep one seed for a whole game.
    ///
    /// - Without a mistake (always at the top level): the best-value moves
    ///   are ranked by practical chances (`advise`, two plies); one is drawn
    ///   uniformly among those whose `error_chance` is within
    ///   [`VARIETY_MARGIN`] of the largest, so that play is perfect, aims at
    ///   the opponent's mistakes and does not repeat the same game.
    /// - A mistake (chance `level.error_rate()`, drawn at every turn that has
    ///   a move worse than the best value): the worse moves are grouped by
    ///   value, best value first; the `i`-th group is drawn with weight
    ///   `2^-i` (so the mistake that loses least is the most likely, as a
    ///   person's would be), then a move uniformly within the group.
    ///
    /// # Errors
    /// Those of [`Tablebase::advise`].
    ///
    /// # Example
    /// The top level never gives up value: where a capture wins at once it
    /// plays one, whatever the seed. (The table is the 3 v 3 table of the
    /// crate's example.)
    ///
    /// ```
    /// use moulin_probe::{Level, Position, Rules, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// for seed in 0..4 {
    ///     let mv = tb.choose_move(&pos, Level::TOP, seed)?.expect("White can move");
    ///     assert!(mv.remove.is_some(), "{mv}");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_move(
        &self,
        pos: &Position,
        level: Level,
        seed: u64,
    ) -> Result<Option<Move>, ProbeError> {
        let advice = self.advise(pos, &AdviceOptions::default())?;
        let mut rng = XorShiftRng::seed_from_u64(seed ^ position_key(pos));
        Ok(choose(&advice, level, &mut rng))
    }
}

/// A 64-bit key of a position mixed into the seed, so that one seed for a
/// whole game still draws independently at each position (splitmix64's
/// finaliser over the stones, hands and side).
fn position_key(pos: &Position) -> u64 {
    let x = pos.white as u64
        | (pos.black as u64) << 24
        | (pos.white_hand as u64) << 48
        | (pos.black_hand as u64) << 52
        | ((pos.side == moulin_core::position::Side::Black) as u64) << 56;
    moulin_core::seeded::splitmix64(x)
}

/// The choice of `choose_move` among advice sorted best first.
pub(crate) fn choose(advice: &[MoveAdvice], level: Level, rng: &mut XorShiftRng) -> Option<Move> {
    let top = advice.first()?.outcome.rank();
    let best = advice
        .iter()
        .take_while(|a| a.outcome.rank() == top)
        .count();
    let (best, worse) = advice.split_at(best);
    let err = rng.random_bool(level.error_rate());
    if err && !worse.is_empty() {
        // Groups of equal value, best first, with weights 2^-i.
        let mut groups: Vec<&[MoveAdvice]> = Vec::new();
        let mut rest = worse;
        while let Some(first) = rest.first() {
            let n = rest
                .iter()
                .take_while(|a| a.outcome.rank() == first.outcome.rank())
                .count();
            let (group, tail) = rest.split_at(n);
            groups.push(group);
            rest = tail;
        }
        let total: f64 = (0..groups.len()).map(|i| 0.5f64.powi(i as i32)).sum();
        let mut x = rng.random_range(0.0..total);
        for (i, group) in groups.iter().enumerate() {
            let w = 0.5f64.powi(i as i32);
            if x < w || i + 1 == groups.len() {
                return Some(group[rng.random_range(0..group.len())].mv);
            }
            x -= w;
        }
    }
    let most = best[0].chances.error_chance;
    let near = best
        .iter()
        .take_while(|a| a.chances.error_chance >= most - VARIETY_MARGIN)
        .count();
    Some(best[rng.random_range(0..near)].mv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_rates() {
        assert_eq!(Level::new(6), None);
        assert_eq!(Level::new(5), Some(Level::TOP));
        assert_eq!(Level::TOP.error_rate(), 0.0);
        assert_eq!(Level::BOTTOM.error_rate(), 0.5);
        let rates: Vec<f64> = (0..=5).map(|n| Level(n).error_rate()).collect();
        assert!(rates.windows(2).all(|w| w[0] > w[1]));
    }
}
