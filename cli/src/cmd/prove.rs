//! `moulin prove`: the value of a position with stones in hand (by default
//! the start of the game) by alpha-beta search over the placement phase,
//! reading only the tables it reaches, typically the moving-phase ones
//! (see `moulin::prove`).

use anyhow::Context;
use moulin::prove::{Prover, Wdl};
use moulin_probe::{Position, Rules, Side, Tablebase};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `moulin prove`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions with stones in hand (or any whose sector has a table),
    /// answered in order; the transposition table serves them all.
    #[arg(default_value = "W: B: w 9 9")]
    pub positions: Vec<String>,
    /// Directory of the tables (the moving phase must be complete up to the
    /// stones the position can still bring onto the board). Its WDL tables
    /// (`*.mtw`) are read when it holds any, else its tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Read the distance tables (`*.mtb`) even where WDL tables are present.
    #[arg(long)]
    pub no_wdl: bool,
    /// Also value every legal move (distinct ones searched in parallel).
    #[arg(long)]
    pub moves: bool,
    /// Memory of the transposition table, in MiB. Larger is not faster
    /// here: the start took 32.8 s of wall time with 128 MiB, 32.4 s with
    /// 256 and 33.6 s with 512 (cache misses; the positions searched
    /// barely change).
    #[arg(long, default_value_t = 256)]
    pub tt_mib: usize,
    /// Memory for decoded table blocks, in MiB (taken as blocks are read;
    /// the start over the WDL tables used about 1 GB in all).
    #[arg(long, default_value_t = 4096)]
    pub cache_mib: usize,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Stones a side of the game the position belongs to: below 9, a
    /// reduced game (as in `W: B: w 6 6`), for comparisons and timings;
    /// positions are then accepted with up to 9 - N stones fewer than
    /// captures explain.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u8).range(3..=9))]
    pub stones: u8,
    /// Insist on the rules without flying (by default those of the tables).
    #[arg(long)]
    pub no_flying: bool,
    /// Print one JSON object per position: `position`, `outcome`, `moves` (`move`,
    /// `outcome`), `searched`, `table_reads`, `tables` (`wdl` or `distance`),
    /// `seconds`.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct JsonAnswer {
    position: String,
    outcome: &'static str,
    moves: Vec<JsonMove>,
    searched: u64,
    table_reads: u64,
    tables: &'static str,
    seconds: f64,
}

#[derive(Serialize)]
struct JsonMove {
    r#move: String,
    outcome: &'static str,
}

/// Runs `moulin prove`.
pub fn run(args: &Args) -> super::Outcome {
    let positions = args
        .positions
        .iter()
        .map(|text| parse(text, args.stones))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let cannot = || format!("cannot open the tables in {}", args.dir.display());
    let wdl = if args.no_wdl {
        None
    } else {
        Some(Tablebase::open_wdl(&args.dir).with_context(cannot)?)
            .filter(|tb| tb.sectors().next().is_some())
    };
    let mut tb = match wdl {
        Some(tb) => tb,
        None => Tablebase::open(&args.dir).with_context(cannot)?,
    }
    .with_cache_bytes(args.cache_mib << 20);
    let kind = if tb.is_wdl() { "wdl" } else { "distance" };
    super::no_rule_tables(&tb, "prove")?;
    if args.no_flying {
        let rules = Rules {
            flying: false,
            ..tb.rules()
        };
        tb = tb.with_rules(rules)?;
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("starting the worker threads")?;
    let prover = Prover::new(&tb, args.tt_mib << 20);
    for position in positions {
        let before = prover.stats();
        let start = Instant::now();
        let missing = |e| {
            anyhow::Error::from(e).context(format!(
                "the search needs tables that {} does not hold",
                args.dir.display()
            ))
        };
        let (outcome, moves) = pool.install(|| -> anyhow::Result<(Wdl, Vec<_>)> {
            if args.moves {
                let moves = prover.move_values(&position.node()).map_err(missing)?;
                let best = moves.iter().map(|(_, v)| *v).max();
                // No move: the game is over, and lost for the player to move.
                Ok((best.unwrap_or(Wdl::Loss), moves))
            } else {
                Ok((prover.value(&position.node()).map_err(missing)?, Vec::new()))
            }
        })?;
        let seconds = start.elapsed().as_secs_f64();
        let after = prover.stats();
        let (searched, reads) = (after.nodes - before.nodes, after.leaves - before.leaves);
        if args.json {
            let answer = JsonAnswer {
                position: position.to_string(),
                outcome: outcome.word(),
                moves: moves
                    .iter()
                    .map(|(m, v)| JsonMove {
                        r#move: m.to_string(),
                        outcome: v.word(),
                    })
                    .collect(),
                searched,
                table_reads: reads,
                tables: kind,
                seconds,
            };
            println!("{}", serde_json::to_string(&answer)?);
        } else {
            let side = match position.side {
                Side::White => "White",
                Side::Black => "Black",
            };
            println!("{position}");
            println!("  outcome: {} for {side}, to move", outcome.word());
            for (m, v) in &moves {
                println!("    {:<10} {}", m.to_string(), v.word());
            }
            let kind = if tb.is_wdl() { "WDL " } else { "" };
            println!(
                "  proved by alpha-beta: {searched} positions searched, {reads} {kind}table reads, {seconds:.1} s"
            );
        }
    }
    Ok(true)
}

/// Parses a position of the game with `stones` stones a side.
fn parse(text: &str, stones: u8) -> anyhow::Result<Position> {
    let invalid = |e| super::InputError(format!("invalid position `{text}`: {e}"));
    let position = Position::parse_unvalidated(text).map_err(invalid)?;
    let reduced = Position {
        white_hand: position.white_hand + (9 - stones),
        black_hand: position.black_hand + (9 - stones),
        ..position
    };
    // In the reduced game, stones a side are 9 - N fewer: a position is
    // checked as the full game's one with them still in hand (captures and
    // placements made are the same). Without stones in hand it is checked
    // as it stands.
    let check = if position.white_hand + position.black_hand > 0 {
        reduced
    } else {
        position
    };
    check.validate().map_err(invalid)?;
    Ok(position)
}
