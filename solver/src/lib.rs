//! moulin: the generator of the Nine Men's Morris tablebase. It solves the
//! sectors by retrograde analysis ([`solve`]), writes their tables
//! ([`write`](mod@write), in a directory held by a [`lock`]), re-derives every stored
//! value from the rules ([`verify`]), and values positions with stones in
//! hand by search ([`prove`]). It builds on `moulin-core` (rules, index,
//! format) and `moulin-probe` (reading the tables); the `moulin` program
//! (crate `moulin-cli`) is its command line.

#[doc(hidden)]
pub mod doc_example;
pub mod lock;
pub mod perft;
pub mod prove;
pub mod solve;
pub mod verify;
pub mod write;
