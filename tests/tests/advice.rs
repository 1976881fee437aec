//! Practical chances and playing levels (`Tablebase::advise`,
//! `Tablebase::choose_move`) on the tables up to 4 stones a side: the counts
//! recounted here from the rules and `probe` alone, the ranking's
//! properties, reproducibility and the error rates of the levels.

use moulin_probe::{AdviceOptions, Level, Move, Outcome, Position, Side, Tablebase};

use std::sync::OnceLock;

/// The tables up to 4 stones a side, solved once for all tests of this file.
fn tables() -> &'static Tablebase {
    static TABLES: OnceLock<Tablebase> = OnceLock::new();
    TABLES.get_or_init(|| Tablebase::open(moulin_tests::solved(4)).unwrap())
}

/// Deterministic positions of the moving phase with 3 or 4 stones a side,
/// the game not over.
fn positions(count: usize, seed: u64) -> Vec<Position> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let rules = tables().rules();
    let mut found = Vec::new();
    while found.len() < count {
        let (w, b) = (3 + next() % 2, 3 + next() % 2);
        let (mut white, mut black) = (0u32, 0u32);
        while white.count_ones() < w as u32 {
            white |= 1 << (next() % 24);
        }
        while black.count_ones() < b as u32 {
            let p = 1 << (next() % 24);
            if white & p == 0 {
                black |= p;
            }
        }
        let side = if next() % 2 == 0 {
            Side::White
        } else {
            Side::Black
        };
        let pos = Position {
            white,
            black,
            white_hand: 0,
            black_hand: 0,
            side,
        };
        if pos.validate().is_ok() && !rules.is_lost(&pos.node()) {
            found.push(pos);
        }
    }
    found
}

/// The value for the player to move in `pos`, from `probe` alone.
fn value(pos: &Position) -> Outcome {
    tables().probe(pos).unwrap()
}

#[test]
fn chances_match_a_recount_from_the_rules_and_probe() {
    let tb = tables();
    let rules = tb.rules();
    let mut moves_seen = 0;
    let mut with_traps = 0;
    for pos in positions(60, 0x9E37_79B9_7F4A_7C15) {
        let advice = tb.advise(&pos, &AdviceOptions::default()).unwrap();
        assert_eq!(advice.len(), rules.legal_moves(&pos).len(), "{pos}");
        for a in &advice {
            let next = rules.play(&pos, a.mv).unwrap();
            // The opponent's value after the move, and the move's for us.
            let theirs = value(&next);
            assert_eq!(a.outcome, theirs.before_move(), "{pos} {}", a.mv);
            let (mut losing, mut drawing, mut winning, mut traps) = (0, 0, 0, 0);
            let mut fastest: Option<u16> = None;
            let replies = rules.legal_moves(&next);
            for &r in &replies {
                // After the reply it is our turn again: our loss is the
                // opponent's win, one turn longer seen from its turn.
                let ours = value(&rules.play(&next, r).unwrap());
                let reply = match ours {
                    Outcome::Loss(d) => {
                        winning += 1;
                        Outcome::Win(d + 1)
                    }
                    Outcome::Draw => {
                        drawing += 1;
                        Outcome::Draw
                    }
                    Outcome::Win(d) => {
                        losing += 1;
                        fastest = Some(fastest.map_or(d + 1, |f: u16| f.min(d + 1)));
                        Outcome::Loss(d + 1)
                    }
                };
                // A trap: the reply is worse for the opponent than its value,
                // a slower win excepted (the opponent still wins).
                let both_win = theirs.word() == "win" && reply.word() == "win";
                assert!(reply.rank() <= theirs.rank(), "{pos} {} {r}", a.mv);
                if reply.rank() < theirs.rank() && !both_win {
                    traps += 1;
                }
            }
            let c = &a.chances;
            assert_eq!(c.replies as usize, replies.len(), "{pos} {}", a.mv);
            assert_eq!(
                (c.losing, c.drawing, c.winning, c.fastest_loss, c.traps),
                (losing, drawing, winning, fastest, traps),
                "{pos} {}",
                a.mv
            );
            let share = if replies.is_empty() {
                0.0
            } else {
                traps as f64 / replies.len() as f64
            };
            assert_eq!(c.error_chance, share);
            assert_eq!(c.depth, 2);
            moves_seen += 1;
            with_traps += (traps > 0) as usize;
        }
    }
    assert!(moves_seen > 1000, "{moves_seen}");
    assert!(with_traps > 100, "{with_traps}");
}

#[test]
fn ranking_puts_value_first_then_error_chance() {
    let tb = tables();
    let mut reordered = 0;
    for pos in positions(60, 17) {
        let advice = tb.advise(&pos, &AdviceOptions::default()).unwrap();
        let legal: Vec<(Move, Outcome)> = tb.probe_moves(&pos).unwrap();
        // The same moves and values as probe_moves; best_moves come first.
        let mut a: Vec<_> = advice.iter().map(|a| (a.mv, a.outcome)).collect();
        let mut b = legal.clone();
        a.sort_by_key(|(m, o)| (*m, o.rank()));
        b.sort_by_key(|(m, o)| (*m, o.rank()));
        assert_eq!(a, b);
        let best = tb.best_moves(&pos).unwrap();
        let first: Vec<Move> = advice[..best.len()].iter().map(|a| a.mv).collect();
        assert!(best.iter().all(|m| first.contains(m)), "{pos}");
        for w in advice.windows(2) {
            let (x, y) = (&w[0], &w[1]);
            assert!(x.outcome.rank() >= y.outcome.rank(), "{pos}");
            if x.outcome == y.outcome {
                assert!(x.chances.error_chance >= y.chances.error_chance, "{pos}");
                if x.chances.error_chance == y.chances.error_chance {
                    assert!(x.chances.losing >= y.chances.losing, "{pos}");
                }
            }
        }
        let legal_order: Vec<Move> = legal.iter().map(|(m, _)| *m).collect();
        let ranked: Vec<Move> = advice.iter().map(|a| a.mv).collect();
        let mut by_value = legal.clone();
        by_value.sort_by_key(|(_, o)| -o.rank());
        let by_value: Vec<Move> = by_value.iter().map(|(m, _)| *m).collect();
        reordered += (ranked != by_value && ranked != legal_order) as usize;
    }
    assert!(
        reordered > 10,
        "the chances change the order somewhere: {reordered}"
    );
}

#[test]
fn deeper_chances_are_at_least_the_two_ply_ones() {
    let tb = tables();
    let mut deeper_differs = 0;
    for pos in positions(12, 99) {
        let two = tb.advise(&pos, &AdviceOptions::default()).unwrap();
        let four = tb
            .advise(&pos, &AdviceOptions::default().with_depth(4))
            .unwrap();
        assert_eq!(two.len(), four.len());
        for a in &four {
            let b = two.iter().find(|b| b.mv == a.mv).unwrap();
            assert_eq!(a.chances.depth, 4);
            // The counts are the two-ply counts; only the error chance grows.
            assert_eq!(a.chances.traps, b.chances.traps);
            assert!(
                a.chances.error_chance >= b.chances.error_chance,
                "{pos} {}",
                a.mv
            );
            assert!(a.chances.error_chance <= 1.0);
            deeper_differs += (a.chances.error_chance > b.chances.error_chance) as usize;
        }
        // Without budget the deeper level is not computed.
        let none = tb
            .advise(&pos, &AdviceOptions::default().with_depth(4).with_budget(0))
            .unwrap();
        assert!(none.iter().all(|a| a.chances.depth == 2));
    }
    assert!(deeper_differs > 0);
}

#[test]
fn choose_move_is_reproducible_and_perfect_at_the_top() {
    let tb = tables();
    let mut varied = 0;
    for pos in positions(40, 5) {
        let best = tb.best_moves(&pos).unwrap();
        let mut chosen = Vec::new();
        for seed in 0..8 {
            let m = tb.choose_move(&pos, Level::TOP, seed).unwrap().unwrap();
            assert_eq!(tb.choose_move(&pos, Level::TOP, seed).unwrap(), Some(m));
            assert!(best.contains(&m), "{pos}: {m} not among the best moves");
            if !chosen.contains(&m) {
                chosen.push(m);
            }
        }
        varied += (chosen.len() > 1) as usize;
    }
    assert!(varied > 5, "the top level varies its moves: {varied}");
    let over: Position = "W:a1,d1 B:a7,d2,g4 w".parse().unwrap();
    assert_eq!(tb.choose_move(&over, Level::TOP, 1).unwrap(), None);
}

#[test]
fn levels_err_at_their_rate_and_prefer_small_mistakes() {
    let tb = tables();
    let pool: Vec<Position> = positions(400, 3)
        .into_iter()
        .filter(|p| {
            let moves = tb.probe_moves(p).unwrap();
            let top = moves.iter().map(|(_, o)| o.rank()).max().unwrap();
            moves.iter().any(|(_, o)| o.rank() < top)
        })
        .take(150)
        .collect();
    assert_eq!(pool.len(), 150);
    for n in 0..=5u8 {
        let level = Level::new(n).unwrap();
        let (mut errors, mut small, mut turns) = (0, 0, 0);
        for pos in &pool {
            let moves = tb.probe_moves(pos).unwrap();
            let mut ranks: Vec<i32> = moves.iter().map(|(_, o)| o.rank()).collect();
            ranks.sort_unstable_by(|a, b| b.cmp(a));
            ranks.dedup();
            for seed in 0..10 {
                let m = tb.choose_move(pos, level, seed).unwrap().unwrap();
                let rank = moves.iter().find(|(x, _)| *x == m).unwrap().1.rank();
                turns += 1;
                if rank < ranks[0] {
                    errors += 1;
                    small += (rank == ranks[1]) as usize;
                }
            }
        }
        let rate = errors as f64 / turns as f64;
        let want = level.error_rate();
        // 1500 draws: the standard deviation is at most 1.3 %.
        assert!(
            (rate - want).abs() < 0.05,
            "level {n}: {rate} against {want}"
        );
        if errors > 50 {
            // The least costly mistake is drawn with weight at least 1/2.
            assert!(small * 2 >= errors, "level {n}: {small} of {errors}");
        }
    }
}

/// The error chance over `plies` of a move after which the opponent is to
/// move in `next`, written out from its definition (README) with the rules
/// and `probe` only: the average over the opponent's replies of 1 for a
/// trap, else (beyond two plies) the largest error chance among our
/// best-value moves in the position the reply leads to.
fn error_chance(next: &Position, plies: u8) -> f64 {
    let rules = tables().rules();
    let theirs = value(next);
    let replies = rules.legal_moves(next);
    if replies.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    for r in &replies {
        let ours_pos = rules.play(next, *r).unwrap();
        let reply = value(&ours_pos).before_move();
        let both_win = theirs.word() == "win" && reply.word() == "win";
        if reply.rank() < theirs.rank() && !both_win {
            sum += 1.0;
        } else if plies > 2 {
            let ours: Vec<(Position, i32)> = rules
                .legal_moves(&ours_pos)
                .into_iter()
                .map(|m| {
                    let after = rules.play(&ours_pos, m).unwrap();
                    (after, value(&after).before_move().rank())
                })
                .collect();
            let top = ours.iter().map(|(_, r)| *r).max();
            sum += ours
                .iter()
                .filter(|(_, r)| Some(*r) == top)
                .map(|(after, _)| error_chance(after, plies - 2))
                .fold(0.0, f64::max);
        }
    }
    sum / replies.len() as f64
}

#[test]
fn deeper_error_chance_follows_its_definition() {
    let tb = tables();
    let rules = tb.rules();
    // Positions without flying keep the recount small.
    let pool: Vec<Position> = positions(200, 41)
        .into_iter()
        .filter(|p| p.white.count_ones() == 4 && p.black.count_ones() == 4)
        .take(6)
        .collect();
    assert_eq!(pool.len(), 6);
    for pos in pool {
        let four = tb
            .advise(&pos, &AdviceOptions::default().with_depth(4))
            .unwrap();
        for a in &four {
            let next = rules.play(&pos, a.mv).unwrap();
            let want = error_chance(&next, 4);
            assert!(
                (a.chances.error_chance - want).abs() < 1e-12,
                "{pos} {}: {} against {want}",
                a.mv,
                a.chances.error_chance
            );
        }
    }
}
