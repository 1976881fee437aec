//! Opening a tablebase: the tables of a directory (read with positional
//! reads or memory maps, distance or WDL tables, a play set), of a remote
//! set over HTTP(S), or of any other source, with the headers of a source
//! that lists its tables read and checked at once; then the rule options
//! and the memory for decoded blocks asked of it.

use super::cache::BlockCache;
use super::TableSource;
use super::{Entry, Tablebase, DEFAULT_CACHE_BYTES};
use crate::error::{FileError, ProbeError};
use moulin_core::rules::Rules;
use moulin_core::sector::Sector;
use moulin_core::table::read::read_summary;
use moulin_core::table::{TableKind, TableSummary};
#[cfg(not(target_arch = "wasm32"))]
use std::path::Path;
use std::path::PathBuf;
use std::sync::OnceLock;

impl Tablebase {
    /// Lists the `*.mtb` tables of a directory and reads their headers; the
    /// tables are read with positional reads. All must share one rule set,
    /// which becomes the tablebase's rules (the default rules if there is
    /// no table). A directory without tables opens; its probes answer
    /// `MissingSector` (except finished games).
    ///
    /// # Errors
    /// [`ProbeError::Directory`] if the directory cannot be listed;
    /// [`ProbeError::File`] for a table whose header is damaged, whose name
    /// is not its sector's, or that is not a distance table;
    /// [`ProbeError::MixedRules`] for tables solved under different rules.
    ///
    /// # Example
    /// The directory here holds one table, 3 v 3, written as in the crate's
    /// example; real ones are solved by `moulin solve`.
    ///
    /// ```
    /// use moulin_probe::error::ProbeError;
    /// use moulin_probe::{Rules, Sector, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open(dir.path())?;
    /// assert_eq!(tb.rules(), Rules::default());
    /// let sectors: Vec<Sector> = tb.sectors().map(|(s, _)| s).collect();
    /// assert_eq!(sectors, [Sector::moving(3, 3)]);
    ///
    /// let missing = Tablebase::open(dir.path().join("missing"));
    /// assert!(matches!(missing, Err(ProbeError::Directory { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref();
        let full = Tablebase::from_source(super::Directory::new(dir))?;
        if full.tables.is_empty() && has_play_set(dir) {
            return Tablebase::open_play(dir);
        }
        Ok(full)
    }

    /// Opens a play set (`moulin_core::play`): the outcome tables `*.mtw` and
    /// distance tables `*.mtd` of a directory, as `moulin pack` writes
    /// them. It answers every query of the distance tables, with the same
    /// values. [`Tablebase::open`] opens a directory that holds a play set
    /// and no distance tables this way.
    ///
    /// # Errors
    /// Those of [`Tablebase::open`]; [`ProbeError::File`] when a sector has
    /// one of its two tables and not the other, or their headers disagree.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_play(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        use super::Directory;
        let dir = dir.as_ref();
        let outcomes = Directory::of_kind(dir, TableKind::Outcomes);
        let distances = Directory::of_kind(dir, TableKind::PlayDistances);
        Tablebase::play_from_sources(outcomes, distances)
    }

    /// A play set over two sources: its outcome tables and its distance
    /// tables (see [`Tablebase::open_play`]).
    ///
    /// # Errors
    /// Those of [`Tablebase::from_source`] for each; [`ProbeError::File`]
    /// when the sources list different sectors or their headers disagree.
    pub fn play_from_sources(
        outcomes: impl TableSource + 'static,
        distances: impl TableSource + 'static,
    ) -> Result<Tablebase, ProbeError> {
        let mut tb = Tablebase::from_source(outcomes)?;
        let distances = Tablebase::from_source(distances)?;
        let sides: std::collections::BTreeSet<_> =
            distances.sectors().filter_map(|(_, h)| h.play).collect();
        if sides.len() > 1 {
            return Err(ProbeError::File {
                path: distances.name.clone(),
                source: FileError::Corrupt(
                    "distance tables of different sides (wins, losses, both) in one play set"
                        .into(),
                ),
            });
        }
        if tb.listed && distances.listed {
            for (sector, entry) in tb.tables.iter() {
                let (Some(a), Ok(b)) = (entry.summary, distances.summary(*sector)) else {
                    return Err(ProbeError::File {
                        path: distances.source.location(*sector).into(),
                        source: FileError::Io(std::io::ErrorKind::NotFound.into()),
                    });
                };
                if !same_values(&a, b) {
                    return Err(ProbeError::File {
                        path: distances.source.location(*sector).into(),
                        source: FileError::Corrupt(format!(
                            "its header does not match the outcome table of {sector}"
                        )),
                    });
                }
            }
            if let Some((sector, entry)) = distances
                .tables
                .iter()
                .find(|(s, _)| !tb.tables.contains_key(s))
            {
                return Err(ProbeError::File {
                    path: entry.path.clone(),
                    source: FileError::Corrupt(format!("no outcome table of {sector} beside it")),
                });
            }
            if let (Some(&a), Some(&b)) = (tb.rules.get(), distances.rules.get()) {
                if a != b {
                    return Err(ProbeError::MixedRules {
                        path: distances.name.clone(),
                        rules: b,
                        others: a,
                    });
                }
            }
        }
        tb.play = Some(Box::new(distances));
        Ok(tb)
    }

    /// Like `open`, but memory-maps each table on first use instead of
    /// reading it with system calls (somewhat faster cold probes).
    ///
    /// # Safety
    /// No table file of the directory may be modified or truncated in place
    /// while the tablebase is alive: a file changed underneath a mapping
    /// breaks memory safety (a truncated one crashes the process with
    /// SIGBUS). moulin's writer renames new files over old ones, which is
    /// fine; `cp` over a table or `rsync --inplace` are not.
    ///
    /// # Errors
    /// Those of [`Tablebase::open`].
    #[cfg(not(target_arch = "wasm32"))]
    pub unsafe fn open_mapped(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        use super::Directory;
        let dir = dir.as_ref();
        // SAFETY: the caller's promise, passed on.
        let full = Tablebase::from_source(unsafe { Directory::mapped(dir) })?;
        if full.tables.is_empty() && has_play_set(dir) {
            // SAFETY: as above.
            let (outcomes, wins) = unsafe {
                (
                    Directory::of_kind(dir, TableKind::Outcomes).into_mapped(),
                    Directory::of_kind(dir, TableKind::PlayDistances).into_mapped(),
                )
            };
            return Tablebase::play_from_sources(outcomes, wins);
        }
        Ok(full)
    }

    /// Lists the WDL tables (`*.mtw`, outcomes only) of a directory, like
    /// `open`. They answer `probe_wdl` and `wdl`; a question about distances
    /// is `ProbeError::WdlOnly`.
    ///
    /// # Errors
    /// Those of [`Tablebase::open`], with the WDL tables in place of the
    /// distance tables.
    ///
    /// # Example
    /// `moulin solve` writes each WDL table beside its table; here the
    /// 3 v 3 pair of the crate's example.
    ///
    /// ```
    /// use moulin_probe::error::ProbeError;
    /// use moulin_probe::{Position, Rules, Tablebase, Wdl};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open_wdl(dir.path())?;
    /// assert!(tb.is_wdl());
    /// // White flies g7-g1, closes a1-d1-g1 and leaves Black two stones.
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// assert_eq!(tb.probe_wdl(&pos)?, Wdl::Win);
    /// assert!(matches!(tb.probe(&pos), Err(ProbeError::WdlOnly)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_wdl(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        Tablebase::from_source(super::Directory::wdl(dir.as_ref()))
    }

    /// A tablebase over any source of tables. A source that lists its tables
    /// has their headers read now (and the rules checked); one that cannot
    /// list (a web host) has each table looked for on first use, and takes
    /// its rules from the first table found.
    ///
    /// # Errors
    /// Those of [`TableSource::sectors`]; for a source that lists its
    /// tables, those of [`Tablebase::open`] for each header.
    pub fn from_source(source: impl TableSource + 'static) -> Result<Tablebase, ProbeError> {
        let name = PathBuf::from(source.describe());
        let kind = source.kind();
        let wdl = kind == TableKind::Outcomes;
        let listing = source.sectors()?;
        let listed = listing.is_some();
        let rules = OnceLock::new();
        let mut tables = Vec::new();
        let sectors = listing.unwrap_or_else(|| Sector::all(true));
        for (id, sector) in sectors.into_iter().enumerate() {
            let path = PathBuf::from(source.location(sector));
            let summary = if listed {
                let summary =
                    listed_summary(&source, sector, kind).map_err(|source| ProbeError::File {
                        path: path.clone(),
                        source,
                    })?;
                match rules.get() {
                    None => {
                        let _ = rules.set(summary.rules);
                    }
                    Some(&r) if r != summary.rules => {
                        return Err(ProbeError::MixedRules {
                            path,
                            rules: summary.rules,
                            others: r,
                        })
                    }
                    Some(_) => {}
                }
                Some(summary)
            } else {
                None
            };
            let entry = Entry {
                id: id as u32,
                sector,
                path,
                summary,
                table: OnceLock::new(),
            };
            tables.push((sector, entry));
        }
        Ok(Tablebase {
            source: Box::new(source),
            name,
            listed,
            rules,
            wdl,
            play: None,
            tables: tables.into_iter().collect(),
            cache: BlockCache::new(DEFAULT_CACHE_BYTES),
        })
    }

    /// Asks for these rule options: an error if the tables were solved under
    /// others. Sets the rules of a directory without tables (and those a
    /// source that cannot list expects of its tables).
    ///
    /// # Errors
    /// [`ProbeError::RulesMismatch`] if the tables' rules are others.
    pub fn with_rules(self, rules: Rules) -> Result<Tablebase, ProbeError> {
        match self.rules.get() {
            Some(&tables) if tables != rules => Err(ProbeError::RulesMismatch {
                tables,
                asked: rules,
            }),
            Some(_) => Ok(self),
            None => {
                let _ = self.rules.set(rules);
                Ok(self)
            }
        }
    }

    /// Sets the memory budget for decoded blocks (0: no cache); a play set
    /// gives a quarter of it to its outcome tables.
    pub fn with_cache_bytes(mut self, bytes: usize) -> Tablebase {
        match self.play.take() {
            Some(play) => {
                self.cache = BlockCache::new(bytes / 4);
                self.play = Some(Box::new(play.with_cache_bytes(bytes - bytes / 4)));
            }
            None => self.cache = BlockCache::new(bytes),
        }
        self
    }
}

/// Reads and checks a listed table's header and length (not its block
/// index) and that it holds the sector its name says.
fn listed_summary(
    source: &dyn TableSource,
    sector: Sector,
    kind: TableKind,
) -> Result<TableSummary, FileError> {
    let storage = source
        .open(sector)?
        .ok_or_else(|| FileError::Io(std::io::ErrorKind::NotFound.into()))?;
    let summary = read_summary(&*storage)?;
    check_kind(&summary, kind)?;
    if summary.sector != sector {
        return Err(FileError::WrongSector {
            file_name: sector.name(),
            header: summary.sector,
        });
    }
    Ok(summary)
}

/// Errs if a table is of another kind than the one wanted (a WDL table
/// where a distance table belongs, say).
pub(super) fn check_kind(summary: &TableSummary, kind: TableKind) -> Result<(), FileError> {
    if summary.kind() != kind {
        return Err(FileError::Corrupt(format!(
            "the file is {}, where {} belongs",
            summary.kind().describe(),
            kind.describe()
        )));
    }
    Ok(())
}

/// Whether two headers describe the values of the same distance table
/// (a play set's outcome and distance tables must).
fn same_values(a: &TableSummary, b: &TableSummary) -> bool {
    (a.sector, a.rules, a.slots, a.classes, a.positions, a.holes)
        == (b.sector, b.rules, b.slots, b.classes, b.positions, b.holes)
        && (a.max_win, a.max_loss, a.cursed_wins, a.blessed_losses)
            == (b.max_win, b.max_loss, b.cursed_wins, b.blessed_losses)
}

/// Whether a directory holds a play set's distance tables.
#[cfg(not(target_arch = "wasm32"))]
fn has_play_set(dir: &Path) -> bool {
    let extension = TableKind::PlayDistances.extension();
    std::fs::read_dir(dir).is_ok_and(|items| {
        items
            .flatten()
            .any(|item| item.path().extension().is_some_and(|e| e == extension))
    })
}
