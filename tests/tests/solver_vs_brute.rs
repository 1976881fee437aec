//! The production solver against the independent reference
//! (`moulin_tests::brute`), position by position: every `(us, them)` pair of
//! the moving sectors 3v3, 3v4, 4v3 and 4v4 (not only canonical ones), and
//! every position with stones in hand of at most 4 stones a side, with
//! flying on and off, probed through `Tablebase::probe`; the perfect moves
//! of `Tablebase::best_moves` on a sample.

use moulin::solve::{solve_moving, SolveOptions};
use moulin_core::Node;
use moulin_probe::{Move, Outcome, Position, ProbeError, Rules, Sector, Side, Tablebase};
use moulin_tests::brute::{self, positions_by_us_in, BruteTable, Key};
use std::path::Path;
use std::sync::OnceLock;
use tempfile::TempDir;

/// The reference, with the positions with stones in hand.
fn reference(flying: bool) -> &'static BruteTable {
    brute::shared(flying, true, Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// The production tables up to 4 stones a side, placement included, solved
/// once per process into a temporary directory.
fn solved(flying: bool) -> &'static (TempDir, Tablebase) {
    static SOLVED: [OnceLock<(TempDir, Tablebase)>; 2] = [const { OnceLock::new() }; 2];
    SOLVED[flying as usize].get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let options = SolveOptions {
            dir: dir.path().to_path_buf(),
            max_stones: 4,
            rules: Rules::with_flying(flying),
            placement: true,
            ..Default::default()
        };
        solve_moving(&options).unwrap();
        let tb = Tablebase::open(dir.path()).unwrap();
        assert_eq!(tb.rules(), Rules::with_flying(flying));
        (dir, tb)
    })
}

const fn moving(us: u8, them: u8) -> Key {
    Key {
        us,
        them,
        us_hand: 0,
        them_hand: 0,
    }
}

/// The position of a node, with the side to move its hands imply (White
/// when both hands are empty).
fn position(node: &Node) -> Position {
    Position::from_node(*node, node.side_by_hands())
}

/// Compares the positions of the sectors whose mover's stones have a colex
/// rank `r` with `r % parts.1 == parts.0` (all of them with `(0, 1)`), and the
/// perfect moves of every `moves_every`-th position compared.
fn compare(flying: bool, keys: &[Key], parts: (usize, usize), moves_every: usize) {
    let reference = reference(flying);
    let tb = &solved(flying).1;
    let mut bad = Vec::new();
    let mut compared = 0usize;
    let mut next_moves = moves_every;
    for &key in keys {
        let codes = reference.codes(key).expect("sector in the reference");
        let mut counts = [0u64; 3];
        for r in (parts.0..key.mover_sets()).step_by(parts.1) {
            for (i, us, them) in positions_by_us_in(key, r..r + 1) {
                let node = Node {
                    us,
                    them,
                    us_hand: key.us_hand,
                    them_hand: key.them_hand,
                };
                let want = Outcome::from_code(codes[i]).unwrap();
                counts[match want {
                    Outcome::Win(_) => 0,
                    Outcome::Loss(_) => 1,
                    Outcome::Draw => 2,
                }] += 1;
                let pos = position(&node);
                let got = tb.probe(&pos);
                compared += 1;
                if got.as_ref().ok() != Some(&want) {
                    if bad.len() < 20 {
                        bad.push(format!("{pos}: solver {got:?}, reference {want}"));
                    }
                    continue;
                }
                if compared >= next_moves {
                    next_moves += moves_every;
                    if node.us_hand == 0 && node.them_hand == 0 {
                        // The same node with Black to move.
                        let black = Position::from_node(node, Side::Black);
                        let got = tb.probe(&black);
                        if got.as_ref().ok() != Some(&want) && bad.len() < 20 {
                            bad.push(format!("{black}: solver {got:?}, reference {want}"));
                        }
                    }
                    let mut best = tb.best_moves(&pos).unwrap();
                    let mut optimal: Vec<Move> = reference.optimal_moves(&node);
                    best.sort();
                    optimal.sort();
                    if best != optimal && bad.len() < 20 {
                        let list = |moves: &[Move]| {
                            moves
                                .iter()
                                .map(Move::to_string)
                                .collect::<Vec<_>>()
                                .join(" ")
                        };
                        bad.push(format!(
                            "{pos}: solver's best moves [{}], reference [{}]",
                            list(&best),
                            list(&optimal)
                        ));
                    }
                }
            }
        }
        eprintln!(
            "flying {flying} {key:?}: reference {} wins, {} losses, {} draws",
            counts[0], counts[1], counts[2]
        );
    }
    eprintln!("flying {flying}: {compared} positions compared");
    assert!(
        bad.is_empty(),
        "flying {flying}: first mismatches:\n{}",
        bad.join("\n")
    );
}

const SMALL: [Key; 3] = [moving(3, 3), moving(3, 4), moving(4, 3)];

#[test]
fn three_stone_sectors_match_with_flying() {
    compare(true, &SMALL, (0, 1), 97);
}

// Ignored in the default run (CI runs it): that run compares the game with
// flying on half of 4 v 4; the ignored cases add the rest and no flying.
#[test]
#[ignore]
fn three_stone_sectors_match_without_flying() {
    compare(false, &SMALL, (0, 1), 97);
}

#[test]
fn four_against_four_matches_with_flying_even() {
    compare(true, &[moving(4, 4)], (0, 2), 997);
}

// Ignored in the default run (CI runs it): that run compares the game with
// flying on half of 4 v 4; the ignored cases add the rest and no flying.
#[test]
#[ignore]
fn four_against_four_matches_with_flying_odd() {
    compare(true, &[moving(4, 4)], (1, 2), 997);
}

// Ignored in the default run (CI runs it): that run compares the game with
// flying on half of 4 v 4; the ignored cases add the rest and no flying.
#[test]
#[ignore]
fn four_against_four_matches_without_flying_even() {
    compare(false, &[moving(4, 4)], (0, 2), 997);
}

#[test]
#[ignore]
fn four_against_four_matches_without_flying_odd() {
    compare(false, &[moving(4, 4)], (1, 2), 997);
}

fn sector(key: Key) -> Sector {
    Sector {
        stm_board: key.us,
        opp_board: key.them,
        stm_hand: key.us_hand,
        opp_hand: key.them_hand,
    }
}

/// The reference's sectors with stones in hand that the solver solves: it
/// leaves out those a game cannot reach (more captures than mills), whose
/// positions the probe refuses as invalid.
fn placement_keys(flying: bool) -> Vec<Key> {
    let all = reference(flying).keys().iter().filter(|k| k.us_hand > 0);
    let (kept, left): (Vec<Key>, Vec<Key>) = all.partition(|&&k| sector(k).is_valid());
    assert_eq!(kept.len() + left.len(), 27);
    let tb = &solved(flying).1;
    for key in left {
        let (us, them) = key.pair(0);
        let node = Node {
            us,
            them,
            us_hand: key.us_hand,
            them_hand: key.them_hand,
        };
        assert!(
            matches!(
                tb.probe(&position(&node)),
                Err(ProbeError::InvalidPosition(_))
            ),
            "{key:?}"
        );
    }
    kept
}

#[test]
fn placement_matches_with_flying() {
    compare(true, &placement_keys(true), (0, 1), 97);
}

// Ignored in the default run (CI runs it): that run compares the game with
// flying on half of 4 v 4; the ignored cases add the rest and no flying.
#[test]
#[ignore]
fn placement_matches_without_flying() {
    compare(false, &placement_keys(false), (0, 1), 97);
}

/// The counts in every moving-phase table's header (positions won, lost and
/// drawn, every symmetric copy counted; the longest win and loss) equal
/// those of the reference, which stores every position without symmetry.
#[test]
fn header_counts_equal_the_reference() {
    header_counts(true);
}

/// Without flying (ignored: CI runs it).
#[test]
#[ignore]
fn header_counts_equal_the_reference_without_flying() {
    header_counts(false);
}

fn header_counts(flying: bool) {
    let reference = reference(flying);
    let tb = &solved(flying).1;
    let mut sectors = 0;
    for &key in reference.keys() {
        if key.us_hand > 0 || key.them_hand > 0 {
            continue;
        }
        let c = brute::counts(reference.codes(key).unwrap());
        let sector = Sector {
            stm_board: key.us,
            opp_board: key.them,
            stm_hand: 0,
            opp_hand: 0,
        };
        let s = tb.summary(sector).unwrap();
        let what = format!("{sector} flying {flying}");
        assert_eq!(
            (s.positions.win, s.positions.loss, s.positions.draw),
            (c.wins, c.losses, c.draws),
            "{what}"
        );
        assert_eq!(s.max_win, (c.wins > 0).then_some(c.max_win), "{what}");
        assert_eq!(s.max_loss, (c.losses > 0).then_some(c.max_loss), "{what}");
        sectors += 1;
    }
    assert_eq!(sectors, 4, "3v3, 3v4, 4v3, 4v4");
}
