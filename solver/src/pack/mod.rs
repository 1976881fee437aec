//! Play sets (`moulin_core::play`) written from a directory of distance
//! tables: per sector an outcome table (`.mtw`) and the distances of one
//! side or of both (`.mtd`; with both, [`LeaveOut`] may leave sectors
//! without files), each read back against its source before it replaces
//! anything. A sector whose two files are already there and match its table
//! is skipped, so an interrupted run resumes. Each sector written appends a
//! line to [`RECORD_FILE`] in the play set: its bytes beside the full
//! table's, and the empirical entropy of the symbols stored.
//!
//! [`check`] compares every slot of a play set with the tables, each value
//! rebuilt as a probe rebuilds it; [`check_sample`] probes random positions
//! on both.

use crate::solve::driver::lock_directory;
use crate::write::{write_contents, Contents, WriteOptions};
use crate::InputError;
use anyhow::Context;
use moulin_core::index::{numbered_as, Indexer, MOVER_MAJOR};
use moulin_core::table::{Encoding, PlaySide, Table, TableKind, TableSummary};
use moulin_probe::{Sector, Tablebase};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod check;
mod record;

pub use check::{check, check_sample, CheckReport, SampleReport, SectorCheck};
pub use record::RECORD_FILE;
use record::{record, Entropy};

/// Sectors a play set of both sides may leave out, each position of them
/// rebuilt by one ply over the sectors its turns lead into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaveOut {
    /// The placement sectors with Black to move (one stone more in hand
    /// than White) whose turns all lead into sectors packed with them.
    BlackPlacement,
}

/// How to pack.
#[derive(Clone, Debug)]
pub struct PackOptions {
    /// Directory of the play set.
    pub out: PathBuf,
    /// zstd level (1..=22).
    pub level: i32,
    /// Which side's distances to store.
    pub side: PlaySide,
    /// Sectors to leave out (with `PlaySide::Both` only).
    pub leave_out: Option<LeaveOut>,
    /// Decompressed KiB of an outcome table's block, and so of a dense
    /// distance table's.
    pub outcome_block_kib: u32,
    /// Index scheme of the play set's tables (`moulin_core::index`).
    pub numbering: u8,
    /// Threads compressing (`None` or 0: the number of cores).
    pub threads: Option<usize>,
}

/// What a pack reports as it goes (from several threads at once).
#[derive(Debug)]
pub enum PackEvent<'a> {
    /// The slots of every sector to pack or already packed, before any.
    Slots(u64),
    /// A sector already packed with these settings, skipped.
    Kept {
        /// The sector.
        sector: Sector,
        /// Its slots.
        slots: u64,
    },
    /// A sector begins.
    Packing(Sector),
    /// A sector is packed.
    Packed(&'a PackedSector),
}

/// One sector packed.
#[derive(Clone, Debug)]
pub struct PackedSector {
    /// The sector.
    pub sector: Sector,
    /// Its slots.
    pub slots: u64,
    /// Bytes of its distance table.
    pub table_bytes: u64,
    /// Bytes of the outcome table written.
    pub outcome_bytes: u64,
    /// Bytes of the play distance table written.
    pub distance_bytes: u64,
    /// The side whose distances are stored.
    pub side: PlaySide,
    /// Bits per stored class of the symbols stored, at order 0.
    pub order0_bits: f64,
    /// Bits per stored class of the symbols stored, given the one before.
    pub order1_bits: f64,
    /// Seconds the sector took.
    pub seconds: f64,
    /// Why its line could not be appended to the record, if it could not
    /// (the sector is packed all the same).
    pub unrecorded: Option<String>,
}

/// What a pack did.
#[derive(Clone, Debug)]
pub struct PackReport {
    /// Sectors packed.
    pub packed: usize,
    /// Sectors already packed, skipped.
    pub kept: usize,
    /// Sectors left out.
    pub left_out: usize,
    /// Bytes of the tables of every sector chosen (those left out too).
    pub table_bytes: u64,
    /// Bytes of the play set's files of the sectors packed and kept.
    pub play_bytes: u64,
    /// Time of the pack.
    pub time: Duration,
}

/// Opens the distance tables in `dir` for a play set in `out`, which is
/// made if missing.
///
/// # Errors
/// [`InputError`] when `dir` holds no distance tables or `out` is `dir`; an
/// error when either cannot be read or made.
pub fn open_tables(dir: &Path, out: &Path) -> anyhow::Result<Tablebase> {
    let tb =
        Tablebase::open(dir).with_context(|| format!("opening the tables in {}", dir.display()))?;
    if tb.is_wdl() || tb.is_play_set() || tb.sectors().next().is_none() {
        return Err(InputError(format!("no distance tables (*.mtb) in {}", dir.display())).into());
    }
    std::fs::create_dir_all(out).with_context(|| format!("making {}", out.display()))?;
    if same_directory(dir, out) {
        return Err(InputError(format!(
            "--out {} is the directory of the tables: a play set needs its own",
            out.display()
        ))
        .into());
    }
    Ok(tb)
}

/// Packs the tables of `sectors` in `tb` into the play set of `options`,
/// which it holds locked meanwhile: each sector not already packed with
/// these settings, side by side on `options.threads`, telling `on` as it
/// goes.
///
/// # Errors
/// [`InputError`] when [`LeaveOut`] is asked without both sides, or would
/// leave out a sector the play set holds files of; an error when a table
/// cannot be read or a file written.
pub fn pack(
    tb: &Tablebase,
    mut sectors: Vec<Sector>,
    options: &PackOptions,
    on: &(dyn Fn(PackEvent<'_>) + Sync),
) -> anyhow::Result<PackReport> {
    let _lock = lock_directory(&options.out)?;
    let left_out = left_out(&sectors, options)?;
    sectors.retain(|s| !left_out.contains(s));
    let ix = Indexer::get();
    on(PackEvent::Slots(sectors.iter().map(|&s| ix.slots(s)).sum()));
    let start = Instant::now();
    let (mut full, mut packed, mut kept) = (0u64, 0u64, 0usize);
    let mut todo = Vec::new();
    for &sector in &sectors {
        let summary = *tb.summary(sector)?;
        full += summary.bytes;
        match packed_already(&options.out, &summary, options) {
            Some(bytes) => {
                packed += bytes;
                kept += 1;
                let slots = ix.slots(sector);
                on(PackEvent::Kept { sector, slots });
            }
            None => todo.push(summary),
        }
    }
    // Reading a table and checking what was written take one thread: so
    // sectors are packed side by side, each compressed on one thread, unless
    // there are fewer sectors than threads.
    let threads = match options.threads {
        Some(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let write = WriteOptions {
        level: options.level,
        block_bytes: options.outcome_block_kib << 10,
        encoding: None,
        threads: if todo.len() < threads { threads } else { 1 },
        scheme: options.numbering,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let new_bytes = AtomicU64::new(0);
    pool.install(|| {
        use rayon::prelude::*;
        todo.par_iter().with_max_len(1).try_for_each(|summary| {
            on(PackEvent::Packing(summary.sector));
            let done = pack_sector(tb, summary, options, &write)?;
            new_bytes.fetch_add(done.outcome_bytes + done.distance_bytes, Ordering::Relaxed);
            on(PackEvent::Packed(&done));
            anyhow::Ok(())
        })
    })?;
    packed += new_bytes.into_inner();
    // The tables of the sectors left out count in the whole.
    for &sector in &left_out {
        full += tb.summary(sector)?.bytes;
    }
    Ok(PackReport {
        packed: todo.len(),
        kept,
        left_out: left_out.len(),
        table_bytes: full,
        play_bytes: packed,
        time: start.elapsed(),
    })
}

/// The sectors `options.leave_out` names among `sectors`: the placement
/// sectors with Black to move (one stone more in hand than White) whose
/// turns all lead into sectors packed with them. An input error if the side
/// is not `Both`, or if the play set already holds a file of such a sector.
fn left_out(sectors: &[Sector], options: &PackOptions) -> anyhow::Result<Vec<Sector>> {
    let Some(LeaveOut::BlackPlacement) = options.leave_out else {
        return Ok(Vec::new());
    };
    if options.side != PlaySide::Both {
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
            let path = options
                .out
                .join(format!("{}.{}", s.name(), kind.extension()));
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
/// back before it replaces anything, and its line of the record.
fn pack_sector(
    tb: &Tablebase,
    summary: &TableSummary,
    options: &PackOptions,
    write: &WriteOptions,
) -> anyhow::Result<PackedSector> {
    let (sector, clock) = (summary.sector, Instant::now());
    let values = tb
        .sector_values(sector)
        .with_context(|| format!("reading the table of {sector}"))?;
    let values = match options.numbering {
        MOVER_MAJOR => {
            crate::verify::rebuild::renumbered(numbered_as(sector, MOVER_MAJOR), &values)
        }
        _ => values,
    };
    let mut bytes = [0u64; 2];
    for (i, what) in [Contents::Outcomes, Contents::Play(options.side)]
        .into_iter()
        .enumerate()
    {
        let (rules, out) = (summary.rules, &options.out);
        // A dense distance table has the blocks of its outcome table.
        let new = write_contents(out, what, sector, rules, &values, write, true)
            .with_context(|| format!("writing {} of {sector}", what.kind().describe()))?;
        bytes[i] = new.bytes;
    }
    let entropy = Entropy::of(&summary.rules, options.side, &values);
    let seconds = clock.elapsed().as_secs_f64();
    let unrecorded = record(
        &options.out,
        summary,
        options.side,
        bytes,
        &entropy,
        seconds,
    )
    .err();
    Ok(PackedSector {
        sector,
        slots: Indexer::get().slots(sector),
        table_bytes: summary.bytes,
        outcome_bytes: bytes[0],
        distance_bytes: bytes[1],
        side: options.side,
        order0_bits: entropy.per_class(entropy.order0),
        order1_bits: entropy.per_class(entropy.order1),
        seconds,
        unrecorded,
    })
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
fn packed_already(dir: &Path, summary: &TableSummary, options: &PackOptions) -> Option<u64> {
    let outcome_slots =
        Encoding::of_outcomes(&summary.rules).slots_in((options.outcome_block_kib as u64) << 10);
    // The distances are dense when every symbol fits a byte (`symbol`:
    // half a plain distance, a DTC, or a DTC less one for a win).
    let dense = match (summary.rules.no_capture_limit, options.side) {
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
            && s.level == options.level
            && s.scheme == options.numbering
            && match kind {
                TableKind::Outcomes => s.block_slots as u64 == outcome_slots,
                _ => {
                    s.play == Some(options.side)
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
