//! `moulin wdl`: write the WDL tables of a directory again from its tables,
//! at a higher zstd level and in larger blocks than a solve takes the time
//! for (a solve writes them at its own level 6, on its critical path).
//! Each file is replaced atomically and read back against its table; a file
//! already written with the asked settings is skipped, so an interrupted run
//! resumes. Under the no-capture rule it writes the outcome tables of the
//! rule (five values at counter 0: a cursed win and a blessed loss beside
//! win, draw and loss), which a solve does not write.

use super::InputError;
use anyhow::Context;
use moulin::solve::driver::{intact_wdl_table, lock_directory};
use moulin::verify::files::{check_wdl, Loaded};
use moulin::write::{wdl_table_path, write_wdl_table_with, WriteOptions};
use moulin_core::index::Indexer;
use moulin_core::table::Encoding;
use moulin_probe::Tablebase;
use std::path::PathBuf;
use std::time::Instant;

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
    let _lock = lock_directory(&args.dir)?;
    let ix = Indexer::get();
    let options = WriteOptions {
        level: args.level,
        block_bytes: args.block_kib << 10,
        encoding: None,
        threads: args.threads.unwrap_or(0),
        scheme: moulin_core::index::OPPONENT_MAJOR,
    };
    let block_slots = Encoding::of_outcomes(&tb.rules()).slots_in((args.block_kib as u64) << 10);
    let total: u64 = sectors.iter().map(|&s| ix.slots(s)).sum();
    let bar = super::sector_bar(total, args.quiet);
    let start = Instant::now();
    let (mut before, mut after, mut written, mut kept) = (0u64, 0u64, 0usize, 0usize);
    for &sector in &sectors {
        bar.set_message(sector.name());
        let path = wdl_table_path(&args.dir, sector);
        let summary = *tb.summary(sector)?;
        let old = intact_wdl_table(&args.dir, &summary);
        let old_bytes = old.as_ref().map_or(0, |t| t.summary().bytes);
        let done = old.as_ref().is_some_and(|t| {
            let w = t.summary();
            w.level == args.level && w.block_slots as u64 == block_slots
        });
        drop(old);
        before += old_bytes;
        if done {
            after += old_bytes;
            kept += 1;
            bar.inc(ix.slots(sector));
            continue;
        }
        let clock = Instant::now();
        let values = tb
            .sector_values(sector)
            .with_context(|| format!("reading the table of {sector}"))?;
        let new = write_wdl_table_with(&args.dir, sector, summary.rules, &values, &options)
            .with_context(|| format!("writing {}", path.display()))?;
        // Read back: every slot of the new file against the table.
        let own = Loaded {
            summary: Some(summary),
            values,
        };
        match check_wdl(&path, &own) {
            Ok(true) => {}
            Ok(false) => anyhow::bail!("{} vanished after it was written", path.display()),
            Err(e) => anyhow::bail!("the new WDL table does not read back: {e}"),
        }
        drop(own);
        after += new.bytes;
        written += 1;
        bar.inc(ix.slots(sector));
        if !args.quiet {
            let line = format!(
                "{sector}: {} -> {} bytes in {:.1} s",
                match old_bytes {
                    0 => "none".to_string(),
                    n => n.to_string(),
                },
                new.bytes,
                clock.elapsed().as_secs_f64()
            );
            bar.suspend(|| println!("{line}"));
        }
    }
    bar.finish_and_clear();
    println!(
        "{written} WDL tables written, {kept} already at level {} in {} KiB blocks; \
         {before} -> {after} bytes; {:.1} s",
        args.level,
        args.block_kib,
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}
