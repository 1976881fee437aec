//! Reading a table: O(1) checks on open, one block decoded per probe, the
//! whole table decoded for the solver and the verifier.

use super::format::{
    corrupt, u32_at, u64_at, Encoding, TableSummary, END_MAGIC, HEADER_LEN, INDEX_ENTRY_LEN,
};
use super::storage::{ReadHint, Storage};
use crate::error::FileError;
use crate::play::PlaySide;
use crate::sector::Sector;
use crate::value::HOLE;
use std::path::Path;

/// A table file with its checked header and block index.
///
/// `S` is where the bytes come from (`Storage`): a `Vec<u8>` or a slice in
/// tests, a file read with positional reads (`Table::open`), a memory map
/// (`Table::map`, unsafe), HTTP range requests in the browser. Every method
/// returns an error rather than panic, whatever the bytes.
///
/// # Example
/// A table encoded in memory and read back: the 3 v 3 sector with every
/// position a draw (holes where the index has them). A damaged byte is an
/// error, never a wrong value.
///
/// ```
/// use moulin_core::index::Indexer;
/// use moulin::write::{encode_table, WriteOptions};
/// use moulin_core::table::Table;
/// use moulin_core::value::{DRAW, HOLE};
/// use moulin_core::{Rules, Sector};
///
/// let (sector, ix) = (Sector::moving(3, 3), Indexer::get());
/// let codes: Vec<u16> = (0..ix.slots(sector))
///     .map(|slot| if ix.is_canonical(sector, slot) { DRAW } else { HOLE })
///     .collect();
/// let bytes = encode_table(sector, Rules::default(), &codes, &WriteOptions::default())?;
///
/// let table = Table::new(bytes.clone())?;
/// assert_eq!(table.sector(), sector);
/// assert_eq!(table.get(0)?, codes[0]);
/// assert_eq!(table.decode_all()?, codes);
///
/// let mut damaged = bytes;
/// let last = damaged.len() - 9; // the last byte before the trailer
/// damaged[last] ^= 1;
/// assert!(Table::new(damaged).and_then(|t| t.check_checksum()).is_err());
/// # Ok::<(), moulin_core::FileError>(())
/// ```
pub struct Table<S> {
    data: S,
    summary: TableSummary,
    /// The block index, read once.
    index: Box<[u8]>,
}

impl<S> std::fmt::Debug for Table<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

/// The decoded codes of one block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    encoding: Encoding,
    slots: usize,
    bytes: Box<[u8]>,
    /// An outcome block of a play set: how many slots of the stored side
    /// come before every `RANK_STEP`-th slot (`Block::ensure_ranks`).
    ranks: Option<(PlaySide, Box<[u32]>)>,
}

/// Slots between two entries of an outcome block's rank directory: whole
/// bytes of both outcome encodings (a multiple of 12), 96 bytes of `Wdl`.
const RANK_STEP: usize = 384;

impl Block {
    /// Number of slots in the block.
    pub fn len(&self) -> usize {
        self.slots
    }

    /// Whether the block has no slot.
    pub fn is_empty(&self) -> bool {
        self.slots == 0
    }

    /// Bytes of memory the decoded block takes.
    pub fn memory(&self) -> usize {
        self.bytes.len() + self.ranks.as_ref().map_or(0, |(_, r)| 4 * r.len())
    }

    /// The code of the `i`-th slot of the block (`HOLE` for a hole; in a
    /// WDL table the 2-bit value, see `Wdl::from_code`); `None` past the end.
    #[inline]
    pub fn code(&self, i: usize) -> Option<u16> {
        match self.encoding {
            Encoding::U8 => self.bytes.get(i).map(|&b| widen(b)),
            Encoding::Dense => self.bytes.get(i).map(|&b| b as u16),
            Encoding::Wdl => {
                if i >= self.slots {
                    return None;
                }
                Some(quarter(&self.bytes, i))
            }
            Encoding::RuleOutcomes => {
                if i >= self.slots {
                    return None;
                }
                Some(fifth(&self.bytes, i))
            }
            Encoding::U16 | Encoding::U16Planes => {
                let b = self.bytes.get(2 * i..2 * i + 2)?;
                Some(u16::from_le_bytes([b[0], b[1]]))
            }
        }
    }

    /// Writes every code of the block (`Block::code` of each slot) to the
    /// start of `out`, which must be as long as the block at least; returns
    /// how many.
    fn copy_to(&self, out: &mut [u16]) -> usize {
        let n = self.len();
        let out = &mut out[..n];
        // One loop per encoding, over whole bytes: a table is decoded block
        // by block through here, and these loops compile to vector code.
        match self.encoding {
            Encoding::U8 => {
                for (o, &b) in out.iter_mut().zip(self.bytes.iter()) {
                    *o = widen(b);
                }
            }
            Encoding::Dense => {
                for (o, &b) in out.iter_mut().zip(self.bytes.iter()) {
                    *o = b as u16;
                }
            }
            Encoding::U16 | Encoding::U16Planes => {
                for (o, b) in out.iter_mut().zip(self.bytes.chunks_exact(2)) {
                    *o = u16::from_le_bytes([b[0], b[1]]);
                }
            }
            Encoding::Wdl => {
                for (four, &b) in out.chunks_mut(4).zip(self.bytes.iter()) {
                    for (k, o) in four.iter_mut().enumerate() {
                        *o = (b >> (2 * k) & 3) as u16;
                    }
                }
            }
            Encoding::RuleOutcomes => {
                for (three, &b) in out.chunks_mut(3).zip(self.bytes.iter()) {
                    for (o, power) in three.iter_mut().zip(FIFTHS) {
                        *o = (b / power % 5) as u16;
                    }
                }
            }
        }
        n
    }

    /// Appends every code of the block to `out`.
    fn extend(&self, out: &mut Vec<u16>) {
        let at = out.len();
        out.resize(at + self.len(), 0);
        self.copy_to(&mut out[at..]);
    }

    /// Gives an outcome block its rank directory for `side` (see
    /// `Block::rank`), unless it has it; any other block is left alone.
    pub fn ensure_ranks(&mut self, side: PlaySide) {
        let has = matches!(&self.ranks, Some((s, _)) if *s == side);
        if has || !matches!(self.encoding, Encoding::Wdl | Encoding::RuleOutcomes) {
            return;
        }
        // Both sides: the wins and the losses before each step, then the
        // block's wins (where the losses' symbols start).
        let sides: &[PlaySide] = match side {
            PlaySide::Both => &[PlaySide::Wins, PlaySide::Losses],
            _ => std::slice::from_ref(&side),
        };
        let steps = self.slots.div_ceil(RANK_STEP);
        let mut ranks = Vec::with_capacity(steps * sides.len() + 1);
        let mut count = [0u32; 2];
        for start in (0..self.slots).step_by(RANK_STEP) {
            let end = (start + RANK_STEP).min(self.slots);
            let n = self.count_sides(start, end);
            for (k, &s) in sides.iter().enumerate() {
                ranks.push(count[k]);
                count[k] += n[(s == PlaySide::Losses) as usize] as u32;
            }
        }
        if side == PlaySide::Both {
            ranks.push(count[0]);
        }
        self.ranks = Some((side, ranks.into_boxed_slice()));
    }

    /// In an outcome block given `ensure_ranks(side)`: how many of the slots
    /// before slot `i` hold an outcome of `side` (a win or cursed win, a
    /// loss or blessed loss), that is where slot `i`'s symbol sits in the
    /// dense distance block of the same slots (`Encoding::Dense`). For
    /// both sides, where slot `i` of a win or loss has its symbol: the
    /// wins' symbols come first, then the losses'. `None` in a block
    /// without that directory, or past the end.
    #[inline]
    pub fn rank(&self, side: PlaySide, i: usize) -> Option<usize> {
        let (of, ranks) = self.ranks.as_ref()?;
        if *of != side || i >= self.slots {
            return None;
        }
        let start = i / RANK_STEP * RANK_STEP;
        if side != PlaySide::Both {
            return Some(ranks[i / RANK_STEP] as usize + self.count_between(side, start, i));
        }
        let at = 2 * (i / RANK_STEP);
        match crate::play::side_of(self.code(i)?)? {
            PlaySide::Wins => {
                Some(ranks[at] as usize + self.count_between(PlaySide::Wins, start, i))
            }
            _ => {
                let wins = *ranks.last()? as usize;
                let before =
                    ranks[at + 1] as usize + self.count_between(PlaySide::Losses, start, i);
                Some(wins + before)
            }
        }
    }

    /// How many slots in `start..end` of an outcome block hold an outcome
    /// of `side`; `start` is a multiple of 12 (whole bytes of both outcome
    /// encodings).
    #[inline]
    fn count_between(&self, side: PlaySide, start: usize, end: usize) -> usize {
        debug_assert!(side != PlaySide::Both, "counted a side at a time");
        let [wins, losses] = self.count_sides(start, end);
        match side {
            PlaySide::Wins => wins,
            _ => losses,
        }
    }

    /// How many slots in `start..end` of an outcome block hold a win (or
    /// cursed win) and how many a loss (or blessed loss), in one pass;
    /// `start` is a multiple of 12.
    fn count_sides(&self, start: usize, end: usize) -> [usize; 2] {
        debug_assert!(start.is_multiple_of(12) && end <= self.slots);
        let tail = |n: [usize; 2], codes: &mut dyn Iterator<Item = u16>| {
            codes.fold(n, |[w, l], code| match crate::play::side_of(code) {
                Some(PlaySide::Wins) => [w + 1, l],
                Some(_) => [w, l + 1],
                None => [w, l],
            })
        };
        match self.encoding {
            Encoding::Wdl => {
                // Two bits a slot: 1 a win, 2 a loss; 3 never occurs.
                let (full, rest) = ((end - start) / 4, (end - start) % 4);
                let bytes = &self.bytes[start / 4..start / 4 + full];
                let mut n = [0; 2];
                let mut count = |w: u64| {
                    n[0] += side_bits(w, PlaySide::Wins).count_ones() as usize;
                    n[1] += side_bits(w, PlaySide::Losses).count_ones() as usize;
                };
                let mut words = bytes.chunks_exact(8);
                for w in &mut words {
                    count(u64::from_le_bytes(w.try_into().expect("8 bytes")));
                }
                for &b in words.remainder() {
                    count(b as u64);
                }
                tail(n, &mut (end - rest..end).map(|j| quarter(&self.bytes, j)))
            }
            Encoding::RuleOutcomes => {
                let (full, rest) = ((end - start) / 3, (end - start) % 3);
                let bytes = &self.bytes[start / 3..start / 3 + full];
                // The wins in the low half of each entry, the losses above.
                let both: u64 = bytes.iter().map(|&b| RULE_SIDES_IN_BYTE[b as usize]).sum();
                let n = [(both & 0xffff_ffff) as usize, (both >> 32) as usize];
                tail(n, &mut (end - rest..end).map(|j| fifth(&self.bytes, j)))
            }
            _ => [0; 2],
        }
    }
}

/// The low bit of every 2-bit WDL value in `w` that is of `side` (1 a win,
/// 2 a loss).
#[inline]
fn side_bits(w: u64, side: PlaySide) -> u64 {
    const LOW: u64 = 0x5555_5555_5555_5555;
    let (low, high) = (w & LOW, (w >> 1) & LOW);
    match side {
        PlaySide::Wins => low & !high,
        _ => high & !low,
    }
}

/// How many of a rule outcome byte's three digits are wins (1, 3: a win,
/// a cursed win), in the low 32 bits, and losses (2, 4), in the high.
const RULE_SIDES_IN_BYTE: [u64; 125] = {
    let mut table = [0u64; 125];
    let mut b = 0;
    while b < 125 {
        let (mut d, mut n, mut k) = (b as u8, 0u64, 0);
        while k < 3 {
            n += match d % 5 {
                1 | 3 => 1,
                2 | 4 => 1 << 32,
                _ => 0,
            };
            d /= 5;
            k += 1;
        }
        table[b] = n;
        b += 1;
    }
    table
};

/// The 2-bit value of slot `i` of a WDL block.
#[inline]
fn quarter(bytes: &[u8], i: usize) -> u16 {
    (bytes[i / 4] >> (2 * (i % 4)) & 3) as u16
}

/// The place values of the three base-5 digits of a rule outcome byte.
const FIFTHS: [u8; 3] = [1, 5, 25];

/// The base-5 digit of slot `i` of a rule outcome block.
#[inline]
fn fifth(bytes: &[u8], i: usize) -> u16 {
    (bytes[i / 3] / FIFTHS[i % 3] % 5) as u16
}

#[inline]
fn widen(byte: u8) -> u16 {
    if byte == u8::MAX {
        HOLE
    } else {
        byte as u16
    }
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// A decompression context per thread: creating one per block would cost
    /// more than decoding a small block.
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Decompresses one frame into at most `capacity` bytes (native: libzstd).
#[cfg(not(target_arch = "wasm32"))]
fn decompress(src: &[u8], capacity: usize) -> Result<Vec<u8>, FileError> {
    let mut out = Vec::with_capacity(capacity);
    DECOMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = Some(zstd::bulk::Decompressor::new()?);
        }
        let d = cell.as_mut().expect("just set");
        d.decompress_to_buffer(src, &mut out)
            .map_err(|e| corrupt(format!("block does not decompress: {e}")))
    })?;
    Ok(out)
}

/// Decompresses one frame into at most `capacity` bytes (the browser build:
/// ruzstd, pure Rust, since libzstd does not build for wasm32 here).
#[cfg(target_arch = "wasm32")]
fn decompress(src: &[u8], capacity: usize) -> Result<Vec<u8>, FileError> {
    pure::decompress(src, capacity)
}

#[cfg(any(target_arch = "wasm32", test))]
mod pure {
    use super::{corrupt, FileError};
    use std::io::Read;

    /// Decompresses one frame with ruzstd; one byte more than `capacity`
    /// is read so that an oversized frame is seen (and refused by the caller).
    pub fn decompress(src: &[u8], capacity: usize) -> Result<Vec<u8>, FileError> {
        let fail = |e: &dyn std::fmt::Display| corrupt(format!("block does not decompress: {e}"));
        let mut input = src;
        let decoder = ruzstd::decoding::StreamingDecoder::new(&mut input).map_err(|e| fail(&e))?;
        let mut out = Vec::with_capacity(capacity);
        decoder
            .take(capacity as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| fail(&e))?;
        Ok(out)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Table<super::storage::PositionalFile> {
    /// Opens a table file for positional reads and checks its header (see
    /// `Table::new`); if the file's name is a sector's name (`8v7.mtb`), the
    /// header must hold that sector. A file changed while open gives errors
    /// or old values, never undefined behaviour.
    pub fn open(path: &Path) -> Result<Table<super::storage::PositionalFile>, FileError> {
        let table = Table::new(super::storage::PositionalFile::open(path)?)?;
        check_file_name(path, table.summary.sector)?;
        Ok(table)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Table<super::storage::Mapped> {
    /// Maps a table file into memory and checks its header, like
    /// `Table::open`.
    ///
    /// # Safety
    /// The file must not be modified or truncated while the table is alive:
    /// see `Mapped::open`.
    pub unsafe fn map(path: &Path) -> Result<Table<super::storage::Mapped>, FileError> {
        // SAFETY: the caller's promise.
        let table = Table::new(unsafe { super::storage::Mapped::open(path)? })?;
        check_file_name(path, table.summary.sector)?;
        Ok(table)
    }
}

/// Errs if the file's stem is the name of another sector than `sector`.
pub fn check_file_name(path: &Path, sector: Sector) -> Result<(), FileError> {
    let stem = path.file_stem().and_then(|s| s.to_str());
    if let Some(named) = stem.and_then(|s| s.parse::<Sector>().ok()) {
        if named != sector {
            return Err(FileError::WrongSector {
                file_name: named.name(),
                header: sector,
            });
        }
    }
    Ok(())
}

/// Reads and checks a table's header and compares the storage's length with
/// it: the O(1) part of opening, without the block index.
pub fn read_summary(data: &dyn Storage) -> Result<TableSummary, FileError> {
    let len = data.len();
    let mut header = vec![0u8; (HEADER_LEN as u64).min(len) as usize];
    data.read_at(0, &mut header, ReadHint::Header)?;
    let summary = TableSummary::parse(&header)?;
    if len != summary.bytes {
        return Err(FileError::Length {
            expected: summary.bytes,
            got: len,
        });
    }
    Ok(summary)
}

/// Bytes read at once when scanning a whole file.
const SCAN_CHUNK: usize = 1 << 20;

impl<S: Storage> Table<S> {
    /// Checks the header and the length of a table: magic, version, header
    /// checksum, consistency of the header's fields, file length and trailer
    /// magic, and reads the block index (12 bytes a block, which the file
    /// must hold). Reads the header and the index once; the values and the
    /// file checksum are checked when read (`get`, `decode_all`,
    /// `check_checksum`).
    pub fn new(data: S) -> Result<Table<S>, FileError> {
        let summary = read_summary(&data)?;
        let mut end_magic = [0u8; 4];
        data.read_at(summary.data_end(), &mut end_magic, ReadHint::Header)?;
        if end_magic != END_MAGIC {
            return Err(corrupt("no end marker before the checksum".into()));
        }
        // `parse` checked that the file holds the index: its size is bounded
        // by the file's.
        let mut index = vec![0u8; summary.blocks as usize * INDEX_ENTRY_LEN];
        data.read_at(HEADER_LEN as u64, &mut index, ReadHint::BlockIndex)?;
        Ok(Table {
            data,
            summary,
            index: index.into_boxed_slice(),
        })
    }

    /// What the header says.
    pub fn summary(&self) -> &TableSummary {
        &self.summary
    }

    /// The sector of the table.
    pub fn sector(&self) -> Sector {
        self.summary.sector
    }

    /// Number of slots.
    pub fn slots(&self) -> u64 {
        self.summary.slots
    }

    /// The storage the table reads from.
    pub fn storage(&self) -> &S {
        &self.data
    }

    /// The block holding a slot and the slot's place in it.
    pub fn locate(&self, slot: u64) -> Result<(u32, usize), FileError> {
        if slot >= self.summary.slots {
            return Err(FileError::SlotOutOfRange {
                slot,
                slots: self.summary.slots,
            });
        }
        let per = self.summary.block_slots as u64;
        Ok(((slot / per) as u32, (slot % per) as usize))
    }

    /// The byte range of a block's compressed bytes and their stored CRC,
    /// after checking the range against the data section.
    pub fn block_range(&self, block: u32) -> Result<(u64, u64, u32), FileError> {
        let s = &self.summary;
        if block >= s.blocks {
            return Err(corrupt(format!("block {block} of {}", s.blocks)));
        }
        let entry = block as usize * INDEX_ENTRY_LEN;
        let start = if block == 0 {
            s.data_start()
        } else {
            u64_at(&self.index, entry - INDEX_ENTRY_LEN)
        };
        let end = u64_at(&self.index, entry);
        if start > end || start < s.data_start() || end > s.data_end() {
            return Err(corrupt(format!(
                "block {block} spans bytes {start}..{end}, outside {}..{}",
                s.data_start(),
                s.data_end()
            )));
        }
        Ok((start, end, u32_at(&self.index, entry + 8)))
    }

    /// The compressed bytes of a block, after checking its index entry and
    /// its CRC32.
    fn compressed(&self, block: u32) -> Result<Vec<u8>, FileError> {
        let (start, end, stored) = self.block_range(block)?;
        let mut frame = vec![0u8; (end - start) as usize];
        self.data.read_at(start, &mut frame, ReadHint::Block)?;
        let computed = block_crc(block, &frame);
        if stored != computed {
            return Err(FileError::ChecksumMismatch {
                part: format!("block {block}"),
                expected: stored,
                got: computed,
            });
        }
        Ok(frame)
    }

    /// Decompresses and checks one block.
    pub fn decode_block(&self, block: u32) -> Result<Block, FileError> {
        let frame = self.compressed(block)?;
        decode_frame(&self.summary, block, &frame)
    }

    /// The code of a slot (`HOLE` for a hole), decoding its block.
    pub fn get(&self, slot: u64) -> Result<u16, FileError> {
        let (block, i) = self.locate(slot)?;
        let decoded = self.decode_block(block)?;
        decoded
            .code(i)
            .ok_or_else(|| corrupt(format!("slot {slot} missing from its block")))
    }

    /// Every code of the table, after checking the file checksum. Holds the
    /// result and one decoded block in memory; memory grows with the blocks
    /// actually decoded (each checked), never with what a header claims.
    pub fn decode_all(&self) -> Result<Vec<u16>, FileError> {
        self.check_slot_order()?;
        self.check_checksum()?;
        let first = self.summary.slots_in_block(0) as usize;
        let mut out = Vec::with_capacity(first);
        for block in 0..self.summary.blocks {
            self.decode_block(block)?.extend(&mut out);
        }
        Ok(out)
    }

    /// The codes of one block into `out`, exactly one per slot of the block
    /// (slots `block * block_slots` on): `decode_into` a block at a time,
    /// for a caller that decodes the blocks in parallel. The whole file's
    /// checksum is the caller's to check (`check_checksum`).
    pub fn decode_block_into(&self, block: u32, out: &mut [u16]) -> Result<(), FileError> {
        self.check_slot_order()?;
        let decoded = self.decode_block(block)?;
        if decoded.len() != out.len() || out.len() as u64 != self.summary.slots_in_block(block) {
            return Err(corrupt(format!(
                "block {block} holds {} slots, {} asked for",
                decoded.len(),
                out.len()
            )));
        }
        decoded.copy_to(out);
        Ok(())
    }

    /// `decode_all` into memory the caller gives, exactly one code per slot
    /// of the table (a caller that knows the sector's size allocates it
    /// once, in the pages it wants, with no growing).
    pub fn decode_into(&self, out: &mut [u16]) -> Result<(), FileError> {
        if out.len() as u64 != self.summary.slots {
            return Err(corrupt(format!(
                "{} slots asked for, the table has {}",
                out.len(),
                self.summary.slots
            )));
        }
        self.check_slot_order()?;
        self.check_checksum()?;
        let mut at = 0;
        for block in 0..self.summary.blocks {
            let decoded = self.decode_block(block)?;
            if decoded.len() > out.len() - at {
                return Err(corrupt(format!("block {block} runs past the last slot")));
            }
            at += decoded.copy_to(&mut out[at..]);
        }
        if at != out.len() {
            return Err(corrupt(format!(
                "the blocks hold {at} slots of {}",
                out.len()
            )));
        }
        Ok(())
    }

    /// A dense distance table (`Encoding::Dense`) holds no code per slot:
    /// its blocks are read through the play set's outcome table.
    fn check_slot_order(&self) -> Result<(), FileError> {
        match self.summary.encoding {
            Encoding::Dense => Err(FileError::Unsupported(
                "a dense play-set distance table has no value per slot: read it through its \
                 outcome table (open the play set's directory)"
                    .into(),
            )),
            _ => Ok(()),
        }
    }

    /// Checks the CRC32 of the whole file against its trailer (reads every
    /// byte, a chunk at a time).
    pub fn check_checksum(&self) -> Result<(), FileError> {
        let at = self.summary.bytes - 4;
        let mut hasher = crc32fast::Hasher::new();
        let mut chunk = vec![0u8; SCAN_CHUNK.min(at as usize)];
        let mut offset = 0;
        while offset < at {
            let n = (at - offset).min(chunk.len() as u64) as usize;
            self.data.read_at(offset, &mut chunk[..n], ReadHint::Scan)?;
            hasher.update(&chunk[..n]);
            offset += n as u64;
        }
        let mut trailer = [0u8; 4];
        self.data.read_at(at, &mut trailer, ReadHint::Header)?;
        let stored = u32::from_le_bytes(trailer);
        let computed = hasher.finalize();
        if stored != computed {
            return Err(FileError::ChecksumMismatch {
                part: "the file".into(),
                expected: stored,
                got: computed,
            });
        }
        Ok(())
    }
}

impl<S: Storage + AsRef<[u8]>> Table<S> {
    /// The bytes of a table held in memory.
    pub fn bytes(&self) -> &[u8] {
        self.data.as_ref()
    }
}

/// Decompresses one block's frame and checks its length.
fn decode_frame(s: &TableSummary, block: u32, frame: &[u8]) -> Result<Block, FileError> {
    let mut slots = s.slots_in_block(block) as usize;
    let len = s.encoding.bytes_for(slots as u64) as usize;
    let raw = decompress(frame, len)?;
    if s.encoding == Encoding::Dense && raw.len() <= len {
        // One symbol per slot of the stored side: at most one per slot.
        slots = raw.len();
    } else if raw.len() != len {
        return Err(corrupt(format!(
            "block {block} decompresses to {} bytes, expected {len}",
            raw.len()
        )));
    }
    let bytes = match s.encoding {
        Encoding::U16Planes => {
            let (low, high) = raw.split_at(len / 2);
            low.iter()
                .zip(high)
                .flat_map(|(&l, &h)| [l, h])
                .collect::<Box<[u8]>>()
        }
        Encoding::Wdl => {
            // 3 is no value; a block holding one is damaged. Folded
            // without a short cut, so that the loop runs on whole vectors.
            if raw.iter().fold(0, |seen, &b| seen | b & (b >> 1)) & 0x55 != 0 {
                return Err(corrupt(format!("block {block} holds a WDL value of 3")));
            }
            raw.into_boxed_slice()
        }
        Encoding::RuleOutcomes => {
            // Three base-5 digits make at most 124.
            if raw.iter().fold(0, |top, &b| top.max(b)) >= 125 {
                return Err(corrupt(format!("block {block} holds a byte above 124")));
            }
            raw.into_boxed_slice()
        }
        Encoding::U8 | Encoding::U16 | Encoding::Dense => raw.into_boxed_slice(),
    };
    Ok(Block {
        encoding: s.encoding,
        slots,
        bytes,
        ranks: None,
    })
}

/// CRC32 of a block's compressed bytes, seeded with the block number so that
/// an index entry pointing at another block's bytes does not pass.
pub fn block_crc(block: u32, frame: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(block);
    h.update(frame);
    h.finalize()
}

#[cfg(test)]
mod tests;
