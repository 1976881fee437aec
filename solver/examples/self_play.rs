//! Self-play figures for the practical chances and the playing levels
//! (README, "Practical chances"): a tables player against weaker opponents,
//! over the same openings and seeds.
//!
//! - Openings: random moving-phase positions with 4 or 5 stones a side,
//!   White (the tables player) to move, `openings` drawn and as many won by
//!   the tables (every sector up to 5 a side must be in `dir`).
//! - Opponents: `random` (a legal move drawn uniformly) and `shallow` (a
//!   2-ply search without tables: material first, then mobility, ties
//!   drawn at random).
//! - Tables players: `practical` (`choose_move` at the top level: perfect,
//!   random among the best moves by practical chances) and `uniform` (a
//!   move drawn uniformly among `best_moves`), then every level 0..=5.
//! - A game stops at the end or after `plies` plies (a draw by the limit).
//!
//! `cargo run --release --features studies --example self_play -- data/tables 200 120 1`

use moulin_core::seeded::SplitMix64;
use moulin_probe::{Level, Move, Outcome, Position, Rules, Tablebase};

/// Who plays White (the tables side).
#[derive(Clone, Copy)]
enum Player {
    Practical,
    Uniform,
    Level(Level),
}

/// Who plays Black.
#[derive(Clone, Copy, PartialEq)]
enum Opponent {
    Random,
    Shallow,
}

/// Results of many games for White, and the mistakes White made.
#[derive(Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    /// Plies of the games White won.
    win_plies: u64,
    /// White's turns with a move worse than the best, and the ones it took.
    choices: u32,
    errors: u32,
    /// Mistakes that changed the result (win to draw or loss, draw to loss).
    blunders: u32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .ok_or("usage: self_play <dir> [openings] [plies] [seed]")?;
    let count: usize = args.get(1).map_or(Ok(200), |s| s.parse())?;
    let plies: usize = args.get(2).map_or(Ok(120), |s| s.parse())?;
    let seed: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let tb = Tablebase::open(dir)?;
    let started = std::time::Instant::now();
    let openings = openings(&tb, count, seed)?;
    let drawn = openings.iter().filter(|(_, o)| *o == Outcome::Draw).count();
    println!(
        "{} openings (4-5 stones a side, White to move): {drawn} drawn, {} won; at most {plies} plies a game",
        openings.len(),
        openings.len() - drawn
    );
    println!(
        "{:<10} {:<8} {:>7} {:>5} {:>6} {:>6} {:>10} {:>8} {:>9}",
        "white", "black", "openings", "wins", "draws", "losses", "win plies", "errors", "blunders"
    );
    let mut players = vec![
        ("practical", Player::Practical),
        ("uniform", Player::Uniform),
    ];
    let levels: Vec<(String, Player)> = (0..=5)
        .map(|n| (format!("level {n}"), Player::Level(Level::new(n).unwrap())))
        .collect();
    for (name, p) in &levels {
        players.push((name.as_str(), *p));
    }
    for opponent in [Opponent::Random, Opponent::Shallow] {
        for (name, player) in &players {
            for (kind, want) in [("drawn", Some(Outcome::Draw)), ("won", None)] {
                let mut t = Tally::default();
                for (i, (pos, value)) in openings.iter().enumerate() {
                    if (want == Some(Outcome::Draw)) != (*value == Outcome::Draw) {
                        continue;
                    }
                    play(
                        &tb,
                        *pos,
                        *player,
                        opponent,
                        plies,
                        seed ^ (i as u64) << 20,
                        &mut t,
                    )?;
                }
                let n = t.wins + t.draws + t.losses;
                let mean = if t.wins > 0 {
                    format!("{:.1}", t.win_plies as f64 / t.wins as f64)
                } else {
                    "-".into()
                };
                let rate = if t.choices > 0 {
                    format!("{:.1}%", 100.0 * t.errors as f64 / t.choices as f64)
                } else {
                    "-".into()
                };
                println!(
                    "{:<10} {:<8} {:>7} {:>5} {:>6} {:>6} {:>10} {:>8} {:>9}",
                    name,
                    match opponent {
                        Opponent::Random => "random",
                        Opponent::Shallow => "shallow",
                    },
                    format!("{n} {kind}"),
                    t.wins,
                    t.draws,
                    t.losses,
                    mean,
                    rate,
                    t.blunders
                );
            }
        }
    }
    println!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Random moving-phase positions, 4 or 5 stones a side, White to move:
/// `count` drawn and `count` won for White by the tables.
fn openings(
    tb: &Tablebase,
    count: usize,
    seed: u64,
) -> Result<Vec<(Position, Outcome)>, Box<dyn std::error::Error>> {
    let mut rng = SplitMix64::new(seed);
    let mut found = Vec::new();
    let (mut drawn, mut won) = (0, 0);
    while drawn < count || won < count {
        let (w, b) = (4 + rng.below(2), 4 + rng.below(2));
        let (mut white, mut black) = (0u32, 0u32);
        while white.count_ones() < w as u32 {
            white |= 1 << rng.below(24);
        }
        while black.count_ones() < b as u32 {
            let p = 1 << rng.below(24);
            if white & p == 0 {
                black |= p;
            }
        }
        let pos = Position {
            white,
            black,
            white_hand: 0,
            black_hand: 0,
            side: moulin_probe::Side::White,
        };
        if pos.validate().is_err() || tb.rules().is_lost(&pos.node()) {
            continue;
        }
        match tb.probe(&pos)? {
            Outcome::Draw if drawn < count => drawn += 1,
            Outcome::Win(_) if won < count => won += 1,
            _ => continue,
        }
        found.push((pos, tb.probe(&pos)?));
    }
    Ok(found)
}

/// Plays one game from `pos`, White by `player`, Black by `opponent`.
fn play(
    tb: &Tablebase,
    mut pos: Position,
    player: Player,
    opponent: Opponent,
    plies: usize,
    seed: u64,
    tally: &mut Tally,
) -> Result<(), Box<dyn std::error::Error>> {
    let rules = tb.rules();
    let mut rng = SplitMix64::new(seed);
    for ply in 0..plies {
        let white = ply % 2 == 0;
        let mv = if white {
            let moves = tb.probe_moves(&pos)?;
            let Some(top) = moves.iter().map(|(_, o)| o.rank()).max() else {
                tally.losses += 1;
                return Ok(());
            };
            let best: Vec<Move> = moves
                .iter()
                .filter(|(_, o)| o.rank() == top)
                .map(|(m, _)| *m)
                .collect();
            let mv = match player {
                Player::Practical => tb.choose_move(&pos, Level::TOP, rng.next_u64())?,
                Player::Level(l) => tb.choose_move(&pos, l, rng.next_u64())?,
                Player::Uniform => Some(best[rng.index(best.len())]),
            }
            .ok_or("no move in a position with moves")?;
            if best.len() < moves.len() {
                tally.choices += 1;
                if !best.contains(&mv) {
                    tally.errors += 1;
                    let before = tb.probe(&pos)?;
                    let after = moves.iter().find(|(m, _)| *m == mv).unwrap().1;
                    if after.word() != before.word() {
                        tally.blunders += 1;
                    }
                }
            }
            mv
        } else {
            let moves = rules.legal_moves(&pos);
            if moves.is_empty() {
                tally.wins += 1;
                tally.win_plies += ply as u64;
                return Ok(());
            }
            match opponent {
                Opponent::Random => moves[rng.index(moves.len())],
                Opponent::Shallow => shallow(&rules, &pos, &moves, &mut rng),
            }
        };
        pos = rules.play(&pos, mv)?;
    }
    // The limit: a draw, unless the position reached is already over.
    if rules.is_lost(&pos.node()) {
        if pos.side == moulin_probe::Side::White {
            tally.losses += 1;
        } else {
            tally.wins += 1;
            tally.win_plies += plies as u64;
        }
    } else {
        tally.draws += 1;
    }
    Ok(())
}

/// Material and mobility for the player to move: stones (a lost position
/// is the worst), then the number of legal moves.
fn evaluate(rules: &Rules, pos: &Position) -> i64 {
    let node = pos.node();
    if rules.is_lost(&node) {
        return -1_000_000;
    }
    let material = node.us_total() as i64 - node.them_total() as i64;
    let mobility = rules.legal_moves(pos).len() as i64
        - rules
            .legal_moves(&Position {
                side: pos.side.opponent(),
                ..*pos
            })
            .len() as i64;
    1000 * material + mobility
}

/// The 2-ply search without tables: the move whose worst reply leaves the
/// best evaluation, ties drawn at random.
fn shallow(rules: &Rules, pos: &Position, moves: &[Move], rng: &mut SplitMix64) -> Move {
    let mut best = Vec::new();
    let mut best_score = i64::MIN;
    for &mv in moves {
        let next = rules.play(pos, mv).expect("a legal move");
        let replies = rules.legal_moves(&next);
        let score = if replies.is_empty() {
            1_000_000
        } else {
            replies
                .iter()
                .map(|&r| evaluate(rules, &rules.play(&next, r).expect("a legal reply")))
                .min()
                .unwrap_or(0)
        };
        if score > best_score {
            best_score = score;
            best.clear();
        }
        if score == best_score {
            best.push(mv);
        }
    }
    best[rng.index(best.len())]
}
