//! The `Tablebase` over synthetic tables: probes read the slot of the
//! position, moves see their successors' values, errors name the problem.

use crate::table_synthetic;

use moulin::write::write_table;
use moulin_core::index::Indexer;
use moulin_core::position::Side;
use moulin_core::seeded::splitmix64;
use moulin_probe::error::ProbeError;
use moulin_probe::{Outcome, Position, Rules, Sector, Tablebase};
use table_synthetic::values;

/// A 3 v 3 table (captures from 3 v 3 end the game, so it is closed under moves).
fn three_v_three(rules: Rules) -> (tempfile::TempDir, Vec<u16>) {
    let dir = tempfile::tempdir().unwrap();
    let s = Sector::moving(3, 3);
    let codes = values(s, 60, 31);
    write_table(dir.path(), s, rules, &codes).unwrap();
    (dir, codes)
}

/// Pseudo-random 3 v 3 positions, either side to move.
fn positions(count: u64) -> Vec<Position> {
    let ix = Indexer::get();
    let s = Sector::moving(3, 3);
    (0..count)
        .map(|i| {
            let node = ix.unindex(s, splitmix64(i) % ix.slots(s)).unwrap();
            let side = if i % 2 == 0 { Side::White } else { Side::Black };
            Position::from_node(node, side)
        })
        .collect()
}

fn expected(codes: &[u16], pos: &Position, rules: Rules) -> Outcome {
    let node = pos.node();
    if rules.is_lost(&node) {
        return Outcome::Loss(0);
    }
    Outcome::from_code(codes[Indexer::get().index(&node) as usize]).unwrap()
}

#[test]
fn probes_read_the_slot_of_the_position() {
    let rules = Rules::default();
    let (dir, codes) = three_v_three(rules);
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(tb.rules(), rules);
    for pos in positions(300) {
        assert_eq!(
            tb.probe(&pos).unwrap(),
            expected(&codes, &pos, rules),
            "{pos}"
        );
        assert_eq!(tb.probe_node(&pos.node()).unwrap(), tb.probe(&pos).unwrap());
        let moves = tb.probe_moves(&pos).unwrap();
        assert_eq!(
            moves.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
            rules.legal_moves(&pos)
        );
        for (m, outcome) in &moves {
            let next = rules.play(&pos, *m).unwrap();
            let want = if m.remove.is_some() {
                Outcome::Win(1) // the opponent is left with two stones
            } else {
                expected(&codes, &next, rules).before_move()
            };
            assert_eq!(*outcome, want, "{pos} {m}");
        }
        let best = tb.best_moves(&pos).unwrap();
        let top = moves.iter().map(|(_, o)| o.rank()).max().unwrap();
        let want: Vec<_> = moves
            .iter()
            .filter(|(_, o)| o.rank() == top)
            .map(|(m, _)| *m)
            .collect();
        assert_eq!(best, want, "{pos}");
    }
    let summary = tb.summary(Sector::moving(3, 3)).unwrap();
    assert_eq!(tb.sectors().count(), 1);
    assert_eq!(tb.sectors().next().unwrap().1, summary);
    assert_eq!(tb.sector_values(Sector::moving(3, 3)).unwrap(), codes);
}

#[test]
fn finished_games_need_no_table() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(tb.sectors().count(), 0);
    // Two stones: lost. Blocked: lost.
    for text in [
        "W:a1,d1 B:a7,d2,g4 w",
        "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w",
    ] {
        let pos: Position = text.parse().unwrap();
        assert_eq!(tb.probe(&pos).unwrap(), Outcome::Loss(0), "{text}");
        assert!(tb.probe_moves(&pos).unwrap().is_empty());
        assert!(tb.best_moves(&pos).unwrap().is_empty());
    }
    let pos: Position = "W:a1,d1,g7 B:b2,d2,f2 w".parse().unwrap();
    let err = tb.probe(&pos).unwrap_err();
    assert!(matches!(err, ProbeError::MissingSector(s) if s == Sector::moving(3, 3)));
    assert_eq!(err.to_string(), "no table for sector 3v3");
}

#[test]
fn invalid_positions_are_refused() {
    let (dir, _) = three_v_three(Rules::default());
    let tb = Tablebase::open(dir.path()).unwrap();
    let mut pos: Position = "W:a1,d1,g7 B:b2,d2,f2 w".parse().unwrap();
    pos.black |= pos.white & pos.white.wrapping_neg(); // a1 twice
    let err = tb.probe(&pos).unwrap_err();
    assert!(matches!(err, ProbeError::InvalidPosition(_)), "{err}");
    assert!(tb.probe_moves(&pos).is_err());
    assert!(tb.probe_node(&pos.node()).is_err());
}

#[test]
fn rules_come_from_the_tables() {
    let no_fly = Rules::with_flying(false);
    let (dir, _) = three_v_three(no_fly);
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(tb.rules(), no_fly);
    let err = Tablebase::open(dir.path())
        .unwrap()
        .with_rules(Rules::default())
        .err()
        .unwrap();
    assert!(matches!(err, ProbeError::RulesMismatch { .. }), "{err}");
    assert!(Tablebase::open(dir.path())
        .unwrap()
        .with_rules(no_fly)
        .is_ok());

    // A second table with other rules in the same directory.
    let s = Sector::moving(3, 4);
    write_table(dir.path(), s, Rules::default(), &values(s, 10, 32)).unwrap();
    let err = Tablebase::open(dir.path()).err().unwrap();
    assert!(matches!(err, ProbeError::MixedRules { .. }), "{err}");

    // An empty directory takes the rules it is given.
    let empty = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(empty.path())
        .unwrap()
        .with_rules(no_fly)
        .unwrap();
    assert_eq!(tb.rules(), no_fly);
    assert!(Tablebase::open(empty.path().join("missing")).is_err());
}

#[test]
fn threads_and_cache_sizes_agree() {
    let (dir, codes) = three_v_three(Rules::default());
    let cached = Tablebase::open(dir.path()).unwrap();
    let uncached = Tablebase::open(dir.path()).unwrap().with_cache_bytes(0);
    let tiny = Tablebase::open(dir.path())
        .unwrap()
        .with_cache_bytes(16 * 40_000);
    let all = positions(400);
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (cached, uncached, tiny, all, codes) = (&cached, &uncached, &tiny, &all, &codes);
            scope.spawn(move || {
                for pos in all.iter().skip(t).step_by(2) {
                    let want = expected(codes, pos, Rules::default());
                    assert_eq!(cached.probe(pos).unwrap(), want);
                    assert_eq!(uncached.probe(pos).unwrap(), want);
                    assert_eq!(tiny.probe(pos).unwrap(), want);
                }
            });
        }
    });
}
