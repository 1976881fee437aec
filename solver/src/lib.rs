//! moulin: the generator of the Nine Men's Morris tablebase. It solves the
//! sectors by retrograde analysis ([`solve`]), writes their tables
//! ([`write`](mod@write), in a directory held by a [`lock`]), re-derives
//! every stored value from the rules ([`verify`]), and values positions
//! with stones in hand by search ([`prove`]). It packs play sets from the
//! tables and checks them against the tables ([`pack`]), writes WDL tables
//! again at a higher level ([`wdl`]), and rewrites a stored value for
//! testing the verifier ([`tamper`]); a check that takes more than one
//! sitting keeps a [`sector_log`] to resume from. It builds on
//! `moulin-core` (rules, index, format) and `moulin-probe` (reading the
//! tables); the `moulin` program (crate `moulin-cli`) is its command line.

#[doc(hidden)]
pub mod doc_example;
pub mod lock;
pub mod pack;
pub mod perft;
pub mod prove;
pub mod sector_log;
pub mod solve;
pub mod tamper;
pub mod verify;
pub mod wdl;
pub mod write;

/// An error in what was asked (the options or directories given, a
/// position, a sector name), not in the tables or the files: the `moulin`
/// program reports it on one line with exit code 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}
