//! A position text, a newline, a move text (see `checks::moves`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| moulin_fuzz::checks::moves(data));
