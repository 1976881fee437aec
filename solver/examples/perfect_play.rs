//! Plays games from the start with `Tablebase::best_moves` and checks that
//! the tables keep their word, from the first placement to the end:
//!
//! - `games` games start with `random` random plies (placements, captures,
//!   anything legal), then both sides play best moves only, picked at random
//!   among the equally good, for at most `plies` more plies;
//! - every position's stored outcome must follow from the previous one: a
//!   draw stays a draw, a win in `n` becomes a loss in `n - 1` for the other
//!   side, and a loss in 0 is exactly a position where the mover has lost by
//!   the rules (fewer than three stones, or no move).
//!
//! `cargo run --release --features studies --example perfect_play -- data/tables 200 12 400 1`

use moulin_core::seeded::SplitMix64;
use moulin_probe::{Outcome, Position, Tablebase};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .ok_or("usage: perfect_play <dir> [games] [random plies] [plies] [seed]")?;
    let games: usize = args.get(1).map_or(Ok(200), |s| s.parse())?;
    let random: usize = args.get(2).map_or(Ok(12), |s| s.parse())?;
    let plies: usize = args.get(3).map_or(Ok(400), |s| s.parse())?;
    let mut rng = SplitMix64::new(args.get(4).map_or(Ok(1), |s| s.parse())?);
    let tb = Tablebase::open(dir)?;
    let rules = tb.rules();
    let (mut ended, mut drawn, mut checked) = (0, 0, 0u64);
    let mut longest = 0;
    for game in 0..games {
        let mut pos = Position::start();
        let mut record = Vec::new();
        for _ in 0..random {
            let moves = rules.legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.index(moves.len())];
            record.push(mv.to_string());
            pos = rules.play(&pos, mv)?;
        }
        let mut value = tb.probe(&pos)?;
        for _ in 0..plies {
            checked += 1;
            let best = tb.best_moves(&pos)?;
            let lost = rules.is_lost(&pos.node()) || rules.legal_moves(&pos).is_empty();
            if lost != (value == Outcome::Loss(0)) || lost != best.is_empty() {
                return Err(format!(
                    "game {game} ({}): {pos} is stored as {value}, lost by the rules: {lost}, {} best moves",
                    record.join(" "),
                    best.len()
                )
                .into());
            }
            if lost {
                break;
            }
            let mv = best[rng.index(best.len())];
            record.push(mv.to_string());
            pos = rules.play(&pos, mv)?;
            let next = tb.probe(&pos)?;
            let expected = match value {
                Outcome::Draw => Outcome::Draw,
                Outcome::Win(n) => Outcome::Loss(n - 1),
                Outcome::Loss(n) => Outcome::Win(n - 1),
            };
            if next != expected {
                return Err(format!(
                    "game {game} ({}): a best move from a position stored as {value} leads to {pos}, stored as {next}",
                    record.join(" ")
                )
                .into());
            }
            value = next;
        }
        if value == Outcome::Loss(0) {
            ended += 1;
            longest = longest.max(record.len());
        } else if value == Outcome::Draw {
            drawn += 1;
        }
        if game < 3 {
            println!(
                "game {game}: {} -> {value} for the mover of {pos}",
                record.join(" ")
            );
        }
    }
    println!(
        "{games} games, {checked} positions checked: {ended} played out to the end (longest {longest} plies), {drawn} still drawn after {plies} best plies"
    );
    Ok(())
}
