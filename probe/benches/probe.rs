//! Probe speed over the real tables of 5 v 5 and the sectors its moves lead
//! into, as `moulin solve` writes them: a probe with the block cache warm
//! and cold (every probe reads and decodes its block; `cold_4m`: a cache
//! too small to keep the blocks of one probe for the next, which decodes
//! each block a probe reads once), with positional reads
//! (the default) and with the memory map (`open_mapped`), `best_moves` per
//! call, and one block decoded on its own.
//!
//! The tables come from `data/tables` (what `cargo run --release -- solve`
//! writes) or from the directory in `MOULIN_BENCH_TABLES`. With
//! `MOULIN_BENCH_PLAY=DIR`, a play set of the same tables (`moulin pack`)
//! is timed beside them on the same positions, warm and cold.
//! `MOULIN_BENCH_SECTOR=6v7` probes random positions of another sector
//! (5v5 is mostly drawn, and a play set answers a draw from its outcome
//! alone).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use moulin_core::index::Indexer;
use moulin_core::seeded::SplitMix64;
use moulin_probe::{Position, Sector, Side, Tablebase};
use std::path::PathBuf;

/// The sector probed: 5v5, or `MOULIN_BENCH_SECTOR`.
fn sector() -> Sector {
    match std::env::var("MOULIN_BENCH_SECTOR") {
        Ok(name) => name
            .parse()
            .expect("MOULIN_BENCH_SECTOR: a sector such as 6v7"),
        Err(_) => Sector::moving(5, 5),
    }
}

/// The table directory, which must hold the tables up to 5 v 5 (or up to
/// the sector probed).
fn tables() -> PathBuf {
    let dir: PathBuf = std::env::var_os("MOULIN_BENCH_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../data/tables").into());
    let file = format!("{}.mtb", sector().name());
    if !dir.join(&file).is_file() {
        panic!(
            "no {file} in {}: solve the tables up to 5 a side first \
             (`cargo run --release -- solve`), or set MOULIN_BENCH_TABLES",
            dir.display()
        );
    }
    dir
}

/// Random positions of the sector, either side to move.
fn positions(count: usize) -> Vec<Position> {
    let ix = Indexer::get();
    let s = sector();
    let mut rng = SplitMix64::new(0x9e37_79b9_7f4a_7c15);
    (0..count)
        .map(|i| {
            let node = ix.unindex(s, rng.below(ix.slots(s))).expect("slot");
            // During placement the hands say whose turn it is.
            let side = match (s.is_moving(), i % 2) {
                (false, _) => node.side_by_hands(),
                (true, 0) => Side::White,
                (true, _) => Side::Black,
            };
            Position::from_node(node, side)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let dir = tables();
    let all = positions(4096);
    // SAFETY: nothing writes the tables while the benchmark runs.
    let mapped = || unsafe { Tablebase::open_mapped(&dir) }.expect("open");
    let read = || Tablebase::open(&dir).expect("open");
    let mut group = c.benchmark_group("probe");
    let mut i = 0;
    let mut sets = vec![
        ("warm", read()),
        ("warm_mapped", mapped()),
        ("warm_1g", read().with_cache_bytes(1 << 30)),
        ("cold", read().with_cache_bytes(0)),
        ("cold_mapped", mapped().with_cache_bytes(0)),
        // A small cache over many random positions: a probe finds none of
        // its blocks decoded, but decodes each once (a play set's rebuilt
        // probe reads some blocks several times).
        ("cold_4m", read().with_cache_bytes(4 << 20)),
    ];
    if let Some(play) = std::env::var_os("MOULIN_BENCH_PLAY") {
        let open = || Tablebase::open(&play).expect("open the play set");
        assert!(open().is_play_set(), "no play set in MOULIN_BENCH_PLAY");
        sets.push(("play_warm", open()));
        // Warm for every block the positions and their moves read.
        sets.push(("play_warm_1g", open().with_cache_bytes(1 << 30)));
        sets.push(("play_cold", open().with_cache_bytes(0)));
        sets.push(("play_cold_4m", open().with_cache_bytes(4 << 20)));
    }
    for (name, tb) in sets {
        for p in &all {
            tb.probe(p).expect("probe");
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % all.len();
                black_box(tb.probe(&all[i]).expect("probe"))
            })
        });
    }
    let warm = read();
    for p in &all {
        warm.best_moves(p).expect("best moves");
    }
    group.bench_function("best_moves_warm", |b| {
        b.iter(|| {
            i = (i + 1) % all.len();
            black_box(warm.best_moves(&all[i]).expect("best moves"))
        })
    });
    group.finish();

    let path = warm
        .path(sector())
        .expect("the sector's table")
        .to_path_buf();
    let table = moulin_core::table::Table::open(&path).expect("open");
    let blocks = table.summary().blocks;
    let mut block = 0;
    c.bench_function("decode_block", |b| {
        b.iter(|| {
            block = (block + 7919) % blocks;
            black_box(table.decode_block(block).expect("block"))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
