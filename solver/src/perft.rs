//! Perft: the number of move paths of a given length, the usual check of a
//! move generator against known figures.
//!
//! # What is counted
//! A path is a sequence of exactly `depth` turns from the position. Each turn
//! is one edge together with its removal choice, so `b2-b4xe4` and `b2-b4xg4`
//! are two paths. A path that reaches a finished game (the player to move has
//! fewer than three stones, or has no stone in hand and no legal move) stops
//! there: it has no continuation and is not counted at any greater depth. A
//! path of length 0 is the position itself, so `perft(_, 0)` is 1 even for a
//! finished game.
//!
//! From the start position the figures are 24, 552, 12 144, 255 024 and
//! 5 140 800 for depths 1 to 5 (the published ones), then, as computed here,
//! 99 274 176, 1 873 562 112 and 34 085 204 352 for depths 6 to 8
//! (`moulin perft 8`: about a minute and a half on two loaded cores).
//!
//! # How
//! The first plies are expanded and their subtrees counted in parallel with
//! rayon (in the current thread pool); the last ply is not generated but
//! counted in bulk from bitboards (`count_moves`).

use moulin_core::board::{forms_mill, points, removable, Bitboard, ADJACENT, ALL_POINTS, MILLS};
use moulin_core::Node;
use moulin_probe::{Move, Position, Rules};
use rayon::prelude::*;

/// Below this remaining depth a subtree is counted on one thread.
const PARALLEL_DEPTH: u32 = 4;

/// Plies from the root whose nodes are split among threads: from the start,
/// 24 * 23 * 22 tasks, plenty to balance, few enough to cost nothing.
const PARALLEL_PLIES: u32 = 3;

/// Number of move paths of exactly `depth` turns from `pos` (see the module
/// documentation for finished games).
pub fn perft(rules: &Rules, pos: &Position, depth: u32) -> u64 {
    perft_node(rules, &pos.node(), depth)
}

/// `perft` from a position seen from the player to move.
pub fn perft_node(rules: &Rules, node: &Node, depth: u32) -> u64 {
    parallel(rules, node, depth, PARALLEL_PLIES)
}

/// The perft count below each legal turn of `pos` (the paths of `depth` turns
/// that start with it), in the order of `Rules::legal_moves`. Empty when
/// `depth` is 0 or the game is over.
pub fn perft_divide(rules: &Rules, pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut children = Vec::new();
    rules.for_each_move(&pos.node(), |mv, next| children.push((mv, next)));
    children
        .into_par_iter()
        .map(|(mv, next)| (mv, parallel(rules, &next, depth - 1, PARALLEL_PLIES - 1)))
        .collect()
}

fn parallel(rules: &Rules, node: &Node, depth: u32, plies: u32) -> u64 {
    if depth < PARALLEL_DEPTH || plies == 0 {
        return serial(rules, node, depth);
    }
    let mut children = Vec::with_capacity(64);
    rules.for_each_move(node, |_, next| children.push(next));
    children
        .par_iter()
        .map(|next| parallel(rules, next, depth - 1, plies - 1))
        .sum()
}

fn serial(rules: &Rules, node: &Node, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_moves(rules, node),
        _ => {
            let mut total = 0;
            rules.for_each_move(node, |_, next| total += serial(rules, &next, depth - 1));
            total
        }
    }
}

/// Number of legal turns of a position (each removal choice counted), without
/// generating them: the same figure as counting `Rules::for_each_move`.
#[inline]
pub fn count_moves(rules: &Rules, node: &Node) -> u64 {
    if node.us_total() < 3 {
        return 0;
    }
    let empty = ALL_POINTS & !(node.us | node.them);
    // A turn that forms a mill branches into one turn per removable stone,
    // or stays one turn when the opponent has no stone on the board.
    let branches = if node.them != 0 {
        removable(node.them).count_ones()
    } else {
        1
    };
    let (turns, mills) = if node.us_hand > 0 {
        (
            empty.count_ones(),
            closing_points(node.us, empty).count_ones(),
        )
    } else if rules.flies(node) {
        let (mut turns, mut mills) = (0, 0);
        for from in points(node.us) {
            turns += empty.count_ones();
            mills += closing_points(node.us ^ from.bit(), empty).count_ones();
        }
        (turns, mills)
    } else {
        let (mut turns, mut mills) = (0, 0);
        for from in points(node.us) {
            let rest = node.us ^ from.bit();
            let dest = ADJACENT[from.index()] & empty;
            turns += dest.count_ones();
            for to in points(dest) {
                mills += forms_mill(rest | to.bit(), to.index()) as u32;
            }
        }
        (turns, mills)
    };
    (turns + mills * (branches - 1)) as u64
}

/// The points of `targets` where a stone would complete a mill of `stones`
/// (each point once, even when it completes two).
#[inline]
fn closing_points(stones: Bitboard, targets: Bitboard) -> Bitboard {
    let mut closing = 0;
    for mill in MILLS {
        let missing = mill & !stones;
        // Exactly one point missing (or none: then `missing & targets` is empty).
        if missing & missing.wrapping_sub(1) == 0 {
            closing |= missing;
        }
    }
    closing & targets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    #[test]
    fn known_figures_from_the_start() {
        let rules = Rules::default();
        let start = Position::start();
        let want = [1, 24, 552, 12_144, 255_024, 5_140_800];
        for (depth, &n) in want.iter().enumerate() {
            assert_eq!(perft(&rules, &start, depth as u32), n, "depth {depth}");
        }
    }

    #[test]
    fn depth_six_from_the_start() {
        // Computed by this implementation; a regression figure, not a published one.
        assert_eq!(perft(&Rules::default(), &Position::start(), 6), 99_274_176);
    }

    #[test]
    fn bulk_count_agrees_with_generation() {
        let rules = Rules::default();
        let no_fly = Rules::with_flying(false);
        for text in [
            "W: B: w 9 9",
            "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w",
            "W:a4,c4,b2,d2,e5,g7 B:b6,d6,f6,a1,d1,g1 w",
            "W:a1,d1 B:b2,c3 w 7 7",
            "W:d1,g1,a4,a7 B:b2,c3,e3,d7 w 5 5",
            "W:a1,d1 B:b2 b 7 8",
            "W:a1,d1,g7 B:b2,d2,f2,d6 w",
            "W:a1,d1,a7 B:b2,d2,f2,d6 w",
            "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w",
            "W:a1,d1 B:a7,d2,g4 w",
        ] {
            let p = pos(text);
            for r in [rules, no_fly] {
                let mut n = 0;
                r.for_each_move(&p.node(), |_, _| n += 1);
                assert_eq!(count_moves(&r, &p.node()), n, "{text}");
            }
        }
    }

    #[test]
    fn bulk_count_agrees_along_the_tree() {
        fn walk(rules: &Rules, node: &Node, depth: u32) {
            let mut n = 0;
            rules.for_each_move(node, |_, next| {
                n += 1;
                if depth > 0 {
                    walk(rules, &next, depth - 1);
                }
            });
            assert_eq!(count_moves(rules, node), n, "{node:?}");
        }
        for text in [
            "W:a1,d1,b2 B:g7,d7,f6 w 6 6",
            "W:a1,d1,a7 B:b2,d2,f2,d6 w",
            "W:a1,g1,a7 B:b2,d2,f2 b",
            "W:a1,d1,g1,b4,d6 B:a4,a7,d7,g7 b",
            "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w",
        ] {
            for rules in [Rules::with_flying(true), Rules::with_flying(false)] {
                walk(&rules, &pos(text).node(), 3);
            }
        }
    }

    #[test]
    fn finished_games_stop_the_path() {
        let rules = Rules::default();
        // White is blocked: no path of length 1 or more.
        let blocked = pos("W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w");
        assert_eq!(perft(&rules, &blocked, 0), 1);
        assert_eq!(perft(&rules, &blocked, 1), 0);
        assert_eq!(perft(&rules, &blocked, 5), 0);
        // White to move closes a mill and takes Black's third stone: those
        // paths end after one turn.
        let p = pos("W:a1,d1,a7 B:b2,d2,f2 w");
        let mut finishing = 0;
        let mut others = 0;
        rules.for_each_move(&p.node(), |_, next| {
            if rules.is_lost(&next) {
                finishing += 1
            } else {
                others += perft(
                    &rules,
                    &Position::from_node(next, moulin_probe::Side::Black),
                    1,
                )
            }
        });
        assert!(finishing > 0);
        assert_eq!(perft(&rules, &p, 2), others);
    }

    #[test]
    fn divide_sums_to_the_total() {
        let rules = Rules::default();
        let p = pos("W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w");
        for depth in 1..=4 {
            let parts = perft_divide(&rules, &p, depth);
            assert_eq!(parts.len(), rules.legal_moves(&p).len());
            let sum: u64 = parts.iter().map(|(_, n)| n).sum();
            assert_eq!(sum, perft(&rules, &p, depth));
        }
    }
}
