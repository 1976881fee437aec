//! Damaged tables and hostile directories: `probe`, `verify` and `solve`
//! each give a clear error naming the file and what is wrong with it, never
//! a panic and never a wrong answer, and the finished tables stay as they
//! were.

use moulin_core::index::Indexer;
use moulin_core::table::Table;
use moulin_probe::{Position, Sector, Side};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use moulin_tests::{copy_of, moulin, text};

/// Runs `moulin`; a panic (exit code 101) fails the test whatever the caller expects.
fn run(args: &[&str], dir: &Path) -> Output {
    let out = moulin()
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("moulin runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() != Some(101) && !err.contains("panicked"),
        "{args:?} panicked: {err}"
    );
    out
}

/// The tables up to four stones a side, solved once per test run (the
/// same directory for every module that asks for them).
fn solved() -> &'static Path {
    moulin_tests::solved(4)
}

/// The files of a directory and their bytes, the writers' lock file aside.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with(moulin::lock::LOCK_FILE))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap_or_default())
        })
        .collect()
}

/// Positions of 4v3 spread over its slots (so over its blocks), as text.
fn positions() -> &'static [String] {
    static LIST: OnceLock<Vec<String>> = OnceLock::new();
    LIST.get_or_init(|| {
        let ix = Indexer::get();
        let s = Sector::moving(4, 3);
        let slots = ix.slots(s);
        (0..48u64)
            .map(|k| k * slots / 48)
            .filter_map(|slot| ix.unindex(s, slot))
            .map(|node| ix.canonical(&node))
            .map(|node| Position::from_node(node, Side::White).to_string())
            .collect()
    })
}

/// `moulin probe --json` of the positions: one line each, answer or error.
fn probe_lines(dir: &Path) -> (Output, Vec<String>) {
    let mut args = vec!["probe", "--json"];
    args.extend(positions().iter().map(String::as_str));
    let out = run(&args, dir);
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    (out, lines)
}

/// What a damage must give: a substring of the errors of `verify` and `solve`.
struct Damage {
    what: &'static str,
    damage: fn(&Path),
    /// In what `verify --sector 4v3` and `solve` say.
    says: &'static str,
    /// Whether even opening the directory fails (else probes of intact
    /// blocks may still answer, correctly).
    open_fails: bool,
}

fn flip(path: &Path, at: impl Fn(usize) -> usize) {
    let mut bytes = std::fs::read(path).unwrap();
    let i = at(bytes.len());
    bytes[i] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

fn t43(dir: &Path) -> PathBuf {
    dir.join("4v3.mtb")
}

fn data_start(dir: &Path) -> usize {
    let table = Table::new(std::fs::read(t43(dir)).unwrap()).unwrap();
    table.summary().data_start() as usize
}

const DAMAGES: &[Damage] = &[
    Damage {
        what: "truncated to half",
        damage: |d| {
            let bytes = std::fs::read(t43(d)).unwrap();
            std::fs::write(t43(d), &bytes[..bytes.len() / 2]).unwrap();
        },
        says: "truncated",
        open_fails: true,
    },
    Damage {
        what: "truncated by one byte",
        damage: |d| {
            let bytes = std::fs::read(t43(d)).unwrap();
            std::fs::write(t43(d), &bytes[..bytes.len() - 1]).unwrap();
        },
        says: "truncated",
        open_fails: true,
    },
    Damage {
        what: "emptied",
        damage: |d| std::fs::write(t43(d), b"").unwrap(),
        says: "not a moulin table",
        open_fails: true,
    },
    Damage {
        what: "a header byte flipped",
        damage: |d| flip(&t43(d), |_| 60),
        says: "checksum mismatch in the header",
        open_fails: true,
    },
    Damage {
        what: "a block index byte flipped",
        damage: |d| flip(&t43(d), |_| 128 + 12 * 3 + 1),
        says: "checksum mismatch",
        open_fails: false,
    },
    Damage {
        what: "a block data byte flipped",
        damage: |d| {
            let start = data_start(d);
            flip(&t43(d), |len| (start + len) / 2)
        },
        says: "checksum mismatch",
        open_fails: false,
    },
    Damage {
        what: "a trailer byte flipped",
        damage: |d| flip(&t43(d), |len| len - 2),
        says: "checksum mismatch in the file",
        open_fails: false,
    },
    Damage {
        what: "another sector's table renamed",
        damage: |d| {
            std::fs::copy(d.join("3v4.mtb"), t43(d)).unwrap();
        },
        says: "holds sector 3v4",
        open_fails: true,
    },
];

#[test]
fn damaged_tables_give_clear_errors_and_no_wrong_answer() {
    let base = solved();
    let (out, good) = probe_lines(base);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(good.len(), positions().len());
    for d in DAMAGES {
        let dir = copy_of(base);
        (d.damage)(dir.path());
        let damaged = files(dir.path());

        let (out, lines) = probe_lines(dir.path());
        if d.open_fails || !out.status.success() {
            assert_eq!(out.status.code(), Some(1), "{}: {}", d.what, text(&out));
            assert!(text(&out).contains("4v3.mtb"), "{}: {}", d.what, text(&out));
        }
        for line in &lines {
            let answered = !line.contains("\"error\"");
            assert!(
                !answered || good.contains(line),
                "{}: wrong answer {line}",
                d.what
            );
        }

        let out = run(&["verify", "-q", "--sector", "4v3"], dir.path());
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "{}: {t}", d.what);
        assert!(
            t.contains("4v3.mtb") && t.contains(d.says),
            "{}: {t}",
            d.what
        );
        // A sector whose turns lead into the damaged one is not checked against it.
        let out = run(&["verify", "-q", "--sector", "3v4"], dir.path());
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "{}: {t}", d.what);
        assert!(t.contains("its turns lead into 4v3"), "{}: {t}", d.what);

        let out = run(&["solve", "--max-stones", "4", "-q"], dir.path());
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "{}: {t}", d.what);
        assert!(t.contains("4v3") && t.contains(d.says), "{}: {t}", d.what);
        assert!(
            files(dir.path()) == damaged,
            "{}: solve changed files",
            d.what
        );
    }
}

#[test]
fn a_table_of_other_rules_among_flying_tables() {
    let other = tempfile::tempdir().unwrap();
    let out = run(
        &["solve", "--max-stones", "3", "--no-flying", "-q"],
        other.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let dir = copy_of(solved());
    std::fs::copy(other.path().join("3v3.mtb"), dir.path().join("3v3.mtb")).unwrap();
    let before = files(dir.path());

    let out = run(&["probe", "W:a1,d1,g1 B:b2,d2,f2 w"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("one rule set"), "{}", text(&out));
    let out = run(&["verify", "-q", "--sector", "3v3"], dir.path());
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("3v3.mtb was solved with no flying") && t.contains("one rule set"),
        "{t}"
    );
    for flags in [
        &["solve", "--max-stones", "4", "-q"][..],
        &["solve", "--max-stones", "4", "--no-flying", "-q"],
    ] {
        let out = run(flags, dir.path());
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "{flags:?}: {t}");
        assert!(t.contains("flying"), "{flags:?}: {t}");
    }
    assert!(files(dir.path()) == before, "solve changed files");
}

#[test]
fn empty_and_missing_directories() {
    let empty = tempfile::tempdir().unwrap();
    let out = run(&["probe", "W:a1,d1,g1 B:b2,d2,f2 w"], empty.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("no table for sector 3v3"),
        "{}",
        text(&out)
    );
    let out = run(&["verify", "-q"], empty.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("no tables in"), "{}", text(&out));

    let missing = empty.path().join("nowhere");
    for args in [&["probe", "W:a1,d1,g1 B:b2,d2,f2 w"][..], &["verify", "-q"]] {
        let out = run(args, &missing);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(text(&out).contains("nowhere"), "{args:?}: {}", text(&out));
    }
    // A directory that cannot be made: its parent is a file.
    let file = empty.path().join("file");
    std::fs::write(&file, b"not a directory").unwrap();
    let out = run(&["solve", "--max-stones", "3", "-q"], &file.join("tables"));
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("file/tables"), "{}", text(&out));
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

#[test]
fn an_unwritable_directory() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("ro");
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = if std::fs::write(d.join("probe"), b"").is_ok() {
        // Root ignores permissions: run the solver as `nobody` instead
        // (setpriv, util-linux), with the temporary directory open to it.
        std::fs::remove_file(d.join("probe")).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let solver = moulin();
        std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(solver.get_program())
            .args(["solve", "--max-stones", "3", "-q", "--dir"])
            .arg(&d)
            .output()
            .expect("as root, this test runs the solver through setpriv (util-linux)")
    } else {
        run(&["solve", "--max-stones", "3", "-q"], &d)
    };
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    // The solver cannot even take the directory's lock.
    assert!(t.contains("/ro") && t.contains("ermission denied"), "{t}");
    assert!(std::fs::read_dir(&d).unwrap().next().is_none());
}

/// `moulin` with a file-size limit of 512 bytes (`ulimit -f 1`, and
/// SIGXFSZ ignored): every write past it fails with "File too large", as
/// writes fail on a full disk.
fn run_with_full_disk(args: &[&str], dir: &Path) -> Output {
    let solver = moulin();
    let out = std::process::Command::new("sh")
        .args(["-c", "ulimit -f 1 && trap '' XFSZ && exec \"$0\" \"$@\""])
        .arg(solver.get_program())
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("sh runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    out
}

/// A full disk, simulated by a file-size limit: the table being written
/// fails, nothing that looks complete is left, the tables already there are
/// untouched, and the next run completes.
#[test]
fn a_full_disk() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(solved().join("3v3.mtb"), d.join("3v3.mtb")).unwrap();
    // With its WDL table, or the run would fail writing that one first.
    std::fs::copy(solved().join("3v3.mtw"), d.join("3v3.mtw")).unwrap();
    let good = std::fs::read(d.join("3v3.mtb")).unwrap();
    assert!(good.len() > 512, "3v3.mtb must be larger than the limit");

    let out = run_with_full_disk(&["solve", "--max-stones", "4", "-q"], d);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("3v4") && t.contains("File too large"), "{t}");
    assert_eq!(std::fs::read(d.join("3v3.mtb")).unwrap(), good);
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n == "3v4.mtb" || n.ends_with(".tmp")),
        "a table or a temporary file left on a full disk: {names:?}"
    );

    // `tamper` on a full disk leaves the table as it was.
    let out = run_with_full_disk(&["tamper", "W:a1,d1,g1 B:b2,d2,f2 w", "draw"], d);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("File too large"), "{t}");
    assert_eq!(std::fs::read(d.join("3v3.mtb")).unwrap(), good);

    // With space again, the run completes.
    let out = run(&["solve", "--max-stones", "4", "-q"], d);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read(d.join("3v4.mtb")).unwrap(),
        std::fs::read(solved().join("3v4.mtb")).unwrap()
    );
}

/// Two writers cannot share a directory: the second is told who holds it.
#[test]
fn a_second_solve_into_a_locked_directory_says_who_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let _held = moulin::lock::DirectoryLock::acquire(dir.path(), "a test holding it").unwrap();
    for args in [
        &["solve", "--max-stones", "3", "-q"][..],
        &["tamper", "W:a1,d1,g1 B:b2,d2,f2 w", "draw"][..],
    ] {
        std::fs::copy(solved().join("3v3.mtb"), dir.path().join("3v3.mtb")).unwrap();
        let out = run(args, dir.path());
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {t}");
        assert!(t.contains("a test holding it") && t.contains("pid"), "{t}");
    }
}
