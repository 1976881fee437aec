//! An independent reference for the no-capture rule (`docs/rules.md`, "The
//! no-capture rule"), against which the production solver's rule tables are
//! checked. It shares only the reference's move generator and dense index
//! (`crate::brute`), never the production solver, and covers the moving
//! phase (both hands empty), flying on or off, for a rule limit `N`.
//!
//! Two computations that do not share their method:
//!
//! - [`direct`]: the game values `V_N(p, c)` (win, draw or loss, no distance)
//!   of every position `p` and every counter `0 <= c < N`, straight from the
//!   rule text over the state space `(p, c)`. A turn with a capture sets the
//!   counter to 0 and leads to a lower sector (valued there at counter 0,
//!   recursively by the same computation); any other turn adds 1. After a
//!   turn the end of the game comes first (the opponent blocked or left with
//!   two stones: the mover wins), then the draw when the counter reached `N`.
//!   Inside a sector pair non-capturing turns raise the counter, so the
//!   states form layers: counter `c` is valued from counter `c + 1` alone,
//!   and counter `N` (reached by a non-capturing turn) is a loss for a
//!   blocked mover, a draw otherwise. The layers are evaluated from `N - 1`
//!   down to 0. Only positions with a successor whose value changed between
//!   the two layers above can change; those are re-valued from counts of
//!   their successors' values (kept up to date through un-moves), and once a
//!   layer equals the one above, all lower layers equal it too (the same map
//!   applied to the same values). [`direct::naive_group`] re-values every
//!   position from its turns at every layer, for the tests to compare.
//!
//! - [`dtc`]: per position, without the counter, the value at counter 0 in
//!   five values with the distance to conversion (DTC), by one retrograde
//!   analysis that runs past `N` as Syzygy's generator does.
//!
//! # The distance to conversion implemented
//!
//! A *conversion* is a turn that captures or ends the game. Its result, from
//! the mover's side, is: a win when it ends the game (the opponent blocked
//! or left with two stones) or lands in a position the opponent loses at
//! counter 0 (`Loss`); a *cursed* win when it lands in a `BlessedLoss` of the
//! opponent; a draw when it lands in a `Draw`; a *blessed* loss when it lands
//! in a `CursedWin` of the opponent; a loss when it lands in a `Win`.
//!
//! The retrograde analysis is the usual one by levels (the winner takes the
//! lowest level, the loser the highest, a blocked mover is `loss 0`), seeded
//! by the conversions: a win or loss conversion at level 1, a cursed win or
//! blessed loss conversion at level `N + 1` (Syzygy seeds its `CAPT_CWIN` at
//! `WIN_IN_ONE + DRAW_RULE` the same way), a draw conversion makes the
//! position at worst a draw. A win found at level `d <= N` is a `Win(d)`, at
//! level `d > N` a `CursedWin(d)`; a loss at `d <= N` a `Loss(d)`, beyond a
//! `BlessedLoss(d)`. So for wins and losses the DTC is the number of turns to
//! the next conversion, the winner shortest and the loser longest, where the
//! conversion must land in a position that keeps the outcome (a `Loss` of
//! the opponent for a win): levels `<= N` never depend on the seeds at
//! `N + 1`. For cursed wins and blessed losses the number counts a
//! conversion that keeps the cursed outcome as if made on turn `N + 1`
//! (a real win past `N` counts its real turns), as Syzygy's DTZ does; it only
//! orders these drawn positions, and tells them apart from wins: a stored
//! level above `N` means cursed or blessed.
//!
//! Why one number answers every counter: from counter `c` the game is a
//! game of `N - c` turns at most, won by the side that forces a winning
//! conversion within them. The set of positions won within `k` turns grows
//! with `k`, so a position wins at counter `c` exactly when it wins at
//! counter 0 with `DTC <= N - c` (the same for losses), and is drawn
//! otherwise. The tests check this against [`direct`] on every position and
//! counter, rather than taking it on trust.
//!
//! Cursed wins and blessed losses arise in two ways: a win whose shortest
//! forced conversion takes more than `N` turns (a `Win` past `N`, its loser
//! a `BlessedLoss`), and a conversion into a lower sector's cursed or blessed
//! value. `Win ∪ CursedWin` is exactly the set of positions won without the
//! rule (and `Loss ∪ BlessedLoss` those lost), which the tests check against
//! the reference's distances to win (`crate::brute`).
//!
//! # What the production solver stores, and how a probe answers a counter
//!
//! Per position the five values with the DTC, or equivalently the outcome
//! without the rule (win, draw, loss) and the DTC level, since a level above
//! `N` marks the cursed or blessed ones. DTC has no parity: a loss may be
//! odd (the loser's own capture into a position the opponent wins converts
//! at once: a loss in 1) and a win even (a turn into such a loss of the
//! opponent), so a code must not take its win or loss from the parity as
//! `Outcome::code` does. Cursed and blessed levels exceed `N` (by up to
//! about the longest distance without the rule), so plan for values past
//! 255 when `N` is 100 or more.
//!
//! `Tablebase::probe_counter(&pos, c)` for `0 <= c < N` answers `Win(d)` if
//! the stored value is `Win(d)` with `d <= N - c`, `Loss(d)` if it is
//! `Loss(d)` with `d <= N - c`, and otherwise the stored value itself, with
//! a `Win(d)` read as `CursedWin(d)` and a `Loss(d)` as `BlessedLoss(d)`
//! (drawn at that counter, won or lost without the rule). A move is valued
//! at the counter it leads to: after a capture, the next position at counter
//! 0; otherwise at `c + 1`, which for `c + 1 = N` is a draw unless the move
//! ended the game (the next position is lost: `Loss(0)` at every counter).
//! A counter `c >= N` cannot occur and must be refused.

use crate::brute::{adjacencies, Key};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub mod direct;
pub mod dtc;

/// The rule option: a limit of `n` turns without a capture, and flying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Turns without a capture after which the game is drawn (at least 1).
    pub n: u16,
    /// Whether a player with three stones flies.
    pub flying: bool,
}

/// A moving-phase sector: `us` stones of the mover against `them`.
pub const fn moving(us: u8, them: u8) -> Key {
    Key {
        us,
        them,
        us_hand: 0,
        them_hand: 0,
    }
}

/// The sector pairs of the moving phase up to `max_stones` a side, in an
/// order where a capture always leads to a pair listed earlier: each pair
/// is closed under non-capturing turns.
pub fn groups(max_stones: u8) -> Vec<Vec<Key>> {
    let mut out = Vec::new();
    for total in 6..=2 * max_stones {
        for a in 3..=max_stones {
            let b = total - a;
            if b < a || b > max_stones {
                continue;
            }
            out.push(if a == b {
                vec![moving(a, b)]
            } else {
                vec![moving(a, b), moving(b, a)]
            });
        }
    }
    out
}

/// One or two sectors solved together, numbered one after the other.
pub struct Group {
    keys: Vec<Key>,
    offsets: Vec<usize>,
}

impl Group {
    /// The group of these sectors (a sector and its mirror, or one sector).
    pub fn new(keys: &[Key]) -> Group {
        let mut offsets = vec![0];
        for k in keys {
            offsets.push(offsets.last().unwrap() + k.size());
        }
        Group {
            keys: keys.to_vec(),
            offsets,
        }
    }

    /// The sectors.
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        *self.offsets.last().unwrap()
    }

    /// Whether the group has no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The positions of sector `s` within the group's numbering.
    pub fn range(&self, s: usize) -> std::ops::Range<usize> {
        self.offsets[s]..self.offsets[s + 1]
    }

    /// The group number of a position of one of its sectors.
    #[inline]
    pub fn slot(&self, us: u32, them: u32) -> usize {
        let (a, b) = (us.count_ones() as u8, them.count_ones() as u8);
        let s = self
            .keys
            .iter()
            .position(|k| k.us == a && k.them == b)
            .expect("position inside the group");
        self.offsets[s] + self.keys[s].index(us, them)
    }

    /// A sort key that puts together the positions whose mover has the
    /// same stones: their un-moves then lead to one block of a sector
    /// (`Key::index` is opponent-major), which stays in the cache.
    #[inline]
    pub fn by_mover(&self, i: usize) -> u64 {
        let (us, _) = self.pair(i);
        (us as u64) << 32 | i as u64
    }

    /// The position `(us, them)` at a group number.
    #[inline]
    pub fn pair(&self, i: usize) -> (u32, u32) {
        let s = if i < self.offsets[1] { 0 } else { 1 };
        self.keys[s].pair(i - self.offsets[s])
    }
}

/// Values of the sectors solved so far, indexed by `Key::index`.
pub struct Solved<T> {
    sectors: HashMap<Key, Vec<T>>,
}

impl<T> Default for Solved<T> {
    fn default() -> Self {
        Solved {
            sectors: HashMap::new(),
        }
    }
}

impl<T: Copy> Solved<T> {
    /// Whether no sector is solved yet.
    pub fn is_empty(&self) -> bool {
        self.sectors.is_empty()
    }

    /// The values of a sector, if solved.
    pub fn sector(&self, key: Key) -> Option<&[T]> {
        self.sectors.get(&key).map(Vec::as_slice)
    }

    /// Adds the values of a sector.
    pub fn insert(&mut self, key: Key, values: Vec<T>) {
        assert_eq!(values.len(), key.size());
        self.sectors.insert(key, values);
    }

    /// The value of the position a capture leads to, `None` when the
    /// opponent is left with two stones (the game is over).
    #[inline]
    pub fn after_capture(&self, us: u32, them: u32) -> Option<T> {
        if us.count_ones() < 3 {
            return None;
        }
        let key = moving(us.count_ones() as u8, them.count_ones() as u8);
        let values = self.sector(key).expect("lower sector solved first");
        Some(values[key.index(us, them)])
    }
}

/// Values computed once per process, by group of sectors and flying: the
/// first group's, which the tests ask for under many limits.
pub(crate) struct Memo<T> {
    done: Mutex<Vec<(MemoKey, Slot<T>)>>,
}

/// The sectors of a group, and flying.
type MemoKey = (Vec<Key>, bool);
/// A value, or the place where the first caller will put it.
type Slot<T> = Arc<OnceLock<Arc<T>>>;

impl<T> Memo<T> {
    pub(crate) const fn new() -> Memo<T> {
        Memo {
            done: Mutex::new(Vec::new()),
        }
    }

    /// The value for `key`, made by `make` on the first call (the callers
    /// of the same key meanwhile wait for it; other keys go on).
    pub(crate) fn get(&self, key: MemoKey, make: impl FnOnce() -> T) -> Arc<T> {
        let once = {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            match done.iter().find(|(k, _)| *k == key) {
                Some((_, once)) => once.clone(),
                None => {
                    let once = Arc::new(OnceLock::new());
                    done.push((key, once.clone()));
                    once
                }
            }
        };
        once.get_or_init(|| Arc::new(make())).clone()
    }
}

/// Adjacency masks of the 24 points (from the reference's own list).
fn adjacency() -> &'static [u32; 24] {
    static ADJ: OnceLock<[u32; 24]> = OnceLock::new();
    ADJ.get_or_init(|| {
        let mut adj = [0u32; 24];
        for (a, b) in adjacencies() {
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
        adj
    })
}

fn bits(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let i = set.trailing_zeros() as usize;
            set &= set - 1;
            i
        })
    })
}

/// Calls `visit(us, them)` with every position from which a non-capturing
/// turn leads to the position `(us, them)` (moving phase, mover `us`): the
/// opponent `them` moved a stone from a free point to a point of theirs that
/// is in no mill of theirs (a mill formed there would have captured).
pub fn for_each_unmove(us: u32, them: u32, flying: bool, mut visit: impl FnMut(u32, u32)) {
    const FULL: u32 = (1 << 24) - 1;
    let free = FULL & !(us | them);
    let fly = flying && them.count_ones() == 3;
    for to in bits(them) {
        if crate::brute::mill_through(them, to) {
            continue;
        }
        let origins = if fly { free } else { adjacency()[to] & free };
        for from in bits(origins) {
            visit(them & !(1 << to) | 1 << from, us);
        }
    }
}

/// Worker threads for the passes over every position.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// Fills `out[i]` with `f(first + i)` on a few threads.
fn par_fill<T: Send>(out: &mut [T], first: usize, f: impl Fn(usize) -> T + Sync) {
    let chunk = out.len().div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        for (c, part) in out.chunks_mut(chunk).enumerate() {
            let f = &f;
            scope.spawn(move || {
                for (j, slot) in part.iter_mut().enumerate() {
                    *slot = f(first + c * chunk + j);
                }
            });
        }
    });
}
