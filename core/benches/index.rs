//! Index speed: `Indexer::index` and `Indexer::unindex` per call over random
//! positions of the moving phase, and the symmetry canonicalisation on its
//! own (the least of the 16 images, what the index's tables stand in for).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use moulin_core::index::Indexer;
use moulin_core::seeded::SplitMix64;
use moulin_core::Sector;
use moulin_core::{Node, Symmetries};

const COUNT: usize = 4096;

/// Random (sector, slot) pairs of the moving phase and the positions stored there.
fn samples() -> (Vec<(Sector, u64)>, Vec<Node>) {
    let ix = Indexer::get();
    let sectors = Sector::all(false);
    let mut rng = SplitMix64::new(0x9e37_79b9_7f4a_7c15);
    let mut slots = Vec::with_capacity(COUNT);
    let mut nodes = Vec::with_capacity(COUNT);
    let sym = Symmetries::get();
    let all: Vec<_> = Symmetries::all().collect();
    for _ in 0..COUNT {
        let sector = sectors[rng.below(sectors.len() as u64) as usize];
        let slot = rng.below(ix.slots(sector));
        slots.push((sector, slot));
        // A random member of the class, so `index` has to find the symmetry.
        let node = ix.unindex(sector, slot).unwrap();
        let s = all[rng.below(16) as usize];
        nodes.push(Node {
            us: sym.map(s, node.us),
            them: sym.map(s, node.them),
            ..node
        });
    }
    (slots, nodes)
}

fn index(c: &mut Criterion) {
    let ix = Indexer::get();
    let sym = Symmetries::get();
    let (slots, nodes) = samples();
    let mut group = c.benchmark_group("index");
    group.throughput(Throughput::Elements(COUNT as u64));
    group.bench_function("index", |b| {
        b.iter(|| {
            nodes
                .iter()
                .map(|n| ix.index(black_box(n)))
                .fold(0, u64::wrapping_add)
        })
    });
    group.bench_function("unindex", |b| {
        b.iter(|| {
            slots
                .iter()
                .map(|&(s, i)| ix.unindex(black_box(s), black_box(i)).unwrap().them)
                .fold(0, u32::wrapping_add)
        })
    });
    group.bench_function("canonicalise_16_images", |b| {
        b.iter(|| {
            nodes
                .iter()
                .map(|n| {
                    let n = black_box(n);
                    Symmetries::all()
                        .map(|s| (sym.map(s, n.us) as u64) << 24 | sym.map(s, n.them) as u64)
                        .min()
                        .unwrap()
                })
                .fold(0, u64::wrapping_add)
        })
    });
    group.bench_function("is_canonical", |b| {
        b.iter(|| {
            slots
                .iter()
                .filter(|&&(s, i)| ix.is_canonical(black_box(s), black_box(i)))
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, index);
criterion_main!(benches);
