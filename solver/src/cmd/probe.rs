//! `moulin probe`: the outcome, distance and best moves of positions, read
//! from the tables; one JSON line per position for front ends (`--json`),
//! also as a filter over standard input (`-`).

use anyhow::Context;
use moulin_probe::{
    AdviceOptions, Chances, Move, MoveAdvice, Outcome, Position, ProbeError, Rules, Tablebase,
};
use serde::Serialize;
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
    /// (`win`, `loss`, `draw`), `distance` (turns, null for a draw),
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
    /// budget of 1,000,000 probes (README, "Practical chances").
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=12))]
    pub depth: u8,
    /// Insist on the rules without flying: an error if the tables were
    /// solved with flying (by default the rules are those of the tables).
    #[arg(long)]
    pub no_flying: bool,
}

/// One line of `moulin probe --json`.
#[derive(Serialize)]
struct JsonAnswer {
    position: String,
    outcome: &'static str,
    distance: Option<u16>,
    best_moves: Vec<String>,
    moves: Vec<JsonMove>,
}

/// One move in `moves`.
#[derive(Serialize)]
struct JsonMove {
    r#move: String,
    outcome: &'static str,
    distance: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chances: Option<JsonChances>,
}

/// What the opponent's replies to a move do (`moulin_probe::Chances`).
#[derive(Serialize)]
pub struct JsonChances {
    /// Legal replies.
    pub replies: u32,
    /// Replies that lose for the opponent.
    pub losing: u32,
    /// Replies that draw.
    pub drawing: u32,
    /// Replies that win for the opponent.
    pub winning: u32,
    /// Smallest loss distance among the losing replies (turns from the
    /// opponent's turn), null if none loses.
    pub fastest_loss: Option<u16>,
    /// Replies that give up part of the opponent's value.
    pub traps: u32,
    /// Chance that a random opponent errs (traps / replies at two plies).
    pub error_chance: f64,
    /// Plies the error chance covers.
    pub depth: u8,
}

impl From<&Chances> for JsonChances {
    fn from(c: &Chances) -> JsonChances {
        JsonChances {
            replies: c.replies,
            losing: c.losing,
            drawing: c.drawing,
            winning: c.winning,
            fastest_loss: c.fastest_loss,
            traps: c.traps,
            error_chance: c.error_chance,
            depth: c.depth,
        }
    }
}

/// One line of `moulin probe --json` for a position without an answer.
#[derive(Serialize)]
struct JsonError<'a> {
    position: &'a str,
    error: &'a str,
}

/// What the tables say about one position.
struct Answer {
    position: Position,
    outcome: Outcome,
    /// Every legal move with its outcome for the mover, best first.
    moves: Vec<(Move, Outcome)>,
    /// The practical chances of each move, in the order of `moves`
    /// (empty with `--no-chances`).
    chances: Vec<Chances>,
}

impl Answer {
    fn best(&self) -> impl Iterator<Item = Move> + '_ {
        let top = self.moves.first().map(|(_, o)| o.rank());
        self.moves
            .iter()
            .take_while(move |(_, o)| Some(o.rank()) == top)
            .map(|(m, _)| *m)
    }

    fn json(&self) -> JsonAnswer {
        JsonAnswer {
            position: self.position.to_string(),
            outcome: self.outcome.word(),
            distance: self.outcome.distance(),
            best_moves: self.best().map(|m| m.to_string()).collect(),
            moves: self
                .moves
                .iter()
                .enumerate()
                .map(|(i, (m, o))| JsonMove {
                    r#move: m.to_string(),
                    outcome: o.word(),
                    distance: o.distance(),
                    chances: self.chances.get(i).map(JsonChances::from),
                })
                .collect(),
        }
    }

    fn text(&self, rules: &Rules) -> String {
        let mut out = format!("{}\n  outcome: ", self.position);
        match (self.outcome, super::moves::game_over(rules, &self.position)) {
            (_, Some(reason)) => out.push_str(&reason),
            (Outcome::Draw, None) => out.push_str("draw"),
            (o, None) => {
                let d = o.distance().unwrap_or(0);
                let turns = if d == 1 { "turn" } else { "turns" };
                out.push_str(&format!("{} in {d} {turns}", o.word()))
            }
        }
        out.push('\n');
        if self.moves.is_empty() {
            return out;
        }
        let best: Vec<String> = self.best().map(|m| m.to_string()).collect();
        out.push_str(&format!("  best moves: {}\n", best.join(" ")));
        for (i, (m, o)) in self.moves.iter().enumerate() {
            let line = format!("    {:<10} {o}", m.to_string());
            match self.chances.get(i) {
                Some(c) => out.push_str(&format!("{line:<28} {}\n", chances_text(c))),
                None => out.push_str(&format!("{line}\n")),
            }
        }
        out
    }
}

/// The chances of a move in a few words: `replies 21: 3 lose 18 draw 0 win,
/// fastest loss 7, error 14%`.
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

fn answer(tb: &Tablebase, args: &Args, position: Position) -> Result<Answer, ProbeError> {
    let outcome = tb.probe(&position)?;
    if args.no_chances {
        let mut moves = tb.probe_moves(&position)?;
        moves.sort_by_key(|(_, o)| -o.rank());
        return Ok(Answer {
            position,
            outcome,
            moves,
            chances: Vec::new(),
        });
    }
    // Best value first, then practical chances (`MoveAdvice::practical_order`).
    let advice: Vec<MoveAdvice> =
        tb.advise(&position, &AdviceOptions::default().with_depth(args.depth))?;
    Ok(Answer {
        position,
        outcome,
        moves: advice.iter().map(|a| (a.mv, a.outcome)).collect(),
        chances: advice.iter().map(|a| a.chances).collect(),
    })
}

/// Prints the answer for one position (or why there is none); false if none.
fn report(
    tb: &Tablebase,
    args: &Args,
    text: &str,
    position: Result<Position, String>,
    out: &mut impl Write,
) -> anyhow::Result<bool> {
    let result = position.and_then(|p| {
        answer(tb, args, p).map_err(|e| {
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
        })
    });
    match (&result, args.json) {
        (Ok(a), true) => writeln!(out, "{}", serde_json::to_string(&a.json())?)?,
        (Ok(a), false) => write!(out, "{}", a.text(&tb.rules()))?,
        (Err(e), true) => {
            let line = JsonError {
                position: text,
                error: e,
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?
        }
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
        tb = tb.with_rules(Rules { flying: false })?;
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
