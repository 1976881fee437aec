//! WDL tables written again from their tables, at a higher zstd level and
//! in larger blocks than a solve takes the time for (a solve writes them at
//! its own level 6, on its critical path). Each file is replaced atomically
//! and read back against its table; a file already written with the asked
//! settings is skipped, so an interrupted run resumes. Under the no-capture
//! rule it writes the outcome tables of the rule (five values at counter 0:
//! a cursed win and a blessed loss beside win, draw and loss), which a
//! solve does not write.

use crate::solve::driver::{intact_wdl_table, lock_directory};
use crate::verify::files::{check_wdl, Loaded};
use crate::write::{wdl_table_path, write_wdl_table_with, WriteOptions};
use anyhow::Context;
use moulin_core::index::Indexer;
use moulin_core::table::Encoding;
use moulin_probe::{Sector, Tablebase};
use std::path::Path;
use std::time::{Duration, Instant};

/// How to write the WDL tables.
#[derive(Clone, Copy, Debug)]
pub struct RewriteOptions {
    /// zstd level (1..=22).
    pub level: i32,
    /// Decompressed KiB of a block.
    pub block_kib: u32,
    /// Threads compressing (`None` or 0: the number of cores).
    pub threads: Option<usize>,
}

/// What a rewrite reports as it goes.
#[derive(Debug)]
pub enum RewriteEvent<'a> {
    /// A sector begins.
    Sector(Sector),
    /// Its WDL table is already written with these settings, kept.
    Kept {
        /// Slots of the sector.
        slots: u64,
    },
    /// Its WDL table is written and read back.
    Written(&'a WrittenWdl),
}

/// One WDL table written.
#[derive(Clone, Debug)]
pub struct WrittenWdl {
    /// The sector.
    pub sector: Sector,
    /// Its slots.
    pub slots: u64,
    /// Bytes of the WDL table it replaced, if an intact one was there.
    pub old_bytes: Option<u64>,
    /// Bytes of the new one.
    pub bytes: u64,
    /// Seconds it took.
    pub seconds: f64,
}

/// What a rewrite did.
#[derive(Clone, Debug)]
pub struct RewriteReport {
    /// WDL tables written.
    pub written: usize,
    /// WDL tables kept.
    pub kept: usize,
    /// Bytes of the intact WDL tables there before.
    pub before: u64,
    /// Bytes of the WDL tables after.
    pub after: u64,
    /// Time of the rewrite.
    pub time: Duration,
}

/// Writes the WDL tables of `sectors` of `tb`, the tables of `dir`, again
/// into `dir`, which it holds locked meanwhile, telling `on` as it goes.
///
/// # Errors
/// A directory that cannot be locked, a table that cannot be read, a WDL
/// table that cannot be written or does not read back.
pub fn rewrite(
    tb: &Tablebase,
    dir: &Path,
    sectors: &[Sector],
    options: &RewriteOptions,
    on: &mut dyn FnMut(RewriteEvent<'_>),
) -> anyhow::Result<RewriteReport> {
    let _lock = lock_directory(dir)?;
    let ix = Indexer::get();
    let write = WriteOptions {
        level: options.level,
        block_bytes: options.block_kib << 10,
        encoding: None,
        threads: options.threads.unwrap_or(0),
        scheme: moulin_core::index::OPPONENT_MAJOR,
    };
    let block_slots = Encoding::of_outcomes(&tb.rules()).slots_in((options.block_kib as u64) << 10);
    let start = Instant::now();
    let (mut before, mut after, mut written, mut kept) = (0u64, 0u64, 0usize, 0usize);
    for &sector in sectors {
        on(RewriteEvent::Sector(sector));
        let path = wdl_table_path(dir, sector);
        let summary = *tb.summary(sector)?;
        let old = intact_wdl_table(dir, &summary);
        let old_bytes = old.as_ref().map(|t| t.summary().bytes);
        let done = old.as_ref().is_some_and(|t| {
            let w = t.summary();
            w.level == options.level && w.block_slots as u64 == block_slots
        });
        drop(old);
        before += old_bytes.unwrap_or(0);
        if done {
            after += old_bytes.unwrap_or(0);
            kept += 1;
            on(RewriteEvent::Kept {
                slots: ix.slots(sector),
            });
            continue;
        }
        let clock = Instant::now();
        let values = tb
            .sector_values(sector)
            .with_context(|| format!("reading the table of {sector}"))?;
        let new = write_wdl_table_with(dir, sector, summary.rules, &values, &write)
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
        on(RewriteEvent::Written(&WrittenWdl {
            sector,
            slots: ix.slots(sector),
            old_bytes,
            bytes: new.bytes,
            seconds: clock.elapsed().as_secs_f64(),
        }));
    }
    Ok(RewriteReport {
        written,
        kept,
        before,
        after,
        time: start.elapsed(),
    })
}
