//! The set of tables of one directory: lazy opening, probes by position,
//! perfect moves, and whole sectors for the solver and the verifier.

use crate::error::{FileError, ProbeError};
use crate::index::Indexer;
use crate::position::{Node, Position};
use crate::rules::{Move, Rules};
use crate::sector::Sector;
use crate::table::{Block, Table, TableSummary, EXTENSION};
use crate::value::Outcome;
use memmap2::Mmap;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Memory for decoded blocks by default.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;
const SHARDS: usize = 16;

/// The tables of one directory, all solved under the same rules.
///
/// Opening reads the directory and each file's 128-byte header, nothing
/// more; a table is mapped into memory the first time a probe needs it.
/// Every query takes `&self`, and the type is `Send + Sync`: share one
/// `Tablebase` between threads. Decoded blocks are kept in a cache of
/// bounded size (`with_cache_bytes`).
///
/// # Files
/// Tables are memory-mapped: the files must not be modified or truncated
/// while the tablebase is alive (replacing one by renaming another file onto
/// its name, as moulin's writer does, is fine: the mapping keeps the old
/// file).
pub struct Tablebase {
    dir: PathBuf,
    rules: Rules,
    tables: BTreeMap<Sector, Entry>,
    cache: BlockCache,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("dir", &self.dir)
            .field("rules", &self.rules)
            .field("sectors", &self.tables.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

struct Entry {
    id: u32,
    path: PathBuf,
    summary: TableSummary,
    table: OnceLock<Table<Mmap>>,
}

impl Tablebase {
    /// Lists the `*.mtb` tables of a directory and reads their headers. All
    /// must share one rule set, which becomes the tablebase's rules (the
    /// default rules if there is no table). A directory without tables opens;
    /// its probes answer `MissingSector` (except finished games).
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        let listing_error = |source| ProbeError::Directory {
            path: dir.clone(),
            source,
        };
        let mut paths = Vec::new();
        for item in std::fs::read_dir(&dir).map_err(listing_error)? {
            let path = item.map_err(listing_error)?.path();
            if path.extension().is_some_and(|e| e == EXTENSION) && path.is_file() {
                paths.push(path);
            }
        }
        paths.sort();
        let mut tables = BTreeMap::new();
        let mut rules = None;
        for (id, path) in paths.into_iter().enumerate() {
            let summary = read_summary(&path).map_err(|source| ProbeError::File {
                path: path.clone(),
                source,
            })?;
            match rules {
                None => rules = Some(summary.rules),
                Some(r) if r != summary.rules => {
                    return Err(ProbeError::MixedRules {
                        path,
                        rules: summary.rules,
                        others: r,
                    })
                }
                Some(_) => {}
            }
            let entry = Entry {
                id: id as u32,
                path,
                summary,
                table: OnceLock::new(),
            };
            tables.insert(summary.sector, entry);
        }
        Ok(Tablebase {
            dir,
            rules: rules.unwrap_or_default(),
            tables,
            cache: BlockCache::new(DEFAULT_CACHE_BYTES),
        })
    }

    /// Asks for these rule options: an error if the tables were solved under
    /// others. Sets the rules of an empty directory.
    pub fn with_rules(mut self, rules: Rules) -> Result<Tablebase, ProbeError> {
        if !self.tables.is_empty() && rules != self.rules {
            return Err(ProbeError::RulesMismatch {
                tables: self.rules,
                asked: rules,
            });
        }
        self.rules = rules;
        Ok(self)
    }

    /// Sets the memory budget for decoded blocks (0: no cache).
    pub fn with_cache_bytes(mut self, bytes: usize) -> Tablebase {
        self.cache = BlockCache::new(bytes);
        self
    }

    /// The rule options of the tables.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The directory of the tables.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sectors present with their headers, in sector order.
    pub fn sectors(&self) -> impl Iterator<Item = (Sector, &TableSummary)> + '_ {
        self.tables.iter().map(|(s, e)| (*s, &e.summary))
    }

    /// The header of a sector's table.
    pub fn summary(&self, sector: Sector) -> Result<&TableSummary, ProbeError> {
        Ok(&self.entry(sector)?.summary)
    }

    /// The file of a sector's table.
    pub fn path(&self, sector: Sector) -> Result<&Path, ProbeError> {
        Ok(&self.entry(sector)?.path)
    }

    /// The outcome of a position for the player to move.
    pub fn probe(&self, pos: &Position) -> Result<Outcome, ProbeError> {
        pos.validate()?;
        self.probe_valid(&pos.node())
    }

    /// The outcome of a position seen from the player to move.
    pub fn probe_node(&self, node: &Node) -> Result<Outcome, ProbeError> {
        Position::from_node(*node, node.side_by_hands()).validate()?;
        self.probe_valid(node)
    }

    fn probe_valid(&self, node: &Node) -> Result<Outcome, ProbeError> {
        if self.rules.is_lost(node) {
            return Ok(Outcome::Loss(0));
        }
        let sector = Sector::of(node);
        let slot = Indexer::get().index(node);
        let code = self.code(sector, slot)?;
        Outcome::from_code(code).ok_or_else(|| ProbeError::File {
            path: self
                .entry(sector)
                .map(|e| e.path.clone())
                .unwrap_or_default(),
            source: FileError::Corrupt(format!("slot {slot} of a position is a hole")),
        })
    }

    /// Every legal move with the outcome it leads to, seen by the player who
    /// makes it (a move to a lost position is `Win(1)`), in the order of
    /// `Rules::legal_moves`. Empty when the game is over.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Outcome)>, ProbeError> {
        pos.validate()?;
        let mut next = Vec::new();
        self.rules
            .for_each_move(&pos.node(), |m, node| next.push((m, node)));
        next.into_iter()
            .map(|(m, node)| Ok((m, self.probe_valid(&node)?.before_move())))
            .collect()
    }

    /// Every move that keeps the outcome optimal: the fastest wins, else any
    /// draw, else the slowest losses. Empty when the game is over.
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let moves = self.probe_moves(pos)?;
        let best = moves.iter().map(|(_, o)| o.rank()).max();
        Ok(moves
            .into_iter()
            .filter(|(_, o)| Some(o.rank()) == best)
            .map(|(m, _)| m)
            .collect())
    }

    /// The stored code of a slot (`HOLE` for a hole), through the cache.
    pub fn code(&self, sector: Sector, slot: u64) -> Result<u16, ProbeError> {
        let entry = self.entry(sector)?;
        let table = self.table(entry)?;
        let fail = |source| ProbeError::File {
            path: entry.path.clone(),
            source,
        };
        let (block, i) = table.locate(slot).map_err(fail)?;
        self.cache
            .code((entry.id, block), i, || table.decode_block(block))
            .map_err(fail)
    }

    /// Every code of a sector's table, after checking the file's checksum
    /// (the solver reads finished sectors this way, the verifier too).
    pub fn sector_values(&self, sector: Sector) -> Result<Vec<u16>, ProbeError> {
        let entry = self.entry(sector)?;
        self.table(entry)?
            .decode_all()
            .map_err(|source| ProbeError::File {
                path: entry.path.clone(),
                source,
            })
    }

    /// Checks the checksum of a sector's whole file.
    pub fn check_checksum(&self, sector: Sector) -> Result<(), ProbeError> {
        let entry = self.entry(sector)?;
        self.table(entry)?
            .check_checksum()
            .map_err(|source| ProbeError::File {
                path: entry.path.clone(),
                source,
            })
    }

    fn entry(&self, sector: Sector) -> Result<&Entry, ProbeError> {
        self.tables
            .get(&sector)
            .ok_or(ProbeError::MissingSector(sector))
    }

    fn table<'a>(&self, entry: &'a Entry) -> Result<&'a Table<Mmap>, ProbeError> {
        if let Some(table) = entry.table.get() {
            return Ok(table);
        }
        let fail = |source| ProbeError::File {
            path: entry.path.clone(),
            source,
        };
        // SAFETY: the contract of `Tablebase` (see "Files" above): the files
        // do not change while the tablebase is alive.
        let table = unsafe { Table::map(&entry.path) }.map_err(fail)?;
        if *table.summary() != entry.summary {
            return Err(fail(FileError::Corrupt(
                "the file changed since the tablebase was opened".into(),
            )));
        }
        Ok(entry.table.get_or_init(|| table))
    }
}

/// Reads and checks a table's header and length, and its name.
fn read_summary(path: &Path) -> Result<TableSummary, FileError> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if stem.parse::<Sector>().is_err() {
        return Err(FileError::BadFileName(format!("{stem}.{EXTENSION}")));
    }
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut header = Vec::with_capacity(crate::table::format::HEADER_LEN);
    file.take(crate::table::format::HEADER_LEN as u64)
        .read_to_end(&mut header)?;
    let summary = TableSummary::parse(&header)?;
    if summary.bytes != len {
        return Err(FileError::Length {
            expected: summary.bytes,
            got: len,
        });
    }
    crate::table::read::check_file_name(path, summary.sector)?;
    Ok(summary)
}

/// Decoded blocks, least recently used evicted first, in shards so that
/// threads probing different blocks rarely wait for each other.
struct BlockCache {
    shards: Vec<Mutex<Shard>>,
    shard_bytes: usize,
}

#[derive(Default)]
struct Shard {
    blocks: HashMap<(u32, u32), (Block, u64), BuildHasherDefault<KeyHasher>>,
    bytes: usize,
    clock: u64,
}

/// A multiplicative hash for the (table, block) keys: SipHash's resistance
/// to chosen keys is not needed here and costs a good part of a warm probe.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl BlockCache {
    fn new(bytes: usize) -> BlockCache {
        BlockCache {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            shard_bytes: bytes / SHARDS,
        }
    }

    fn shard(&self, key: (u32, u32)) -> MutexGuard<'_, Shard> {
        let h = ((key.0 as u64) << 32 | key.1 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let shard = &self.shards[(h >> 60) as usize % SHARDS];
        // A panic while holding the lock cannot leave a shard inconsistent.
        shard.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The `i`-th code of a block, decoding the block with `load` on a miss.
    fn code(
        &self,
        key: (u32, u32),
        i: usize,
        load: impl FnOnce() -> Result<Block, FileError>,
    ) -> Result<u16, FileError> {
        let missing = || FileError::Corrupt(format!("slot {i} missing from block {}", key.1));
        {
            let mut shard = self.shard(key);
            shard.clock += 1;
            let now = shard.clock;
            if let Some((block, used)) = shard.blocks.get_mut(&key) {
                *used = now;
                return block.code(i).ok_or_else(missing);
            }
        }
        let block = load()?;
        let code = block.code(i).ok_or_else(missing)?;
        if block.memory() <= self.shard_bytes {
            let mut shard = self.shard(key);
            shard.bytes += block.memory();
            let now = shard.clock;
            if let Some((old, _)) = shard.blocks.insert(key, (block, now)) {
                shard.bytes -= old.memory();
            }
            while shard.bytes > self.shard_bytes {
                let oldest = shard.blocks.iter().min_by_key(|(_, (_, used))| *used);
                let Some((&k, _)) = oldest else { break };
                if let Some((old, _)) = shard.blocks.remove(&k) {
                    shard.bytes -= old.memory();
                }
            }
        }
        Ok(code)
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
