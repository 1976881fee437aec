//! `moulin solve --memory`: under a budget far below what the solver would
//! keep (4 MiB), finished sectors are dropped and read again from disk, and
//! the tables are byte for byte those of a run without a budget, whatever
//! the thread count; the peak memory the solver reports is lower (its own
//! high-water mark, not the peak of this test process, which a child's
//! `ru_maxrss` would start from).

use moulin_tests::{moulin, text};
use std::collections::BTreeMap;
use std::path::Path;

/// Solves the moving and placement sectors up to 5 a side; the tables and
/// the peak memory the run reports (KiB).
fn solve(dir: &Path, memory: &str, threads: &str) -> (BTreeMap<String, Vec<u8>>, u64) {
    let out = moulin()
        .args(["solve", "--max-stones", "5", "--placement", "-q"])
        .args(["--memory", memory, "--threads", threads, "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let peak = t
        .lines()
        .find_map(|l| l.strip_prefix("cpu: "))
        .and_then(|l| l.split(" KiB)").next()?.rsplit('(').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no peak memory in {t}"));
    let tables = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mtb"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    (tables, peak)
}

/// Two solves up to 5 a side with placement (slow; run with `--ignored`).
#[test]
#[ignore]
fn a_tiny_budget_writes_the_same_tables_with_less_memory() {
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (free, free_peak) = solve(dirs[0].path(), "unlimited", "2");
    // One thread under the budget: neither changes a byte.
    let (tiny, tiny_peak) = solve(dirs[1].path(), "4M", "1");
    assert_eq!(free.len(), 40, "9 moving and 31 placement tables");
    assert!(
        free == tiny,
        "the budget or the thread count changed the tables"
    );
    assert!(
        tiny_peak < free_peak,
        "peak {tiny_peak} KiB under 4 MiB, {free_peak} KiB without a budget"
    );
}

#[test]
fn a_bad_budget_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["12X", "0", "lots"] {
        let out = moulin()
            .args(["solve", "--max-stones", "3", "-q", "--memory", bad, "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(text(&out).contains(bad), "{}", text(&out));
    }
}
