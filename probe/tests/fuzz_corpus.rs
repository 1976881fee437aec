//! Every committed fuzz input through the checks of its fuzz target, with
//! the stable test harness: `fuzz/corpus/<target>/` (the minimised corpus
//! of `scripts/fuzz.sh`) and `fuzz/regressions/<target>/` (inputs that once
//! failed). The checks are the fuzz targets' own (`fuzz/src/checks.rs`,
//! included here), so CI runs the corpus without libFuzzer. As under the
//! fuzzer's `-malloc_limit_mb=256`, no single allocation may exceed 256 MiB.

#[path = "../../fuzz/src/checks.rs"]
mod checks;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// The largest single allocation an input may make.
const ALLOCATION_LIMIT: usize = 256 << 20;

/// The system allocator, noting the largest request of each thread (each
/// test runs on its own thread).
struct Largest;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: allocations while the thread is torn down are not noted.
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: every call is passed on to `System` unchanged.
unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

/// The committed inputs of a target, in name order.
fn inputs(target: &str) -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        let dir = fuzz.join(dir).join(target);
        let Ok(listing) = std::fs::read_dir(&dir) else {
            continue;
        };
        for item in listing {
            let path = item.expect("listing the corpus").path();
            let hidden = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if path.is_file() && !hidden {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Runs every input of `target` through `check`: the inputs that panicked
/// or allocated too much at once, each named with what went wrong.
fn replay(target: &str, at_least: usize, check: fn(&[u8])) -> Vec<String> {
    let files = inputs(target);
    assert!(
        files.len() >= at_least,
        "{} inputs for {target}, expected at least {at_least} (fuzz/corpus/{target}/)",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("reading a corpus file");
        LARGEST.with(|l| l.set(0));
        let outcome = std::panic::catch_unwind(|| check(&bytes));
        let largest = LARGEST.with(|l| l.get());
        if outcome.is_err() {
            failures.push(format!("{}: panicked", path.display()));
        } else if largest > ALLOCATION_LIMIT {
            failures.push(format!(
                "{}: allocated {largest} bytes at once",
                path.display()
            ));
        }
    }
    failures
}

#[test]
fn table_corpus_passes_the_table_checks() {
    let failures = replay("table", 5, checks::table);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn position_corpus_passes_the_position_checks() {
    let failures = replay("position", 5, checks::position);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn moves_corpus_passes_the_move_checks() {
    let failures = replay("moves", 5, checks::moves);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The replay sees a panic and an oversized allocation (so the tests above
/// can fail).
#[test]
fn the_replay_catches_panics_and_oversized_allocations() {
    let files = inputs("position").len();
    let panics = replay("position", 1, |_| panic!("a failing check"));
    assert_eq!(panics.len(), files);
    assert!(panics.iter().all(|f| f.ends_with("panicked")));
    let oversized = replay("position", 1, |_| {
        let v = vec![0u8; ALLOCATION_LIMIT + 1];
        std::hint::black_box(&v);
    });
    assert_eq!(oversized.len(), files);
    assert!(oversized.iter().all(|f| f.contains("bytes at once")));
    assert!(replay("position", 1, |_| ()).is_empty());
}
