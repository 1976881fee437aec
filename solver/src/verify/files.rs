//! Reading the table files for the verifier: the directory's listing, a
//! header alone, a whole table with its checksums.

use crate::solve::memory::huge_zeroed;
use moulin_core::play::outcome_code;
use moulin_core::table::format::HEADER_LEN;
use moulin_core::table::read::check_file_name;
use moulin_core::table::{Table, TableKind, TableSummary, EXTENSION};
use moulin_core::value::HOLE;
use moulin_probe::error::chain;
use moulin_probe::{FileError, ProbeError, Sector, Tablebase};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::error::Error;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A table read whole: its header and its codes.
pub struct Loaded {
    /// `None` for a sector a play set leaves out (no file, no header).
    pub summary: Option<TableSummary>,
    pub values: Vec<u16>,
}

/// Reads a table's header only (cheap), checking its name and length.
pub fn read_header(path: &Path, sector: Sector) -> Result<TableSummary, String> {
    let fail = |e: &dyn Error| format!("{}: {}", path.display(), chain(e));
    let file = std::fs::File::open(path).map_err(|e| fail(&e))?;
    let len = file.metadata().map_err(|e| fail(&e))?.len();
    let mut header = Vec::with_capacity(HEADER_LEN);
    file.take(HEADER_LEN as u64)
        .read_to_end(&mut header)
        .map_err(|e| fail(&e))?;
    let summary = TableSummary::parse(&header).map_err(|e| fail(&e))?;
    check_file_name(path, summary.sector).map_err(|e| fail(&e))?;
    if summary.sector != sector {
        return Err(format!(
            "{}: holds sector {}, not {sector}",
            path.display(),
            summary.sector
        ));
    }
    if summary.bytes != len {
        let e = moulin_probe::FileError::Length {
            expected: summary.bytes,
            got: len,
        };
        return Err(fail(&e));
    }
    Ok(summary)
}

/// Reads a whole table: header, every block's checksum, the file's checksum.
pub fn load(path: &Path, sector: Sector) -> Result<Loaded, String> {
    let fail = |e: &dyn Error| format!("{}: {}", path.display(), chain(e));
    let bytes = std::fs::read(path).map_err(|e| fail(&e))?;
    let table = Table::new(bytes).map_err(|e| fail(&e))?;
    check_file_name(path, table.sector()).map_err(|e| fail(&e))?;
    if table.sector() != sector {
        return Err(format!(
            "{}: holds sector {}, not {sector}",
            path.display(),
            table.sector()
        ));
    }
    let values = decode_parallel(&table).map_err(|e| fail(&e))?;
    Ok(Loaded {
        summary: Some(*table.summary()),
        values,
    })
}

/// Every code of a table after its file's checksum, as `Table::decode_all`
/// gives them, its blocks decoded in parallel into one allocation in huge
/// pages (the derivation reads it at random). The header's checks make the
/// blocks cover the sector's slots, `block_slots` each but the last.
fn decode_parallel(table: &Table<Vec<u8>>) -> Result<Vec<u16>, FileError> {
    let s = table.summary();
    table.check_checksum()?;
    let mut values = huge_zeroed(s.slots as usize);
    values
        .par_chunks_mut(s.block_slots as usize)
        .enumerate()
        .try_for_each(|(block, out)| table.decode_block_into(block as u32, out))?;
    Ok(values)
}

/// A sector of a play set, as `load` reads a table: both files' checksums,
/// then every code rebuilt (every one for a sector the play set leaves
/// out).
pub fn load_play(
    play: &Tablebase,
    sector: Sector,
    pool: &rayon::ThreadPool,
) -> Result<Loaded, String> {
    let fail = |e: ProbeError| chain(&e);
    play.check_checksum(sector).map_err(fail)?;
    let summary = match play.is_left_out(sector) {
        true => None,
        false => Some(*play.summary(sector).map_err(fail)?),
    };
    // The values come numbered as the tables number them: so do the
    // header's holes (the classes are the same).
    let summary = summary.map(|mut s| {
        let slots = moulin_core::index::Indexer::get().slots(sector);
        s.holes = slots.wrapping_sub(s.slots.wrapping_sub(s.holes));
        s.slots = slots;
        s
    });
    let values = super::rebuild::sector(play, sector, pool).map_err(fail)?;
    Ok(Loaded { summary, values })
}

/// Checks the WDL table `path` (if there is one) against the verified
/// table `own` of its sector: the same header counts, and at every slot
/// that is not a hole the outcome of the table's code. `Ok(false)` when
/// there is no WDL table.
pub fn check_wdl(path: &Path, own: &Loaded) -> Result<bool, String> {
    let fail = |e: &dyn Error| format!("{}: {}", path.display(), chain(e));
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(fail(&e)),
    };
    let table = Table::new(bytes).map_err(|e| fail(&e))?;
    check_file_name(path, table.sector()).map_err(|e| fail(&e))?;
    let Some(d) = &own.summary else {
        return Err(format!(
            "{}: no table header to compare with",
            path.display()
        ));
    };
    let w = table.summary();
    if !w.wdl {
        return Err(format!("{}: not a WDL table", path.display()));
    }
    let same = |w: &TableSummary| {
        (
            w.sector,
            w.rules,
            w.classes,
            w.positions,
            w.holes,
            w.max_win,
            w.max_loss,
        )
    };
    if same(w) != same(d) {
        return Err(format!(
            "{}: its header disagrees with the table's (sector, rules, counts or longest distances)",
            path.display()
        ));
    }
    if table.slots() != own.values.len() as u64 {
        return Err(format!(
            "{}: {} slots, the table has {}",
            path.display(),
            table.slots(),
            own.values.len()
        ));
    }
    table.check_checksum().map_err(|e| fail(&e))?;
    // Block by block in parallel: the first slot whose outcome is wrong.
    let rules = &d.rules;
    // The outcome of every code, `NO_OUTCOME` for a hole.
    const NO_OUTCOME: u16 = u16::MAX;
    let outcome: Vec<u16> = (0..=u16::MAX)
        .map(|code| outcome_code(rules, code).unwrap_or(NO_OUTCOME))
        .collect();
    let per = table.summary().block_slots as usize;
    let wrong = own
        .values
        .par_chunks(per)
        .enumerate()
        .map_init(Vec::new, |outcomes, (block, codes)| {
            outcomes.resize(codes.len(), 0);
            table.decode_block_into(block as u32, outcomes)?;
            let wrong = codes
                .iter()
                .zip(outcomes.iter())
                .position(|(&code, &out)| code != HOLE && outcome[code as usize] != out);
            Ok(wrong.map(|i| (block * per + i, outcomes[i])))
        })
        .find_map_first(|found: Result<_, FileError>| found.transpose())
        .transpose()
        .map_err(|e| fail(&e))?;
    match wrong {
        Some((slot, outcome)) => Err(format!(
            "{}: slot {slot} holds outcome code {outcome}, the table's outcome is {}",
            path.display(),
            outcome_code(rules, own.values[slot]).map_or("a hole".into(), |o| o.to_string())
        )),
        None => Ok(true),
    }
}

/// The files of a table directory.
#[derive(Default)]
pub struct Listing {
    /// `*.mtb` files by sector (a play set's outcome tables, `*.mtw`).
    pub tables: BTreeMap<Sector, PathBuf>,
    /// A play set: no distance table, outcome and distance tables.
    pub play: bool,
    /// Files named like tables that are not named for a sector.
    pub problems: Vec<String>,
    /// Unfinished `*.tmp` files.
    pub ignored: Vec<PathBuf>,
}

pub fn list_tables(dir: &Path) -> anyhow::Result<Listing> {
    let listing = list_kind(dir, EXTENSION)?;
    let distances = TableKind::PlayDistances.extension();
    if listing.tables.is_empty() && !list_kind(dir, distances)?.tables.is_empty() {
        let mut play = list_kind(dir, TableKind::Outcomes.extension())?;
        play.play = true;
        return Ok(play);
    }
    Ok(listing)
}

fn list_kind(dir: &Path, kind: &str) -> anyhow::Result<Listing> {
    use anyhow::Context;
    let mut listing = Listing::default();
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list the table directory {}", dir.display()))?;
    for item in entries {
        let path = item
            .with_context(|| format!("cannot list the table directory {}", dir.display()))?
            .path();
        let extension = path.extension().and_then(|e| e.to_str());
        if extension == Some("tmp") {
            listing.ignored.push(path);
            continue;
        }
        if extension != Some(kind) {
            continue;
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        match stem.parse::<Sector>() {
            Ok(sector) => {
                listing.tables.insert(sector, path);
            }
            Err(_) => listing.problems.push(format!(
                "{}: the file name is not a sector's name (like `8v7.{kind}`)",
                path.display()
            )),
        }
    }
    listing.ignored.sort();
    Ok(listing)
}
