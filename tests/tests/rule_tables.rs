//! The production solver's rule tables (`moulin solve --no-capture-limit N`)
//! against the independent reference of the no-capture rule
//! (`moulin_tests::brute_counter`), on every `(us, them)` pair of 3 v 3,
//! 3 v 4 and 4 v 3, flying on and off:
//!
//! - the stored value of every position (five values and DTC) equals the
//!   reference's `dtc` value, for several limits; `counter_brute.rs` checks
//!   that those values answer every counter as the direct computation over
//!   `(position, counter)` does, so the tables do too;
//! - for N = 10, every third position at every counter through
//!   `Tablebase::probe_counter`, and on a sample the moves of
//!   `probe_moves_counter`, against the direct values over `(position,
//!   counter)` (no DTC involved);
//! - the counter errors: out of range, tables without the rule, a counter
//!   during placement.

use moulin::solve::{solve_moving, SolveOptions};
use moulin_core::Node;
use moulin_probe::{Position, ProbeError, RuleOutcome, Rules, Sector, Tablebase};
use moulin_tests::brute::Key;
use moulin_tests::brute_counter::direct::{self, Wdl};
use moulin_tests::brute_counter::dtc::{self, RuleOutcome as Reference};
use moulin_tests::brute_counter::{groups, Group, Rule};
use std::collections::HashMap;
use tempfile::TempDir;

/// 3 v 3, then 3 v 4 with 4 v 3.
fn small_groups() -> Vec<Vec<Key>> {
    groups(4).into_iter().take(2).collect()
}

/// Rule tables up to 4 stones a side (moving phase), solved by the library.
fn solve(rule: Rule, placement: bool) -> (TempDir, Tablebase) {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules {
        flying: rule.flying,
        no_capture_limit: Some(rule.n),
    };
    let options = SolveOptions {
        dir: dir.path().to_path_buf(),
        max_stones: 4,
        rules,
        placement,
        ..Default::default()
    };
    solve_moving(&options).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(tb.rules(), rules);
    (dir, tb)
}

fn node(us: u32, them: u32) -> Node {
    Node::moving(us, them)
}

fn position(us: u32, them: u32) -> Position {
    Position::from_node(node(us, them), node(us, them).side_by_hands())
}

fn same(mine: RuleOutcome, reference: Reference) -> bool {
    match (mine, reference) {
        (RuleOutcome::Win(a), Reference::Win(b))
        | (RuleOutcome::CursedWin(a), Reference::CursedWin(b))
        | (RuleOutcome::BlessedLoss(a), Reference::BlessedLoss(b))
        | (RuleOutcome::Loss(a), Reference::Loss(b)) => a == b,
        (RuleOutcome::Draw, Reference::Draw) => true,
        _ => false,
    }
}

fn wdl(v: RuleOutcome) -> Wdl {
    match v {
        RuleOutcome::Win(_) => Wdl::Win,
        RuleOutcome::Loss(_) => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// Every position's stored value against the reference's DTC values.
fn stored_values_agree(rule: Rule) {
    let (_dir, tb) = solve(rule, false);
    let reference = dtc::solve(&small_groups(), rule);
    let ix = moulin_core::index::Indexer::get();
    let mut bad = Vec::new();
    let mut counted = [0u64; 5];
    for key in small_groups().into_iter().flatten() {
        let sector = Sector::moving(key.us, key.them);
        let codes = tb.sector_values(sector).unwrap();
        let want = reference.sector(key).unwrap();
        for (i, &want) in want.iter().enumerate() {
            let (us, them) = key.pair(i);
            let n = node(us, them);
            let got = RuleOutcome::from_code(codes[ix.index(&n) as usize]).unwrap();
            counted[match got {
                RuleOutcome::Win(_) => 0,
                RuleOutcome::CursedWin(_) => 1,
                RuleOutcome::Draw => 2,
                RuleOutcome::BlessedLoss(_) => 3,
                RuleOutcome::Loss(_) => 4,
            }] += 1;
            // The tables hold lost positions too (blocked: loss 0); the
            // probe answers a finished game without reading them.
            if !same(got, want) && bad.len() < 10 {
                bad.push(format!(
                    "{}: tables {got}, reference {want}",
                    position(us, them)
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "N {} flying {}:\n{}",
        rule.n,
        rule.flying,
        bad.join("\n")
    );
    // The check saw every kind it should: draws always, wins always.
    assert!(counted[0] > 0 && counted[2] > 0, "{counted:?}");
}

// One limit with flying in the default run; the ignored tests (CI runs
// them) take the others: 1, 3, 10 and 50 or 200, flying on and off. No
// DTC of these sectors exceeds 39 turns, so 50 and 200 store the same
// values (no cursed ones): each flying value takes one of them.
#[test]
fn stored_values_equal_the_reference_flying() {
    stored_values_agree(Rule {
        n: 10,
        flying: true,
    });
}

#[test]
#[ignore]
fn stored_values_equal_the_reference_no_flying() {
    stored_values_agree(Rule {
        n: 3,
        flying: false,
    });
}

#[test]
#[ignore]
fn stored_values_equal_the_reference_other_limits() {
    for (flying, limits) in [(true, [1, 3, 50]), (false, [1, 10, 200])] {
        for n in limits {
            stored_values_agree(Rule { n, flying });
        }
    }
}

/// The direct values of every sector at every counter: `key -> [c] ->
/// values` by the reference's index.
fn direct_layers(rule: Rule) -> HashMap<Key, Vec<Vec<Wdl>>> {
    let mut layers: HashMap<Key, Vec<Vec<Wdl>>> = HashMap::new();
    direct::solve(
        &small_groups(),
        rule,
        |g: &Group, c, values, _, same_below| {
            for (s, &key) in g.keys().iter().enumerate() {
                let at = layers
                    .entry(key)
                    .or_insert_with(|| vec![Vec::new(); rule.n as usize]);
                let v = &values[g.range(s)];
                at[c as usize] = v.to_vec();
                if same_below {
                    for below in 0..c {
                        at[below as usize] = v.to_vec();
                    }
                }
            }
        },
    );
    layers
}

/// Every position at every counter, and the moves of a sample, through the
/// probe API against the direct values.
fn probe_counter_agrees_with_direct(flying: bool) {
    let rule = Rule { n: 10, flying };
    let (_dir, tb) = solve(rule, false);
    let layers = direct_layers(rule);
    let rules = tb.rules();
    let mut bad = Vec::new();
    let mut moves_checked = 0;
    for key in small_groups().into_iter().flatten() {
        let here = &layers[&key];
        // Every third position (all of them cost a minute on two cores;
        // the stored values of all are compared above).
        for i in (0..key.size()).step_by(3) {
            let (us, them) = key.pair(i);
            let pos = position(us, them);
            for c in 0..rule.n {
                let want = here[c as usize][i];
                let got = tb.probe_counter(&pos, c).unwrap();
                if wdl(got) != want && bad.len() < 10 {
                    bad.push(format!("{pos} counter {c}: probe {got}, direct {want:?}"));
                }
                if !(i * 7 + c as usize).is_multiple_of(97) {
                    continue;
                }
                // Each move's value is the direct value of where it leads,
                // at the counter it leads to, for the other side.
                moves_checked += 1;
                let mut nexts = Vec::new();
                rules.for_each_move(&pos.node(), |m, next| nexts.push((m, next)));
                let moves = tb.probe_moves_counter(&pos, c).unwrap();
                assert_eq!(moves.len(), nexts.len());
                let mut best = Wdl::Loss;
                for ((m, v), (m2, next)) in moves.iter().zip(&nexts) {
                    assert_eq!(m, m2);
                    let theirs = if rules.is_lost(next) {
                        Wdl::Loss
                    } else if m.remove.is_some() {
                        let k = Key {
                            us: next.us.count_ones() as u8,
                            them: next.them.count_ones() as u8,
                            us_hand: 0,
                            them_hand: 0,
                        };
                        layers[&k][0][k.index(next.us, next.them)]
                    } else if c + 1 == rule.n {
                        Wdl::Draw
                    } else {
                        let k = Key {
                            us: key.them,
                            them: key.us,
                            us_hand: 0,
                            them_hand: 0,
                        };
                        layers[&k][c as usize + 1][k.index(next.us, next.them)]
                    };
                    let mine = match theirs {
                        Wdl::Win => Wdl::Loss,
                        Wdl::Loss => Wdl::Win,
                        Wdl::Draw => Wdl::Draw,
                    };
                    if wdl(*v) != mine && bad.len() < 10 {
                        bad.push(format!(
                            "{pos} counter {c} move {m}: probe {v}, direct {mine:?}"
                        ));
                    }
                    best = match (best, mine) {
                        (Wdl::Win, _) | (_, Wdl::Win) => Wdl::Win,
                        (Wdl::Draw, _) | (_, Wdl::Draw) => Wdl::Draw,
                        _ => Wdl::Loss,
                    };
                }
                if !moves.is_empty() && best != wdl(got) && bad.len() < 10 {
                    bad.push(format!(
                        "{pos} counter {c}: best move {best:?}, probe {got}"
                    ));
                }
                // The best moves keep the value the probe gives.
                for m in tb.best_moves_counter(&pos, c).unwrap() {
                    let v = moves.iter().find(|(x, _)| *x == m).unwrap().1;
                    assert_eq!(wdl(v), wdl(got), "{pos} counter {c} best move {m}");
                }
            }
        }
    }
    assert!(moves_checked > 1000, "{moves_checked}");
    assert!(bad.is_empty(), "flying {flying}:\n{}", bad.join("\n"));
}

// Both ignored in the default run (CI runs them): the brute force over
// every counter of 4 v 4 is the slowest check of the rule.
#[test]
#[ignore]
fn every_counter_agrees_with_the_direct_values_flying() {
    probe_counter_agrees_with_direct(true);
}

#[test]
#[ignore]
fn every_counter_agrees_with_the_direct_values_no_flying() {
    probe_counter_agrees_with_direct(false);
}

#[test]
fn counters_the_tables_cannot_answer_are_refused() {
    let (_dir, tb) = solve(Rule { n: 5, flying: true }, true);
    let pos: Position = "W:a1,d1,b4 B:g1,g4,f6 w".parse().unwrap();
    assert!(tb.probe_counter(&pos, 4).is_ok());
    let err = tb.probe_counter(&pos, 5).unwrap_err();
    assert!(
        matches!(
            err,
            ProbeError::CounterOutOfRange {
                counter: 5,
                limit: 5
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("0 <= counter < 5"), "{err}");
    assert!(matches!(
        tb.probe_moves_counter(&pos, 9),
        Err(ProbeError::CounterOutOfRange { .. })
    ));
    // During placement (counter 0) a position's value is its best move's,
    // as the moving phase's at any counter.
    let ix = moulin_core::index::Indexer::get();
    let mut placement_checked = 0;
    for sector in ["2v3h1v0", "3v3h1v1", "2v2h2v2", "3v2h1v1"] {
        let sector: Sector = sector.parse().unwrap();
        for slot in 0..ix.slots(sector) {
            let Some(node) = ix.unindex(sector, slot) else {
                continue;
            };
            let pos = Position::from_node(node, node.side_by_hands());
            if ix.index(&node) != slot || pos.validate().is_err() {
                continue;
            }
            let value = tb.probe_counter(&pos, 0).unwrap();
            let moves = tb.probe_moves_counter(&pos, 0).unwrap();
            let best = moves.iter().map(|(_, v)| *v).max_by_key(|v| v.rank());
            assert_eq!(best.unwrap_or(RuleOutcome::Loss(0)), value, "{pos}");
            placement_checked += 1;
        }
    }
    assert!(placement_checked > 1000, "{placement_checked}");
    let placing: Position = "W:a1,d1,b4 B:g1,g4,f6 w 1 1".parse().unwrap();
    assert!(tb.probe_counter(&placing, 0).is_ok());
    assert!(matches!(
        tb.probe_counter(&placing, 1),
        Err(ProbeError::CounterInPlacement { counter: 1 })
    ));
    // Tables without the rule answer no counter.
    let plain = tempfile::tempdir().unwrap();
    solve_moving(&SolveOptions {
        dir: plain.path().to_path_buf(),
        max_stones: 3,
        ..Default::default()
    })
    .unwrap();
    let tb = Tablebase::open(plain.path()).unwrap();
    let err = tb.probe_counter(&pos, 0).unwrap_err();
    assert!(matches!(err, ProbeError::NoCaptureRule), "{err}");
    assert!(err.to_string().contains("--no-capture-limit"), "{err}");
}

#[test]
fn rule_tables_do_not_mix_with_others() {
    let (dir, _) = solve(Rule { n: 5, flying: true }, false);
    // Another limit into the same directory is refused.
    let err = solve_moving(&SolveOptions {
        dir: dir.path().to_path_buf(),
        max_stones: 4,
        rules: Rules {
            flying: true,
            no_capture_limit: Some(6),
        },
        ..Default::default()
    })
    .unwrap_err();
    assert!(format!("{err:#}").contains("other rules"), "{err:#}");
    let err = solve_moving(&SolveOptions {
        dir: dir.path().to_path_buf(),
        max_stones: 4,
        ..Default::default()
    })
    .unwrap_err();
    assert!(format!("{err:#}").contains("other rules"), "{err:#}");
}
