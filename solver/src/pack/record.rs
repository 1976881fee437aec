//! The record of a pack, [`RECORD_FILE`] in the play set: a line per sector
//! written, its bytes beside the table's and the empirical entropy of what
//! it stores.

use moulin_core::play::{outcome_code, symbol};
use moulin_core::table::{PlaySide, TableSummary};
use moulin_probe::Rules;
use serde_json::json;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Name of the record in the play set's directory.
pub const RECORD_FILE: &str = "pack-record.jsonl";

/// Empirical entropy of what a play set stores for one sector, in bits.
pub(super) struct Entropy {
    /// Classes of the stored side (the symbols that count).
    pub stored: u64,
    /// Their symbols at order 0.
    pub order0: f64,
    /// Their symbols given the symbol of the win before (in slot order).
    pub order1: f64,
    /// The outcome of every class at order 0.
    pub outcomes: f64,
}

impl Entropy {
    pub fn of(rules: &Rules, side: PlaySide, values: &[u16]) -> Entropy {
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
    pub fn per_class(&self, total: f64) -> f64 {
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

/// Appends the sector's line to the record; a failure is said, not fatal.
pub(super) fn record(
    dir: &Path,
    s: &TableSummary,
    side: PlaySide,
    bytes: [u64; 2],
    e: &Entropy,
    seconds: f64,
) -> Result<(), String> {
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
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{line}"))
        .map_err(|e| format!("could not append to {}: {e}", path.display()))
}
