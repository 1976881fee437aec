//! One stored value of a table rewritten, the file kept well formed
//! (re-encoded with the same layout, counts and checksums recomputed,
//! written to a temporary file and renamed), so that only the verifier can
//! tell: a maintenance tool for testing it (`moulin tamper`).

use crate::write::{write_table_with, WriteOptions};
use anyhow::Context;
use moulin_core::index::Indexer;
use moulin_core::table::read::{check_file_name, read_summary};
use moulin_core::table::{Encoding, PositionalFile, Table, EXTENSION};
use moulin_core::Node;
use moulin_probe::{Rules, Sector};
use std::path::{Path, PathBuf};

/// Where the tables of `dir` store a position: the table's file, its
/// sector and the slot.
///
/// # Errors
/// No table of the position's sector in `dir`.
pub fn locate(dir: &Path, node: &Node) -> anyhow::Result<(PathBuf, Sector, u64)> {
    let sector = Sector::of(node);
    let path = dir.join(format!("{}.{EXTENSION}", sector.name()));
    if !path.is_file() {
        anyhow::bail!("no table for sector {sector} in {}", dir.display());
    }
    Ok((path, sector, Indexer::get().index(node)))
}

/// The rule options a table file was solved under, from its header.
///
/// # Errors
/// A file that cannot be read or whose header is damaged.
pub fn stored_rules(path: &Path) -> anyhow::Result<Rules> {
    let file =
        PositionalFile::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(read_summary(&file)
        .with_context(|| format!("{} is damaged", path.display()))?
        .rules)
}

/// Rewrites the code of one slot of a table file: reads and checks the whole
/// table, changes the code, and writes the table again with the same rules,
/// block size, compression level and (when the code fits) encoding. Returns
/// the code it replaced.
pub fn rewrite_slot(path: &Path, sector: Sector, slot: u64, code: u16) -> anyhow::Result<u16> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let table = Table::new(bytes).with_context(|| format!("{} is damaged", path.display()))?;
    check_file_name(path, table.sector()).with_context(|| format!("{}", path.display()))?;
    if table.sector() != sector {
        anyhow::bail!(
            "{} holds sector {}, not {sector}",
            path.display(),
            table.sector()
        );
    }
    let mut values = table
        .decode_all()
        .with_context(|| format!("{} is damaged", path.display()))?;
    let summary = *table.summary();
    drop(table);
    let Some(value) = values.get_mut(slot as usize) else {
        anyhow::bail!("slot {slot} is past the end of {}", path.display());
    };
    let old = std::mem::replace(value, code);
    let encoding = match summary.encoding {
        Encoding::U8 if code >= u8::MAX as u16 => None,
        e => Some(e),
    };
    let options = WriteOptions {
        level: summary.level,
        block_bytes: summary.block_slots * summary.encoding.width() as u32,
        encoding,
        scheme: summary.scheme,
        threads: 0,
    };
    write_table_with(path, sector, summary.rules, &values, &options)
        .with_context(|| format!("cannot rewrite {}", path.display()))?;
    Ok(old)
}
