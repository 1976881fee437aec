//! `moulin wdl`: write the WDL tables of a directory again from its tables,
//! at a higher zstd level and in larger blocks than a solve takes the time
//! for (`moulin::wdl`): the arguments, the progress and the lines printed.

use super::InputError;
use anyhow::Context;
use moulin::wdl::{rewrite, RewriteEvent, RewriteOptions};
use moulin_core::index::Indexer;
use moulin_probe::Tablebase;
use std::path::PathBuf;

/// zstd level of `moulin wdl` by default.
pub const DEFAULT_LEVEL: i32 = 19;
/// Decompressed KiB of a block of `moulin wdl` by default (a million slots).
pub const DEFAULT_BLOCK_KIB: u32 = 256;

/// Arguments of `moulin wdl`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of the tables (and of their WDL tables).
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// zstd level (1..=22).
    #[arg(long, default_value_t = DEFAULT_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// Decompressed KiB of a block (8..=1024): larger blocks compress
    /// better, and a probe that misses the cache decodes a whole block.
    #[arg(long, default_value_t = DEFAULT_BLOCK_KIB, value_parser = clap::value_parser!(u32).range(8..=1024))]
    pub block_kib: u32,
    /// Only these sectors (default: every table of the directory).
    #[arg(long = "sector", value_name = "SECTOR")]
    pub sectors: Vec<String>,
    /// Threads compressing (default: the number of cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar and no line per sector, only the summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `moulin wdl`.
pub fn run(args: &Args) -> super::Outcome {
    let tb = Tablebase::open(&args.dir)
        .with_context(|| format!("opening the tables in {}", args.dir.display()))?;
    let sectors = super::chosen_sectors(&tb, &args.sectors)?;
    if sectors.is_empty() {
        return Err(InputError(format!("no tables in {}", args.dir.display())).into());
    }
    let options = RewriteOptions {
        level: args.level,
        block_kib: args.block_kib,
        threads: args.threads,
    };
    let ix = Indexer::get();
    let total: u64 = sectors.iter().map(|&s| ix.slots(s)).sum();
    let bar = super::sector_bar(total, args.quiet);
    let report = rewrite(
        &tb,
        &args.dir,
        &sectors,
        &options,
        &mut |event| match event {
            RewriteEvent::Sector(sector) => bar.set_message(sector.name()),
            RewriteEvent::Kept { slots } => bar.inc(slots),
            RewriteEvent::Written(w) => {
                bar.inc(w.slots);
                if !args.quiet {
                    let line = format!(
                        "{}: {} -> {} bytes in {:.1} s",
                        w.sector,
                        w.old_bytes.map_or("none".to_string(), |n| n.to_string()),
                        w.bytes,
                        w.seconds
                    );
                    bar.suspend(|| println!("{line}"));
                }
            }
        },
    )?;
    bar.finish_and_clear();
    println!(
        "{} WDL tables written, {} already at level {} in {} KiB blocks; \
         {} -> {} bytes; {:.1} s",
        report.written,
        report.kept,
        args.level,
        args.block_kib,
        report.before,
        report.after,
        report.time.as_secs_f64()
    );
    Ok(true)
}
