//! An independent reference solver, written from the rule text alone, to
//! cross-check the production solver position by position.
//!
//! It shares nothing with the solver but the point names, the list of mills
//! and the `Node`/`Move`/`Outcome` types used to exchange results: its own
//! adjacency (typed in from the board diagram), its own move and unmove
//! generators, a plain dense array over *every* `(us, them)` pair of a sector
//! (no symmetry reduction), and a simple queue-based retrograde analysis.
//! Positions with stones in hand form a DAG and are valued by a direct
//! one-ply recursion ("best over successors") on top of the moving tables.
//!
//! Values are stored as `Outcome::code` (0 draw, `d + 1` for a win or a loss
//! in `d`, the parity telling which).

use moulin_core::board::{MILLS, POINT_NAMES};
use moulin_core::{Node, Point};
use moulin_probe::{Move, Outcome};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::OnceLock;

mod cache;
mod index;

pub use cache::{cached, shared};
use index::{combos, rank, squeeze, squeezed_point};
pub use index::{positions_by_us, positions_by_us_in, Key};

/// The 32 adjacencies, read off the board diagram of `docs/rules.md`: the sides
/// of the outer, middle and inner squares, then the cross lines.
pub const ADJACENCIES: &str = "a1-d1 d1-g1 g1-g4 g4-g7 g7-d7 d7-a7 a7-a4 a4-a1 \
    b2-d2 d2-f2 f2-f4 f4-f6 f6-d6 d6-b6 b6-b4 b4-b2 \
    c3-d3 d3-e3 e3-e4 e4-e5 e5-d5 d5-c5 c5-c4 c4-c3 \
    d1-d2 d2-d3 a4-b4 b4-c4 e4-f4 f4-g4 d5-d6 d6-d7";

/// The adjacencies as pairs of point indices.
pub fn adjacencies() -> Vec<(usize, usize)> {
    let index = |name: &str| POINT_NAMES.iter().position(|&n| n == name).unwrap();
    ADJACENCIES
        .split_whitespace()
        .map(|pair| {
            let (a, b) = pair.split_once('-').unwrap();
            (index(a), index(b))
        })
        .collect()
}

const FULL: u32 = (1 << 24) - 1;

struct Geo {
    adj: [u32; 24],
    /// The two mills through each point.
    mills_at: [[u32; 2]; 24],
    /// `binom[n][k]` for `n <= 24`, `k <= 24`.
    binom: [[u32; 25]; 25],
}

fn geo() -> &'static Geo {
    static GEO: OnceLock<Geo> = OnceLock::new();
    GEO.get_or_init(|| {
        let mut adj = [0u32; 24];
        for (a, b) in adjacencies() {
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
        let mills_at = std::array::from_fn(|p| {
            let through: Vec<u32> = MILLS.iter().copied().filter(|m| m >> p & 1 == 1).collect();
            assert_eq!(through.len(), 2, "every point lies on two mills");
            [through[0], through[1]]
        });
        let mut binom = [[0u32; 25]; 25];
        for n in 0..25 {
            binom[n][0] = 1;
            for k in 1..=n {
                binom[n][k] = binom[n - 1][k - 1] + if k < n { binom[n - 1][k] } else { 0 };
            }
        }
        Geo {
            adj,
            mills_at,
            binom,
        }
    })
}

fn bits(mut bb: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bb != 0).then(|| {
            let i = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            i
        })
    })
}

/// Whether `stones` hold a complete mill through point `p`.
pub fn mill_through(stones: u32, p: usize) -> bool {
    let [m1, m2] = geo().mills_at[p];
    stones & m1 == m1 || stones & m2 == m2
}

/// The stones of `stones` a capture may take: those in no complete mill, or
/// all of them when every one is in a mill.
pub fn capturable(stones: u32) -> u32 {
    let in_mills = MILLS
        .iter()
        .filter(|&&m| stones & m == m)
        .fold(0, |acc, &m| acc | m);
    if stones & !in_mills != 0 {
        stones & !in_mills
    } else {
        stones
    }
}

/// Calls `visit(from, to, remove, next)` for every legal turn of `node`,
/// `next` being the position that follows (the opponent to move). Generated
/// from the rule text; nothing is visited when the mover is blocked. The
/// mover is assumed to have at least three stones in total.
#[inline]
pub fn for_each_turn(
    node: &Node,
    flying: bool,
    mut visit: impl FnMut(Option<usize>, usize, Option<usize>, Node),
) {
    let g = geo();
    let (us, them) = (node.us, node.them);
    let free = FULL & !(us | them);
    let mut arrive = |from: Option<usize>, to: usize, us2: u32, us_hand: u8| {
        let next = |them2: u32| Node {
            us: them2,
            them: us2,
            us_hand: node.them_hand,
            them_hand: us_hand,
        };
        if them != 0 && mill_through(us2, to) {
            for r in bits(capturable(them)) {
                visit(from, to, Some(r), next(them & !(1 << r)));
            }
        } else {
            visit(from, to, None, next(them));
        }
    };
    if node.us_hand > 0 {
        for to in bits(free) {
            arrive(None, to, us | 1 << to, node.us_hand - 1);
        }
    } else {
        let fly = flying && us.count_ones() == 3;
        for from in bits(us) {
            let dests = if fly { free } else { g.adj[from] & free };
            for to in bits(dests) {
                arrive(Some(from), to, us & !(1 << from) | 1 << to, 0);
            }
        }
    }
}

/// Every legal turn of `node` with the position that follows, as
/// `for_each_turn` visits them.
pub fn turns(node: &Node, flying: bool) -> Vec<(Move, Node)> {
    let point = |i: usize| Point::new(i).unwrap();
    let mut out = Vec::new();
    for_each_turn(node, flying, |from, to, remove, next| {
        let mv = Move {
            from: from.map(point),
            to: point(to),
            remove: remove.map(point),
        };
        out.push((mv, next));
    });
    out
}

/// Values of every position of the sectors solved, stored densely.
#[derive(Clone)]
pub struct BruteTable {
    flying: bool,
    keys: Vec<Key>,
    sectors: Vec<Option<Vec<u16>>>,
}

/// Work state of a moving position during the retrograde analysis.
#[derive(Clone, Copy, Default)]
struct Cell {
    /// `Outcome::code` once known (or a tentative win), 0 while unknown.
    code: u16,
    /// Non-capturing turns whose result is not yet known to be a win for
    /// the opponent; `DONE` once the value has been propagated.
    count: u8,
    /// Longest win the opponent reaches after a capture, or `NEVER` when a
    /// capture leads to a draw (the position can then not be lost).
    cap_max: u8,
}

const DONE: u8 = u8::MAX;
const NEVER: u8 = u8::MAX;

fn key(us: u8, them: u8) -> Key {
    Key {
        us,
        them,
        us_hand: 0,
        them_hand: 0,
    }
}

impl BruteTable {
    fn new(flying: bool) -> BruteTable {
        BruteTable {
            flying,
            keys: Vec::new(),
            sectors: vec![None; 10_000],
        }
    }

    fn insert(&mut self, key: Key, codes: Vec<u16>) {
        assert_eq!(codes.len(), key.size());
        self.keys.push(key);
        self.sectors[key.slot()] = Some(codes);
    }

    /// Whether the table was solved with flying.
    pub fn flying(&self) -> bool {
        self.flying
    }

    /// The sectors held, in the order they were solved.
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// The stored codes of a sector, indexed by `Key::index`.
    pub fn codes(&self, key: Key) -> Option<&[u16]> {
        if key.us > 9 || key.them > 9 || key.us_hand > 9 || key.them_hand > 9 {
            return None;
        }
        self.sectors[key.slot()].as_deref()
    }

    /// The value of any position: `Loss(0)` when the mover has fewer than
    /// three stones, the stored value otherwise; `None` outside the table.
    pub fn get(&self, node: &Node) -> Option<Outcome> {
        if node.us_total() < 3 {
            return Some(Outcome::Loss(0));
        }
        let key = Key::of(node);
        let codes = self.codes(key)?;
        Outcome::from_code(codes[key.index(node.us, node.them)])
    }

    /// The value of a moving-phase position (both hands empty).
    pub fn value(&self, us: u32, them: u32) -> Outcome {
        self.value_with_hands(us, them, 0, 0)
    }

    /// The value of a position with stones in hand.
    pub fn value_with_hands(&self, us: u32, them: u32, us_hand: u8, them_hand: u8) -> Outcome {
        let node = Node {
            us,
            them,
            us_hand,
            them_hand,
        };
        self.get(&node)
            .unwrap_or_else(|| panic!("{:?} is outside the reference table", Key::of(&node)))
    }

    /// The value a position must have given the values of its successors:
    /// the definition of `docs/rules.md` applied to one ply.
    pub fn one_ply(&self, node: &Node) -> Outcome {
        if node.us_total() < 3 {
            return Outcome::Loss(0);
        }
        let mut best: Option<Outcome> = None;
        for_each_turn(node, self.flying, |_, _, _, next| {
            let mine = self
                .get(&next)
                .expect("successor inside the table")
                .before_move();
            if best.is_none_or(|b| mine.rank() > b.rank()) {
                best = Some(mine);
            }
        });
        best.unwrap_or(Outcome::Loss(0))
    }

    /// The turns of `node` that keep its value (all optimal turns).
    pub fn optimal_moves(&self, node: &Node) -> Vec<Move> {
        let value = self.one_ply(node);
        turns(node, self.flying)
            .into_iter()
            .filter(|(_, next)| self.get(next).unwrap().before_move() == value)
            .map(|(m, _)| m)
            .collect()
    }
}

/// Solves every moving-phase position (both hands empty) with 3 to
/// `max_stones` stones on each side.
pub fn solve_moving(max_stones: u8, flying: bool) -> BruteTable {
    let mut table = BruteTable::new(flying);
    for total in 6..=2 * max_stones {
        for a in 3..=max_stones {
            let b = total - a;
            if b < a || b > max_stones {
                continue;
            }
            let group = if a == b {
                vec![key(a, b)]
            } else {
                vec![key(a, b), key(b, a)]
            };
            table.solve_group(&group);
        }
    }
    table
}

/// Solves the moving phase up to `max_total` stones a side, then the
/// positions with stones in hand of `BruteTable::add_hands`.
pub fn solve_with_hands(max_total: u8, max_hand: u8, flying: bool) -> BruteTable {
    let mut table = solve_moving(max_total, flying);
    table.add_hands(max_total, max_hand);
    table
}

impl BruteTable {
    /// Adds every position with stones in hand, at most `max_hand` in the
    /// mover's hand, whose sides each hold 3 to `max_total` stones in total
    /// (board plus hand), with hands that the alternation of placement allows
    /// (`us_hand == them_hand` or `us_hand == them_hand + 1`). The moving
    /// phase must be solved up to `max_total` stones a side. Such positions
    /// form a DAG: each is valued directly from its successors.
    pub fn add_hands(&mut self, max_total: u8, max_hand: u8) {
        // Hands (h, h) lead to (h, h - 1), which lead to (h - 1, h - 1): solve
        // by increasing hand total so successors are always known.
        for hands in 1..=2 * max_hand {
            let (us_hand, them_hand) = (hands.div_ceil(2), hands / 2);
            for us_total in 3..=max_total {
                for them_total in 3..=max_total {
                    if us_hand > us_total || them_hand > them_total {
                        continue;
                    }
                    let key = Key {
                        us: us_total - us_hand,
                        them: them_total - them_hand,
                        us_hand,
                        them_hand,
                    };
                    let codes: Vec<AtomicU16> =
                        (0..key.size()).map(|_| AtomicU16::new(0)).collect();
                    let stones = combos(24, key.us as usize).len();
                    let chunk = stones.div_ceil(threads());
                    std::thread::scope(|scope| {
                        for first in (0..stones).step_by(chunk) {
                            let (this, codes) = (&*self, &codes);
                            scope.spawn(move || {
                                for (i, us, them) in
                                    positions_by_us_in(key, first..stones.min(first + chunk))
                                {
                                    let node = Node {
                                        us,
                                        them,
                                        us_hand,
                                        them_hand,
                                    };
                                    codes[i].store(
                                        this.one_ply(&node).code().unwrap(),
                                        Ordering::Relaxed,
                                    );
                                }
                            });
                        }
                    });
                    let codes = codes.into_iter().map(AtomicU16::into_inner).collect();
                    self.insert(key, codes);
                }
            }
        }
    }
}

/// Queues position `i`, whose mover has the stones `us`, at a level. The
/// queues are sorted by the mover's stones before being processed: the
/// predecessors of positions with the same mover's stones share a block of
/// their sector, which then stays in the cache.
fn push(buckets: &mut Vec<Vec<u64>>, level: u16, us: u32, i: usize) {
    let level = level as usize;
    if buckets.len() <= level {
        buckets.resize_with(level + 1, Vec::new);
    }
    buckets[level].push((rank(us) as u64) << 32 | i as u64);
}

/// Worker threads for the embarrassingly parallel passes.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

impl BruteTable {
    /// The forward pass of the retrograde analysis over the positions
    /// `first_local..` of sector `k` (group slots `first_slot..`): counts the
    /// non-capturing turns and values the captures, which lead to a solved
    /// sector. Returns the positions already decided, queued by level.
    fn forward(
        &self,
        k: Key,
        first_local: usize,
        first_slot: usize,
        cells: &mut [Cell],
    ) -> Vec<Vec<u64>> {
        let mut buckets = Vec::new();
        // Captures from (a, b) lead to (b - 1, a), lost at once if b - 1 < 3.
        let lower_key = key(k.them - 1, k.us);
        let lower = if k.them > 3 {
            Some(self.codes(lower_key).expect("lower sector solved first"))
        } else {
            None
        };
        for (j, cell) in cells.iter_mut().enumerate() {
            let i = first_slot + j;
            let (us, them) = k.pair(first_local + j);
            let node = Node {
                us,
                them,
                us_hand: 0,
                them_hand: 0,
            };
            let mut any = false;
            let mut win: Option<u16> = None;
            let mut worst_win = 0u16;
            let mut draw = false;
            let mut quiet = 0u8;
            for_each_turn(&node, self.flying, |_, _, remove, next| {
                any = true;
                if remove.is_none() {
                    quiet += 1;
                    return;
                }
                let value = match lower {
                    None => Outcome::Loss(0),
                    Some(codes) => {
                        Outcome::from_code(codes[lower_key.index(next.us, next.them)]).unwrap()
                    }
                };
                match value {
                    Outcome::Loss(d) => win = Some(win.map_or(d + 1, |w| w.min(d + 1))),
                    Outcome::Win(d) => worst_win = worst_win.max(d),
                    Outcome::Draw => draw = true,
                }
            });
            cell.count = quiet;
            if !any {
                cell.code = Outcome::Loss(0).code().unwrap();
                push(&mut buckets, 0, us, i);
            } else if let Some(w) = win {
                cell.code = Outcome::Win(w).code().unwrap();
                push(&mut buckets, w, us, i);
            } else if draw {
                cell.cap_max = NEVER;
            } else if quiet == 0 {
                cell.code = Outcome::Loss(worst_win + 1).code().unwrap();
                push(&mut buckets, worst_win + 1, us, i);
            } else {
                assert!(worst_win < NEVER as u16, "distance too long for a byte");
                cell.cap_max = worst_win as u8;
            }
        }
        buckets
    }
}

impl BruteTable {
    /// Retrograde analysis of one or two moving sectors closed under
    /// non-capturing turns; captures lead to sectors already solved.
    fn solve_group(&mut self, group: &[Key]) {
        let mut offsets = vec![0usize];
        for k in group {
            offsets.push(offsets.last().unwrap() + k.size());
        }
        let n = *offsets.last().unwrap();
        let mut cells = vec![Cell::default(); n];
        let mut buckets: Vec<Vec<u64>> = Vec::new();
        // Forward pass: count the non-capturing turns, value the captures.
        for (s, &k) in group.iter().enumerate() {
            let sector = &mut cells[offsets[s]..offsets[s + 1]];
            let (this, first) = (&*self, offsets[s]);
            let chunk = sector.len().div_ceil(threads()).max(1);
            let found: Vec<Vec<Vec<u64>>> = std::thread::scope(|scope| {
                let workers: Vec<_> = sector
                    .chunks_mut(chunk)
                    .enumerate()
                    .map(|(c, part)| {
                        let local = c * chunk;
                        scope.spawn(move || this.forward(k, local, first + local, part))
                    })
                    .collect();
                workers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            for part in found {
                for (level, list) in part.into_iter().enumerate() {
                    if buckets.len() <= level {
                        buckets.resize_with(level + 1, Vec::new);
                    }
                    buckets[level].extend(list);
                }
            }
        }
        // Backward pass, level by level.
        let g = geo();
        let mut level = 0usize;
        while level < buckets.len() {
            let mut list = std::mem::take(&mut buckets[level]);
            list.sort_unstable();
            for &entry in &list {
                let i = entry as u32 as usize;
                if cells[i].count == DONE {
                    continue;
                }
                let value = Outcome::from_code(cells[i].code).unwrap();
                assert_eq!(value.distance(), Some(level as u16), "stale queue entry");
                cells[i].count = DONE;
                let s = offsets[1..].iter().position(|&o| i < o).unwrap();
                let (x, y) = group[s].pair(i - offsets[s]);
                // Predecessors: `y` moved a stone from `f` to `t` without
                // forming a mill at `t`; they lie in the sector (|y|, |x|).
                let free = FULL & !(x | y);
                let fly = self.flying && y.count_ones() == 3;
                let ps = group.len() - 1 - s;
                let pkey = group[ps];
                debug_assert_eq!(pkey, key(group[s].them, group[s].us));
                // The predecessors share `x`, hence a block of their sector.
                let base = offsets[ps] + rank(x) * pkey.width();
                let y_squeezed = squeeze(y, x);
                for t in bits(y) {
                    if mill_through(y, t) {
                        continue;
                    }
                    let y_without = y_squeezed & !(1 << squeezed_point(t, x));
                    let origins = if fly { free } else { g.adj[t] & free };
                    for f in bits(origins) {
                        let p = base + rank(y_without | 1 << squeezed_point(f, x));
                        let y_before = y & !(1 << t) | 1 << f;
                        debug_assert_eq!(p, offsets[ps] + pkey.index(y_before, x));
                        let cell = &mut cells[p];
                        match value {
                            Outcome::Loss(d) => {
                                let better = match Outcome::from_code(cell.code).unwrap() {
                                    Outcome::Draw => true,
                                    Outcome::Win(w) => w > d + 1,
                                    Outcome::Loss(_) => false,
                                };
                                if better {
                                    cell.code = Outcome::Win(d + 1).code().unwrap();
                                    push(&mut buckets, d + 1, y_before, p);
                                }
                            }
                            Outcome::Win(d) => {
                                if cell.code != 0 || cell.count == 0 {
                                    continue;
                                }
                                cell.count -= 1;
                                if cell.count == 0 && cell.cap_max != NEVER {
                                    let l = d.max(cell.cap_max as u16) + 1;
                                    cell.code = Outcome::Loss(l).code().unwrap();
                                    push(&mut buckets, l, y_before, p);
                                }
                            }
                            Outcome::Draw => unreachable!(),
                        }
                    }
                }
            }
            level += 1;
        }
        for (s, k) in group.iter().enumerate() {
            let codes = cells[offsets[s]..offsets[s + 1]]
                .iter()
                .map(|c| c.code)
                .collect();
            self.insert(*k, codes);
        }
    }
}

/// Counts of wins, losses and draws over the positions of a sector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Positions the mover wins.
    pub wins: u64,
    /// Positions the mover loses.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Longest win.
    pub max_win: u16,
    /// Longest loss.
    pub max_loss: u16,
}

/// Counts of a sector's codes.
pub fn counts(codes: &[u16]) -> Counts {
    let mut c = Counts::default();
    for &code in codes {
        match Outcome::from_code(code).unwrap() {
            Outcome::Win(d) => {
                c.wins += 1;
                c.max_win = c.max_win.max(d);
            }
            Outcome::Loss(d) => {
                c.losses += 1;
                c.max_loss = c.max_loss.max(d);
            }
            Outcome::Draw => c.draws += 1,
        }
    }
    c
}
