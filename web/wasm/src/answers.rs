//! The JSON answers of the page's probe: a position's report (exactly the
//! line `moulin probe --json` prints), its legal moves with the positions
//! they lead to (no tables needed), and the rules of the tables.

use moulin_probe::report::{JsonError, Report};
use moulin_probe::{Position, Rules, Side, Tablebase};
use serde::Serialize;

/// The line `moulin probe --json` prints for a position (without the
/// newline): the report, or `position` and `error`. Errors are the message
/// and its causes joined by `: `, as the command line prints them (without
/// its hints naming `moulin` commands).
pub fn probe_json(tb: &Tablebase, text: &str) -> String {
    probe_json_at(tb, text, None)
}

/// `probe_json` under the tables' no-capture rule at `counter` (`moulin
/// probe --json --counter C`); `None` as `probe_json`.
pub fn probe_json_at(tb: &Tablebase, text: &str, counter: Option<u32>) -> String {
    let text = text.trim();
    let result = text
        .parse::<Position>()
        .map_err(|e| format!("invalid position: {e}"))
        .and_then(|p| match counter {
            None => Report::new(tb, p).map_err(|e| message(&e)),
            Some(c) => {
                // A counter past u16 is past every limit.
                let c = u16::try_from(c).unwrap_or(u16::MAX);
                Report::at_counter(tb, p, c).map_err(|e| message(&e))
            }
        });
    let json = match &result {
        Ok(report) => serde_json::to_string(&report.json()),
        Err(error) => serde_json::to_string(&JsonError {
            position: text,
            error,
        }),
    };
    json.expect("plain strings and numbers serialise")
}

/// An error and its causes, `: ` between them (what the command line and
/// the bindings print).
pub use moulin_probe::error::chain as message;

/// The legal moves of a position, for the page to play them.
#[derive(Serialize)]
struct Moves {
    /// The position, written canonically.
    position: String,
    /// `w` or `b`.
    side: char,
    white_hand: u8,
    black_hand: u8,
    /// Why the player to move has lost (`White is blocked`), null while the
    /// game goes on.
    over: Option<String>,
    moves: Vec<Next>,
}

/// A legal move and the position it leads to.
#[derive(Serialize)]
struct Next {
    #[serde(rename = "move")]
    mv: String,
    next: String,
}

/// The legal moves of a position under `rules`, each with the position it
/// leads to, and whether the game is over: `{"position", "side",
/// "white_hand", "black_hand", "over", "moves": [{"move", "next"}]}`, or
/// `{"position", "error"}` for a position that cannot be read.
pub fn moves_json(rules: Rules, text: &str) -> String {
    let text = text.trim();
    let json = match text.parse::<Position>() {
        Err(e) => serde_json::to_string(&JsonError {
            position: text,
            error: &format!("invalid position: {e}"),
        }),
        Ok(position) => {
            let mut moves = Vec::new();
            rules.for_each_move(&position.node(), |m, node| {
                moves.push(Next {
                    mv: m.to_string(),
                    next: Position::from_node(node, position.side.opponent()).to_string(),
                })
            });
            serde_json::to_string(&Moves {
                position: position.to_string(),
                side: position.side.letter(),
                white_hand: position.white_hand,
                black_hand: position.black_hand,
                over: game_over(rules, &position),
                moves,
            })
        }
    };
    json.expect("plain strings and numbers serialise")
}

/// Why the player to move has already lost, `None` while the game goes on.
fn game_over(rules: Rules, position: &Position) -> Option<String> {
    let node = position.node();
    if !rules.is_lost(&node) {
        return None;
    }
    let name = match position.side {
        Side::White => "White",
        Side::Black => "Black",
    };
    Some(match node.us_total() < 3 {
        true => format!("{name} has fewer than three stones"),
        false => format!("{name} is blocked"),
    })
}

/// The rule options of the tables: `{"rules": {"flying": true}}`.
pub fn info_json(tb: &Tablebase) -> String {
    let rules = tb.rules();
    serde_json::json!({
        "rules": { "flying": rules.flying, "no_capture_limit": rules.no_capture_limit }
    })
    .to_string()
}
