//! The manifest of published tables (`data/checksums/`): per table its
//! length, its checksum and its counts, one line each, written by
//! `moulin verify --manifest` once every value is verified.

use moulin_core::table::read::check_file_name;
use moulin_core::table::{Counts, Table, EXTENSION};
use moulin_probe::error::chain;
use moulin_probe::Sector;
use std::error::Error;
use std::fmt;
use std::path::Path;

/// One table's line in a published manifest (`data/checksums/`): its size,
/// the CRC32 of the whole file from its trailer, and its counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// The sector.
    pub sector: Sector,
    /// Length of the file.
    pub bytes: u64,
    /// The file's checksum (CRC32 of every byte before it, as in the trailer).
    pub crc32: u32,
    /// Outcomes over symmetry classes.
    pub classes: Counts,
    /// Outcomes over all positions.
    pub positions: Counts,
    /// Longest win.
    pub max_win: Option<u16>,
    /// Longest loss.
    pub max_loss: Option<u16>,
}

/// The column names of a manifest line.
pub const MANIFEST_COLUMNS: &str = "sector bytes crc32 classes_won classes_lost classes_drawn \
     positions_won positions_lost positions_drawn max_win max_loss";

impl ManifestEntry {
    /// The entry of a table file (checked: header, length, file checksum).
    pub fn of_file(path: &Path, sector: Sector) -> Result<ManifestEntry, String> {
        let fail = |e: &dyn Error| format!("{}: {}", path.display(), chain(e));
        let table = Table::new(std::fs::read(path).map_err(|e| fail(&e))?).map_err(|e| fail(&e))?;
        check_file_name(path, table.sector()).map_err(|e| fail(&e))?;
        if table.sector() != sector {
            return Err(format!(
                "{}: holds sector {}, not {sector}",
                path.display(),
                table.sector()
            ));
        }
        table.check_checksum().map_err(|e| fail(&e))?;
        let bytes = table.bytes();
        let s = table.summary();
        Ok(ManifestEntry {
            sector,
            bytes: s.bytes,
            crc32: u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().expect("4 bytes")),
            classes: s.classes,
            positions: s.positions,
            max_win: s.max_win,
            max_loss: s.max_loss,
        })
    }

    /// Parses a manifest line (columns after the eleventh, such as a
    /// SHA-256, are ignored); `None` for a comment or a malformed line.
    pub fn parse(line: &str) -> Option<ManifestEntry> {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() < 11 || cols[0].starts_with('#') {
            return None;
        }
        let n = |i: usize| cols[i].parse::<u64>().ok();
        let d = |i: usize| match cols[i] {
            "-" => Some(None),
            t => t.parse::<u16>().ok().map(Some),
        };
        Some(ManifestEntry {
            sector: cols[0].parse().ok()?,
            bytes: n(1)?,
            crc32: u32::from_str_radix(cols[2], 16).ok()?,
            classes: Counts {
                win: n(3)?,
                loss: n(4)?,
                draw: n(5)?,
            },
            positions: Counts {
                win: n(6)?,
                loss: n(7)?,
                draw: n(8)?,
            },
            max_win: d(9)?,
            max_loss: d(10)?,
        })
    }

    /// Whether two entries agree on everything but the file's bytes (the
    /// counts do not depend on compression).
    pub fn same_counts(&self, other: &ManifestEntry) -> bool {
        (
            self.sector,
            self.classes,
            self.positions,
            self.max_win,
            self.max_loss,
        ) == (
            other.sector,
            other.classes,
            other.positions,
            other.max_win,
            other.max_loss,
        )
    }
}

impl fmt::Display for ManifestEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = |d: Option<u16>| d.map_or("-".to_string(), |d| d.to_string());
        let (c, p) = (&self.classes, &self.positions);
        write!(
            f,
            "{} {} {:08x} {} {} {} {} {} {} {} {}",
            self.sector,
            self.bytes,
            self.crc32,
            c.win,
            c.loss,
            c.draw,
            p.win,
            p.loss,
            p.draw,
            d(self.max_win),
            d(self.max_loss)
        )
    }
}

/// The manifest of some tables of a directory: a comment naming the columns,
/// then one `ManifestEntry` line per sector.
pub fn manifest(dir: &Path, sectors: &[Sector]) -> anyhow::Result<String> {
    let mut out = format!("# {MANIFEST_COLUMNS}\n");
    for &s in sectors {
        let path = dir.join(format!("{}.{EXTENSION}", s.name()));
        let entry = ManifestEntry::of_file(&path, s).map_err(anyhow::Error::msg)?;
        out.push_str(&format!("{entry}\n"));
    }
    Ok(out)
}
