//! Crash safety: `moulin solve` killed (SIGKILL, no chance to clean up) at
//! random moments and run again ends with tables byte-identical to those of
//! an uninterrupted run, and the tables do not depend on the number of
//! threads. Between the kills, every `*.mtb` present is complete: a table is
//! written to a temporary `<name>.mtb.<pid>-<n>.tmp` and renamed, and a leftover `.tmp` is never
//! taken for a table.
//!
//! The kill moments come from a seed printed on standard error; set
//! `MOULIN_CRASH_SEED` to replay a run.

use moulin_core::table::Table;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use moulin_tests::moulin;

const MAX_STONES: &str = "4";

fn solve(dir: &Path, threads: usize) -> Command {
    let mut c = moulin();
    c.args(["solve", "-q", "--max-stones", MAX_STONES, "--threads"])
        .arg(threads.to_string())
        .arg("--dir")
        .arg(dir);
    c
}

fn check(out: &Output) {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The tables of a directory (`*.mtb` files only) with their bytes.
fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // The tables and the WDL tables written beside them.
        .filter(|p| p.extension().is_some_and(|e| e == "mtb" || e == "mtw"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Files other than tables and the run record (`solve-record.jsonl`).
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with(moulin::solve::record::RECORD_FILE))
        .filter(|p| p.extension().is_some_and(|e| e != "mtb" && e != "mtw"))
        .collect()
}

/// A small xorshift generator: enough to spread kill moments.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[test]
fn killed_solves_resume_to_the_same_bytes() {
    let reference = tempfile::tempdir().unwrap();
    // Build the binary before timing a run.
    drop(moulin());
    let start = Instant::now();
    check(&solve(reference.path(), 1).output().unwrap());
    let full = start.elapsed();
    let expected = tables(reference.path());
    assert_eq!(expected.len(), 8, "{:?}", expected.keys());
    for (name, bytes) in &expected {
        Table::new(bytes.as_slice()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }

    let two = tempfile::tempdir().unwrap();
    let start = Instant::now();
    check(&solve(two.path(), 2).output().unwrap());
    let full = full.min(start.elapsed());
    assert!(
        tables(two.path()) == expected,
        "--threads 2 wrote other bytes than --threads 1"
    );

    let seed = std::env::var("MOULIN_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            t.map_or(1, |d| d.as_nanos() as u64) | 1
        });
    eprintln!("kill moments from MOULIN_CRASH_SEED={seed}");
    let mut rng = Rng(seed);
    let crashed = tempfile::tempdir().unwrap();
    let mut killed = 0;
    for round in 0..5 {
        let mut child = solve(crashed.path(), 2)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Anywhere in the first third of a full run's time: each run goes
        // on from the tables the killed ones finished, so the kills fall
        // all over the run, in solving and in writing.
        let wait = Duration::from_millis(rng.below(full.as_millis() as u64 / 3));
        std::thread::sleep(wait);
        let finished = child.try_wait().unwrap().is_some();
        child.kill().unwrap();
        child.wait().unwrap();
        killed += usize::from(!finished);
        for (name, bytes) in tables(crashed.path()) {
            assert!(
                expected.get(&name) == Some(&bytes),
                "round {round} (killed after {wait:?}, seed {seed}): {name} is present but not complete"
            );
        }
    }
    let out = solve(crashed.path(), 2).output().unwrap();
    check(&out);
    assert!(
        tables(crashed.path()) == expected,
        "resumed run (seed {seed}) wrote other bytes"
    );
    assert!(
        leftovers(crashed.path()).is_empty(),
        "seed {seed}: files left behind: {:?}",
        leftovers(crashed.path())
    );
    eprintln!("{killed} of 5 runs killed before they finished");
    assert!(
        killed >= 1,
        "seed {seed}: no run was killed before it finished"
    );
}

/// A leftover temporary file, as a kill during a write leaves it, is never
/// taken for a table: the sector is solved again and the file replaced.
#[test]
fn a_leftover_temporary_file_is_not_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut c = moulin();
    c.args(["solve", "-q", "--max-stones", "3", "--dir"]).arg(d);
    check(&c.output().unwrap());
    let good = std::fs::read(d.join("3v3.mtb")).unwrap();
    std::fs::rename(d.join("3v3.mtb"), d.join("3v3.mtb.tmp")).unwrap();
    let half = good.len() / 2;
    std::fs::write(d.join("3v3.mtb.tmp"), &good[..half]).unwrap();

    let mut verify = moulin();
    verify.args(["verify", "-q", "--dir"]).arg(d);
    let out = verify.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("no tables"), "{text}");
    assert!(text.contains("ignored unfinished file"), "{text}");

    let mut probe = moulin();
    probe
        .args(["probe", "W:a1,d1,g1 B:b2,d2,f2 w", "--dir"])
        .arg(d);
    let out = probe.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no table for sector 3v3"), "{err}");

    check(&c.output().unwrap());
    assert_eq!(std::fs::read(d.join("3v3.mtb")).unwrap(), good);
    assert!(leftovers(d).is_empty(), "{:?}", leftovers(d));
}
