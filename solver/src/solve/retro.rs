//! Retrograde analysis of one moving-phase pair: the sectors `(a, b)` and
//! `(b, a)`, whose non-capturing turns lead into each other, solved together
//! once the sectors that captures lead into are known.
//!
//! Per slot the solver keeps a value and a counter of unresolved successors:
//! - the value is a final code (see `moulin_core::value`) or, while
//!   unresolved, `UNRESOLVED | bound`, where `bound` is the longest loss the
//!   captures into lower sectors already guarantee;
//! - the counter counts the in-sector turns not yet known to lead to a win of
//!   the opponent, weighted by the class size (see `weights` below); `NEVER`
//!   marks positions that cannot lose (a capture leads to a draw or a win).
//!
//! Levels run in increasing distance. Level `n` holds the positions resolved
//! with distance `n`: seeds from captures (a capture to a loss in `n - 1`
//! wins in `n`; a position whose every turn leads to a win loses at the
//! longest of them) and the predecessors found from level `n - 1` by un-move
//! generation. Every distance, including those through captures, enters at
//! its own level, so distances are exact. What is never resolved is a draw.
//!
//! # Weights
//! Slots stand for symmetry classes. If `p` has `B` turns into the class of
//! `q`, un-moving from the representative of `q` reaches positions of `p`'s
//! class `A` times, with `A * |orbit q| = B * |orbit p|`. So counters start at
//! `turns * |orbit p|` and each un-move from `q` takes `|orbit q|` off: they
//! reach zero exactly when every turn has been accounted for, without
//! indexing any successor during initialisation.

use super::memory::huge_vec;
use super::scheme::{Codes, Conversion, Dtc, Dtw, Scheme};
use moulin_core::board::{forms_mill, points, removable, Bitboard, ADJACENT, ALL_POINTS, POINTS};
use moulin_core::index::{Frame, Indexer, PlainRanker, PLAIN_RANKER_FROM};
use moulin_core::prefetch;
use moulin_core::value::HOLE;
use moulin_core::Node;
use moulin_probe::{Rules, Sector};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;

/// Flag of a value that is not resolved yet; the low bits hold a loss bound.
const UNRESOLVED: u16 = 0x8000;
/// Counter of a position that can never be a loss.
const NEVER: u16 = u16::MAX;

/// What the solve of a pair needs from outside: the finished lower sectors.
pub trait LowerSectors: Sync {
    /// Stored codes of a solved sector, by slot.
    fn values(&self, sector: Sector) -> &[u16];
}

/// Reports progress of a pair's solve.
pub trait Progress: Sync {
    /// Slots initialised so far, out of `total`.
    fn initialised(&self, done: u64, total: u64);
    /// A level finished with this many positions resolved at it.
    fn level(&self, level: u16, resolved: u64);
}

/// No progress reporting.
pub struct Silent;

impl Progress for Silent {
    fn initialised(&self, _: u64, _: u64) {}
    fn level(&self, _: u16, _: u64) {}
}

struct SectorState {
    sector: Sector,
    /// Per slot, the value in the low 16 bits and the counter in the high
    /// 16: one cache line holds both, and propagation touches each once.
    slots: Vec<AtomicU32>,
    /// Positions to resolve at a later level: `(level, won) -> slots`.
    seeds: Mutex<BTreeMap<(u16, bool), Vec<u32>>>,
}

/// One turn of the mover's stones `u`, whatever the opponent's: legal when
/// the opponent does not hold its arrival point.
struct Turn {
    /// The arrival point's bit.
    to: Bitboard,
    /// The frame of the mover's stones after the turn, which closes a
    /// mill: every capture of the turn leads into its positions.
    mill: Frame,
    /// The frame's ranker of the victim's stones after a capture, when the
    /// frame is plain and enough classes share it.
    ranker: Option<PlainRanker>,
}

impl Turn {
    /// Calls `f` with the slot of every position a capture of this turn
    /// leads to, when the opponent holds `t` and may lose one of `victims`.
    #[inline]
    fn for_each_capture_slot(&self, t: Bitboard, victims: Bitboard, mut f: impl FnMut(u64)) {
        match &self.ranker {
            Some(r) => {
                let code = r.code(t);
                for p in points(victims) {
                    f(r.slot_of_code(code ^ r.point_code(p.index())));
                }
            }
            None => for_each_capture_slot(&self.mill, t, victims, f),
        }
    }
}

/// The turns of the mover's stones `u` in the moving phase, as the
/// initialisation counts them for every set of the opponent's: the turns
/// without a mill by their arrival point, the others one by one.
struct Turns {
    /// Per byte of the opponent's stones, the turns without a mill that
    /// arrive on its points: those a set holds are the sum of three entries.
    held: [[u16; 256]; 3],
    /// Every turn without a mill.
    quiet: u16,
    /// The points some turn arrives at.
    reach: Bitboard,
    /// The turns that close a mill.
    mills: Vec<Turn>,
}

impl Turns {
    /// The turns of the mover's stones `u`, against `classes` sets of
    /// `opponent` stones.
    fn of(rules: &Rules, u: Bitboard, opponent: u8, classes: usize) -> Turns {
        let beside = ALL_POINTS & !u;
        let flies = rules.flying && u.count_ones() == 3;
        let mut quiet_into = [0u16; POINTS];
        let mut turns = Turns {
            held: [[0; 256]; 3],
            quiet: 0,
            reach: 0,
            mills: Vec::new(),
        };
        for from in points(u) {
            let dest = if flies {
                beside
            } else {
                ADJACENT[from.index()] & beside
            };
            turns.reach |= dest;
            for to in points(dest) {
                let after = u ^ from.bit() ^ to.bit();
                if forms_mill(after, to.index()) {
                    let mill = Indexer::get().frame(after);
                    // With three stones the victim is left two: no capture
                    // is ranked.
                    let ranker = match classes >= PLAIN_RANKER_FROM && opponent > 3 {
                        true => PlainRanker::new(&mill, opponent as usize - 1),
                        false => None,
                    };
                    turns.mills.push(Turn {
                        to: to.bit(),
                        mill,
                        ranker,
                    });
                } else {
                    quiet_into[to.index()] += 1;
                    turns.quiet += 1;
                }
            }
        }
        // Each entry from the one without its lowest point.
        for (k, table) in turns.held.iter_mut().enumerate() {
            for byte in 1..256usize {
                let low = 8 * k + byte.trailing_zeros() as usize;
                table[byte] = table[byte & (byte - 1)] + quiet_into[low];
            }
        }
        turns
    }

    /// The turns without a mill left when the opponent holds `t`.
    #[inline]
    fn quiet_beside(&self, t: Bitboard) -> u16 {
        let h = &self.held;
        let held = h[0][(t & 0xff) as usize]
            + h[1][(t >> 8 & 0xff) as usize]
            + h[2][(t >> 16 & 0xff) as usize];
        self.quiet - held
    }
}

/// Calls `f(pred, to, from)` for every position one non-capturing turn
/// before `node` (in the partner sector, seen from its mover), where the turn
/// moved a stone from `from` to `to`.
#[inline]
pub fn for_each_unmove(rules: &Rules, node: &Node, mut f: impl FnMut(Node, usize, usize)) {
    let mover = node.them;
    let empty = ALL_POINTS & !(node.us | node.them);
    let flies = rules.flying && mover.count_ones() == 3;
    for to in points(mover) {
        if forms_mill(mover, to.index()) {
            continue; // arriving there formed a mill: that turn captured
        }
        let origins = if flies {
            empty
        } else {
            ADJACENT[to.index()] & empty
        };
        for from in points(origins) {
            let pred = Node {
                us: mover ^ to.bit() ^ from.bit(),
                them: node.us,
                us_hand: 0,
                them_hand: 0,
            };
            f(pred, to.index(), from.index());
        }
    }
}

/// Calls `f` with the slot of every position a capture leads to: the victim
/// (`them`, to move next) loses one of `victims`, and `frame` is the frame of
/// the capturer's stones after the turn. One frame serves every removal.
#[inline]
pub(super) fn for_each_capture_slot(
    frame: &Frame,
    them: Bitboard,
    victims: Bitboard,
    mut f: impl FnMut(u64),
) {
    let code = frame.is_plain().then(|| frame.code(them));
    for r in points(victims) {
        f(match code {
            Some(c) => frame.slot_of_code(c ^ frame.point_code(r.index())),
            None => frame.slot(them ^ r.bit()),
        });
    }
}

/// A seed: the level a position resolves at, and whether it is won there.
type Seed = Option<(u16, bool)>;

/// Initial state of the class of the position `(u, t)` (`u`'s turns in
/// `turns`, `size` positions in the class): its value, counter and the level
/// it is a seed of. `captures` is working space.
#[inline]
fn initial<S: Codes>(
    scheme: S,
    values: &[u16],
    t: Bitboard,
    size: u32,
    turns: &Turns,
    captures: &mut Vec<u32>,
) -> (u16, u16, Seed) {
    let quiet = turns.quiet_beside(t);
    let any = turns.reach & !t != 0;
    let mut leaves_two = false;
    captures.clear();
    // Only needed when a mill closes, then the same for every turn.
    let mut victims = None;
    for turn in &turns.mills {
        if turn.to & t != 0 {
            continue;
        }
        if t.count_ones() == 3 {
            // The victim is left with two stones.
            leaves_two = true;
            continue;
        }
        // Every capture of this turn leaves the opponent to move against
        // the mover's stones after it: one frame, one block of slots.
        let victims = *victims.get_or_insert_with(|| removable(t));
        turn.for_each_capture_slot(t, victims, |slot| captures.push(slot as u32))
    }
    let mut best_win = if leaves_two { 1 } else { u16::MAX };
    let mut can_draw = false;
    let mut loss_bound = 0u16;
    for &slot in captures.iter() {
        match scheme.capture(values[slot as usize]) {
            Conversion::Win(l) => best_win = best_win.min(l),
            Conversion::Loss(l) => loss_bound = loss_bound.max(l),
            Conversion::Draw => can_draw = true,
        }
    }
    if !any {
        return (UNRESOLVED, 0, Some((0, false))); // blocked: lost now
    }
    if best_win != u16::MAX {
        return (UNRESOLVED, NEVER, Some((best_win, true)));
    }
    if can_draw {
        return (UNRESOLVED, NEVER, None);
    }
    let value = UNRESOLVED | loss_bound;
    if quiet == 0 {
        return (value, 0, Some((loss_bound, false)));
    }
    (value, quiet * size as u16, None)
}

impl SectorState {
    /// The initial state of `sector`: each slot's value and counter, and the
    /// seeds of later levels. `lower_values` are the codes of
    /// `capture_sector(sector)` (empty when a capture wins).
    fn new<S: Codes>(
        rules: &Rules,
        scheme: S,
        lower_values: &[u16],
        sector: Sector,
        progress: &dyn Progress,
        done: &std::sync::atomic::AtomicU64,
        total: u64,
    ) -> SectorState {
        let ix = Indexer::get();
        let n = ix.slots(sector) as usize;
        // Holes stay as they are; every class is written once below.
        let slots: Vec<AtomicU32> = huge_vec(n, |_| AtomicU32::new(pack(HOLE, NEVER)));
        // Mover-major (`Indexer::for_each_class_of_mover`): the captures of a
        // turn of the mover's stones lead, whatever the opponent's stones,
        // into one block of the lower sector, so their reads stay in the
        // cache. Seeds are gathered by level within each task and moved
        // into the sector's lists a batch at a time (see `SEED_BATCH`).
        let orbits = ix.orbits(sector.stm_board as usize);
        let share = |orbit: u64| (n as u128 * orbit as u128 / orbits.max(1) as u128) as u64;
        let gathered = Mutex::new(BTreeMap::new());
        (0..orbits)
            .into_par_iter()
            .fold(Work::default, |mut work: Work, orbit| {
                work.them.clear();
                work.sizes.clear();
                work.words.clear();
                let mut mover = None;
                ix.for_each_class_of_mover(sector, orbit, |u, t, size| {
                    mover = Some(u);
                    work.them.push(t);
                    work.sizes.push(size);
                });
                if let Some(u) = mover {
                    ix.slots_beside(u, &work.them, &mut work.slots);
                    let turns = Turns::of(rules, u, sector.opp_board, work.them.len());
                    for k in 0..work.them.len() {
                        let (t, size) = (work.them[k], work.sizes[k]);
                        let (v, c, seed) =
                            initial(scheme, lower_values, t, size, &turns, &mut work.captures);
                        let slot = work.slots[k] as u32;
                        work.words.push((slot, pack(v, c)));
                        if let Some(level) = seed {
                            work.seeds.entry(level).or_default().push(slot);
                            work.held += 1;
                        }
                    }
                }
                // The slots are all over the sector: stored in one loop,
                // the misses overlap (one at a time, they held up every
                // later store), each line asked for `STORE_AHEAD` stores
                // before it is written.
                for (i, &(slot, word)) in work.words.iter().enumerate() {
                    if let Some(&(ahead, _)) = work.words.get(i + STORE_AHEAD) {
                        if let Some(line) = slots.get(ahead as usize) {
                            prefetch(line);
                        }
                    }
                    slots[slot as usize].store(word, Relaxed);
                }
                if work.held >= SEED_BATCH {
                    move_seeds(&gathered, &mut work.seeds);
                    work.held = 0;
                }
                let len = share(orbit + 1) - share(orbit);
                let now = done.fetch_add(len, Relaxed) + len;
                progress.initialised(now, total);
                work
            })
            .for_each(|mut work| move_seeds(&gathered, &mut work.seeds));
        let mut by_level = gathered.into_inner().expect("no task panicked");
        // In slot order, as the levels read them best; without the slack
        // of their growth, which the memory budget does not count.
        for list in by_level.values_mut() {
            list.par_sort_unstable();
            list.shrink_to_fit();
        }
        SectorState {
            sector,
            slots,
            seeds: Mutex::new(by_level),
        }
    }
}

/// Seeds a task of an initialisation gathers before it moves them into the
/// sector's lists. Gathered whole by each task and merged at the end, the
/// lists of one half of the sector were copied while those of the other
/// half were still held: 9v6 under N = 50 held 1,024 MiB of seeds and
/// peaked 500 MiB above (`MOULIN_TRACE=1 moulin solve --all
/// --no-capture-limit 50` on its tables without those of 6v9 and 9v6:
/// resident 5,490 MiB after its initialisation, peak 5,990). In batches the
/// sector's lists grow in place (the allocator remaps large blocks, and
/// the capacity not yet written is not resident), and each task holds
/// about a batch besides them: the peak is what is held (5,476 MiB both).
const SEED_BATCH: usize = 1 << 16;

/// How many stores of an initialisation's words ahead a slot's line is
/// asked for.
const STORE_AHEAD: usize = 32;

/// A task's part of an initialisation: its seeds by level (`held` of
/// them), and working space for one orbit of the mover's stones.
#[derive(Default)]
struct Work {
    seeds: BTreeMap<(u16, bool), Vec<u32>>,
    held: usize,
    /// The opponent's stones of each class of the orbit, the class's size
    /// and its slot.
    them: Vec<Bitboard>,
    sizes: Vec<u32>,
    slots: Vec<u64>,
    /// The slots a class's captures lead to.
    captures: Vec<u32>,
    /// Each class's slot and initial word.
    words: Vec<(u32, u32)>,
}

/// Moves a task's seeds into the sector's lists, level by level.
fn move_seeds(
    gathered: &Mutex<BTreeMap<(u16, bool), Vec<u32>>>,
    local: &mut BTreeMap<(u16, bool), Vec<u32>>,
) {
    let local = std::mem::take(local);
    let mut gathered = gathered.lock().unwrap();
    for (level, slots) in local {
        let list = gathered.entry(level).or_default();
        if list.is_empty() {
            *list = slots;
        } else {
            list.extend_from_slice(&slots);
        }
    }
}

/// The sector a sector's captures lead into, `None` when a capture leaves
/// the opponent two stones (and wins).
pub fn capture_sector(sector: Sector) -> Option<Sector> {
    (sector.opp_board > 3).then(|| Sector::moving(sector.opp_board - 1, sector.stm_board))
}

/// Solves a moving-phase pair. Returns the codes of `(a, b)` and, when
/// `a != b`, of `(b, a)`, identical whatever the number of threads.
pub fn solve_pair(
    rules: &Rules,
    a: u8,
    b: u8,
    lower: &dyn LowerSectors,
    progress: &dyn Progress,
) -> Vec<(Sector, Vec<u16>)> {
    let mut pair = PairSolve::new(rules, a, b, progress);
    while let Some(sector) = pair.next_to_initialise() {
        let values = capture_sector(sector).map_or(&[][..], |s| lower.values(s));
        pair.initialise(values);
    }
    pair.finish()
}

/// A moving-phase pair solved in steps, so that the caller needs to hold
/// only one lower sector at a time: each sector of the pair is initialised
/// from the codes of its `capture_sector` (which may be dropped after),
/// then `finish` runs the levels.
pub struct PairSolve<'p> {
    rules: Rules,
    scheme: Scheme,
    a: u8,
    b: u8,
    sectors: Vec<Sector>,
    states: Vec<SectorState>,
    progress: &'p dyn Progress,
    done: std::sync::atomic::AtomicU64,
    total: u64,
    clock: std::time::Instant,
}

impl<'p> PairSolve<'p> {
    /// The solve of the pair `(a, b)` (`a <= b`), nothing initialised yet.
    pub fn new(rules: &Rules, a: u8, b: u8, progress: &'p dyn Progress) -> PairSolve<'p> {
        let mut sectors = vec![Sector::moving(a, b)];
        if a != b {
            sectors.push(Sector::moving(b, a));
        }
        let total = sectors.iter().map(|&s| Indexer::get().slots(s)).sum();
        PairSolve {
            rules: *rules,
            scheme: Scheme::of(rules),
            a,
            b,
            sectors,
            states: Vec::new(),
            progress,
            done: std::sync::atomic::AtomicU64::new(0),
            total,
            clock: std::time::Instant::now(),
        }
    }

    /// The sector `initialise` initialises next, `None` once all are.
    pub fn next_to_initialise(&self) -> Option<Sector> {
        self.sectors.get(self.states.len()).copied()
    }

    /// Initialises the next sector from `lower`, the codes of its
    /// `capture_sector` (empty when it has none).
    pub fn initialise(&mut self, lower: &[u16]) {
        let Some(sector) = self.next_to_initialise() else {
            return;
        };
        let (rules, done, total) = (&self.rules, &self.done, self.total);
        let state = match self.scheme {
            Scheme::Dtw => SectorState::new(rules, Dtw, lower, sector, self.progress, done, total),
            Scheme::Dtc(n) => {
                SectorState::new(rules, Dtc(n), lower, sector, self.progress, done, total)
            }
        };
        self.states.push(state);
    }

    /// Bytes the sectors initialised so far hold: their slot words and
    /// their seeds.
    pub fn held_bytes(&self) -> u64 {
        self.states
            .iter()
            .map(|st| {
                let seeds: usize = st.seeds.lock().unwrap().values().map(Vec::capacity).sum();
                (4 * (st.slots.len() + seeds)) as u64
            })
            .sum()
    }

    /// Runs the levels; returns the codes of the pair's sectors, in order.
    /// Every sector must have been initialised.
    pub fn finish(self) -> Vec<(Sector, Vec<u16>)> {
        assert!(
            self.next_to_initialise().is_none(),
            "every sector of the pair is initialised first"
        );
        match self.scheme {
            Scheme::Dtw => levels(Dtw, self),
            Scheme::Dtc(n) => levels(Dtc(n), self),
        }
    }
}

/// The levels of a pair whose sectors are initialised.
fn levels<S: Codes>(scheme: S, pair: PairSolve<'_>) -> Vec<(Sector, Vec<u16>)> {
    let init_time = pair.clock.elapsed();
    let PairSolve {
        rules,
        a,
        b,
        states,
        progress,
        clock,
        ..
    } = pair;
    let rules = &rules;
    // The predecessors of a position of states[i] are in states[partner(i)].
    let partner = |i: usize| if states.len() == 2 { 1 - i } else { 0 };

    // Per sector, the positions resolved at the current level: lost ones
    // (index 0) and won ones (index 1). Without the rule the parity of the
    // level tells which; a distance to conversion has no parity.
    let mut frontier: Vec<[Vec<u32>; 2]> = vec![Default::default(); states.len()];
    let mut level: u16 = 0;
    loop {
        // Seeds of this level join the positions found by the last level.
        for (i, st) in states.iter().enumerate() {
            for won in [false, true] {
                let seeds = st
                    .seeds
                    .lock()
                    .unwrap()
                    .remove(&(level, won))
                    .unwrap_or_default();
                let code = scheme.code(won, level);
                for slot in seeds {
                    if resolve(&st.slots[slot as usize], code) {
                        frontier[i][won as usize].push(slot);
                    }
                }
            }
        }
        let resolved: u64 = frontier.iter().flatten().map(|f| f.len() as u64).sum();
        progress.level(level, resolved);
        let pending = states.iter().any(|st| !st.seeds.lock().unwrap().is_empty());
        if resolved == 0 && !pending {
            break;
        }
        let mut next: Vec<[Vec<u32>; 2]> = vec![Default::default(); states.len()];
        // Chunks small enough that a level of a few thousand positions still
        // keeps every thread busy, large enough that each carries its cost.
        let chunk = (resolved as usize)
            .div_ceil(16 * rayon::current_num_threads())
            .clamp(MIN_CHUNK, 1 << 14);
        for (i, lists) in frontier.iter().enumerate() {
            let from = &states[i];
            let to = &states[partner(i)];
            for (won, slots) in lists.iter().enumerate() {
                let won = won == 1;
                // A lost position makes its predecessors won; a won one
                // may make them lost.
                next[partner(i)][!won as usize] = slots
                    .par_chunks(chunk)
                    .flat_map_iter(|chunk| {
                        let mut found = Vec::with_capacity(chunk.len() * 4);
                        // `AHEAD` positions ahead: their reads are under way
                        // while the updates of earlier ones run.
                        let mut ring: [Predecessors; AHEAD] =
                            std::array::from_fn(|_| Predecessors::EMPTY);
                        let ix = Indexer::get();
                        // The positions of `AHEAD` slots are unranked together.
                        for (g, group) in chunk.chunks(AHEAD).enumerate() {
                            let slots: [u32; AHEAD] =
                                std::array::from_fn(|j| group[j.min(group.len() - 1)]);
                            let nodes = ix.unindex_each(from.sector, slots.map(u64::from));
                            for node in nodes.iter().flatten() {
                                ix.prefetch_frame(node.us);
                            }
                            for (at, (&slot, node)) in group.iter().zip(nodes).enumerate() {
                                if g > 0 {
                                    propagate(scheme, to, &ring[at], level, won, &mut found);
                                }
                                let node = node.expect("slot within sector");
                                predecessors(rules, from, to, slot, node, won, &mut ring[at]);
                            }
                        }
                        let n = chunk.len();
                        for k in n.saturating_sub(AHEAD)..n {
                            propagate(scheme, to, &ring[k % AHEAD], level, won, &mut found);
                        }
                        found
                    })
                    .collect();
            }
        }
        frontier = next;
        level += 1;
    }
    if std::env::var_os("MOULIN_TRACE").is_some() {
        eprintln!(
            "{a}v{b}: init {:.2}s, {level} levels {:.2}s",
            init_time.as_secs_f64(),
            (clock.elapsed() - init_time).as_secs_f64()
        );
    }
    states
        .into_iter()
        .map(|st| {
            let values = huge_vec(st.slots.len(), |i| {
                let v = st.slots[i].load(Relaxed) as u16;
                if v != HOLE && v & UNRESOLVED != 0 {
                    0
                } else {
                    v
                }
            });
            (st.sector, values)
        })
        .collect()
}

/// The fewest resolved positions a worker of a level takes at a time.
const MIN_CHUNK: usize = 256;

/// A slot's value and counter in one word.
#[inline]
fn pack(value: u16, counter: u16) -> u32 {
    value as u32 | (counter as u32) << 16
}

/// Resolves an unresolved slot to `code`; false if it was resolved already.
#[inline]
fn resolve(slot: &AtomicU32, code: u16) -> bool {
    let mut current = slot.load(Relaxed);
    loop {
        let value = current as u16;
        if value & UNRESOLVED == 0 || value == HOLE {
            return false;
        }
        let resolved = (current & !0xffff) | code as u32;
        match slot.compare_exchange_weak(current, resolved, Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(seen) => current = seen,
        }
    }
}

/// The predecessors of one resolved position, ranked.
struct Predecessors {
    slots: [u32; 64],
    n: usize,
    /// What each un-move takes off a counter (0 when the position is lost).
    weight: u16,
}

impl Predecessors {
    const EMPTY: Predecessors = Predecessors {
        slots: [0; 64],
        n: 0,
        weight: 0,
    };
}

/// How many resolved positions ahead of their updates a level ranks the
/// predecessors of, asking the memory for their slot words. Re-solving
/// 5v7+7v5 over the other tables up to 7 a side (`moulin solve
/// --max-stones 7 --no-wdl`, paired), the levels took 37.7 and 34.9 s one
/// position ahead, 31.0 and 29.3 s four ahead; eight ahead was slower than
/// four on the rung up to 6.
const AHEAD: usize = 4;

/// Ranks the predecessors of a position (`node`, stored at `slot`)
/// resolved at `level` into `out` and asks the memory for their slot
/// words, so that they arrive while the updates of the positions before it
/// run (the atomic updates would otherwise wait for every earlier read:
/// they order memory accesses).
#[inline]
fn predecessors(
    rules: &Rules,
    from: &SectorState,
    to_state: &SectorState,
    slot: u32,
    node: Node,
    won: bool,
    out: &mut Predecessors,
) {
    let ix = Indexer::get();
    let weight = if won {
        ix.class_size(from.sector, slot as u64) as u16
    } else {
        0
    };
    // Every predecessor's opponent holds `node.us`: one frame ranks them all.
    let frame = ix.frame(node.us);
    let plain = frame.is_plain().then(|| frame.code(node.them));
    out.n = 0;
    out.weight = weight;
    for_each_unmove(rules, &node, |pred, to_point, from_point| {
        let p = match plain {
            Some(code) => {
                frame.slot_of_code(code ^ frame.point_code(to_point) ^ frame.point_code(from_point))
            }
            None => frame.slot(pred.us),
        };
        prefetch(&to_state.slots[p as usize]);
        out.slots[out.n] = p as u32;
        out.n += 1;
    });
}

/// Passes the news of one position resolved at `level` (`won` or lost) to
/// its predecessors (ranked by `predecessors`): a lost position makes them
/// won, a won one takes its weight off their counters.
#[inline]
fn propagate<S: Codes>(
    scheme: S,
    to_state: &SectorState,
    preds: &Predecessors,
    level: u16,
    won: bool,
    found: &mut Vec<u32>,
) {
    let lost = !won;
    let weight = preds.weight;
    let (preds, n) = (&preds.slots, preds.n);
    let mut seen = [0u32; 64];
    for k in 0..n {
        seen[k] = to_state.slots[preds[k] as usize].load(Relaxed);
    }
    for k in 0..n {
        let p = preds[k] as usize;
        if seen[k] as u16 & UNRESOLVED == 0 {
            continue; // resolved already: neither a new win nor a counter to update
        }
        if lost {
            if resolve(&to_state.slots[p], scheme.code(true, level + 1)) {
                found.push(p as u32);
            }
            continue;
        }
        let slot = &to_state.slots[p];
        if seen[k] >> 16 == NEVER as u32 {
            continue;
        }
        let before = slot.fetch_sub((weight as u32) << 16, Relaxed);
        if before >> 16 == weight as u32 {
            // Every turn leads to a win of the opponent: lost, at the longest.
            // Nothing else writes this slot any more.
            let bound = before as u16 & !UNRESOLVED;
            if bound <= level + 1 {
                slot.store(scheme.code(false, level + 1) as u32, Relaxed);
                found.push(p as u32);
            } else {
                to_state
                    .seeds
                    .lock()
                    .unwrap()
                    .entry((bound, false))
                    .or_default()
                    .push(p as u32);
            }
        }
    }
}
