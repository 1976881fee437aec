//! `moulin prove` from the outside: the reduced 4-stone game over tables
//! solved by `moulin solve` (its values come from the brute force, see
//! `prove_vs_brute.rs`: a draw with flying, a loss for White without), the
//! JSON answer, and the errors a user can meet.

use moulin_tests::moulin;
use std::path::Path;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    moulin().args(args).output().expect("moulin runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

fn solve(dir: &Path, flying: bool) {
    let mut args = vec![
        "solve",
        "--max-stones",
        "4",
        "-q",
        "--dir",
        dir.to_str().unwrap(),
    ];
    if !flying {
        args.push("--no-flying");
    }
    let out = run(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `moulin prove` of the 4-stone game's start over the tables of `dir`.
fn prove_four(dir: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "prove",
        "--dir",
        dir,
        "--stones",
        "4",
        "W: B: w 4 4",
        "--tt-mib",
        "16",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn the_four_stone_game_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), true);
    let d = dir.path().to_str().unwrap();
    let out = prove_four(d, &["--moves", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["outcome"], "draw");
    let moves = answer["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 24);
    assert!(moves.iter().all(|m| m["outcome"] == "draw"), "{answer}");
    assert!(answer["searched"].as_u64().unwrap() > 0);

    // Without flying, the same game is lost for White.
    let other = tempfile::tempdir().unwrap();
    solve(other.path(), false);
    let o = other.path().to_str().unwrap();
    let out = prove_four(o, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("outcome: loss for White, to move"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn prove_errors_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), true);
    let d = dir.path().to_str().unwrap();
    // The full game needs the moving phase up to 9 stones a side.
    let out = run(&["prove", "--dir", d, "--tt-mib", "8"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("no table for sector"), "{err}");
    assert!(err.contains("does not hold"), "{err}");
    // A 4-stone position is not a position of the full game.
    let out = run(&["prove", "--dir", d, "W: B: w 4 4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("invalid position"));
    // Nor is a 5-stone one of the 4-stone game.
    let out = run(&["prove", "--dir", d, "--stones", "4", "W: B: w 5 5"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["prove", "--dir", d, "--stones", "2", "W: B: w 2 2"]);
    assert_eq!(out.status.code(), Some(2));
}
