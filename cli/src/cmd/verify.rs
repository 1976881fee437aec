//! `moulin verify`: re-derive every stored value from the rules, check every
//! file (see `moulin::verify`), and optionally write the manifest of checksums
//! and counts that `scripts/publish-checksums.sh` publishes, or keep a log
//! of the sectors verified to resume from.

use super::InputError;
use anyhow::Context;
use moulin::verify::{manifest, verify, verify_targets, VerifyOptions};
use moulin_probe::Sector;
use std::path::PathBuf;

/// Arguments of `moulin verify`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Verify only this sector (`8v7`); repeat for several. Its turns'
    /// sectors must be present. Default: every table of the directory.
    #[arg(long = "sector", value_name = "SECTOR")]
    pub sectors: Vec<String>,
    /// Describe at most this many inconsistencies (all are counted).
    #[arg(long, default_value_t = 20)]
    pub max_reports: usize,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// After a verification that passes, write the checksums and counts of
    /// the verified tables to this file (the published manifest).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the sectors the verification would check, one per line in the
    /// order it checks them (a play set's left-out sectors among them), and
    /// stop: solving order, each sector of the last placement right after
    /// the moving sector whose turns lead where its do.
    #[arg(long, conflicts_with = "manifest")]
    pub list: bool,
    /// Append each sector's lines to this file as soon as it is verified,
    /// and skip the sectors the file already calls ok (a verification that
    /// takes more than one sitting: run it again with the same file; a
    /// sector that failed is verified again).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["manifest", "list"])]
    pub log: Option<PathBuf>,
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Runs `moulin verify`.
pub fn run(args: &Args) -> super::Outcome {
    let sectors = args
        .sectors
        .iter()
        .map(|s| {
            s.parse::<Sector>()
                .map_err(|e| anyhow::Error::new(InputError(e.to_string())))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let options = VerifyOptions {
        dir: args.dir.clone(),
        sectors,
        max_reports: args.max_reports,
        threads: args.threads,
        progress: !args.quiet,
        log: args.log.clone(),
    };
    if args.list {
        for sector in verify_targets(&options)? {
            say(format_args!("{sector}"));
        }
        return Ok(true);
    }
    let report = verify(&options, &mut |verdict, reported| {
        say(format_args!("{}", verdict.describe(reported)));
    })?;
    for p in &report.problems {
        say(format_args!("{p}"));
    }
    for path in &report.ignored {
        say(format_args!("ignored unfinished file {}", path.display()));
    }
    if report.sectors.is_empty() && report.skipped.is_empty() {
        say(format_args!(
            "no tables in {}: nothing verified",
            args.dir.display()
        ));
        return Ok(false);
    }
    let failed = report.sectors.iter().filter(|s| !s.passed()).count();
    let secs = report.time.as_secs_f64();
    let slots = report.slots();
    let rate = slots as f64 / secs.max(1e-9);
    let rules = report.rules;
    let skipped = match &args.log {
        Some(path) => format!(
            "; {} skipped, ok in {}",
            plural(report.skipped.len() as u64, "table"),
            path.display()
        ),
        None => String::new(),
    };
    say(format_args!(
        "verified {slots} slots of {} in {secs:.1}s ({rate:.0} positions/s, rules: {rules}){skipped}",
        plural(report.sectors.len() as u64, "table"),
    ));
    if !report.passed() {
        let shown = report.reported.len() as u64;
        let total = report.inconsistencies();
        let tables = plural(report.sectors.len() as u64, "table");
        if total == 0 {
            // Every failure is a file that could not be read or checked.
            say(format_args!(
                "FAILED: {failed} of {tables} damaged or unreadable (above)"
            ));
        } else {
            say(format_args!(
                "FAILED: {} in {failed} of {tables}{}",
                plural(total, "inconsistent value"),
                if shown < total {
                    format!(" (first {shown} shown)")
                } else {
                    String::new()
                }
            ));
        }
        return Ok(false);
    }
    say(format_args!(
        "every value follows from the rules; every checksum and count holds"
    ));
    if let Some(path) = &args.manifest {
        let verified: Vec<Sector> = report.sectors.iter().map(|s| s.sector).collect();
        let text = manifest(&args.dir, &verified)?;
        std::fs::write(path, text)
            .with_context(|| format!("cannot write the manifest {}", path.display()))?;
        say(format_args!("wrote {}", path.display()));
    }
    Ok(true)
}

/// Prints a line on standard output. A reader that went away (`| head`)
/// neither stops nor crashes the verification: its verdict is the exit code.
pub(super) fn say(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}
