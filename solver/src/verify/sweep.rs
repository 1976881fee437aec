//! The verifier's fast derivation: every class of a sector visited once,
//! mover-major, with the value its best turn gives.
//!
//! The slots of a table are ordered by the opponent's stones, so going
//! through them in order reads the successors (whose opponent is the mover
//! after the turn) all over their tables: a cache miss per turn. Here the
//! mover's stones `u` stay fixed (one representative of each symmetry orbit)
//! while the opponent's stones `t` run through every set beside them. A turn
//! of `u` (a stone to a point, whatever `t` is) then leads, for every `t`,
//! into the same block of its successor table: the block of the frame of the
//! mover's stones after the turn, which the turn computes once. The reads of
//! one `u` stay within a few dozen blocks of some kilobytes each.
//!
//! Each class is visited once (`Indexer::for_each_class_of_mover`: when the
//! stabiliser of `u` is not trivial, only the smallest of the images of `t`
//! under it is taken). Only the probe's rules (mills, removals,
//! adjacency), index, decoder and move values (`moulin_core::play`) are
//! used; the turns are those of `Rules::for_each_move`, enumerated in
//! another order (a test compares the two derivations on every position of
//! small sectors).

use super::captures::Captures;
use super::rule;
use moulin_core::board::{
    forms_mill, points, removable, Bitboard, Point, ADJACENT, ALL_POINTS, POINTS,
};
use moulin_core::index::{Frame, Indexer, PlainRanker, BINOMIAL, PLAIN_RANKER_FROM};
use moulin_core::Node;
use moulin_probe::{RuleOutcome, Rules, Sector};

/// One turn of the mover's stones, whatever the opponent's.
#[derive(Clone, Copy)]
struct Turn {
    /// The point the stone arrives on: the turn is legal when the opponent
    /// is not there.
    to: Bitboard,
    /// The frame of the mover's stones after the turn, which are the
    /// opponent's of the next position.
    frame: Frame,
    /// Whether the turn closes a mill (and so removes a stone).
    mill: bool,
}

/// Working space of `Sweep::visit`, kept between orbits.
#[derive(Default)]
pub struct Scratch {
    /// The opponent's stones of each class of the orbit.
    them: Vec<Bitboard>,
    /// The number of positions of each class.
    weights: Vec<u32>,
    /// Their slots, and the codes stored there.
    slots: Vec<u64>,
    codes: Vec<Option<u16>>,
    /// The best rank found so far (`NO_TURN`, `UNREADABLE`).
    best: Vec<i32>,
    /// The opponent's stones a mill may remove.
    victims: Vec<Bitboard>,
}

impl Scratch {
    fn clear(&mut self) {
        self.them.clear();
        self.weights.clear();
        self.slots.clear();
        self.codes.clear();
        self.best.clear();
        self.victims.clear();
    }
}

/// `Scratch::best` before any turn: below every rank of a value.
const NO_TURN: i32 = i32::MIN;
/// `Scratch::best` once a successor could not be read: above every rank of
/// a value, so that the best of it and any turn's value stays it.
const UNREADABLE: i32 = i32::MAX;

/// How the successors of one turn are ranked. One lives at a time, on the
/// stack, so the plain ranker's tables are kept inline.
#[allow(clippy::large_enum_variant)]
enum Ranker {
    /// The turn's frame is plain.
    Plain(PlainRanker),
    /// One ranker per symmetry fixing the frame's representative.
    Images(Vec<PlainRanker>),
    /// `Frame::slot`, for a few classes.
    Frame,
}

/// The least of the slots that `images` give `us`: `Frame::slot`.
#[inline]
fn least_slot(images: &[PlainRanker], us: Bitboard) -> u64 {
    images
        .iter()
        .fold(u64::MAX, |least, r| least.min(r.slot(us)))
}

/// Where the positions after one kind of turn (quiet, or with a removal)
/// are read, and what their codes are worth to the mover.
struct Next<'a> {
    /// Their sector's codes; `None` when the sector was not loaded.
    codes: Option<&'a [u16]>,
    /// The rank of every such turn when the player to move after it has
    /// fewer than three stones (`loss 0`).
    lost: Option<i32>,
    /// The rank of the turn's value to the mover, by the code it leads to
    /// (`UNREADABLE` for a hole). The value of a turn depends on the code
    /// and the phase only, which the sector fixes.
    ranks: Box<[i32]>,
}

impl<'a> Next<'a> {
    fn new(
        rules: &Rules,
        mover: &Node,
        codes: Option<&'a [u16]>,
        lost: bool,
        capture: bool,
    ) -> Next<'a> {
        let rank = |after| rule::move_value(rules, mover, capture, after).rank();
        let ranks = (0..=u16::MAX)
            .map(|code| rule::decode(rules, code).map_or(UNREADABLE, rank))
            .collect();
        Next {
            codes,
            lost: lost.then(|| rank(RuleOutcome::Loss(0))),
            ranks,
        }
    }

    /// The rank of the turn's value to the mover when the next position's
    /// slot is `slot`; `UNREADABLE` when it cannot be read.
    #[inline]
    fn rank(&self, slot: u64) -> i32 {
        if let Some(rank) = self.lost {
            return rank;
        }
        match self.codes {
            Some(codes) => self.rank_in(codes, slot),
            None => UNREADABLE,
        }
    }

    /// The rank of the code `codes` hold at `slot`; `UNREADABLE` past
    /// their end.
    #[inline]
    fn rank_in(&self, codes: &[u16], slot: u64) -> i32 {
        match codes.get(slot as usize) {
            Some(&code) => self.ranks[code as usize],
            None => UNREADABLE,
        }
    }
}

/// The derivation of one sector's values from its successors' codes.
pub struct Sweep<'a> {
    rules: Rules,
    sector: Sector,
    quiet: Next<'a>,
    capture: Next<'a>,
    /// The best capture's code at every slot of the quiet turns' sector
    /// (`captures.rs`), when a mill's captures are read from a table.
    captures: Option<Captures>,
}

impl<'a> Sweep<'a> {
    /// The sweep of `sector`, reading successors from `tables` (codes by
    /// sector; the sector itself too when its turns lead back into it).
    pub fn new(rules: Rules, sector: Sector, tables: &[(Sector, &'a [u16])]) -> Sweep<'a> {
        Sweep::sharing(rules, sector, tables, None)
    }

    /// `new`, reading a mill's best captures from `kept` when it is the
    /// table this sector's sweep would build (`Captures::of`).
    pub fn sharing(
        rules: Rules,
        sector: Sector,
        tables: &[(Sector, &'a [u16])],
        kept: Option<Captures>,
    ) -> Sweep<'a> {
        let (a, b) = (sector.stm_board, sector.opp_board);
        let (after, hand) = match sector.stm_hand {
            0 => (a, 0),
            h => (a + 1, h - 1),
        };
        let mover = Node {
            us: 0,
            them: 0,
            us_hand: sector.stm_hand,
            them_hand: sector.opp_hand,
        };
        let target = |us: u8| Sector {
            stm_board: us,
            opp_board: after,
            stm_hand: sector.opp_hand,
            opp_hand: hand,
        };
        let next = |us: u8, capture: bool| {
            let codes = tables
                .iter()
                .find(|(s, _)| *s == target(us))
                .map(|(_, c)| *c);
            Next::new(&rules, &mover, codes, us + sector.opp_hand < 3, capture)
        };
        let quiet = next(b, false);
        let capture = next(b.saturating_sub(1), true);
        // A table of the best captures when a turn can close a mill and
        // the captures are read (not lost by material at once).
        let mills = b > 0 && after >= 3;
        let captures = match (mills, capture.lost, capture.codes) {
            (true, None, Some(codes)) => Some(Captures::of(target(b), codes, &capture.ranks, kept)),
            _ => None,
        };
        Sweep {
            rules,
            sector,
            quiet,
            capture,
            captures,
        }
    }

    /// The table of best captures, for the next sector's sweep
    /// (`sharing`).
    pub fn into_captures(self) -> Option<Captures> {
        self.captures
    }

    /// Number of orbits of the mover's stones: the units of work of `visit`.
    pub fn orbits(&self) -> u64 {
        Indexer::get().orbits(self.sector.stm_board as usize)
    }

    /// Number of opponent's sets beside one set of the mover's stones.
    pub fn sets_per_orbit(&self) -> u64 {
        let (a, b) = (
            self.sector.stm_board as usize,
            self.sector.opp_board as usize,
        );
        if a + b > POINTS {
            0
        } else {
            BINOMIAL[POINTS - a][b]
        }
    }

    /// Calls `visit(slot, node, weight, code, best)` for every class whose
    /// mover's stones are those of orbit `orbit`, once each: `node` is a
    /// position of the class (not necessarily the one stored at `slot`),
    /// `weight` the number of its positions, `code` what `own` holds at
    /// `slot` (`None` past its end, and always when `own` is `None`: then
    /// no code is read) and `best` the rank of the best turn's value
    /// (`loss 0`'s without a turn), `None` when a successor cannot be read.
    /// `scratch` is working space.
    ///
    /// The classes' slots are gathered first and their codes read in one
    /// loop, whose loads (cache misses: the slots are all over the table)
    /// overlap. Then the turns are played one at a time over all the
    /// classes: the successors of one turn lie in one block of its table,
    /// which so stays in the cache while it is read.
    pub fn visit(
        &self,
        orbit: u64,
        own: Option<&[u16]>,
        scratch: &mut Scratch,
        visit: impl FnMut(u64, Node, u32, Option<u16>, Option<i32>),
    ) {
        self.sweep(orbit, own, |_| true, scratch, visit)
    }

    /// `visit`, but only the classes whose code in `own` is `wanted` have
    /// their turns played; the others are visited with `best` `None`.
    pub fn visit_where(
        &self,
        orbit: u64,
        own: &[u16],
        wanted: impl Fn(u16) -> bool,
        scratch: &mut Scratch,
        visit: impl FnMut(u64, Node, u32, Option<u16>, Option<i32>),
    ) {
        self.sweep(orbit, Some(own), wanted, scratch, visit)
    }

    /// `visit_where`, reading the codes of `own` when there is one.
    fn sweep(
        &self,
        orbit: u64,
        own: Option<&[u16]>,
        wanted: impl Fn(u16) -> bool,
        scratch: &mut Scratch,
        mut visit: impl FnMut(u64, Node, u32, Option<u16>, Option<i32>),
    ) {
        let ix = Indexer::get();
        let s = self.sector;
        scratch.clear();
        let mut mover = None;
        ix.for_each_class_of_mover(s, orbit, |u, t, weight| {
            mover = Some(u);
            scratch.them.push(t);
            scratch.weights.push(weight);
        });
        let Some(u) = mover else {
            return;
        };
        ix.slots_beside(u, &scratch.them, &mut scratch.slots);
        let n = scratch.them.len();
        match own {
            Some(own) => scratch.codes.extend(
                scratch
                    .slots
                    .iter()
                    .map(|&slot| own.get(slot as usize).copied()),
            ),
            None => scratch.codes.resize(n, None),
        }
        scratch
            .best
            .extend(scratch.codes.iter().map(|code| match code {
                Some(c) if !wanted(*c) => UNREADABLE,
                _ => NO_TURN,
            }));
        let turns = self.turns(u);
        if self.captures.is_none() && turns.iter().any(|t| t.mill) {
            scratch
                .victims
                .extend(scratch.them.iter().map(|&t| removable(t)));
        }
        let Scratch {
            them,
            best,
            victims,
            ..
        } = scratch;
        // A turn's successors are ranked by its frame, through rankers when
        // there are enough of them: one when the frame is plain, otherwise
        // one per symmetry fixing its representative.
        for turn in &turns {
            let a = self.next_movers(turn);
            let ranker = match n >= PLAIN_RANKER_FROM {
                false => Ranker::Frame,
                true => match PlainRanker::new(&turn.frame, a) {
                    Some(r) => Ranker::Plain(r),
                    None => Ranker::Images(PlainRanker::images(&turn.frame, a)),
                },
            };
            match &ranker {
                Ranker::Plain(r) => self.play(turn, them, victims, best, |us| r.slot(us)),
                Ranker::Images(r) => self.play(turn, them, victims, best, |us| least_slot(r, us)),
                Ranker::Frame => self.play(turn, them, victims, best, |us| turn.frame.slot(us)),
            }
        }
        let lost = RuleOutcome::Loss(0).rank();
        for i in 0..n {
            let t = scratch.them[i];
            let best = match scratch.best[i] {
                UNREADABLE => None,
                NO_TURN => Some(lost),
                rank => Some(rank),
            };
            let node = Node {
                us: u,
                them: t,
                us_hand: s.stm_hand,
                them_hand: s.opp_hand,
            };
            visit(
                scratch.slots[i],
                node,
                scratch.weights[i],
                scratch.codes[i],
                best,
            );
        }
    }

    /// Raises `best` of each class (opponent's stones `them`, the stones
    /// a mill may remove `victims`) by `turn`, whose successors' slots are
    /// `slot(their mover's stones)`: those of the quiet turns' sector, or
    /// of the captures' when a mill's captures are read one by one.
    #[inline]
    fn play(
        &self,
        turn: &Turn,
        them: &[Bitboard],
        victims: &[Bitboard],
        best: &mut [i32],
        slot: impl Fn(Bitboard) -> u64,
    ) {
        match (turn.mill, &self.captures) {
            (false, _) => self.play_quiet(turn, them, best, |t| self.quiet.rank(slot(t))),
            (true, Some(table)) => {
                let table = &table.best;
                self.play_quiet(turn, them, best, |t| self.capture.rank_in(table, slot(t)))
            }
            (true, None) => self.play_mill(turn, them, victims, best, slot),
        }
    }

    /// The number of stones of the next mover after `turn`: the opponent's,
    /// less one after a mill whose captures are each read.
    fn next_movers(&self, turn: &Turn) -> usize {
        let each_capture = turn.mill && self.captures.is_none();
        self.sector.opp_board as usize - each_capture as usize
    }

    /// Raises `best` of each class (opponent's stones `them`) by `turn`,
    /// worth `value(their stones)` where it is legal: a quiet turn, or one
    /// whose captures' best is read from a table.
    #[inline]
    fn play_quiet(
        &self,
        turn: &Turn,
        them: &[Bitboard],
        best: &mut [i32],
        value: impl Fn(Bitboard) -> i32,
    ) {
        for (b, &t) in best.iter_mut().zip(them) {
            if turn.to & t == 0 {
                *b = (*b).max(value(t));
            }
        }
    }

    /// Raises `best` of each class by `turn`, which closes a mill, once per
    /// stone it may remove; the successors' slots are `slot(their mover's
    /// stones)`.
    #[inline]
    fn play_mill(
        &self,
        turn: &Turn,
        them: &[Bitboard],
        victims: &[Bitboard],
        best: &mut [i32],
        slot: impl Fn(Bitboard) -> u64,
    ) {
        for ((b, &t), &victims) in best.iter_mut().zip(them).zip(victims) {
            if turn.to & t != 0 {
                continue;
            }
            let mut left = victims;
            while left != 0 {
                let r = left & left.wrapping_neg();
                left ^= r;
                *b = (*b).max(self.capture.rank(slot(t ^ r)));
            }
        }
    }

    /// The turns of the mover's stones `u`, legal wherever the opponent's
    /// stones leave their arrival point free.
    fn turns(&self, u: Bitboard) -> Vec<Turn> {
        let ix = Indexer::get();
        let s = self.sector;
        let mut turns = Vec::new();
        if s.stm_board + s.stm_hand < 3 {
            return turns;
        }
        let mut arrive = |after: Bitboard, to: Point| {
            turns.push(Turn {
                to: to.bit(),
                frame: ix.frame(after),
                mill: s.opp_board > 0 && forms_mill(after, to.index()),
            });
        };
        let beside = ALL_POINTS & !u;
        if s.stm_hand > 0 {
            for to in points(beside) {
                arrive(u | to.bit(), to);
            }
        } else {
            let flies = self.rules.flying && s.stm_board == 3;
            for from in points(u) {
                let rest = u ^ from.bit();
                let reach = if flies {
                    beside
                } else {
                    ADJACENT[from.index()] & beside
                };
                for to in points(reach) {
                    arrive(rest | to.bit(), to);
                }
            }
        }
        turns
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::SectorValues;
    use super::*;
    use moulin_core::board::SYMMETRY_COUNT;
    use moulin_core::value::HOLE;
    use moulin_probe::Outcome;
    use std::collections::HashMap;

    /// A few random codes: small distances of every kind, and some holes
    /// (which a turn cannot read).
    pub(in crate::verify) fn random_codes(rules: &Rules, slots: u64, seed: &mut u64) -> Vec<u16> {
        (0..slots)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                let r = *seed >> 8;
                if r.is_multiple_of(997) {
                    return HOLE;
                }
                let d = (r / 8 % 40) as u16;
                let code = match (r % 8, rules.no_capture_limit) {
                    (0 | 1, _) => RuleOutcome::Draw.code(),
                    (k, None) if k < 5 => Outcome::Win(2 * d + 1).code(),
                    (_, None) => Outcome::Loss(2 * d).code(),
                    (2, _) => RuleOutcome::Win(d + 1).code(),
                    (3, _) => RuleOutcome::Loss(d).code(),
                    (4, _) => RuleOutcome::CursedWin(d + 11).code(),
                    (5, _) => RuleOutcome::BlessedLoss(d + 11).code(),
                    (6, _) => RuleOutcome::Win(d / 4 + 1).code(),
                    _ => RuleOutcome::Loss(d / 4).code(),
                };
                code.expect("a code")
            })
            .collect()
    }

    /// On every small sector of the game, over random successor codes: the
    /// sweep visits every canonical slot exactly once, each with a position
    /// of its class, and derives what the rules' own turns
    /// (`SectorValues::derive`) derive. With flying here; without it and
    /// under the no-capture rule below.
    #[test]
    fn the_sweep_derives_what_the_rules_derive() {
        sweep_derives_what_the_rules_derive(&[Rules::with_flying(true)]);
    }

    /// Without flying and under the no-capture rule (ignored: CI runs it).
    #[test]
    #[ignore]
    fn the_sweep_derives_what_the_rules_derive_other_rules() {
        sweep_derives_what_the_rules_derive(&[
            Rules::with_flying(false),
            Rules {
                flying: true,
                no_capture_limit: Some(10),
            },
        ]);
    }

    fn sweep_derives_what_the_rules_derive(rule_sets: &[Rules]) {
        let ix = Indexer::get();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let sectors: Vec<Sector> = Sector::all(true)
            .into_iter()
            .filter(|&s| ix.slots(s) <= 120_000 || (s.is_moving() && ix.slots(s) <= 1_000_000))
            .collect();
        assert!(sectors.len() > 40, "{} sectors", sectors.len());
        assert!(sectors.iter().any(|s| s.stm_board == 3 && s.is_moving()));
        assert!(sectors.iter().any(|s| s.opp_board == 0));
        let mut checked = 0u64;
        for &rules in rule_sets {
            for &sector in &sectors {
                let mut codes: HashMap<Sector, Vec<u16>> = HashMap::new();
                for s in std::iter::once(sector).chain(sector.successors()) {
                    codes
                        .entry(s)
                        .or_insert_with(|| random_codes(&rules, ix.slots(s), &mut seed));
                }
                let values = SectorValues {
                    rules,
                    sector,
                    values: &codes[&sector],
                    successors: codes.iter().map(|(&s, v)| (s, v.as_slice())).collect(),
                };
                let tables: Vec<(Sector, &[u16])> =
                    codes.iter().map(|(&s, v)| (s, v.as_slice())).collect();
                let sweep = Sweep::new(rules, sector, &tables);
                let mut seen = vec![false; ix.slots(sector) as usize];
                let mut scratch = Scratch::default();
                for orbit in 0..sweep.orbits() {
                    sweep.visit(
                        orbit,
                        Some(&codes[&sector]),
                        &mut scratch,
                        |slot, node, weight, code, best| {
                            assert_eq!(ix.index(&node), slot, "{sector}: {node:?}");
                            let stabiliser = ix.stabiliser_size(&node);
                            assert_eq!(
                                weight * stabiliser,
                                SYMMETRY_COUNT as u32,
                                "{sector}: {node:?}"
                            );
                            assert!(!seen[slot as usize], "{sector}: slot {slot} visited twice");
                            seen[slot as usize] = true;
                            assert_eq!(code, Some(codes[&sector][slot as usize]));
                            let slow = values.derive(&node).ok().map(|(v, _)| v.rank());
                            assert_eq!(best, slow, "{sector} {rules}: {node:?}");
                            checked += 1;
                        },
                    );
                }
                for (slot, seen) in seen.iter().enumerate() {
                    assert_eq!(
                        *seen,
                        ix.is_canonical(sector, slot as u64),
                        "{sector}: slot {slot}"
                    );
                }
            }
        }
        assert!(checked > 1_000_000, "{checked} classes");
    }
}
