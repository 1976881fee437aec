//! The no-capture rule's reference (`moulin_tests::brute_counter`): the
//! threshold property (one DTC per position answers every counter) checked
//! against direct values over `(position, counter)` on every position of
//! 3 v 3, 3 v 4 and 4 v 3, flying on and off, for several rule limits; the
//! outcome without the rule against the reference's distances to win; and
//! small facts read off the rule text.
//!
//! `cargo test --release -p moulin-tests --test counter_brute -- --nocapture`
//! prints the figures (per sector and limit: the five values and the longest
//! DTC) while asserting them.

use moulin_probe::{Node, Outcome, Position, Rules};
use moulin_tests::brute::{self, Key};
use moulin_tests::brute_counter::direct::{self, Wdl};
use moulin_tests::brute_counter::dtc::{self, counts, RuleOutcome};
use moulin_tests::brute_counter::{for_each_unmove, groups, moving, Group, Rule, Solved};
use std::path::Path;

/// A limit above every DTC of these sectors: no cursed value remains.
const BEYOND: u16 = 200;

/// The limits checked position by position against the direct values.
const LIMITS: [u16; 7] = [1, 2, 3, 5, 10, 30, BEYOND];

/// 3 v 3, then 3 v 4 with 4 v 3 (whose captures lead to 3 v 3 or end the game).
fn small_groups() -> Vec<Vec<Key>> {
    groups(4).into_iter().take(2).collect()
}

fn node(us: u32, them: u32) -> Node {
    Node {
        us,
        them,
        us_hand: 0,
        them_hand: 0,
    }
}

fn text(us: u32, them: u32) -> String {
    Position::from_node(node(us, them), node(us, them).side_by_hands()).to_string()
}

fn parse(s: &str) -> Node {
    s.parse::<Position>().unwrap().node()
}

/// The counter-0 values of a group's positions, in group numbering.
fn flat(solved: &Solved<RuleOutcome>, g: &Group) -> Vec<RuleOutcome> {
    g.keys()
        .iter()
        .flat_map(|&k| solved.sector(k).unwrap().iter().copied())
        .collect()
}

/// Checks the direct values of every layer against the threshold property
/// and returns the counterexamples (at most a few, from the highest counter
/// down, as the layers come). The first layer is compared in full; below
/// it, a position's direct value can change only where the direct
/// computation reports a change, and its prediction only where its DTC is
/// `N - c`, so those are the positions compared: the others keep both.
fn threshold_failures(rule: Rule) -> Vec<String> {
    let groups = small_groups();
    let start = std::time::Instant::now();
    let solved = dtc::solve(&groups, rule);
    let dtc_time = start.elapsed();
    let mut failures = Vec::new();
    let mut compared = 0usize;
    // Per group: the counter-0 values and the positions by DTC (<= N).
    let mut stored: Option<(usize, Vec<RuleOutcome>, Vec<Vec<u32>>)> = None;
    direct::solve(&groups, rule, |g, c, values, changed, same_below| {
        if stored.as_ref().is_none_or(|(len, _, _)| *len != g.len()) {
            let flat = flat(&solved, g);
            let mut by_dtc = vec![Vec::new(); rule.n as usize + 1];
            for (i, v) in flat.iter().enumerate() {
                if let RuleOutcome::Win(d) | RuleOutcome::Loss(d) = v {
                    by_dtc[*d as usize].push(i as u32);
                }
            }
            stored = Some((g.len(), flat, by_dtc));
        }
        let (_, flat, by_dtc) = stored.as_ref().unwrap();
        let mut check = |i: usize, at: u16| {
            compared += 1;
            let want = flat[i].at_counter(rule.n, at);
            if values[i] != want && failures.len() < 5 {
                let (us, them) = g.pair(i);
                failures.push(format!(
                    "{} N {} counter {at}: direct {:?}, counter 0 {} predicts {want:?}",
                    text(us, them),
                    rule.n,
                    values[i],
                    flat[i]
                ));
            }
        };
        match changed {
            None => (0..values.len()).for_each(|i| check(i, c)),
            Some(changed) => {
                changed.iter().for_each(|&i| check(i as usize, c));
                by_dtc[(rule.n - c) as usize]
                    .iter()
                    .for_each(|&i| check(i as usize, c));
            }
        }
        if same_below {
            // Every counter below has these values; predictions change
            // only where the DTC is N - c'.
            for below in 0..c {
                by_dtc[(rule.n - below) as usize]
                    .iter()
                    .for_each(|&i| check(i as usize, below));
            }
        }
    });
    eprintln!(
        "N {} flying {}: {compared} (position, counter) comparisons (DTC {:.1?}, all {:.1?})",
        rule.n,
        rule.flying,
        dtc_time,
        start.elapsed()
    );
    failures
}

#[test]
fn threshold_property_with_flying() {
    for n in LIMITS {
        let failures = threshold_failures(Rule { n, flying: true });
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

#[test]
fn threshold_property_without_flying() {
    for n in LIMITS {
        let failures = threshold_failures(Rule { n, flying: false });
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
