//! The value of a position with stones in hand by alpha-beta search over the
//! rest of the placement phase, reading only the tables the search reaches:
//! Gasser's route to the start position's draw, without any placement table.
//!
//! Values are win, draw or loss for the player to move, without distances.
//! The search is a fail-soft negamax over those three values with a shared
//! transposition table keyed by symmetry class (sector and slot), so
//! transpositions and symmetric positions are searched once. A position whose
//! sector has a table is a leaf (the moving-phase tables, and any placement
//! tables present); any other position with stones in hand is searched; a
//! moving-phase position without a table is an error naming the sector.
//!
//! Move order decides the cost: a turn to a lost position or to a leaf that
//! is lost for the opponent ends the search of a node at once; then the
//! transposition table's bounds of the children, then captures, blocks of
//! the opponent's open pairs, own new pairs and well-connected points.

use moulin_core::board::{points, Bitboard, ADJACENT, MILLS_THROUGH};
use moulin_core::index::Indexer;
use moulin_core::Node;
use moulin_probe::{Move, ProbeError, Rules, Sector, Tablebase};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub use moulin_probe::Wdl;

fn from_score(score: i8) -> Wdl {
    match score {
        1 => Wdl::Win,
        0 => Wdl::Draw,
        _ => Wdl::Loss,
    }
}

/// What a search cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Positions searched (not leaves, not answered by the transposition table).
    pub nodes: u64,
    /// Positions answered from the tables.
    pub leaves: u64,
}

/// Searches placement positions over a set of tables.
pub struct Prover<'a> {
    tb: &'a Tablebase,
    rules: Rules,
    /// Whether a sector has a table, by `sector_code`.
    has_table: Vec<bool>,
    tt: Transpositions,
    nodes: AtomicU64,
    leaves: AtomicU64,
}

impl<'a> Prover<'a> {
    /// A prover over the tables of `tb`, with a transposition table of about
    /// `tt_bytes` bytes (at least one bucket).
    pub fn new(tb: &'a Tablebase, tt_bytes: usize) -> Prover<'a> {
        let mut has_table = vec![false; 1 << 16];
        for (sector, _) in tb.sectors() {
            has_table[sector_code(sector) as usize] = true;
        }
        Prover {
            tb,
            rules: tb.rules(),
            has_table,
            tt: Transpositions::new(tt_bytes),
            nodes: AtomicU64::new(0),
            leaves: AtomicU64::new(0),
        }
    }

    /// Positions searched and leaves read so far.
    pub fn stats(&self) -> SearchStats {
        SearchStats {
            nodes: self.nodes.load(Relaxed),
            leaves: self.leaves.load(Relaxed),
        }
    }

    /// The value of a position for the player to move. Positions are not
    /// validated here (reduced games with fewer stones are welcome): check
    /// them with `Position::validate` first.
    pub fn value(&self, node: &Node) -> Result<Wdl, ProbeError> {
        if self.rules.is_lost(node) {
            return Ok(Wdl::Loss);
        }
        let sector = Sector::of(node);
        let slot = Indexer::get().index(node);
        if self.has_table[sector_code(sector) as usize] {
            return Ok(from_score(self.leaf(sector, slot)?));
        }
        if rayon::current_num_threads() == 1 {
            return Ok(from_score(self.search(node, sector, slot, -1, 1, 0)?));
        }
        // Two proofs at once, sharing the transposition table: "at least a
        // draw?" (window -1..0) and "at most a draw?" (0..1). Each is a null
        // window search, and together they give the exact value; a draw,
        // like the start's, needs both, and they are of a size.
        let (at_least_draw, at_most_draw) = rayon::join(
            || self.search(node, sector, slot, -1, 0, 0),
            || self.search(node, sector, slot, 0, 1, 0),
        );
        let score = match (at_least_draw?, at_most_draw?) {
            (low, _) if low < 0 => -1,
            (_, high) if high > 0 => 1,
            _ => 0,
        };
        Ok(from_score(score))
    }

    /// Every legal turn of a position with the value it leads to for the
    /// player who makes it, in the order of `Rules::for_each_move`. Turns to
    /// symmetric positions are searched once; distinct ones in parallel.
    pub fn move_values(&self, node: &Node) -> Result<Vec<(Move, Wdl)>, ProbeError> {
        let mut turns = Vec::new();
        self.rules
            .for_each_move(node, |m, next| turns.push((m, next)));
        let ix = Indexer::get();
        let keys: Vec<(Sector, u64)> = turns
            .iter()
            .map(|(_, n)| (Sector::of(n), ix.index(n)))
            .collect();
        let mut unique: Vec<usize> = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            if !unique.iter().any(|&j| keys[j] == *k) {
                unique.push(i);
            }
        }
        let values: Vec<Wdl> = unique
            .par_iter()
            .map(|&i| self.value(&turns[i].1).map(Wdl::flipped))
            .collect::<Result<_, _>>()?;
        Ok(turns
            .iter()
            .zip(&keys)
            .map(|((m, _), k)| {
                let u = unique.iter().position(|&j| keys[j] == *k).expect("listed");
                (*m, values[u])
            })
            .collect())
    }

    /// Fail-soft negamax over a position that is neither lost nor a leaf:
    /// the exact score if it lies strictly between `alpha` and `beta`, else
    /// a bound on the same side of the window.
    fn search(
        &self,
        node: &Node,
        sector: Sector,
        slot: u64,
        mut alpha: i8,
        mut beta: i8,
        depth: u8,
    ) -> Result<i8, ProbeError> {
        if sector.is_moving() {
            return Err(ProbeError::MissingSector(sector));
        }
        self.nodes.fetch_add(1, Relaxed);
        let key = tt_key(sector, slot);
        let (mut lo, mut hi) = self.tt.bounds(key).unwrap_or((-1, 1));
        if lo >= beta || hi <= alpha || lo == hi {
            return Ok(if lo >= beta { lo } else { hi });
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let window = (alpha, beta);
        let best = self.best_child(node, alpha, beta, depth)?;
        // Store what the search proved, within what was known before.
        if best <= window.0 {
            hi = hi.min(best);
        } else if best >= window.1 {
            lo = lo.max(best);
        } else {
            (lo, hi) = (best, best);
        }
        self.tt.store(key, sector.hand_total(), lo, hi);
        Ok(best)
    }

    /// The fail-soft best score over the turns of `node`.
    fn best_child(
        &self,
        node: &Node,
        mut alpha: i8,
        beta: i8,
        depth: u8,
    ) -> Result<i8, ProbeError> {
        let mut children: Vec<Child> = Vec::with_capacity(32);
        let mut winning = false;
        self.rules.for_each_move(node, |mv, next| {
            winning |= self.rules.is_lost(&next);
            if !winning {
                let order = order(node, &mv);
                children.push(Child {
                    order,
                    next,
                    sector: Sector::of(&next),
                    slot: 0,
                    lo: -1,
                    hi: 1,
                });
            }
        });
        if winning {
            return Ok(1);
        }
        children.sort_unstable_by_key(|c| std::cmp::Reverse(c.order));
        // Leaves first, and what the transposition table knows: either may
        // end the search at once.
        let ix = Indexer::get();
        // What ranking the children reads, then their transposition
        // entries, are fetched all at once: each is a miss.
        for c in &children {
            ix.prefetch_frame(c.next.them);
        }
        for c in children.iter_mut() {
            c.slot = ix.index(&c.next);
            if !self.has_table[sector_code(c.sector) as usize] {
                self.tt.prefetch(tt_key(c.sector, c.slot));
            }
        }
        let mut best = -1i8;
        for c in children.iter_mut() {
            if self.has_table[sector_code(c.sector) as usize] {
                let score = -self.leaf(c.sector, c.slot)?;
                (c.lo, c.hi) = (score, score);
                best = best.max(score);
            } else if let Some((clo, chi)) = self.tt.bounds(tt_key(c.sector, c.slot)) {
                (c.lo, c.hi) = (-chi, -clo);
                best = best.max(c.lo);
            }
            if best >= beta {
                return Ok(best);
            }
        }
        alpha = alpha.max(best);
        // Children known to be good first, then the heuristic order.
        children.sort_by_key(|c| std::cmp::Reverse(c.lo * 3 + c.hi));
        // In the first SPLIT_DEPTH plies, once the children searched so far
        // leave a null window (typically "better than a draw?"), the others
        // are searched in parallel: in that window each search is the one
        // the sequential loop would make, and only a cutoff could have
        // spared some (young brothers wait). Deeper in the tree that waste
        // compounds.
        let parallel = depth < SPLIT_DEPTH && rayon::current_num_threads() > 1;
        let mut searched = 0;
        let mut rest = Vec::new();
        for c in &children {
            if c.hi <= alpha {
                // Cannot raise alpha (leaves, known losses): only its bound counts.
                best = best.max(c.hi);
                continue;
            }
            if parallel && searched > 0 && beta - alpha == 1 {
                rest.push(c);
                continue;
            }
            let score = -self.search(&c.next, c.sector, c.slot, -beta, -alpha, depth + 1)?;
            searched += 1;
            if score > best {
                best = score;
                if best > alpha {
                    alpha = best;
                    if alpha >= beta {
                        return Ok(best);
                    }
                }
            }
        }
        if !rest.is_empty() {
            let scores = rest
                .par_iter()
                .filter(|c| c.hi > alpha)
                .map(|c| Ok(-self.search(&c.next, c.sector, c.slot, -beta, -alpha, depth + 1)?))
                .collect::<Result<Vec<i8>, ProbeError>>()?;
            best = scores.into_iter().fold(best, i8::max);
        }
        Ok(best)
    }

    fn leaf(&self, sector: Sector, slot: u64) -> Result<i8, ProbeError> {
        self.leaves.fetch_add(1, Relaxed);
        Ok(match self.tb.wdl(sector, slot)? {
            Wdl::Win => 1,
            Wdl::Draw => 0,
            Wdl::Loss => -1,
        })
    }
}

/// A turn's position while its parent is searched.
struct Child {
    /// Heuristic search order, highest first.
    order: i32,
    next: Node,
    sector: Sector,
    slot: u64,
    /// Bounds of the parent's score through this turn, as known so far.
    lo: i8,
    hi: i8,
}

/// A heuristic rank of a turn: captures first (of stones in the opponent's
/// open pairs first), then blocks of the opponent's open pairs, new own open
/// pairs, and points with more neighbours.
fn order(node: &Node, mv: &Move) -> i32 {
    let to = mv.to.index();
    let us = node.us;
    let them = node.them;
    let mut score = ADJACENT[to].count_ones() as i32;
    for &line in &MILLS_THROUGH[to] {
        let (ours, theirs) = ((line & us).count_ones(), (line & them).count_ones());
        if theirs == 2 && ours == 0 {
            score += 100; // blocks a mill
        }
        if ours == 1 && theirs == 0 {
            score += 10; // makes an open pair
        }
    }
    if let Some(r) = mv.remove {
        score += 1000;
        if open_pairs(them) & r.bit() != 0 {
            score += 50;
        }
    }
    score
}

/// Stones of `stones` in a mill line with a second one of them.
fn open_pairs(stones: Bitboard) -> Bitboard {
    let mut out = 0;
    for p in points(stones) {
        for &line in &MILLS_THROUGH[p.index()] {
            if (line & stones).count_ones() == 2 {
                out |= p.bit();
            }
        }
    }
    out
}

/// Plies from the root within which a node's younger children are searched
/// in parallel once the eldest has left a null window: the start over the
/// moving-phase WDL tables, two threads, took 40.5 s of wall time with 1
/// (the root alone), 33.2 s with 2, 54.8 s with 3 and 52.8 s with 4 (46
/// million positions searched against 32 million).
const SPLIT_DEPTH: u8 = 2;

/// A sector in 16 bits: boards and hands, 4 bits each.
fn sector_code(s: Sector) -> u16 {
    (s.stm_board as u16) << 12
        | (s.opp_board as u16) << 8
        | (s.stm_hand as u16) << 4
        | s.opp_hand as u16
}

/// The transposition key of a class: never 0 (hands are never both empty here).
fn tt_key(sector: Sector, slot: u64) -> u64 {
    (sector_code(sector) as u64) << 32 | slot
}

/// A lossy transposition table of bounds, one word per entry, two entries
/// a bucket; the entry whose position had fewer stones in hand gives way.
/// Word: key (48 bits) | depth (8) | lower bound + 1 (4) | upper bound + 1 (4).
struct Transpositions {
    words: Vec<AtomicU64>,
    mask: usize,
}

impl Transpositions {
    fn new(bytes: usize) -> Transpositions {
        // The largest power of two of words within the budget, at least a bucket.
        let n = ((bytes / 8).max(2) + 1).next_power_of_two() / 2;
        Transpositions {
            words: crate::solve::memory::huge_vec(n, |_| AtomicU64::new(0)),
            mask: n - 1,
        }
    }

    fn bucket(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> 20) as usize & self.mask) & !1
    }

    fn prefetch(&self, key: u64) {
        moulin_core::prefetch(&self.words[self.bucket(key)]);
    }

    fn bounds(&self, key: u64) -> Option<(i8, i8)> {
        let b = self.bucket(key);
        for w in &self.words[b..b + 2] {
            let w = w.load(Relaxed);
            if w >> 16 == key {
                return Some((((w >> 4) & 15) as i8 - 1, (w & 15) as i8 - 1));
            }
        }
        None
    }

    fn store(&self, key: u64, depth: u8, lo: i8, hi: i8) {
        debug_assert!(key < 1 << 48 && lo <= hi);
        let word = key << 16 | (depth as u64) << 8 | ((lo + 1) as u64) << 4 | (hi + 1) as u64;
        let b = self.bucket(key);
        let pair = &self.words[b..b + 2];
        let (w0, w1) = (pair[0].load(Relaxed), pair[1].load(Relaxed));
        let victim = if w0 >> 16 == key || w0 == 0 {
            0
        } else if w1 >> 16 == key || w1 == 0 {
            1
        } else if (w0 >> 8) & 0xff <= (w1 >> 8) & 0xff {
            0
        } else {
            1
        };
        pair[victim].store(word, Relaxed);
    }
}
