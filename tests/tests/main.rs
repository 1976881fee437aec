//! The end-to-end tests, one module per file of this directory, linked into
//! one test binary (`e2e`): the solver and its dependencies are linked once
//! instead of once per file. Tables solved by `moulin_tests::solved` are
//! shared by every module, so each size is solved once per run.
//!
//! The exhaustive and large variants are `#[ignore]`d; `cargo test
//! -- --include-ignored` runs them with the others (CI does).
//! One module: `cargo test -p moulin-tests --test e2e verify::`.

mod advice;
mod brute_reference;
mod c_counter;
mod c_programs;
mod cli_basic;
mod cli_prove;
mod cli_review;
mod cli_rule;
mod cli_serve;
mod counter_brute;
mod crash_safety;
mod damaged_tables;
mod fetch;
mod fuzz_parsers;
mod memory_budget;
mod play_set;
mod prove_vs_brute;
mod readme_example;
mod remote_probe;
mod replaced_tables;
mod rule_tables;
mod solve_record;
mod solver_vs_brute;
mod verify;
mod wasm_source;
mod wdl_tables;

/// Test files are compiled only through the `mod` lines above (`autotests`
/// is off for this package), so a file without one would never run.
#[test]
fn every_file_of_this_directory_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared = include_str!("main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let (Some(stem), Some("rs")) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|s| s.to_str()),
        ) else {
            continue;
        };
        if stem != "main" && !declared.contains(&format!("\nmod {stem};\n")) {
            missing.push(stem.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "not declared in tests/tests/main.rs: {missing:?}"
    );
}
