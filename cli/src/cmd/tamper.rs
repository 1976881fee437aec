//! `moulin tamper`: rewrite the stored value of one position, keeping the
//! file well formed (re-encoded with the same layout, counts and checksums
//! recomputed, written to a temporary file and renamed), so that only
//! `moulin verify` can tell. A maintenance tool for testing the verifier.

use super::verify::say;
use super::{parse_position, InputError};
use anyhow::Context;
use moulin::write::{write_table_with, WriteOptions};
use moulin_core::index::Indexer;
use moulin_core::table::read::check_file_name;
use moulin_core::table::read::read_summary;
use moulin_core::table::PositionalFile;
use moulin_core::table::{Encoding, Table, EXTENSION};
use moulin_core::value::MAX_RULE_DISTANCE;
use moulin_core::value::{HOLE, MAX_DISTANCE};
use moulin_probe::{Outcome, RuleOutcome, Sector};
use std::path::{Path, PathBuf};

/// Arguments of `moulin tamper`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// The position whose value to rewrite, e.g. `W:a1,d1,g1 B:b2,d2,f2 b`.
    pub position: String,
    /// The new outcome for the player to move: `win`, `loss` or `draw`
    /// (rule tables: also `cursed-win` and `blessed-loss`).
    pub outcome: String,
    /// The new distance in turns (odd for a win, even for a loss, none for
    /// a draw; rule tables: the distance to conversion, any parity).
    pub distance: Option<u16>,
}

/// The outcome the user asked for, checked.
pub fn parse_outcome(word: &str, distance: Option<u16>) -> Result<Outcome, InputError> {
    let outcome = match (word, distance) {
        ("draw", None) => Outcome::Draw,
        ("draw", Some(_)) => return Err(InputError("a draw has no distance".into())),
        ("win" | "loss", None) => {
            return Err(InputError(format!("a {word} needs a distance in turns")))
        }
        ("win", Some(d)) if d % 2 == 1 => Outcome::Win(d),
        ("win", Some(d)) => {
            return Err(InputError(format!(
                "a win has an odd distance (the winner moves last), not {d}"
            )))
        }
        ("loss", Some(d)) if d % 2 == 0 => Outcome::Loss(d),
        ("loss", Some(d)) => {
            return Err(InputError(format!("a loss has an even distance, not {d}")))
        }
        (other, _) => {
            return Err(InputError(format!(
                "unknown outcome `{other}` (expected win, loss or draw)"
            )))
        }
    };
    if outcome.distance().unwrap_or(0) > MAX_DISTANCE {
        return Err(InputError(format!(
            "a distance beyond {MAX_DISTANCE} cannot be stored"
        )));
    }
    Ok(outcome)
}

/// The value the user asked for in a rule table, checked.
pub fn parse_rule_outcome(word: &str, distance: Option<u16>) -> Result<RuleOutcome, InputError> {
    let value = match (word, distance) {
        ("draw", None) => RuleOutcome::Draw,
        ("draw", Some(_)) => return Err(InputError("a draw has no distance".into())),
        (_, None) => return Err(InputError(format!("a {word} needs a distance in turns"))),
        ("win", Some(d)) => RuleOutcome::Win(d),
        ("cursed-win", Some(d)) => RuleOutcome::CursedWin(d),
        ("blessed-loss", Some(d)) => RuleOutcome::BlessedLoss(d),
        ("loss", Some(d)) => RuleOutcome::Loss(d),
        (other, _) => {
            return Err(InputError(format!(
                "unknown outcome `{other}` (expected win, cursed-win, draw, blessed-loss or loss)"
            )))
        }
    };
    value.code().ok_or_else(|| {
        InputError(format!(
            "a distance beyond {MAX_RULE_DISTANCE} cannot be stored"
        ))
    })?;
    Ok(value)
}

/// Rewrites the code of one slot of a table file: reads and checks the whole
/// table, changes the code, and writes the table again with the same rules,
/// block size, compression level and (when the code fits) encoding. Returns
/// the code it replaced.
pub fn rewrite_slot(path: &Path, sector: Sector, slot: u64, code: u16) -> anyhow::Result<u16> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let table = Table::new(bytes).with_context(|| format!("{} is damaged", path.display()))?;
    check_file_name(path, table.sector()).with_context(|| format!("{}", path.display()))?;
    if table.sector() != sector {
        anyhow::bail!(
            "{} holds sector {}, not {sector}",
            path.display(),
            table.sector()
        );
    }
    let mut values = table
        .decode_all()
        .with_context(|| format!("{} is damaged", path.display()))?;
    let summary = *table.summary();
    drop(table);
    let Some(value) = values.get_mut(slot as usize) else {
        anyhow::bail!("slot {slot} is past the end of {}", path.display());
    };
    let old = std::mem::replace(value, code);
    let encoding = match summary.encoding {
        Encoding::U8 if code >= u8::MAX as u16 => None,
        e => Some(e),
    };
    let options = WriteOptions {
        level: summary.level,
        block_bytes: summary.block_slots * summary.encoding.width() as u32,
        encoding,
        scheme: summary.scheme,
        threads: 0,
    };
    write_table_with(path, sector, summary.rules, &values, &options)
        .with_context(|| format!("cannot rewrite {}", path.display()))?;
    Ok(old)
}

/// Runs `moulin tamper`.
pub fn run(args: &Args) -> super::Outcome {
    let position = parse_position(&args.position)?;
    let node = position.node();
    if node.us_total() < 3 {
        return Err(InputError(format!(
            "the game is over in `{position}` (the player to move has fewer than three stones): no table stores it"
        ))
        .into());
    }
    let sector = Sector::of(&node);
    let path = args.dir.join(format!("{}.{EXTENSION}", sector.name()));
    if !path.is_file() {
        anyhow::bail!("no table for sector {sector} in {}", args.dir.display());
    }
    let slot = Indexer::get().index(&node);
    let _lock = moulin::solve::driver::lock_directory(&args.dir)?;
    let file =
        PositionalFile::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let rule = read_summary(&file)
        .with_context(|| format!("{} is damaged", path.display()))?
        .rules
        .no_capture_limit
        .is_some();
    drop(file);
    let (code, outcome) = if rule {
        let v = parse_rule_outcome(&args.outcome, args.distance)?;
        (v.code(), v.to_string())
    } else {
        let o = parse_outcome(&args.outcome, args.distance)?;
        (o.code(), o.to_string())
    };
    let old = rewrite_slot(&path, sector, slot, code.context("no code for that value")?)?;
    let old = match old {
        HOLE => "a hole".to_string(),
        c if rule => RuleOutcome::from_code(c).expect("not a hole").to_string(),
        c => Outcome::from_code(c).expect("not a hole").to_string(),
    };
    say(format_args!(
        "{}: sector {sector} slot {slot}: {old} -> {outcome}",
        path.display()
    ));
    Ok(true)
}
