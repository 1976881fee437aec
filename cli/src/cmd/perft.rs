//! `moulin perft`: the number of move paths of a given length (see
//! `moulin::perft` for what is counted when a game ends on the way).

use super::moves::write_stdout;
use moulin::perft;
use moulin_probe::{Position, Rules};
use std::time::Instant;

/// Arguments of `moulin perft`.
#[derive(clap::Args)]
pub struct Args {
    /// Number of turns of each path. A path that reaches a finished game
    /// stops there and is not counted at greater depths.
    pub depth: u32,
    /// The position to start from (default: the start, `W: B: w 9 9`).
    pub position: Option<String>,
    /// Play without the flying rule.
    #[arg(long)]
    pub no_flying: bool,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Print the count below each legal turn before the total.
    #[arg(long)]
    pub divide: bool,
}

/// Runs `moulin perft`: prints the count on standard output, the time taken
/// on standard error.
pub fn run(args: &Args) -> super::Outcome {
    let pos = match &args.position {
        Some(text) => super::parse_position(text)?,
        None => Position::start(),
    };
    if args.threads == Some(0) {
        return Err(super::InputError("--threads must be at least 1".into()).into());
    }
    let rules = Rules::with_flying(!args.no_flying);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let started = Instant::now();
    let total = pool.install(|| -> std::io::Result<u64> {
        if args.divide {
            let parts = perft::perft_divide(&rules, &pos, args.depth);
            let mut out = String::new();
            for (mv, n) in &parts {
                out.push_str(&format!("{mv} {n}\n"));
            }
            write_stdout(&out)?;
            Ok(if args.depth == 0 {
                1
            } else {
                parts.iter().map(|(_, n)| n).sum()
            })
        } else {
            Ok(perft::perft(&rules, &pos, args.depth))
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    write_stdout(&format!("{total}\n"))?;
    eprintln!(
        "perft {} in {seconds:.3} s ({:.1} M paths/s, {} threads)",
        args.depth,
        total as f64 / seconds.max(1e-9) / 1e6,
        pool.current_num_threads()
    );
    Ok(true)
}
