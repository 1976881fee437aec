//! Looks for losing placements early in the game (Gasser found a losing
//! third placement by White): every distinct position after `plies`
//! placements from the start (no capture is possible before the fifth), each
//! move valued by `moulin::prove` over the tables of `dir`, until `budget`
//! seconds have passed or `wanted` positions with a losing move were found.
//!
//! `cargo run --release --features studies --example early_losses -- data/tables 4 600 3`

use moulin::prove::{Prover, Wdl};
use moulin_core::index::Indexer;
use moulin_probe::{Position, Rules, Sector, Side, Tablebase};
use std::collections::BTreeSet;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .ok_or("usage: early_losses <dir> [plies] [budget s] [wanted]")?;
    let plies: usize = args.get(1).map_or(Ok(4), |s| s.parse())?;
    let budget: f64 = args.get(2).map_or(Ok(600.0), |s| s.parse())?;
    let wanted: usize = args.get(3).map_or(Ok(3), |s| s.parse())?;
    let tb = Tablebase::open(dir)?.with_cache_bytes(8 << 30);
    let prover = Prover::new(&tb, 2 << 30);
    let rules = tb.rules();

    // Distinct positions after `plies` placements, by symmetry class.
    let ix = Indexer::get();
    let mut layer = vec![Position::start().node()];
    for _ in 0..plies {
        let mut seen = BTreeSet::new();
        let mut next = Vec::new();
        for node in &layer {
            Rules::for_each_move(&rules, node, |_, n| {
                if seen.insert((Sector::of(&n), ix.index(&n))) {
                    next.push(n);
                }
            });
        }
        layer = next;
    }
    let side = if plies.is_multiple_of(2) {
        Side::White
    } else {
        Side::Black
    };
    println!(
        "{} distinct positions after {plies} placements",
        layer.len()
    );
    let start = Instant::now();
    let (mut examined, mut found) = (0, 0);
    for node in &layer {
        if start.elapsed().as_secs_f64() > budget || found >= wanted {
            break;
        }
        let values = prover.move_values(node)?;
        examined += 1;
        let losing: Vec<String> = values
            .iter()
            .filter(|(_, v)| *v == Wdl::Loss)
            .map(|(m, _)| m.to_string())
            .collect();
        let best = values.iter().map(|(_, v)| *v).max().unwrap_or(Wdl::Loss);
        if !losing.is_empty() {
            found += 1;
            let pos = Position::from_node(*node, side);
            println!(
                "{pos}: {} for the mover; losing moves: {}",
                best.word(),
                losing.join(" ")
            );
        }
    }
    println!(
        "{examined} positions examined in {:.0} s, {found} with a losing move; {:?}",
        start.elapsed().as_secs_f64(),
        prover.stats()
    );
    Ok(())
}
