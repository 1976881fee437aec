//! Perfect play under the no-capture rule: games from random moving-phase
//! positions of rule tables (`moulin solve --no-capture-limit N`), at a
//! random counter, where both sides follow `Tablebase::best_moves_counter`
//! at the running counter (0 after a capture, one more after any other
//! turn), picked at random among the equally good. Checks that the tables
//! keep their word:
//!
//! - a position valued `win d` (at its counter) goes, after a best move
//!   without capture, to `loss d - 1` for the other side at the next
//!   counter, and after a capture to a loss at counter 0; a loss the same
//!   way round; every won game ends in a win by the rules (the loser
//!   blocked or left with two stones) before the counter reaches `N`;
//! - a position valued as a draw (draw, cursed win or blessed loss at its
//!   counter) stays drawn: no best move leads to a win or a loss, and the
//!   game ends when the counter reaches `N` (or after `plies` plies).
//!
//! `cargo run --release --features studies --example rule_play -- DIR [games] [plies] [seed]`

use moulin_core::index::Indexer;
use moulin_core::seeded::SplitMix64;
use moulin_probe::{Position, RuleOutcome, Tablebase};

fn won(v: RuleOutcome) -> bool {
    matches!(v, RuleOutcome::Win(_))
}

fn lost(v: RuleOutcome) -> bool {
    matches!(v, RuleOutcome::Loss(_))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .ok_or("usage: rule_play <dir> [games] [plies] [seed]")?;
    let games: usize = args.get(1).map_or(Ok(500), |s| s.parse())?;
    let plies: usize = args.get(2).map_or(Ok(2000), |s| s.parse())?;
    let mut rng = SplitMix64::new(args.get(3).map_or(Ok(1), |s| s.parse())?);
    let tb = Tablebase::open(dir)?;
    let rules = tb.rules();
    let n = tb
        .no_capture_limit()
        .ok_or("these tables carry no no-capture rule (moulin solve --no-capture-limit N)")?;
    let sectors: Vec<_> = tb
        .sectors()
        .map(|(s, _)| s)
        .filter(|s| s.is_moving())
        .collect();
    if sectors.is_empty() {
        return Err("no moving-phase table".into());
    }
    let ix = Indexer::get();
    let (mut wins, mut draws, mut checked, mut captures) = (0u64, 0u64, 0u64, 0u64);
    let mut longest_win = 0;
    for game in 0..games {
        // A random canonical position of a random sector, not finished.
        let pos = loop {
            let sector = sectors[rng.index(sectors.len())];
            let slot = rng.below(ix.slots(sector));
            let Some(node) = ix.unindex(sector, slot) else {
                continue;
            };
            if ix.index(&node) == slot && !rules.is_lost(&node) {
                break Position::from_node(node, node.side_by_hands());
            }
        };
        let start = pos;
        let mut pos = pos;
        let mut counter = rng.below(n as u64) as u16;
        let start_counter = counter;
        let mut value = tb.probe_counter(&pos, counter)?;
        let start_value = value;
        let mut record = Vec::new();
        let fail = |what: String, record: &[String]| -> Box<dyn std::error::Error> {
            format!(
                "game {game} from {start} at counter {start_counter} ({start_value}): {} -> {what}",
                record.join(" ")
            )
            .into()
        };
        let end = loop {
            checked += 1;
            if rules.is_lost(&pos.node()) {
                if value != RuleOutcome::Loss(0) {
                    return Err(fail(format!("{pos} is lost but valued {value}"), &record));
                }
                break "won";
            }
            if record.len() >= plies {
                break "unfinished";
            }
            let best = tb.best_moves_counter(&pos, counter)?;
            let mv = best[rng.index(best.len())];
            record.push(mv.to_string());
            pos = rules.play(&pos, mv)?;
            if mv.remove.is_some() {
                captures += 1;
                counter = 0;
            } else {
                counter += 1;
            }
            if counter == n && !rules.is_lost(&pos.node()) {
                // The rule's draw: the counter ran out.
                if won(value) || lost(value) {
                    return Err(fail(
                        format!("the counter ran out, but the mover was valued {value}"),
                        &record,
                    ));
                }
                break "drawn by the rule";
            }
            let next = if rules.is_lost(&pos.node()) {
                RuleOutcome::Loss(0)
            } else {
                tb.probe_counter(&pos, counter)?
            };
            let kept = match value {
                RuleOutcome::Win(d) if mv.remove.is_none() => next == RuleOutcome::Loss(d - 1),
                RuleOutcome::Win(_) => lost(next),
                RuleOutcome::Loss(d) if mv.remove.is_none() => next == RuleOutcome::Win(d - 1),
                RuleOutcome::Loss(_) => won(next),
                _ => !won(next) && !lost(next),
            };
            if !kept {
                return Err(fail(
                    format!("a best move from {value} leads to {pos} at counter {counter}, valued {next}"),
                    &record,
                ));
            }
            value = next;
        };
        match end {
            "won" => {
                if !(won(start_value) || lost(start_value)) {
                    return Err(fail("a drawn game was won".into(), &record));
                }
                wins += 1;
                longest_win = longest_win.max(record.len());
            }
            _ => {
                if won(start_value) || lost(start_value) {
                    return Err(fail(format!("a won game ended {end}"), &record));
                }
                draws += 1;
            }
        }
        if game < 3 {
            println!(
                "game {game}: {start} at counter {start_counter}, {start_value}: {} plies, {end}",
                record.len()
            );
        }
    }
    println!(
        "no-capture limit {n}: {games} games from random positions and counters, {checked} positions checked, \
         {captures} captures: {wins} won games each ended by the rules before the counter ran out \
         (longest {longest_win} plies), {draws} drawn games stayed drawn"
    );
    Ok(())
}
