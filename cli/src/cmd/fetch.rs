//! `moulin fetch`: download a table set from a static HTTP(S) host laid out
//! as `moulin serve` serves it (`<URL>/<sector>.mtb`, `<URL>/<sector>.mtw`),
//! several files at once, continuing partial files by range requests, and
//! keeping a file only once its SHA-256 is the one of the list: a published
//! set (embedded from `data/checksums/`) or a list given in `sha256sum`
//! format.

mod download;
mod list;

use super::InputError;
use anyhow::Context;
use download::{fetch_one, Client, Done, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use list::{Entry, Set};
use moulin::lock::DirectoryLock;
use moulin_probe::Sector;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Arguments of `moulin fetch`.
#[derive(clap::Args)]
pub struct Args {
    /// Where the tables are: the URL under which `<sector>.mtb` lies, e.g.
    /// `http://host:8080/tables` for a `moulin serve` (it serves them under
    /// `/tables/`).
    pub url: String,
    /// Directory to fetch into (created if missing; intact files already
    /// there are kept and skipped).
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// The published set to fetch (its SHA-256 list is built in). `wdl` has
    /// no published list: give one with --checksums. [default: plain]
    #[arg(long, value_enum)]
    pub set: Option<Set>,
    /// Fetch only this sector's table (repeatable), e.g. `--sector 3v3`.
    #[arg(long = "sector", value_name = "S")]
    pub sectors: Vec<String>,
    /// Fetch the files of this list instead of a published set: lines
    /// `<sha256>  <sector>.mtb` (or `.mtw`), as `sha256sum` writes them.
    #[arg(long, value_name = "FILE")]
    pub checksums: Option<PathBuf>,
    /// Files downloaded at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
    /// Seconds to wait for a connection, a response or the next bytes of a
    /// stalled server before giving the file up (or trying it again).
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The files to fetch and a description of where the list comes from.
fn selection(args: &Args) -> anyhow::Result<(Vec<Entry>, String)> {
    let set = args.set.unwrap_or(Set::Plain);
    let (entries, origin) = match (&args.checksums, args.set) {
        (Some(path), None | Some(Set::Wdl)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| InputError(format!("cannot read the list {}: {e}", path.display())))?;
            let entries = list::parse_sha256sum(&text)
                .map_err(|e| InputError(format!("the list {}: {e}", path.display())))?;
            if set == Set::Wdl {
                if let Some(e) = entries.iter().find(|e| !e.name.ends_with(".mtw")) {
                    return Err(InputError(format!(
                        "--set wdl: the list {} names {}, not a WDL table (`<sector>.mtw`)",
                        path.display(),
                        e.name
                    ))
                    .into());
                }
            }
            (entries, format!("the list {}", path.display()))
        }
        (Some(_), Some(set)) => {
            return Err(InputError(format!(
                "--checksums replaces the published list of --set {}: give one of them",
                set.name()
            ))
            .into())
        }
        (None, _) => {
            let (entries, origin) = set.entries().ok_or_else(|| {
                InputError(
                    "there is no published list of WDL tables (.mtw): give --set wdl \
                     a list of their SHA-256 with --checksums FILE (sha256sum format), \
                     or fetch the tables (.mtb) and write the WDL tables with `moulin wdl`"
                        .into(),
                )
            })?;
            (entries, format!("set {} ({origin})", set.name()))
        }
    };
    if args.sectors.is_empty() {
        return Ok((entries, origin));
    }
    let mut chosen: Vec<Entry> = Vec::new();
    for typed in &args.sectors {
        let sector: Sector = typed
            .parse()
            .map_err(|e| InputError(format!("--sector: {e}")))?;
        let of_sector: Vec<&Entry> = entries.iter().filter(|e| e.sector == sector).collect();
        if of_sector.is_empty() {
            return Err(InputError(format!(
                "--sector {typed}: no table of sector {typed} in {origin}"
            ))
            .into());
        }
        for e in of_sector {
            if !chosen.contains(e) {
                chosen.push(e.clone());
            }
        }
    }
    Ok((chosen, origin))
}

/// Checks the base URL: http or https, and a valid URL with a file name.
fn check_url(url: &str) -> Result<(), InputError> {
    let lower = url.to_ascii_lowercase();
    if !lower.starts_with("http://") && !lower.starts_with("https://") {
        return Err(InputError(format!(
            "`{url}` is not an http:// or https:// URL"
        )));
    }
    format!("{}/3v3.mtb", url.trim_end_matches('/'))
        .parse::<ureq::http::Uri>()
        .map_err(|e| InputError(format!("`{url}` is not a valid URL: {e}")))?;
    Ok(())
}

/// Runs `moulin fetch`.
pub fn run(args: &Args) -> super::Outcome {
    check_url(&args.url)?;
    let (entries, origin) = selection(args)?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    let command: Vec<String> = std::env::args().collect();
    let _lock = DirectoryLock::acquire(&args.dir, &command.join(" "))
        .with_context(|| format!("locking {}", args.dir.display()))?;
    let client = Client::new(&args.url, Duration::from_secs(args.timeout));
    let listed: u64 = entries.iter().filter_map(|e| e.bytes).sum();
    let bar = ProgressBar::with_draw_target(
        Some(listed),
        match args.quiet {
            true => ProgressDrawTarget::hidden(),
            false => ProgressDrawTarget::stderr(),
        },
    );
    bar.set_style(
        ProgressStyle::with_template(
            "[{elapsed_precise}] [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta} {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let progress = Progress::new(bar);
    println!(
        "fetching {} files from {} into {}: {origin}",
        entries.len(),
        args.url,
        args.dir.display()
    );
    let start = Instant::now();
    let outcomes = fetch_all(&client, &args.dir, &entries, args.jobs.into(), &progress);
    progress.bar.finish_and_clear();
    report(args, &entries, &outcomes, &progress, start.elapsed())
}

/// Fetches every entry with `jobs` threads; the outcomes in list order.
fn fetch_all(
    client: &Client,
    dir: &Path,
    entries: &[Entry],
    jobs: usize,
    progress: &Progress,
) -> Vec<Result<Done, String>> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Result<Done, String>>>> = Mutex::new(vec![None; entries.len()]);
    let update = |n: usize| {
        progress
            .bar
            .set_message(format!("{n}/{} files", entries.len()))
    };
    update(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, entries.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = entries.get(i) else { break };
                let outcome = fetch_one(client, dir, entry, progress);
                if let (Err(e), false) = (&outcome, progress.bar.is_hidden()) {
                    progress.note(&format!("{}: failed: {e}", entry.name));
                }
                outcomes.lock().expect("no thread panics holding it")[i] = Some(outcome);
                update(finished.fetch_add(1, Ordering::Relaxed) + 1);
            });
        }
    });
    outcomes
        .into_inner()
        .expect("no thread panics holding it")
        .into_iter()
        .map(|o| o.expect("every entry has an outcome"))
        .collect()
}

/// Prints what was fetched, skipped and replaced; the failures, each with
/// its reason, on standard error (exit code 1).
fn report(
    args: &Args,
    entries: &[Entry],
    outcomes: &[Result<Done, String>],
    progress: &Progress,
    time: Duration,
) -> super::Outcome {
    let names = |keep: &dyn Fn(&Result<Done, String>) -> bool| -> Vec<&str> {
        entries
            .iter()
            .zip(outcomes)
            .filter(|(_, o)| keep(o))
            .map(|(e, _)| e.name.as_str())
            .collect()
    };
    let fetched = names(&|o| matches!(o, Ok(Done::Fetched { .. })));
    let intact = names(&|o| matches!(o, Ok(Done::Intact)));
    let replaced = names(&|o| matches!(o, Ok(Done::Fetched { replaced: true })));
    let failed: Vec<(&str, &String)> = entries
        .iter()
        .zip(outcomes)
        .filter_map(|(e, o)| o.as_ref().err().map(|r| (e.name.as_str(), r)))
        .collect();
    let received = progress.received.load(Ordering::Relaxed);
    let secs = time.as_secs_f64();
    println!(
        "fetched {} ({received} bytes received in {secs:.1} s, {:.1} MB/s) into {}",
        count(fetched.len()),
        received as f64 / secs.max(1e-9) / 1e6,
        args.dir.display()
    );
    if intact.len() == entries.len() {
        println!(
            "skipped all {}: already there and intact",
            count(entries.len())
        );
    } else if !intact.is_empty() {
        println!(
            "skipped {} already there and intact: {}",
            count(intact.len()),
            intact.join(" ")
        );
    }
    if !replaced.is_empty() {
        println!(
            "fetched again {}, there before but not matching the list: {}",
            count(replaced.len()),
            replaced.join(" ")
        );
    }
    if failed.is_empty() {
        return Ok(true);
    }
    eprintln!(
        "moulin: {} of {} failed (the others are kept):",
        failed.len(),
        count(entries.len())
    );
    for (name, reason) in &failed {
        eprintln!("  {name}: {reason}");
    }
    if failed.len() == entries.len() && failed.iter().all(|(_, r)| r.contains("HTTP 404")) {
        eprintln!(
            "moulin: every file is missing at {}: is it the URL of the tables \
             (`moulin serve` serves them under /tables)?",
            args.url
        );
    }
    Ok(false)
}

/// `1 file`, `2 files`.
fn count(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}
