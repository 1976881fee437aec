//! Values of positions: the outcome for the player to move with its distance,
//! and the 16-bit code the solver and the tables store per slot.

use std::fmt;

/// The game-theoretic value of a position for the player to move, with the
/// distance in turns (plies) to the end of the game under perfect play:
/// the winner takes the shortest way, the loser the longest.
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
}
