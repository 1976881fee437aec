//! The core's integration tests, one module per file of this directory,
//! linked into one test binary: the rules against a transcription of
//! `docs/rules.md`, the index's properties, and (`#[ignore]`d, run by
//! `cargo test -- --include-ignored` as CI does) the index over every
//! position of the small sectors.

mod index_exhaustive;
mod index_props;
mod rules_props;
