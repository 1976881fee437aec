//! The no-capture rule from the command line: `moulin solve
//! --no-capture-limit`, `moulin verify` on rule tables (passing, and failing
//! on every kind of tampered value), `moulin probe --counter` in text and
//! JSON against the library, `moulin stats`, and the errors.

use moulin_probe::{Position, RuleOutcome, Tablebase};
use moulin_tests::{moulin, text};
use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;
use tempfile::TempDir;

const LIMIT: u16 = 6;

fn run(args: &[&str]) -> Output {
    moulin().args(args).output().expect("moulin runs")
}

fn path(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

/// Rule tables up to 4 stones a side with placement, N = 6.
fn solved() -> &'static Path {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = run(&[
            "solve",
            "--max-stones",
            "4",
            "--placement",
            "--no-capture-limit",
            &LIMIT.to_string(),
            "-q",
            "--dir",
            path(dir.path()),
        ]);
        assert!(out.status.success(), "{}", text(&out));
        dir
    })
    .path()
}

fn copy_of_solved() -> TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(solved()).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "mtb") {
            std::fs::copy(&p, copy.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    copy
}

#[test]
fn rule_tables_verify_and_say_their_rule() {
    let out = run(&["verify", "--dir", path(solved())]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("no-capture limit 6"), "{}", text(&out));
    let out = run(&["stats", "--dir", path(solved())]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("cursed won") && t.contains("blessed lost"),
        "{t}"
    );
    let out = run(&["stats", "--json", "--dir", path(solved())]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tb = Tablebase::open(solved()).unwrap();
    let mut cursed = 0;
    for s in list.as_array().unwrap() {
        assert_eq!(s["no_capture_limit"], LIMIT);
        let sector = s["sector"].as_str().unwrap().parse().unwrap();
        // The header's counts are those of the values.
        let values = tb.sector_values(sector).unwrap();
        let count = |f: fn(RuleOutcome) -> bool| {
            values
                .iter()
                .filter(|&&c| RuleOutcome::from_code(c).is_some_and(f))
                .count() as u64
        };
        let c = count(|v| matches!(v, RuleOutcome::CursedWin(_)));
        assert_eq!(s["cursed_wins"], c, "{sector}");
        let b = count(|v| matches!(v, RuleOutcome::BlessedLoss(_)));
        assert_eq!(s["blessed_losses"], b, "{sector}");
        cursed += c;
    }
    assert!(cursed > 0, "a limit of 6 leaves cursed wins in 3v3");
}

/// A stored value of `sector` for which `want` holds, as a position.
fn find(dir: &Path, sector: &str, want: impl Fn(RuleOutcome) -> bool) -> (String, RuleOutcome) {
    let tb = Tablebase::open(dir).unwrap();
    let sector = sector.parse().unwrap();
    let values = tb.sector_values(sector).unwrap();
    let ix = moulin_core::index::Indexer::get();
    for (slot, &code) in values.iter().enumerate() {
        let Some(v) = RuleOutcome::from_code(code) else {
            continue;
        };
        let node = ix.unindex(sector, slot as u64).unwrap();
        if want(v) && !tb.rules().is_lost(&node) {
            let pos = Position::from_node(node, node.side_by_hands());
            return (pos.to_string(), v);
        }
    }
    panic!("no such value in {sector}");
}

fn args_of(v: RuleOutcome) -> Vec<String> {
    let mut out = vec![v.word().to_string()];
    if let Some(d) = v.distance() {
        out.push(d.to_string());
    }
    out
}

/// A sector, which of its values to take, and what to write instead.
type Case = (
    &'static str,
    fn(RuleOutcome) -> bool,
    fn(RuleOutcome) -> RuleOutcome,
);

#[test]
fn every_kind_of_tampered_value_is_found() {
    let dir = copy_of_solved();
    let cases: Vec<Case> = vec![
        // A win one turn longer, a cursed win read as a win, a blessed
        // loss as a loss, a loss as a blessed loss, a draw as a cursed win.
        (
            "3v3",
            |v| matches!(v, RuleOutcome::Win(_)),
            |v| match v {
                RuleOutcome::Win(d) => RuleOutcome::Win(d + 1),
                v => v,
            },
        ),
        (
            "3v3",
            |v| matches!(v, RuleOutcome::CursedWin(_)),
            |v| match v {
                RuleOutcome::CursedWin(d) => RuleOutcome::Win(d),
                v => v,
            },
        ),
        (
            "3v3",
            |v| matches!(v, RuleOutcome::BlessedLoss(_)),
            |v| match v {
                RuleOutcome::BlessedLoss(d) => RuleOutcome::Loss(d),
                v => v,
            },
        ),
        (
            "4v4",
            |v| matches!(v, RuleOutcome::Loss(d) if d > 0),
            |v| match v {
                RuleOutcome::Loss(d) => RuleOutcome::BlessedLoss(d),
                v => v,
            },
        ),
        (
            "3v4",
            |v| v == RuleOutcome::Draw,
            |_| RuleOutcome::CursedWin(7),
        ),
        (
            "2v3h1v0",
            |v| matches!(v, RuleOutcome::Win(_)),
            |v| match v {
                RuleOutcome::Win(d) => RuleOutcome::CursedWin(d),
                v => v,
            },
        ),
    ];
    // Writes a value with `moulin tamper`.
    let write = |pos: &str, v: RuleOutcome| {
        let mut args = vec![
            "tamper".to_string(),
            "--dir".into(),
            path(dir.path()).into(),
            pos.to_string(),
        ];
        args.extend(args_of(v));
        let out = moulin().args(&args).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    // Verifies these sectors alone (a tampered slot contradicts its
    // successors): whether they passed.
    let verify = |sectors: &[&str]| {
        let mut args = vec!["verify", "-q", "--dir", path(dir.path())];
        for sector in sectors {
            args.extend(["--sector", sector]);
        }
        let out = run(&args);
        assert_eq!(
            out.status.success(),
            !text(&out).contains("FAILED"),
            "{}",
            text(&out)
        );
        out.status.success()
    };
    let mut touched = Vec::new();
    for (sector, want, change) in cases {
        let (pos, v) = find(dir.path(), sector, want);
        let bad = change(v);
        write(&pos, bad);
        assert!(!verify(&[sector]), "{pos}: {v} -> {bad} passed verify");
        // Put it back.
        write(&pos, v);
        touched.push(sector);
    }
    // Every value put back: the tables pass again.
    touched.dedup();
    assert!(verify(&touched), "the restored values fail verify");
}

#[test]
fn probe_counter_json_is_what_the_library_says() {
    let tb = Tablebase::open(solved()).unwrap();
    let (pos, _) = find(
        solved(),
        "3v3",
        |v| matches!(v, RuleOutcome::Win(d) if d > 2),
    );
    let position: Position = pos.parse().unwrap();
    for c in 0..LIMIT {
        let out = run(&[
            "probe",
            "--json",
            "--counter",
            &c.to_string(),
            "--dir",
            path(solved()),
            &pos,
        ]);
        assert!(out.status.success(), "{}", text(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = tb.probe_counter(&position, c).unwrap();
        assert_eq!(json["outcome"], want.word(), "counter {c}");
        assert_eq!(json["distance"], serde_json::json!(want.distance()));
        let moves = tb.probe_moves_counter(&position, c).unwrap();
        let listed = json["moves"].as_array().unwrap();
        assert_eq!(listed.len(), moves.len());
        for entry in listed {
            let (_, v) = moves
                .iter()
                .find(|(m, _)| m.to_string() == entry["move"])
                .unwrap();
            assert_eq!(entry["outcome"], v.word());
            assert_eq!(entry["distance"], serde_json::json!(v.distance()));
        }
        let best: Vec<String> = tb
            .best_moves_counter(&position, c)
            .unwrap()
            .iter()
            .map(|m| m.to_string())
            .collect();
        let mut listed_best: Vec<String> = json["best_moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        listed_best.sort();
        let mut best = best;
        best.sort();
        assert_eq!(listed_best, best, "counter {c}");
    }
    // The text form names the rule's values.
    let out = run(&["probe", "--counter", "5", "--dir", path(solved()), &pos]);
    assert!(text(&out).contains("to conversion"), "{}", text(&out));
}

#[test]
fn bad_counters_and_rules_are_named() {
    let (pos, _) = find(solved(), "3v3", |v| matches!(v, RuleOutcome::Win(_)));
    let out = run(&["probe", "--counter", "6", "--dir", path(solved()), &pos]);
    assert!(!out.status.success());
    assert!(text(&out).contains("0 <= counter < 6"), "{}", text(&out));
    let out = run(&["probe", "--counter", "-1", "--dir", path(solved()), &pos]);
    assert!(!out.status.success());
    let out = run(&[
        "probe",
        "--counter",
        "1",
        "--dir",
        path(solved()),
        "W:a1,d1,b4 B:g1,g4,f6 w 1 1",
    ]);
    assert!(
        text(&out).contains("during placement") || text(&out).contains("with stones in hand"),
        "{}",
        text(&out)
    );
    // A limit the rule cannot have.
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "solve",
        "--no-capture-limit",
        "0",
        "--dir",
        path(dir.path()),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Another limit into the same directory is refused.
    let copy = copy_of_solved();
    let out = run(&[
        "solve",
        "--max-stones",
        "4",
        "--no-capture-limit",
        "7",
        "-q",
        "--dir",
        path(copy.path()),
    ]);
    assert!(!out.status.success());
    assert!(text(&out).contains("other rules"), "{}", text(&out));
    // Commands that read no counter refuse rule tables.
    let out = run(&["prove", "--dir", path(solved()), &pos]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("no-capture limit of 6"),
        "{}",
        text(&out)
    );
}
