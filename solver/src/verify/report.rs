//! What a verification found: a verdict per table, and the whole report.

use super::Inconsistency;
use moulin_probe::{Rules, Sector};
use std::path::PathBuf;
use std::time::Duration;

/// What became of one table.
#[derive(Clone, Debug)]
pub struct SectorVerdict {
    /// The sector.
    pub sector: Sector,
    /// Its file (which may be missing).
    pub path: PathBuf,
    /// Slots whose values were checked (0 if the table could not be read).
    pub slots: u64,
    /// Slots that fail the value check.
    pub inconsistencies: u64,
    /// What is wrong with the file, its header or its successors (or with
    /// its WDL table).
    pub problems: Vec<String>,
    /// Whether a WDL table (`<sector>.mtw`) was found and checked against
    /// the table.
    pub wdl_checked: bool,
    /// Time spent on the sector (reading included).
    pub time: Duration,
}

impl SectorVerdict {
    /// Whether the table passed every check.
    pub fn passed(&self) -> bool {
        self.inconsistencies == 0 && self.problems.is_empty()
    }

    /// The lines `moulin verify` prints for the sector, without the last
    /// line's end: `3v3  5172 slots  ok  0.12s`, or `FAILED` and how many
    /// values are wrong, then a line for each problem and each of the
    /// inconsistencies `reported`.
    pub fn describe(&self, reported: &[Inconsistency]) -> String {
        let status = if self.passed() { "ok" } else { "FAILED" };
        let mut text = format!(
            "{:<8} {:>12} slots  {:<6} {:>8.2}s",
            self.sector.name(),
            self.slots,
            status,
            self.time.as_secs_f64()
        );
        if self.wdl_checked {
            text.push_str("  (and its WDL table)");
        }
        match self.inconsistencies {
            0 => {}
            1 => text.push_str("  1 inconsistent value"),
            n => text.push_str(&format!("  {n} inconsistent values")),
        }
        for line in self.problems.iter().map(ToString::to_string) {
            text.push_str(&format!("\n    {line}"));
        }
        for line in reported.iter().map(ToString::to_string) {
            text.push_str(&format!("\n    {line}"));
        }
        text
    }

    /// The sector a line of [`SectorVerdict::describe`] says passed, if it
    /// is such a line.
    pub fn passed_in(line: &str) -> Option<Sector> {
        let mut words = line.split_whitespace();
        let sector = words.next()?.parse().ok()?;
        words.next()?.parse::<u64>().ok()?;
        (words.next()? == "slots" && words.next()? == "ok").then_some(sector)
    }
}

/// What a verification found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// The rule options of the directory's tables.
    pub rules: Rules,
    /// Every table verified, in verifying order (`verify/order.rs`).
    pub sectors: Vec<SectorVerdict>,
    /// The first inconsistencies, described.
    pub reported: Vec<Inconsistency>,
    /// Problems of the directory itself (files that are not tables).
    pub problems: Vec<String>,
    /// Unfinished `*.tmp` files seen and ignored.
    pub ignored: Vec<PathBuf>,
    /// Tables not verified: the log (`VerifyOptions::log`) recorded them
    /// as passed.
    pub skipped: Vec<Sector>,
    /// Time of the whole run.
    pub time: Duration,
}

impl VerifyReport {
    /// Whether everything held: some table was verified or skipped, and
    /// none failed.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
            && !(self.sectors.is_empty() && self.skipped.is_empty())
            && self.sectors.iter().all(|s| s.passed())
    }

    /// Slots whose values were checked.
    pub fn slots(&self) -> u64 {
        self.sectors.iter().map(|s| s.slots).sum()
    }

    /// Slots that fail the value check, in all.
    pub fn inconsistencies(&self) -> u64 {
        self.sectors.iter().map(|s| s.inconsistencies).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_of_a_verdict_tell_whether_it_passed() {
        let mut v = SectorVerdict {
            sector: "4v3".parse().unwrap(),
            path: PathBuf::from("4v3.mtb"),
            slots: 5172,
            inconsistencies: 0,
            problems: Vec::new(),
            wdl_checked: true,
            time: Duration::from_millis(120),
        };
        let ok = v.describe(&[]);
        assert_eq!(
            ok,
            "4v3              5172 slots  ok         0.12s  (and its WDL table)"
        );
        assert_eq!(SectorVerdict::passed_in(&ok), v.sector.into());
        v.problems.push("4v3.mtb: checksum mismatch".into());
        v.inconsistencies = 1;
        let failed = v.describe(&[]);
        assert!(failed.ends_with("1 inconsistent value\n    4v3.mtb: checksum mismatch"));
        assert!(failed
            .lines()
            .all(|l| SectorVerdict::passed_in(l).is_none()));
        assert_eq!(SectorVerdict::passed_in("    4v3 slot 12: ok"), None);
    }
}
