//! Checks of the independent reference solver (`moulin_tests::brute`) against
//! facts that do not come from it: the rule text, the published 3 v 3 result,
//! and the definition of the values applied one ply at a time.

use moulin_core::board::{ADJACENT, MILLS, POINT_NAMES};
use moulin_core::seeded::SplitMix64;
use moulin_core::Node;
use moulin_probe::{Outcome, Position, Rules};
use moulin_tests::brute::{self, positions_by_us, positions_by_us_in, BruteTable, Key};
use moulin_tests::random_points;
use std::path::Path;

/// The moving phase up to 4 stones a side (solved once, cached on disk).
fn table(flying: bool) -> &'static BruteTable {
    brute::shared(flying, false, Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// The same with every position with stones in hand of at most 4 stones a side.
fn with_hands(flying: bool) -> &'static BruteTable {
    brute::shared(flying, true, Path::new(env!("CARGO_TARGET_TMPDIR")))
}

fn moving(us: u8, them: u8) -> Key {
    Key {
        us,
        them,
        us_hand: 0,
        them_hand: 0,
    }
}

/// The position text, with the side to move that the hands imply.
fn text(node: &Node) -> String {
    Position::from_node(*node, node.side_by_hands()).to_string()
}

#[test]
fn geometry_follows_the_rule_text() {
    let mut seen = std::collections::HashSet::new();
    for (a, b) in brute::adjacencies() {
        assert!(seen.insert((a.min(b), a.max(b))), "adjacency listed twice");
        // Adjacent points are neighbours on a mill line: they share a mill.
        assert!(MILLS.iter().any(|&m| m >> a & 1 == 1 && m >> b & 1 == 1));
    }
    assert_eq!(seen.len(), 32);
    // Each mill is a path of two adjacencies; the probe's table agrees.
    for &m in &MILLS {
        let inside = seen
            .iter()
            .filter(|&&(a, b)| m >> a & 1 == 1 && m >> b & 1 == 1)
            .count();
        assert_eq!(inside, 2, "mill {m:#x}");
    }
    for (p, &adj) in ADJACENT.iter().enumerate() {
        let mine: u32 = seen
            .iter()
            .filter_map(|&(a, b)| (a == p).then_some(b).or((b == p).then_some(a)))
            .map(|q| 1 << q)
            .sum();
        assert_eq!(mine, adj, "neighbours of {}", POINT_NAMES[p]);
    }
}

#[test]
fn sector_index_is_a_bijection() {
    let mut rng = SplitMix64::new(1);
    for (us, them) in [(3, 3), (4, 3), (3, 4), (4, 4), (0, 1), (2, 4), (9, 9)] {
        let key = moving(us, them);
        for _ in 0..20_000 {
            let i = rng.index(key.size());
            let (u, t) = key.pair(i);
            assert_eq!((u.count_ones(), t.count_ones()), (us as u32, them as u32));
            assert_eq!(u & t, 0);
            assert_eq!(key.index(u, t), i);
        }
    }
    let key = moving(3, 4);
    let mut hit = vec![false; key.size()];
    for (i, us, them) in positions_by_us(key) {
        assert_eq!(key.index(us, them), i);
        assert!(!std::mem::replace(&mut hit[i], true));
    }
    assert!(hit.iter().all(|&h| h));
}

/// The reference generates the turns from the rule text on its own; it must
/// agree with the probe's rules (a disagreement is a bug in one of them).
#[test]
fn move_generator_agrees_with_the_probe_rules() {
    let mut rng = SplitMix64::new(2);
    for round in 0..60_000 {
        let flying = round % 2 == 0;
        let (us_hand, them_hand) = match round % 5 {
            0 => (1, 0),
            1 => (2, 2),
            2 => (5, 4),
            _ => (0, 0),
        };
        let least = 3usize.saturating_sub(us_hand as usize);
        let us_board = (least + rng.index(10 - us_hand as usize - least)) as u8;
        let them_board = rng.index(10 - them_hand as usize) as u8;
        let them = random_points(&mut rng, them_board.into(), 0);
        let us = random_points(&mut rng, us_board.into(), them);
        let node = Node {
            us,
            them,
            us_hand,
            them_hand,
        };
        let mut mine = brute::turns(&node, flying);
        let mut theirs = Vec::new();
        Rules::with_flying(flying).for_each_move(&node, |m, next| theirs.push((m, next)));
        mine.sort();
        theirs.sort();
        assert_eq!(mine, theirs, "{} flying {flying}", text(&node));
    }
}

/// Gasser (1996): with flying, the longest 3 v 3 game is a loss in 26 turns.
#[test]
fn longest_three_against_three_is_a_loss_in_26() {
    let table = brute::solve_moving(3, true);
    let counts = brute::counts(table.codes(moving(3, 3)).unwrap());
    assert_eq!(counts.max_loss, 26, "{counts:?}");
    // The same from the shared table (solved together with 4 a side).
    assert_eq!(
        brute::counts(self::table(true).codes(moving(3, 3)).unwrap()),
        counts
    );
}

/// Closing a mill against three stones wins at once: the opponent is left
/// with two. Conversely, with flying a player with three stones is never
/// blocked, so in 3 v 3 a win in 1 is exactly a capture.
#[test]
fn capturing_the_third_stone_wins_in_one() {
    capturing_wins_in_one(true);
}

/// Without flying, and a mill closed from afar (ignored: CI runs it; the
/// reference without flying is built only for the ignored tests).
#[test]
#[ignore]
fn capturing_the_third_stone_wins_in_one_without_flying() {
    capturing_wins_in_one(false);
    // Flying: b6-g1 closes the mill from afar; without flying it cannot.
    let fly: Node = "W:a1,d1,b6 B:f4,d6,e4 w"
        .parse::<Position>()
        .unwrap()
        .node();
    assert_eq!(table(true).get(&fly), Some(Outcome::Win(1)));
    assert_ne!(table(false).get(&fly), Some(Outcome::Win(1)));
}

fn capturing_wins_in_one(flying: bool) {
    let t = table(flying);
    // Slide g4-g1 closes a1 d1 g1 (with or without flying).
    let slide: Node = "W:a1,d1,g4 B:b6,d6,e4 w"
        .parse::<Position>()
        .unwrap()
        .node();
    assert_eq!(t.get(&slide), Some(Outcome::Win(1)));
    let four: Node = "W:a1,d1,g4,c5 B:b6,d6,e4 w"
        .parse::<Position>()
        .unwrap()
        .node();
    assert_eq!(t.get(&four), Some(Outcome::Win(1)));
    for key in [moving(3, 3), moving(4, 3)] {
        for (i, us, them) in positions_by_us(key) {
            let node = Node {
                us,
                them,
                us_hand: 0,
                them_hand: 0,
            };
            let mut captures = false;
            brute::for_each_turn(&node, flying, |_, _, remove, _| {
                captures |= remove.is_some()
            });
            let value = Outcome::from_code(t.codes(key).unwrap()[i]).unwrap();
            if captures {
                assert_eq!(value, Outcome::Win(1), "{}", text(&node));
            } else if flying && key == moving(3, 3) {
                assert_ne!(value, Outcome::Win(1), "{}", text(&node));
            }
        }
    }
}

/// Checks that the positions of the sectors satisfy the definition one ply
/// deep, through the reference's own move generator: `loss 0` when blocked,
/// a win in `n` when the best turn reaches a loss in `n - 1`, a loss in `n`
/// when every turn reaches a win and the longest is `n - 1`, a draw
/// otherwise. Distances anchor at `loss 0`, so a table satisfying this
/// everywhere holds the true values. With a `stride` above 1, only the
/// positions whose mover's stones have a colex rank divisible by it are
/// checked (to bound the time on the large sectors).
fn check_fixpoint(t: &BruteTable, keys: &[(Key, usize)]) {
    let flying = t.flying();
    let mut bad = Vec::new();
    let mut checked = 0usize;
    for &(key, stride) in keys {
        let codes = t.codes(key).unwrap();
        for r in (0..key.mover_sets()).step_by(stride) {
            for (i, us, them) in positions_by_us_in(key, r..r + 1) {
                checked += 1;
                let node = Node {
                    us,
                    them,
                    us_hand: key.us_hand,
                    them_hand: key.them_hand,
                };
                let stored = Outcome::from_code(codes[i]).unwrap();
                let direct = t.one_ply(&node);
                if direct != stored && bad.len() < 10 {
                    bad.push(format!(
                        "{}: stored {stored}, one ply {direct}",
                        text(&node)
                    ));
                }
            }
        }
    }
    eprintln!("flying {flying}: {checked} positions checked");
    assert!(bad.is_empty(), "flying {flying}:\n{}", bad.join("\n"));
}

#[test]
fn moving_values_are_a_fixpoint_with_flying() {
    let sectors = [
        (moving(3, 3), 1),
        (moving(3, 4), 4),
        (moving(4, 3), 4),
        (moving(4, 4), 16),
    ];
    check_fixpoint(table(true), &sectors);
}

/// Ignored: CI runs it (the reference without flying is built only for
/// the ignored tests).
#[test]
#[ignore]
fn moving_values_are_a_fixpoint_without_flying() {
    let sectors = [
        (moving(3, 3), 1),
        (moving(3, 4), 4),
        (moving(4, 3), 4),
        (moving(4, 4), 16),
    ];
    check_fixpoint(table(false), &sectors);
}

/// Values with stones in hand, recomputed by plain recursion over the
/// placements down to the moving tables, on a sample of positions.
#[test]
fn placement_values_match_a_direct_recursion() {
    placement_direct_recursion(true);
}

/// Without flying (ignored: CI runs it).
#[test]
#[ignore]
fn placement_values_match_a_direct_recursion_without_flying() {
    placement_direct_recursion(false);
}

fn placement_direct_recursion(flying: bool) {
    fn direct(t: &BruteTable, node: &Node) -> Outcome {
        if node.us_total() < 3 {
            return Outcome::Loss(0);
        }
        if node.us_hand == 0 && node.them_hand == 0 {
            return t.get(node).unwrap();
        }
        brute::turns(node, t.flying())
            .iter()
            .map(|(_, next)| direct(t, next).before_move())
            .max_by_key(|o| o.rank())
            .unwrap()
    }
    let mut rng = SplitMix64::new(3 + flying as u64);
    let t = with_hands(flying);
    let keys: Vec<Key> = t.keys().iter().copied().filter(|k| k.us_hand > 0).collect();
    assert_eq!(keys.len(), 27);
    for key in keys {
        let codes = t.codes(key).unwrap();
        let samples = match key.us_hand + key.them_hand {
            1 | 2 => 300,
            3 => 30,
            4 => 3,
            5 => 1,
            _ => 0,
        };
        for _ in 0..samples.min(key.size()) {
            let i = rng.index(key.size());
            let (us, them) = key.pair(i);
            let node = Node {
                us,
                them,
                us_hand: key.us_hand,
                them_hand: key.them_hand,
            };
            let stored = Outcome::from_code(codes[i]).unwrap();
            assert_eq!(stored, direct(t, &node), "{} flying {flying}", text(&node));
        }
    }
    // The whole 4-stone game from the empty board, White to move.
    let start = Node {
        us: 0,
        them: 0,
        us_hand: 4,
        them_hand: 4,
    };
    eprintln!(
        "4 stones each from the empty board, flying {flying}: {}",
        t.value_with_hands(0, 0, 4, 4)
    );
    assert_eq!(t.get(&start), Some(t.one_ply(&start)));
}

#[test]
fn placement_values_are_a_fixpoint() {
    placement_fixpoint(true);
}

/// Without flying (ignored: CI runs it).
#[test]
#[ignore]
fn placement_values_are_a_fixpoint_without_flying() {
    placement_fixpoint(false);
}

fn placement_fixpoint(flying: bool) {
    let t = with_hands(flying);
    let keys: Vec<(Key, usize)> = t
        .keys()
        .iter()
        .filter(|k| k.us_hand > 0)
        .map(|&k| (k, if k.size() > 5_000_000 { 4 } else { 1 }))
        .collect();
    check_fixpoint(t, &keys);
}
