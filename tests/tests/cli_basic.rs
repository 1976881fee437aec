//! The `moulin` program from the outside: `moves`, `perft` and `sectors` as a
//! user runs them, exit codes and messages included.

use std::process::Output;

use moulin_tests::moulin;

fn run(args: &[&str]) -> Output {
    moulin().args(args).output().expect("moulin runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8 output")
}

#[test]
fn moves_of_the_seed_capture_example() {
    let out = run(&["moves", "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let mut b4: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("b2-b4"))
        .collect();
    b4.sort_unstable();
    assert_eq!(b4, ["b2-b4xc3", "b2-b4xe4", "b2-b4xg4"]);
    for line in &lines {
        assert!(line.parse::<moulin_probe::Move>().is_ok(), "{line}");
    }
    assert_eq!(lines.len(), 13);
}

#[test]
fn moves_of_the_start_and_without_flying() {
    let out = run(&["moves", "W: B: w 9 9"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().count(), 24);
    let position = "W:a1,d1,g7 B:b2,d2,f2,d6 w";
    assert_eq!(stdout(&run(&["moves", position])).lines().count(), 51);
    let out = run(&["moves", "--no-flying", position]);
    let mut lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    lines.sort();
    assert_eq!(lines, ["a1-a4", "d1-g1", "g7-d7", "g7-g4"]);
}

#[test]
fn moves_report_a_finished_game() {
    let out = run(&["moves", "W:a1,d1 B:a7,d2,g4 w"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "loss: White has fewer than three stones\n");
    let out = run(&["moves", "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "loss: White is blocked\n");
}

#[test]
fn invalid_positions_exit_2_with_one_line() {
    for (position, reason) in [
        ("W:a1,z9 B: w 9 9", "unknown point"),
        ("W: B: b 9 9", "impossible hand counts"),
        ("W:a1,a1 B:b2,d2,f2 w", "listed twice"),
        ("W:a1,d1 B:b2,d2,f2 b", "game ended before"),
        ("nonsense", "malformed"),
    ] {
        for args in [vec!["moves", position], vec!["perft", "2", position]] {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(out.stdout.is_empty(), "{args:?}");
            let err = stderr(&out);
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains(reason), "{args:?}: {err}");
        }
    }
}

#[test]
fn perft_from_the_start() {
    for (depth, count) in [(1, 24), (2, 552), (3, 12_144), (4, 255_024)] {
        let out = run(&["perft", &depth.to_string()]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out).trim(), count.to_string(), "depth {depth}");
    }
    let out = run(&["perft", "3", "W: B: w 9 9", "--threads", "1"]);
    assert_eq!(stdout(&out).trim(), "12144");
}

#[test]
fn perft_divide_and_finished_games() {
    let out = run(&["perft", "2", "--divide"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 25);
    assert!(lines[..24].iter().all(|l| l.ends_with(" 23")));
    assert_eq!(lines[24], "552");
    let out = run(&["perft", "3", "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w"]);
    assert_eq!(stdout(&out).trim(), "0");
}

#[test]
fn sectors_table_and_json() {
    let out = run(&["sectors", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = rows.as_array().expect("a list");
    assert_eq!(rows.len(), 49);
    assert_eq!(rows[0]["sector"], "3v3");
    let total = |key: &str| rows.iter().map(|r| r[key].as_u64().unwrap()).sum::<u64>();
    let classes = total("classes");
    assert!((8.8e9..9.0e9).contains(&(classes as f64)), "{classes}");
    assert!(total("slots") >= classes);
    let positions = total("positions");
    assert!(positions <= 16 * classes && positions > 15 * classes);
    for row in rows {
        for key in ["stm_board", "opp_board", "stm_hand", "opp_hand"] {
            assert!(row[key].is_u64(), "{key}");
        }
    }
    let out = run(&["sectors", "--all", "--json"]);
    let all: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(all.as_array().unwrap().len() > 49);
    let out = run(&["sectors"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 51);
    assert!(text.lines().last().unwrap().starts_with("total"));
}

/// `moulin solve` ends with the run's CPU time, peak memory and the disk the
/// directory's tables take (the figures `scripts/full-solve.sh` records).
#[test]
fn solve_reports_time_memory_and_disk() {
    let dir = tempfile::tempdir().unwrap();
    let out = moulin()
        .args(["solve", "--max-stones", "3", "-q", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let on_disk: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mtb"))
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    let disk = format!("disk: {on_disk} bytes in 1 tables in ");
    assert!(text.contains(&disk), "{text}");
    let memory = text
        .lines()
        .find_map(|l| l.strip_prefix("cpu: "))
        .and_then(|l| {
            l.split(" KiB)")
                .next()?
                .rsplit('(')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .unwrap_or_else(|| panic!("no peak memory in {text}"));
    // The index tables alone take megabytes; a solve of 3v3 not a gigabyte.
    assert!((1_000..1_000_000).contains(&memory), "{memory} KiB");
}
