//! Cross-checks the placement tables against the alpha-beta search: random
//! positions of every placement sector of `full` (at most `max_hand` stones
//! in hand in all) are valued twice, from their own table and by
//! `moulin::prove` over the tables of `moving`, a directory that holds only
//! the moving-phase tables. The two routes share the rules, the index and
//! the moving-phase tables, but nothing of the placement pass. Exit code 1
//! on any disagreement. Sectors go by stones in hand, fewest first, until
//! `budget` seconds have passed.
//!
//! `cargo run --release --features studies --example placement_vs_prove -- data/tables data/moving-only 20 18 2 600`

use moulin::prove::{Prover, Wdl};
use moulin_core::index::Indexer;
use moulin_core::seeded::SplitMix64;
use moulin_core::value::HOLE;
use moulin_probe::{Outcome, Position, Tablebase};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: placement_vs_prove <full dir> <moving-only dir> [per sector] [max hand] [seed]";
    let full = args.first().ok_or(usage)?;
    let moving = args.get(1).ok_or(usage)?;
    let per_sector: u64 = args.get(2).map_or(Ok(20), |s| s.parse())?;
    let max_hand: u8 = args.get(3).map_or(Ok(6), |s| s.parse())?;
    let mut rng = SplitMix64::new(args.get(4).map_or(Ok(1), |s| s.parse())?);
    let budget: f64 = args.get(5).map_or(Ok(f64::INFINITY), |s| s.parse())?;

    let full = Tablebase::open(full)?;
    let moving = Tablebase::open(moving)?.with_cache_bytes(8 << 30);
    if let Some((sector, _)) = moving.sectors().find(|(s, _)| !s.is_moving()) {
        return Err(format!("{} holds placement table {sector}", moving.dir().display()).into());
    }
    let prover = Prover::new(&moving, 2 << 30);
    let ix = Indexer::get();
    let start = Instant::now();
    let (mut checked, mut sectors, mut disagree) = (0u64, 0, 0);
    let mut placement: Vec<_> = full
        .sectors()
        .map(|(s, _)| s)
        .filter(|s| !s.is_moving() && s.hand_total() <= max_hand)
        .collect();
    // Fewest stones in hand first: the deeper searches come last.
    placement.sort_by_key(|s| s.hand_total());
    for sector in placement {
        if start.elapsed().as_secs_f64() > budget {
            println!("time budget of {budget} s spent: stopped before {sector}");
            break;
        }
        let slots = ix.slots(sector);
        let mut tally = [0u64; 3];
        let mut tries = 0;
        let mut found = 0;
        while found < per_sector && tries < 50 * per_sector {
            tries += 1;
            let slot = rng.below(slots);
            let code = full.code(sector, slot)?;
            if code == HOLE {
                continue;
            }
            found += 1;
            let node = ix.unindex(sector, slot).ok_or("slot past the end")?;
            let table = match Outcome::from_code(code).ok_or("bad code")? {
                Outcome::Win(_) => Wdl::Win,
                Outcome::Loss(_) => Wdl::Loss,
                Outcome::Draw => Wdl::Draw,
            };
            let searched = prover.value(&node)?;
            tally[searched as usize] += 1;
            if searched != table {
                disagree += 1;
                println!(
                    "DISAGREE {sector} slot {slot} ({}): table {}, search {}",
                    Position::from_node(node, node.side_by_hands()),
                    table.word(),
                    searched.word()
                );
            }
        }
        checked += found;
        sectors += 1;
        println!(
            "{sector:>10}: {found} positions, search says {} loss {} draw {} win",
            tally[0], tally[1], tally[2]
        );
    }
    println!(
        "{checked} positions of {sectors} placement sectors (at most {max_hand} in hand) in {:.0} s: {disagree} disagreements; {:?}",
        start.elapsed().as_secs_f64(),
        prover.stats()
    );
    if disagree > 0 {
        std::process::exit(1);
    }
    Ok(())
}
