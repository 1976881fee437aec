//! `moulin moves`: the legal turns of a position, one per line in the move
//! format of `docs/rules.md`, or the outcome when the game is already over.

use moulin_probe::{Position, Rules, Side};

/// Arguments of `moulin moves`.
#[derive(clap::Args)]
pub struct Args {
    /// The position, e.g. `W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w` or `W: B: w 9 9`.
    pub position: String,
    /// Play without the flying rule (three stones move like the others).
    #[arg(long)]
    pub no_flying: bool,
}

/// Runs `moulin moves`.
pub fn run(args: &Args) -> super::Outcome {
    let pos = super::parse_position(&args.position)?;
    let rules = Rules::with_flying(!args.no_flying);
    let mut out = String::new();
    match game_over(&rules, &pos) {
        Some(reason) => {
            out.push_str(&reason);
            out.push('\n');
        }
        None => {
            for mv in rules.legal_moves(&pos) {
                out.push_str(&mv.to_string());
                out.push('\n');
            }
        }
    }
    write_stdout(&out)?;
    Ok(true)
}

/// Writes a command's output; a reader that has gone away (`moulin ... |
/// head`) ends the output quietly instead of failing.
pub(super) fn write_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        result => result,
    }
}

/// The outcome line of a position whose player to move has already lost
/// (`loss: White has fewer than three stones`, `loss: Black is blocked`),
/// `None` while the game goes on.
pub fn game_over(rules: &Rules, pos: &Position) -> Option<String> {
    let node = pos.node();
    if !rules.is_lost(&node) {
        return None;
    }
    let name = match pos.side {
        Side::White => "White",
        Side::Black => "Black",
    };
    Some(if node.us_total() < 3 {
        format!("loss: {name} has fewer than three stones")
    } else {
        format!("loss: {name} is blocked")
    })
}
