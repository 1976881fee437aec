//! End-to-end tests live in `tests/`; this library holds shared helpers.

pub mod brute;
