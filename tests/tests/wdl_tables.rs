//! The WDL tables a solve writes beside its tables: every slot of every
//! sector (the moving phase up to 4 stones a side and the placement sectors
//! of the reduced game) holds the outcome of the distance table's code; a
//! rerun writes the missing or damaged ones again, byte for byte; `wdl:
//! false` and the no-capture rule write none; `moulin wdl` writes them again
//! smaller, with the same outcomes, and under the rule writes the rule's.

use moulin::solve::{solve_moving, SolveOptions};
use moulin_core::value::HOLE;
use moulin_probe::{Outcome, Rules, Tablebase, Wdl};
use moulin_tests::{moulin, text};
use std::path::Path;

fn options(dir: &Path) -> SolveOptions {
    SolveOptions {
        dir: dir.to_path_buf(),
        max_stones: 4,
        placement: true,
        ..Default::default()
    }
}

/// The moving phase up to `max_stones` stones a side under a no-capture
/// limit of 10.
fn solved_under_the_rule(max_stones: u8) -> tempfile::TempDir {
    let ruled = tempfile::tempdir().unwrap();
    solve_moving(&SolveOptions {
        placement: false,
        max_stones,
        rules: Rules {
            no_capture_limit: Some(10),
            ..Rules::default()
        },
        ..options(ruled.path())
    })
    .unwrap();
    ruled
}

fn wdl_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mtw"))
        .collect();
    names.sort();
    names
}

/// Checks every slot of every WDL table of `dir` against the outcome of its
/// distance table's code; returns the slots compared, and the moving and
/// placement sectors seen.
fn check_every_slot(dir: &Path) -> (u64, u32, u32) {
    let dtw = Tablebase::open(dir).unwrap();
    let wdl = Tablebase::open_wdl(dir).unwrap();
    let sectors: Vec<_> = dtw.sectors().map(|(s, _)| s).collect();
    assert_eq!(wdl.sectors().map(|(s, _)| s).collect::<Vec<_>>(), sectors);
    let (mut compared, mut moving, mut placement) = (0u64, 0, 0);
    for &s in &sectors {
        let codes = dtw.sector_values(s).unwrap();
        let outcomes = wdl.sector_values(s).unwrap();
        assert_eq!(codes.len(), outcomes.len(), "{s}");
        let (d, w) = (dtw.summary(s).unwrap(), wdl.summary(s).unwrap());
        assert_eq!((d.classes, d.positions), (w.classes, w.positions), "{s}");
        assert!(
            w.bytes < d.bytes || d.bytes < 4096,
            "{s}: {} vs {}",
            w.bytes,
            d.bytes
        );
        for (slot, (&code, &out)) in codes.iter().zip(&outcomes).enumerate() {
            if code == HOLE {
                continue;
            }
            // Parity of the distance, read here without the probe's Outcome.
            let want = match code {
                0 => Wdl::Draw,
                c if (c - 1) % 2 == 1 => Wdl::Win,
                _ => Wdl::Loss,
            };
            assert_eq!(Wdl::from_code(out), Some(want), "{s} slot {slot}");
            assert_eq!(Wdl::from(Outcome::from_code(code).unwrap()), want);
            compared += 1;
        }
        if s.is_moving() {
            moving += 1;
        } else {
            placement += 1;
        }
    }
    (compared, moving, placement)
}

#[test]
fn every_slot_holds_the_outcome_of_its_distance() {
    let dir = tempfile::tempdir().unwrap();
    solve_moving(&options(dir.path())).unwrap();
    let sectors = Tablebase::open(dir.path()).unwrap().sectors().count();
    assert!(sectors >= 15, "{sectors} sectors");
    let (compared, moving, placement) = check_every_slot(dir.path());
    assert!(moving > 0 && placement > 0);
    assert!(compared > 1_000_000, "{compared} slots compared");
}

fn wdl_bytes(dir: &Path) -> u64 {
    let wdl = Tablebase::open_wdl(dir).unwrap();
    wdl.sectors().map(|(_, s)| s.bytes).sum()
}

/// `moulin wdl` writes the WDL tables again at another level and block size:
/// smaller, with the same outcome in every slot; a rerun of it or of the
/// solve keeps them; a damaged one is written again.
#[test]
fn moulin_wdl_rewrites_them_smaller_with_the_same_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    solve_moving(&options(dir.path())).unwrap();
    let before = wdl_bytes(dir.path());
    let run = || {
        let out = moulin()
            .args(["wdl", "-q", "--level", "19", "--block-kib", "64", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        text(&out)
    };
    let first = run();
    assert!(
        first.starts_with(&format!(
            "{} WDL tables written, 0 already",
            wdl_files(dir.path()).len()
        )),
        "{first}"
    );
    let after = wdl_bytes(dir.path());
    assert!(after < before, "{after} bytes after, {before} before");
    let wdl = Tablebase::open_wdl(dir.path()).unwrap();
    for (s, w) in wdl.sectors() {
        assert_eq!(w.level, 19, "{s}");
        assert_eq!(w.block_slots, 4 * 64 * 1024, "{s}");
    }
    drop(wdl);
    let (compared, _, _) = check_every_slot(dir.path());
    assert!(compared > 1_000_000, "{compared} slots compared");
    let names = wdl_files(dir.path());
    let read = |n: &str| std::fs::read(dir.path().join(n)).unwrap();
    let rewritten: Vec<Vec<u8>> = names.iter().map(|n| read(n)).collect();
    assert!(run().starts_with("0 WDL tables written"));
    solve_moving(&options(dir.path())).unwrap();
    assert!(rewritten == names.iter().map(|n| read(n)).collect::<Vec<_>>());
    let mut damaged = rewritten[0].clone();
    let at = damaged.len() - 20;
    damaged[at] ^= 0x40;
    std::fs::write(dir.path().join(&names[0]), &damaged).unwrap();
    assert!(run().starts_with("1 WDL tables written"));
    assert!(rewritten == names.iter().map(|n| read(n)).collect::<Vec<_>>());
}

/// The outcome code a rule outcome table holds for a rule table's code, read
/// from the format's two tables, not from the probe: 0 a draw; `4d + 1` a
/// loss (2), `4d + 2` a win (1), `4d + 3` a blessed loss (4), `4d + 4` a
/// cursed win (3).
fn rule_outcome(code: u16) -> u16 {
    match code {
        0 => 0,
        c => [2, 1, 4, 3][((c - 1) % 4) as usize],
    }
}

/// Under the no-capture rule `moulin wdl` writes the rule's outcome tables:
/// every slot holds the five-valued outcome of its code at counter 0, as
/// the format's table of rule codes gives it (`4d + 1` a loss, `4d + 2` a
/// win, `4d + 3` a blessed loss, `4d + 4` a cursed win), in the outcome
/// codes of the format (0 draw, 1 win, 2 loss, 3 cursed win, 4 blessed
/// loss); `probe_wdl` reads them, a cursed win and a blessed loss as draws.
#[test]
fn moulin_wdl_writes_the_outcome_tables_of_a_rule() {
    let ruled = solved_under_the_rule(4);
    let out = moulin()
        .args(["wdl", "-q", "--block-kib", "8", "--dir"])
        .arg(ruled.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let dtc = Tablebase::open(ruled.path()).unwrap();
    let wdl = Tablebase::open_wdl(ruled.path()).unwrap();
    let sectors: Vec<_> = dtc.sectors().map(|(s, _)| s).collect();
    assert!(sectors.len() >= 3, "{sectors:?}");
    assert_eq!(wdl.sectors().map(|(s, _)| s).collect::<Vec<_>>(), sectors);
    let ix = moulin_core::index::Indexer::get();
    let (mut compared, mut seen) = (0u64, [0u64; 5]);
    for &s in &sectors {
        assert_eq!(wdl.summary(s).unwrap().block_slots, 3 * 8 * 1024, "{s}");
        let codes = dtc.sector_values(s).unwrap();
        let outcomes = wdl.sector_values(s).unwrap();
        assert_eq!(codes.len(), outcomes.len(), "{s}");
        for (slot, (&code, &out)) in codes.iter().zip(&outcomes).enumerate() {
            if code == HOLE {
                continue;
            }
            let want = rule_outcome(code);
            assert_eq!(out, want, "{s} slot {slot}: code {code}");
            let node = ix.unindex(s, slot as u64).unwrap();
            let pos = moulin_probe::Position::from_node(node, moulin_probe::Side::White);
            let three = [Wdl::Draw, Wdl::Win, Wdl::Loss, Wdl::Draw, Wdl::Draw][want as usize];
            assert_eq!(wdl.probe_wdl(&pos).unwrap(), three, "{s} slot {slot}");
            seen[want as usize] += 1;
            compared += 1;
        }
    }
    assert!(compared > 10_000, "{compared} slots compared");
    assert!(seen.iter().all(|&n| n > 0), "outcomes seen: {seen:?}");
    // `moulin verify` checks them beside the tables, and finds a wrong slot.
    let verify = || {
        moulin()
            .args(["verify", "--dir"])
            .arg(ruled.path())
            .output()
            .unwrap()
    };
    let out = verify();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    for s in &sectors {
        let name = s.name();
        assert!(
            t.lines()
                .any(|l| l.starts_with(&name) && l.contains(" ok ") && l.contains("its WDL table")),
            "{t}"
        );
    }
    let s = sectors
        .iter()
        .max_by_key(|s| dtc.summary(**s).unwrap().slots)
        .unwrap();
    // Two positions of the same class size and different outcomes swapped:
    // the header's counts still agree, two slots do not.
    let mut codes = dtc.sector_values(*s).unwrap();
    let held = |i: usize| codes[i] != HOLE;
    let first = (0..codes.len()).find(|&i| held(i)).unwrap();
    let other = (first + 1..codes.len())
        .find(|&i| {
            held(i)
                && rule_outcome(codes[i]) != rule_outcome(codes[first])
                && ix.class_size(*s, i as u64) == ix.class_size(*s, first as u64)
        })
        .unwrap();
    codes.swap(first, other);
    moulin::write::write_wdl_table_with(
        ruled.path(),
        *s,
        dtc.rules(),
        &codes,
        &moulin::write::WriteOptions::default(),
    )
    .unwrap();
    let out = verify();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(
        t.contains(&format!("{}.mtw: slot {first} holds", s.name())),
        "{t}"
    );
}

#[test]
fn moulin_wdl_refuses_unknown_sectors_and_bad_settings() {
    let dir = tempfile::tempdir().unwrap();
    solve_moving(&SolveOptions {
        placement: false,
        max_stones: 3,
        ..options(dir.path())
    })
    .unwrap();
    for (args, says) in [
        (&["--sector", "9v9"][..], "no table of sector 9v9"),
        (&["--sector", "nine"][..], "invalid sector `nine`"),
        (&["--block-kib", "4"][..], "--block-kib"),
        (&["--level", "0"][..], "--level"),
    ] {
        let out = moulin()
            .args(["wdl", "-q"])
            .args(args)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}

#[test]
fn a_rerun_writes_missing_and_damaged_wdl_tables_again() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SolveOptions {
        placement: false,
        ..options(dir.path())
    };
    solve_moving(&opts).unwrap();
    let names = wdl_files(dir.path());
    assert_eq!(names, ["3v3.mtw", "3v4.mtw", "4v3.mtw", "4v4.mtw"]);
    let read = |n: &str| std::fs::read(dir.path().join(n)).unwrap();
    let before: Vec<Vec<u8>> = names.iter().map(|n| read(n)).collect();
    let tables_before = std::fs::read(dir.path().join("4v4.mtb")).unwrap();
    std::fs::remove_file(dir.path().join("3v4.mtw")).unwrap();
    let mut damaged = before[3].clone();
    let at = damaged.len() - 20;
    damaged[at] ^= 0x40;
    std::fs::write(dir.path().join("4v4.mtw"), &damaged).unwrap();
    solve_moving(&opts).unwrap();
    let after: Vec<Vec<u8>> = names.iter().map(|n| read(n)).collect();
    assert!(before == after, "WDL tables differ after the rerun");
    assert_eq!(
        std::fs::read(dir.path().join("4v4.mtb")).unwrap(),
        tables_before
    );
}

#[test]
fn no_wdl_tables_when_not_asked_or_under_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    solve_moving(&SolveOptions {
        placement: false,
        wdl: false,
        ..options(dir.path())
    })
    .unwrap();
    assert!(wdl_files(dir.path()).is_empty());
    let ruled = solved_under_the_rule(3);
    assert!(wdl_files(ruled.path()).is_empty());
    assert!(Tablebase::open_wdl(ruled.path())
        .unwrap()
        .sectors()
        .next()
        .is_none());
}
