//! Arbitrary text as a position and a sector name (see `checks::position`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| moulin_fuzz::checks::position(data));
