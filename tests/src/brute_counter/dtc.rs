//! The value at counter 0 in five values with the distance to conversion,
//! by one retrograde analysis without the counter: see the module above.

use super::{for_each_unmove, par_fill, Group, Memo, Rule, Solved};
use crate::brute::{for_each_turn, Key};
use moulin_core::Node;
use std::fmt;
use std::sync::Arc;

/// A position's value at counter 0 under the rule, with its distance to
/// conversion (DTC) in turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleOutcome {
    /// Won at counter 0: the mover converts to a win within `d <= N` turns.
    Win(u16),
    /// Won without the rule, drawn under it (`d > N`).
    CursedWin(u16),
    /// Drawn with or without the rule.
    Draw,
    /// Lost without the rule, drawn under it (`d > N`).
    BlessedLoss(u16),
    /// Lost at counter 0: the opponent converts to a win within `d <= N` turns.
    Loss(u16),
}

impl RuleOutcome {
    /// The value at counter `c` (`0 <= c < N`) that the threshold property
    /// gives: a win (loss) at counter 0 with `d <= N - c` stays one,
    /// everything else is a draw.
    pub fn at_counter(self, n: u16, c: u16) -> super::direct::Wdl {
        use super::direct::Wdl;
        match self {
            RuleOutcome::Win(d) if d <= n - c => Wdl::Win,
            RuleOutcome::Loss(d) if d <= n - c => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }

    /// The DTC, `None` for a draw.
    pub fn distance(self) -> Option<u16> {
        match self {
            RuleOutcome::Win(d)
            | RuleOutcome::CursedWin(d)
            | RuleOutcome::BlessedLoss(d)
            | RuleOutcome::Loss(d) => Some(d),
            RuleOutcome::Draw => None,
        }
    }
}

impl fmt::Display for RuleOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleOutcome::Win(d) => write!(f, "win {d}"),
            RuleOutcome::CursedWin(d) => write!(f, "cursed-win {d}"),
            RuleOutcome::Draw => f.write_str("draw"),
            RuleOutcome::BlessedLoss(d) => write!(f, "blessed-loss {d}"),
            RuleOutcome::Loss(d) => write!(f, "loss {d}"),
        }
    }
}

/// Work state of a position during the analysis.
#[derive(Clone, Copy, Default)]
struct Cell {
    /// Level of the (tentative) win or the loss, when `state` says one.
    level: u16,
    /// Highest level among the mover's losing conversions (0: none), or
    /// `DRAWS` when some conversion draws (the position is then not lost).
    conversion_loss: u16,
    /// `UNKNOWN`, `WIN` (tentative until taken from its queue), `LOSS`.
    state: u8,
    /// Non-capturing turns not yet known to lead to a win of the opponent.
    quiet: u8,
}

const UNKNOWN: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;
const DONE: u8 = 4;
const DRAWS: u16 = u16::MAX;

fn node(us: u32, them: u32) -> Node {
    Node::moving(us, them)
}

/// The forward pass for one position: its conversions and quiet turns.
fn seed(us: u32, them: u32, rule: Rule, lower: &Solved<RuleOutcome>) -> Cell {
    let cursed = rule.n + 1;
    let mut any = false;
    let mut win: Option<u16> = None;
    let mut cell = Cell::default();
    for_each_turn(&node(us, them), rule.flying, |_, _, remove, next| {
        any = true;
        if remove.is_none() {
            cell.quiet += 1;
            return;
        }
        let (won, lost) = match lower.after_capture(next.us, next.them) {
            None | Some(RuleOutcome::Loss(_)) => (Some(1), None),
            Some(RuleOutcome::BlessedLoss(_)) => (Some(cursed), None),
            Some(RuleOutcome::Draw) => {
                cell.conversion_loss = DRAWS;
                (None, None)
            }
            Some(RuleOutcome::CursedWin(_)) => (None, Some(cursed)),
            Some(RuleOutcome::Win(_)) => (None, Some(1)),
        };
        if let Some(w) = won {
            win = Some(win.map_or(w, |v| v.min(w)));
        }
        if let Some(l) = lost {
            if cell.conversion_loss != DRAWS {
                cell.conversion_loss = cell.conversion_loss.max(l);
            }
        }
    });
    if !any {
        cell.state = LOSS;
        cell.level = 0;
    } else if let Some(w) = win {
        cell.state = WIN;
        cell.level = w;
    } else if cell.quiet == 0 && cell.conversion_loss != DRAWS {
        cell.state = LOSS;
        cell.level = cell.conversion_loss;
    }
    cell
}

/// Queues a position with its mover's stones (see `Group::by_mover`).
fn push(queues: &mut Vec<Vec<u64>>, level: u16, us: u32, i: usize) {
    let level = level as usize;
    if queues.len() <= level {
        queues.resize_with(level + 1, Vec::new);
    }
    queues[level].push((us as u64) << 32 | i as u64);
}

/// Values the positions of `group` at counter 0 with their DTC, `lower`
/// holding the values of the sectors captures lead to. Group numbering.
pub fn group(group: &Group, rule: Rule, lower: &Solved<RuleOutcome>) -> Vec<RuleOutcome> {
    label(&analyse(group, rule, lower), rule)
}

/// The limits the analysis and its labels are made for.
fn check(rule: Rule) {
    assert!(rule.n >= 1, "the rule limit is at least one turn");
    assert!(
        rule.n < u16::MAX / 2,
        "the rule limit leaves room for levels"
    );
}

/// The retrograde analysis of `group`: each position's state and level.
fn analyse(group: &Group, rule: Rule, lower: &Solved<RuleOutcome>) -> Vec<Cell> {
    check(rule);
    let n = group.len();
    let mut cells = vec![Cell::default(); n];
    par_fill(&mut cells, 0, |i| {
        let (us, them) = group.pair(i);
        seed(us, them, rule, lower)
    });
    let mut queues: Vec<Vec<u64>> = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        if cell.state != UNKNOWN {
            push(&mut queues, cell.level, group.pair(i).0, i);
        }
    }
    let mut level = 0usize;
    while level < queues.len() {
        let mut list = std::mem::take(&mut queues[level]);
        list.sort_unstable();
        // Take the entries still current (a win found again at a lower
        // level was taken there) and mark them done, in a loop of its own
        // so that the memory reads overlap.
        let mut live = Vec::with_capacity(list.len());
        for &entry in &list {
            let cell = &mut cells[entry as u32 as usize];
            if cell.state & DONE == 0 && cell.level as usize == level {
                cell.state |= DONE;
                live.push((entry, cell.state & !DONE));
            }
        }
        for &(entry, state) in &live {
            let q = entry as u32 as usize;
            let (us, them) = group.pair(q);
            for_each_unmove(us, them, rule.flying, |pu, pt| {
                let p = group.slot(pu, pt);
                let cell = &mut cells[p];
                if cell.state & DONE != 0 {
                    return;
                }
                let up = level as u16 + 1;
                if state == LOSS {
                    // The opponent loses after this turn: a win for `p`.
                    if cell.state == UNKNOWN || (cell.state == WIN && cell.level > up) {
                        cell.state = WIN;
                        cell.level = up;
                        push(&mut queues, up, pu, p);
                    }
                } else if cell.state == UNKNOWN {
                    // The opponent wins after this turn, at the highest
                    // level so far (levels are taken in order).
                    cell.quiet -= 1;
                    if cell.quiet == 0 && cell.conversion_loss != DRAWS {
                        let l = up.max(cell.conversion_loss);
                        cell.state = LOSS;
                        cell.level = l;
                        push(&mut queues, l, pu, p);
                    }
                }
            });
        }
        level += 1;
    }
    cells
}

/// The values of the analysed positions: a level up to `N` is a win or a
/// loss, a level beyond it a cursed win or a blessed loss.
fn label(cells: &[Cell], rule: Rule) -> Vec<RuleOutcome> {
    check(rule);
    cells
        .iter()
        .map(|c| match (c.state & !DONE, c.level) {
            (UNKNOWN, _) => RuleOutcome::Draw,
            (WIN, d) if d <= rule.n => RuleOutcome::Win(d),
            (WIN, d) => RuleOutcome::CursedWin(d),
            (_, d) if d <= rule.n => RuleOutcome::Loss(d),
            (_, d) => RuleOutcome::BlessedLoss(d),
        })
        .collect()
}

/// Solves every sector of `groups` in order (each capture leading to an
/// earlier group).
pub fn solve(groups: &[Vec<Key>], rule: Rule) -> Solved<RuleOutcome> {
    let mut solved = Solved::default();
    for keys in groups {
        let g = Group::new(keys);
        let values = if solved.is_empty() {
            label(&first(keys, rule), rule)
        } else {
            self::group(&g, rule, &solved)
        };
        for (s, &k) in keys.iter().enumerate() {
            solved.insert(k, values[g.range(s)].to_vec());
        }
    }
    solved
}

/// The analysis of a first group (no sector solved below it), once per
/// group, flying and process. Its captures all end the game (a lower
/// sector would be needed otherwise), so no seed lies at `N + 1` and its
/// levels do not depend on `N`: only their labels do. The tests value the
/// same 3 v 3 under a dozen limits.
fn first(keys: &[Key], rule: Rule) -> Arc<Vec<Cell>> {
    static CELLS: Memo<Vec<Cell>> = Memo::new();
    CELLS.get((keys.to_vec(), rule.flying), || {
        analyse(&Group::new(keys), rule, &Solved::default())
    })
}

/// Counts of the five values over a sector, with the longest DTC of each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Wins at counter 0.
    pub wins: u64,
    /// Cursed wins.
    pub cursed_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Blessed losses.
    pub blessed_losses: u64,
    /// Losses at counter 0.
    pub losses: u64,
    /// Longest DTC of a win.
    pub max_win: u16,
    /// Longest DTC of a loss.
    pub max_loss: u16,
    /// Longest DTC of a cursed win.
    pub max_cursed_win: u16,
    /// Longest DTC of a blessed loss.
    pub max_blessed_loss: u16,
}

/// Counts of a sector's values.
pub fn counts(values: &[RuleOutcome]) -> Counts {
    let mut c = Counts::default();
    for &v in values {
        match v {
            RuleOutcome::Win(d) => {
                c.wins += 1;
                c.max_win = c.max_win.max(d);
            }
            RuleOutcome::CursedWin(d) => {
                c.cursed_wins += 1;
                c.max_cursed_win = c.max_cursed_win.max(d);
            }
            RuleOutcome::Draw => c.draws += 1,
            RuleOutcome::BlessedLoss(d) => {
                c.blessed_losses += 1;
                c.max_blessed_loss = c.max_blessed_loss.max(d);
            }
            RuleOutcome::Loss(d) => {
                c.losses += 1;
                c.max_loss = c.max_loss.max(d);
            }
        }
    }
    c
}
