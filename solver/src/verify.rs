//! The verifier: the independent proof that the tables are right.
//!
//! Every stored value is derived again from the stored values of its
//! successors, with nothing but the rules (`Rules::for_each_move`), the index
//! (`Indexer`) and the probe's decoder (`Table::decode_all`). None of the
//! solver's code (`crate::solve`) is used, so a bug there cannot hide itself.
//!
//! A value `v` of a position is right when it is what the best move gives:
//! the highest `rank()` over the moves of `successor.before_move()`, or
//! `loss 0` when there is no move. A successor whose player to move is left
//! with fewer than three stones is `loss 0` (so that capture wins in 1); any
//! other successor is read from its table. This one local equation says all
//! of: a win in `n` has a move to a loss in `n - 1` and none to a shorter
//! one; a loss in `n` has only moves to wins, the longest `n - 1`; a draw has
//! no move to a loss and one to a draw. A labelling that satisfies it at
//! every position is the game's value: by induction on the distance, every
//! stored win or loss is forced in exactly that many turns and every forced
//! win or loss is stored with its distance, so what is left, the draws, is
//! right too.
//!
//! The values derived are compared with the stored ones by a keyed sum of
//! a hash of each (slot, value) pair over both (`verify/fingerprint.rs`),
//! which needs no read of a stored value at random; a table whose sums
//! differ is read class by class and slot by slot, to say where.
//!
//! Besides the values, each file's header, block checksums and whole-file
//! checksum are checked, the header's counts are recounted from the values,
//! and the holes must be exactly the index's non-canonical slots. A WDL
//! table beside a table (`<sector>.mtw`) must hold the outcome of every
//! verified value and the same counts.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use moulin_core::board::SYMMETRY_COUNT;
use moulin_core::index::{Indexer, BINOMIAL};
use moulin_core::table::{TableSummary, EXTENSION, WDL_EXTENSION};
use moulin_core::value::HOLE;
use moulin_core::Node;
use moulin_probe::{Move, Position, RuleOutcome, Rules, Sector, Side};
use rayon::prelude::*;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod captures;
pub mod files;
mod fingerprint;
mod manifest;
mod order;
pub mod rebuild;
mod report;
mod rule;
mod sweep;
mod tally;

use crate::sector_log::SectorLog;
use captures::Captures;
use files::{check_wdl, list_tables, load, load_play, read_header, Listing, Loaded};
use fingerprint::{Derived, Key, Stored};
use order::targets;
use sweep::Sweep;
use tally::count;
pub use tally::Tally;

pub use manifest::{manifest, ManifestEntry, MANIFEST_COLUMNS};
pub use report::{SectorVerdict, VerifyReport};

/// Slots checked as one unit of parallel work.
const CHUNK: u64 = 1 << 14;

/// Codes counted by a histogram when a scan counts values (the distances
/// of the game's tables are far below).
const SMALL_CODES: usize = 1024;

/// What to verify.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Directory of the tables.
    pub dir: PathBuf,
    /// The sectors to verify; empty for every table of the directory.
    pub sectors: Vec<Sector>,
    /// Inconsistencies described in full (the others are only counted).
    pub max_reports: usize,
    /// Worker threads; `None` for one per core.
    pub threads: Option<usize>,
    /// Show a progress bar on standard error.
    pub progress: bool,
    /// A log of the sectors' lines (`SectorVerdict::describe`, see
    /// `crate::sector_log`): the sectors it records as passed are skipped,
    /// and the lines of each sector verified are appended to it.
    pub log: Option<PathBuf>,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            dir: PathBuf::from("data/tables"),
            sectors: Vec::new(),
            max_reports: 20,
            threads: None,
            progress: false,
            log: None,
        }
    }
}

/// A slot whose stored code the rules contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    /// The sector of the table.
    pub sector: Sector,
    /// The slot.
    pub slot: u64,
    /// The position the index puts at the slot.
    pub node: Node,
    /// What is wrong.
    pub what: String,
}

impl Inconsistency {
    /// The position in the text format, with a colour to move that its
    /// hands allow (White when the hands are equal).
    pub fn position(&self) -> Position {
        Position::from_node(self.node, self.node.side_by_hands())
    }
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = self.position();
        let side = match pos.side {
            Side::White => "White",
            Side::Black => "Black",
        };
        write!(
            f,
            "{} slot {}: {pos} ({side} to move): {}",
            self.sector, self.slot, self.what
        )
    }
}

/// The result of checking the values of one sector.
#[derive(Clone, Debug, Default)]
pub struct ValueCheck {
    /// Counts recomputed from the values.
    pub tally: Tally,
    /// Slots that fail.
    pub inconsistencies: u64,
    /// The first failing slots, in slot order, described.
    pub reported: Vec<Inconsistency>,
    /// Classes the derivation visited (each once: as many as the canonical
    /// slots).
    pub visited: u64,
}

impl ValueCheck {
    fn merge(mut self, other: ValueCheck, limit: usize) -> ValueCheck {
        self.tally.add(&other.tally);
        self.inconsistencies += other.inconsistencies;
        self.visited += other.visited;
        let room = limit.saturating_sub(self.reported.len());
        self.reported.extend(other.reported.into_iter().take(room));
        self
    }

    /// Counts a failing slot, and describes it if fewer than `limit` are.
    fn fail(&mut self, sector: Sector, slot: u64, node: Node, what: String, limit: usize) {
        self.inconsistencies += 1;
        if self.reported.len() < limit {
            self.reported.push(Inconsistency {
                sector,
                slot,
                node,
                what,
            });
        }
    }
}

/// The values of the small codes (`None`: the code stands for none).
fn small_values(rules: &Rules) -> [Option<RuleOutcome>; SMALL_CODES] {
    std::array::from_fn(|code| rule::decode(rules, code as u16))
}

/// Counts the classes of 16 positions of `histogram` (classes by code) whose
/// code `small` decodes.
fn count_histogram(
    tally: &mut Tally,
    small: &[Option<RuleOutcome>; SMALL_CODES],
    histogram: impl Iterator<Item = u64>,
) {
    for (value, classes) in small.iter().zip(histogram) {
        if let (Some(value), 1..) = (value, classes) {
            count(tally, *value, classes, SYMMETRY_COUNT as u64);
        }
    }
}

/// The value check of one sector: its codes and those of the sectors its
/// turns lead into.
pub struct SectorValues<'a> {
    /// Rule options the values were solved under.
    pub rules: Rules,
    /// The sector checked.
    pub sector: Sector,
    /// Its codes, slot by slot.
    pub values: &'a [u16],
    /// The codes of every sector a turn leads into (the sector itself
    /// included when a turn leads back into it).
    pub successors: Vec<(Sector, &'a [u16])>,
}

impl SectorValues<'_> {
    /// Checks every slot, in parallel, advancing `progress` (if any) by the
    /// slots done; describes at most `limit` inconsistencies, those of the
    /// lowest slots among the ones found first.
    ///
    /// `Sweep` derives every class's value from its successors,
    /// mover-major (see `verify/sweep.rs`), and the values derived are
    /// compared with the stored ones by a keyed sum over both
    /// (`verify/fingerprint.rs`), with the holes' number. When they
    /// differ, `exact` reads the stored value of every class and `scan`
    /// goes through the slots in order, to say which are wrong.
    pub fn check(&self, limit: usize, progress: Option<&ProgressBar>) -> ValueCheck {
        self.check_sharing(limit, progress, None).0
    }

    /// `check`, the mills' best captures read from `kept` when it is the
    /// table this sector would build (`Captures::of`); gives back the
    /// table it read.
    pub(crate) fn check_sharing(
        &self,
        limit: usize,
        progress: Option<&ProgressBar>,
        kept: Option<Captures>,
    ) -> (ValueCheck, Option<Captures>) {
        let sweep = Sweep::sharing(self.rules, self.sector, &self.successors, kept);
        let out = match self.compare(&sweep, progress) {
            Some(out) => out,
            None => self.exact(&sweep, limit),
        };
        (out, sweep.into_captures())
    }

    /// The derivation compared with the stored values by their sums: the
    /// counts when every value is what the rules give and every hole
    /// where the index has one, `None` otherwise (or when a successor
    /// cannot be read).
    fn compare(&self, sweep: &Sweep, progress: Option<&ProgressBar>) -> Option<ValueCheck> {
        let slots = Indexer::get().slots(self.sector);
        if self.values.len() as u64 != slots || slots > u32::MAX as u64 {
            return None;
        }
        let key = Key::random();
        let per_orbit = sweep.sets_per_orbit();
        let derived = (0..sweep.orbits())
            .into_par_iter()
            .fold(
                || (Derived::default(), sweep::Scratch::default()),
                |(mut derived, mut scratch), orbit| {
                    sweep.visit(orbit, None, &mut scratch, |slot, _, weight, _, best| {
                        derived.class(key, slot, weight, best)
                    });
                    if let Some(bar) = progress {
                        bar.inc(per_orbit);
                    }
                    (derived, scratch)
                },
            )
            .map(|(derived, _)| derived)
            .reduce(Derived::default, Derived::merge);
        let stored = Stored::of(&self.rules, self.values, key);
        let holes = slots.checked_sub(derived.visited);
        if derived.unreadable > 0 || stored.sum != derived.sum || holes != Some(stored.holes) {
            return None;
        }
        Some(ValueCheck {
            tally: stored.tally(&self.rules, &derived.missing)?,
            visited: derived.visited,
            ..ValueCheck::default()
        })
    }

    /// The derivation with the stored value of every class read and the
    /// contradicted ones derived again slowly (`recheck`), then the slots
    /// in order (`scan`): for a table that `compare` finds wrong, to say
    /// where.
    fn exact(&self, sweep: &Sweep, limit: usize) -> ValueCheck {
        let slots = Indexer::get().slots(self.sector);
        let small = small_values(&self.rules);
        let derived = (0..sweep.orbits())
            .into_par_iter()
            .fold(
                || (ValueCheck::default(), sweep::Scratch::default()),
                |(mut out, mut scratch), orbit| {
                    let own = Some(self.values);
                    sweep.visit(orbit, own, &mut scratch, |slot, _, _, code, best| {
                        out.visited += 1;
                        // Missing values and holes are the scan's to report.
                        let Some(stored) = code.and_then(|c| rule::decode(&self.rules, c)) else {
                            return;
                        };
                        if best != Some(stored.rank()) {
                            self.recheck(&mut out, slot, stored, limit);
                        }
                    });
                    (out, scratch)
                },
            )
            .map(|(out, _)| out)
            .reduce(ValueCheck::default, |a, b| a.merge(b, limit));
        let scanned = (0..slots.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| self.scan(c * CHUNK..((c + 1) * CHUNK).min(slots), &small, limit))
            .reduce(ValueCheck::default, |a, b| a.merge(b, limit));
        let mut out = scanned.merge(derived, usize::MAX);
        out.reported.sort_by_key(|i| i.slot);
        out.reported.truncate(limit);
        out
    }

    /// The slow derivation of a class whose stored value the fast one
    /// contradicts (or could not read): it decides, and says why.
    fn recheck(&self, out: &mut ValueCheck, slot: u64, stored: RuleOutcome, limit: usize) {
        let Some(node) = Indexer::get().unindex(self.sector, slot) else {
            return;
        };
        match self.derive(&node) {
            Ok((derived, _)) if derived == stored => {}
            Ok((derived, best)) => out.fail(
                self.sector,
                slot,
                node,
                explain(stored, derived, best),
                limit,
            ),
            Err(e) => out.fail(self.sector, slot, node, e, limit),
        }
    }

    /// The codes of the sector of a successor.
    #[inline]
    fn table(&self, sector: Sector) -> Option<&[u16]> {
        self.successors
            .iter()
            .find(|(s, _)| *s == sector)
            .map(|(_, v)| *v)
    }

    /// The stored value of a successor, seen by its player to move.
    fn successor(&self, next: &Node) -> Result<RuleOutcome, String> {
        if next.us_total() < 3 {
            return Ok(RuleOutcome::Loss(0));
        }
        let sector = Sector::of(next);
        let Some(values) = self.table(sector) else {
            return Err(format!(
                "a move leads into sector {sector}, which was not loaded"
            ));
        };
        let slot = Indexer::get().index(next);
        match values.get(slot as usize).copied() {
            Some(HOLE) => Err(format!("a move leads to slot {slot} of {sector}, a hole")),
            Some(code) => Ok(rule::decode(&self.rules, code).expect("not a hole")),
            None => Err(format!(
                "a move leads to slot {slot} of {sector}, past its end"
            )),
        }
    }

    /// The value the rules give a position from its successors' stored
    /// values, with the best move (`None` when there is no move); an error
    /// when a successor cannot be read. The slow path, by
    /// `Rules::for_each_move` itself, for messages.
    fn derive(&self, node: &Node) -> Result<(RuleOutcome, Option<Move>), String> {
        let mut best: Option<(RuleOutcome, Move)> = None;
        let mut failure = None;
        self.rules.for_each_move(node, |m, next| {
            match self.successor(&next) {
                Ok(after) => {
                    let mine = rule::move_value(&self.rules, node, m.remove.is_some(), after);
                    let better = match best {
                        None => true,
                        Some((b, _)) => mine.rank() > b.rank(),
                    };
                    if better {
                        best = Some((mine, m));
                    }
                }
                Err(e) => {
                    failure.get_or_insert_with(|| format!("move {m}: {e}"));
                }
            };
        });
        if let Some(e) = failure {
            return Err(e);
        }
        Ok(match best {
            Some((o, m)) => (o, Some(m)),
            None => (RuleOutcome::Loss(0), None),
        })
    }

    /// The slots `range` in order: holes exactly where the index has them,
    /// a value in every other slot, and the counts of those values.
    ///
    /// In an orbit of the opponent's stones whose frame is plain every slot
    /// holds a class of 16 positions, and so only the code matters: the
    /// codes of `small` (values by code, the commonest codes) are counted
    /// in a histogram, turned into tallies once at the end; the others
    /// (holes among them) one by one.
    fn scan(
        &self,
        range: std::ops::Range<u64>,
        small: &[Option<RuleOutcome>; SMALL_CODES],
        limit: usize,
    ) -> ValueCheck {
        let ix = Indexer::get();
        let s = self.sector;
        let mut out = ValueCheck::default();
        let mut histogram = [0u32; SMALL_CODES];
        let per_orbit =
            BINOMIAL[moulin_core::board::POINTS - s.opp_board as usize][s.stm_board as usize];
        let mut start = range.start;
        while start < range.end {
            let orbit = start / per_orbit;
            let end = range.end.min((orbit + 1) * per_orbit);
            let plain = ix
                .representative(s.opp_board as usize, orbit)
                .is_some_and(|rep| ix.frame(rep).is_plain());
            if plain {
                for slot in start..end {
                    match self.values.get(slot as usize) {
                        Some(&code) if small.get(code as usize).is_some_and(Option::is_some) => {
                            histogram[code as usize] += 1
                        }
                        _ => self.tally(&mut out, slot, None, limit),
                    }
                }
            } else {
                for (slot, node) in ix.positions(s, start..end) {
                    self.tally(&mut out, slot, Some(node), limit);
                }
            }
            start = end;
        }
        count_histogram(&mut out.tally, small, histogram.iter().map(|&c| c as u64));
        out
    }

    /// Counts the value of one slot, `node` its position when its orbit has
    /// holes (`None`: the slot is canonical and its class has 16 positions).
    #[inline]
    fn tally(&self, out: &mut ValueCheck, slot: u64, node: Option<Node>, limit: usize) {
        let ix = Indexer::get();
        let position = || {
            node.or_else(|| ix.unindex(self.sector, slot))
                .expect("a slot of the sector")
        };
        let Some(&code) = self.values.get(slot as usize) else {
            let what = "no value: the table is too short".into();
            out.fail(self.sector, slot, position(), what, limit);
            return;
        };
        let weight = match node {
            None => SYMMETRY_COUNT as u64,
            Some(node) => {
                let home = ix.index(&node);
                if home != slot {
                    out.tally.holes += 1;
                    if code != HOLE {
                        let what = format!(
                            "slot is a hole (the position is stored at slot {home}) but holds {}",
                            describe(&self.rules, code)
                        );
                        out.fail(self.sector, slot, node, what, limit);
                    }
                    return;
                }
                SYMMETRY_COUNT as u64 / ix.stabiliser_size(&node) as u64
            }
        };
        let Some(stored) = rule::decode(&self.rules, code) else {
            out.fail(
                self.sector,
                slot,
                position(),
                "canonical slot holds a hole".into(),
                limit,
            );
            return;
        };
        count(&mut out.tally, stored, 1, weight);
    }
}

fn describe(rules: &Rules, code: u16) -> String {
    rule::decode(rules, code).map_or("a hole".into(), |o| o.to_string())
}

/// Why a stored value is not what the rules give.
fn explain(stored: RuleOutcome, derived: RuleOutcome, best: Option<Move>) -> String {
    use RuleOutcome as Outcome;
    let Some(m) = best else {
        return format!("stored {stored}, but the player to move has no move: loss 0");
    };
    match (stored, derived) {
        (Outcome::Win(n), Outcome::Win(k)) if k < n => {
            format!("stored win {n}, but {m} wins sooner: win {k}")
        }
        (Outcome::Win(n), _) => format!(
            "stored win {n}, but no move leads to a loss in {}; the best, {m}, gives {derived}",
            n - 1
        ),
        (Outcome::Loss(n), Outcome::Loss(k)) => {
            format!("stored loss {n}, but the longest defence, {m}, gives loss {k}")
        }
        (Outcome::Loss(n), _) => format!("stored loss {n}, but {m} gives {derived}"),
        (Outcome::Draw, Outcome::Loss(k)) => {
            format!("stored draw, but every move loses; the longest defence, {m}, gives loss {k}")
        }
        (Outcome::Draw, _) => format!("stored draw, but {m} gives {derived}"),
        (_, _) => format!("stored {stored}, but the best move, {m}, gives {derived}"),
    }
}

/// Verifies the tables of a directory (all, or those of `options.sectors`;
/// less those `options.log` records as passed), calling `on_sector` as each
/// is done. Fails only when the directory cannot be read or the log cannot
/// be read or written; everything wrong with the tables is in the report.
pub fn verify(
    options: &VerifyOptions,
    on_sector: &mut dyn FnMut(&SectorVerdict, &[Inconsistency]),
) -> anyhow::Result<VerifyReport> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = options.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build()?;
    run(options, &pool, on_sector)
}

/// The sectors `moulin verify` checks in a directory, in verifying order
/// (`verify/order.rs`): those of `options.sectors`, or every table of the
/// directory and, in a play set, every sector it leaves out and rebuilds
/// whole by one ply.
///
/// # Errors
/// A directory that cannot be listed, or a play set that cannot be opened.
pub fn verify_targets(options: &VerifyOptions) -> anyhow::Result<Vec<Sector>> {
    let listing = list_tables(&options.dir)?;
    let play = match listing.play {
        true => Some(moulin_probe::Tablebase::open_play(&options.dir)?),
        false => None,
    };
    Ok(targets(
        options,
        listing.tables.keys().copied(),
        play.as_ref(),
    ))
}

fn run(
    options: &VerifyOptions,
    pool: &rayon::ThreadPool,
    on_sector: &mut dyn FnMut(&SectorVerdict, &[Inconsistency]),
) -> anyhow::Result<VerifyReport> {
    let start = Instant::now();
    let ix = Indexer::get();
    let dir = &options.dir;
    let Listing {
        tables,
        problems,
        ignored,
        play,
    } = list_tables(dir)?;
    // A play set's values are rebuilt as a probe rebuilds them, then checked
    // like a table's.
    let play = match play {
        true => Some(moulin_probe::Tablebase::open_play(dir)?),
        false => None,
    };
    let load = |s: Sector| match &play {
        Some(tb) => load_play(tb, s, pool),
        None => load(&tables[&s], s),
    };
    let headers: BTreeMap<Sector, Result<TableSummary, String>> = tables
        .iter()
        .map(|(&s, p)| (s, read_header(p, s)))
        .collect();
    // The directory's rules: those of most tables (one directory holds one rule set).
    let mut seen: Vec<(Rules, usize)> = Vec::new();
    for s in headers.values().flatten() {
        match seen.iter_mut().find(|(r, _)| *r == s.rules) {
            Some((_, n)) => *n += 1,
            None => seen.push((s.rules, 1)),
        }
    }
    let rules = seen
        .iter()
        .max_by_key(|&&(r, n)| (n, r.flying))
        .map_or_else(Rules::default, |&(r, _)| r);
    let mut log = options
        .log
        .as_deref()
        .map(|path| SectorLog::open(path, SectorVerdict::passed_in))
        .transpose()?;
    let (skipped, targets): (Vec<Sector>, Vec<Sector>) =
        targets(options, tables.keys().copied(), play.as_ref())
            .into_iter()
            .partition(|&s| log.as_ref().is_some_and(|log| log.passed(s)));
    let mut report = VerifyReport {
        rules,
        problems,
        ignored,
        skipped,
        ..VerifyReport::default()
    };

    let total: u64 = targets.iter().map(|&s| ix.slots(s)).sum();
    let bar = if options.progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>8} [{elapsed_precise}] [{bar:40}] {percent:>3}% eta {eta_precise} {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let usable = |s: Sector| -> Result<(), String> {
        if play.as_ref().is_some_and(|tb| tb.is_left_out(s)) {
            // Rebuilt by one ply from the sectors its turns lead into.
            return Ok(());
        }
        let Some(path) = tables.get(&s) else {
            return Err(format!("no table for sector {s} in {}", dir.display()));
        };
        let summary = headers[&s].as_ref().map_err(Clone::clone)?;
        if summary.rules != rules {
            return Err(format!(
                "{} was solved with {}, the other tables with {}: one directory holds one rule set",
                path.display(),
                summary.rules,
                rules
            ));
        }
        Ok(())
    };

    let mut cache: HashMap<Sector, Result<Loaded, String>> = HashMap::new();
    let mut kept: Option<Captures> = None;
    let mut done = 0u64;
    for (i, &sector) in targets.iter().enumerate() {
        let next = targets.get(i + 1).copied();
        // The best captures of the sector before, if this one shares them.
        let captures = kept.take();
        let sector_start = Instant::now();
        bar.set_prefix(sector.name());
        let mut verdict = SectorVerdict {
            sector,
            path: tables
                .get(&sector)
                .cloned()
                .unwrap_or_else(|| dir.join(format!("{}.{EXTENSION}", sector.name()))),
            slots: 0,
            inconsistencies: 0,
            problems: Vec::new(),
            wdl_checked: false,
            time: Duration::ZERO,
        };
        let successors: Vec<Sector> = sector
            .successors()
            .into_iter()
            .filter(|s| *s != sector)
            .collect();
        // Only what this sector or the next reads stays decoded.
        cache.retain(|&s, _| order::wanted(s, sector, next));
        for &s in std::iter::once(&sector).chain(&successors) {
            if let Entry::Vacant(slot) = cache.entry(s) {
                bar.set_message(format!("reading {s}"));
                slot.insert(usable(s).and_then(|()| load(s)));
            }
        }
        let mut check = ValueCheck::default();
        match &cache[&sector] {
            Err(e) => verdict.problems.push(e.clone()),
            Ok(own) => {
                let mut lookups = vec![(sector, own.values.as_slice())];
                for &s in &successors {
                    match &cache[&s] {
                        Ok(t) => lookups.push((s, t.values.as_slice())),
                        Err(e) => verdict.problems.push(format!(
                            "cannot check {sector}: its turns lead into {s}, which is unusable: {e}"
                        )),
                    }
                }
                if verdict.problems.is_empty() {
                    bar.set_message("checking values");
                    let values = SectorValues {
                        rules,
                        sector,
                        values: &own.values,
                        successors: lookups,
                    };
                    let limit = options.max_reports.saturating_sub(report.reported.len());
                    let shares =
                        order::shares_captures(sector, next, rules.no_capture_limit.is_some());
                    let (checked, captures) =
                        pool.install(|| values.check_sharing(limit, Some(&bar), captures));
                    check = checked;
                    kept = captures.filter(|_| shares);
                    verdict.slots = own.values.len() as u64;
                    verdict.inconsistencies = check.inconsistencies;
                    if let Some(summary) = &own.summary {
                        verdict
                            .problems
                            .extend(check.tally.header_disagreements(summary));
                    }
                    let wdl_path = dir.join(format!("{}.{WDL_EXTENSION}", sector.name()));
                    // A play set's outcome tables were read to rebuild it.
                    let wdl = match play {
                        Some(_) => Ok(false),
                        None => check_wdl(&wdl_path, own),
                    };
                    match wdl {
                        Ok(checked) => verdict.wdl_checked = checked,
                        Err(e) => verdict.problems.push(e),
                    }
                    let canonical = ix.slots(sector) - check.tally.holes;
                    if own.values.len() as u64 == ix.slots(sector) && check.visited != canonical {
                        verdict.problems.push(format!(
                            "the derivation visited {} classes of {sector}, which has {canonical} \
                             (a bug of the verifier)",
                            check.visited
                        ));
                    }
                }
            }
        }
        done += ix.slots(sector);
        bar.set_position(done);
        verdict.time = sector_start.elapsed();
        bar.suspend(|| on_sector(&verdict, &check.reported));
        if let Some(log) = &mut log {
            log.append(&verdict.describe(&check.reported))?;
        }
        report.reported.extend(check.reported);
        report.sectors.push(verdict);
    }
    bar.finish_and_clear();
    report.time = start.elapsed();
    Ok(report)
}
