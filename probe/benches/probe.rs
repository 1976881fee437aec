//! Probe speed over the tables of 5 v 5 and 4 v 5 (the sectors a 5 v 5 move
//! leads into), written to a temporary directory with the default writer
//! options: a probe with the block cache warm and cold (every probe decodes
//! its block), `best_moves` per call, and one block decoded on its own.
//!
//! The values are synthetic but shaped like real ones (mostly draws, wins and
//! losses where a side has mills to close); set `MOULIN_BENCH_TABLES` to a
//! directory holding real `5v5.mtb` and `4v5.mtb` to measure those instead.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use moulin_probe::board::MILLS;
use moulin_probe::index::Indexer;
use moulin_probe::table::Table;
use moulin_probe::value::{Outcome, HOLE};
use moulin_probe::{write_table, Node, Position, Rules, Sector, Side, Tablebase};
use std::path::PathBuf;

/// xorshift64*: the same positions on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Mills a side can close next turn: two stones and a free third point.
fn open_mills(stones: u32, other: u32) -> u32 {
    MILLS
        .iter()
        .filter(|&&m| (m & stones).count_ones() == 2 && m & other == 0)
        .count() as u32
}

/// A value shaped like a real one: a draw unless one side has more open mills.
fn synthetic(node: &Node) -> u16 {
    let ours = open_mills(node.us, node.them);
    let theirs = open_mills(node.them, node.us);
    let spread = node.us.count_ones() + node.them.count_ones();
    let outcome = if ours > theirs {
        Outcome::Win(2 * (ours + spread) as u16 + 1)
    } else if theirs > ours + 1 {
        Outcome::Loss(2 * (theirs + spread) as u16)
    } else {
        Outcome::Draw
    };
    outcome.code().unwrap_or(HOLE)
}

fn synthetic_values(sector: Sector) -> Vec<u16> {
    let ix = Indexer::get();
    (0..ix.slots(sector))
        .map(|slot| match ix.unindex(sector, slot) {
            Some(node) if ix.index(&node) == slot => synthetic(&node),
            _ => HOLE,
        })
        .collect()
}

/// The table directory: `MOULIN_BENCH_TABLES` or fresh synthetic tables.
fn tables() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("MOULIN_BENCH_TABLES") {
        return (dir.into(), None);
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    for s in [Sector::moving(5, 5), Sector::moving(4, 5)] {
        let values = synthetic_values(s);
        let summary = write_table(dir.path(), s, Rules::default(), &values).expect("write");
        eprintln!(
            "{s}: {} slots, {} bytes, {:.3} bits per slot, {:.4} bits per position",
            summary.slots,
            summary.bytes,
            summary.bytes as f64 * 8.0 / summary.slots as f64,
            summary.bytes as f64 * 8.0 / summary.positions.total() as f64
        );
    }
    (dir.path().to_path_buf(), Some(dir))
}

/// Random 5 v 5 positions, either side to move.
fn positions(count: usize) -> Vec<Position> {
    let ix = Indexer::get();
    let s = Sector::moving(5, 5);
    let mut rng = Random(0x9e37_79b9_7f4a_7c15);
    (0..count)
        .map(|i| {
            let node = ix.unindex(s, rng.next() % ix.slots(s)).expect("slot");
            let side = if i % 2 == 0 { Side::White } else { Side::Black };
            Position::from_node(node, side)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let (dir, _keep) = tables();
    let all = positions(4096);
    let warm = Tablebase::open(&dir).expect("open");
    for p in &all {
        warm.probe(p).expect("probe");
    }
    let cold = Tablebase::open(&dir).expect("open").with_cache_bytes(0);
    let mut group = c.benchmark_group("probe");
    let mut i = 0;
    group.bench_function("warm", |b| {
        b.iter(|| {
            i = (i + 1) % all.len();
            black_box(warm.probe(&all[i]).expect("probe"))
        })
    });
    group.bench_function("cold", |b| {
        b.iter(|| {
            i = (i + 1) % all.len();
            black_box(cold.probe(&all[i]).expect("probe"))
        })
    });
    group.bench_function("best_moves_warm", |b| {
        b.iter(|| {
            i = (i + 1) % 256;
            black_box(warm.best_moves(&all[i]).expect("best moves"))
        })
    });
    group.finish();

    let path = warm.path(Sector::moving(5, 5)).expect("5v5").to_path_buf();
    // SAFETY: nothing writes the table while the benchmark runs.
    let table = unsafe { Table::map(&path) }.expect("map");
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
