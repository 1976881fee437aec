//! Runs the README's embedding example against freshly solved tables.

use moulin_probe::{Outcome, Position, Tablebase};

// Identical to the README's `advise` (which the doctest of `moulin_probe`
// compiles), apart from collecting the lines instead of printing them.
fn advise(
    tables: &std::path::Path,
    out: &mut Vec<String>,
) -> Result<(), Box<dyn std::error::Error>> {
    let tb = Tablebase::open(tables)?; // cheap: tables open lazily, memory-mapped
    let pos: Position = "W:a1,d1,g1 B:b2,d2,f2 w".parse()?;
    match tb.probe(&pos)? {
        Outcome::Win(n) => out.push(format!("White wins in {n} turns")),
        Outcome::Loss(n) => out.push(format!("White loses in {n} turns")),
        Outcome::Draw => out.push("draw".to_string()),
    }
    for mv in tb.best_moves(&pos)? {
        out.push(format!("perfect move: {mv}"));
    }
    for (mv, outcome) in tb.probe_moves(&pos)? {
        out.push(format!("{mv}: {outcome}"));
    }
    Ok(())
}

#[test]
fn readme_example_runs_on_solved_tables() {
    let dir = tempfile::tempdir().unwrap();
    let options = moulin::solve::SolveOptions {
        dir: dir.path().to_path_buf(),
        max_stones: 3,
        ..Default::default()
    };
    moulin::solve::solve_moving(&options).unwrap();
    let mut out = Vec::new();
    advise(dir.path(), &mut out).unwrap();
    // White flies d1 to a4: a1-a4 and g1 now threaten both a7 and d1, Black
    // (three stones, all in its mill) cannot form a new mill in one turn and
    // can block only one point, so White's third turn captures: a win in 3.
    assert_eq!(out[0], "White wins in 3 turns", "{out:?}");
    assert!(out.contains(&"perfect move: d1-a4".to_string()), "{out:?}");
    let best = out
        .iter()
        .filter(|l| l.starts_with("perfect move: "))
        .count();
    assert!(best >= 1);
    let pos: Position = "W:a1,d1,g1 B:b2,d2,f2 w".parse().unwrap();
    let legal = moulin_probe::Rules::default().legal_moves(&pos).len();
    assert_eq!(out.len(), 1 + best + legal);
}
