//! Writing a table: counts from the values, blocks compressed in parallel
//! (the output does not depend on the number of threads), a temporary file
//! renamed into place once synced.

use moulin_core::error::FileError;
use moulin_core::index::{count_positions, Indexer};
use moulin_core::play::{outcome_code, side_of, symbol, PlaySide};
use moulin_core::rules::Rules;
use moulin_core::sector::Sector;
use moulin_core::table::format::{
    Counts, Encoding, TableKind, TableSummary, END_MAGIC, HEADER_LEN, INDEX_ENTRY_LEN,
    MAX_BLOCK_BYTES, TRAILER_LEN,
};
use moulin_core::table::read::{block_crc, check_file_name, Table};
use moulin_core::value::{Outcome, RuleOutcome, HOLE};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Cursor, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;

/// Largest decompressed block the automatic choice makes (`block_bytes` 0).
///
/// A cold probe decompresses one block, and its time grows with the block's
/// compressed size (about 8 µs per KiB: many short matches to replay) more
/// than with its decompressed size (about 0.1 µs per KiB), plus 3 to 4 µs a
/// block. So the writer compresses a sample of 64 KiB blocks and halves the
/// block size, down to 8 KiB, until a block is expected to compress to at
/// most 1.5 KiB: about 20 µs to decode on one core. The real tables up to
/// 5 v 5 mostly compress to a few hundred bytes per 64 KiB (11 µs; 32 KiB
/// blocks would make them 14% larger); values with more entropy get smaller
/// blocks.
pub const MAX_AUTO_BLOCK_BYTES: u32 = 64 * 1024;
/// Largest decompressed block the automatic choice makes for a WDL table:
/// a million slots. Outcomes alone compress so well that such a block still
/// compresses to about a KiB in the large sectors (5v5: 1.1 KiB), and is
/// 10% smaller than in 64 KiB blocks (`examples/wdl_packing.rs`).
pub const MAX_AUTO_WDL_BLOCK_BYTES: u32 = 256 * 1024;
/// Smallest decompressed block the automatic choice makes.
pub const MIN_AUTO_BLOCK_BYTES: u32 = 8 * 1024;
/// Compressed bytes a block should not exceed, in the automatic choice.
const TARGET_COMPRESSED_BYTES: u64 = 1536;
/// Blocks compressed to choose the block size.
const SAMPLE_BLOCKS: u64 = 16;
/// zstd level by default: tables are written once and read many times. On
/// the tables up to 5 v 5, level 19 writes about 3 million slots per second
/// and thread; level 15 is three times faster and 2.5% larger, level 22
/// twice slower and 1.3% smaller.
pub const DEFAULT_LEVEL: i32 = 19;
/// Decompressed bytes of a play set's outcome block by default (16,384
/// slots without the rule): a probe of the side not stored reads an
/// outcome per move, so a cold probe decodes a block per move.
pub const PLAY_OUTCOME_BLOCK_BYTES: u32 = 4 * 1024;

/// How a table is written. The defaults suit every sector.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// zstd compression level (1..=22).
    pub level: i32,
    /// Bytes of a decompressed block (rounded down to whole slots); 0 picks
    /// them from a sample of the values (see `MAX_AUTO_BLOCK_BYTES`).
    pub block_bytes: u32,
    /// Layout of the values; `None` picks one byte per slot when every code
    /// fits, else two bytes in planes.
    pub encoding: Option<Encoding>,
    /// Threads compressing blocks; 0 for the number of cores.
    pub threads: usize,
    /// The index scheme numbering the values' slots (`index::OPPONENT_MAJOR`,
    /// the solver's, or `index::MOVER_MAJOR`, a play set's).
    pub scheme: u8,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            level: DEFAULT_LEVEL,
            block_bytes: 0,
            encoding: None,
            threads: 0,
            scheme: moulin_core::index::OPPONENT_MAJOR,
        }
    }
}

/// Writes the table of `sector` with default options; see `write_table_with`.
pub fn write_table(
    path: impl AsRef<Path>,
    sector: Sector,
    rules: Rules,
    values: &[u16],
) -> Result<TableSummary, FileError> {
    write_table_with(path, sector, rules, values, &WriteOptions::default())
}

/// Writes the table of `sector`: `values[slot]` is the code of each slot
/// (`HOLE` exactly at the holes of the index). `path` is a directory (the
/// file is `<dir>/<sector>.mtb`) or a file path.
///
/// Writes a temporary file of a unique name (`<file>.<pid>-<n>.tmp`, made
/// with `create_new`), syncs it and renames it, so an interrupted write
/// never leaves a file that looks complete; the temporary file is removed
/// when anything fails, the rename included. Holds one compressed block per
/// thread besides `values`.
///
/// # Errors
/// [`FileError::BadValues`] for values that cannot be the sector's table
/// (not one code per slot, holes not where the index has them, a one-byte
/// encoding asked for codes that do not fit); [`FileError::WrongSector`]
/// if `path` is a file named after another sector; [`FileError::Io`] if
/// writing, syncing or renaming fails. An example is in the crate's
/// documentation.
pub fn write_table_with(
    path: impl AsRef<Path>,
    sector: Sector,
    rules: Rules,
    values: &[u16],
    options: &WriteOptions,
) -> Result<TableSummary, FileError> {
    let what = Contents::Distances;
    write_contents(path.as_ref(), what, sector, rules, values, options, false)
}

/// Writes the WDL table of `sector` (`<dir>/<sector>.mtw`, or the file
/// `path`) from the codes of its distance table (`values` as for
/// `write_table_with`): the outcome of each slot in two bits, the header's
/// counts and longest distances those of `values`. Under the no-capture
/// rule: the five outcomes at counter 0 (`Encoding::RuleOutcomes`, format
/// version 2). `options.encoding` is ignored.
///
/// # Errors
/// Those of [`write_table_with`].
pub fn write_wdl_table_with(
    path: impl AsRef<Path>,
    sector: Sector,
    rules: Rules,
    values: &[u16],
    options: &WriteOptions,
) -> Result<TableSummary, FileError> {
    let what = Contents::Outcomes;
    write_contents(path.as_ref(), what, sector, rules, values, options, false)
}

/// What a table file is written with, from a sector's distance codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Contents {
    /// The codes themselves (`<sector>.mtb`).
    Distances,
    /// Their outcomes (`<sector>.mtw`).
    Outcomes,
    /// A play set's distances of one side (`<sector>.mtd`): the symbol of
    /// each position of that side (`moulin_core::play::symbol`), in the blocks of
    /// its outcome table, one byte per slot of the side
    /// (`Encoding::Dense`: `WriteOptions::block_bytes` are then the outcome
    /// table's, and 0 means `PLAY_OUTCOME_BLOCK_BYTES`); or, when a symbol
    /// does not fit a byte or another encoding is asked for, one per slot,
    /// the symbol before it at every other slot. Format version 2.
    Play(PlaySide),
}

impl Contents {
    /// The kind of file.
    pub fn kind(self) -> TableKind {
        match self {
            Contents::Distances => TableKind::Distances,
            Contents::Outcomes => TableKind::Outcomes,
            Contents::Play(_) => TableKind::PlayDistances,
        }
    }

    /// What the file holds for a distance code; `None`: nothing to check
    /// (a hole, or a slot of the other side in a play set's table).
    pub fn stored(self, rules: &Rules, code: u16) -> Option<u16> {
        match self {
            Contents::Distances => Some(code),
            Contents::Outcomes => outcome_code(rules, code),
            Contents::Play(side) => symbol(rules, side, code),
        }
    }
}

/// Writes a table of these contents at `path` (a directory or a file);
/// with `read_back`, reads the new file back and compares it with
/// `values` before it replaces anything (`moulin pack` does: it costs a
/// decompression).
pub fn write_contents(
    path: &Path,
    what: Contents,
    sector: Sector,
    rules: Rules,
    values: &[u16],
    options: &WriteOptions,
    read_back: bool,
) -> Result<TableSummary, FileError> {
    let target = path_with(path, sector, what.kind().extension());
    write_file(
        &target,
        sector,
        |out| encode_to(out, sector, rules, values, options, what),
        |tmp| match read_back {
            true => compare_written(tmp, what, values),
            false => Ok(()),
        },
    )
}

/// Reads a written file back and compares every slot it answers for with
/// the codes it was written from.
fn compare_written(path: &Path, what: Contents, values: &[u16]) -> Result<(), FileError> {
    let table = Table::open(path)?;
    table.check_checksum()?;
    let rules = table.summary().rules;
    let differs = |what: String| {
        FileError::Corrupt(format!(
            "read back, the new file differs from its source: {what}"
        ))
    };
    if let (Contents::Play(side), Encoding::Dense) = (what, table.summary().encoding) {
        let per = table.summary().block_slots as usize;
        for (block, codes) in values.chunks(per).enumerate() {
            let stored = table.decode_block(block as u32)?;
            let mut count = 0;
            for (rank, (i, code)) in side_slots(codes, &rules, side).enumerate() {
                let got = stored.code(rank);
                if let Some(want) = symbol(&rules, side, code).filter(|&w| Some(w) != got) {
                    let slot = block * per + i;
                    return Err(differs(format!("slot {slot} holds {got:?}, not {want}")));
                }
                count = rank + 1;
            }
            if count != stored.len() {
                let n = stored.len();
                return Err(differs(format!(
                    "block {block} holds {n} symbols, not {count}"
                )));
            }
        }
        return Ok(());
    }
    let stored = table.decode_all()?;
    if stored.len() != values.len() {
        return Err(differs(format!(
            "{} slots for {}",
            stored.len(),
            values.len()
        )));
    }
    for (slot, (&got, &code)) in stored.iter().zip(values).enumerate() {
        if let Some(want) = what.stored(&rules, code).filter(|&w| w != got) {
            return Err(differs(format!("slot {slot} holds {got}, not {want}")));
        }
    }
    Ok(())
}

/// Writes `target` through a synced temporary file, checked by `check` and
/// renamed into place.
fn write_file(
    target: &Path,
    sector: Sector,
    encode: impl FnOnce(&mut BufWriter<&File>) -> Result<TableSummary, FileError>,
    check: impl FnOnce(&Path) -> Result<(), FileError>,
) -> Result<TableSummary, FileError> {
    check_file_name(target, sector)?;
    let (tmp, file) = create_temporary(target)?;
    let written = (|| {
        let mut out = BufWriter::with_capacity(1 << 20, &file);
        let summary = encode(&mut out)?;
        out.flush()?;
        drop(out);
        file.sync_all()?;
        check(&tmp)?;
        Ok(summary)
    })();
    drop(file);
    let renamed = written.and_then(|summary| {
        fs::rename(&tmp, target)?;
        Ok(summary)
    });
    let summary = match renamed {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
    };
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Make the rename itself durable; not every system can sync a directory.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(summary)
}

/// A new temporary file beside `target`, `<target>.<pid>-<n>.tmp`, made with
/// `create_new`: never a file (or a link) that was already there.
fn create_temporary(target: &Path) -> Result<(PathBuf, File), FileError> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut name = target.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".{}-{n}.tmp", std::process::id()));
        let tmp = target.with_file_name(name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            // Left by a process that had our pid before: take the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// `<dir>/<sector>.mtb` if `path` is a directory, else `path`.
pub fn table_path(path: &Path, sector: Sector) -> PathBuf {
    path_with(path, sector, moulin_core::table::EXTENSION)
}

/// `<dir>/<sector>.mtw` if `path` is a directory, else `path`.
pub fn wdl_table_path(path: &Path, sector: Sector) -> PathBuf {
    path_with(path, sector, moulin_core::table::WDL_EXTENSION)
}

fn path_with(path: &Path, sector: Sector, extension: &str) -> PathBuf {
    if path.is_dir() {
        path.join(format!("{}.{extension}", sector.name()))
    } else {
        path.to_path_buf()
    }
}

/// The bytes of a table file, in memory (for tests and tools).
pub fn encode_table(
    sector: Sector,
    rules: Rules,
    values: &[u16],
    options: &WriteOptions,
) -> Result<Vec<u8>, FileError> {
    let mut out = Cursor::new(Vec::new());
    encode_to(
        &mut out,
        sector,
        rules,
        values,
        options,
        Contents::Distances,
    )?;
    Ok(out.into_inner())
}

/// The bytes of a WDL table file, in memory (see `write_wdl_table_with`).
pub fn encode_wdl_table(
    sector: Sector,
    rules: Rules,
    values: &[u16],
    options: &WriteOptions,
) -> Result<Vec<u8>, FileError> {
    let mut out = Cursor::new(Vec::new());
    encode_to(&mut out, sector, rules, values, options, Contents::Outcomes)?;
    Ok(out.into_inner())
}

/// What `summarize` counts over a run of slots; runs are counted apart and
/// merged (sums and maxima: the order does not matter).
#[derive(Default)]
struct Tally {
    classes: Counts,
    positions: Counts,
    holes: u64,
    max_win: Option<u16>,
    max_loss: Option<u16>,
    max_code: u16,
    cursed_wins: u64,
    blessed_losses: u64,
}

impl Tally {
    /// Counts the slots `first..` whose codes are `codes`.
    fn of(sector: Sector, rule: bool, first: u64, codes: &[u16]) -> Tally {
        let ix = Indexer::get();
        let mut t = Tally::default();
        let slots = first..first + codes.len() as u64;
        ix.class_sizes(sector, slots, |slot, weight| {
            let code = codes[(slot - first) as usize];
            let value = if rule {
                RuleOutcome::from_code(code)
            } else {
                Outcome::from_code(code).map(RuleOutcome::from)
            };
            let Some(value) = value else {
                t.holes += 1;
                return;
            };
            t.max_code = t.max_code.max(code);
            let weight = weight as u64;
            let (class, all) = match value {
                RuleOutcome::Win(d) => {
                    t.max_win = t.max_win.max(Some(d));
                    (&mut t.classes.win, &mut t.positions.win)
                }
                RuleOutcome::Loss(d) => {
                    t.max_loss = t.max_loss.max(Some(d));
                    (&mut t.classes.loss, &mut t.positions.loss)
                }
                RuleOutcome::CursedWin(_) => {
                    t.cursed_wins += 1;
                    (&mut t.classes.draw, &mut t.positions.draw)
                }
                RuleOutcome::BlessedLoss(_) => {
                    t.blessed_losses += 1;
                    (&mut t.classes.draw, &mut t.positions.draw)
                }
                RuleOutcome::Draw => (&mut t.classes.draw, &mut t.positions.draw),
            };
            *class += 1;
            *all += weight;
        });
        t
    }

    fn merge(mut self, o: Tally) -> Tally {
        let add = |a: &mut Counts, b: Counts| {
            a.win += b.win;
            a.loss += b.loss;
            a.draw += b.draw;
        };
        add(&mut self.classes, o.classes);
        add(&mut self.positions, o.positions);
        self.holes += o.holes;
        self.max_win = self.max_win.max(o.max_win);
        self.max_loss = self.max_loss.max(o.max_loss);
        self.max_code = self.max_code.max(o.max_code);
        self.cursed_wins += o.cursed_wins;
        self.blessed_losses += o.blessed_losses;
        self
    }
}

/// Slots below which `summarize` counts on the calling thread alone.
const PARALLEL_SUMMARY_SLOTS: usize = 1 << 20;

/// Counts and longest distances of the values, and whether every code fits
/// one byte. `rules` tells how the codes read (rule codes under the
/// no-capture rule). Large sectors are counted on `threads` threads (0: one
/// per core), each over a run of slots (a class's weight needs the index
/// for some slots, the cost of this pass).
fn summarize(
    sector: Sector,
    rules: Rules,
    values: &[u16],
    threads: usize,
    scheme: u8,
) -> Result<(TableSummary, bool), FileError> {
    let ix = Indexer::get();
    let slots = ix.slots_in(sector, scheme);
    if values.len() as u64 != slots {
        return Err(FileError::BadValues(format!(
            "{} values for sector {sector}, which has {slots} slots in index scheme {scheme}",
            values.len()
        )));
    }
    // A class's weight, by the slots of the sector that numbers these.
    let sector_numbered = moulin_core::index::numbered_as(sector, scheme);
    let rule = rules.no_capture_limit.is_some();
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let tally = if threads <= 1 || values.len() < PARALLEL_SUMMARY_SLOTS {
        Tally::of(sector_numbered, rule, 0, values)
    } else {
        let run = values.len().div_ceil(4 * threads);
        let runs: Vec<(u64, &[u16])> = values
            .chunks(run)
            .enumerate()
            .map(|(i, codes)| ((i * run) as u64, codes))
            .collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut t = Tally::default();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&(first, codes)) = runs.get(i) else {
                                break t;
                            };
                            t = t.merge(Tally::of(sector_numbered, rule, first, codes));
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("a counting thread panicked"))
                .fold(Tally::default(), Tally::merge)
        })
    };
    let Tally {
        classes,
        positions,
        holes,
        max_win,
        max_loss,
        max_code,
        cursed_wins,
        blessed_losses,
    } = tally;
    if positions.total() != count_positions(sector) {
        return Err(FileError::BadValues(format!(
            "the non-hole slots stand for {} positions, but sector {sector} has {}: \
             holes are not where the index puts them",
            positions.total(),
            count_positions(sector)
        )));
    }
    let summary = TableSummary {
        sector,
        rules,
        slots,
        classes,
        positions,
        holes,
        max_win,
        max_loss,
        cursed_wins,
        blessed_losses,
        wdl: false,
        play: None,
        encoding: Encoding::U8,
        block_slots: 0,
        blocks: 0,
        level: 0,
        bytes: 0,
        scheme,
    };
    Ok((summary, max_code < u8::MAX as u16))
}

/// The bytes of a block before compression. `codes` are always distance
/// codes; an outcome table or a play set's distance table takes what it
/// stores from them.
fn raw_block(codes: &[u16], s: &TableSummary) -> Vec<u8> {
    if let (Some(side), Encoding::Dense) = (s.play, s.encoding) {
        // A hole among the side's slots repeats the symbol before it.
        let mut previous = 0;
        return side_slots(codes, &s.rules, side)
            .map(|(_, code)| {
                previous = symbol(&s.rules, side, code).map_or(previous, |x| x as u8);
                previous
            })
            .collect();
    }
    if let Some(side) = s.play {
        // A slot of the other side repeats the symbol before it.
        let mut last = 0;
        let symbols: Vec<u16> = codes
            .iter()
            .map(|&c| {
                last = symbol(&s.rules, side, c).unwrap_or(last);
                last
            })
            .collect();
        return raw_block(&symbols, &TableSummary { play: None, ..*s });
    }
    match s.encoding {
        Encoding::U8 => codes
            .iter()
            .map(|&c| if c == HOLE { u8::MAX } else { c as u8 })
            .collect(),
        Encoding::U16 => codes.iter().flat_map(|c| c.to_le_bytes()).collect(),
        Encoding::U16Planes => {
            let mut raw = Vec::with_capacity(2 * codes.len());
            raw.extend(codes.iter().map(|&c| c as u8));
            raw.extend(codes.iter().map(|&c| (c >> 8) as u8));
            raw
        }
        Encoding::Wdl => {
            // `codes` are distance codes; a hole repeats the value before it.
            let mut raw = vec![0u8; codes.len().div_ceil(4)];
            let mut last = 0u8;
            for (i, &code) in codes.iter().enumerate() {
                last = stored_outcome(&s.rules, code, last);
                raw[i / 4] |= last << (2 * (i % 4));
            }
            raw
        }
        Encoding::RuleOutcomes => {
            // `codes` are rule codes; a hole repeats the value before it.
            let mut raw = vec![0u8; codes.len().div_ceil(3)];
            let mut last = 0u8;
            for (i, &code) in codes.iter().enumerate() {
                last = stored_outcome(&s.rules, code, last);
                raw[i / 3] += last * [1, 5, 25][i % 3];
            }
            raw
        }
        Encoding::Dense => unreachable!("a dense block is a play set's"),
    }
}

/// The slots of a block whose outcome, as its outcome table stores it
/// (`stored_outcome`: a hole has the one before it), is of `side`, in
/// order, each with its index in the block and its code: a dense distance
/// block holds a symbol for each, in this order (`Encoding::Dense`). Both
/// sides: the wins' slots, then the losses'.
fn side_slots<'a>(
    codes: &'a [u16],
    rules: &'a Rules,
    side: PlaySide,
) -> Box<dyn Iterator<Item = (usize, u16)> + 'a> {
    if side == PlaySide::Both {
        let wins = side_slots(codes, rules, PlaySide::Wins);
        return Box::new(wins.chain(side_slots(codes, rules, PlaySide::Losses)));
    }
    let mut last = 0;
    Box::new(codes.iter().enumerate().filter_map(move |(i, &code)| {
        last = stored_outcome(rules, code, last);
        (side_of(last as u16) == Some(side)).then_some((i, code))
    }))
}

/// The outcome an outcome table stores for a code, `last` the one it
/// stored for the slot before in the block (0, a draw, at its start): the
/// outcome code (`RuleOutcome::outcome_code`), and `last` for a hole.
fn stored_outcome(rules: &Rules, code: u16, last: u8) -> u8 {
    match rules.no_capture_limit {
        Some(_) => RuleOutcome::from_code(code).map_or(last, |v| v.outcome_code() as u8),
        None => match Outcome::from_code(code) {
            Some(Outcome::Draw) => 0,
            Some(Outcome::Win(_)) => 1,
            Some(Outcome::Loss(_)) => 2,
            None => last,
        },
    }
}

fn encode_to<W: Write + Seek>(
    out: &mut W,
    sector: Sector,
    rules: Rules,
    values: &[u16],
    options: &WriteOptions,
    what: Contents,
) -> Result<TableSummary, FileError> {
    let (mut summary, mut fits_u8) =
        summarize(sector, rules, values, options.threads, options.scheme)?;
    let wdl = what == Contents::Outcomes;
    if let Contents::Play(side) = what {
        summary.play = Some(side);
        let most = values.iter().filter_map(|&c| symbol(&rules, side, c)).max();
        fits_u8 = most.unwrap_or(0) < u8::MAX as u16;
    }
    let outcomes = Encoding::of_outcomes(&rules);
    let encoding = match options.encoding {
        _ if wdl => outcomes,
        None if summary.play.is_some() && fits_u8 => Encoding::Dense,
        Some(Encoding::Dense) if summary.play.is_none() || !fits_u8 => {
            return Err(FileError::BadValues(
                "the dense encoding is a play set's, with symbols below 255".into(),
            ))
        }
        // A distance table is never written in the WDL encoding.
        None | Some(Encoding::Wdl | Encoding::RuleOutcomes) if fits_u8 => Encoding::U8,
        None | Some(Encoding::Wdl | Encoding::RuleOutcomes) => Encoding::U16Planes,
        Some(Encoding::U8) if !fits_u8 => {
            return Err(FileError::BadValues(
                "one-byte encoding asked for, but some codes do not fit".into(),
            ))
        }
        Some(e) => e,
    };
    summary.rules = rules;
    summary.wdl = wdl;
    summary.encoding = encoding;
    let block_slots = if encoding == Encoding::Dense {
        // The blocks of the outcome table.
        let bytes = match options.block_bytes {
            0 => PLAY_OUTCOME_BLOCK_BYTES,
            n => n,
        };
        let slots = outcomes.slots_in(bytes as u64).min(MAX_BLOCK_BYTES);
        (slots as u32).max(1)
    } else {
        let block_bytes = match options.block_bytes {
            0 => auto_block_bytes(values, &summary, options.level)?,
            n => n.min(MAX_BLOCK_BYTES as u32),
        };
        (encoding.slots_in(block_bytes as u64) as u32).max(1)
    };
    let blocks = u32::try_from(summary.slots.div_ceil(block_slots as u64))
        .map_err(|_| FileError::BadValues("too many blocks; use larger blocks".into()))?;
    summary.block_slots = block_slots;
    summary.blocks = blocks;
    summary.level = options.level;

    let data_start = summary.data_start();
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&vec![0; data_start as usize])?;
    let mut index = Vec::with_capacity(blocks as usize * INDEX_ENTRY_LEN);
    let mut data_crc = crc32fast::Hasher::new();
    let mut end = data_start;
    compress_blocks(values, &summary, options, |block, frame| {
        out.write_all(&frame)?;
        data_crc.update(&frame);
        end += frame.len() as u64;
        index.extend(end.to_le_bytes());
        index.extend(block_crc(block, &frame).to_le_bytes());
        Ok(())
    })?;
    out.write_all(&END_MAGIC)?;
    data_crc.update(&END_MAGIC);
    summary.bytes = end + TRAILER_LEN as u64;

    let header = summary.to_bytes();
    let mut crc = crc32fast::Hasher::new();
    crc.update(&header);
    crc.update(&index);
    crc.combine(&data_crc);
    out.write_all(&crc.finalize().to_le_bytes())?;
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header)?;
    out.write_all(&index)?;
    out.seek(SeekFrom::Start(summary.bytes))?;
    debug_assert_eq!(HEADER_LEN + index.len(), data_start as usize);
    Ok(summary)
}

fn compressor(level: i32) -> io::Result<zstd::bulk::Compressor<'static>> {
    let mut c = zstd::bulk::Compressor::new(level)?;
    // Every block's length is known from the header.
    c.set_parameter(zstd::stream::raw::CParameter::ContentSizeFlag(false))?;
    Ok(c)
}

/// The block size for values: the largest power of two from
/// `MAX_AUTO_BLOCK_BYTES` down to `MIN_AUTO_BLOCK_BYTES` whose blocks are
/// expected to compress to at most `TARGET_COMPRESSED_BYTES`, judged from a
/// few evenly spread blocks (the same values always give the same size).
fn auto_block_bytes(values: &[u16], summary: &TableSummary, level: i32) -> io::Result<u32> {
    let encoding = summary.encoding;
    let largest = match encoding {
        Encoding::Wdl | Encoding::RuleOutcomes => MAX_AUTO_WDL_BLOCK_BYTES,
        _ => MAX_AUTO_BLOCK_BYTES,
    };
    let per = encoding.slots_in(largest as u64);
    let blocks = (values.len() as u64).div_ceil(per);
    let mut c = compressor(level)?;
    let (mut raw, mut compressed) = (0u64, 0u64);
    let mut last = None;
    for i in 0..SAMPLE_BLOCKS {
        let block = i * blocks / SAMPLE_BLOCKS;
        if block >= blocks || last == Some(block) {
            continue;
        }
        last = Some(block);
        let start = (block * per) as usize;
        let bytes = raw_block(
            &values[start..(start + per as usize).min(values.len())],
            summary,
        );
        raw += bytes.len() as u64;
        compressed += c.compress(&bytes)?.len() as u64;
    }
    let mut size = largest;
    // Expected compressed bytes of a block of `size` bytes: compressed * size / raw.
    while size > MIN_AUTO_BLOCK_BYTES && compressed * size as u64 > TARGET_COMPRESSED_BYTES * raw {
        size /= 2;
    }
    Ok(size)
}

/// Compresses every block, on several threads, and hands them to `sink` in
/// block order.
fn compress_blocks(
    values: &[u16],
    summary: &TableSummary,
    options: &WriteOptions,
    mut sink: impl FnMut(u32, Vec<u8>) -> Result<(), FileError>,
) -> Result<(), FileError> {
    let per = summary.block_slots as usize;
    let codes = |block: u32| {
        let start = block as usize * per;
        &values[start..(start + per).min(values.len())]
    };
    let compressor = || compressor(options.level);
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(summary.blocks.max(1) as usize);
    if threads <= 1 {
        let mut c = compressor()?;
        for block in 0..summary.blocks {
            sink(block, c.compress(&raw_block(codes(block), summary))?)?;
        }
        return Ok(());
    }
    let next = AtomicU32::new(0);
    let (tx, rx) = mpsc::sync_channel::<(u32, io::Result<Vec<u8>>)>(2 * threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (tx, next) = (tx.clone(), &next);
            scope.spawn(move || {
                let mut c = match compressor() {
                    Ok(c) => c,
                    Err(e) => return drop(tx.send((next.fetch_add(1, Ordering::Relaxed), Err(e)))),
                };
                loop {
                    let block = next.fetch_add(1, Ordering::Relaxed);
                    if block >= summary.blocks {
                        return;
                    }
                    let frame = c.compress(&raw_block(codes(block), summary));
                    if tx.send((block, frame)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        // Blocks arrive out of order; at most a few per thread wait here.
        let mut pending = BTreeMap::new();
        let mut want = 0;
        for (block, frame) in rx {
            pending.insert(block, frame);
            while let Some(frame) = pending.remove(&want) {
                sink(want, frame?)?;
                want += 1;
            }
        }
        if want != summary.blocks {
            return Err(FileError::Io(io::Error::other(
                "a compression thread failed",
            )));
        }
        Ok(())
    })
}
