//! The table file format: one file per sector, `<dir>/<sector>.mtb`, and
//! optionally its WDL table (outcomes only, two bits a slot) `<sector>.mtw`;
//! a play set (`crate::play`) holds `<sector>.mtw` and `<sector>.mtd`.
//!
//! The layout of a file (header, block index, zstd blocks, trailer) and
//! every encoding of the values are specified in `docs/format.md`; the
//! constants and the header's fields are in [`format`](mod@format). A block decodes to
//! the codes of its slots (see `value` and `play`). The writer (the solver's
//! `moulin::write`) picks the block size so that decoding one block takes
//! well under 50 µs.
//!
//! Opening checks the magic, version, header CRC, the header's consistency
//! (counts add up to the sector's slots and positions) and the file length:
//! O(1). A probe checks the CRC of the block it decodes, so a damaged block
//! is an error, never a wrong value. `decode_all` and `check_checksum` check
//! the whole file.

pub mod format;
pub mod read;
pub mod storage;

pub use crate::play::PlaySide;
pub use format::{Counts, Encoding, TableKind, TableSummary, INDEX_SCHEME, VERSION};
pub use read::{Block, Table};
#[cfg(not(target_arch = "wasm32"))]
pub use storage::{Mapped, PositionalFile};
pub use storage::{ReadHint, Storage};

/// The extension of table files.
pub const EXTENSION: &str = "mtb";
/// The extension of WDL table files (outcomes only), beside the tables.
pub const WDL_EXTENSION: &str = "mtw";
/// The extension of a play set's distance tables, beside its outcome
/// tables (`crate::play`).
pub const PLAY_EXTENSION: &str = "mtd";
