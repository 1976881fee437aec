//! `moulin tamper`: rewrite the stored value of one position, keeping the
//! file well formed, so that only `moulin verify` can tell
//! (`moulin::tamper`). A maintenance tool for testing the verifier.

use super::verify::say;
use super::{parse_position, InputError};
use anyhow::Context;
use moulin::tamper::{locate, rewrite_slot, stored_rules};
use moulin_core::value::MAX_RULE_DISTANCE;
use moulin_core::value::{HOLE, MAX_DISTANCE};
use moulin_probe::{Outcome, RuleOutcome};
use std::path::PathBuf;

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
    let (path, sector, slot) = locate(&args.dir, &node)?;
    let _lock = moulin::solve::driver::lock_directory(&args.dir)?;
    let rule = stored_rules(&path)?.no_capture_limit.is_some();
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
