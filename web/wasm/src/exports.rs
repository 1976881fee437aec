//! The module's exports, for `web/worker.js` (its imports: `http::Xhr`).
//!
//! Strings cross the boundary as UTF-8 bytes in the module's memory: the
//! caller allocates with `moulin_alloc`, writes, calls, and frees with
//! `moulin_free`; each call returns the length of its JSON answer, which
//! `moulin_output` points to until the next call.

use crate::answers::moves_json;
use crate::http::Xhr;
use crate::session::Session;
use moulin_probe::Rules;
use std::sync::Mutex;

struct State {
    session: Option<Session>,
    output: Vec<u8>,
}

static STATE: Mutex<State> = Mutex::new(State {
    session: None,
    output: Vec::new(),
});

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps an answer for `moulin_output` and returns its length.
fn answer(state: &mut State, json: String) -> usize {
    state.output = json.into_bytes();
    state.output.len()
}

/// # Safety
/// `ptr` holds `len` bytes (the caller wrote them after `moulin_alloc`).
unsafe fn text<'a>(ptr: *const u8, len: usize) -> Result<&'a str, String> {
    let bytes = if len == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    };
    std::str::from_utf8(bytes).map_err(|_| "the text is not UTF-8".to_string())
}

fn error_json(error: &str) -> String {
    serde_json::json!({ "error": error }).to_string()
}

/// Allocates `len` bytes for a string the caller passes in.
#[no_mangle]
pub extern "C" fn moulin_alloc(len: usize) -> *mut u8 {
    let mut bytes = Vec::<u8>::with_capacity(len.max(1));
    let ptr = bytes.as_mut_ptr();
    std::mem::forget(bytes);
    ptr
}

/// Frees what `moulin_alloc(len)` returned.
///
/// # Safety
/// `ptr` comes from `moulin_alloc(len)` and is freed once.
#[no_mangle]
pub unsafe extern "C" fn moulin_free(ptr: *mut u8, len: usize) {
    // SAFETY: guaranteed by the caller.
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len.max(1)) });
}

/// The last answer (`moulin_output_len` bytes of UTF-8 JSON).
#[no_mangle]
pub extern "C" fn moulin_output() -> *const u8 {
    state().output.as_ptr()
}

/// Opens the tables under a base URL (ending with `/`) with a budget of
/// `cache_bytes` for decoded blocks. Answers `{"ok": true}` or `{"error"}`.
///
/// # Safety
/// `base` holds `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn moulin_open(base: *const u8, len: usize, cache_bytes: usize) -> usize {
    let mut state = state();
    // SAFETY: guaranteed by the caller.
    let json = match unsafe { text(base, len) } {
        Err(e) => error_json(&e),
        Ok(base) => match Session::open(base, Xhr, cache_bytes) {
            Ok(session) => {
                state.session = Some(session);
                r#"{"ok":true}"#.to_string()
            }
            Err(e) => error_json(&e),
        },
    };
    answer(&mut state, json)
}

/// `moulin probe --json` of a position (see `answers::probe_json`).
///
/// # Safety
/// `ptr` holds `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn moulin_probe(ptr: *const u8, len: usize) -> usize {
    let mut state = state();
    // SAFETY: guaranteed by the caller.
    let json = match (unsafe { text(ptr, len) }, &state.session) {
        (Err(e), _) => error_json(&e),
        (Ok(_), None) => error_json("the tables are not open (moulin_open)"),
        (Ok(position), Some(session)) => session.probe(position),
    };
    answer(&mut state, json)
}

/// `moulin probe --json --counter C` of a position under the tables'
/// no-capture rule (see `answers::probe_json_at`).
///
/// # Safety
/// `ptr` holds `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn moulin_probe_counter(ptr: *const u8, len: usize, counter: u32) -> usize {
    let mut state = state();
    // SAFETY: guaranteed by the caller.
    let json = match (unsafe { text(ptr, len) }, &state.session) {
        (Err(e), _) => error_json(&e),
        (Ok(_), None) => error_json("the tables are not open (moulin_open)"),
        (Ok(position), Some(session)) => session.probe_counter(position, counter),
    };
    answer(&mut state, json)
}

/// The legal moves of a position (see `answers::moves_json`), under the
/// rules of the tables once open, the default rules before.
///
/// # Safety
/// `ptr` holds `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn moulin_moves(ptr: *const u8, len: usize) -> usize {
    let mut state = state();
    // SAFETY: guaranteed by the caller.
    let json = match (unsafe { text(ptr, len) }, &state.session) {
        (Err(e), _) => error_json(&e),
        (Ok(position), Some(session)) => session.moves(position),
        (Ok(position), None) => moves_json(Rules::default(), position),
    };
    answer(&mut state, json)
}

/// The rules of the tables (see `answers::info_json`).
#[no_mangle]
pub extern "C" fn moulin_info() -> usize {
    let mut state = state();
    let json = match &state.session {
        Some(session) => session.info(),
        None => {
            let rules = Rules::default();
            serde_json::json!({
                "rules": { "flying": rules.flying, "no_capture_limit": rules.no_capture_limit }
            })
            .to_string()
        }
    };
    answer(&mut state, json)
}
