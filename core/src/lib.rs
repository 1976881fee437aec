//! moulin-core: the bottom layer of the moulin Nine Men's Morris tablebase.
//! What every other part of moulin builds on, and nothing else:
//!
//! - [`board`]: the 24 points, their lines, mills and symmetries;
//! - [`position`] and [`rules`]: positions, moves, their text formats, the
//!   legal moves and playing them, as `docs/rules.md` states them;
//! - [`sector`]: the stones on the board and in hand of each side, the
//!   unit of the tables;
//! - [`index`]: the numbering of a sector's positions, up to symmetry;
//! - [`value`] and [`play`]: the codes stored per position;
//! - [`table`]: the table file format (`docs/format.md`), read from any
//!   [`table::Storage`];
//! - [`error`]: [`FileError`], what is wrong with a table file.
//!
//! Front ends use the `moulin-probe` crate, which answers from the tables
//! and re-exports the names they need; the solver (`moulin`) writes them.
#![deny(missing_docs)]

pub mod board;
pub mod error;
pub mod index;
pub mod play;
pub mod position;
pub mod rules;
pub mod sector;
pub mod seeded;
pub mod table;
pub mod value;

pub use board::{Bitboard, Point, Symmetries, Symmetry};
pub use error::FileError;
pub use position::{Node, Position, PositionError, Side};
pub use rules::{Move, MoveError, Rules};
pub use sector::Sector;
pub use value::{Outcome, RuleOutcome, Wdl};

/// Hints the processor to fetch the cache line of `value`: callers that
/// will read many scattered words ask for them all first, and the misses
/// overlap (the index and the solver's passes).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and changes no
    // memory; the pointer comes from a live reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
