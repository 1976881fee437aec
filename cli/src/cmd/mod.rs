//! The subcommands of `moulin`, one file each.

pub mod fetch;
pub mod moves;
pub mod pack;
pub mod perft;
pub mod probe;
pub mod prove;
pub mod review;
pub mod sectors;
pub mod serve;
pub mod solve;
pub mod stats;
pub mod tamper;
pub mod verify;
pub mod wdl;

use std::process::ExitCode;

/// An error in what the user typed (a position, a move, a sector name, or
/// what the libraries refuse to do as asked): reported on one line with
/// exit code 2.
pub use moulin::InputError;

/// What a subcommand reports: `Ok(true)` success, `Ok(false)` a check that
/// failed (exit code 1), or an error.
pub type Outcome = anyhow::Result<bool>;

/// Turns a subcommand's result into the process exit code: 0 success,
/// 1 a failed check or an operational error, 2 invalid input.
pub fn exit(result: Outcome) -> ExitCode {
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) if e.downcast_ref::<InputError>().is_some() => {
            eprintln!("moulin: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("moulin: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Parses a position typed by the user; an invalid one is an `InputError`.
pub fn parse_position(text: &str) -> anyhow::Result<moulin_probe::Position> {
    text.parse()
        .map_err(|e| InputError(format!("invalid position `{text}`: {e}")).into())
}

/// Refuses tables solved under the no-capture rule for a command that
/// reads values without a counter.
pub fn no_rule_tables(tb: &moulin_probe::Tablebase, command: &str) -> anyhow::Result<()> {
    match tb.no_capture_limit() {
        Some(n) => Err(InputError(format!(
            "the tables in {} were solved with a no-capture limit of {n} turns; \
             `moulin {command}` reads tables without the rule (`moulin probe --counter C` \
             answers under it)",
            tb.dir().display()
        ))
        .into()),
        None => Ok(()),
    }
}

/// The sectors named by `names` (`--sector`), each of which must have a
/// table in `tb`; every sector of `tb` when none is named.
pub fn chosen_sectors(
    tb: &moulin_probe::Tablebase,
    names: &[String],
) -> anyhow::Result<Vec<moulin_probe::Sector>> {
    let present: Vec<moulin_probe::Sector> = tb.sectors().map(|(s, _)| s).collect();
    if names.is_empty() {
        return Ok(present);
    }
    names
        .iter()
        .map(|name| {
            let s: moulin_probe::Sector = name
                .parse()
                .map_err(|e| InputError(format!("invalid sector `{name}`: {e}")))?;
            if !present.contains(&s) {
                return Err(InputError(format!(
                    "no table of sector {s} in {}",
                    tb.dir().display()
                ))
                .into());
            }
            Ok(s)
        })
        .collect()
}

/// The progress bar of a pass over sectors, `total` slots (hidden with
/// `quiet`); the message names the sector at hand.
pub fn sector_bar(total: u64, quiet: bool) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let target = match quiet {
        true => ProgressDrawTarget::hidden(),
        false => ProgressDrawTarget::stderr(),
    };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        ProgressStyle::with_template(
            "[{elapsed_precise}] [{bar:40}] {percent:>3}% eta {eta_precise} {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}
