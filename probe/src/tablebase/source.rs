//! Where a [`Tablebase`](crate::Tablebase) finds its tables: a
//! [`TableSource`], one table a sector; a [`Directory`] of files on disk.

use crate::error::ProbeError;
use moulin_core::error::FileError;
use moulin_core::sector::Sector;
use moulin_core::table::Storage;
use moulin_core::table::TableKind;
#[cfg(not(target_arch = "wasm32"))]
pub use native::Directory;

/// Where a `Tablebase` finds its tables: one per sector.
pub trait TableSource: Send + Sync {
    /// The sectors present, if the source can list them (a directory can, a
    /// web host cannot: `None`, and tables are looked for on first use).
    ///
    /// # Errors
    /// A listing that fails ([`ProbeError::Directory`] for a directory), or
    /// a file that looks like a table but is not named after its sector
    /// ([`ProbeError::File`]).
    fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError>;

    /// The table of a sector, `Ok(None)` if the source has none.
    ///
    /// # Errors
    /// A table that is there but cannot be opened or read.
    fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError>;

    /// Where a sector's table lives (a path, a URL), for messages.
    fn location(&self, sector: Sector) -> String;

    /// The source as a whole (a directory, a base URL), for messages.
    fn describe(&self) -> String;

    /// Whether the source holds WDL tables (outcomes only) rather than
    /// distance tables; a table of the other kind is refused.
    fn wdl(&self) -> bool {
        false
    }

    /// What the source's tables hold (by default: WDL tables if `wdl`,
    /// else distance tables); a table of another kind is refused.
    fn kind(&self) -> TableKind {
        if self.wdl() {
            TableKind::Outcomes
        } else {
            TableKind::Distances
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;
    use moulin_core::table::{Mapped, PositionalFile};
    use std::io;
    use std::path::PathBuf;

    /// The tables of a directory, `<dir>/<sector>.mtb` (or its WDL tables,
    /// `<dir>/<sector>.mtw`, or a play set's distance tables,
    /// `<dir>/<sector>.mtd`).
    #[derive(Debug)]
    pub struct Directory {
        dir: PathBuf,
        mapped: bool,
        kind: TableKind,
    }

    impl Directory {
        /// The tables of `dir`, read with positional reads.
        pub fn new(dir: impl Into<PathBuf>) -> Directory {
            Directory::of_kind(dir, TableKind::Distances)
        }

        /// The WDL tables of `dir` (`*.mtw`), read with positional reads.
        pub fn wdl(dir: impl Into<PathBuf>) -> Directory {
            Directory::of_kind(dir, TableKind::Outcomes)
        }

        /// The tables of one kind of `dir`, read with positional reads.
        pub fn of_kind(dir: impl Into<PathBuf>, kind: TableKind) -> Directory {
            Directory {
                dir: dir.into(),
                mapped: false,
                kind,
            }
        }

        /// The same directory, memory-mapped.
        ///
        /// # Safety
        /// As [`Directory::mapped`].
        pub unsafe fn into_mapped(self) -> Directory {
            Directory {
                mapped: true,
                ..self
            }
        }

        fn extension(&self) -> &'static str {
            self.kind.extension()
        }

        /// The tables of `dir`, memory-mapped.
        ///
        /// # Safety
        /// No table file of the directory may be modified or truncated in
        /// place while the tablebase is alive (see `Mapped::open`).
        pub unsafe fn mapped(dir: impl Into<PathBuf>) -> Directory {
            Directory {
                dir: dir.into(),
                mapped: true,
                kind: TableKind::Distances,
            }
        }

        fn path(&self, sector: Sector) -> PathBuf {
            self.dir
                .join(format!("{}.{}", sector.name(), self.extension()))
        }
    }

    impl TableSource for Directory {
        fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError> {
            let listing_error = |source| ProbeError::Directory {
                path: self.dir.clone(),
                source,
            };
            let mut sectors = Vec::new();
            for item in std::fs::read_dir(&self.dir).map_err(listing_error)? {
                let path = item.map_err(listing_error)?.path();
                let is_table = path.extension().is_some_and(|e| e == self.extension());
                if !is_table || !path.is_file() {
                    continue;
                }
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                match stem.parse::<Sector>() {
                    Ok(sector) if path == self.path(sector) => sectors.push(sector),
                    // `3v03.mtb` parses, but is not the sector's own name.
                    _ => {
                        return Err(ProbeError::File {
                            source: FileError::BadFileName(format!("{stem}.{}", self.extension())),
                            path,
                        })
                    }
                }
            }
            sectors.sort();
            Ok(Some(sectors))
        }

        fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError> {
            let path = self.path(sector);
            let opened: io::Result<Box<dyn Storage>> = if self.mapped {
                // SAFETY: the contract of `Directory::mapped`.
                unsafe { Mapped::open(&path) }.map(|m| Box::new(m) as Box<dyn Storage>)
            } else {
                PositionalFile::open(&path).map(|f| Box::new(f) as Box<dyn Storage>)
            };
            match opened {
                Ok(storage) => Ok(Some(storage)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(FileError::Io(e)),
            }
        }

        fn location(&self, sector: Sector) -> String {
            self.path(sector).display().to_string()
        }

        fn describe(&self) -> String {
            self.dir.display().to_string()
        }

        fn wdl(&self) -> bool {
            self.kind == TableKind::Outcomes
        }

        fn kind(&self) -> TableKind {
            self.kind
        }
    }
}
