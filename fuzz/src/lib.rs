//! Coverage-guided fuzzing of moulin's readers of untrusted input: table
//! files, position texts and move texts. Each target of `fuzz_targets/`
//! hands its input to one function of `checks`; `scripts/fuzz.sh` builds
//! and runs them with cargo-fuzz (libFuzzer).
#![warn(missing_docs)]

pub mod checks;
