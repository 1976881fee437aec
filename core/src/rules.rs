//! The rules of `docs/rules.md`: legal turns (placement, slide, flight, each with its
//! removal), playing a turn, and the end of the game.

use crate::board::{forms_mill, points, removable, Bitboard, Point, ADJACENT, ALL_POINTS};
use crate::position::{Node, Position, PositionError};
use std::fmt;
use std::str::FromStr;

/// Rule options: runtime values carried in every table header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// A player with exactly three stones on the board and none in hand may
    /// move a stone to any free point.
    pub flying: bool,
    /// The no-capture rule (`docs/rules.md`): the game is drawn after this many
    /// turns in a row without a capture (in the moving phase); `None`: no
    /// such rule, the tables count the distance to the end of the game.
    pub no_capture_limit: Option<u16>,
}

/// The largest no-capture limit a table set can be solved for: distances to
/// conversion past the limit (cursed wins, blessed losses) still fit a code.
pub const MAX_NO_CAPTURE_LIMIT: u16 = 4096;

impl Default for Rules {
    fn default() -> Rules {
        Rules::with_flying(true)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.flying { "flying" } else { "no flying" })?;
        if let Some(n) = self.no_capture_limit {
            write!(f, ", no-capture limit {n}")?;
        }
        Ok(())
    }
}

impl Rules {
    /// The rules with or without flying, and no no-capture limit.
    pub const fn with_flying(flying: bool) -> Rules {
        Rules {
            flying,
            no_capture_limit: None,
        }
    }

    /// Whether the player to move in `node` flies.
    #[inline]
    pub fn flies(&self, node: &Node) -> bool {
        self.flying && node.us_hand == 0 && node.us.count_ones() == 3
    }

    /// The points a stone of the mover on `from` may move to.
    #[inline]
    pub fn destinations(&self, node: &Node, from: usize) -> Bitboard {
        let empty = ALL_POINTS & !(node.us | node.them);
        if self.flies(node) {
            empty
        } else {
            ADJACENT[from] & empty
        }
    }

    /// Whether the player to move has lost: fewer than three stones in all, or
    /// no stone in hand and no legal move.
    pub fn is_lost(&self, node: &Node) -> bool {
        node.us_total() < 3 || (node.us_hand == 0 && !self.can_move(node))
    }

    fn can_move(&self, node: &Node) -> bool {
        if self.flies(node) {
            return (node.us | node.them) != ALL_POINTS;
        }
        points(node.us).any(|p| self.destinations(node, p.index()) != 0)
    }

    /// Calls `visit` with every legal turn and the position it leads to (seen
    /// from the next player to move). Nothing is visited once the game is lost.
    #[inline]
    pub fn for_each_move(&self, node: &Node, mut visit: impl FnMut(Move, Node)) {
        if node.us_total() < 3 {
            return;
        }
        // Only needed when a mill forms, then the same for every turn.
        let mut removable_them = None;
        let mut arrive = |from: Option<Point>, to: Point, us: Bitboard, us_hand: u8| {
            let mut next = Node {
                us: node.them,
                them: us,
                us_hand: node.them_hand,
                them_hand: us_hand,
            };
            if node.them != 0 && forms_mill(us, to.index()) {
                let victims = *removable_them.get_or_insert_with(|| removable(node.them));
                for r in points(victims) {
                    next.us = node.them ^ r.bit();
                    let remove = Some(r);
                    visit(Move { from, to, remove }, next);
                }
            } else {
                let remove = None;
                visit(Move { from, to, remove }, next);
            }
        };
        let empty = ALL_POINTS & !(node.us | node.them);
        if node.us_hand > 0 {
            for to in points(empty) {
                arrive(None, to, node.us | to.bit(), node.us_hand - 1);
            }
        } else if self.flies(node) {
            for from in points(node.us) {
                let rest = node.us ^ from.bit();
                for to in points(empty) {
                    arrive(Some(from), to, rest | to.bit(), 0);
                }
            }
        } else {
            for from in points(node.us) {
                let rest = node.us ^ from.bit();
                for to in points(ADJACENT[from.index()] & empty) {
                    arrive(Some(from), to, rest | to.bit(), 0);
                }
            }
        }
    }

    /// Every legal turn of a position, in a fixed order: by the point the
    /// stone comes from, then where it goes, then the stone removed, each in
    /// the canonical point order (`a1 d1 g1 b2 ...`). A turn that closes a
    /// mill appears once per stone it may remove. Empty once the game is
    /// lost for the player to move.
    ///
    /// # Example
    /// ```
    /// use moulin_core::{Position, Rules};
    ///
    /// let rules = Rules::default();
    /// // At the start every one of the 24 points is a placement.
    /// assert_eq!(rules.legal_moves(&Position::start()).len(), 24);
    ///
    /// // The capture example of `docs/rules.md`: b2-b4 closes a4-b4-c4 and must
    /// // remove a black stone outside Black's mill b6-d6-f6.
    /// let pos: Position = "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w".parse()?;
    /// let captures: Vec<String> = rules
    ///     .legal_moves(&pos)
    ///     .iter()
    ///     .filter(|m| m.remove.is_some())
    ///     .map(|m| m.to_string())
    ///     .collect();
    /// assert_eq!(captures, ["b2-b4xc3", "b2-b4xe4", "b2-b4xg4"]);
    /// # Ok::<(), moulin_core::PositionError>(())
    /// ```
    pub fn legal_moves(&self, pos: &Position) -> Vec<Move> {
        let mut moves = Vec::new();
        self.for_each_move(&pos.node(), |m, _| moves.push(m));
        moves
    }

    /// Plays a turn, if it is legal in the position: the position after it,
    /// the other player to move.
    ///
    /// # Errors
    /// [`MoveError::Illegal`] for a turn that is not among
    /// [`Rules::legal_moves`], such as a mill closed without its removal.
    ///
    /// # Example
    /// ```
    /// use moulin_core::{Move, MoveError, Position, Rules, Side};
    ///
    /// let rules = Rules::default();
    /// let pos: Position = "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w".parse()?;
    /// let after = rules.play(&pos, "b2-b4xg4".parse()?)?;
    /// assert_eq!(after.to_string(), "W:g1,d2,a4,b4,c4,e5 B:c3,e4,b6,d6,f6 b");
    /// assert_eq!(after.side, Side::Black);
    ///
    /// let no_removal: Move = "b2-b4".parse()?;
    /// assert_eq!(rules.play(&pos, no_removal), Err(MoveError::Illegal(no_removal)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(&self, pos: &Position, mv: Move) -> Result<Position, MoveError> {
        let mut result = None;
        self.for_each_move(&pos.node(), |m, next| {
            if m == mv {
                result = Some(next);
            }
        });
        result
            .map(|next| Position::from_node(next, pos.side.opponent()))
            .ok_or(MoveError::Illegal(mv))
    }
}

/// One turn: a placement (`to` only), a slide or flight (`from` and `to`), with
/// the removal that a new mill requires.
///
/// Its text is that of `docs/rules.md`: `d2`, `b2-b4`, `b2-b4xg4`, `g1xd2`
/// (`str::parse` reads it, `Display` writes it). Parsing checks the syntax
/// and the point names only; [`Rules::play`] tells whether a turn is legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Where the stone comes from; `None` for a placement.
    pub from: Option<Point>,
    /// Where the stone is placed or arrives.
    pub to: Point,
    /// The opponent's stone removed, when the turn forms a mill.
    pub remove: Option<Point>,
}

/// Why a move text or a move was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not `d2`, `b2-b4`, `b2-b4xg4` or `g1xd2`.
    Syntax(String),
    /// A point name that is not one of the 24.
    UnknownPoint(String),
    /// Well formed, but not a legal turn in the position.
    Illegal(Move),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(
                f,
                "malformed move `{s}` (expected `d2`, `b2-b4`, `b2-b4xg4` or `g1xd2`)"
            ),
            MoveError::UnknownPoint(p) => write!(f, "unknown point `{p}` in move"),
            MoveError::Illegal(m) => write!(f, "illegal move {m} in this position"),
        }
    }
}

impl std::error::Error for MoveError {}

impl From<PositionError> for MoveError {
    fn from(e: PositionError) -> MoveError {
        MoveError::Syntax(e.to_string())
    }
}

impl FromStr for Move {
    type Err = MoveError;

    fn from_str(text: &str) -> Result<Move, MoveError> {
        let point = |name: &str| {
            if name.is_empty() {
                return Err(MoveError::Syntax(text.into()));
            }
            Point::from_name(name).ok_or_else(|| MoveError::UnknownPoint(name.into()))
        };
        let (travel, remove) = match text.split_once('x') {
            Some((t, r)) => (t, Some(point(r)?)),
            None => (text, None),
        };
        let (from, to) = match travel.split_once('-') {
            Some((f, t)) => (Some(point(f)?), point(t)?),
            None => (None, point(travel)?),
        };
        if from == Some(to) || remove == Some(to) || (remove.is_some() && remove == from) {
            return Err(MoveError::Syntax(text.into()));
        }
        Ok(Move { from, to, remove })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from {
            write!(f, "{from}-")?;
        }
        write!(f, "{}", self.to)?;
        if let Some(r) = self.remove {
            write!(f, "x{r}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<String> {
        let pos: Position = text.parse().unwrap();
        Rules::default()
            .legal_moves(&pos)
            .iter()
            .map(|m| m.to_string())
            .collect()
    }

    #[test]
    fn seed_capture_example_protects_stones_in_mills() {
        let all = moves("W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w");
        let mut removals: Vec<_> = all
            .iter()
            .filter_map(|m| m.strip_prefix("b2-b4x"))
            .collect();
        removals.sort();
        assert_eq!(removals, ["c3", "e4", "g4"]);
        assert!(!all.contains(&"b2-b4".to_string()));
    }

    #[test]
    fn all_stones_removable_when_all_are_in_mills() {
        let all = moves("W:a4,c4,b2,d2,e5,g7 B:b6,d6,f6,a1,d1,g1 w");
        let mut removals: Vec<_> = all
            .iter()
            .filter_map(|m| m.strip_prefix("b2-b4x"))
            .collect();
        removals.sort();
        assert_eq!(removals, ["a1", "b6", "d1", "d6", "f6", "g1"]);
    }

    #[test]
    fn placement_mill_removes_one_stone_even_for_two_mills() {
        let all = moves("W:a1,d1 B:b2,c3 w 7 7");
        let g1: Vec<_> = all.iter().filter(|m| m.starts_with("g1")).collect();
        assert_eq!(g1, ["g1xb2", "g1xc3"]);
        // a1 closes both a1-d1-g1 and a1-a4-a7: one removal per turn.
        let all = moves("W:d1,g1,a4,a7 B:b2,c3,e3,d7 w 5 5");
        let a1: Vec<_> = all.iter().filter(|m| m.starts_with("a1")).collect();
        assert_eq!(a1, ["a1xb2", "a1xc3", "a1xe3", "a1xd7"]);
    }

    #[test]
    fn nothing_to_remove_from_an_empty_board() {
        // No game reaches this (Black's placed stones could not all have been
        // captured), so it is built directly: the rule still holds.
        let pos = Position {
            white: 0b11,
            black: 0,
            white_hand: 7,
            black_hand: 7,
            side: crate::position::Side::White,
        };
        let all: Vec<String> = Rules::default()
            .legal_moves(&pos)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(all.len(), 22);
        assert!(
            all.contains(&"g1".to_string()),
            "g1 forms a mill, removes nothing"
        );
        assert!(all.iter().all(|m| !m.contains('x')));
    }

    #[test]
    fn flying_belongs_to_the_player_with_three_stones() {
        let rules = Rules::default();
        let pos: Position = "W:a1,d1,g7 B:b2,d2,f2,d6 w".parse().unwrap();
        assert_eq!(rules.legal_moves(&pos).len(), 3 * 17);
        let pos: Position = "W:a1,d1,g7 B:b2,d2,f2,d6 b".parse().unwrap();
        assert!(rules.legal_moves(&pos).iter().all(|m| {
            let from = m.from.unwrap().index();
            ADJACENT[from] & m.to.bit() != 0
        }));
        let no_fly = Rules::with_flying(false);
        let pos: Position = "W:a1,d1,g7 B:b2,d2,f2,d6 w".parse().unwrap();
        // a1-a4, d1-g1, g7-g4, g7-d7 (no mill: d1 has left a1-d1-g1).
        assert_eq!(no_fly.legal_moves(&pos).len(), 4);
    }

    #[test]
    fn blocked_player_loses() {
        let rules = Rules::default();
        let pos: Position = "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w".parse().unwrap();
        // a1, d1, g1 and a4 have no free neighbour: d1-d2, a4-b4, g1-g4, a4-a7 taken.
        assert!(rules.legal_moves(&pos).is_empty());
        assert!(rules.is_lost(&pos.node()));
        let pos: Position = "W:a1,d1 B:a7,d2,g4 w".parse().unwrap();
        assert!(rules.is_lost(&pos.node()));
    }

    #[test]
    fn move_text_round_trips() {
        for text in ["d2", "b2-b4", "b2-b4xg4", "g1xd2"] {
            assert_eq!(text.parse::<Move>().unwrap().to_string(), text);
        }
        for bad in ["", "z1", "a1-", "a1-a1", "a1xa1", "-a1", "a1xq7"] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }
}
