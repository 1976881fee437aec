//! Probes per second from Rust, the figure beside those of C
//! (`examples/bench.c`) and Python (`bindings/python/examples/bench.py`):
//!
//!   cargo run --release -p moulin-c --example bench -- DIR POSITIONS [N]
//!
//! writes N (default 100,000) random positions with 3 to 5 stones a side to
//! the file POSITIONS if it does not exist, then probes them all once to
//! warm the cache and times a second pass: text parsed and probed (what the
//! C and Python calls do), and probes of positions parsed beforehand.

use moulin_probe::{Position, Side, Tablebase};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, file, rest @ ..] = args.as_slice() else {
        return Err("usage: bench DIR POSITIONS [N]".into());
    };
    let n: usize = rest.first().map_or(Ok(100_000), |s| s.parse())?;
    if !std::path::Path::new(file).exists() {
        std::fs::write(file, random_positions(n))?;
    }
    let texts: Vec<String> = std::fs::read_to_string(file)?
        .lines()
        .map(String::from)
        .collect();
    let tb = Tablebase::open(dir)?;
    let mut checksum = 0u64;
    for text in &texts {
        checksum += tb.probe(&text.parse()?)?.code().unwrap_or(u16::MAX) as u64;
    }
    let start = Instant::now();
    for text in &texts {
        checksum += tb.probe(&text.parse()?)?.code().unwrap_or(u16::MAX) as u64;
    }
    let parsed_and_probed = start.elapsed().as_secs_f64();
    let positions: Vec<Position> = texts.iter().map(|t| t.parse()).collect::<Result<_, _>>()?;
    let start = Instant::now();
    for p in &positions {
        checksum += tb.probe(p)?.code().unwrap_or(u16::MAX) as u64;
    }
    let probed = start.elapsed().as_secs_f64();
    let count = texts.len() as f64;
    println!(
        "rust: {} positions, text parsed and probed: {:.0} probes/s; pre-parsed: {:.0} probes/s (checksum {checksum})",
        texts.len(),
        count / parsed_and_probed,
        count / probed
    );
    Ok(())
}

/// Random moving-phase positions, 3 to 5 stones a side, either side to move.
fn random_positions(n: usize) -> String {
    let mut rng = moulin_core::seeded::SplitMix64::new(0x5EED);
    let mut next = move || rng.next_u64();
    let mut out = String::new();
    for _ in 0..n {
        let (w, b, side) = (3 + next() % 3, 3 + next() % 3, next() % 2);
        let mut stones = |count: u64, taken: u32| {
            let mut set = 0u32;
            while u64::from(set.count_ones()) < count {
                let p = 1 << (next() % 24);
                if (set | taken) & p == 0 {
                    set |= p;
                }
            }
            set
        };
        let white = stones(w, 0);
        let black = stones(b, white);
        let side = if side == 0 { Side::White } else { Side::Black };
        let pos = Position {
            white,
            black,
            white_hand: 0,
            black_hand: 0,
            side,
        };
        out.push_str(&format!("{pos}\n"));
    }
    out
}
