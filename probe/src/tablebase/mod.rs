//! The set of tables of one directory: lazy opening, probes by position,
//! perfect moves, and whole sectors for the solver and the verifier.

mod by_sector;
mod cache;
mod open;
mod play_set;
mod source;

use crate::error::{FileError, ProbeError};
use by_sector::BySector;
use cache::BlockCache;
use moulin_core::index::{Indexer, OPPONENT_MAJOR};
use moulin_core::position::{Node, Position};
use moulin_core::rules::{Move, Rules};
use moulin_core::sector::Sector;
use moulin_core::table::{PlaySide, Storage, Table, TableKind, TableSummary};
use moulin_core::value::{Outcome, Wdl, HOLE};
use open::check_kind;
#[cfg(not(target_arch = "wasm32"))]
pub use source::Directory;
pub use source::TableSource;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Memory for decoded blocks by default.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// The tables of one directory (or another [`TableSource`]), all solved under
/// the same rules.
///
/// Opening a directory reads its listing and each file's 128-byte header,
/// nothing more; a table's block index is read the first time a probe needs
/// the table, then one block per cache miss. Every query takes `&self`, and
/// the type is `Send + Sync`: share one `Tablebase` between threads. Decoded
/// blocks are kept in a cache of bounded size (`with_cache_bytes`).
///
/// # Errors and panics
/// Queries return a [`ProbeError`]: an invalid position
/// (`InvalidPosition`, checked before anything is read), a sector without a
/// table (`MissingSector`), a damaged or unreadable file (`File`, with the
/// [`FileError`] inside). Nothing panics, whatever the position or the
/// bytes of the files. A position whose player to move has already lost
/// (fewer than three stones, or blocked) needs no table.
///
/// # Files
/// By default tables are read with positional reads (`pread`): a file
/// changed or truncated while the tablebase is open gives errors (checksums,
/// short reads) or the old values, never undefined behaviour.
/// `open_mapped` maps the files instead (no system call per block), under
/// the promise that they do not change.
pub struct Tablebase {
    source: Box<dyn TableSource>,
    name: PathBuf,
    /// Whether `entries` holds exactly the tables present (a listed source)
    /// or every sector of the game, looked for on first use.
    listed: bool,
    rules: OnceLock<Rules>,
    /// WDL tables (outcomes only) rather than distance tables.
    wdl: bool,
    /// A play set: `tables` are its outcome tables, these its distance
    /// tables of one side, and the other side's distances are rebuilt
    /// (`moulin_core::play`).
    play: Option<Box<Tablebase>>,
    tables: BySector<Entry>,
    cache: BlockCache,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("source", &self.name)
            .field("rules", &self.rules())
            .field(
                "sectors",
                &self.sectors().map(|(s, _)| s).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

struct Entry {
    id: u32,
    sector: Sector,
    path: PathBuf,
    /// The header read when the source was listed.
    summary: Option<TableSummary>,
    /// The open table; `None` once a lazy source said it has none.
    table: OnceLock<Option<Table<Box<dyn Storage>>>>,
}

impl Entry {
    fn summary(&self) -> Option<&TableSummary> {
        self.summary
            .as_ref()
            .or_else(|| self.table.get()?.as_ref().map(|t| t.summary()))
    }
}

impl Tablebase {
    /// Whether this is a play set (outcome and distance tables).
    pub fn is_play_set(&self) -> bool {
        self.play.is_some()
    }

    /// A play set's distance tables (`<sector>.mtd`), for their headers;
    /// `None` for other tablebases.
    pub fn play_distances(&self) -> Option<&Tablebase> {
        self.play.as_deref()
    }

    /// The rule options of the tables (the default rules while a source that
    /// cannot list has opened no table yet).
    pub fn rules(&self) -> Rules {
        self.rules.get().copied().unwrap_or_default()
    }

    /// Whether these are WDL tables (outcomes only, without a play set's
    /// distances).
    pub fn is_wdl(&self) -> bool {
        self.wdl && self.play.is_none()
    }

    /// The directory of the tables (or the description of another source).
    pub fn dir(&self) -> &Path {
        &self.name
    }

    /// The sectors present with their headers, in sector order (for a
    /// source that cannot list: those opened so far).
    pub fn sectors(&self) -> impl Iterator<Item = (Sector, &TableSummary)> + '_ {
        self.tables
            .iter()
            .filter_map(|(s, e)| Some((*s, e.summary()?)))
    }

    /// The header of a sector's table.
    ///
    /// # Errors
    /// [`ProbeError::MissingSector`] without a table of the sector;
    /// [`ProbeError::File`] if a table first opened here is damaged.
    pub fn summary(&self, sector: Sector) -> Result<&TableSummary, ProbeError> {
        let entry = self.entry(sector)?;
        match &entry.summary {
            Some(summary) => Ok(summary),
            None => Ok(self.table(entry)?.summary()),
        }
    }

    /// The file of a sector's table (its URL for a remote source).
    ///
    /// # Errors
    /// [`ProbeError::MissingSector`] if the source has no place for the
    /// sector's table (a directory that does not list it).
    pub fn path(&self, sector: Sector) -> Result<&Path, ProbeError> {
        Ok(&self.entry(sector)?.path)
    }

    /// The outcome of a position for the player to move, with its distance
    /// in turns. Under the no-capture rule: the value at counter 0 (see
    /// [`Tablebase::probe_counter`]), a cursed win or blessed loss as a
    /// draw, the distance a DTC.
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] for a position that breaks the
    /// rules' invariants ([`Position::validate`]; checked first, nothing
    /// is read); [`ProbeError::MissingSector`] when the position's sector
    /// has no table (a game already lost needs none);
    /// [`ProbeError::WdlOnly`] on WDL tables; [`ProbeError::File`] for a
    /// damaged or unreadable table.
    ///
    /// # Example
    /// ```
    /// use moulin_probe::error::ProbeError;
    /// use moulin_probe::{Outcome, Position, Rules, Sector, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open(dir.path())?; // the 3 v 3 table of the crate's example
    ///
    /// // White flies g7-g1, closes a1-d1-g1 and leaves Black two stones.
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// assert_eq!(tb.probe(&pos)?, Outcome::Win(1));
    ///
    /// // Black to move with two stones has lost: no table is read.
    /// let lost: Position = "W:a1,d1,g1 B:b2,d2 b".parse()?;
    /// assert_eq!(tb.probe(&lost)?, Outcome::Loss(0));
    ///
    /// // No 4 v 3 table here.
    /// let four: Position = "W:a1,d1,g7,d7 B:b2,d2,f6 w".parse()?;
    /// let err = tb.probe(&four).unwrap_err();
    /// assert!(matches!(err, ProbeError::MissingSector(s) if s == Sector::moving(4, 3)));
    ///
    /// // A position built by hand is checked: a1 of both colours.
    /// let mut both = pos;
    /// both.black |= both.white;
    /// assert!(matches!(tb.probe(&both), Err(ProbeError::InvalidPosition(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe(&self, pos: &Position) -> Result<Outcome, ProbeError> {
        pos.validate()?;
        self.probe_valid(&pos.node())
    }

    /// The outcome of a position seen from the player to move.
    ///
    /// # Errors
    /// Those of [`Tablebase::probe`].
    pub fn probe_node(&self, node: &Node) -> Result<Outcome, ProbeError> {
        Position::from_node(*node, node.side_by_hands()).validate()?;
        self.probe_valid(node)
    }

    /// The rules, learnt from the table of `sector` if no table told them
    /// yet (a source that cannot list).
    pub(crate) fn rules_for(&self, sector: Sector) -> Result<Rules, ProbeError> {
        if let Some(&rules) = self.rules.get() {
            return Ok(rules);
        }
        if let Some(entry) = self.tables.get(&sector) {
            match self.table(entry) {
                Ok(_) | Err(ProbeError::MissingSector(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.rules())
    }

    /// The outcome of a position for the player to move, without distance:
    /// from WDL tables or from distance tables (under the no-capture rule,
    /// the value at counter 0, cursed wins and blessed losses as draws).
    ///
    /// # Errors
    /// Those of [`Tablebase::probe`], but never `WdlOnly`.
    ///
    /// # Example
    /// ```
    /// use moulin_probe::{Position, Rules, Tablebase, Wdl};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// // The 3 v 3 table of the crate's example and its WDL table.
    /// let wdl = Tablebase::open_wdl(dir.path())?;
    /// let dtw = Tablebase::open(dir.path())?;
    /// // White flies g7-g1, closes a1-d1-g1 and leaves Black two stones.
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// assert_eq!(wdl.probe_wdl(&pos)?, Wdl::Win);
    /// assert_eq!(dtw.probe_wdl(&pos)?, Wdl::Win);
    /// // Black to move with two stones has lost: no table is read.
    /// let lost: Position = "W:a1,d1,g1 B:b2,d2 b".parse()?;
    /// assert_eq!(wdl.probe_wdl(&lost)?, Wdl::Loss);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        pos.validate()?;
        let node = pos.node();
        if !self.wdl {
            return Ok(self.probe_valid(&node)?.into());
        }
        // WDL tables, or a play set's outcome tables.
        let sector = Sector::of(&node);
        let rules = self.rules_for(sector)?;
        if rules.is_lost(&node) {
            return Ok(Wdl::Loss);
        }
        self.wdl(sector, Indexer::get().index(&node))
    }

    /// The outcome stored at a position's slot (not at a hole: a WDL table
    /// cannot tell one), from WDL or distance tables without the rule.
    /// The slot is [`Indexer::index`] of the position.
    ///
    /// # Errors
    /// [`ProbeError::MissingSector`], [`ProbeError::File`] (a slot past
    /// the end of the table, a hole of a distance table, a damaged block).
    pub fn wdl(&self, sector: Sector, slot: u64) -> Result<Wdl, ProbeError> {
        if self.is_left_out(sector) {
            // A play set's sector rebuilt by one ply: its distance code.
            let value = moulin_core::play::decode(&self.rules(), self.class_code(sector, slot)?);
            return value
                .map(|v| v.outcome().into())
                .ok_or_else(|| self.hole(sector, slot));
        }
        let code = self.stored_code(sector, slot)?;
        let value = if self.wdl && self.rules().no_capture_limit.is_some() {
            Wdl::from_rule_code(code)
        } else if self.wdl {
            Wdl::from_code(code)
        } else if self.rules().no_capture_limit.is_some() {
            moulin_core::value::RuleOutcome::from_code(code).map(|v| v.outcome().into())
        } else {
            Outcome::from_code(code).map(Wdl::from)
        };
        value.ok_or_else(|| self.hole(sector, slot))
    }

    fn probe_valid(&self, node: &Node) -> Result<Outcome, ProbeError> {
        if self.is_wdl() {
            return Err(ProbeError::WdlOnly);
        }
        let sector = Sector::of(node);
        let rules = self.rules_for(sector)?;
        if rules.no_capture_limit.is_some() {
            // Rule tables: the value at counter 0.
            return Ok(self.stored_rule_value(node)?.outcome());
        }
        if rules.is_lost(node) {
            return Ok(Outcome::Loss(0));
        }
        let slot = Indexer::get().index(node);
        let code = self.class_code(sector, slot)?;
        Outcome::from_code(code).ok_or_else(|| self.hole(sector, slot))
    }

    /// The error of a position whose own slot holds a hole (a damaged table).
    pub(crate) fn hole(&self, sector: Sector, slot: u64) -> ProbeError {
        ProbeError::File {
            path: self
                .entry(sector)
                .map(|e| e.path.clone())
                .unwrap_or_default(),
            source: FileError::Corrupt(format!("slot {slot} of a position is a hole")),
        }
    }

    /// Every legal move with the outcome it leads to, seen by the player who
    /// makes it (a move to a lost position is `Win(1)`), in the order of
    /// `Rules::legal_moves`. Empty when the game is over.
    ///
    /// Under the no-capture rule: the moves at counter 0 (see
    /// [`Tablebase::probe_moves_counter`]), cursed and blessed values as
    /// draws.
    ///
    /// # Errors
    /// Those of [`Tablebase::probe`], for the position and for each
    /// position a move leads to.
    ///
    /// # Example
    /// ```
    /// use moulin_probe::{Outcome, Position, Rules, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open(dir.path())?; // the 3 v 3 table of the crate's example
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// let moves = tb.probe_moves(&pos)?;
    /// // With three stones White flies: 3 stones to 18 free points, and
    /// // g7-g1 closes a mill, once for each black stone it may remove.
    /// assert_eq!(moves.len(), 3 * 18 - 1 + 3);
    /// for (mv, outcome) in &moves {
    ///     if mv.remove.is_some() {
    ///         assert_eq!(*outcome, Outcome::Win(1)); // Black is left with two stones
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Outcome)>, ProbeError> {
        pos.validate()?;
        if self.is_wdl() {
            return Err(ProbeError::WdlOnly);
        }
        if self
            .rules_for(Sector::of(&pos.node()))?
            .no_capture_limit
            .is_some()
        {
            return Ok(self
                .probe_moves_counter(pos, 0)?
                .into_iter()
                .map(|(m, v)| (m, v.outcome()))
                .collect());
        }
        let node = pos.node();
        let mut next = Vec::new();
        self.rules_for(Sector::of(&node))?
            .for_each_move(&node, |m, node| next.push((m, node)));
        next.into_iter()
            .map(|(m, node)| Ok((m, self.probe_valid(&node)?.before_move())))
            .collect()
    }

    /// Every move that keeps the outcome optimal: the fastest wins, else any
    /// draw, else the slowest losses, in the order of
    /// [`Rules::legal_moves`]. Empty when the game is over.
    ///
    /// # Errors
    /// Those of [`Tablebase::probe_moves`].
    ///
    /// # Example
    /// ```
    /// use moulin_probe::{Position, Rules, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open(dir.path())?; // the 3 v 3 table of the crate's example
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// // Closing the mill wins at once, whichever stone it removes.
    /// let best: Vec<String> = tb.best_moves(&pos)?.iter().map(|m| m.to_string()).collect();
    /// assert_eq!(best, ["g7-g1xb2", "g7-g1xd2", "g7-g1xf6"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let moves = self.probe_moves(pos)?;
        let best = moves.iter().map(|(_, o)| o.rank()).max();
        Ok(moves
            .into_iter()
            .filter(|(_, o)| Some(o.rank()) == best)
            .map(|(m, _)| m)
            .collect())
    }

    /// The distance code of a slot (`HOLE` for a hole), through the cache:
    /// the stored code, rebuilt from a play set's tables (`moulin_core::play`);
    /// the 2-bit (or five-valued) outcome of WDL tables.
    ///
    /// # Errors
    /// [`ProbeError::MissingSector`]; [`ProbeError::File`] for a slot past
    /// the end of the table or a damaged block.
    pub fn code(&self, sector: Sector, slot: u64) -> Result<u16, ProbeError> {
        if self.play.is_some() {
            let slots = self.slots(sector)?;
            if slot < slots && !Indexer::get().is_canonical(sector, slot) {
                return Ok(moulin_core::value::HOLE);
            }
        }
        self.class_code(sector, slot)
    }

    /// `code` of a slot known to hold a class (a probe's own slot).
    pub(crate) fn class_code(&self, sector: Sector, slot: u64) -> Result<u16, ProbeError> {
        match &self.play {
            Some(play) if self.is_left_out(sector) => self.left_out_code(play, sector, slot),
            Some(play) => {
                let side = play.summary(sector)?.play.ok_or_else(|| ProbeError::File {
                    path: play.path(sector).map(Path::to_path_buf).unwrap_or_default(),
                    source: FileError::Corrupt("not a play set's distance table".into()),
                })?;
                self.play_code(play, side, sector, slot)
            }
            None => self.stored_code(sector, slot),
        }
    }

    /// Whether `sector` is a sector a play set leaves out: one without
    /// files, rebuilt by one ply when the sectors its turns lead into
    /// store both sides (`moulin_core::play`). Its probes fail with
    /// [`ProbeError::MissingSector`] when they do not.
    pub fn is_left_out(&self, sector: Sector) -> bool {
        self.play.is_some()
            && sector.is_valid()
            && matches!(self.summary(sector), Err(ProbeError::MissingSector(_)))
    }

    /// The slots of a sector: its table's, or for a sector a play set
    /// leaves out, the index's.
    pub fn slots(&self, sector: Sector) -> Result<u64, ProbeError> {
        match self.summary(sector) {
            Err(ProbeError::MissingSector(_)) if self.is_left_out(sector) => {
                Ok(Indexer::get().slots(sector))
            }
            Ok(s) if s.scheme != OPPONENT_MAJOR => Ok(Indexer::get().slots(sector)),
            summary => Ok(summary?.slots),
        }
    }

    /// The code stored at a slot of this tablebase's own tables.
    pub(crate) fn stored_code(&self, sector: Sector, slot: u64) -> Result<u16, ProbeError> {
        self.in_own_table(sector, |id, table| {
            self.cached_code(id, table, file_slot(table, sector, slot))
        })
    }

    /// The code at a slot of this tablebase's own table of a sector as the
    /// file numbers it (its own index scheme), through the cache.
    pub(crate) fn file_code(&self, sector: Sector, slot: u64) -> Result<u16, ProbeError> {
        self.in_own_table(sector, |id, table| self.cached_code(id, table, slot))
    }

    /// The code at a slot of a table (as the file numbers it), through the
    /// cache under the table's id.
    fn cached_code(
        &self,
        id: u32,
        table: &Table<Box<dyn Storage>>,
        slot: u64,
    ) -> Result<u16, FileError> {
        let (block, i) = table.locate(slot)?;
        self.cache
            .code((id, block), i, || table.decode_block(block))
    }

    /// The code stored at a slot of this tablebase's own outcome table and,
    /// when it is an outcome of `side` and `ranked`, where the slot's symbol
    /// sits in a play set's dense distance table (`Encoding::Dense`): the
    /// slot's block and its rank among the slots of `side` there. One
    /// visit of the block for both, so a probe without a cache decodes it
    /// once.
    pub(crate) fn stored_code_and_rank(
        &self,
        sector: Sector,
        slot: u64,
        side: PlaySide,
        ranked: bool,
    ) -> Result<(u16, Option<(u32, usize)>), ProbeError> {
        self.in_own_table(sector, |id, table| {
            let (block, i) = table.locate(file_slot(table, sector, slot))?;
            let (code, rank) = self
                .cache
                .code_and_rank((id, block), i, side, ranked, || table.decode_block(block))?;
            Ok((code, rank.map(|r| (block, r))))
        })
    }

    /// The `i`-th code of a block of this tablebase's own table of a
    /// sector.
    pub(crate) fn block_code(
        &self,
        sector: Sector,
        block: u32,
        i: usize,
    ) -> Result<u16, ProbeError> {
        self.in_own_table(sector, |id, table| {
            self.cache
                .code((id, block), i, || table.decode_block(block))
        })
    }

    /// `read` of this tablebase's own table of a sector (with the table's
    /// id in the block cache); a file error names the file.
    pub(crate) fn in_own_table<T>(
        &self,
        sector: Sector,
        read: impl FnOnce(u32, &Table<Box<dyn Storage>>) -> Result<T, FileError>,
    ) -> Result<T, ProbeError> {
        let entry = self.entry(sector)?;
        let table = self.table(entry)?;
        read(entry.id, table).map_err(|source| ProbeError::File {
            path: entry.path.clone(),
            source,
        })
    }

    /// Every code of a sector's table, after checking the file's checksum
    /// (the solver reads finished sectors this way, the verifier too).
    ///
    /// # Errors
    /// [`ProbeError::MissingSector`]; [`ProbeError::File`] for a damaged or
    /// unreadable file.
    pub fn sector_values(&self, sector: Sector) -> Result<Vec<u16>, ProbeError> {
        if self.play.is_some() {
            let mut out = vec![0; self.slots(sector)? as usize];
            self.sector_values_into(sector, &mut out)?;
            return Ok(out);
        }
        self.stored_sector(sector)
    }

    /// Every code of this tablebase's own table of a sector.
    pub(crate) fn stored_sector(&self, sector: Sector) -> Result<Vec<u16>, ProbeError> {
        self.in_own_table(sector, |_, table| match table.summary().scheme {
            OPPONENT_MAJOR => table.decode_all(),
            _ => {
                let mut out = vec![HOLE; Indexer::get().slots(sector) as usize];
                decode_numbered(table, sector, &mut out)?;
                Ok(out)
            }
        })
    }

    /// `sector_values` into `out`, which must have one element per slot
    /// of the table (`Table::decode_into`).
    ///
    /// # Errors
    /// Those of [`Tablebase::sector_values`]; [`ProbeError::File`] if `out`
    /// does not have one element per slot.
    pub fn sector_values_into(&self, sector: Sector, out: &mut [u16]) -> Result<(), ProbeError> {
        if self.play.is_some() {
            // Rebuilt slot by slot, as probes read them.
            if out.len() as u64 != self.slots(sector)? {
                return Err(ProbeError::File {
                    path: self.dir().join(sector.name()),
                    source: FileError::Corrupt("a buffer of another length".into()),
                });
            }
            for (slot, o) in out.iter_mut().enumerate() {
                *o = self.code(sector, slot as u64)?;
            }
            return Ok(());
        }
        self.in_own_table(sector, |_, table| decode_numbered(table, sector, out))
    }

    /// Checks the checksum of a sector's whole file.
    ///
    /// # Errors
    /// [`ProbeError::MissingSector`]; [`ProbeError::File`] with
    /// [`FileError::ChecksumMismatch`] for a damaged file.
    pub fn check_checksum(&self, sector: Sector) -> Result<(), ProbeError> {
        if self.is_left_out(sector) {
            // A sector a play set leaves out has no file.
            return Ok(());
        }
        if let Some(play) = &self.play {
            play.check_checksum(sector)?;
        }
        self.in_own_table(sector, |_, table| table.check_checksum())
    }

    fn kind(&self) -> TableKind {
        self.source.kind()
    }

    fn entry(&self, sector: Sector) -> Result<&Entry, ProbeError> {
        self.tables
            .get(&sector)
            .ok_or(ProbeError::MissingSector(sector))
    }

    fn table<'a>(&self, entry: &'a Entry) -> Result<&'a Table<Box<dyn Storage>>, ProbeError> {
        if let Some(table) = entry.table.get() {
            return table
                .as_ref()
                .ok_or(ProbeError::MissingSector(entry.sector));
        }
        let fail = |source| ProbeError::File {
            path: entry.path.clone(),
            source,
        };
        let Some(storage) = self.source.open(entry.sector).map_err(fail)? else {
            if self.listed {
                // Listed a moment ago: the file was removed since.
                return Err(fail(FileError::Io(std::io::ErrorKind::NotFound.into())));
            }
            let _ = entry.table.set(None);
            return Err(ProbeError::MissingSector(entry.sector));
        };
        let table = Table::new(storage).map_err(fail)?;
        check_kind(table.summary(), self.kind()).map_err(fail)?;
        if table.sector() != entry.sector {
            return Err(fail(FileError::WrongSector {
                file_name: entry.sector.name(),
                header: table.sector(),
            }));
        }
        if entry.summary.is_some_and(|s| s != *table.summary()) {
            return Err(fail(FileError::Corrupt(
                "the file changed since the tablebase was opened".into(),
            )));
        }
        let rules = table.summary().rules;
        let known = *self.rules.get_or_init(|| rules);
        if known != rules {
            return Err(ProbeError::MixedRules {
                path: entry.path.clone(),
                rules,
                others: known,
            });
        }
        Ok(entry
            .table
            .get_or_init(|| Some(table))
            .as_ref()
            .expect("just opened"))
    }
}

/// Every code of a table of `sector` into `out`, numbered as the tables
/// number them (opponent-major, `HOLE` at the holes) whatever the file's
/// scheme; `out` must have one element per slot of the sector.
fn decode_numbered(
    table: &Table<Box<dyn Storage>>,
    sector: Sector,
    out: &mut [u16],
) -> Result<(), FileError> {
    let ix = Indexer::get();
    match table.summary().scheme {
        OPPONENT_MAJOR => table.decode_into(out),
        _ if out.len() as u64 != ix.slots(sector) => {
            Err(FileError::Corrupt("a buffer of another length".into()))
        }
        _ => {
            ix.renumber(sector, 0, out, &table.decode_all()?, HOLE);
            Ok(())
        }
    }
}

/// Where a slot of a sector (numbered opponent-major, as `Indexer::index`
/// numbers it) sits in a table numbered by the table's own scheme; past the
/// table for a slot past the sector.
fn file_slot(table: &Table<Box<dyn Storage>>, sector: Sector, slot: u64) -> u64 {
    match table.summary().scheme {
        OPPONENT_MAJOR => slot,
        scheme => {
            let ix = Indexer::get();
            ix.unindex(sector, slot)
                .map_or(u64::MAX, |node| ix.index_in(&node, scheme))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tablebase_is_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<Tablebase>();
    }
}
