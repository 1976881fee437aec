//! Runs a solve: the sectors in dependency order, skipping those whose tables
//! are already complete and intact, each pair solved and written before the
//! next starts, so an interrupted run loses only the pair in progress.

use super::memory::huge_vec;
use super::record::{RunRecord, StageClock};
use super::retro::{self, LowerSectors, Progress};
use super::Solved;
use crate::lock::DirectoryLock;
use crate::write::{wdl_table_path, write_table_with, write_wdl_table_with, WriteOptions};
use anyhow::{bail, Context};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use moulin_core::index::Indexer;
use moulin_core::table::{PositionalFile, Table, TableSummary};
use moulin_probe::{Rules, Sector, Tablebase};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// zstd level of the solver's tables. Measured on 6v5 (`cargo run --release
/// --example levels`): level 6 gives 1.67 bits a slot in 3.7 s, level 12
/// 1.60 in 12 s, level 19 1.55 in 93 s; writing is on the solve's critical
/// path, so the solver takes level 6.
pub const SOLVER_LEVEL: i32 = 6;

/// What to solve and where.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Directory of the tables.
    pub dir: PathBuf,
    /// Largest number of stones a side in the moving phase (3..=9).
    pub max_stones: u8,
    /// Rule options.
    pub rules: Rules,
    /// Worker threads; `None` for one per core.
    pub threads: Option<usize>,
    /// Also solve the placement sectors with at most `max_stones` stones a
    /// side on the board and in hand (with 9: the whole game).
    pub placement: bool,
    /// Show progress bars on standard error.
    pub progress: bool,
    /// Memory budget in bytes for what the solver holds at once: the
    /// arrays of the item being solved, the finished sectors it reads and
    /// those it keeps decoded for later items. Kept sectors are dropped,
    /// the one needed furthest ahead first, whenever the next item would
    /// not fit beside them (they are read again from disk when needed).
    /// `None`: keep every finished sector a later item reads.
    pub memory: Option<u64>,
    /// Also write each sector's WDL table (`<sector>.mtw`, outcomes only,
    /// two bits a slot) beside its table, and those missing beside tables
    /// already on disk. Never under the no-capture rule, whose outcome
    /// depends on the counter.
    pub wdl: bool,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions {
            dir: PathBuf::from("data/tables"),
            max_stones: 5,
            rules: Rules::default(),
            threads: None,
            placement: false,
            progress: false,
            memory: None,
            wdl: true,
        }
    }
}

/// One sector of a solve and what became of it.
#[derive(Clone, Debug)]
pub struct SectorReport {
    /// The table's header.
    pub summary: TableSummary,
    /// Whether it was solved in this run (else found complete on disk).
    pub solved_now: bool,
    /// Time spent on its pair, if solved now (shared by both sectors of a pair).
    pub time: Duration,
}

/// What a solve did.
#[derive(Clone, Debug, Default)]
pub struct SolveReport {
    /// Every sector asked for, in solving order.
    pub sectors: Vec<SectorReport>,
    /// Time of the whole run.
    pub time: Duration,
}

impl SolveReport {
    /// Slots solved in this run.
    pub fn slots_solved(&self) -> u64 {
        self.sectors
            .iter()
            .filter(|s| s.solved_now)
            .map(|s| s.summary.slots)
            .sum()
    }
}

struct Bars {
    multi: MultiProgress,
    overall: ProgressBar,
}

struct PairProgress<'a> {
    bar: ProgressBar,
    overall: Option<&'a ProgressBar>,
    base: u64,
}

impl Progress for PairProgress<'_> {
    fn initialised(&self, done: u64, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(done);
        if let Some(o) = self.overall {
            o.set_position(self.base + done / 2);
        }
    }

    fn level(&self, level: u16, resolved: u64) {
        self.bar
            .set_message(format!("level {level}: {resolved} resolved"));
        self.bar.tick();
    }
}

fn bar_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
}

/// Solves the moving-phase sectors up to `options.max_stones` a side,
/// writing one table per sector into `options.dir`.
pub fn solve_moving(options: &SolveOptions) -> anyhow::Result<SolveReport> {
    if !(3..=9).contains(&options.max_stones) {
        bail!(
            "--max-stones must be between 3 and 9, not {}",
            options.max_stones
        );
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = options.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("starting the worker threads")?;
    pool.install(|| run(options))
}

fn open_tables(options: &SolveOptions) -> anyhow::Result<Tablebase> {
    let tb = Tablebase::open(&options.dir)
        .with_context(|| format!("reading the tables in {}", options.dir.display()))?;
    tb.with_rules(options.rules).with_context(|| {
        format!(
            "the tables in {} were solved under other rules",
            options.dir.display()
        )
    })
}

/// One unit of work: sectors solved together and written together.
#[derive(Clone, Debug)]
enum Work {
    /// A moving-phase pair `(a, b)`, `a <= b`.
    Pair(u8, u8),
    /// One placement sector.
    Placement(Sector),
}

impl Work {
    fn sectors(&self) -> Vec<Sector> {
        match *self {
            Work::Pair(a, b) if a == b => vec![Sector::moving(a, b)],
            Work::Pair(a, b) => vec![Sector::moving(a, b), Sector::moving(b, a)],
            Work::Placement(s) => vec![s],
        }
    }

    fn needs(&self) -> Vec<Sector> {
        match *self {
            Work::Pair(a, b) => super::pair_needs(a, b),
            Work::Placement(s) => super::placement::placement_needs(s),
        }
    }
}

/// Everything a solve with these options does, in order.
fn plan(options: &SolveOptions) -> Vec<Work> {
    let mut work: Vec<Work> = super::moving_pairs(options.max_stones)
        .into_iter()
        .map(|(a, b)| Work::Pair(a, b))
        .collect();
    if options.placement {
        let n = options.max_stones;
        work.extend(
            Sector::all(true)
                .into_iter()
                .filter(|s| {
                    !s.is_moving() && s.stm_board + s.stm_hand <= n && s.opp_board + s.opp_hand <= n
                })
                .map(Work::Placement),
        );
    }
    work
}

/// Takes the table directory for this process (one writer at a time) and
/// removes the temporary files of earlier runs that were stopped: no one
/// else can be writing them.
pub fn lock_directory(dir: &std::path::Path) -> anyhow::Result<DirectoryLock> {
    let command: Vec<String> = std::env::args().collect();
    let lock = DirectoryLock::acquire(dir, &command.join(" "))
        .with_context(|| format!("locking {}", dir.display()))?;
    if let Ok(items) = std::fs::read_dir(dir) {
        for item in items.flatten() {
            let name = item.file_name();
            let name = name.to_string_lossy();
            if [".mtb.", ".mtw.", ".mtd."].iter().any(|k| name.contains(k))
                && name.ends_with(".tmp")
            {
                let _ = std::fs::remove_file(item.path());
            }
        }
    }
    Ok(lock)
}

/// Bytes of the decoded codes of a sector (two a slot).
fn codes_bytes(sector: Sector) -> u64 {
    2 * Indexer::get().slots(sector)
}

/// Bytes an item holds while it is solved, besides the sectors it reads: a
/// 4-byte word per slot of a moving pair, the 2-byte codes of a placement
/// sector (estimates of the big arrays; the index and buffers come on top).
pub fn working_bytes(sectors: &[Sector]) -> u64 {
    sectors
        .iter()
        .map(|&s| match s.is_moving() {
            true => 4 * Indexer::get().slots(s),
            false => codes_bytes(s),
        })
        .sum()
}

/// Bytes a slot counted for the seeds a moving sector's initialisation
/// finds, before it runs (the most measured, 9v6's under N = 50: 2.52,
/// with a margin). Gathered in batches (`retro`), they peak at what they
/// hold in the end.
const SEED_BYTES_PER_SLOT: u64 = 3;

/// Bytes of the budget kept free for what grows after the last count (the
/// allocator's slack, the writer's buffers): the full solve's placement
/// phase rose up to 62 MiB above what was counted. An eighth of a small
/// budget.
fn reserve(budget: u64) -> u64 {
    (64 << 20).min(budget / 8)
}

/// Drops kept sectors not in `now`, the one read furthest ahead first
/// (`soon` before `plan`), until they fit in `budget` beside `working` bytes
/// of arrays and the codes of `now` (which may not fit alone: the budget is
/// then exceeded by them).
fn evict(
    solved: &mut Solved,
    now: &[Sector],
    working: u64,
    soon: &[Sector],
    plan: &[Work],
    budget: u64,
) {
    let needed_now: u64 = now.iter().map(|&s| codes_bytes(s)).sum();
    let next_use = |s: Sector| match soon.contains(&s) {
        true => Some(0),
        false => plan
            .iter()
            .position(|w| w.needs().contains(&s))
            .map(|i| i + 1),
    };
    let mut others: Vec<Sector> = solved
        .sectors()
        .into_iter()
        .filter(|s| !now.contains(s))
        .collect();
    // Needed soonest last: the loop pops the furthest first (never: first of all).
    others.sort_by_key(|&s| (std::cmp::Reverse(next_use(s).unwrap_or(usize::MAX)), s));
    others.reverse();
    let mut kept: u64 = others.iter().map(|&s| codes_bytes(s)).sum();
    while kept + working + needed_now > budget {
        let Some(s) = others.pop() else { break };
        solved.remove(s);
        kept -= codes_bytes(s);
    }
}

/// Reads a finished sector into memory unless it is there: decoded straight
/// into one allocation of its size, in huge pages (captures read it at
/// random).
fn load(solved: &mut Solved, tb: &Tablebase, sector: Sector) -> anyhow::Result<()> {
    if solved.get(sector).is_none() {
        let mut values = huge_vec(Indexer::get().slots(sector) as usize, |_| 0u16);
        tb.sector_values_into(sector, &mut values)
            .with_context(|| format!("reading the finished sector {sector}"))?;
        solved.insert(sector, values);
    }
    Ok(())
}

/// Whether the solve writes WDL tables at all: asked for, and not under
/// the no-capture rule.
fn writes_wdl(options: &SolveOptions) -> bool {
    options.wdl && options.rules.no_capture_limit.is_none()
}

/// Whether a finished table (`summary`) lacks an intact WDL table of the
/// same rules and counts beside it.
fn wants_wdl(options: &SolveOptions, summary: &TableSummary) -> bool {
    writes_wdl(options) && intact_wdl_table(&options.dir, summary).is_none()
}

/// The WDL table in `dir` beside the finished table `summary`, if it is
/// intact (its checksum holds) and of the same rules and counts.
pub fn intact_wdl_table(
    dir: &std::path::Path,
    summary: &TableSummary,
) -> Option<Table<PositionalFile>> {
    let path = wdl_table_path(dir, summary.sector);
    Table::open(&path).ok().filter(|t| {
        let w = t.summary();
        w.wdl
            && (w.rules, w.classes, w.positions)
                == (summary.rules, summary.classes, summary.positions)
            && t.check_checksum().is_ok()
    })
}

/// Writes the WDL table of `sector` from the codes of its table.
fn write_wdl(
    options: &SolveOptions,
    sector: Sector,
    values: &[u16],
    write_options: &WriteOptions,
) -> anyhow::Result<()> {
    write_wdl_table_with(&options.dir, sector, options.rules, values, write_options).with_context(
        || {
            format!(
                "writing the WDL table of {sector} into {}",
                options.dir.display()
            )
        },
    )?;
    Ok(())
}

fn run(options: &SolveOptions) -> anyhow::Result<SolveReport> {
    let start = Instant::now();
    std::fs::create_dir_all(&options.dir)
        .with_context(|| format!("creating {}", options.dir.display()))?;
    let _lock = lock_directory(&options.dir)?;
    let ix = Indexer::get();
    let work = plan(options);
    let total: u64 = work
        .iter()
        .flat_map(Work::sectors)
        .map(|s| ix.slots(s))
        .sum();
    let bars = options.progress.then(|| {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let overall = multi.add(ProgressBar::new(total));
        overall.set_style(bar_style(
            "{prefix:>8} [{elapsed_precise}] [{bar:40}] {percent:>3}% eta {eta_precise} {msg}",
        ));
        overall.set_prefix("all");
        Bars { multi, overall }
    });
    let write_options = WriteOptions {
        level: SOLVER_LEVEL,
        threads: options.threads.unwrap_or(0),
        ..WriteOptions::default()
    };

    let mut record = RunRecord::open(&options.dir, rayon::current_num_threads(), options.memory);
    let mut report = SolveReport::default();
    let mut solved = Solved::default();
    let mut done_slots = 0u64;
    for (i, item) in work.iter().enumerate() {
        let sectors = item.sectors();
        let item_slots: u64 = sectors.iter().map(|&s| ix.slots(s)).sum();
        let tb = open_tables(options)?;
        let mut finished = Vec::new();
        for &s in &sectors {
            if let Ok(summary) = tb.summary(s) {
                tb.check_checksum(s).with_context(|| {
                    format!("table {} is damaged: delete it to solve it again", s.name())
                })?;
                finished.push(*summary);
            }
        }
        if finished.len() == sectors.len() {
            for summary in &finished {
                if wants_wdl(options, summary) {
                    let values = tb.sector_values(summary.sector)?;
                    write_wdl(options, summary.sector, &values, &write_options)?;
                }
            }
            for summary in finished {
                report.sectors.push(SectorReport {
                    summary,
                    solved_now: false,
                    time: Duration::ZERO,
                });
            }
            done_slots += item_slots;
            if let Some(b) = &bars {
                b.overall.set_position(done_slots);
            }
            continue;
        }
        // Keep in memory only what this item and the later ones read.
        let later: BTreeSet<Sector> = work[i..].iter().flat_map(Work::needs).collect();
        solved.retain(|s| later.contains(&s));
        // `held` of `working` is allocated already: what the process holds
        // beyond it and the kept sectors (the index, buffers, the
        // allocator's slack: about 400 MiB in the full solve) is counted
        // too, as the system reports it.
        let budget =
            |solved: &mut Solved, now: &[Sector], working: u64, soon: &[Sector], held: u64| {
                if let Some(budget) = options.memory {
                    let kept: u64 = solved.sectors().into_iter().map(codes_bytes).sum();
                    let beyond = super::memory::resident_kib()
                        .map_or(0, |(now, _)| (now << 10).saturating_sub(kept + held));
                    let room = budget - reserve(budget);
                    evict(solved, now, working + beyond, soon, &work[i + 1..], room);
                }
            };
        let item_start = Instant::now();
        let mut clock = StageClock::start();
        let bar = match &bars {
            Some(b) => {
                let bar = b.multi.add(ProgressBar::new(item_slots));
                bar.set_style(bar_style(
                    "{prefix:>8} [{elapsed_precise}] [{bar:40}] {pos}/{len} {msg}",
                ));
                bar.set_prefix(
                    sectors
                        .iter()
                        .map(|s| s.name())
                        .collect::<Vec<_>>()
                        .join("+"),
                );
                bar
            }
            None => ProgressBar::hidden(),
        };
        let progress = PairProgress {
            bar: bar.clone(),
            overall: bars.as_ref().map(|b| &b.overall),
            base: done_slots,
        };
        let results = match *item {
            Work::Pair(a, b) => {
                // One lower sector at a time: each sector of the pair is
                // initialised from the sector its captures lead into, and the
                // levels read none.
                let mut pair = retro::PairSolve::new(&options.rules, a, b, &progress);
                clock.lap("allocate");
                let lowers: Vec<Sector> = sectors
                    .iter()
                    .filter_map(|&s| retro::capture_sector(s))
                    .collect();
                while let Some(sector) = pair.next_to_initialise() {
                    // What the sectors initialised hold, then the slot
                    // words of this one and the seeds it will find: a
                    // 4-byte slot each, and seeds of up to 3 bytes a slot
                    // (9v6 under N = 50 holds 2.52, 9v7 2.36, 7v9 0.17:
                    // `MOULIN_TRACE=1`).
                    let working = pair.held_bytes()
                        + working_bytes(&[sector])
                        + SEED_BYTES_PER_SLOT * ix.slots(sector);
                    let lower = retro::capture_sector(sector);
                    let now: Vec<Sector> = lower.into_iter().collect();
                    let soon: Vec<Sector> = lowers
                        .iter()
                        .copied()
                        .filter(|s| !now.contains(s))
                        .collect();
                    budget(&mut solved, &now, working, &soon, pair.held_bytes());
                    if let Some(l) = lower {
                        load(&mut solved, &tb, l)?;
                    }
                    clock.lap("read");
                    let before = pair.held_bytes();
                    pair.initialise(lower.map_or(&[][..], |l| solved.get(l).expect("loaded")));
                    clock.lap("initialise");
                    let kept: u64 = solved.sectors().into_iter().map(codes_bytes).sum();
                    let seeds = pair.held_bytes() - before - 4 * ix.slots(sector);
                    super::memory::trace_resident(
                        &format!(
                            "{sector} initialised (seeds {:.2} bytes a slot, counted {SEED_BYTES_PER_SLOT})",
                            seeds as f64 / ix.slots(sector).max(1) as f64
                        ),
                        kept + pair.held_bytes(),
                    );
                }
                // The levels' lists of positions (the frontier being read,
                // the next one being built: up to 2.4 bytes a slot of the
                // pair measured on 7v9 + 9v7 under N = 100, 1.6 on 6v9 +
                // 9v6 under N = 50), then the codes written, come on top of
                // the slot words and seeds.
                let held = pair.held_bytes();
                let levels = held + 3 * item_slots;
                budget(&mut solved, &[], levels, &[], held);
                let results = pair.finish();
                clock.lap("levels");
                let kept: u64 = solved.sectors().into_iter().map(codes_bytes).sum();
                let name: Vec<String> = sectors.iter().map(|s| s.name()).collect();
                super::memory::trace_resident(&format!("{} levels", name.join("+")), kept + levels);
                results
            }
            Work::Placement(s) => {
                let needs = item.needs();
                budget(&mut solved, &needs, working_bytes(&sectors), &[], 0);
                for &need in &needs {
                    load(&mut solved, &tb, need)?;
                }
                clock.lap("read");
                let values = super::placement::solve_placement(
                    &options.rules,
                    s,
                    &solved as &dyn LowerSectors,
                    &progress,
                );
                clock.lap("solve");
                vec![(s, values)]
            }
        };
        let name = sectors
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join("+");
        let kept = |solved: &Solved| -> u64 { solved.sectors().into_iter().map(codes_bytes).sum() };
        super::memory::trace_resident(
            &format!("{name} solved"),
            kept(&solved) + working_bytes(&sectors),
        );
        bar.set_message("writing");
        let time = item_start.elapsed();
        let mut bytes = 0;
        for (sector, values) in results {
            let summary =
                write_table_with(&options.dir, sector, options.rules, &values, &write_options)
                    .with_context(|| {
                        format!(
                            "writing the table of {sector} into {}",
                            options.dir.display()
                        )
                    })?;
            bytes += summary.bytes;
            clock.lap("write");
            // A sector solved now gets its WDL table anew, whatever was there.
            if writes_wdl(options) {
                write_wdl(options, sector, &values, &write_options)?;
                bytes +=
                    std::fs::metadata(wdl_table_path(&options.dir, sector)).map_or(0, |m| m.len());
                clock.lap("wdl");
            }
            report.sectors.push(SectorReport {
                summary,
                solved_now: true,
                time,
            });
            solved.insert(sector, values);
        }
        super::memory::trace_resident(&format!("{name} written"), kept(&solved));
        let names: Vec<String> = sectors.iter().map(|s| s.name()).collect();
        record.write(&clock.line(&name, &names, item_slots, bytes));
        bar.finish_and_clear();
        done_slots += item_slots;
        if let Some(b) = &bars {
            b.overall.set_position(done_slots);
        }
    }
    if let Some(b) = &bars {
        b.overall.finish_and_clear();
    }
    report.time = start.elapsed();
    Ok(report)
}
