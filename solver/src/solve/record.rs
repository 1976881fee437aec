//! The run record: beside the tables, `moulin solve` appends one JSON line
//! per item it solves (a moving-phase pair or a placement sector) to
//! `solve-record.jsonl`, after the item's tables are written: its sectors
//! and slots, the wall and CPU seconds of each stage, the resident memory
//! after it and at the peak so far, and the bytes written. Each run that
//! solves anything starts with a `run` line (time, command, threads,
//! budget); a run that finds every table on disk, or stops before its
//! first item is written, leaves the record as it was. Two records are
//! compared item by item with `scripts/compare-records.py`.
//!
//! The record is a log, not a table: a failure to write it is reported on
//! standard error and the solve goes on.

use serde_json::{json, Value};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Name of the record in the table directory.
pub const RECORD_FILE: &str = "solve-record.jsonl";

/// User and system CPU seconds and peak resident memory (KiB) of this
/// process, where the system tells them.
#[cfg(target_os = "linux")]
pub fn cpu_usage() -> Option<(f64, f64, u64)> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is valid.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: initialised by the successful call above.
    let usage = unsafe { usage.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some((
        secs(usage.ru_utime),
        secs(usage.ru_stime),
        usage.ru_maxrss as u64,
    ))
}

/// User and system CPU seconds and peak resident memory (KiB) of this
/// process, where the system tells them.
#[cfg(not(target_os = "linux"))]
pub fn cpu_usage() -> Option<(f64, f64, u64)> {
    None
}

fn cpu_seconds() -> f64 {
    cpu_usage().map_or(0.0, |(user, sys, _)| user + sys)
}

/// Wall and CPU time of the stages of one item, in the order first met.
pub struct StageClock {
    start: Instant,
    cpu_start: f64,
    lap: Instant,
    cpu_lap: f64,
    stages: Vec<(&'static str, f64, f64)>,
}

impl StageClock {
    /// Starts timing an item.
    pub fn start() -> StageClock {
        let (now, cpu) = (Instant::now(), cpu_seconds());
        StageClock {
            start: now,
            cpu_start: cpu,
            lap: now,
            cpu_lap: cpu,
            stages: Vec::new(),
        }
    }

    /// Ends the stage `name` (time since the last lap), adding to an
    /// earlier stage of that name.
    pub fn lap(&mut self, name: &'static str) {
        let (now, cpu) = (Instant::now(), cpu_seconds());
        let wall = now.duration_since(self.lap).as_secs_f64();
        let spent = (cpu - self.cpu_lap).max(0.0);
        match self.stages.iter_mut().find(|(n, _, _)| *n == name) {
            Some(stage) => {
                stage.1 += wall;
                stage.2 += spent;
            }
            None => self.stages.push((name, wall, spent)),
        }
        (self.lap, self.cpu_lap) = (now, cpu);
    }

    /// The item's record line.
    pub fn line(&self, item: &str, sectors: &[String], slots: u64, bytes: u64) -> Value {
        let stages: serde_json::Map<String, Value> = self
            .stages
            .iter()
            .map(|&(name, wall, cpu)| {
                (
                    name.to_string(),
                    json!({ "wall": round(wall), "cpu": round(cpu) }),
                )
            })
            .collect();
        let resident = super::memory::resident_kib();
        json!({
            "type": "item",
            "item": item,
            "sectors": sectors,
            "slots": slots,
            "wall": round(self.start.elapsed().as_secs_f64()),
            "cpu": round((cpu_seconds() - self.cpu_start).max(0.0)),
            "stages": stages,
            "resident_kib": resident.map(|r| r.0),
            "peak_kib": resident.map(|r| r.1),
            "bytes_written": bytes,
        })
    }
}

fn round(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

/// The record file of a run, appended to line by line.
pub struct RunRecord {
    path: PathBuf,
    /// The run's line until the first item's: the file is opened then.
    run: Option<Value>,
    file: Option<File>,
}

impl RunRecord {
    /// The record in `dir` of a run with these settings. Nothing is
    /// written before the first item.
    pub fn open(dir: &Path, threads: usize, memory: Option<u64>) -> RunRecord {
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let command: Vec<String> = std::env::args().collect();
        let run = json!({
            "type": "run",
            "started_unix": started,
            "version": env!("CARGO_PKG_VERSION"),
            "commit": std::env::var("MOULIN_COMMIT").ok(),
            "command": command.join(" "),
            "threads": threads,
            "memory_budget": memory,
        });
        RunRecord {
            path: dir.join(RECORD_FILE),
            run: Some(run),
            file: None,
        }
    }

    /// Appends one line (one `write` call, so lines never interleave),
    /// after the run's line if it is the first. A record that cannot be
    /// opened or written is reported once and given up.
    pub fn write(&mut self, line: &Value) {
        if let Some(run) = self.run.take() {
            match OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
            {
                Ok(file) => self.file = Some(file),
                Err(e) => eprintln!(
                    "warning: no run record: cannot open {}: {e}",
                    self.path.display()
                ),
            }
            self.write(&run);
        }
        if let Some(file) = &mut self.file {
            let mut text = line.to_string();
            text.push('\n');
            if let Err(e) = file.write_all(text.as_bytes()) {
                eprintln!("warning: run record: {e}; no more lines are written");
                self.file = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_of_one_name_add_up() {
        let mut clock = StageClock::start();
        std::thread::sleep(std::time::Duration::from_millis(20));
        clock.lap("read");
        clock.lap("solve");
        std::thread::sleep(std::time::Duration::from_millis(20));
        clock.lap("read");
        let line = clock.line("3v3", &["3v3".into()], 10, 5);
        let read = line["stages"]["read"]["wall"].as_f64().unwrap();
        assert!(read >= 0.04, "two sleeps of 20 ms, got {read}");
        assert!(line["stages"]["solve"]["wall"].as_f64().unwrap() < read);
        assert!(line["wall"].as_f64().unwrap() >= read);
        let names: Vec<&String> = line["stages"].as_object().unwrap().keys().collect();
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn a_record_is_one_json_value_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut record = RunRecord::open(dir.path(), 2, Some(1 << 30));
        assert!(
            !dir.path().join(RECORD_FILE).exists(),
            "written before an item"
        );
        record.write(&StageClock::start().line("3v4+4v3", &[], 7, 0));
        let text = std::fs::read_to_string(dir.path().join(RECORD_FILE)).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["type"], "run");
        assert_eq!(lines[0]["threads"], 2);
        assert_eq!(lines[1]["item"], "3v4+4v3");
    }
}
