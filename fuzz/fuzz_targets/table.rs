//! Arbitrary bytes as a table file (see `checks::table`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| moulin_fuzz::checks::table(data));
