//! `moulin review`: a game read move by move, each move's value before and
//! after for the player who made it, the best moves, and a mark where the
//! move changed the result or lengthened a won game.
//!
//! The game is text: moves in the notation of `moulin moves` (`d2`, `b2-b4`,
//! `b2-b4xg4`, `g1xd2`) separated by spaces or newlines. Move numbers are
//! optional and ignored: a token of digits followed by one or more dots
//! (`1.`, `12...`) is skipped, and such a prefix glued to a move (`1.d2`) is
//! removed. `#` starts a comment that runs to the end of the line.

use super::InputError;
use anyhow::Context;
use moulin_core::MoveError;
use moulin_probe::{Move, Outcome, Position, Rules, Side, Tablebase};
use serde::Serialize;
use std::io::Read;
use std::path::PathBuf;

/// Arguments of `moulin review`.
#[derive(clap::Args)]
pub struct Args {
    /// The game: a file, or `-` (the default) for standard input. Moves
    /// separated by spaces or newlines, optionally numbered (`1. d2 d6 2.
    /// f4 ...`); `#` starts a comment.
    pub game: Option<PathBuf>,
    /// The position the game starts from (default: the start, `W: B: w 9 9`).
    #[arg(long)]
    pub from: Option<String>,
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Print one JSON object per move per line: `ply`, `side`, `move`,
    /// `position` (before the move), `before` and `after` (`outcome`,
    /// `distance`, for the player who moved), `best_moves`, `mark`.
    #[arg(long)]
    pub json: bool,
}

/// What a move did to the result, for the player who made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The result got worse: a win thrown to a draw or a loss, a draw to a loss.
    Blunder,
    /// Still a win, but in more turns than the best move.
    Slower,
}

impl Mark {
    /// The word of the mark: `blunder` or `slower`.
    pub fn word(self) -> &'static str {
        match self {
            Mark::Blunder => "blunder",
            Mark::Slower => "slower",
        }
    }

    /// The mark of a move from a position of value `before` to one worth
    /// `after`, both for the player who moved. A loss made shorter is not
    /// marked (the result does not change), nor is any best move.
    pub fn of(before: Outcome, after: Outcome) -> Option<Mark> {
        let class = |o: Outcome| match o {
            Outcome::Loss(_) => 0,
            Outcome::Draw => 1,
            Outcome::Win(_) => 2,
        };
        match (before, after) {
            _ if class(after) < class(before) => Some(Mark::Blunder),
            (Outcome::Win(n), Outcome::Win(m)) if m > n => Some(Mark::Slower),
            _ => None,
        }
    }
}

/// A value in the JSON: `outcome` and `distance` as in `probe --json`.
#[derive(Serialize)]
struct JsonValue {
    outcome: &'static str,
    distance: Option<u16>,
}

impl From<Outcome> for JsonValue {
    fn from(o: Outcome) -> JsonValue {
        JsonValue {
            outcome: o.word(),
            distance: o.distance(),
        }
    }
}

/// One line of `moulin review --json`.
#[derive(Serialize)]
struct JsonMove {
    ply: usize,
    side: &'static str,
    r#move: String,
    position: String,
    before: JsonValue,
    after: JsonValue,
    best_moves: Vec<String>,
    mark: Option<&'static str>,
}

/// One reviewed move.
struct Reviewed {
    ply: usize,
    position: Position,
    mv: Move,
    before: Outcome,
    after: Outcome,
    best: Vec<Move>,
}

impl Reviewed {
    fn mark(&self) -> Option<Mark> {
        Mark::of(self.before, self.after)
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "White",
        Side::Black => "Black",
    }
}

/// The moves of a game text, each with its line number, move numbers and
/// comments left out (syntax in the module documentation).
pub fn game_tokens(text: &str) -> Vec<(usize, &str)> {
    let mut tokens = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for token in line.split_whitespace() {
            let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let rest = &token[digits..];
            let after_dots = rest.trim_start_matches('.');
            let token = if digits > 0 && after_dots.len() < rest.len() {
                after_dots
            } else {
                token
            };
            if !token.is_empty() {
                tokens.push((i + 1, token));
            }
        }
    }
    tokens
}

/// Plays the game's moves from `start` (no tables needed), each checked
/// against the rules: the positions before each move and the moves, or an
/// `InputError` naming the first move that cannot be played and why.
pub fn play_game(
    rules: &Rules,
    start: Position,
    text: &str,
) -> anyhow::Result<Vec<(Position, Move)>> {
    let mut pos = start;
    let mut game = Vec::new();
    for (i, (line, token)) in game_tokens(text).into_iter().enumerate() {
        let ply = i + 1;
        let at = format!(
            "ply {ply} (line {line}, {} to move) `{token}`",
            side_name(pos.side)
        );
        let fail = |reason: String| InputError(format!("{at}: {reason}"));
        let mv: Move = token.parse().map_err(|e: MoveError| fail(e.to_string()))?;
        if let Some(reason) = super::moves::game_over(rules, &pos) {
            return Err(fail(format!("the game is already over ({reason})")).into());
        }
        let next = rules.play(&pos, mv).map_err(|_| {
            let legal = rules.legal_moves(&pos);
            let captures: Vec<String> = legal
                .iter()
                .filter(|m| m.from == mv.from && m.to == mv.to && m.remove.is_some())
                .map(|m| m.to_string())
                .collect();
            fail(if !captures.is_empty() && mv.remove.is_none() {
                format!(
                    "this move closes a mill and must name the stone it removes ({})",
                    captures.join(" ")
                )
            } else {
                format!("illegal move in {pos}")
            })
        })?;
        game.push((pos, mv));
        pos = next;
    }
    Ok(game)
}

fn review_move(
    tb: &Tablebase,
    ply: usize,
    position: Position,
    mv: Move,
) -> anyhow::Result<Reviewed> {
    let before = tb.probe(&position)?;
    let moves = tb.probe_moves(&position)?;
    let top = moves.iter().map(|(_, o)| o.rank()).max();
    let best = moves
        .iter()
        .filter(|(_, o)| Some(o.rank()) == top)
        .map(|(m, _)| *m)
        .collect();
    let after = moves
        .iter()
        .find(|(m, _)| *m == mv)
        .map(|(_, o)| *o)
        .context("a legal move missing from probe_moves")?;
    Ok(Reviewed {
        ply,
        position,
        mv,
        before,
        after,
        best,
    })
}

fn words(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

/// The best moves for the text form: at most six, then how many more (the
/// JSON lists them all).
fn best_text(moves: &[Move]) -> String {
    const SHOWN: usize = 6;
    let mut text = words(&moves[..moves.len().min(SHOWN)]).join(" ");
    if moves.len() > SHOWN {
        text.push_str(&format!(" (+{} more)", moves.len() - SHOWN));
    }
    text
}

/// Runs `moulin review`.
pub fn run(args: &Args) -> super::Outcome {
    let start = match &args.from {
        Some(text) => super::parse_position(text)?,
        None => Position::start(),
    };
    let mut text = String::new();
    match &args.game {
        Some(path) if path.as_os_str() != "-" => {
            text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the game from {}", path.display()))?
        }
        _ => {
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the game from standard input")?;
        }
    }
    let tb = Tablebase::open(&args.dir)
        .with_context(|| format!("cannot open the tables in {}", args.dir.display()))?;
    super::no_rule_tables(&tb, "review")?;
    let game = play_game(&tb.rules(), start, &text)?;
    let mut out = String::new();
    if !args.json {
        out.push_str(&format!("{start}\n"));
        out.push_str(&format!(
            "{:>5}  {:<5}  {:<10}  {:<9}  {:<9}  {:<7}  best moves\n",
            "ply", "side", "move", "before", "after", "mark"
        ));
    }
    let mut marks = [0usize; 2];
    for (i, (position, mv)) in game.into_iter().enumerate() {
        let r = review_move(&tb, i + 1, position, mv)?;
        let mark = r.mark();
        match mark {
            Some(Mark::Blunder) => marks[0] += 1,
            Some(Mark::Slower) => marks[1] += 1,
            None => {}
        }
        if args.json {
            let line = JsonMove {
                ply: r.ply,
                side: match r.position.side {
                    Side::White => "white",
                    Side::Black => "black",
                },
                r#move: r.mv.to_string(),
                position: r.position.to_string(),
                before: r.before.into(),
                after: r.after.into(),
                best_moves: words(&r.best),
                mark: mark.map(Mark::word),
            };
            out.push_str(&serde_json::to_string(&line)?);
            out.push('\n');
        } else {
            out.push_str(&format!(
                "{:>5}  {:<5}  {:<10}  {:<9}  {:<9}  {:<7}  {}\n",
                r.ply,
                side_name(r.position.side),
                r.mv.to_string(),
                r.before.to_string(),
                r.after.to_string(),
                mark.map_or("", Mark::word),
                best_text(&r.best)
            ));
        }
    }
    if !args.json {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        out.push_str(&format!(
            "{}, {}\n",
            plural(marks[0], "blunder"),
            plural(marks[1], "slower win")
        ));
    }
    super::moves::write_stdout(&out)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_text_with_numbers_and_comments() {
        let text = "1. d2 d6 2.f4 # White builds\n  b4\n3... a1-a4xg7 12.";
        let tokens: Vec<&str> = game_tokens(text).into_iter().map(|(_, t)| t).collect();
        assert_eq!(tokens, ["d2", "d6", "f4", "b4", "a1-a4xg7"]);
        assert_eq!(game_tokens(text)[3].0, 2);
    }

    #[test]
    fn marks_follow_the_result() {
        use Outcome::*;
        assert_eq!(Mark::of(Win(5), Draw), Some(Mark::Blunder));
        assert_eq!(Mark::of(Win(5), Loss(8)), Some(Mark::Blunder));
        assert_eq!(Mark::of(Draw, Loss(8)), Some(Mark::Blunder));
        assert_eq!(Mark::of(Win(5), Win(7)), Some(Mark::Slower));
        assert_eq!(Mark::of(Win(5), Win(5)), None);
        assert_eq!(Mark::of(Draw, Draw), None);
        assert_eq!(Mark::of(Loss(8), Loss(2)), None);
    }

    #[test]
    fn illegal_moves_name_the_ply_and_the_reason() {
        let rules = Rules::default();
        let err = play_game(&rules, Position::start(), "1. d2 d2").unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("ply 2 (line 1, Black to move) `d2`: illegal move"),
            "{text}"
        );
        let err = play_game(&rules, Position::start(), "d2 z9").unwrap_err();
        assert!(err.to_string().contains("unknown point `z9`"), "{err}");
        // White has three stones and flies: b4-g1 closes a1-d1-g1; Black's
        // b2, d2, f2 are a mill, so d6 is the only stone it may remove.
        let pos: Position = "W:a1,d1,b4 B:b2,d2,f2,d6 w".parse().unwrap();
        assert!(play_game(&rules, pos, "b4-a4 b2-b4").is_ok());
        let err = play_game(&rules, pos, "b4-g1").unwrap_err().to_string();
        assert!(
            err.contains("must name the stone it removes (b4-g1xd6)"),
            "{err}"
        );
        let lost: Position = "W:a1,d1 B:a7,d2,g4 w".parse().unwrap();
        let err = play_game(&rules, lost, "a1-a4").unwrap_err().to_string();
        assert!(err.contains("already over (loss: White has fewer"), "{err}");
    }
}
