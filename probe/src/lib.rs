//! moulin-probe: the rules of Nine Men's Morris, positions and their text
//! format, the position index of the tables, the table file format and the
//! `Tablebase` that front ends query for outcomes and perfect moves.
#![warn(missing_docs)]

pub mod advice;
pub mod board;
pub mod counter;
pub mod error;
pub mod index;
pub mod level;
pub mod position;
pub mod report;
pub mod rules;
pub mod sector;
pub mod table;
pub mod tablebase;
pub mod value;

pub use advice::{AdviceOptions, Chances, MoveAdvice};
pub use board::{Bitboard, Point, Symmetries, Symmetry};
pub use error::{FileError, ProbeError};
pub use level::Level;
pub use position::{Node, Position, PositionError, Side};
pub use rules::{Move, MoveError, Rules};
pub use sector::Sector;
#[cfg(not(target_arch = "wasm32"))]
pub use table::write_table;
pub use table::{ReadHint, Storage, Table, TableSource, TableSummary};
pub use tablebase::Tablebase;
pub use value::{Outcome, RuleOutcome, Wdl};

/// The README's Rust examples, compiled as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Hints the processor to fetch the cache line of `value`: callers that
/// will read many scattered words ask for them all first, and the misses
/// overlap. (Public for the solver's passes, which share it; not part of
/// the probing API.)
#[doc(hidden)]
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
