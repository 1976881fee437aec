//! moulin-probe: the rules of Nine Men's Morris (Mühle), positions and
//! their text format, the position index of the tables, the table file
//! format, and the [`Tablebase`] that front ends query for the outcome of a
//! position and its perfect moves.
//!
//! The tables are solved by `moulin solve` (the `moulin` crate), one file
//! per [`Sector`] (the stones on the board and in hand of each side); this
//! crate reads them without the solver. The rules are those of `RULES.md`:
//! flying with three stones (on by default) and the no-capture rule (a
//! draw after `N` turns without a capture; off by default) are [`Rules`]
//! options, carried in every table's header.
//!
//! # Quick start
//! Open a directory of tables, ask for the outcome of a position, then for
//! the moves that keep it:
//!
//! ```
//! use moulin_probe::{Outcome, Position, Tablebase};
//!
//! # let dir = tempfile::tempdir()?;
//! # moulin_probe::doc_example::tiny_table(dir.path(), moulin_probe::Rules::default())?;
//! // A directory solved by `moulin solve` (here the table of the next section):
//! // opening reads the headers, each table is read when a probe needs it.
//! let tb = Tablebase::open(dir.path())?;
//! let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
//!
//! // White flies g7-g1 and closes the mill a1-d1-g1: Black is left with two
//! // stones and has lost, so White wins in one turn.
//! assert_eq!(tb.probe(&pos)?, Outcome::Win(1));
//! let best: Vec<String> = tb.best_moves(&pos)?.iter().map(|m| m.to_string()).collect();
//! assert_eq!(best, ["g7-g1xb2", "g7-g1xd2", "g7-g1xf6"]);
//! for (mv, outcome) in tb.probe_moves(&pos)? {
//!     println!("{mv}: {outcome}"); // every legal move, valued for White
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The table of the examples
//! The examples of this documentation run without solved tables: they
//! write one small table, 3 v 3 (three stones each, all placed), with
//! [`write_table`], and its WDL table beside it. Its values are made up
//! except where the player to move can close a mill: with three stones
//! against three, that capture wins at once, a win in 1 in the real table
//! too. The examples assert only what holds in the real tables. It is
//! written like this:
//!
//! ```
//! use moulin_probe::index::Indexer;
//! use moulin_probe::table::{write_table, write_wdl_table_with, WriteOptions};
//! use moulin_probe::value::HOLE;
//! use moulin_probe::{Outcome, Position, Rules, Sector, Side, Tablebase};
//!
//! let dir = tempfile::tempdir()?;
//! let (sector, rules, ix) = (Sector::moving(3, 3), Rules::default(), Indexer::get());
//! // One code per slot of the sector's index, `HOLE` at the index's holes.
//! let codes: Vec<u16> = (0..ix.slots(sector))
//!     .map(|slot| match ix.unindex(sector, slot) {
//!         Some(node) if ix.index(&node) == slot => {
//!             let pos = Position::from_node(node, Side::White);
//!             let mill = rules.legal_moves(&pos).iter().any(|m| m.remove.is_some());
//!             let outcome = if mill { Outcome::Win(1) } else { Outcome::Draw };
//!             outcome.code().expect("a distance a code can carry")
//!         }
//!         _ => HOLE,
//!     })
//!     .collect();
//! write_table(dir.path(), sector, rules, &codes)?; // <dir>/3v3.mtb
//! write_wdl_table_with(dir.path(), sector, rules, &codes, &WriteOptions::default())?;
//!
//! let tb = Tablebase::open(dir.path())?;
//! assert_eq!(tb.summary(sector)?.slots, ix.slots(sector));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Under the no-capture rule the codes are [`RuleOutcome`] codes and no WDL
//! table is written, as in the example of [`Tablebase::probe_counter`].
//!
//! # Where things are
//! - [`Position`], [`Move`] and [`Rules`]: the text formats of `RULES.md`,
//!   legal moves ([`Rules::legal_moves`]), playing a move ([`Rules::play`]).
//! - [`Tablebase`]: outcomes and perfect moves ([`Tablebase::probe`],
//!   [`Tablebase::probe_moves`], [`Tablebase::best_moves`]); WDL tables,
//!   outcomes only ([`Tablebase::open_wdl`], [`Tablebase::probe_wdl`]); the
//!   no-capture counter ([`Tablebase::probe_counter`],
//!   [`Tablebase::best_moves_counter`]); practical chances among moves of
//!   equal value ([`Tablebase::advise`], module [`advice`]) and playing
//!   levels ([`Tablebase::choose_move`], module [`level`]).
//! - [`report`]: what the tables say about one position, as every front
//!   end prints it (the JSON of `moulin probe --json`).
//! - [`board`], [`sector`], [`index`], [`value`] and [`table`]: the board's
//!   geometry, the sectors, the position index, the stored codes and the
//!   file format, for the solver and for other readers of the tables.
//! - [`error`]: [`ProbeError`] for queries, [`FileError`] for files. No
//!   position and no file content makes this crate panic; the few
//!   low-level functions that panic on values a valid position never has
//!   say so under "Panics".
#![deny(missing_docs)]

pub mod advice;
pub mod board;
pub mod counter;
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub mod doc_example;
pub mod error;
pub mod index;
pub mod level;
pub mod play;
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
