//! The C ABI of the moulin probe: open a directory of tables, ask a
//! position's outcome and distance, its best moves and every move's outcome;
//! or open its WDL tables (outcomes only) and ask a position's outcome.
//! The header `include/moulin.h` is generated from this file by cbindgen
//! (`bindings/c/generate-header.sh`); a test fails when it is stale.
//!
//! Conventions, for every function:
//! - positions and moves are NUL-terminated UTF-8 in the project's notation
//!   (`W:a1,d1,g1 B:b2,d2,f2 w`, `d2`, `b2-b4`, `b2-b4xg4`);
//! - an `int` result is `MOULIN_OK` (0) or a negative `MOULIN_ERR_*` code,
//!   and `moulin_last_error` then says what was wrong, in words;
//! - no panic crosses the boundary (`MOULIN_ERR_PANIC` instead);
//! - a `moulin_tablebase` may be shared by threads: every query takes a
//!   `const` handle; only `moulin_close` must not race with queries.
#![warn(missing_docs)]
#![allow(non_camel_case_types)]

use moulin_probe::error::chain;
use moulin_probe::{ErrorKind, Move, Outcome, Position, ProbeError, RuleOutcome, Tablebase, Wdl};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The player to move wins (`distance`: turns to the end, odd). The outcome
/// codes `MOULIN_WIN`, `MOULIN_DRAW` and `MOULIN_LOSS` are also what
/// `moulin_probe_wdl` writes.
pub const MOULIN_WIN: c_int = 1;
/// Neither side can force a win (`distance`: -1).
pub const MOULIN_DRAW: c_int = 0;
/// The player to move loses (`distance`: turns to the end, even; 0 when the
/// game is already over).
pub const MOULIN_LOSS: c_int = -1;
/// Only from `moulin_probe_counter` and `moulin_moves_counter` on tables of
/// the no-capture rule: won without the rule, a draw under it at this
/// counter (`distance`: turns to conversion).
pub const MOULIN_CURSED_WIN: c_int = 2;
/// Only from `moulin_probe_counter` and `moulin_moves_counter` on tables of
/// the no-capture rule: lost without the rule, a draw under it at this
/// counter.
pub const MOULIN_BLESSED_LOSS: c_int = -2;

/// Success.
pub const MOULIN_OK: c_int = 0;
/// A pointer argument was NULL.
pub const MOULIN_ERR_NULL: c_int = -1;
/// A string argument is not valid UTF-8.
pub const MOULIN_ERR_UTF8: c_int = -2;
/// The position text is malformed or breaks the rules (the message says
/// which, as `moulin probe` does).
pub const MOULIN_ERR_POSITION: c_int = -3;
/// No table of the position's sector in the directory (`moulin solve` writes it).
pub const MOULIN_ERR_MISSING_TABLE: c_int = -4;
/// A table file is damaged: truncated, bad checksum, not a table, wrong name.
pub const MOULIN_ERR_DAMAGED_TABLE: c_int = -5;
/// Reading the directory or a table failed (permissions, no such directory;
/// for a remote set: an HTTP error status, a refused connection, a timeout).
pub const MOULIN_ERR_IO: c_int = -6;
/// The caller's buffer is too small; the message says how many bytes (or
/// moves) are needed.
pub const MOULIN_ERR_BUFFER_TOO_SMALL: c_int = -7;
/// An internal error (a bug in moulin): the call was abandoned safely.
pub const MOULIN_ERR_PANIC: c_int = -8;
/// The tables of the directory were solved under different rule options.
pub const MOULIN_ERR_RULES: c_int = -9;
/// Any other error.
pub const MOULIN_ERR_OTHER: c_int = -10;
/// A counter the tables cannot answer: negative, at or past their
/// no-capture limit, not 0 with stones in hand, or tables without the rule.
pub const MOULIN_ERR_COUNTER: c_int = -11;
/// A distance (or anything built on distances: best moves, every move's
/// outcome, a counter's value) was asked of WDL tables from
/// `moulin_open_wdl`, which store outcomes only: use `moulin_probe_wdl`, or
/// open the distance tables with `moulin_open`.
pub const MOULIN_ERR_WDL_ONLY: c_int = -12;

/// No position has more legal moves than this (the worst case is three
/// flying stones with twelve free points and nine stones to remove: 324), so
/// a `moulin_move_result` array of this length always suffices.
pub const MOULIN_MAX_MOVES: usize = 512;
/// A `moulin_best_moves` buffer of this many bytes always suffices
/// (`MOULIN_MAX_MOVES` moves of at most 8 characters and a separator).
pub const MOULIN_MOVES_TEXT_MAX: usize = 4608;
/// Room for one move's text with its NUL (`b2-b4xg4` has 8 characters).
pub const MOULIN_MOVE_TEXT: usize = 12;

/// An open directory of tables (opaque): its distance tables (`*.mtb`,
/// from `moulin_open`) or its WDL tables (`*.mtw`, from `moulin_open_wdl`).
/// Free with `moulin_close`.
pub struct moulin_tablebase {
    tables: Tablebase,
}

/// What the tables say about a position, for the player to move.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct moulin_result {
    /// `MOULIN_WIN`, `MOULIN_DRAW` or `MOULIN_LOSS` (and, only from tables of
    /// the no-capture rule, `MOULIN_CURSED_WIN` or `MOULIN_BLESSED_LOSS`).
    pub outcome: c_int,
    /// Turns (plies) to the end of the game under perfect play; -1 for a draw.
    pub distance: c_int,
}

/// One legal move and what it leads to, seen by the player who makes it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct moulin_move_result {
    /// The move in the project's notation, NUL-terminated (`d2`, `b2-b4xg4`).
    pub r#move: [c_char; MOULIN_MOVE_TEXT],
    /// `MOULIN_WIN`, `MOULIN_DRAW` or `MOULIN_LOSS` for the mover.
    pub outcome: c_int,
    /// Turns to the end after this move is counted; -1 for a draw.
    pub distance: c_int,
}

struct LastError {
    code: c_int,
    message: CString,
}

thread_local! {
    static LAST_ERROR: RefCell<LastError> = RefCell::new(LastError {
        code: MOULIN_OK,
        message: CString::default(),
    });
}

/// An error to hand back: its code and its message.
struct Failure(c_int, String);

fn set_last_error(code: c_int, message: &str) {
    // A message never holds a NUL byte; drop any rather than lose the text.
    let message = CString::new(message.replace('\0', "")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = LastError { code, message });
}

/// Runs an entry point: catches panics, records the error of this thread.
fn guard(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => MOULIN_OK,
        Ok(Err(Failure(code, message))) => {
            set_last_error(code, &message);
            code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(
                MOULIN_ERR_PANIC,
                &format!("internal error in moulin (please report): {what}"),
            );
            MOULIN_ERR_PANIC
        }
    }
}

fn probe_failure(error: ProbeError) -> Failure {
    let code = match error.kind() {
        ErrorKind::MissingTable => MOULIN_ERR_MISSING_TABLE,
        ErrorKind::InvalidPosition => MOULIN_ERR_POSITION,
        ErrorKind::Io => MOULIN_ERR_IO,
        ErrorKind::DamagedTable => MOULIN_ERR_DAMAGED_TABLE,
        ErrorKind::Rules => MOULIN_ERR_RULES,
        ErrorKind::Counter => MOULIN_ERR_COUNTER,
        ErrorKind::WdlOnly => return wdl_only(),
        // `BadUrl`, and any kind without a code of its own.
        _ => MOULIN_ERR_OTHER,
    };
    Failure(code, chain(&error))
}

/// A distance asked of WDL tables (the library's message names its Rust
/// calls; this one the C functions).
fn wdl_only() -> Failure {
    Failure(
        MOULIN_ERR_WDL_ONLY,
        "these are WDL tables from moulin_open_wdl (outcomes only, no distances): \
         ask for the outcome alone with moulin_probe_wdl, or open the distance \
         tables with moulin_open"
            .into(),
    )
}

/// Refuses a question about distances or counters on WDL tables (before the
/// counter is checked: WDL tables carry no no-capture rule, and saying so
/// would hide the real reason).
fn distance_tables(tables: &Tablebase) -> Result<&Tablebase, Failure> {
    if tables.is_wdl() {
        Err(wdl_only())
    } else {
        Ok(tables)
    }
}

/// The text of a C string argument.
///
/// # Safety
/// `text` is NULL or points to a NUL-terminated string.
unsafe fn text_arg<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(Failure(MOULIN_ERR_NULL, format!("{what} is NULL")));
    }
    CStr::from_ptr(text)
        .to_str()
        .map_err(|e| Failure(MOULIN_ERR_UTF8, format!("{what} is not valid UTF-8: {e}")))
}

/// The place an answer is written to, `MOULIN_ERR_NULL` if it is NULL.
///
/// # Safety
/// `ptr` is NULL or valid for writing one `T`.
unsafe fn out_arg<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    ptr.as_mut()
        .ok_or_else(|| Failure(MOULIN_ERR_NULL, format!("{what} is NULL")))
}

/// # Safety
/// `position` is NULL or points to a NUL-terminated string.
unsafe fn position_arg(position: *const c_char) -> Result<Position, Failure> {
    let text = text_arg(position, "the position")?;
    text.parse().map_err(|e| {
        Failure(
            MOULIN_ERR_POSITION,
            format!("invalid position `{text}`: {e}"),
        )
    })
}

/// # Safety
/// `tb` is NULL or a handle from `moulin_open` not yet closed.
unsafe fn tables_arg<'a>(tb: *const moulin_tablebase) -> Result<&'a Tablebase, Failure> {
    tb.as_ref()
        .map(|t| &t.tables)
        .ok_or_else(|| Failure(MOULIN_ERR_NULL, "the tablebase is NULL".into()))
}

fn wdl_code(value: Wdl) -> c_int {
    match value {
        Wdl::Win => MOULIN_WIN,
        Wdl::Draw => MOULIN_DRAW,
        Wdl::Loss => MOULIN_LOSS,
    }
}

fn result_of(outcome: Outcome) -> moulin_result {
    moulin_result {
        outcome: match outcome {
            Outcome::Win(_) => MOULIN_WIN,
            Outcome::Draw => MOULIN_DRAW,
            Outcome::Loss(_) => MOULIN_LOSS,
        },
        distance: outcome.distance().map_or(-1, c_int::from),
    }
}

fn rule_result_of(value: RuleOutcome) -> moulin_result {
    moulin_result {
        outcome: match value {
            RuleOutcome::Win(_) => MOULIN_WIN,
            RuleOutcome::CursedWin(_) => MOULIN_CURSED_WIN,
            RuleOutcome::Draw => MOULIN_DRAW,
            RuleOutcome::BlessedLoss(_) => MOULIN_BLESSED_LOSS,
            RuleOutcome::Loss(_) => MOULIN_LOSS,
        },
        distance: value.distance().map_or(-1, c_int::from),
    }
}

/// Every legal move with its outcome for the mover, best first (ties in the
/// order of the rules' move generation): the order of `moulin probe --json`.
/// With a counter, valued under the no-capture rule.
fn ranked_moves(
    tables: &Tablebase,
    position: &Position,
    counter: Option<u16>,
) -> Result<Vec<(Move, moulin_result)>, Failure> {
    let mut moves: Vec<(Move, RuleOutcome)> = match counter {
        None => tables
            .probe_moves(position)
            .map_err(probe_failure)?
            .into_iter()
            .map(|(m, o)| (m, o.into()))
            .collect(),
        Some(c) => tables
            .probe_moves_counter(position, c)
            .map_err(probe_failure)?,
    };
    moves.sort_by_key(|(_, o)| -o.rank());
    Ok(moves
        .into_iter()
        .map(|(m, v)| (m, rule_result_of(v)))
        .collect())
}

/// A counter argument, checked.
fn counter_arg(counter: c_int) -> Result<u16, Failure> {
    u16::try_from(counter).map_err(|_| {
        Failure(
            MOULIN_ERR_COUNTER,
            format!("counter {counter} is out of range: it counts turns, 0 or more"),
        )
    })
}

/// Opens the tables of a directory (cheap: tables are read lazily). Returns
/// NULL on failure (`moulin_last_error` says why, `moulin_last_error_code`
/// gives the code: `MOULIN_ERR_IO` for a directory that cannot be listed,
/// `MOULIN_ERR_DAMAGED_TABLE` for a table whose header is damaged,
/// `MOULIN_ERR_RULES` for tables of mixed rules). Free with `moulin_close`.
///
/// `dir` may also be an `http://` or `https://` URL under which the tables
/// lie as `<url>/<sector>.mtb` (`moulin serve --dir D` serves D at
/// `http://host:port/tables`): they are read by range requests, each table
/// when a probe first needs it (a table the server does not have is
/// `MOULIN_ERR_MISSING_TABLE`, as in a directory). A server error, a
/// refused connection or no answer within 30 seconds is `MOULIN_ERR_IO`,
/// its message naming the URL and the HTTP status; wrong bytes are
/// `MOULIN_ERR_DAMAGED_TABLE` (the checksums catch them).
///
/// # Safety
/// `dir` is NULL or points to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn moulin_open(dir: *const c_char) -> *mut moulin_tablebase {
    open_with(dir, "tables", |d| Tablebase::open(d), Tablebase::open_url)
}

/// Opens a play set (`moulin pack`: outcome tables `<sector>.mtw` and one
/// side's distance tables `<sector>.mtd`), which answers every probe as
/// the distance tables do. A directory holding one opens with `moulin_open`
/// too; here `dir` may also be an `http://` or `https://` URL under which
/// the play set lies (`moulin serve --dir D` serves it), read as
/// `moulin_open` reads a remote set. Errors and NULL as `moulin_open`;
/// free with `moulin_close`.
///
/// # Safety
/// `dir` is NULL or points to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn moulin_open_play(dir: *const c_char) -> *mut moulin_tablebase {
    open_with(
        dir,
        "play set",
        |d| Tablebase::open_play(d),
        Tablebase::open_url_play,
    )
}

/// Whether a `moulin_open` argument names a remote table set.
fn is_url(dir: &str) -> bool {
    dir.starts_with("http://") || dir.starts_with("https://")
}

/// Opens the WDL tables of a directory (`<sector>.mtw`, outcomes only, two
/// bits a position: much smaller than the distance tables; `moulin solve`
/// writes them beside those). Such a handle answers `moulin_probe_wdl`,
/// `moulin_is_wdl` and `moulin_no_capture_limit` (0: WDL tables carry no
/// rule); `moulin_probe`, `moulin_probe_counter`, `moulin_best_moves`,
/// `moulin_moves` and `moulin_moves_counter` fail with
/// `MOULIN_ERR_WDL_ONLY`. A directory without WDL tables opens, and its
/// probes fail with `MOULIN_ERR_MISSING_TABLE`. `dir` may be an `http://`
/// or `https://` URL (`<url>/<sector>.mtw`), as for `moulin_open`. Errors
/// and NULL as `moulin_open`; free with `moulin_close`.
///
/// # Safety
/// `dir` is NULL or points to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn moulin_open_wdl(dir: *const c_char) -> *mut moulin_tablebase {
    open_with(
        dir,
        "WDL tables",
        |d| Tablebase::open_wdl(d),
        Tablebase::open_url_wdl,
    )
}

/// # Safety
/// `dir` is NULL or points to a NUL-terminated string.
unsafe fn open_with(
    dir: *const c_char,
    what: &str,
    local: fn(&str) -> Result<Tablebase, ProbeError>,
    remote: fn(&str) -> Result<Tablebase, ProbeError>,
) -> *mut moulin_tablebase {
    let mut handle = std::ptr::null_mut();
    guard(|| {
        let dir = text_arg(dir, "the directory")?;
        let open = if is_url(dir) { remote } else { local };
        let tables = open(dir).map_err(|e| {
            let Failure(code, message) = probe_failure(e);
            Failure(code, format!("cannot open the {what} in {dir}: {message}"))
        })?;
        handle = Box::into_raw(Box::new(moulin_tablebase { tables }));
        Ok(())
    });
    handle
}

/// Whether a handle holds WDL tables (from `moulin_open_wdl`): 1, else 0
/// (also for a NULL handle).
///
/// # Safety
/// `tb` is NULL or a handle from `moulin_open` or `moulin_open_wdl` not yet
/// closed.
#[no_mangle]
pub unsafe extern "C" fn moulin_is_wdl(tb: *const moulin_tablebase) -> c_int {
    let mut wdl = 0;
    guard(|| {
        wdl = c_int::from(tables_arg(tb)?.is_wdl());
        Ok(())
    });
    wdl
}

/// Closes a tablebase from `moulin_open` or `moulin_open_wdl` (NULL is
/// ignored). No query may run on it any more, in any thread.
///
/// # Safety
/// `tb` is NULL or a handle from `moulin_open` or `moulin_open_wdl` not yet
/// closed.
#[no_mangle]
pub unsafe extern "C" fn moulin_close(tb: *mut moulin_tablebase) {
    if !tb.is_null() {
        guard(|| {
            drop(Box::from_raw(tb));
            Ok(())
        });
    }
}

/// The outcome and distance of a position for the player to move.
/// A finished game is a loss in 0 for the player to move.
///
/// Returns `MOULIN_OK`, or `MOULIN_ERR_NULL`, `MOULIN_ERR_UTF8`,
/// `MOULIN_ERR_POSITION`, `MOULIN_ERR_MISSING_TABLE`,
/// `MOULIN_ERR_DAMAGED_TABLE`, `MOULIN_ERR_IO`, and `MOULIN_ERR_WDL_ONLY`
/// on WDL tables (`moulin_open_wdl`: ask `moulin_probe_wdl`); `*out` is
/// written only on success.
///
/// # Safety
/// `tb` is NULL or an open handle; `position` NULL or a NUL-terminated
/// string; `out` NULL or valid for writing one `moulin_result`.
#[no_mangle]
pub unsafe extern "C" fn moulin_probe(
    tb: *const moulin_tablebase,
    position: *const c_char,
    out: *mut moulin_result,
) -> c_int {
    guard(|| {
        let tables = tables_arg(tb)?;
        let position = position_arg(position)?;
        let tables = distance_tables(tables)?;
        let out = out_arg(out, "the result pointer")?;
        let outcome = tables.probe(&position).map_err(probe_failure)?;
        *out = result_of(outcome);
        Ok(())
    })
}

/// The outcome of a position for the player to move, without its distance:
/// writes `MOULIN_WIN`, `MOULIN_DRAW` or `MOULIN_LOSS` into `*outcome` (the
/// codes of `moulin_result.outcome`). A finished game is `MOULIN_LOSS`.
/// Works on WDL tables (`moulin_open_wdl`) and on distance tables
/// (`moulin_open`; there the outcome of `moulin_probe`, and under the
/// no-capture rule the value at counter 0 with a cursed win or a blessed
/// loss as `MOULIN_DRAW`).
///
/// Returns `MOULIN_OK`, or `MOULIN_ERR_NULL`, `MOULIN_ERR_UTF8`,
/// `MOULIN_ERR_POSITION`, `MOULIN_ERR_MISSING_TABLE` (also for a WDL handle
/// on a directory without WDL tables), `MOULIN_ERR_DAMAGED_TABLE`,
/// `MOULIN_ERR_IO`; never `MOULIN_ERR_WDL_ONLY`. `*outcome` is written only
/// on success.
///
/// # Safety
/// `tb` is NULL or an open handle; `position` NULL or a NUL-terminated
/// string; `outcome` NULL or valid for writing one `int`.
#[no_mangle]
pub unsafe extern "C" fn moulin_probe_wdl(
    tb: *const moulin_tablebase,
    position: *const c_char,
    outcome: *mut c_int,
) -> c_int {
    guard(|| {
        let tables = tables_arg(tb)?;
        let position = position_arg(position)?;
        let outcome = out_arg(outcome, "the outcome pointer")?;
        let value = tables.probe_wdl(&position).map_err(probe_failure)?;
        *outcome = wdl_code(value);
        Ok(())
    })
}

/// The no-capture limit the tables were solved under, 0 for tables without
/// the rule (WDL tables never carry it) or a NULL handle.
///
/// # Safety
/// `tb` is NULL or a handle from `moulin_open` or `moulin_open_wdl` not yet
/// closed.
#[no_mangle]
pub unsafe extern "C" fn moulin_no_capture_limit(tb: *const moulin_tablebase) -> c_int {
    let mut limit = 0;
    guard(|| {
        limit = tables_arg(tb)?.no_capture_limit().map_or(0, c_int::from);
        Ok(())
    });
    limit
}

/// The outcome and distance to conversion of a position under the tables'
/// no-capture rule, when `counter` turns have passed since the last capture
/// or placement (0 <= counter < the limit; 0 with stones in hand):
/// `MOULIN_WIN`, `MOULIN_CURSED_WIN`, `MOULIN_DRAW`, `MOULIN_BLESSED_LOSS`
/// or `MOULIN_LOSS`. `MOULIN_ERR_COUNTER` for a counter the tables cannot
/// answer (or tables without the rule); other errors as `moulin_probe`
/// (`MOULIN_ERR_WDL_ONLY` on WDL tables, whatever the counter).
///
/// # Safety
/// As `moulin_probe`.
#[no_mangle]
pub unsafe extern "C" fn moulin_probe_counter(
    tb: *const moulin_tablebase,
    position: *const c_char,
    counter: c_int,
    out: *mut moulin_result,
) -> c_int {
    guard(|| {
        let tables = tables_arg(tb)?;
        let position = position_arg(position)?;
        let tables = distance_tables(tables)?;
        let counter = counter_arg(counter)?;
        let out = out_arg(out, "the result pointer")?;
        let value = tables
            .probe_counter(&position, counter)
            .map_err(probe_failure)?;
        *out = rule_result_of(value);
        Ok(())
    })
}

/// Writes the best moves (the fastest wins, else every drawing move, else
/// the slowest losses), space-separated and NUL-terminated, into `buf` of
/// `len` bytes; an empty string when the game is over. A buffer of
/// `MOULIN_MOVES_TEXT_MAX` bytes always suffices; if `len` is too small,
/// returns `MOULIN_ERR_BUFFER_TOO_SMALL`, writes nothing and the message
/// says how many bytes are needed. Other errors as `moulin_probe`
/// (`MOULIN_ERR_WDL_ONLY` on WDL tables).
///
/// # Safety
/// `tb` is NULL or an open handle; `position` NULL or a NUL-terminated
/// string; `buf` NULL or valid for writing `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn moulin_best_moves(
    tb: *const moulin_tablebase,
    position: *const c_char,
    buf: *mut c_char,
    len: usize,
) -> c_int {
    guard(|| {
        let tables = tables_arg(tb)?;
        let position = position_arg(position)?;
        let tables = distance_tables(tables)?;
        if buf.is_null() {
            return Err(Failure(MOULIN_ERR_NULL, "the buffer is NULL".into()));
        }
        let best = tables.best_moves(&position).map_err(probe_failure)?;
        let text = best
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" ");
        let needed = text.len() + 1;
        if needed > len {
            return Err(Failure(
                MOULIN_ERR_BUFFER_TOO_SMALL,
                format!("a buffer of {len} bytes is too small for the best moves: {needed} bytes are needed"),
            ));
        }
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, text.len());
        *buf.add(text.len()) = 0;
        Ok(())
    })
}

/// Every legal move with the outcome and distance it leads to for the
/// player who makes it (a move to a lost position is a win in 1), best
/// first, ties in the order of the rules' move generation (the order of
/// `moulin probe --json`). Writes up to `capacity` entries into `moves` and
/// the number of legal moves into `*count` (0 when the game is over). If
/// `capacity` is smaller than that number, returns
/// `MOULIN_ERR_BUFFER_TOO_SMALL` with `*count` set to the number needed and
/// nothing written to `moves`; `MOULIN_MAX_MOVES` always suffices. `moves`
/// may be NULL when `capacity` is 0. Other errors as `moulin_probe`
/// (`MOULIN_ERR_WDL_ONLY` on WDL tables).
///
/// # Safety
/// `tb` is NULL or an open handle; `position` NULL or a NUL-terminated
/// string; `moves` NULL or valid for writing `capacity` entries; `count`
/// NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn moulin_moves(
    tb: *const moulin_tablebase,
    position: *const c_char,
    moves: *mut moulin_move_result,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    write_moves(tb, position, None, moves, capacity, count)
}

/// `moulin_moves` under the tables' no-capture rule at `counter`: each move
/// valued at the counter it leads to (0 after a capture or a placement,
/// `counter + 1` otherwise), with the five outcomes of
/// `moulin_probe_counter`. Errors as `moulin_moves` and `MOULIN_ERR_COUNTER`
/// (`MOULIN_ERR_WDL_ONLY` on WDL tables, whatever the counter).
///
/// # Safety
/// As `moulin_moves`.
#[no_mangle]
pub unsafe extern "C" fn moulin_moves_counter(
    tb: *const moulin_tablebase,
    position: *const c_char,
    counter: c_int,
    moves: *mut moulin_move_result,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    write_moves(tb, position, Some(counter), moves, capacity, count)
}

/// # Safety
/// As `moulin_moves`.
unsafe fn write_moves(
    tb: *const moulin_tablebase,
    position: *const c_char,
    counter: Option<c_int>,
    moves: *mut moulin_move_result,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    guard(|| {
        let tables = tables_arg(tb)?;
        let position = position_arg(position)?;
        let tables = distance_tables(tables)?;
        let counter = counter.map(counter_arg).transpose()?;
        let count = out_arg(count, "the count pointer")?;
        if moves.is_null() && capacity > 0 {
            return Err(Failure(MOULIN_ERR_NULL, "the moves array is NULL".into()));
        }
        let ranked = ranked_moves(tables, &position, counter)?;
        *count = ranked.len();
        if ranked.len() > capacity {
            return Err(Failure(
                MOULIN_ERR_BUFFER_TOO_SMALL,
                format!(
                    "an array of {capacity} moves is too small: the position has {} legal moves",
                    ranked.len()
                ),
            ));
        }
        for (i, (m, result)) in ranked.iter().enumerate() {
            let mut text = [0 as c_char; MOULIN_MOVE_TEXT];
            for (t, b) in text.iter_mut().zip(m.to_string().bytes()) {
                *t = b as c_char;
            }
            moves.add(i).write(moulin_move_result {
                r#move: text,
                outcome: result.outcome,
                distance: result.distance,
            });
        }
        Ok(())
    })
}

/// What was wrong with the last failed call of this thread, in words
/// (an empty string if none failed yet). The text stays valid until the
/// next failing call in the same thread.
#[no_mangle]
pub extern "C" fn moulin_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|e| e.borrow().message.as_ptr())
        .unwrap_or(c"moulin: thread is exiting".as_ptr())
}

/// The code (`MOULIN_ERR_*`) of the last failed call of this thread
/// (`MOULIN_OK` if none failed yet): the way to tell why `moulin_open`
/// returned NULL.
#[no_mangle]
pub extern "C" fn moulin_last_error_code() -> c_int {
    LAST_ERROR
        .try_with(|e| e.borrow().code)
        .unwrap_or(MOULIN_OK)
}

/// The version of the library, like `0.1.0` (static, never freed).
#[no_mangle]
pub extern "C" fn moulin_version() -> *const c_char {
    static VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}
