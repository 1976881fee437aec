//! Reading a table: O(1) checks on open, one block decoded per probe, the
//! whole table decoded for the solver and the verifier.

use super::format::{
    corrupt, u32_at, u64_at, Encoding, TableSummary, END_MAGIC, HEADER_LEN, INDEX_ENTRY_LEN,
};
use crate::error::FileError;
use crate::sector::Sector;
use crate::value::HOLE;
use memmap2::Mmap;
use std::cell::RefCell;
use std::fs::File;
use std::path::Path;

/// A table file's bytes with its checked header.
///
/// `D` is anything that holds the bytes: a `Vec<u8>` or a static slice in
/// tests, a memory map (`Table::<Mmap>::map`) in the tablebase. Every method
/// returns an error rather than panic, whatever the bytes.
pub struct Table<D> {
    data: D,
    summary: TableSummary,
}

impl<D> std::fmt::Debug for Table<D> {
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
    bytes: Box<[u8]>,
}

impl Block {
    /// Number of slots in the block.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.encoding.width() as usize
    }

    /// Whether the block has no slot.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Bytes of memory the decoded block takes.
    pub fn memory(&self) -> usize {
        self.bytes.len()
    }

    /// The code of the `i`-th slot of the block (`HOLE` for a hole); `None`
    /// past the end.
    #[inline]
    pub fn code(&self, i: usize) -> Option<u16> {
        match self.encoding {
            Encoding::U8 => self.bytes.get(i).map(|&b| widen(b)),
            Encoding::U16 | Encoding::U16Planes => {
                let b = self.bytes.get(2 * i..2 * i + 2)?;
                Some(u16::from_le_bytes([b[0], b[1]]))
            }
        }
    }

    /// Appends every code of the block to `out`.
    fn extend(&self, out: &mut Vec<u16>) {
        match self.encoding {
            Encoding::U8 => out.extend(self.bytes.iter().map(|&b| widen(b))),
            _ => out.extend(
                self.bytes
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]])),
            ),
        }
    }
}

#[inline]
fn widen(byte: u8) -> u16 {
    if byte == u8::MAX {
        HOLE
    } else {
        byte as u16
    }
}

thread_local! {
    /// A decompression context per thread: creating one per block would cost
    /// more than decoding a small block.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

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

impl Table<Mmap> {
    /// Maps a table file into memory and checks its header (O(1)); if the
    /// file's name is a sector's name (`8v7.mtb`), the header must hold that
    /// sector.
    ///
    /// # Safety
    /// The file must not be modified or truncated while the table (or any
    /// block read from it) is alive: the bytes are read straight from the
    /// mapping, and a file changed underneath breaks the memory safety that
    /// the rest of the program relies on (a truncated file may even crash the
    /// process with SIGBUS). moulin never writes a table in place: its writer
    /// writes a temporary file and renames it, which leaves open mappings on
    /// the old file intact.
    pub unsafe fn map(path: &Path) -> Result<Table<Mmap>, FileError> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if len < HEADER_LEN as u64 {
            // Mapping an empty file fails on some systems; report it as what it is.
            let mut start = Vec::new();
            std::io::Read::read_to_end(&mut &file, &mut start)?;
            Table::new(start)?;
            return Err(FileError::Length {
                expected: HEADER_LEN as u64,
                got: len,
            });
        }
        // SAFETY: the caller promises the file does not change while mapped.
        let map = unsafe { Mmap::map(&file)? };
        let table = Table::new(map)?;
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

impl<D: AsRef<[u8]>> Table<D> {
    /// Checks the header and the length of a table in O(1) time: magic,
    /// version, header checksum, consistency of the header's fields, file
    /// length and trailer magic. The values and the file checksum are checked
    /// when read (`get`, `decode_all`, `check_checksum`).
    pub fn new(data: D) -> Result<Table<D>, FileError> {
        let bytes = data.as_ref();
        let summary = TableSummary::parse(bytes)?;
        if bytes.len() as u64 != summary.bytes {
            return Err(FileError::Length {
                expected: summary.bytes,
                got: bytes.len() as u64,
            });
        }
        let end = summary.data_end() as usize;
        if bytes[end..end + 4] != END_MAGIC {
            return Err(corrupt("no end marker before the checksum".into()));
        }
        Ok(Table { data, summary })
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

    /// The compressed bytes of a block, after checking its index entry and
    /// its CRC32.
    fn compressed(&self, block: u32) -> Result<&[u8], FileError> {
        let s = &self.summary;
        if block >= s.blocks {
            return Err(corrupt(format!("block {block} of {}", s.blocks)));
        }
        let bytes = self.data.as_ref();
        let entry = HEADER_LEN + block as usize * INDEX_ENTRY_LEN;
        let start = if block == 0 {
            s.data_start()
        } else {
            u64_at(bytes, entry - INDEX_ENTRY_LEN)
        };
        let end = u64_at(bytes, entry);
        if start > end || start < s.data_start() || end > s.data_end() {
            return Err(corrupt(format!(
                "block {block} spans bytes {start}..{end}, outside {}..{}",
                s.data_start(),
                s.data_end()
            )));
        }
        let stored = u32_at(bytes, entry + 8);
        let frame = &bytes[start as usize..end as usize];
        let computed = block_crc(block, frame);
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
        let s = &self.summary;
        let width = s.encoding.width() as usize;
        let len = s.slots_in_block(block) as usize * width;
        let raw = decompress(frame, len)?;
        if raw.len() != len {
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
            _ => raw.into_boxed_slice(),
        };
        Ok(Block {
            encoding: s.encoding,
            bytes,
        })
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
    /// result and one decoded block in memory.
    pub fn decode_all(&self) -> Result<Vec<u16>, FileError> {
        self.check_checksum()?;
        let slots = usize::try_from(self.summary.slots)
            .map_err(|_| corrupt("more slots than memory".into()))?;
        let mut out = Vec::with_capacity(slots);
        for block in 0..self.summary.blocks {
            self.decode_block(block)?.extend(&mut out);
        }
        Ok(out)
    }

    /// Checks the CRC32 of the whole file against its trailer (reads every
    /// byte).
    pub fn check_checksum(&self) -> Result<(), FileError> {
        let bytes = self.data.as_ref();
        let at = bytes.len() - 4;
        let stored = u32_at(bytes, at);
        let computed = crc32fast::hash(&bytes[..at]);
        if stored != computed {
            return Err(FileError::ChecksumMismatch {
                part: "the file".into(),
                expected: stored,
                got: computed,
            });
        }
        Ok(())
    }

    /// The bytes of the file.
    pub fn bytes(&self) -> &[u8] {
        self.data.as_ref()
    }
}

/// CRC32 of a block's compressed bytes, seeded with the block number so that
/// an index entry pointing at another block's bytes does not pass.
pub fn block_crc(block: u32, frame: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(block);
    h.update(frame);
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_refused_without_panic() {
        assert!(matches!(Table::new(Vec::new()), Err(FileError::BadMagic)));
        assert!(matches!(
            Table::new(b"MOULINTB".to_vec()),
            Err(FileError::Length { .. })
        ));
        let mut v = b"MOULINTB".to_vec();
        v.extend([9, 0, 128, 0]);
        assert!(matches!(
            Table::new(v),
            Err(FileError::Version {
                expected: 1,
                got: 9
            })
        ));
    }
}
