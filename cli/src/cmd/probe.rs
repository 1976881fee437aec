//! `moulin probe`: the outcome, distance and best moves of positions, read
//! from the tables; one JSON line per position for front ends (`--json`),
//! also as a filter over standard input (`-`).

use anyhow::Context;
use moulin_probe::report::{JsonError, Report};
use moulin_probe::{AdviceOptions, Chances, Position, ProbeError, RuleOutcome, Rules, Tablebase};
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Arguments of `moulin probe`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions, e.g. `W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w`; `-` reads one
    /// position per line from standard input and answers each line in order
    /// (blank lines are skipped, a line that cannot be answered gets an
    /// error and the others go on).
    #[arg(required = true)]
    pub positions: Vec<String>,
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Print one JSON object per position per line: `position`, `outcome`
    /// (`win`, `loss`, `draw`; with rule tables also `cursed-win` and
    /// `blessed-loss`), `distance` (turns, null for a draw; with rule
    /// tables the distance to conversion),
    /// `best_moves`, and `moves` (`move`, `outcome`, `distance` and
    /// `chances` for each), or `position` and `error`.
    #[arg(long)]
    pub json: bool,
    /// Leave out the practical chances of each move (what the opponent's
    /// replies do; one probe per reply).
    #[arg(long)]
    pub no_chances: bool,
    /// Plies the practical chances look at: 2 counts the opponent's replies;
    /// 4, 6, ... also follow the replies that are not mistakes, within a
    /// budget of 1,000,000 probes (`docs/practical-chances.md`).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=12))]
    pub depth: u8,
    /// Turns played since the last capture or placement, for tables solved
    /// with `--no-capture-limit N` (0 <= C < N; 0 with stones in hand):
    /// the position and every move are valued at their counter.
    #[arg(long, default_value_t = 0, value_name = "C")]
    pub counter: u16,
    /// Insist on the rules without flying: an error if the tables were
    /// solved with flying (by default the rules are those of the tables).
    #[arg(long)]
    pub no_flying: bool,
}

/// The text of `moulin probe` (without `--json`) for one position.
fn plain(report: &Report, rules: &Rules) -> String {
    let mut out = format!("{}\n  outcome: ", report.position);
    match (
        report.outcome,
        super::moves::game_over(rules, &report.position),
    ) {
        (_, Some(reason)) => out.push_str(&reason),
        (RuleOutcome::Draw, None) => out.push_str("draw"),
        (o, None) => {
            let d = o.distance().unwrap_or(0);
            let turns = if d == 1 { "turn" } else { "turns" };
            match rules.no_capture_limit {
                None => out.push_str(&format!("{} in {d} {turns}", o.word())),
                Some(n) => {
                    let what = match o {
                        RuleOutcome::CursedWin(_) => {
                            format!("cursed win (a draw by the {n}-turn rule, won without it)")
                        }
                        RuleOutcome::BlessedLoss(_) => {
                            format!("blessed loss (a draw by the {n}-turn rule, lost without it)")
                        }
                        o => o.word().to_string(),
                    };
                    out.push_str(&format!("{what}, {d} {turns} to conversion"))
                }
            }
        }
    }
    out.push('\n');
    if report.moves.is_empty() {
        return out;
    }
    let best: Vec<String> = report.best().map(|m| m.to_string()).collect();
    out.push_str(&format!("  best moves: {}\n", best.join(" ")));
    for (i, (m, o)) in report.moves.iter().enumerate() {
        let line = format!("    {:<10} {o}", m.to_string());
        match report.chances.get(i) {
            Some(c) => out.push_str(&format!("{line:<28} {}\n", chances_text(c))),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// The practical chances of a move on one line.
pub fn chances_text(c: &Chances) -> String {
    let mut text = format!(
        "replies {}: {} lose {} draw {} win",
        c.replies, c.losing, c.drawing, c.winning
    );
    if let Some(f) = c.fastest_loss {
        text.push_str(&format!(", fastest loss {f}"));
    }
    text.push_str(&format!(", error {:.0}%", 100.0 * c.error_chance));
    text
}

/// The report on a position (with practical chances at `depth` plies, or
/// none; at `counter` for rule tables), or the message `moulin probe`
/// prints when there is none.
pub fn answer(
    tb: &Tablebase,
    position: Position,
    depth: Option<u8>,
    counter: u16,
) -> Result<Report, String> {
    match depth {
        _ if counter > 0 || tb.no_capture_limit().is_some() => {
            Report::at_counter(tb, position, counter)
        }
        None => Report::new(tb, position),
        Some(d) => Report::with_chances(tb, position, &AdviceOptions::default().with_depth(d)),
    }
    .map_err(message)
}

/// The message `moulin probe` prints for an error, with a hint naming the
/// command that writes a missing table.
pub fn message(e: ProbeError) -> String {
    let hint = match e {
        ProbeError::MissingSector(s) if !s.is_moving() => {
            " (`moulin solve --all` writes it; `moulin prove` values positions \
             with stones in hand from the moving-phase tables alone)"
                .to_string()
        }
        ProbeError::MissingSector(_) => " (`moulin solve --moving` writes it)".into(),
        _ => String::new(),
    };
    format!("{:#}{hint}", anyhow::Error::from(e))
}

/// The line `moulin probe --json` prints for a position given as `text`
/// (without the newline): the report, or `position` and `error`.
pub fn json_line(result: &Result<Report, String>, text: &str) -> serde_json::Result<String> {
    match result {
        Ok(report) => serde_json::to_string(&report.json()),
        Err(error) => serde_json::to_string(&JsonError {
            position: text,
            error,
        }),
    }
}

/// Prints the answer for one position (or why there is none); false if none.
fn report(
    tb: &Tablebase,
    args: &Args,
    text: &str,
    position: Result<Position, String>,
    out: &mut impl Write,
) -> anyhow::Result<bool> {
    let depth = (!args.no_chances).then_some(args.depth);
    let result = position.and_then(|p| answer(tb, p, depth, args.counter));
    match (&result, args.json) {
        (_, true) => writeln!(out, "{}", json_line(&result, text)?)?,
        (Ok(report), false) => write!(out, "{}", plain(report, &tb.rules()))?,
        (Err(e), false) => {
            out.flush()?;
            eprintln!("moulin: {text}: {e}");
        }
    }
    out.flush()?;
    Ok(result.is_ok())
}

/// Runs `moulin probe`.
pub fn run(args: &Args) -> super::Outcome {
    match probe(args) {
        // The reader closed the pipe (`| head`): nothing more to say.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(true)
        }
        result => result,
    }
}

fn probe(args: &Args) -> super::Outcome {
    // Every position typed on the command line is checked before any table is opened.
    let mut parsed = Vec::new();
    for text in &args.positions {
        parsed.push(match text.as_str() {
            "-" => None,
            _ => Some(super::parse_position(text)?),
        });
    }
    let mut tb = Tablebase::open(&args.dir)
        .with_context(|| format!("cannot open the tables in {}", args.dir.display()))?;
    if args.no_flying {
        let rules = Rules {
            flying: false,
            ..tb.rules()
        };
        tb = tb.with_rules(rules)?;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all_answered = true;
    for (text, position) in args.positions.iter().zip(parsed) {
        if let Some(position) = position {
            all_answered &= report(&tb, args, text, Ok(position), &mut out)?;
            continue;
        }
        for line in std::io::stdin().lock().lines() {
            let line = line.context("cannot read standard input")?;
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let position = line
                .parse::<Position>()
                .map_err(|e| format!("invalid position: {e}"));
            all_answered &= report(&tb, args, line, position, &mut out)?;
        }
    }
    Ok(all_answered)
}
