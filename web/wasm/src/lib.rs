//! moulin-wasm: the moulin probe for the browser.
//!
//! Built for `wasm32-unknown-unknown` by `scripts/build-web.sh`, it runs in
//! the page's Web Worker (`web/worker.js`), which makes its range requests
//! with synchronous `XMLHttpRequest`s and hands it the status, the headers
//! and the body of each reply. The tables are read through moulin-probe's
//! `RangeSource` ([`http::source`]), which checks every reply: each table's
//! header and block index once, then one block per cache miss, checked by
//! its CRC. The exports (plain `extern "C"`, no bindings generator) take and
//! return UTF-8 strings in the module's memory; the answers are JSON
//! ([`answers`]), the same lines as `moulin probe --json`.
//!
//! The crate also builds natively, where its tests read tables from files
//! through the same [`http::Transport`] interface.
#![warn(missing_docs)]

pub mod answers;
pub mod http;
pub mod session;

#[cfg(target_arch = "wasm32")]
mod exports;
