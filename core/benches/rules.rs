//! Move generation speed: `Rules::for_each_move` over fixed sets of random
//! positions of each phase, reported as moves generated per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use moulin_core::seeded::SplitMix64;
use moulin_core::Node;
use moulin_core::{Position, Rules, Side};

/// `k` distinct points outside `taken`.
fn points(rng: &mut SplitMix64, k: u32, taken: u32) -> u32 {
    let mut set = 0u32;
    while set.count_ones() < k {
        let p = rng.below(24) as u32;
        if (taken | set) & 1 << p == 0 {
            set |= 1 << p;
        }
    }
    set
}

/// `count` valid positions whose stone counts `shape` draws.
fn positions(
    seed: u64,
    count: usize,
    mut shape: impl FnMut(&mut SplitMix64) -> (u32, u32, u8),
) -> Vec<Node> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let (us, them, hand) = shape(&mut rng);
        let white = points(&mut rng, us, 0);
        let black = points(&mut rng, them, white);
        let pos = Position {
            white,
            black,
            white_hand: hand,
            black_hand: hand,
            side: Side::White,
        };
        if pos.validate().is_ok() {
            out.push(pos.node());
        }
    }
    out
}

fn phases() -> Vec<(&'static str, Vec<Node>)> {
    vec![
        (
            "placement",
            positions(1, 1000, |r| {
                let hand = 1 + r.below(8) as u8;
                let placed = 9 - hand as u32;
                (placed - r.below(2) as u32, placed - r.below(2) as u32, hand)
            }),
        ),
        (
            "moving",
            positions(2, 1000, |r| {
                (4 + r.below(6) as u32, 4 + r.below(6) as u32, 0)
            }),
        ),
        (
            "flying",
            positions(3, 1000, |r| (3, 3 + r.below(7) as u32, 0)),
        ),
    ]
}

fn generation(c: &mut Criterion) {
    let rules = Rules::default();
    let mut group = c.benchmark_group("for_each_move");
    for (name, nodes) in phases() {
        let mut moves = 0u64;
        for node in &nodes {
            rules.for_each_move(node, |_, _| moves += 1);
        }
        group.throughput(Throughput::Elements(moves));
        group.bench_function(name, |bench| {
            bench.iter(|| {
                let mut sum = 0u32;
                for node in &nodes {
                    rules.for_each_move(black_box(node), |_, next| sum = sum.wrapping_add(next.us));
                }
                sum
            })
        });
    }
    group.finish();
}

criterion_group!(benches, generation);
criterion_main!(benches);
