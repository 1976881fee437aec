//! Positions: stones of each colour, stones in hand and the side to move, with
//! the text format of `docs/rules.md` (`W:a1,d1 B:g7 b 7 8`).

use crate::board::{points, Bitboard, Point, ALL_POINTS};
use std::fmt;
use std::str::FromStr;

/// Stones per player at the start of the game.
pub const STONES: u8 = 9;

/// A player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The player who places first.
    White,
    /// The second player.
    Black,
}

impl Side {
    /// The other player.
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// `w` or `b`.
    pub fn letter(self) -> char {
        match self {
            Side::White => 'w',
            Side::Black => 'b',
        }
    }
}

/// A position as players see it: each colour's stones on the board and in
/// hand, and whose turn it is.
///
/// Parsed from and printed as the text format of `docs/rules.md`:
/// `W:<points> B:<points> <side> [<white in hand> <black in hand>]`,
/// omitted hands meaning none. Parsing checks the rules' invariants
/// ([`Position::validate`]) and says what is wrong; printing lists the
/// points in the canonical order and parses back to the same position.
///
/// # Example
/// ```
/// use moulin_core::{Position, PositionError, Side};
///
/// let start: Position = "W: B: w 9 9".parse()?;
/// assert_eq!(start, Position::start());
///
/// // The capture example of `docs/rules.md`: six stones each, all placed.
/// let pos: Position = "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w".parse()?;
/// assert_eq!((pos.white.count_ones(), pos.black.count_ones()), (6, 6));
/// assert_eq!((pos.white_hand, pos.black_hand, pos.side), (0, 0, Side::White));
/// assert_eq!(pos.to_string(), "W:g1,b2,d2,a4,c4,e5 B:c3,e4,g4,b6,d6,f6 w");
///
/// // White places first: with equal hands Black cannot be to move.
/// let err = "W: B: b 9 9".parse::<Position>().unwrap_err();
/// assert!(matches!(err, PositionError::ImpossibleHands { .. }));
/// # Ok::<(), PositionError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// White stones on the board.
    pub white: Bitboard,
    /// Black stones on the board.
    pub black: Bitboard,
    /// White stones still to be placed.
    pub white_hand: u8,
    /// Black stones still to be placed.
    pub black_hand: u8,
    /// The player to move.
    pub side: Side,
}

/// A position seen from the player to move ("us"): what the solver and the
/// index work with, since the value of a position does not depend on colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node {
    /// Stones of the player to move.
    pub us: Bitboard,
    /// Stones of the opponent.
    pub them: Bitboard,
    /// Stones in hand of the player to move.
    pub us_hand: u8,
    /// Stones in hand of the opponent.
    pub them_hand: u8,
}

impl Node {
    /// A node of the moving phase: these stones on the board, none in hand.
    pub fn moving(us: Bitboard, them: Bitboard) -> Node {
        Node {
            us,
            them,
            us_hand: 0,
            them_hand: 0,
        }
    }

    /// Stones of the player to move, on the board and in hand.
    pub fn us_total(&self) -> u32 {
        self.us.count_ones() + self.us_hand as u32
    }

    /// Stones of the opponent, on the board and in hand.
    pub fn them_total(&self) -> u32 {
        self.them.count_ones() + self.them_hand as u32
    }

    /// A colour to move that the hands allow: White when they are equal
    /// (White places first; also the convention once both are empty),
    /// Black when the mover has one stone more in hand.
    pub fn side_by_hands(&self) -> Side {
        if self.us_hand == self.them_hand {
            Side::White
        } else {
            Side::Black
        }
    }

    /// The same position with the other player to move.
    pub fn swapped(&self) -> Node {
        Node {
            us: self.them,
            them: self.us,
            us_hand: self.them_hand,
            them_hand: self.us_hand,
        }
    }
}

impl Position {
    /// The start of the game: empty board, nine stones in hand each, White to move.
    pub fn start() -> Position {
        Position {
            white: 0,
            black: 0,
            white_hand: STONES,
            black_hand: STONES,
            side: Side::White,
        }
    }

    /// The position seen from the player to move.
    pub fn node(&self) -> Node {
        match self.side {
            Side::White => Node {
                us: self.white,
                them: self.black,
                us_hand: self.white_hand,
                them_hand: self.black_hand,
            },
            Side::Black => Node {
                us: self.black,
                them: self.white,
                us_hand: self.black_hand,
                them_hand: self.white_hand,
            },
        }
    }

    /// Rebuilds a position from the mover's view and the mover's colour.
    pub fn from_node(node: Node, side: Side) -> Position {
        let (white, black, white_hand, black_hand) = match side {
            Side::White => (node.us, node.them, node.us_hand, node.them_hand),
            Side::Black => (node.them, node.us, node.them_hand, node.us_hand),
        };
        Position {
            white,
            black,
            white_hand,
            black_hand,
            side,
        }
    }

    /// Checks the invariants of `docs/rules.md`; the error names what is wrong.
    ///
    /// # Errors
    /// [`PositionError::UnknownPoint`] for a bit outside the 24 points,
    /// [`PositionError::PointTwice`] for a point of both colours,
    /// [`PositionError::TooManyStones`], [`PositionError::ImpossibleHands`],
    /// [`PositionError::Unreachable`] for stones no game leaves (more
    /// missing than the other side's mills could have captured), and
    /// [`PositionError::FinishedEarlier`] when the player not to move has
    /// fewer than three stones.
    pub fn validate(&self) -> Result<(), PositionError> {
        if self.white & !ALL_POINTS != 0 || self.black & !ALL_POINTS != 0 {
            return Err(PositionError::UnknownPoint(
                "(bit outside the board)".into(),
            ));
        }
        if let Some(p) = points(self.white & self.black).next() {
            return Err(PositionError::PointTwice(p.name().into()));
        }
        for (side, board, hand) in [
            (Side::White, self.white, self.white_hand),
            (Side::Black, self.black, self.black_hand),
        ] {
            if board.count_ones() + hand as u32 > STONES as u32 {
                return Err(PositionError::TooManyStones {
                    side,
                    board: board.count_ones() as u8,
                    hand,
                });
            }
        }
        let (w, b) = (self.white_hand, self.black_hand);
        let hands_ok = match self.side {
            _ if w == 0 && b == 0 => true,
            Side::White => w == b,
            Side::Black => b == w + 1,
        };
        if !hands_ok {
            return Err(PositionError::ImpossibleHands {
                side: self.side,
                white_hand: w,
                black_hand: b,
            });
        }
        let waiting = self.side.opponent();
        let node = self.node();
        let board = [node.us.count_ones() as u8, node.them.count_ones() as u8];
        if !captures_possible(board, [node.us_hand, node.them_hand]) {
            return Err(PositionError::Unreachable(self.side));
        }
        if node.them_total() < 3 {
            return Err(PositionError::FinishedEarlier(waiting));
        }
        Ok(())
    }
}

/// Why a position or a move text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The text does not have the shape `W:<points> B:<points> <side> [<w> <b>]`.
    Syntax(String),
    /// A point name that is not one of the 24.
    UnknownPoint(String),
    /// The same point listed twice.
    PointTwice(String),
    /// More than nine stones of one colour, counting the hand.
    TooManyStones {
        /// The colour.
        side: Side,
        /// Its stones on the board.
        board: u8,
        /// Its stones in hand.
        hand: u8,
    },
    /// Hand counts that the alternation of placement cannot produce.
    ImpossibleHands {
        /// The player to move.
        side: Side,
        /// White's hand.
        white_hand: u8,
        /// Black's hand.
        black_hand: u8,
    },
    /// A side letter other than `w` or `b`.
    BadSide(String),
    /// The player not to move has fewer than three stones: the game ended on their turn.
    FinishedEarlier(Side),
    /// Stones in hand and on the board that no game can produce: more
    /// stones missing than the other side's mills could have captured.
    Unreachable(Side),
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "White",
        Side::Black => "Black",
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Syntax(msg) => write!(f, "malformed position: {msg}"),
            PositionError::UnknownPoint(p) => write!(f, "unknown point `{p}`"),
            PositionError::PointTwice(p) => write!(f, "point {p} is listed twice"),
            PositionError::TooManyStones { side, board, hand } => write!(
                f,
                "{} has {board} stones on the board and {hand} in hand, more than 9",
                side_name(*side)
            ),
            PositionError::ImpossibleHands {
                side,
                white_hand,
                black_hand,
            } => write!(
                f,
                "impossible hand counts {white_hand} {black_hand} with {} to move \
                 (White to move needs equal hands, Black to move one more than White)",
                side_name(*side)
            ),
            PositionError::BadSide(s) => write!(f, "bad side `{s}` (expected `w` or `b`)"),
            PositionError::Unreachable(_) => f.write_str(
                "no game reaches this position: more stones are missing from the board \
                 than the opponent's placements could have captured (each capture needs \
                 a new mill, so at most the stones placed minus two)",
            ),
            PositionError::FinishedEarlier(side) => write!(
                f,
                "{} has fewer than three stones but it is not their turn: the game ended before",
                side_name(*side)
            ),
        }
    }
}

impl std::error::Error for PositionError {}

fn parse_points(list: &str) -> Result<Bitboard, PositionError> {
    let mut bb = 0;
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let p = Point::from_name(name).ok_or_else(|| PositionError::UnknownPoint(name.into()))?;
        if bb & p.bit() != 0 {
            return Err(PositionError::PointTwice(name.into()));
        }
        bb |= p.bit();
    }
    Ok(bb)
}

fn parse_hand(text: &str) -> Result<u8, PositionError> {
    text.parse::<u8>()
        .ok()
        .filter(|&n| n <= STONES)
        .ok_or_else(|| PositionError::Syntax(format!("bad hand count `{text}` (expected 0..9)")))
}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses and validates (`Position::validate`) a position.
    fn from_str(text: &str) -> Result<Position, PositionError> {
        let pos = Position::parse_unvalidated(text)?;
        pos.validate()?;
        Ok(pos)
    }
}

impl Position {
    /// Parses a position's text without the game's invariants (only its
    /// syntax, point names and points listed twice): for reduced games with
    /// fewer stones. Anything else should use `str::parse`.
    pub fn parse_unvalidated(text: &str) -> Result<Position, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 3 && fields.len() != 5 {
            return Err(PositionError::Syntax(format!(
                "expected `W:<points> B:<points> <w|b> [<white hand> <black hand>]`, got {} fields",
                fields.len()
            )));
        }
        let white = fields[0]
            .strip_prefix("W:")
            .ok_or_else(|| PositionError::Syntax("the first field must start with `W:`".into()))?;
        let black = fields[1]
            .strip_prefix("B:")
            .ok_or_else(|| PositionError::Syntax("the second field must start with `B:`".into()))?;
        let side = match fields[2] {
            "w" => Side::White,
            "b" => Side::Black,
            other => return Err(PositionError::BadSide(other.into())),
        };
        let (white_hand, black_hand) = if fields.len() == 5 {
            (parse_hand(fields[3])?, parse_hand(fields[4])?)
        } else {
            (0, 0)
        };
        let white = parse_points(white)?;
        let black = parse_points(black)?;
        if let Some(p) = points(white & black).next() {
            return Err(PositionError::PointTwice(p.name().into()));
        }
        Ok(Position {
            white,
            black,
            white_hand,
            black_hand,
            side,
        })
    }
}

fn write_points(f: &mut fmt::Formatter<'_>, bb: Bitboard) -> fmt::Result {
    for (i, p) in points(bb).enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        f.write_str(p.name())?;
    }
    Ok(())
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("W:")?;
        write_points(f, self.white)?;
        f.write_str(" B:")?;
        write_points(f, self.black)?;
        write!(f, " {}", self.side.letter())?;
        if self.white_hand != 0 || self.black_hand != 0 {
            write!(f, " {} {}", self.white_hand, self.black_hand)?;
        }
        Ok(())
    }
}

/// Whether the stones missing from the board (`board`: the mover's and
/// the opponent's stones on it; `hand`: in hand) could have been captured:
/// during placement each capture needs a new mill of the capturer, so a
/// side that has placed `n` stones has captured at most `n - 2`. (Always
/// true once both hands are empty, where any counts can arise.)
pub(crate) fn captures_possible(board: [u8; 2], hand: [u8; 2]) -> bool {
    if hand == [0, 0] {
        return true;
    }
    let placed = hand.map(|h| STONES.saturating_sub(h));
    board[0] <= placed[0]
        && board[1] <= placed[1]
        && placed[0] - board[0] <= placed[1].saturating_sub(2)
        && placed[1] - board[1] <= placed[0].saturating_sub(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_examples() {
        for text in [
            "W: B: w 9 9",
            "W:a4,b2,c4,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w",
            "W:a1,d1,g1 B:b2,d2,f2 b",
        ] {
            let pos: Position = text.parse().unwrap();
            let again: Position = pos.to_string().parse().unwrap();
            assert_eq!(pos, again);
        }
        assert_eq!(Position::start().to_string(), "W: B: w 9 9");
    }

    #[test]
    fn refuses_invalid_positions_with_the_reason() {
        let cases = [
            ("W:a1,z9 B: w 9 9", "unknown point `z9`"),
            ("W:a1,a1 B:b2,d2,f2 w", "listed twice"),
            ("W:a1 B:a1,d2,f2 w", "listed twice"),
            ("W: B: b 9 9", "impossible hand counts"),
            ("W: B: w 9 8", "impossible hand counts"),
            ("W:a1 B:d1 x", "bad side"),
            (
                "W:a1,d1,g1,b2,d2,f2,c3,d3,e3,a4 B:b6,d6,f6 b",
                "more than 9",
            ),
            ("W:a1 B:d1 w 9 9", "more than 9"),
            ("W:a1,d1 B:b2,d2,f2 b", "the game ended before"),
            ("W:a1", "malformed"),
            ("B:a1 W:d1 w", "malformed"),
            ("W:a1 B:d1 w 10 10", "bad hand count"),
            ("W:d1,g1 B:a1 b 1 2", "no game reaches"),
        ];
        for (text, want) in cases {
            let err = text.parse::<Position>().unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
