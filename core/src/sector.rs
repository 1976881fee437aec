//! Sectors: the classes of positions with the same stone counts, seen from the
//! player to move, and the order in which they can be solved.

use crate::position::{captures_possible, Node, STONES};
use std::fmt;
use std::str::FromStr;

/// Stones on the board and in hand for the player to move and the opponent.
///
/// Each sector has its own table, named after it: `8v7` for a sector of the
/// moving phase, `3v2h5v4` with stones in hand (board, then hand; the
/// player to move first).
///
/// # Example
/// ```
/// use moulin_core::{Position, Sector};
///
/// let start = Sector::of(&Position::start().node());
/// assert_eq!(start.name(), "0v0h9v9");
/// assert_eq!("8v7".parse::<Sector>()?, Sector::moving(8, 7));
/// // The moving phase: 3 to 9 stones a side, 7 x 7 sectors.
/// assert_eq!(Sector::all(false).len(), 49);
/// # Ok::<(), moulin_core::sector::SectorNameError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sector {
    /// Stones on the board of the player to move.
    pub stm_board: u8,
    /// Stones on the board of the opponent.
    pub opp_board: u8,
    /// Stones in hand of the player to move.
    pub stm_hand: u8,
    /// Stones in hand of the opponent.
    pub opp_hand: u8,
}

impl Sector {
    /// A moving-phase sector (both hands empty).
    pub const fn moving(stm_board: u8, opp_board: u8) -> Sector {
        Sector {
            stm_board,
            opp_board,
            stm_hand: 0,
            opp_hand: 0,
        }
    }

    /// The sector of a position.
    pub fn of(node: &Node) -> Sector {
        Sector {
            stm_board: node.us.count_ones() as u8,
            opp_board: node.them.count_ones() as u8,
            stm_hand: node.us_hand,
            opp_hand: node.them_hand,
        }
    }

    /// Whether both hands are empty.
    pub fn is_moving(&self) -> bool {
        self.stm_hand == 0 && self.opp_hand == 0
    }

    /// The sector with the other player to move (the moving-phase partner).
    pub fn mirrored(&self) -> Sector {
        Sector {
            stm_board: self.opp_board,
            opp_board: self.stm_board,
            stm_hand: self.opp_hand,
            opp_hand: self.stm_hand,
        }
    }

    /// Whether this is a sector of the game: stone counts a game can reach
    /// (possibly a few more, see `all`) where the player to move has not lost
    /// by material.
    pub fn is_valid(&self) -> bool {
        // Wide enough that no count read from a damaged file can overflow.
        let [a, b, hs, ho] =
            [self.stm_board, self.opp_board, self.stm_hand, self.opp_hand].map(u32::from);
        let stones = u32::from(STONES);
        let hands_ok = (hs == 0 && ho == 0) || hs == ho || hs == ho + 1;
        if !hands_ok || hs > stones || ho > stones {
            return false;
        }
        if a + hs < 3 || b + ho < 3 || a + hs > stones || b + ho > stones {
            return false;
        }
        if self.is_moving() {
            return true;
        }
        self.captures_possible()
    }

    /// Whether the stones missing from the board could have been captured:
    /// during placement each capture needs a new mill of the capturer, so a
    /// side that has placed `n` stones has captured at most `n - 2`. (Always
    /// true once both hands are empty, where any counts can arise.)
    pub fn captures_possible(&self) -> bool {
        let (board, hand) = (
            [self.stm_board, self.opp_board],
            [self.stm_hand, self.opp_hand],
        );
        captures_possible(board, hand)
    }

    /// The short name used in file names: `8v7` for a moving sector, `3v2h5v4`
    /// with stones in hand.
    pub fn name(&self) -> String {
        self.to_string()
    }

    /// Total stones in hand, the placement phase's solving order.
    pub fn hand_total(&self) -> u8 {
        self.stm_hand + self.opp_hand
    }

    /// The sectors a turn from this one leads into (captures included, lost
    /// positions excluded), itself included for moving sectors.
    pub fn successors(&self) -> Vec<Sector> {
        let mut out = Vec::new();
        let (a, b, hs, ho) = (self.stm_board, self.opp_board, self.stm_hand, self.opp_hand);
        let (a2, hs2) = if hs > 0 { (a + 1, hs - 1) } else { (a, 0) };
        for captured in [0, 1] {
            if captured > b {
                continue;
            }
            let next = Sector {
                stm_board: b - captured,
                opp_board: a2,
                stm_hand: ho,
                opp_hand: hs2,
            };
            if next.stm_board + next.stm_hand >= 3 && next.is_valid() {
                out.push(next);
            }
        }
        out
    }

    /// Every sector of the game in solving order: every sector comes after
    /// those its turns lead into, except its moving-phase partner, which comes
    /// right after it and is solved with it. With `placement` false, only the
    /// 49 moving-phase sectors.
    pub fn all(placement: bool) -> Vec<Sector> {
        let mut out = Vec::new();
        for total in 6..=2 * STONES {
            for a in 3..=STONES.min(total) {
                let b = total - a;
                if (3..=STONES).contains(&b) {
                    out.push(Sector::moving(a, b));
                }
            }
        }
        if placement {
            let mut hands = Vec::new();
            for h in 0..STONES {
                hands.push((h + 1, h));
                hands.push((h + 1, h + 1));
            }
            for (hs, ho) in hands {
                for a in 0..=STONES {
                    for b in 0..=STONES {
                        let s = Sector {
                            stm_board: a,
                            opp_board: b,
                            stm_hand: hs,
                            opp_hand: ho,
                        };
                        if s.is_valid() {
                            out.push(s);
                        }
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for Sector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.stm_board, self.opp_board)?;
        if !self.is_moving() {
            write!(f, "h{}v{}", self.stm_hand, self.opp_hand)?;
        }
        Ok(())
    }
}

/// A sector name that is not of the form `8v7` or `3v2h5v4`, or not a sector of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectorNameError(pub String);

impl fmt::Display for SectorNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a sector of the game (expected e.g. `8v7` or `3v2h5v4`)",
            self.0
        )
    }
}

impl std::error::Error for SectorNameError {}

impl FromStr for Sector {
    type Err = SectorNameError;

    fn from_str(text: &str) -> Result<Sector, SectorNameError> {
        let err = || SectorNameError(text.into());
        let pair = |s: &str| -> Result<(u8, u8), SectorNameError> {
            let (x, y) = s.split_once('v').ok_or_else(err)?;
            Ok((x.parse().map_err(|_| err())?, y.parse().map_err(|_| err())?))
        };
        let (board, hand) = match text.split_once('h') {
            Some((b, h)) => (pair(b)?, pair(h)?),
            None => (pair(text)?, (0, 0)),
        };
        let s = Sector {
            stm_board: board.0,
            opp_board: board.1,
            stm_hand: hand.0,
            opp_hand: hand.1,
        };
        if s.is_valid() && s.to_string() == text {
            Ok(s)
        } else {
            Err(err())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_nine_moving_sectors_in_dependency_order() {
        let all = Sector::all(false);
        assert_eq!(all.len(), 49);
        let with_placement = Sector::all(true);
        for (i, s) in with_placement.iter().enumerate() {
            for next in s.successors() {
                let j = with_placement.iter().position(|x| *x == next).unwrap();
                assert!(j < i || next == s.mirrored(), "{s} needs {next}");
            }
            assert_eq!(s.name().parse::<Sector>().unwrap(), *s);
        }
    }

    #[test]
    fn names_parse_and_bad_names_are_refused() {
        assert_eq!("8v7".parse::<Sector>().unwrap(), Sector::moving(8, 7));
        for bad in ["", "8v", "2v3", "10v3", "3v3h0v0", "3v3h1v3", "abc"] {
            assert!(bad.parse::<Sector>().is_err(), "{bad}");
        }
    }
}
