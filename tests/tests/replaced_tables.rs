//! Tables changed in place underneath a running probe (`cp` over a table,
//! `rsync --inplace`, a truncating copy): the default reader (positional
//! reads) answers with an error or with the old value, never a crash and
//! never a value the tables never held.

use moulin::solve::{solve_moving, SolveOptions};
use moulin_core::board::POINT_NAMES;
use moulin_core::index::Indexer;
use moulin_core::Node;
use moulin_probe::{Outcome, Position, Rules, Sector, Tablebase};
use moulin_tests::{moulin, text};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

fn solve(dir: &Path) {
    let options = SolveOptions {
        dir: dir.to_path_buf(),
        max_stones: 4,
        rules: Rules::default(),
        ..Default::default()
    };
    solve_moving(&options).unwrap();
}

/// Four white and four black stones on points spread by a fixed stride.
fn positions_4v4(n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    while out.len() < n {
        let mut points: Vec<usize> = (0..24).collect();
        for i in 0..8 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let j = i + (state % (24 - i) as u64) as usize;
            points.swap(i, j);
        }
        let names = |p: &[usize]| {
            p.iter()
                .map(|&i| POINT_NAMES[i])
                .collect::<Vec<_>>()
                .join(",")
        };
        let text = format!("W:{} B:{} w", names(&points[..4]), names(&points[4..8]));
        out.push(text.parse().unwrap());
    }
    out
}

fn damage_in_place(path: &Path, how: &str) {
    let len = std::fs::metadata(path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    match how {
        "truncate" => file.set_len(len / 2).unwrap(),
        "zero" => {
            use std::os::unix::fs::FileExt;
            file.write_all_at(&vec![0u8; (len - 200) as usize], 200)
                .unwrap()
        }
        "empty" => file.set_len(0).unwrap(),
        _ => unreachable!(),
    }
}

#[test]
fn a_table_changed_in_place_gives_errors_or_old_values() {
    let positions = positions_4v4(300);
    for how in ["truncate", "zero", "empty"] {
        let dir = tempfile::tempdir().unwrap();
        solve(dir.path());
        // No cache: every probe reads the file again.
        let tb = Tablebase::open(dir.path()).unwrap().with_cache_bytes(0);
        let before: Vec<Outcome> = positions.iter().map(|p| tb.probe(p).unwrap()).collect();
        damage_in_place(&dir.path().join("4v4.mtb"), how);
        let (mut errors, mut old) = (0, 0);
        for (p, was) in positions.iter().zip(&before) {
            match tb.probe(p) {
                Ok(o) => {
                    assert_eq!(o, *was, "{how}: {p} changed its value");
                    old += 1;
                }
                Err(e) => {
                    assert!(!format!("{e:#}").is_empty());
                    errors += 1;
                }
            }
        }
        assert!(errors > 0, "{how}: no probe noticed ({old} old values)");
        // The other tables still answer.
        let three: Position = "W:a1,d1,g1 B:b2,d2,f2 w".parse().unwrap();
        assert!(tb.probe(&three).is_ok(), "{how}");
    }
}

/// The case of the issue: a `moulin probe --json -` batch whose 4v4 table is
/// truncated in place between two lines answers the second with an error
/// line and goes on (it died with SIGBUS when tables were memory-mapped).
#[test]
fn a_probe_batch_survives_a_table_truncated_underneath() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path());
    let mut child = moulin()
        .args(["probe", "--json", "-", "--dir"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // `b` lies in a block the answer for `a` did not read (the process
    // caches decoded blocks, and an old value from the cache is fine).
    let tb = Tablebase::open(dir.path()).unwrap();
    let sector = "4v4".parse::<Sector>().unwrap();
    let per = tb.summary(sector).unwrap().block_slots as u64;
    let block =
        |node: &Node| (Sector::of(node) == sector).then(|| Indexer::get().index(node) / per);
    let candidates = positions_4v4(300);
    let a = candidates[0];
    let mut touched = vec![block(&a.node())];
    Rules::default().for_each_move(&a.node(), |_, next| touched.push(block(&next)));
    let b = *candidates
        .iter()
        .find(|p| !touched.contains(&block(&p.node())))
        .expect("a position in another block");
    let (a, b) = (a.to_string(), b.to_string());
    writeln!(stdin, "{a}").unwrap();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("\"outcome\""), "{first}");
    damage_in_place(&dir.path().join("4v4.mtb"), "empty");
    writeln!(stdin, "{b}").unwrap();
    writeln!(stdin, "W:a1,d1,g1 B:b2,d2,f2 w").unwrap();
    drop(stdin);
    let second = lines.next().unwrap().unwrap();
    let third = lines.next().unwrap().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(second.contains("\"error\""), "{second}");
    assert!(third.contains("\"outcome\""), "{third}");
    // Exit code 1 (a position had no answer), not a signal.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}
