//! A play set checked against its tables: every slot rebuilt as a probe
//! rebuilds it ([`check`]), or random positions probed on both
//! ([`check_sample`]).

use crate::sector_log::SectorLog;
use anyhow::Context;
use moulin_core::index::Indexer;
use moulin_core::seeded::splitmix64;
use moulin_probe::{Position, Sector, Tablebase};
use std::path::Path;
use std::time::{Duration, Instant};

/// One sector of a play set compared with its table, slot by slot.
#[derive(Clone, Debug)]
pub struct SectorCheck {
    /// The sector.
    pub sector: Sector,
    /// Slots compared.
    pub slots: u64,
    /// Slots whose rebuilt value differs from the table's.
    pub differ: u64,
    /// The first such slot, and what the play set and the table give there.
    pub first: Option<(u64, String)>,
    /// Time of the sector.
    pub time: Duration,
}

impl SectorCheck {
    /// Whether every slot agrees.
    pub fn passed(&self) -> bool {
        self.differ == 0
    }

    /// The sector's line: `3v3: 5172 slots agree (0.1 s)`, or how many
    /// differ and the first.
    pub fn line(&self) -> String {
        match &self.first {
            Some((slot, what)) => format!(
                "{}: {} slots differ; the first, slot {slot}: the play set gives {what}",
                self.sector, self.differ
            ),
            None => format!(
                "{}: {} slots agree ({:.1} s)",
                self.sector,
                self.slots,
                self.time.as_secs_f64()
            ),
        }
    }

    /// The sector a line of [`SectorCheck::line`] says agrees, if it is
    /// such a line.
    pub fn agreed(line: &str) -> Option<Sector> {
        let (sector, rest) = line.split_once(": ")?;
        let mut words = rest.split(' ');
        words.next()?.parse::<u64>().ok()?;
        (words.next()? == "slots" && words.next()? == "agree").then_some(())?;
        sector.parse().ok()
    }
}

/// What [`check`] found.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// Sectors compared.
    pub sectors: usize,
    /// Sectors skipped: the log recorded them as agreeing.
    pub skipped: usize,
    /// Slots compared.
    pub slots: u64,
    /// Slots that differ.
    pub differ: u64,
    /// Time of the check.
    pub time: Duration,
}

/// Compares every slot of `sectors` in the play set in `play_dir` with the
/// tables of `tables`, each value rebuilt as a probe rebuilds it, on
/// `threads` (`None`: one per core), and calls `on_sector` with each. With
/// a `log` ([`SectorLog`]), the sectors it records as agreeing are skipped
/// and each sector's line is appended to it, or for a sector that cannot be
/// checked, the error.
///
/// # Errors
/// A play set or a log that cannot be opened, a file that cannot be read or
/// whose checksum fails, a sector that cannot be rebuilt: the check stops
/// there.
pub fn check(
    tables: &Tablebase,
    play_dir: &Path,
    sectors: &[Sector],
    threads: Option<usize>,
    log: Option<&Path>,
    on_sector: &mut dyn FnMut(&SectorCheck),
) -> anyhow::Result<CheckReport> {
    let play = Tablebase::open_play(play_dir)
        .with_context(|| format!("opening the play set in {}", play_dir.display()))?;
    let mut log = log
        .map(|path| SectorLog::open(path, SectorCheck::agreed))
        .transpose()?;
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build()?;
    let start = Instant::now();
    let todo: Vec<Sector> = match &log {
        Some(log) => sectors
            .iter()
            .copied()
            .filter(|&s| !log.passed(s))
            .collect(),
        None => sectors.to_vec(),
    };
    let (mut slots, mut differ) = (0u64, 0u64);
    for &sector in &todo {
        let compared = compare(tables, &play, sector, &pool);
        match (&compared, &mut log) {
            (Ok(c), Some(log)) => log.append(&c.line())?,
            // The error stops the check; the log says which sector it was.
            (Err(e), Some(log)) => {
                let _ = log.append(&format!("{sector}: cannot be checked: {e:#}"));
            }
            (_, None) => {}
        }
        let compared = compared?;
        slots += compared.slots;
        differ += compared.differ;
        on_sector(&compared);
    }
    Ok(CheckReport {
        sectors: todo.len(),
        skipped: sectors.len() - todo.len(),
        slots,
        differ,
        time: start.elapsed(),
    })
}

/// One sector of the play set rebuilt and compared with its table.
fn compare(
    tables: &Tablebase,
    play: &Tablebase,
    sector: Sector,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<SectorCheck> {
    let clock = Instant::now();
    let full = tables
        .sector_values(sector)
        .with_context(|| format!("reading the table of {sector}"))?;
    play.check_checksum(sector)
        .with_context(|| format!("checking the files of {sector}"))?;
    let rebuilt = crate::verify::rebuild::sector(play, sector, pool)
        .with_context(|| format!("rebuilding {sector} from the play set"))?;
    let mut differ = full
        .iter()
        .zip(&rebuilt)
        .enumerate()
        .filter(|(_, (a, b))| a != b);
    let first = differ
        .next()
        .map(|(slot, (want, got))| (slot as u64, format!("{got}, the table {want}")));
    Ok(SectorCheck {
        sector,
        slots: full.len() as u64,
        differ: first.is_some() as u64 + differ.count() as u64,
        first,
        time: clock.elapsed(),
    })
}

/// What [`check_sample`] found.
#[derive(Clone, Debug)]
pub struct SampleReport {
    /// Positions probed.
    pub positions: u64,
    /// Sectors they were drawn from.
    pub sectors: usize,
    /// A line for each position whose answers differ, in drawing order.
    pub differ: Vec<String>,
    /// Time of the check.
    pub time: Duration,
}

/// Probes `n` random positions of `sectors` (each sector by its share of
/// the slots, drawn from `seed`) on the tables and on the play set in
/// `play_dir`, their values and every move's value, on `threads` (`None`:
/// one per core).
///
/// # Errors
/// A play set that cannot be opened; a probe that fails is a difference.
pub fn check_sample(
    tables: &Tablebase,
    play_dir: &Path,
    sectors: &[Sector],
    n: u64,
    seed: u64,
    threads: Option<usize>,
) -> anyhow::Result<SampleReport> {
    use rayon::prelude::*;
    let play = Tablebase::open_play(play_dir)
        .with_context(|| format!("opening the play set in {}", play_dir.display()))?;
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
    if let Some(t) = threads {
        pool = pool.num_threads(t);
    }
    let start = Instant::now();
    let differ: Vec<String> = pool.build()?.install(|| {
        (0..n)
            .into_par_iter()
            .map(|k| {
                let mut draw = splitmix64(seed ^ splitmix64(k));
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
                let (want, got) = (answer(tables), answer(&play));
                (want != got)
                    .then(|| format!("{sector} {pos}: the tables {want}, the play set {got}"))
            })
            .flatten()
            .collect()
    });
    Ok(SampleReport {
        positions: n,
        sectors: sectors.len(),
        differ,
        time: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_of_agreeing_sectors_are_told() {
        let s: Sector = "4v3".parse().unwrap();
        let agree = SectorCheck {
            sector: s,
            slots: 5172,
            differ: 0,
            first: None,
            time: Duration::from_millis(300),
        };
        assert_eq!(agree.line(), "4v3: 5172 slots agree (0.3 s)");
        assert_eq!(SectorCheck::agreed(&agree.line()), Some(s));
        let differ = SectorCheck {
            differ: 3,
            first: Some((7, "loss 2, the table loss 4".into())),
            ..agree
        };
        assert_eq!(SectorCheck::agreed(&differ.line()), None);
        for line in [
            "4v3: cannot be checked: checking the files of 4v3: checksum mismatch",
            "4v3: slots agree",
            "== 4v3: 12 slots agree",
        ] {
            assert_eq!(SectorCheck::agreed(line), None, "{line}");
        }
    }
}
