//! The stored values compared with the derived ones without reading them
//! at random: by a keyed sum over the table in slot order and the same sum
//! over the classes as the derivation visits them.
//!
//! The derivation visits the classes mover-major (`sweep.rs`), all over
//! their own table, so reading each class's stored code there is a cache
//! miss per class, about a fifth of its time. Instead each side adds up
//! `Key::term(slot, rank)`, a 64-bit mix of a slot and a value's rank under
//! a key drawn at random for each run: the table's sum over its slots that
//! hold a value, the derivation's over the classes it visits, with the
//! value the rules give them. When the table holds at every class that
//! value and a hole at every other slot, the sums are equal. When it does
//! not, they are equal only if the terms of the pairs that differ cancel,
//! a chance of about one in 2^64 for a key the table cannot know; then the
//! verifier reads the table class by class and slot by slot, and says
//! which slots are wrong.
//!
//! The counts of the header come from the same pass over the table: every
//! slot that holds a value is one class of 16 positions, less what the
//! derivation finds missing from the classes whose positions are fewer
//! (those with a symmetry).

use super::tally::{count, Tally};
use super::{count_histogram, rule, small_values, SMALL_CODES as SMALL};
use moulin_core::board::SYMMETRY_COUNT;
use moulin_core::value::HOLE;
use moulin_probe::{RuleOutcome, Rules};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::hash::BuildHasher;

/// Slots summed as one unit of parallel work.
const CHUNK: usize = 1 << 16;

/// The key of a run's sums.
#[derive(Clone, Copy)]
pub struct Key(u64);

impl Key {
    /// A key drawn at random (from the standard library's hasher seed).
    pub fn random() -> Key {
        Key(std::collections::hash_map::RandomState::new().hash_one(0x6d6f_756c_696e_u64))
    }

    /// The term of the value of rank `rank` at slot `slot` (below 2^32):
    /// the key and the pair through the finaliser of MurmurHash3, a
    /// bijection of 64-bit words that mixes every bit into every other.
    #[inline]
    pub fn term(self, slot: u64, rank: i32) -> u64 {
        let mut x = (slot << 32 | rank as u32 as u64) ^ self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

/// The rank of the value a code stands for; for a code that stands for
/// none, a number no derived value ranks at.
fn rank_of(rules: &Rules, code: u16) -> i32 {
    rule::decode(rules, code).map_or(i32::MIN, RuleOutcome::rank)
}

/// What the pass in slot order finds in a table.
pub struct Stored {
    /// The sum of the terms of its values.
    pub sum: u64,
    /// Its holes.
    pub holes: u64,
    /// The slots holding each small code (`SMALL_CODES`; the others, far
    /// rarer, in a map).
    small: Vec<u64>,
    /// The slots holding each other code (not a hole).
    other: BTreeMap<u16, u64>,
}

impl Stored {
    fn new() -> Stored {
        Stored {
            sum: 0,
            holes: 0,
            small: vec![0; SMALL],
            other: BTreeMap::new(),
        }
    }

    fn merge(mut self, o: Stored) -> Stored {
        self.sum = self.sum.wrapping_add(o.sum);
        self.holes += o.holes;
        for (a, b) in self.small.iter_mut().zip(&o.small) {
            *a += b;
        }
        for (code, n) in o.other {
            *self.other.entry(code).or_default() += n;
        }
        self
    }

    /// Sums and counts the codes of `values`, in parallel.
    pub fn of(rules: &Rules, values: &[u16], key: Key) -> Stored {
        let ranks: Vec<i32> = (0..SMALL as u16).map(|c| rank_of(rules, c)).collect();
        values
            .par_chunks(CHUNK)
            .enumerate()
            .fold(Stored::new, |mut out, (c, chunk)| {
                let mut histogram = [0u32; SMALL];
                let mut sum = 0u64;
                for (i, &code) in chunk.iter().enumerate() {
                    let slot = (c * CHUNK + i) as u64;
                    let rank = match ranks.get(code as usize) {
                        Some(&rank) => {
                            histogram[code as usize] += 1;
                            rank
                        }
                        None if code == HOLE => {
                            out.holes += 1;
                            continue;
                        }
                        None => {
                            *out.other.entry(code).or_default() += 1;
                            rank_of(rules, code)
                        }
                    };
                    sum = sum.wrapping_add(key.term(slot, rank));
                }
                out.sum = out.sum.wrapping_add(sum);
                for (a, &b) in out.small.iter_mut().zip(&histogram) {
                    *a += b as u64;
                }
                out
            })
            .reduce(Stored::new, Stored::merge)
    }

    /// The counts of the table: every value a class of 16 positions, less
    /// the positions `missing` from the classes with a symmetry. `None`
    /// when a code stands for no value or the positions missing are more
    /// than there are (the sums cannot have been equal then).
    pub fn tally(&self, rules: &Rules, missing: &Missing) -> Option<Tally> {
        let mut tally = Tally::default();
        // Every code but the hole (`u16::MAX`, not a small one) stands for
        // a value, so no small code counted is skipped.
        count_histogram(&mut tally, &small_values(rules), self.small.iter().copied());
        for (&code, &n) in &self.other {
            let value = rule::decode(rules, code)?;
            count(&mut tally, value, n, SYMMETRY_COUNT as u64);
        }
        let p = &mut tally.positions;
        p.win = p.win.checked_sub(missing.win)?;
        p.loss = p.loss.checked_sub(missing.loss)?;
        p.draw = p.draw.checked_sub(missing.draw)?;
        tally.holes = self.holes;
        Some(tally)
    }
}

/// Positions missing from classes of fewer than 16, by outcome.
#[derive(Clone, Copy, Default)]
pub struct Missing {
    win: u64,
    loss: u64,
    draw: u64,
}

/// What the derivation adds up over the classes it visits.
#[derive(Clone, Copy, Default)]
pub struct Derived {
    /// The sum of the terms of the values derived.
    pub sum: u64,
    /// Classes visited.
    pub visited: u64,
    /// Classes with a successor that could not be read.
    pub unreadable: u64,
    /// Positions missing from the classes with a symmetry.
    pub missing: Missing,
}

impl Derived {
    /// Adds a class at `slot` of `weight` positions whose best turn is
    /// worth `best` (a rank; `None`: a successor could not be read).
    #[inline]
    pub fn class(&mut self, key: Key, slot: u64, weight: u32, best: Option<i32>) {
        self.visited += 1;
        let Some(rank) = best else {
            self.unreadable += 1;
            return;
        };
        self.sum = self.sum.wrapping_add(key.term(slot, rank));
        if weight != SYMMETRY_COUNT as u32 {
            let fewer = (SYMMETRY_COUNT as u32 - weight) as u64;
            match RuleOutcome::from_rank(rank) {
                Some(RuleOutcome::Win(_)) => self.missing.win += fewer,
                Some(RuleOutcome::Loss(_)) => self.missing.loss += fewer,
                _ => self.missing.draw += fewer,
            }
        }
    }

    pub fn merge(mut self, o: Derived) -> Derived {
        self.sum = self.sum.wrapping_add(o.sum);
        self.visited += o.visited;
        self.unreadable += o.unreadable;
        self.missing.win += o.missing.win;
        self.missing.loss += o.missing.loss;
        self.missing.draw += o.missing.draw;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::sweep::tests::random_codes;
    use super::super::sweep::Sweep;
    use super::super::SectorValues;
    use super::*;
    use moulin_core::index::Indexer;
    use moulin_probe::Sector;

    /// Every pair of a few thousand slots and ranks has its own term (the
    /// finaliser is a bijection, so distinct pairs below 2^32 slots never
    /// share one), and two keys give other terms.
    #[test]
    fn distinct_pairs_have_distinct_terms() {
        let key = Key::random();
        let ranks = [0, 1, -1, 3_999_999, -3_999_998, i32::MIN, i32::MAX];
        let mut seen = std::collections::HashSet::new();
        for slot in (0..4096u64).chain([u32::MAX as u64]) {
            for &rank in &ranks {
                assert!(seen.insert(key.term(slot, rank)), "{slot} {rank}");
            }
        }
        let other = Key(key.0 ^ 1);
        assert_ne!(key.term(5, 0), other.term(5, 0));
    }

    /// On small sectors whose turns do not lead back into them, over
    /// random successor codes: the table whose every class holds what the
    /// rules' own turns (`SectorValues::derive`) give, and every other slot
    /// a hole, passes the comparison of sums, with the counts that the
    /// slot-order pass (`scan`) finds; and each kind of damage fails it: a
    /// value changed, a value in a hole, a hole in a class, two values
    /// swapped. Without and with the no-capture rule.
    #[test]
    fn the_sums_tell_the_right_table_from_a_damaged_one() {
        let plain = Rules::with_flying(true);
        let rule = Rules {
            flying: true,
            no_capture_limit: Some(10),
        };
        for rules in [plain, rule] {
            sums_tell_the_right_table_from_a_damaged_one(rules);
        }
    }

    fn sums_tell_the_right_table_from_a_damaged_one(rules: Rules) {
        let ix = Indexer::get();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let draw = moulin_core::play::encode(&rules, RuleOutcome::Draw).expect("a code");
        let mut sectors = 0;
        for sector in Sector::all(true) {
            let slots = ix.slots(sector);
            if slots > 60_000 || sector.successors().contains(&sector) {
                continue;
            }
            let successors: Vec<(Sector, Vec<u16>)> = sector
                .successors()
                .into_iter()
                .map(|s| {
                    let codes = random_codes(&rules, ix.slots(s), &mut seed);
                    // No hole where a turn could read one.
                    let codes = codes.into_iter().map(|c| if c == HOLE { draw } else { c });
                    (s, codes.collect())
                })
                .collect();
            let tables: Vec<(Sector, &[u16])> =
                successors.iter().map(|(s, c)| (*s, c.as_slice())).collect();
            let mut values = SectorValues {
                rules,
                sector,
                values: &[],
                successors: tables.clone(),
            };
            let right: Vec<u16> = (0..slots)
                .map(|slot| match ix.is_canonical(sector, slot) {
                    false => HOLE,
                    true => {
                        let node = ix.unindex(sector, slot).expect("a slot");
                        let (value, _) = values.derive(&node).expect("readable");
                        moulin_core::play::encode(&rules, value).expect("a code")
                    }
                })
                .collect();
            let sweep = Sweep::new(rules, sector, &tables);
            values.values = &right;
            let fast = values
                .compare(&sweep, None)
                .expect("the right table passes");
            let exact = values.exact(&sweep, 10);
            assert_eq!(exact.inconsistencies, 0, "{sector}");
            assert_eq!(fast.tally, exact.tally, "{sector}");
            assert_eq!(fast.visited, exact.visited, "{sector}");

            let canonical: Vec<usize> = (0..right.len())
                .filter(|&slot| right[slot] != HOLE)
                .collect();
            let hole = (0..right.len()).find(|&slot| right[slot] == HOLE);
            let mut pick = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                canonical[seed as usize % canonical.len()]
            };
            let (a, b) = (pick(), pick());
            let other = |code: u16| if code == draw { draw + 1 } else { draw };
            let mut damages: Vec<(&str, Vec<u16>)> = Vec::new();
            let mut changed = right.clone();
            changed[a] = other(changed[a]);
            damages.push(("a value changed", changed));
            let mut emptied = right.clone();
            emptied[a] = HOLE;
            damages.push(("a hole in a class", emptied));
            if let Some(h) = hole {
                let mut filled = right.clone();
                filled[h] = right[a];
                damages.push(("a value in a hole", filled));
            }
            if right[a] != right[b] {
                let mut swapped = right.clone();
                swapped.swap(a, b);
                damages.push(("two values swapped", swapped));
            }
            for (what, damaged) in &damages {
                values.values = damaged;
                assert!(values.compare(&sweep, None).is_none(), "{sector}: {what}");
            }
            sectors += 1;
        }
        assert!(sectors > 20, "{sectors} sectors");
    }
}
