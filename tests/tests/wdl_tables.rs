//! The WDL tables a solve writes beside its tables: every slot of every
//! sector (the moving phase up to 4 stones a side and the placement sectors
//! of the reduced game) holds the outcome of the distance table's code; a
//! rerun writes the missing or damaged ones again, byte for byte; `wdl:
//! false` and the no-capture rule write none.

use moulin::solve::{solve_moving, SolveOptions};
use moulin_probe::value::HOLE;
use moulin_probe::{Outcome, Rules, Tablebase, Wdl};
use std::path::Path;

fn options(dir: &Path) -> SolveOptions {
    SolveOptions {
        dir: dir.to_path_buf(),
        max_stones: 4,
        placement: true,
        ..Default::default()
    }
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

#[test]
fn every_slot_holds_the_outcome_of_its_distance() {
    let dir = tempfile::tempdir().unwrap();
    solve_moving(&options(dir.path())).unwrap();
    let dtw = Tablebase::open(dir.path()).unwrap();
    let wdl = Tablebase::open_wdl(dir.path()).unwrap();
    let sectors: Vec<_> = dtw.sectors().map(|(s, _)| s).collect();
    assert!(sectors.len() >= 15, "{} sectors", sectors.len());
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
    assert!(moving > 0 && placement > 0);
    assert!(compared > 1_000_000, "{compared} slots compared");
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
    let ruled = tempfile::tempdir().unwrap();
    solve_moving(&SolveOptions {
        placement: false,
        max_stones: 3,
        rules: Rules {
            no_capture_limit: Some(10),
            ..Rules::default()
        },
        ..options(ruled.path())
    })
    .unwrap();
    assert!(wdl_files(ruled.path()).is_empty());
    assert!(Tablebase::open_wdl(ruled.path())
        .unwrap()
        .sectors()
        .next()
        .is_none());
}
