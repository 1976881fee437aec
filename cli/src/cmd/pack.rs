//! `moulin pack`: write a play set (`moulin_core::play`) from a directory
//! of distance tables, or check one against them (`moulin::pack`): the
//! arguments, the progress and the lines printed.

use moulin::pack::{LeaveOut, PackEvent, PackOptions};
use moulin_core::index::{MOVER_MAJOR, OPPONENT_MAJOR};
use moulin_core::table::PlaySide;
use moulin_probe::{Sector, Tablebase};
use std::path::PathBuf;

/// Arguments of `moulin pack`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of the distance tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Directory of the play set (made if missing; not `--dir`).
    #[arg(long)]
    pub out: PathBuf,
    /// zstd level (1..=22).
    #[arg(long, default_value_t = 19, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// Only these sectors (default: every table of the directory).
    #[arg(long = "sector", value_name = "SECTOR")]
    pub sectors: Vec<String>,
    /// Which side's distances to store: `losses` (the default: fewer
    /// positions, smaller tables) or `wins`, the other side's rebuilt by
    /// one ply; or `both`, nothing rebuilt in a sector (a larger set whose
    /// probes read two tables), which `--leave-out` needs.
    #[arg(long, default_value = "losses", value_parser = parse_side)]
    pub side: PlaySide,
    /// Sectors to leave out, each position of them rebuilt by one ply over
    /// the sectors its turns lead into (with `--side both`):
    /// `black-placement`, the placement sectors with Black to move whose
    /// turns all lead into sectors packed here (under the 50-turn rule the
    /// whole game takes 3.15 GB instead of 3.24; a cold probe of a sector
    /// left out reads a block per move, a sector kept two blocks).
    #[arg(long, value_name = "SECTORS", value_parser = ["black-placement"])]
    pub leave_out: Option<String>,
    /// Decompressed KiB of an outcome table's block (1..=256), and so of
    /// the distance table's. A probe of the side not stored reads an
    /// outcome per move, so a cold probe decodes one block per move: small
    /// blocks keep it near a table's cold probe (4 KiB: 16,384 slots),
    /// large ones compress better (16 KiB: about 6 % smaller, a cold probe
    /// of a rebuilt position three times slower).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub outcome_block_kib: u32,
    /// How the slots of the play set's tables are numbered:
    /// `opponent-major` (the default), as the tables, or `mover-major`
    /// (index scheme 1): every quiet move of a position then leads into one
    /// orbit's slots, so a probe that values a position by one ply decodes
    /// fewer blocks (a cold probe during placement about a fifth faster),
    /// but a one-sided set's distances compress worse (about 8 % larger)
    /// and the pack takes about 1.7 times as long.
    #[arg(long, default_value = "opponent-major", value_parser = parse_numbering)]
    pub numbering: u8,
    /// Threads compressing (default: the number of cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar and no line per sector, only the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write nothing: compare every slot of the play set in `--out` with
    /// the tables, each value rebuilt as a probe rebuilds it.
    #[arg(long)]
    pub check: bool,
    /// With `--check`: instead of every slot, this many random positions
    /// (every sector chosen, by its share of the slots), each probed on
    /// both for its value and every move's value.
    #[arg(long, value_name = "POSITIONS", requires = "check")]
    pub sample: Option<u64>,
    /// With `--sample`: the seed of the random positions.
    #[arg(long, default_value_t = 1, requires = "sample")]
    pub seed: u64,
    /// With `--check`: append each sector's line to this file as soon as
    /// it is compared, and skip the sectors the file already says agree
    /// (a check that takes more than one sitting: run it again with the
    /// same file; a sector that differs or could not be checked is
    /// checked again).
    #[arg(
        long,
        value_name = "FILE",
        requires = "check",
        conflicts_with = "sample"
    )]
    pub log: Option<PathBuf>,
}

fn parse_numbering(text: &str) -> Result<u8, String> {
    match text {
        "mover-major" => Ok(MOVER_MAJOR),
        "opponent-major" => Ok(OPPONENT_MAJOR),
        _ => Err(format!(
            "`{text}` is not a numbering: `mover-major` or `opponent-major`"
        )),
    }
}

fn parse_side(text: &str) -> Result<PlaySide, String> {
    match text {
        "wins" => Ok(PlaySide::Wins),
        "losses" => Ok(PlaySide::Losses),
        "both" => Ok(PlaySide::Both),
        _ => Err(format!(
            "`{text}` is not a side: `wins`, `losses` or `both`"
        )),
    }
}

/// Runs `moulin pack`.
pub fn run(args: &Args) -> super::Outcome {
    let tb = moulin::pack::open_tables(&args.dir, &args.out)?;
    let sectors = super::chosen_sectors(&tb, &args.sectors)?;
    match (args.check, args.sample) {
        (true, Some(n)) => return check_sample(&tb, &sectors, n, args),
        (true, None) => return check(&tb, &sectors, args),
        _ => {}
    }
    let options = PackOptions {
        out: args.out.clone(),
        level: args.level,
        side: args.side,
        leave_out: args.leave_out.as_ref().map(|_| LeaveOut::BlackPlacement),
        outcome_block_kib: args.outcome_block_kib,
        numbering: args.numbering,
        threads: args.threads,
    };
    let bar = super::sector_bar(0, args.quiet);
    let report = moulin::pack::pack(&tb, sectors, &options, &|event| match event {
        PackEvent::Slots(n) => bar.set_length(n),
        PackEvent::Kept { slots, .. } => bar.inc(slots),
        PackEvent::Packing(sector) => bar.set_message(sector.name()),
        PackEvent::Packed(p) => {
            if let Some(why) = &p.unrecorded {
                eprintln!("moulin: {why}");
            }
            if !args.quiet {
                let line = format!(
                    "{}: {} -> {} + {} bytes ({}: {:.2} bits each at order 0, {:.2} after the \
                     one before) in {:.1} s",
                    p.sector,
                    p.table_bytes,
                    p.outcome_bytes,
                    p.distance_bytes,
                    p.side.word(),
                    p.order0_bits,
                    p.order1_bits,
                    p.seconds,
                );
                bar.suspend(|| println!("{line}"));
            }
            bar.inc(p.slots);
        }
    })?;
    bar.finish_and_clear();
    let out_of = match report.left_out {
        0 => String::new(),
        n => format!(", {n} left out"),
    };
    println!(
        "{} sectors packed, {} already there{out_of}; {} bytes of tables -> {} \
         bytes of play set ({:.1}%) in {}; {:.1} s",
        report.packed,
        report.kept,
        report.table_bytes,
        report.play_bytes,
        100.0 * report.play_bytes as f64 / report.table_bytes.max(1) as f64,
        args.out.display(),
        report.time.as_secs_f64()
    );
    Ok(true)
}

/// `moulin pack --check`: every slot of the play set against the tables.
fn check(tb: &Tablebase, sectors: &[Sector], args: &Args) -> super::Outcome {
    let log = args.log.as_deref();
    let report = moulin::pack::check(tb, &args.out, sectors, args.threads, log, &mut |c| {
        if !c.passed() || !args.quiet {
            println!("{}", c.line());
        }
    })?;
    let skipped = match &args.log {
        Some(path) => format!(
            ", {} skipped as agreeing in {}",
            report.skipped,
            path.display()
        ),
        None => String::new(),
    };
    println!(
        "{} sectors, {} slots compared: {} differ{skipped}; {:.1} s",
        report.sectors,
        report.slots,
        report.differ,
        report.time.as_secs_f64()
    );
    Ok(report.differ == 0)
}

/// `moulin pack --check --sample N`: `N` random positions probed on the
/// tables and on the play set, their values and every move's value.
fn check_sample(tb: &Tablebase, sectors: &[Sector], n: u64, args: &Args) -> super::Outcome {
    let report = moulin::pack::check_sample(tb, &args.out, sectors, n, args.seed, args.threads)?;
    for line in report.differ.iter().take(10) {
        println!("{line}");
    }
    println!(
        "{} random positions of {} sectors probed with every move: {} differ; {:.1} s",
        report.positions,
        report.sectors,
        report.differ.len(),
        report.time.as_secs_f64()
    );
    Ok(report.differ.is_empty())
}
