//! What the placement pass holds beyond its result: reads the sectors one
//! placement sector needs from DIR, then solves it and prints the peak
//! resident memory above what was resident before, against the 2 bytes a
//! slot of its codes: `cargo run --release --features studies --example placement_memory --
//! DIR SECTOR` (Linux: resets the peak through `/proc/self/clear_refs`);
//! then the same for writing its table and WDL table.
use moulin::solve::memory::resident_kib;
use moulin::solve::placement::{placement_needs, solve_placement};
use moulin::solve::retro::Silent;
use moulin::solve::Solved;
use moulin_core::index::Indexer;
use moulin_probe::{Sector, Tablebase};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tb = Tablebase::open(&args[0]).expect("tables");
    let rules = tb.rules();
    let sector: Sector = args[1].parse().expect("a sector");
    let mut solved = Solved::default();
    for need in placement_needs(sector) {
        solved.insert(need, tb.sector_values(need).expect("a needed sector"));
    }
    drop(tb);
    std::fs::write("/proc/self/clear_refs", "5").expect("peak reset");
    let (before, _) = resident_kib().expect("resident");
    let clock = std::time::Instant::now();
    let codes = solve_placement(&rules, sector, &solved, &Silent);
    let (after, peak) = resident_kib().expect("resident");
    let slots = Indexer::get().slots(sector);
    println!(
        "{sector}: {slots} slots ({} MiB of codes) in {:.1} s; resident {} MiB before, {} after, peak {} (+{} MiB beyond the codes)",
        (2 * slots) >> 20,
        clock.elapsed().as_secs_f64(),
        before >> 10,
        after >> 10,
        peak >> 10,
        (peak.saturating_sub(before) >> 10).saturating_sub((2 * slots) >> 20),
    );
    // Then writing its table and WDL table (into a temporary directory).
    let out = tempfile::tempdir().expect("a temporary directory");
    std::fs::write("/proc/self/clear_refs", "5").expect("peak reset");
    let (before, _) = resident_kib().expect("resident");
    let clock = std::time::Instant::now();
    let options = moulin::write::WriteOptions {
        level: moulin::solve::driver::SOLVER_LEVEL,
        ..Default::default()
    };
    moulin::write::write_table_with(out.path(), sector, rules, &codes, &options).expect("written");
    moulin::write::write_wdl_table_with(out.path(), sector, rules, &codes, &options)
        .expect("WDL written");
    let (_, peak) = resident_kib().expect("resident");
    println!(
        "writing: {:.1} s, peak {} MiB above the resident before",
        clock.elapsed().as_secs_f64(),
        peak.saturating_sub(before) >> 10
    );
    drop(codes);
}
