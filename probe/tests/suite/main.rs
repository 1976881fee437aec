//! The probe's integration tests, one module per file of this directory,
//! linked into one test binary. (`forged_allocation` and `fuzz_corpus` stay
//! binaries of their own: each installs its own global allocator.)
//!
//! The exhaustive variants are `#[ignore]`d; `cargo test
//! -- --include-ignored` runs them with the others (CI does).

mod table_fuzz;
mod table_roundtrip;
mod table_synthetic;
mod table_tablebase;
mod table_tamper;
mod table_wdl;
