//! The alpha-beta prover (`moulin::prove`) against the independent reference
//! (`moulin_tests::brute`) on the game with 4 stones a side: the prover reads
//! only the production moving-phase tables up to 4 stones a side and must
//! find the reference's win, draw or loss for the start of that game, for
//! each first placement, and for a sample of every sector with stones in
//! hand, flying on and off (the start is a draw with flying, a loss for
//! White without: the two verdicts differ, so the test can tell them apart).

use moulin::prove::{Prover, Wdl};
use moulin::solve::{solve_moving, SolveOptions};
use moulin_core::Node;
use moulin_probe::{Outcome, Rules, Tablebase};
use moulin_tests::brute::{self, positions_by_us_in};
use std::path::Path;

fn wdl(o: Outcome) -> Wdl {
    match o {
        Outcome::Win(_) => Wdl::Win,
        Outcome::Draw => Wdl::Draw,
        Outcome::Loss(_) => Wdl::Loss,
    }
}

fn check(flying: bool, stride: usize) {
    let reference = brute::shared(flying, true, Path::new(env!("CARGO_TARGET_TMPDIR")));
    // With flying, the tables other tests share; without, solved here.
    let own = tempfile::tempdir().unwrap();
    let dir = match flying {
        true => moulin_tests::solved(4),
        false => {
            let options = SolveOptions {
                dir: own.path().to_path_buf(),
                max_stones: 4,
                rules: Rules::with_flying(flying),
                ..Default::default()
            };
            solve_moving(&options).unwrap();
            own.path()
        }
    };
    // The search over the distance tables and over the WDL tables the same
    // solve wrote beside them.
    let distance = Tablebase::open(dir).unwrap();
    let wdl_tables = Tablebase::open_wdl(dir).unwrap();
    assert!(!distance.is_wdl() && wdl_tables.is_wdl());
    assert_eq!(wdl_tables.sectors().count(), distance.sectors().count());
    for tb in [&distance, &wdl_tables] {
        compare(reference, tb, flying, stride);
    }
}

fn compare(reference: &brute::BruteTable, tb: &Tablebase, flying: bool, stride: usize) {
    let prover = Prover::new(tb, 16 << 20);

    let start = Node {
        us: 0,
        them: 0,
        us_hand: 4,
        them_hand: 4,
    };
    let want = wdl(reference.get(&start).unwrap());
    assert_eq!(want, if flying { Wdl::Draw } else { Wdl::Loss });
    assert_eq!(
        prover.value(&start).unwrap(),
        want,
        "start, flying {flying}"
    );
    let moves = prover.move_values(&start).unwrap();
    assert_eq!(moves.len(), 24);
    for (m, got) in moves {
        let mut next = None;
        moulin_probe::Rules::with_flying(flying).for_each_move(&start, |mv, n| {
            if mv == m {
                next = Some(n);
            }
        });
        let want = wdl(reference.get(&next.unwrap()).unwrap().before_move());
        assert_eq!(got, want, "first placement {m}, flying {flying}");
    }

    let mut compared = 0usize;
    let mut bad = Vec::new();
    for &key in reference.keys().iter().filter(|k| k.us_hand > 0) {
        let codes = reference.codes(key).unwrap();
        let positions = positions_by_us_in(key, 0..key.mover_sets());
        for (i, us, them) in positions.step_by(stride) {
            let node = Node {
                us,
                them,
                us_hand: key.us_hand,
                them_hand: key.them_hand,
            };
            let want = wdl(Outcome::from_code(codes[i]).unwrap());
            let got = prover.value(&node).unwrap();
            compared += 1;
            if got != want && bad.len() < 20 {
                bad.push(format!("{node:?}: prover {got:?}, reference {want:?}"));
            }
        }
    }
    eprintln!(
        "flying {flying}, WDL tables {}: {compared} positions compared, {:?}",
        tb.is_wdl(),
        prover.stats()
    );
    assert!(compared > 100_000, "only {compared} positions compared");
    assert!(bad.is_empty(), "first mismatches:\n{}", bad.join("\n"));
}

#[test]
fn prover_matches_reference_with_flying() {
    check(true, 101);
}

/// Without flying (ignored: CI runs it).
#[test]
#[ignore]
fn prover_matches_reference_without_flying() {
    check(false, 101);
}
