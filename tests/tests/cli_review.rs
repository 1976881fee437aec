//! `moulin probe --json` with practical chances and `moulin review` from the
//! outside, over the tables up to 4 stones a side. The games reviewed are
//! built from what `moulin probe --json` says about each position, so the
//! marks expected come from the tables, not from `review` itself.

use moulin_tests::moulin;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A position where, by `moulin probe --json` (checked below), exactly one
/// move keeps the draw and the seven others lose (Black flies with three
/// stones): the small-game analogue of the example.
const ONE_DRAW: &str = "W:d1,f2,c5,d5 B:b2,c3,b6 w";

fn tables() -> &'static Path {
    moulin_tests::solved(4)
}

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = moulin()
        .args(args)
        .arg("--dir")
        .arg(tables())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("moulin runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn probe(position: &str) -> Value {
    let out = run(&["probe", "--json", position], "");
    assert!(out.status.success(), "{}", moulin_tests::text(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The position after a move, played with the library's rules (`review`
/// reads the game text and plays it through its own parser).
fn play(position: &str, mv: &str) -> String {
    let pos: moulin_probe::Position = position.parse().unwrap();
    let next = moulin_probe::Rules::default()
        .play(&pos, mv.parse().unwrap())
        .unwrap();
    next.to_string()
}

/// How the test picks a move from `probe --json`.
#[derive(Clone, Copy)]
enum Pick {
    /// The first of `best_moves`.
    Best,
    /// A move that loses although the position does not (a blunder).
    Losing,
    /// A move that wins in more turns than the best (slower), else the best.
    SlowerWin,
}

/// Builds a game from `start` with the picks, returning the moves and the
/// marks `review` must print, derived from `probe --json` values.
fn build(start: &str, picks: &[Pick]) -> (Vec<String>, Vec<Option<&'static str>>) {
    let mut position = start.to_string();
    let (mut moves, mut marks) = (Vec::new(), Vec::new());
    for pick in picks {
        let answer = probe(&position);
        let all = answer["moves"].as_array().unwrap();
        let best = answer["best_moves"][0].as_str().unwrap().to_string();
        let (mv, mark) = match pick {
            Pick::Best => (best, None),
            Pick::Losing => {
                assert_ne!(answer["outcome"], "loss", "{answer}");
                let m = all
                    .iter()
                    .find(|m| m["outcome"] == "loss")
                    .expect("a losing move");
                (m["move"].as_str().unwrap().to_string(), Some("blunder"))
            }
            Pick::SlowerWin => {
                let d = answer["distance"].as_u64();
                let slower = all
                    .iter()
                    .find(|m| m["outcome"] == "win" && m["distance"].as_u64() > d);
                match (answer["outcome"].as_str(), slower) {
                    (Some("win"), Some(m)) => {
                        (m["move"].as_str().unwrap().to_string(), Some("slower"))
                    }
                    _ => (best, None),
                }
            }
        };
        position = play(&position, &mv);
        moves.push(mv);
        marks.push(mark);
    }
    (moves, marks)
}

fn review(start: &str, game: &str) -> Vec<Value> {
    let out = run(&["review", "--json", "--from", start], game);
    assert!(out.status.success(), "{}", moulin_tests::text(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn probe_json_keeps_its_fields_and_adds_chances() {
    let answer = probe(ONE_DRAW);
    assert_eq!(answer["outcome"], "draw");
    assert_eq!(answer["best_moves"].as_array().unwrap().len(), 1);
    let moves = answer["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 8);
    for m in moves {
        for key in ["move", "outcome", "distance"] {
            assert!(m.get(key).is_some(), "{m}");
        }
        let c = &m["chances"];
        let n = |k: &str| c[k].as_u64().unwrap();
        assert_eq!(
            n("losing") + n("drawing") + n("winning"),
            n("replies"),
            "{m}"
        );
        assert_eq!(c["fastest_loss"].is_null(), n("losing") == 0, "{m}");
        let share = n("traps") as f64 / n("replies") as f64;
        assert!((c["error_chance"].as_f64().unwrap() - share).abs() < 1e-12);
    }
    // Seven losing moves, one draw: the shape.
    let losing = moves.iter().filter(|m| m["outcome"] == "loss").count();
    assert_eq!(losing, 7);
    let plain = run(&["probe", "--json", "--no-chances", ONE_DRAW], "");
    let plain: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(plain["moves"][0].get("chances").is_none());
    assert_eq!(plain["best_moves"], answer["best_moves"]);
}

#[test]
fn review_marks_the_losing_move_and_no_other() {
    // Every White move but the one draw loses: play a losing one first.
    let picks = [Pick::Losing, Pick::Best, Pick::Best, Pick::Best, Pick::Best];
    let (moves, marks) = build(ONE_DRAW, &picks);
    let game = format!(
        "1. {} {}\n2. {} {} 3. {}",
        moves[0], moves[1], moves[2], moves[3], moves[4]
    );
    let lines = review(ONE_DRAW, &game);
    assert_eq!(lines.len(), 5);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["ply"], i + 1);
        assert_eq!(line["move"], moves[i].as_str());
        assert_eq!(line["mark"].as_str(), marks[i], "{line}");
    }
    assert_eq!(lines[0]["before"]["outcome"], "draw");
    assert_eq!(lines[0]["after"]["outcome"], "loss");
    assert_eq!(lines[0]["best_moves"], probe(ONE_DRAW)["best_moves"]);
    // The mover's view: after White's blunder Black to move is winning.
    assert_eq!(lines[1]["side"], "black");
    assert_eq!(lines[1]["before"]["outcome"], "win");
    assert!(lines[1]["before"]["distance"].as_u64().unwrap() % 2 == 1);
    assert_eq!(marks.iter().filter(|m| m.is_some()).count(), 1);
}

#[test]
fn review_marks_a_later_blunder_and_a_slower_win() {
    let picks = [Pick::Best, Pick::Best, Pick::Losing, Pick::Best, Pick::Best];
    let (moves, marks) = build(ONE_DRAW, &picks);
    let lines = review(ONE_DRAW, &moves.join("\n"));
    let got: Vec<Option<&str>> = lines.iter().map(|l| l["mark"].as_str()).collect();
    assert_eq!(got, marks);
    assert_eq!(marks, [None, None, Some("blunder"), None, None]);
    // The text form marks the same ply.
    let out = run(&["review", "--from", ONE_DRAW, "-"], &moves.join(" "));
    let text = String::from_utf8(out.stdout).unwrap();
    let blunders: Vec<&str> = text.lines().filter(|l| l.contains("blunder ")).collect();
    assert_eq!(blunders.len(), 1, "{text}");
    assert!(blunders[0].trim_start().starts_with("3 "), "{text}");

    // Black wins in 23 here, and has wins in 25 and 27 too (probe --json).
    let won = "W:b2,e3,e4,d7 B:d1,d2,d6 b";
    let picks = [Pick::SlowerWin, Pick::Best, Pick::SlowerWin, Pick::Best];
    let (moves, marks) = build(won, &picks);
    assert_eq!(marks[0], Some("slower"));
    let lines = review(won, &moves.join(" "));
    let got: Vec<Option<&str>> = lines.iter().map(|l| l["mark"].as_str()).collect();
    assert_eq!(got, marks);
    assert_eq!(lines[0]["before"]["outcome"], "win");
    assert!(lines[0]["after"]["distance"].as_u64() > lines[0]["before"]["distance"].as_u64());
}

#[test]
fn review_stops_at_an_illegal_move_with_its_number() {
    let game = "1. f2-d2 b2-b4 2. d2-d3 z9-a1";
    let out = run(&["review", "--from", ONE_DRAW], game);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("ply 4") && err.contains("unknown point `z9`"),
        "{err}"
    );
    // Legal syntax, illegal move: d1-d3 is not a slide.
    let out = run(&["review", "--from", ONE_DRAW], "d1-d3");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("ply 1") && err.contains("illegal move"),
        "{err}"
    );
    // A missing game file is named.
    let missing: PathBuf = tables().join("no-such-game.txt");
    let out = run(&["review", missing.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("no-such-game.txt"));
}
