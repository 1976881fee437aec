//! `moulin solve`: solve sectors and write their tables, resumably.

use moulin::solve::{solve_moving, SolveOptions, SolveReport};
use moulin_probe::Rules;
use std::path::PathBuf;

/// Arguments of `moulin solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Solve the moving phase up to this many stones a side (3..=9). The
    /// default, 5, takes a few seconds on two cores.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(3..=9))]
    pub max_stones: u8,
    /// Solve the whole moving phase (same as `--max-stones 9`).
    #[arg(long, conflicts_with = "max_stones")]
    pub moving: bool,
    /// Also solve the placement sectors with at most `--max-stones` stones a
    /// side on the board and in hand.
    #[arg(long)]
    pub placement: bool,
    /// Solve the whole game, placement included (`--max-stones 9
    /// --placement`): about an hour on two cores; resumable, sector by sector.
    #[arg(long, conflicts_with_all = ["max_stones", "moving", "placement"])]
    pub all: bool,
    /// Directory of the tables (created if missing; finished tables are kept
    /// and skipped).
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Worker threads (default: one per core). The tables do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Rule option: a player with three stones moves like everyone else.
    #[arg(long)]
    pub no_flying: bool,
    /// Rule option: the game is drawn after this many turns in a row
    /// without a capture (docs/rules.md; 50 and 100 are usual). The tables then
    /// store win / cursed win / draw / blessed loss / loss with the distance
    /// to conversion, answering every counter. A directory holds tables of
    /// one rule set only.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=moulin_core::rules::MAX_NO_CAPTURE_LIMIT as i64))]
    pub no_capture_limit: Option<u16>,
    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write no WDL tables (`<sector>.mtw`, outcomes only, two bits a slot,
    /// read by `moulin prove`); by default each table gets one, and a rerun
    /// adds those missing. Tables under the no-capture rule get none.
    #[arg(long)]
    pub no_wdl: bool,
    /// Memory budget: `12G`, `8192M`, `unlimited` (binary units). Finished
    /// sectors kept for later items are dropped, and read again from disk,
    /// whenever the next item would not fit beside them; an item whose own
    /// arrays and reads exceed the budget still runs (`docs/solving.md`,
    /// "The memory budget").
    #[arg(long, default_value = "8G", value_parser = parse_memory)]
    pub memory: Memory,
}

/// A memory budget in bytes, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory(pub Option<u64>);

/// Parses `12G`, `512M`, `1048576`, `unlimited`.
pub fn parse_memory(text: &str) -> Result<Memory, String> {
    if text.eq_ignore_ascii_case("unlimited") {
        return Ok(Memory(None));
    }
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown unit `{c}` in `{text}` (K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size like 12G, 8192M or unlimited"))?;
    n.checked_mul(1 << shift)
        .filter(|&b| b > 0)
        .map(|b| Memory(Some(b)))
        .ok_or_else(|| format!("`{text}` is not a usable size"))
}

/// Runs `moulin solve`.
pub fn run(args: &Args) -> super::Outcome {
    let options = SolveOptions {
        dir: args.dir.clone(),
        max_stones: if args.moving || args.all {
            9
        } else {
            args.max_stones
        },
        placement: args.placement || args.all,
        rules: Rules {
            flying: !args.no_flying,
            no_capture_limit: args.no_capture_limit,
        },
        threads: args.threads,
        progress: !args.quiet,
        memory: args.memory.0,
        wdl: !args.no_wdl,
    };
    let report = solve_moving(&options)?;
    print_report(&report);
    print_resources(&args.dir);
    Ok(true)
}

/// The run's CPU time and peak memory (this process) and the directory's
/// tables on disk: what `scripts/full-solve.sh` records with `/usr/bin/time`.
fn print_resources(dir: &std::path::Path) {
    let (mut bytes, mut tables, mut wdl_bytes, mut wdl_tables) = (0u64, 0, 0u64, 0);
    for item in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = item.path();
        let len = item.metadata().map_or(0, |m| m.len());
        match path.extension().and_then(|e| e.to_str()) {
            Some(moulin_core::table::EXTENSION) => (bytes, tables) = (bytes + len, tables + 1),
            Some(moulin_core::table::WDL_EXTENSION) => {
                (wdl_bytes, wdl_tables) = (wdl_bytes + len, wdl_tables + 1)
            }
            _ => {}
        }
    }
    if let Some((user, sys, max_rss)) = moulin::solve::record::cpu_usage() {
        // The kernel's high-water mark of this program (`VmHWM`), which an
        // exec starts afresh; `ru_maxrss` carries the parent's peak over
        // when that was larger.
        let peak_kib = moulin::solve::memory::resident_kib().map_or(max_rss, |(_, peak)| peak);
        println!(
            "cpu: user {user:.1} s, sys {sys:.1} s; peak memory {:.1} MiB ({peak_kib} KiB)",
            peak_kib as f64 / 1024.0
        );
    }
    println!(
        "disk: {bytes} bytes in {tables} tables in {}",
        dir.display()
    );
    if wdl_tables > 0 {
        println!("wdl: {wdl_bytes} bytes in {wdl_tables} WDL tables");
    }
}

fn print_report(report: &SolveReport) {
    println!(
        "{:>8} {:>13} {:>13} {:>13} {:>13} {:>8} {:>8} {:>9}",
        "sector", "classes", "wins", "losses", "draws", "max win", "max loss", "time"
    );
    let mut totals = [0u64; 4];
    let mut longest = 0u16;
    for s in &report.sectors {
        let sum = &s.summary;
        let c = sum.classes;
        totals[0] += c.total();
        totals[1] += c.win;
        totals[2] += c.loss;
        totals[3] += c.draw;
        longest = longest.max(sum.max_win.unwrap_or(0));
        let dist = |d: Option<u16>| d.map_or("-".to_string(), |d| d.to_string());
        let time = if s.solved_now {
            format!("{:.1}s", s.time.as_secs_f64())
        } else {
            "on disk".into()
        };
        println!(
            "{:>8} {:>13} {:>13} {:>13} {:>13} {:>8} {:>8} {:>9}",
            sum.sector.name(),
            c.total(),
            c.win,
            c.loss,
            c.draw,
            dist(sum.max_win),
            dist(sum.max_loss),
            time
        );
    }
    let secs = report.time.as_secs_f64();
    let solved = report.slots_solved();
    println!(
        "{:>8} {:>13} {:>13} {:>13} {:>13} {:>8}",
        "total", totals[0], totals[1], totals[2], totals[3], longest
    );
    println!(
        "solved {solved} slots in {secs:.1}s ({:.0} positions/s); {} sectors, {} already on disk",
        solved as f64 / secs.max(1e-9),
        report.sectors.len(),
        report.sectors.iter().filter(|s| !s.solved_now).count()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_parse_in_binary_units() {
        assert_eq!(parse_memory("12G"), Ok(Memory(Some(12 << 30))));
        assert_eq!(parse_memory("512m"), Ok(Memory(Some(512 << 20))));
        assert_eq!(parse_memory("4096"), Ok(Memory(Some(4096))));
        assert_eq!(parse_memory("unlimited"), Ok(Memory(None)));
        for bad in ["", "G", "12X", "-1G", "0", "99999999999T", "1.5G"] {
            assert!(parse_memory(bad).is_err(), "{bad}");
        }
    }
}
