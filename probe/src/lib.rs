//! moulin-probe: the [`Tablebase`] that front ends query for the outcome of
//! a Nine Men's Morris (Mühle) position, its distance and its perfect moves,
//! with the positions, moves and rules they are asked about.
//!
//! The tables are solved by `moulin solve` (the `moulin` crate), one file
//! per [`Sector`] (the stones on the board and in hand of each side); this
//! crate reads them without the solver. The rules, the index and the file
//! format are the `moulin-core` crate's, whose names a front end needs are
//! re-exported here. The rules are those of `docs/rules.md`:
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
//! # moulin::doc_example::tiny_table(dir.path(), moulin_probe::Rules::default())?;
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
//! `write_table`, and its WDL table beside it. Its values are made up
//! except where the player to move can close a mill: with three stones
//! against three, that capture wins at once, a win in 1 in the real table
//! too. The examples assert only what holds in the real tables. It is
//! written like this, by the solver's writer (the `moulin` crate):
//!
//! ```
//! use moulin::write::{write_table, write_wdl_table_with, WriteOptions};
//! use moulin_core::index::Indexer;
//! use moulin_core::value::HOLE;
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
//! - [`Position`], [`Move`] and [`Rules`]: the text formats of
//!   `docs/rules.md`, legal moves ([`Rules::legal_moves`]), playing a move
//!   ([`Rules::play`]); [`board`]: the points and their names.
//! - [`Tablebase`]: outcomes and perfect moves ([`Tablebase::probe`],
//!   [`Tablebase::probe_moves`], [`Tablebase::best_moves`]); WDL tables,
//!   outcomes only ([`Tablebase::open_wdl`], [`Tablebase::probe_wdl`]); the
//!   no-capture counter ([`Tablebase::probe_counter`],
//!   [`Tablebase::best_moves_counter`]); practical chances among moves of
//!   equal value ([`Tablebase::advise`], module [`advice`]) and playing
//!   levels ([`Tablebase::choose_move`], module [`level`]); tables from
//!   anywhere through a [`TableSource`] (module `remote`, feature `http`:
//!   over HTTP(S)).
//! - [`report`]: what the tables say about one position, as every front
//!   end prints it (the JSON of `moulin probe --json`).
//! - [`error`]: [`ProbeError`] for queries, [`FileError`] for files. No
//!   position and no file content makes this crate panic.
#![deny(missing_docs)]

pub mod advice;
mod counter;
pub mod error;
pub mod level;
pub mod remote;
pub mod report;
mod tablebase;

/// The board as a front end draws it: the 24 points with their names, the
/// lines between them and the mills (`docs/rules.md`).
pub mod board {
    pub use moulin_core::board::{points, Bitboard, Point, ADJACENT, MILLS, POINTS, POINT_NAMES};
}

pub use advice::{AdviceOptions, Chances, MoveAdvice};
pub use error::{ErrorKind, FileError, ProbeError};
pub use level::Level;
pub use moulin_core::table::{Counts, ReadHint, Storage, TableKind, TableSummary};
pub use moulin_core::{Move, MoveError, Position, PositionError, Rules, Sector, Side};
pub use moulin_core::{Outcome, RuleOutcome, Wdl};
#[cfg(not(target_arch = "wasm32"))]
pub use tablebase::Directory;
pub use tablebase::{TableSource, Tablebase};

/// The README's Rust examples, compiled as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
