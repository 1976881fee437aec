//! A tablebase's tables by sector, found by one table lookup: every probe
//! and every move's value looks its sector up first. A sector's four
//! counts are at most nine each, so a sector is a number below 10,000.

use moulin_core::sector::Sector;

/// Numbers per count of a sector (0 to 9).
const BASE: usize = 10;
/// No value at this sector.
const NONE: u16 = u16::MAX;

/// Values by sector, in sector order (that of `Sector`'s `Ord`).
pub(super) struct BySector<T> {
    /// The sectors and their values, in sector order.
    items: Vec<(Sector, T)>,
    /// Per sector number, the place of its item in `items`, or `NONE`.
    place: Box<[u16]>,
}

/// The sector's counts as digits, in the order of the fields (which
/// `Sector`'s `Ord` compares in turn, so numbers keep the sectors' order);
/// `None` for a count past nine, which no table has.
fn number(s: &Sector) -> Option<usize> {
    [s.stm_board, s.opp_board, s.stm_hand, s.opp_hand]
        .into_iter()
        .try_fold(0, |n, c| {
            (usize::from(c) < BASE).then(|| n * BASE + usize::from(c))
        })
}

impl<T> BySector<T> {
    /// The value of a sector.
    #[inline]
    pub fn get(&self, sector: &Sector) -> Option<&T> {
        match self.place[number(sector)?] {
            NONE => None,
            i => Some(&self.items[usize::from(i)].1),
        }
    }

    /// Whether a sector has a value.
    pub fn contains_key(&self, sector: &Sector) -> bool {
        self.get(sector).is_some()
    }

    /// Whether no sector has a value (asked of directories, which the
    /// browser build does not open).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The sectors and their values, in sector order.
    pub fn iter(&self) -> impl Iterator<Item = (&Sector, &T)> {
        self.items.iter().map(|(s, v)| (s, v))
    }
}

impl<T> FromIterator<(Sector, T)> for BySector<T> {
    /// The last value given for a sector counts; a sector with a count
    /// past nine is left out (no lookup can reach it).
    fn from_iter<I: IntoIterator<Item = (Sector, T)>>(iter: I) -> BySector<T> {
        let mut numbered: Vec<(usize, Sector, T)> = iter
            .into_iter()
            .filter_map(|(s, v)| Some((number(&s)?, s, v)))
            .collect();
        numbered.sort_by_key(|&(n, _, _)| n);
        let mut place = vec![NONE; BASE.pow(4)].into_boxed_slice();
        let mut items: Vec<(Sector, T)> = Vec::with_capacity(numbered.len());
        for (n, s, v) in numbered {
            match place[n] {
                NONE => {
                    place[n] = u16::try_from(items.len()).expect("fewer than 10,000 sectors");
                    items.push((s, v));
                }
                i => items[usize::from(i)].1 = v,
            }
        }
        BySector { items, place }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Every sector of the game and a few impossible ones, against a
    /// `BTreeMap`: the same lookups, the same order.
    #[test]
    fn finds_and_orders_as_a_map() {
        let mut all = Sector::all(true);
        all.reverse();
        let odd: Vec<(Sector, usize)> = all
            .iter()
            .copied()
            .zip(0..)
            .filter(|(_, i)| i % 3 != 1)
            .collect();
        let map: BTreeMap<Sector, usize> = odd.iter().copied().collect();
        let by: BySector<usize> = odd.iter().copied().collect();
        assert!(by
            .iter()
            .map(|(s, v)| (*s, *v))
            .eq(map.iter().map(|(s, v)| (*s, *v))));
        for s in &all {
            assert_eq!(by.get(s), map.get(s), "{s}");
        }
        let far = Sector {
            stm_board: 10,
            opp_board: 3,
            stm_hand: 0,
            opp_hand: 0,
        };
        assert_eq!(by.get(&far), None);
        let only_far: BySector<u8> = [(far, 1)].into_iter().collect();
        assert!(only_far.is_empty() && !only_far.contains_key(&far));
        // The last value given counts.
        let twice: BySector<u8> = [(all[0], 1), (all[1], 2), (all[0], 3)]
            .into_iter()
            .collect();
        assert_eq!(
            (twice.get(&all[0]), twice.get(&all[1])),
            (Some(&3), Some(&2))
        );
        assert_eq!(twice.iter().count(), 2);
    }
}
