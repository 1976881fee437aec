//! `moulin verify` and `moulin tamper` from the outside: solved tables pass;
//! a value rewritten by `tamper` (file still well formed, checksums right)
//! fails and is named; rewriting it back restores the very same bytes. The
//! published counts and checksums of `data/checksums/` are reproduced.

use moulin::verify::{ManifestEntry, SectorValues};
use moulin::write::{write_wdl_table_with, WriteOptions};
use moulin_core::index::Indexer;
use moulin_core::table::Table;
use moulin_core::value::HOLE;
use moulin_core::{Node, Symmetries};
use moulin_probe::{Outcome, Position, Rules, Sector, Side};
use std::path::Path;
use std::process::Output;

use moulin_tests::{moulin, text};

fn run(args: &[&str]) -> Output {
    let out = moulin().args(args).output().expect("moulin runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    out
}

/// The tables up to four stones a side, solved once per test run (the
/// same directory for every module that asks for them).
fn solved() -> &'static Path {
    moulin_tests::solved(4)
}

/// A fresh copy of the solved tables.
fn copy_of_solved() -> tempfile::TempDir {
    moulin_tests::copy_of(solved())
}

fn values(dir: &Path, sector: Sector) -> Vec<u16> {
    let path = dir.join(format!("{sector}.mtb"));
    Table::new(std::fs::read(path).unwrap())
        .unwrap()
        .decode_all()
        .unwrap()
}

/// The first canonical position of a sector whose stored outcome `want` accepts.
fn find(dir: &Path, sector: Sector, want: impl Fn(Outcome) -> bool) -> Option<(Node, Outcome)> {
    let ix = Indexer::get();
    let codes = values(dir, sector);
    ix.positions(sector, 0..ix.slots(sector))
        .filter(|(slot, node)| ix.index(node) == *slot)
        .map(|(slot, node)| (node, Outcome::from_code(codes[slot as usize]).unwrap()))
        .find(|(_, o)| want(*o))
}

fn white_to_move(node: Node) -> String {
    Position::from_node(node, Side::White).to_string()
}

/// The same position seen through a board symmetry, as text.
fn symmetric(node: Node, k: usize) -> String {
    let sym = Symmetries::get();
    let s = Symmetries::all().nth(k % 16).unwrap();
    let image = Node {
        us: sym.map(s, node.us),
        them: sym.map(s, node.them),
        ..node
    };
    white_to_move(image)
}

fn outcome_args(o: Outcome) -> Vec<String> {
    let mut v = vec![o.word().to_string()];
    if let Some(d) = o.distance() {
        v.push(d.to_string());
    }
    v
}

fn tamper(dir: &Path, position: &str, o: Outcome) -> Output {
    let mut args = vec![
        "tamper".to_string(),
        "--dir".into(),
        dir.to_str().unwrap().into(),
        position.into(),
    ];
    args.extend(outcome_args(o));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args)
}

fn verify(dir: &Path, sectors: &[&str]) -> Output {
    let mut args = vec!["verify", "-q", "--dir", dir.to_str().unwrap()];
    for s in sectors {
        args.extend(["--sector", s]);
    }
    run(&args)
}

#[test]
fn solved_tables_pass() {
    let out = verify(solved(), &[]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("every value follows from the rules"), "{t}");
    assert!(t.contains("positions/s"), "{t}");
    for s in ["3v3", "3v4", "4v3", "4v4"] {
        assert!(
            t.lines()
                .any(|l| l.starts_with(s) && l.contains(" ok ") && l.contains("its WDL table")),
            "{t}"
        );
    }
}

#[test]
fn a_wdl_table_that_disagrees_with_its_table_is_found() {
    let dir = copy_of_solved();
    let s: Sector = "4v4".parse().unwrap();
    let mut codes = values(dir.path(), s);
    // Swap a won and a drawn class of the same size: the counts stay, two
    // slots of the WDL table are wrong.
    let ix = Indexer::get();
    let slot_of = |want: fn(Outcome) -> bool, size: Option<u32>| {
        (0..codes.len()).find(|&i| {
            Outcome::from_code(codes[i]).is_some_and(want)
                && size.is_none_or(|z| ix.class_size(s, i as u64) == z)
        })
    };
    let won = slot_of(|o| matches!(o, Outcome::Win(_)), None).unwrap();
    let size = ix.class_size(s, won as u64);
    let drawn = slot_of(|o| o == Outcome::Draw, Some(size)).unwrap();
    codes.swap(won, drawn);
    write_wdl_table_with(
        dir.path(),
        s,
        Rules::default(),
        &codes,
        &WriteOptions::default(),
    )
    .unwrap();
    let out = verify(dir.path(), &["4v4"]);
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    let first = won.min(drawn);
    assert!(t.contains(&format!("4v4.mtw: slot {first} holds")), "{t}");
}

#[test]
fn a_damaged_file_is_named_as_damaged() {
    let dir = copy_of_solved();
    let path = dir.path().join("4v4.mtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let out = verify(dir.path(), &["4v4"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("4v4.mtb: checksum mismatch"), "{t}");
    assert!(
        t.contains("FAILED: 1 of 1 table damaged or unreadable"),
        "{t}"
    );
}

#[test]
fn tampered_values_are_found_and_named() {
    let dir = copy_of_solved();
    let d = dir.path();
    let s33 = Sector::moving(3, 3);
    let original = std::fs::read(d.join("3v3.mtb")).unwrap();
    type Change = fn(Outcome) -> Option<Outcome>;
    let cases: [(&str, Change); 5] = [
        ("a loss made a draw", |o| match o {
            Outcome::Loss(n) if n > 0 => Some(Outcome::Draw),
            _ => None,
        }),
        ("a win made two turns longer", |o| match o {
            Outcome::Win(n) => Some(Outcome::Win(n + 2)),
            _ => None,
        }),
        ("a win made a loss", |o| match o {
            Outcome::Win(n) => Some(Outcome::Loss(n + 1)),
            _ => None,
        }),
        ("a loss made two turns shorter", |o| match o {
            Outcome::Loss(n) if n >= 2 => Some(Outcome::Loss(n - 2)),
            _ => None,
        }),
        ("a draw made a win", |o| match o {
            Outcome::Draw => Some(Outcome::Win(7)),
            _ => None,
        }),
    ];
    for (k, (what, change)) in cases.iter().enumerate() {
        let (node, stored) = find(d, s33, |o| change(o).is_some()).expect(what);
        let new = change(stored).unwrap();
        // Tamper through a symmetric copy: the slot is that of the class.
        let out = tamper(d, &symmetric(node, k + 1), new);
        assert!(out.status.success(), "{what}: {}", text(&out));
        assert_ne!(
            std::fs::read(d.join("3v3.mtb")).unwrap(),
            original,
            "{what}"
        );

        let out = verify(d, &["3v3"]);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "{what} not found: {t}");
        let named = format!("{} (White to move): stored {new}", white_to_move(node));
        assert!(t.contains(&named), "{what}: `{named}` not in\n{t}");
        assert!(t.contains("FAILED"), "{what}: {t}");

        let out = tamper(d, &white_to_move(node), stored);
        assert!(out.status.success(), "{what}: {}", text(&out));
        assert_eq!(
            std::fs::read(d.join("3v3.mtb")).unwrap(),
            original,
            "{what}: tampering back gives other bytes"
        );
    }
}

#[test]
fn a_tampered_value_in_a_sector_pair_is_found() {
    let dir = copy_of_solved();
    let d = dir.path();
    let s43 = Sector::moving(4, 3);
    let (node, stored) = find(d, s43, |o| matches!(o, Outcome::Loss(n) if n > 0)).unwrap();
    let position = white_to_move(node);
    let original = std::fs::read(d.join("4v3.mtb")).unwrap();
    assert!(tamper(d, &position, Outcome::Win(1)).status.success());
    let out = verify(d, &["4v3"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!("{position} (White to move): stored win 1")),
        "{t}"
    );
    assert!(tamper(d, &position, stored).status.success());
    assert_eq!(std::fs::read(d.join("4v3.mtb")).unwrap(), original);
    assert!(verify(d, &["4v3"]).status.success());
}

#[test]
fn tamper_refuses_bad_input_with_exit_2() {
    // A copy: `tamper` takes the directory as a writer, and the solved
    // tables are shared with modules that read them meanwhile.
    let copy = copy_of_solved();
    let d = copy.path().to_str().unwrap();
    let p = "W:a1,d1,g1 B:b2,d2,f2 w";
    for (args, reason) in [
        (vec![p, "win", "2"], "odd distance"),
        (vec![p, "loss", "3"], "even distance"),
        (vec![p, "draw", "4"], "no distance"),
        (vec![p, "win"], "needs a distance"),
        (vec![p, "maybe", "3"], "unknown outcome"),
        (vec!["W:a1,z9 B: w", "win", "1"], "unknown point"),
        (vec!["W:a1,d1 B:b2,d2,f2 w", "win", "1"], "game is over"),
    ] {
        let mut all = vec!["tamper", "--dir", d];
        all.extend(args);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {}", text(&out));
        assert!(text(&out).contains(reason), "{all:?}: {}", text(&out));
    }
    // A sector without a table is an error of the directory, not of the input.
    let out = run(&[
        "tamper",
        "--dir",
        d,
        "W:a1,d1,g1 B:b2,d2,f2,a7,d7 w",
        "draw",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("no table for sector 3v5"),
        "{}",
        text(&out)
    );
}

#[test]
fn missing_successor_sectors_are_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(solved().join("4v4.mtb"), dir.path().join("4v4.mtb")).unwrap();
    let out = verify(dir.path(), &[]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("its turns lead into 3v4"), "{t}");
    assert!(t.contains("no table for sector 3v4"), "{t}");
    let out = verify(solved(), &["5v5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("no table for sector 5v5"));
    let out = verify(solved(), &["5x5"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Values that the rules contradict in ways `tamper` cannot produce: holes
/// out of place, and a header whose counts disagree with its values.
#[test]
fn holes_and_counts_are_checked() {
    let s = Sector::moving(3, 3);
    let ix = Indexer::get();
    let good = values(solved(), s);
    let check = |codes: &[u16]| {
        let sv = SectorValues {
            rules: Rules::default(),
            sector: s,
            values: codes,
            successors: vec![(s, codes)],
        };
        sv.check(10, None)
    };
    let clean = check(&good);
    assert_eq!(clean.inconsistencies, 0);
    let table = Table::new(std::fs::read(solved().join("3v3.mtb")).unwrap()).unwrap();
    assert!(clean.tally.header_disagreements(table.summary()).is_empty());
    let mut summary = *table.summary();
    summary.classes.win += 1;
    summary.max_loss = Some(30);
    assert_eq!(clean.tally.header_disagreements(&summary).len(), 2);

    let hole = (0..good.len() as u64)
        .find(|&i| !ix.is_canonical(s, i))
        .unwrap();
    let class = (0..good.len() as u64)
        .find(|&i| ix.is_canonical(s, i))
        .unwrap();
    let mut bad = good.clone();
    bad[hole as usize] = moulin_core::value::DRAW;
    bad[class as usize] = HOLE;
    let found = check(&bad);
    // The class itself, and its predecessors that read it.
    assert!(found.inconsistencies >= 2, "{}", found.inconsistencies);
    let lines: Vec<String> = found.reported.iter().map(|i| i.to_string()).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("slot {hole}: ")) && l.contains("is a hole")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("slot {class}: ")) && l.contains("holds a hole")),
        "{lines:?}"
    );
}

/// The counts of `data/checksums/moving-5.txt`, and the file checksums (the
/// format is deterministic), reproduced by solving up to four a side. If the
/// format or the solver's compression changed on purpose, run
/// `scripts/publish-checksums.sh` again.
#[test]
fn published_checksums_are_reproduced() {
    let published = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/checksums/moving-5.txt");
    let text = std::fs::read_to_string(&published).expect("published checksums");
    let entries: Vec<ManifestEntry> = text.lines().filter_map(ManifestEntry::parse).collect();
    assert_eq!(entries.len(), 9, "sectors 3v3..5v5 listed");
    let mut compared = 0;
    for e in entries
        .iter()
        .filter(|e| e.sector.stm_board <= 4 && e.sector.opp_board <= 4)
    {
        let path = solved().join(format!("{}.mtb", e.sector));
        let ours = ManifestEntry::of_file(&path, e.sector).unwrap();
        assert!(
            ours.same_counts(e),
            "{}: counts differ\nours      {ours}\npublished {e}",
            e.sector
        );
        assert!(
            ours == *e,
            "{}: same counts, other bytes (rerun scripts/publish-checksums.sh if the \
             format changed on purpose)\nours      {ours}\npublished {e}",
            e.sector
        );
        compared += 1;
    }
    assert_eq!(compared, 4);
}

/// `moulin verify | head -1`: the reader goes away, the verification goes
/// on and its verdict is still the exit code.
#[test]
fn a_closed_output_pipe_is_no_crash() {
    let mut child = moulin()
        .args(["verify", "-q", "--sector", "3v3", "--dir"])
        .arg(solved())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The sectors of the lines `moulin verify` prints for them, each with
/// whether it passed (`ok`), in their order.
fn sector_lines(text: &str) -> Vec<(Sector, bool)> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let sector = words.next()?.parse().ok()?;
            words.next()?.parse::<u64>().ok()?;
            (words.next()? == "slots").then(|| (sector, words.next() == Some("ok")))
        })
        .collect()
}

fn verify_logged(dir: &Path, log: &Path) -> Output {
    run(&[
        "verify",
        "-q",
        "--dir",
        dir.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
    ])
}

fn read(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap()
}

/// `moulin verify --log`: every sector's line goes to the log; a rerun
/// skips the sectors the log calls ok, and verifies those whose line is
/// gone.
#[test]
fn a_log_resumes_a_verification() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("verify.txt");
    let all: Vec<(Sector, bool)> = ["3v3", "3v4", "4v3", "4v4"]
        .iter()
        .map(|s| (s.parse().unwrap(), true))
        .collect();
    let out = verify_logged(solved(), &log);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let mut printed = sector_lines(&t);
    printed.sort();
    assert_eq!(printed, all, "{t}");
    assert!(t.contains("; 0 tables skipped, ok in "), "{t}");
    let mut logged = sector_lines(&read(&log));
    logged.sort();
    assert_eq!(logged, all, "{}", read(&log));
    let first = read(&log);

    let out = verify_logged(solved(), &log);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(sector_lines(&t), [], "{t}");
    assert!(
        t.contains("verified 0 slots of 0 tables") && t.contains("; 4 tables skipped, ok in "),
        "{t}"
    );
    assert_eq!(read(&log), first);

    // 3v4's line gone: 3v4 is verified again, and only 3v4.
    assert_eq!(moulin_tests::remove_lines(&log, "3v4 "), 3, "{first}");
    let out = verify_logged(solved(), &log);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(sector_lines(&t), [("3v4".parse().unwrap(), true)], "{t}");
    assert!(t.contains("; 3 tables skipped, ok in "), "{t}");
    assert_eq!(sector_lines(&read(&log)).len(), 4, "{}", read(&log));
}

/// A damaged table is named in the log as failed, and verified again by
/// every rerun until it passes.
#[test]
fn a_log_verifies_a_failed_table_again() {
    let dir = copy_of_solved();
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("verify.txt");
    let path = dir.path().join("4v4.mtb");
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    bad[good.len() / 2] ^= 0xff;
    std::fs::write(&path, &bad).unwrap();
    let s44: Sector = "4v4".parse().unwrap();

    let out = verify_logged(dir.path(), &log);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let logged = sector_lines(&read(&log));
    assert_eq!(logged.len(), 4, "{}", read(&log));
    assert!(logged.contains(&(s44, false)), "{}", read(&log));
    assert!(
        read(&log).contains("4v4.mtb: checksum mismatch"),
        "{}",
        read(&log)
    );

    let out = verify_logged(dir.path(), &log);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_eq!(sector_lines(&t), [(s44, false)], "{t}");
    assert!(t.contains("; 3 tables skipped, ok in "), "{t}");
    assert!(t.contains("4v4.mtb: checksum mismatch"), "{t}");

    std::fs::write(&path, &good).unwrap();
    let out = verify_logged(dir.path(), &log);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(sector_lines(&t), [(s44, true)], "{t}");
    let logged = sector_lines(&read(&log));
    assert_eq!(
        logged.iter().filter(|l| l.0 == s44).count(),
        3,
        "{logged:?}"
    );
    let out = verify_logged(dir.path(), &log);
    assert!(text(&out).contains("; 4 tables skipped"), "{}", text(&out));
}
