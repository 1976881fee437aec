//! Direct game values over `(position, counter)`: see the module above.

use super::{for_each_unmove, par_fill, Group, Memo, Rule, Solved};
use crate::brute::for_each_turn;
use moulin_core::Node;
use std::sync::Arc;

/// A game value for the player to move, without distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Wdl {
    /// Neither side can force a win.
    Draw,
    /// The player to move wins.
    Win,
    /// The player to move loses.
    Loss,
}

/// What a position's turns give whatever the counter: captures (valued at
/// counter 0 in the lower sector) and whether it can move at all.
#[derive(Clone, Copy, Default)]
struct Fixed {
    /// The mover has a legal turn.
    can_move: bool,
    /// Some capture wins (the opponent left with two stones, or a lower
    /// position the opponent loses).
    capture_wins: bool,
    /// Some capture leads to a lower position that is drawn.
    capture_draws: bool,
    /// Number of non-capturing turns.
    quiet: u8,
}

fn node(us: u32, them: u32) -> Node {
    Node::moving(us, them)
}

fn fixed(us: u32, them: u32, rule: Rule, lower: &Solved<Wdl>) -> Fixed {
    let mut f = Fixed::default();
    for_each_turn(&node(us, them), rule.flying, |_, _, remove, next| {
        f.can_move = true;
        if remove.is_none() {
            f.quiet += 1;
            return;
        }
        match lower.after_capture(next.us, next.them) {
            None | Some(Wdl::Loss) => f.capture_wins = true,
            Some(Wdl::Draw) => f.capture_draws = true,
            Some(Wdl::Win) => {}
        }
    });
    f
}

/// Whether the mover has no legal turn.
fn blocked(us: u32, them: u32, rule: Rule) -> bool {
    let mut any = false;
    for_each_turn(&node(us, them), rule.flying, |_, _, _, _| any = true);
    !any
}

/// The value at a counter from the position's fixed part and the number of
/// its non-capturing turns that lead to a win / a loss of the opponent at
/// the next counter.
#[inline]
fn value(f: Fixed, wins: u8, losses: u8) -> Wdl {
    if !f.can_move {
        Wdl::Loss
    } else if f.capture_wins || losses > 0 {
        Wdl::Win
    } else if !f.capture_draws && wins == f.quiet {
        Wdl::Loss
    } else {
        Wdl::Draw
    }
}

/// The value at counter `N` of a position reached by a non-capturing turn:
/// the end of the game first (a blocked mover has lost), then the draw.
fn at_limit(blocked: bool) -> Wdl {
    if blocked {
        Wdl::Loss
    } else {
        Wdl::Draw
    }
}

/// A position's state between layers: its fixed part, the counts of its
/// non-capturing turns into a win / a loss of the opponent at the counter
/// above, and its value at the last counter evaluated.
#[derive(Clone, Copy)]
struct Cell {
    fixed: Fixed,
    wins: u8,
    losses: u8,
    value: Wdl,
}

/// Values the positions of `group` at every counter from `N - 1` down to 0,
/// `lower` holding the counter-0 values of the sectors captures lead to.
/// Calls `visit(c, values, changed, same_below)` for each counter `c`
/// evaluated, with the values in group numbering and the positions whose
/// value differs from the counter above (`None` at `N - 1`: compare them
/// all); `same_below` tells that the values at every counter below `c` are
/// the same (the layers became stationary), and no further call follows.
/// Returns the values at counter 0.
pub fn group(
    group: &Group,
    rule: Rule,
    lower: &Solved<Wdl>,
    mut visit: impl FnMut(u16, &[Wdl], Option<&[u32]>, bool),
) -> Vec<Wdl> {
    assert!(rule.n >= 1, "the rule limit is at least one turn");
    let n = group.len();
    let mut cells = vec![
        Cell {
            fixed: Fixed::default(),
            wins: 0,
            losses: 0,
            value: Wdl::Draw,
        };
        n
    ];
    par_fill(&mut cells, 0, |i| {
        let (us, them) = group.pair(i);
        let fixed = fixed(us, them, rule, lower);
        Cell {
            fixed,
            wins: 0,
            losses: 0,
            // Counter N, reached by a non-capturing turn.
            value: at_limit(!fixed.can_move),
        }
    });
    // At counter N only the blocked positions are lost: count the turns
    // into them.
    for q in 0..n {
        if cells[q].value == Wdl::Loss {
            let (us, them) = group.pair(q);
            for_each_unmove(us, them, rule.flying, |pu, pt| {
                cells[group.slot(pu, pt)].losses += 1;
            });
        }
    }
    let mut candidates: Vec<u32> = (0..n as u32).collect();
    let mut stamp = vec![u16::MAX; n];
    let mut changed: Vec<(u64, Wdl)> = Vec::new();
    let mut changed_positions: Vec<u32> = Vec::new();
    let mut values: Vec<Wdl> = cells.iter().map(|c| c.value).collect();
    for c in (0..rule.n).rev() {
        changed.clear();
        changed_positions.clear();
        candidates.sort_unstable();
        for &p in &candidates {
            let cell = &mut cells[p as usize];
            let v = value(cell.fixed, cell.wins, cell.losses);
            if v != cell.value {
                changed.push(((p as u64), cell.value));
                changed_positions.push(p);
                cell.value = v;
                values[p as usize] = v;
            }
        }
        let stationary = changed.is_empty();
        let all = c == rule.n - 1;
        visit(
            c,
            &values,
            (!all).then_some(&changed_positions[..]),
            stationary,
        );
        if stationary {
            break;
        }
        candidates.clear();
        for entry in changed.iter_mut() {
            entry.0 = group.by_mover(entry.0 as usize);
        }
        changed.sort_unstable_by_key(|&(entry, _)| entry);
        for &(entry, old) in &changed {
            let q = entry as u32 as usize;
            let new = values[q];
            let (us, them) = group.pair(q);
            for_each_unmove(us, them, rule.flying, |pu, pt| {
                let p = group.slot(pu, pt);
                let cell = &mut cells[p];
                match old {
                    Wdl::Win => cell.wins -= 1,
                    Wdl::Loss => cell.losses -= 1,
                    Wdl::Draw => {}
                }
                match new {
                    Wdl::Win => cell.wins += 1,
                    Wdl::Loss => cell.losses += 1,
                    Wdl::Draw => {}
                }
                if stamp[p] != c {
                    stamp[p] = c;
                    candidates.push(p as u32);
                }
            });
        }
    }
    values
}

/// The same values by the plain recurrence: every position re-valued from
/// all its turns at every counter, nothing kept between layers but the
/// values. Slow; for the tests to check [`group`] on small cases.
pub fn naive_group(
    group: &Group,
    rule: Rule,
    lower: &Solved<Wdl>,
    mut visit: impl FnMut(u16, &[Wdl]),
) -> Vec<Wdl> {
    let n = group.len();
    // Counter N: reached by a non-capturing turn; a blocked mover has lost.
    let mut above = vec![Wdl::Draw; n];
    par_fill(&mut above, 0, |i| {
        let (us, them) = group.pair(i);
        at_limit(blocked(us, them, rule))
    });
    let mut here = vec![Wdl::Draw; n];
    for c in (0..rule.n).rev() {
        par_fill(&mut here, 0, |i| {
            let (us, them) = group.pair(i);
            let mut any = false;
            let mut best = Wdl::Loss;
            for_each_turn(&node(us, them), rule.flying, |_, _, remove, next| {
                any = true;
                let theirs = if remove.is_some() {
                    lower.after_capture(next.us, next.them).unwrap_or(Wdl::Loss)
                } else {
                    above[group.slot(next.us, next.them)]
                };
                let mine = match theirs {
                    Wdl::Loss => Wdl::Win,
                    Wdl::Win => Wdl::Loss,
                    Wdl::Draw => Wdl::Draw,
                };
                best = match (best, mine) {
                    (Wdl::Win, _) | (_, Wdl::Win) => Wdl::Win,
                    (Wdl::Draw, _) | (_, Wdl::Draw) => Wdl::Draw,
                    _ => Wdl::Loss,
                };
            });
            if any {
                best
            } else {
                Wdl::Loss
            }
        });
        visit(c, &here);
        std::mem::swap(&mut above, &mut here);
    }
    above
}

/// Solves the counter-0 values of every sector of `groups` in order (each
/// capture leading to an earlier group), calling `visit(group, c, values,
/// same_below)` as [`group`] does.
pub fn solve(
    groups: &[Vec<crate::brute::Key>],
    rule: Rule,
    mut visit: impl FnMut(&Group, u16, &[Wdl], Option<&[u32]>, bool),
) -> Solved<Wdl> {
    let mut solved = Solved::default();
    for keys in groups {
        let g = Group::new(keys);
        let mut visit =
            |c, values: &[Wdl], changed: Option<&[u32]>, same| visit(&g, c, values, changed, same);
        let zero = if solved.is_empty() {
            first(keys, rule.flying).replay(rule, &mut visit)
        } else {
            self::group(&g, rule, &solved, visit)
        };
        for (s, &k) in keys.iter().enumerate() {
            solved.insert(k, zero[g.range(s)].to_vec());
        }
    }
    solved
}

/// The layers of a first group (no sector solved below it) as [`group`]
/// evaluates them, by the number of turns left `N - c`: its captures all end
/// the game, so nothing but the count of layers depends on `N`.
struct Chain {
    /// One turn left (counter `N - 1`).
    first: Vec<Wdl>,
    /// Whether it is stationary already.
    first_stationary: bool,
    /// Each further layer as its changes from the one before (position,
    /// new value); the last has none: stationary.
    steps: Vec<Vec<(u32, Wdl)>>,
}

impl Chain {
    /// Evaluates the layers until they are stationary.
    fn new(keys: &[crate::brute::Key], flying: bool) -> Chain {
        // More turns than any position of these groups needs.
        const LONG: u16 = 4096;
        let mut chain = Chain {
            first: Vec::new(),
            first_stationary: false,
            steps: Vec::new(),
        };
        let rule = Rule { n: LONG, flying };
        self::group(
            &Group::new(keys),
            rule,
            &Solved::default(),
            |c, values, changed, same| match changed {
                None => {
                    assert_eq!(c, LONG - 1);
                    chain.first = values.to_vec();
                    chain.first_stationary = same;
                }
                Some(changed) => chain
                    .steps
                    .push(changed.iter().map(|&p| (p, values[p as usize])).collect()),
            },
        );
        let stationary = chain.first_stationary || chain.steps.last().is_some_and(Vec::is_empty);
        assert!(stationary, "the layers of {keys:?} became stationary");
        chain
    }

    /// The calls of [`group`] under `rule` from the recorded layers; returns
    /// the values at counter 0.
    fn replay(
        &self,
        rule: Rule,
        mut visit: impl FnMut(u16, &[Wdl], Option<&[u32]>, bool),
    ) -> Vec<Wdl> {
        assert!(rule.n >= 1, "the rule limit is at least one turn");
        let mut values = self.first.clone();
        visit(rule.n - 1, &values, None, self.first_stationary);
        if self.first_stationary {
            return values;
        }
        let mut positions = Vec::new();
        for (c, step) in (0..rule.n - 1).rev().zip(&self.steps) {
            positions.clear();
            for &(p, v) in step {
                values[p as usize] = v;
                positions.push(p);
            }
            visit(c, &values, Some(&positions), step.is_empty());
            if step.is_empty() {
                break;
            }
        }
        values
    }
}

/// The chain of a first group, once per group, flying and process (the
/// tests value the same 3 v 3 under a dozen limits).
fn first(keys: &[crate::brute::Key], flying: bool) -> Arc<Chain> {
    static CHAINS: Memo<Chain> = Memo::new();
    CHAINS.get((keys.to_vec(), flying), || Chain::new(keys, flying))
}
