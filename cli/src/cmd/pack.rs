//! `moulin pack`: write a play set (`moulin_core::play`) from a directory
//! of distance tables: per sector an outcome table (`.mtw`) and the
//! distances of one side or of both (`.mtd`; with both, `--leave-out` may
//! leave sectors without files), each read back against its source before it
//! replaces anything. A sector whose two files are already there and match
//! its table is skipped, so an interrupted run resumes. Each sector written
//! appends a line to `pack-record.jsonl` in the play set: its bytes beside
//! the full table's, and the empirical entropy of the symbols stored.

use super::InputError;
use anyhow::Context;
use moulin::solve::driver::lock_directory;
use moulin::write::{write_contents, Contents, WriteOptions};
use moulin_core::index::{numbered_as, Indexer, MOVER_MAJOR, OPPONENT_MAJOR};
use moulin_core::play::{outcome_code, symbol};
use moulin_core::seeded::splitmix64;
use moulin_core::table::{Encoding, PlaySide, Table, TableKind, TableSummary};
use moulin_probe::{Rules, Sector, Tablebase};
use serde_json::json;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Name of the record in the play set's directory.
pub const RECORD_FILE: &str = "pack-record.jsonl";

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
    let tb = Tablebase::open(&args.dir)
        .with_context(|| format!("opening the tables in {}", args.dir.display()))?;
    if tb.is_wdl() || tb.is_play_set() || tb.sectors().next().is_none() {
        return Err(InputError(format!(
            "no distance tables (*.mtb) in {}",
            args.dir.display()
        ))
        .into());
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("making {}", args.out.display()))?;
    if same_directory(&args.dir, &args.out) {
        return Err(InputError(format!(
            "--out {} is the directory of the tables: a play set needs its own",
            args.out.display()
        ))
        .into());
    }
    let mut sectors = super::chosen_sectors(&tb, &args.sectors)?;
    match (args.check, args.sample) {
        (true, Some(n)) => return check_sample(&tb, &sectors, n, args),
        (true, None) => return check(&tb, &sectors, args),
        _ => {}
    }
    let _lock = lock_directory(&args.out)?;
    let left_out = left_out(&sectors, args)?;
    sectors.retain(|s| !left_out.contains(s));
    let ix = Indexer::get();
    let total: u64 = sectors.iter().map(|&s| ix.slots(s)).sum();
    let bar = super::sector_bar(total, args.quiet);
    let start = Instant::now();
    let (mut full, mut packed, mut kept) = (0u64, 0u64, 0usize);
    let mut todo = Vec::new();
    for &sector in &sectors {
        let summary = *tb.summary(sector)?;
        full += summary.bytes;
        match packed_already(&args.out, &summary, args) {
            Some(bytes) => {
                packed += bytes;
                kept += 1;
                bar.inc(ix.slots(sector));
            }
            None => todo.push(summary),
        }
    }
    // Reading a table and checking what was written take one thread: so
    // sectors are packed side by side, each compressed on one thread, unless
    // there are fewer sectors than threads.
    let threads = match args.threads {
        Some(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let options = WriteOptions {
        level: args.level,
        block_bytes: args.outcome_block_kib << 10,
        encoding: None,
        threads: if todo.len() < threads { threads } else { 1 },
        scheme: args.numbering,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let new_bytes = std::sync::atomic::AtomicU64::new(0);
    pool.install(|| {
        use rayon::prelude::*;
        todo.par_iter().with_max_len(1).try_for_each(|summary| {
            let bytes = pack_sector(&tb, summary, args, &options, &bar)?;
            new_bytes.fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
            bar.inc(ix.slots(summary.sector));
            anyhow::Ok(())
        })
    })?;
    bar.finish_and_clear();
    packed += new_bytes.into_inner();
    // The tables of the sectors left out count in the whole.
    for &sector in &left_out {
        full += tb.summary(sector)?.bytes;
    }
    let out_of = match left_out.len() {
        0 => String::new(),
        n => format!(", {n} left out"),
    };
    println!(
        "{} sectors packed, {kept} already there{out_of}; {full} bytes of tables -> {packed} \
         bytes of play set ({:.1}%) in {}; {:.1} s",
        todo.len(),
        100.0 * packed as f64 / full.max(1) as f64,
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// The sectors `--leave-out` names among `sectors`: the placement sectors
/// with Black to move (one stone more in hand than White) whose turns all
/// lead into sectors packed with them. An error if `--side` is not `both`,
/// or if the play set already holds a file of such a sector.
fn left_out(sectors: &[Sector], args: &Args) -> anyhow::Result<Vec<Sector>> {
    if args.leave_out.is_none() {
        return Ok(Vec::new());
    }
    if args.side != PlaySide::Both {
        return Err(InputError(
            "--leave-out needs --side both: a sector left out is rebuilt from the \
             distances of both sides of the sectors its turns lead into"
                .into(),
        )
        .into());
    }
    let black = |s: &Sector| s.stm_hand > 0 && s.stm_hand == s.opp_hand + 1;
    let kept = |s: &Sector| sectors.contains(s) && !black(s);
    let out: Vec<Sector> = sectors
        .iter()
        .copied()
        .filter(|s| black(s) && s.successors().iter().all(kept))
        .collect();
    for s in &out {
        for kind in [TableKind::Outcomes, TableKind::PlayDistances] {
            let path = args.out.join(format!("{}.{}", s.name(), kind.extension()));
            if path.exists() {
                return Err(InputError(format!(
                    "{} is a sector that --leave-out leaves out: remove its files from the \
                     play set, or pack into another directory",
                    path.display()
                ))
                .into());
            }
        }
    }
    Ok(out)
}

/// Packs one sector: its outcome table and its distance table, each read
/// back before it replaces anything, and its line of the record; the bytes
/// written.
fn pack_sector(
    tb: &Tablebase,
    summary: &TableSummary,
    args: &Args,
    options: &WriteOptions,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<u64> {
    let (sector, clock) = (summary.sector, Instant::now());
    bar.set_message(sector.name());
    let values = tb
        .sector_values(sector)
        .with_context(|| format!("reading the table of {sector}"))?;
    let values = match args.numbering {
        MOVER_MAJOR => {
            moulin::verify::rebuild::renumbered(numbered_as(sector, MOVER_MAJOR), &values)
        }
        _ => values,
    };
    let mut bytes = [0u64; 2];
    for (i, what) in [Contents::Outcomes, Contents::Play(args.side)]
        .into_iter()
        .enumerate()
    {
        let (rules, out) = (summary.rules, &args.out);
        // A dense distance table has the blocks of its outcome table.
        let new = write_contents(out, what, sector, rules, &values, options, true)
            .with_context(|| format!("writing {} of {sector}", what.kind().describe()))?;
        bytes[i] = new.bytes;
    }
    let entropy = Entropy::of(&summary.rules, args.side, &values);
    let seconds = clock.elapsed().as_secs_f64();
    record(&args.out, summary, args.side, bytes, &entropy, seconds);
    if !args.quiet {
        let line = format!(
            "{sector}: {} -> {} + {} bytes ({}: {:.2} bits each at order 0, {:.2} after the one \
             before) in {seconds:.1} s",
            summary.bytes,
            bytes[0],
            bytes[1],
            args.side.word(),
            entropy.per_class(entropy.order0),
            entropy.per_class(entropy.order1),
        );
        bar.suspend(|| println!("{line}"));
    }
    Ok(bytes[0] + bytes[1])
}

/// `moulin pack --check`: every slot of the play set against the tables.
fn check(tb: &Tablebase, sectors: &[Sector], args: &Args) -> super::Outcome {
    let play = Tablebase::open_play(&args.out)
        .with_context(|| format!("opening the play set in {}", args.out.display()))?;
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build()?;
    let start = Instant::now();
    let (mut slots, mut differ) = (0u64, 0u64);
    for &sector in sectors {
        let clock = Instant::now();
        let full = tb
            .sector_values(sector)
            .with_context(|| format!("reading the table of {sector}"))?;
        play.check_checksum(sector)
            .with_context(|| format!("checking the files of {sector}"))?;
        let rebuilt = moulin::verify::rebuild::sector(&play, sector, &pool)
            .with_context(|| format!("rebuilding {sector} from the play set"))?;
        let found: Vec<(u64, Option<(u64, String)>)> = full
            .iter()
            .zip(&rebuilt)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(slot, (want, got))| (1, Some((slot as u64, format!("{got}, the table {want}")))))
            .collect();
        let n: u64 = found.iter().map(|f| f.0).sum();
        slots += full.len() as u64;
        differ += n;
        let first = found.into_iter().find_map(|f| f.1);
        if let Some((slot, what)) = &first {
            println!(
                "{sector}: {n} slots differ; the first, slot {slot}: the play set gives {what}"
            );
        } else if !args.quiet {
            println!(
                "{sector}: {} slots agree ({:.1} s)",
                full.len(),
                clock.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "{} sectors, {slots} slots compared: {differ} differ; {:.1} s",
        sectors.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(differ == 0)
}

/// `moulin pack --check --sample N`: `N` random positions probed on the
/// tables and on the play set, their values and every move's value.
fn check_sample(tb: &Tablebase, sectors: &[Sector], n: u64, args: &Args) -> super::Outcome {
    use moulin_probe::Position;
    use rayon::prelude::*;
    let play = Tablebase::open_play(&args.out)
        .with_context(|| format!("opening the play set in {}", args.out.display()))?;
    let ix = Indexer::get();
    // Sectors by their share of the slots: the first whose running total
    // passes a uniform draw.
    let mut totals = Vec::with_capacity(sectors.len());
    let mut total = 0u64;
    for &s in sectors {
        total += ix.slots(s);
        totals.push(total);
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.threads {
        pool = pool.num_threads(t);
    }
    let start = Instant::now();
    let found: Vec<String> = pool.build()?.install(|| {
        (0..n)
            .into_par_iter()
            .map(|k| {
                let mut draw = splitmix64(args.seed ^ splitmix64(k));
                // Redraw a hole (a slot no position maps to).
                let (sector, node) = loop {
                    let at = draw % total;
                    let s = totals.partition_point(|&t| t <= at);
                    let slot = splitmix64(draw) % ix.slots(sectors[s]);
                    match ix.unindex(sectors[s], slot) {
                        Some(node) => break (sectors[s], node),
                        None => draw = splitmix64(draw),
                    }
                };
                let pos = Position::from_node(node, node.side_by_hands());
                let answer = |t: &Tablebase| match t.probe_moves(&pos) {
                    Ok(moves) => format!("{:?} after {moves:?}", t.probe(&pos)),
                    Err(e) => format!("error: {e}"),
                };
                let (want, got) = (answer(tb), answer(&play));
                (want != got)
                    .then(|| format!("{sector} {pos}: the tables {want}, the play set {got}"))
            })
            .flatten()
            .collect()
    });
    for line in found.iter().take(10) {
        println!("{line}");
    }
    println!(
        "{n} random positions of {} sectors probed with every move: {} differ; {:.1} s",
        sectors.len(),
        found.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(found.is_empty())
}

fn same_directory(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The bytes of a sector's two play files if both are there, intact, written
/// from a table with this header and with these settings (side, level,
/// outcome blocks).
fn packed_already(dir: &Path, summary: &TableSummary, args: &Args) -> Option<u64> {
    let outcome_slots =
        Encoding::of_outcomes(&summary.rules).slots_in((args.outcome_block_kib as u64) << 10);
    // The distances are dense when every symbol fits a byte (`symbol`:
    // half a plain distance, a DTC, or a DTC less one for a win).
    let dense = match (summary.rules.no_capture_limit, args.side) {
        (None, _) => true,
        (Some(_), PlaySide::Losses) => summary.max_loss.is_none_or(|d| d < 255),
        (Some(_), PlaySide::Wins) => summary.max_win.is_none_or(|d| d < 256),
        (Some(_), PlaySide::Both) => {
            summary.max_loss.is_none_or(|d| d < 255) && summary.max_win.is_none_or(|d| d < 256)
        }
    };
    let mut bytes = 0;
    for kind in [TableKind::Outcomes, TableKind::PlayDistances] {
        let path = dir.join(format!("{}.{}", summary.sector.name(), kind.extension()));
        let table = Table::open(&path).ok()?;
        let s = table.summary();
        let same = s.kind() == kind
            && s.level == args.level
            && s.scheme == args.numbering
            && match kind {
                TableKind::Outcomes => s.block_slots as u64 == outcome_slots,
                _ => {
                    s.play == Some(args.side)
                        && (s.encoding == Encoding::Dense) == dense
                        && (!dense || s.block_slots as u64 == outcome_slots)
                }
            }
            && (s.rules, s.classes, s.positions, s.holes + summary.slots)
                == (
                    summary.rules,
                    summary.classes,
                    summary.positions,
                    summary.holes + s.slots,
                )
            && (s.max_win, s.max_loss, s.cursed_wins, s.blessed_losses)
                == (
                    summary.max_win,
                    summary.max_loss,
                    summary.cursed_wins,
                    summary.blessed_losses,
                );
        if !same || table.check_checksum().is_err() {
            return None;
        }
        bytes += s.bytes;
    }
    Some(bytes)
}

/// Empirical entropy of what a play set stores for one sector, in bits.
struct Entropy {
    /// Classes of the stored side (the symbols that count).
    stored: u64,
    /// Their symbols at order 0.
    order0: f64,
    /// Their symbols given the symbol of the win before (in slot order).
    order1: f64,
    /// The outcome of every class at order 0.
    outcomes: f64,
}

impl Entropy {
    fn of(rules: &Rules, side: PlaySide, values: &[u16]) -> Entropy {
        // Symbols are small (a distance at most): counted in arrays up to
        // `SMALL`, in maps beyond.
        const SMALL: usize = 256;
        let mut single = vec![0u64; SMALL];
        let mut pairs = vec![0u64; (SMALL + 1) * SMALL];
        let mut large: HashMap<(u16, u16), u64> = HashMap::new();
        let mut outcomes = [0u64; 5];
        // The symbol before (none before the first: u16::MAX, row SMALL).
        let mut last = u16::MAX;
        for &code in values {
            if let Some(o) = outcome_code(rules, code) {
                outcomes[o as usize] += 1;
            }
            if let Some(s) = symbol(rules, side, code) {
                let row = if last == u16::MAX {
                    SMALL
                } else {
                    last as usize
                };
                if (s as usize) < SMALL && row <= SMALL {
                    single[s as usize] += 1;
                    pairs[row * SMALL + s as usize] += 1;
                } else {
                    *large.entry((last, s)).or_default() += 1;
                }
                last = s;
            }
        }
        // Fold the rare large symbols into maps of both orders.
        let mut singles: HashMap<u16, u64> = HashMap::new();
        let mut pair_counts: HashMap<(u16, u16), u64> = large;
        for (&(_, s), &n) in &pair_counts {
            *singles.entry(s).or_default() += n;
        }
        for (s, &n) in single.iter().enumerate().filter(|(_, &n)| n > 0) {
            *singles.entry(s as u16).or_default() += n;
        }
        for (k, &n) in pairs.iter().enumerate().filter(|(_, &n)| n > 0) {
            let row = k / SMALL;
            let key = (
                if row == SMALL { u16::MAX } else { row as u16 },
                (k % SMALL) as u16,
            );
            *pair_counts.entry(key).or_default() += n;
        }
        let stored: u64 = singles.values().sum();
        let order0 = bits(singles.values().copied(), stored);
        // H(S | previous) = H(previous, S) - H(previous).
        let mut contexts: HashMap<u16, u64> = HashMap::new();
        for (&(c, _), &n) in &pair_counts {
            *contexts.entry(c).or_default() += n;
        }
        let order1 =
            bits(pair_counts.values().copied(), stored) - bits(contexts.values().copied(), stored);
        let classes: u64 = outcomes.iter().sum();
        Entropy {
            stored,
            order0,
            order1,
            outcomes: bits(outcomes.into_iter(), classes),
        }
    }

    /// Bits per class of the stored side.
    fn per_class(&self, total: f64) -> f64 {
        (total / self.stored.max(1) as f64).max(0.0)
    }
}

/// Total bits of `n` draws from the empirical distribution of `counts`.
fn bits(counts: impl Iterator<Item = u64>, n: u64) -> f64 {
    counts
        .filter(|&c| c > 0)
        .map(|c| c as f64 * (n as f64 / c as f64).log2())
        .sum()
}

/// Appends the sector's line to the record; a failure is reported, not fatal.
fn record(
    dir: &Path,
    s: &TableSummary,
    side: PlaySide,
    bytes: [u64; 2],
    e: &Entropy,
    seconds: f64,
) {
    let line = json!({
        "sector": s.sector.name(),
        "slots": s.slots,
        "classes": s.classes.win + s.classes.loss + s.classes.draw,
        "side": side.word(),
        "stored": e.stored,
        "table_bytes": s.bytes,
        "outcome_bytes": bytes[0],
        "distance_bytes": bytes[1],
        "outcome_order0_bytes": (e.outcomes / 8.0).ceil() as u64,
        "distance_order0_bytes": (e.order0 / 8.0).ceil() as u64,
        "distance_order1_bytes": (e.order1 / 8.0).ceil() as u64,
        "seconds": (seconds * 100.0).round() / 100.0,
    });
    let path = dir.join(RECORD_FILE);
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(e) = written {
        eprintln!("moulin: could not append to {}: {e}", path.display());
    }
}
