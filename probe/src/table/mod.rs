//! The table file format: one file per sector, `<dir>/<sector>.mtb`, and
//! optionally its WDL table (outcomes only, two bits a slot) `<sector>.mtw`;
//! a play set (`crate::play`) holds `<sector>.mtw` and `<sector>.mtd`.
//!
//! # Layout (format versions 1 to 3, all integers little-endian)
//!
//! | offset | bytes | field |
//! |-------:|------:|-------|
//! | 0      | 8     | magic `MOULINTB` |
//! | 8      | 2     | format version (3 for a play set's distances of both sides; 2 for one of one side and an outcome table under the rule; else 1) |
//! | 10     | 2     | header length (128) |
//! | 12     | 4     | rule flags: bit 0 flying; bit 1 the no-capture rule; bit 2 a WDL table; bits 3 and 4 a play set's distances of wins, of losses (both: of both); other bits zero |
//! | 16     | 4     | sector: stones on the board of the mover, of the opponent, in hand of the mover, of the opponent |
//! | 20     | 1     | bytes per value (1 or 2; 0 for encodings 3 and 4) |
//! | 21     | 1     | encoding: 0 one byte (`0xFF` hole), 1 two bytes, 2 two bytes in planes, 3 two bits (WDL), 4 three base-5 digits a byte (five outcomes) |
//! | 22     | 1     | zero |
//! | 23     | 1     | index scheme: 0 opponent-major (the solver's tables), 1 mover-major (a play set's) |
//! | 24     | 4     | slots per block `B` (the last block may be shorter) |
//! | 28     | 4     | number of blocks `N` |
//! | 32     | 8     | slots (must equal the index's slot count of the sector in the file's scheme) |
//! | 40     | 8     | file length |
//! | 48     | 24    | symmetry classes won, lost, drawn |
//! | 72     | 8     | holes |
//! | 80     | 24    | positions (every symmetric copy) won, lost, drawn |
//! | 104    | 2     | longest win in turns (`0xFFFF`: no win) |
//! | 106    | 2     | longest loss in turns (`0xFFFF`: no loss) |
//! | 108    | 4     | zstd level used (informational) |
//! | 112    | 12    | no-capture rule: limit (u16), zero (u16), cursed wins and blessed losses (u32 each); else zero |
//! | 124    | 4     | CRC32 of bytes 0..124 |
//! | 128    | 12 N  | block index: per block, end offset (u64, from the file start) and CRC32 of its compressed bytes (u32, seeded with the block number) |
//! | 128 + 12 N | ... | blocks, each one zstd frame; block `i` starts where block `i - 1` ends |
//! | len - 8 | 4    | `MTBE` |
//! | len - 4 | 4    | CRC32 of every byte before it |
//!
//! A block decompresses to the codes of its slots (see `value`): one byte
//! each when every code is below 255, else two bytes, stored as all low
//! bytes of the block followed by all high bytes. The writer picks the block
//! size so that decoding one block takes well under 50 µs (see
//! `write::MAX_AUTO_BLOCK_BYTES`). `data/README.md` is the full
//! specification.
//!
//! Opening checks the magic, version, header CRC, the header's consistency
//! (counts add up to the sector's slots and positions) and the file length:
//! O(1). A probe checks the CRC of the block it decodes, so a damaged block
//! is an error, never a wrong value. `decode_all` and `check_checksum` check
//! the whole file.

pub mod format;
#[cfg(all(feature = "http", not(target_arch = "wasm32")))]
pub mod http;
#[cfg(not(target_arch = "wasm32"))]
pub mod lock;
pub mod read;
pub mod storage;
#[cfg(not(target_arch = "wasm32"))]
pub mod write;

pub use format::{Counts, Encoding, PlaySide, TableKind, TableSummary, INDEX_SCHEME, VERSION};
#[cfg(all(feature = "http", not(target_arch = "wasm32")))]
pub use http::{HttpSource, RemoteOptions};
#[cfg(not(target_arch = "wasm32"))]
pub use lock::DirectoryLock;
pub use read::{Block, Table};
#[cfg(not(target_arch = "wasm32"))]
pub use storage::{Directory, Mapped, PositionalFile};
pub use storage::{ReadHint, Storage, TableSource};
#[cfg(not(target_arch = "wasm32"))]
pub use write::{
    encode_table, encode_wdl_table, table_path, wdl_table_path, write_contents, write_table,
    write_table_with, write_wdl_table_with, Contents, WriteOptions,
};

/// The extension of table files.
pub const EXTENSION: &str = "mtb";
/// The extension of WDL table files (outcomes only), beside the tables.
pub const WDL_EXTENSION: &str = "mtw";
/// The extension of a play set's distance tables, beside its outcome
/// tables (`crate::play`).
pub const PLAY_EXTENSION: &str = "mtd";
