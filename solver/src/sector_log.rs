//! A log of a check's sectors, for checks that take longer than one
//! sitting: each sector's result lines are appended to the file as soon as
//! they are known, and a later run with the same file skips the sectors it
//! records as passed (a sector that failed is checked again).
//!
//! A sector's lines are written at once and synced before the next sector
//! starts, so a run that is stopped loses no finished sector and writes
//! nothing for the sector it was checking. A line left unfinished by a
//! crash is ended before the next is appended, so it cannot run into it.

use anyhow::Context;
use moulin_probe::Sector;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A check's log, open for appending.
#[derive(Debug)]
pub struct SectorLog {
    path: PathBuf,
    file: File,
    passed: BTreeSet<Sector>,
}

impl SectorLog {
    /// Opens the log at `path`, made if missing; `passed` reads a line and
    /// gives the sector it records as passed, if it is such a line.
    ///
    /// # Errors
    /// A log that cannot be read or opened for appending.
    pub fn open(path: &Path, passed: fn(&str) -> Option<Sector>) -> anyhow::Result<SectorLog> {
        let cannot = || format!("cannot open the log {}", path.display());
        let before = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(cannot),
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(cannot)?;
        if before.last().is_some_and(|&b| b != b'\n') {
            file.write_all(b"\n").with_context(cannot)?;
        }
        Ok(SectorLog {
            path: path.to_path_buf(),
            file,
            passed: String::from_utf8_lossy(&before)
                .lines()
                .filter_map(passed)
                .collect(),
        })
    }

    /// Whether the log recorded `sector` as passed when it was opened.
    pub fn passed(&self, sector: Sector) -> bool {
        self.passed.contains(&sector)
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the lines of a sector (without the last line's end) and
    /// syncs them to the disk.
    ///
    /// # Errors
    /// A log that cannot be written.
    pub fn append(&mut self, lines: &str) -> anyhow::Result<()> {
        let mut text = String::with_capacity(lines.len() + 1);
        text.push_str(lines);
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write to the log {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok_line(line: &str) -> Option<Sector> {
        let (sector, rest) = line.split_once(' ')?;
        (rest == "ok").then(|| sector.parse().ok())?
    }

    #[test]
    fn passed_sectors_are_read_and_lines_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.txt");
        // Missing: made, nothing passed.
        let mut log = SectorLog::open(&path, ok_line).unwrap();
        assert!(!log.passed("3v3".parse().unwrap()));
        log.append("3v3 ok").unwrap();
        log.append("3v4 FAILED\n    why").unwrap();
        drop(log);
        // A line left unfinished is ended before the next.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"4v3 o").unwrap();
        let mut log = SectorLog::open(&path, ok_line).unwrap();
        log.append("4v4 ok").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "3v3 ok\n3v4 FAILED\n    why\n4v3 o\n4v4 ok\n"
        );
        for (s, passed) in [
            ("3v3", true),
            ("3v4", false),
            ("4v3", false),
            ("4v4", false),
        ] {
            assert_eq!(log.passed(s.parse().unwrap()), passed, "{s}");
        }
        assert!(SectorLog::open(&path, ok_line)
            .unwrap()
            .passed("4v4".parse().unwrap()));
    }
}
