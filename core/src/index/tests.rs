//! Tests of the index: ranks against their definitions, round trips, counts.

use super::*;

/// The plain ranker gives `Frame::slot` for every opponent set of up to
/// 9 stones with a plain frame (a sample of them) and every mover's set
/// beside it (a sample), of each size; and so does the code of a set less
/// one of its points, taken from the set's code and the point's.
#[test]
fn the_plain_ranker_ranks_as_the_frame() {
    let ix = Indexer::get();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut random_set = |k: usize, taken: Bitboard| {
        let mut set: Bitboard = 0;
        while set.count_ones() < k as u32 {
            let p = (random() % POINTS as u64) as u32;
            if taken & (1 << p) == 0 {
                set |= 1 << p;
            }
        }
        set
    };
    let (mut checked, mut plain, mut not_plain, mut removed) = (0, 0, 0, 0);
    for b in 0..=9 {
        for _ in 0..200 {
            let them = random_set(b, 0);
            let frame = ix.frame(them);
            for a in 0..=9.min(POINTS - b) {
                let Some(ranker) = PlainRanker::new(&frame, a) else {
                    not_plain += 1;
                    continue;
                };
                plain += 1;
                for _ in 0..20 {
                    let us = random_set(a, them);
                    assert_eq!(ranker.slot(us), frame.slot(us), "{them:x} {us:x}");
                    checked += 1;
                    let Some(less) = a.checked_sub(1).and_then(|a| PlainRanker::new(&frame, a))
                    else {
                        continue;
                    };
                    for p in crate::board::points(us) {
                        let code = less.code(us) ^ less.point_code(p.index());
                        let fewer = us ^ p.bit();
                        assert_eq!(
                            less.slot_of_code(code),
                            frame.slot(fewer),
                            "{them:x} {fewer:x}"
                        );
                        removed += 1;
                    }
                }
            }
        }
    }
    assert!(
        plain > 1000 && not_plain > 10 && checked > 20_000 && removed > 50_000,
        "{plain} {not_plain} {checked} {removed}"
    );
}

/// The least slot of a frame's image rankers is `Frame::slot`, for every
/// orbit of up to 9 stones whose representative a symmetry other than the
/// identity fixes (seen through a few of its images, so that the frame's
/// own symmetry varies) and a sample of mover's sets of each size; for a
/// plain frame there is one image ranker.
#[test]
fn the_image_rankers_rank_as_the_frame() {
    let ix = Indexer::get();
    let sym = Symmetries::get();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut checked, mut symmetric) = (0, 0);
    for b in 0..=9 {
        for orbit in 0..ix.orbits(b) {
            let rep = ix.representative(b, orbit).expect("an orbit");
            let g = Symmetry((random() % SYMMETRY_COUNT as u64) as u8);
            let them = sym.map(g, rep);
            let frame = ix.frame(them);
            let images = (0..=9.min(POINTS - b)).map(|a| (a, PlainRanker::images(&frame, a)));
            if frame.is_plain() {
                if random() % 64 == 0 {
                    assert!(images.into_iter().all(|(_, r)| r.len() == 1));
                }
                continue;
            }
            symmetric += 1;
            for (a, rankers) in images {
                assert_eq!(rankers.len(), frame.stabiliser.count_ones() as usize);
                for _ in 0..4 {
                    let mut us: Bitboard = 0;
                    while us.count_ones() < a as u32 {
                        let p = (random() % POINTS as u64) as u32;
                        if them & (1 << p) == 0 {
                            us |= 1 << p;
                        }
                    }
                    let least = rankers.iter().map(|r| r.slot(us)).min();
                    assert_eq!(least, Some(frame.slot(us)), "{them:x} {us:x}");
                    checked += 1;
                }
            }
        }
    }
    assert!(
        symmetric > 1000 && checked > 20_000,
        "{symmetric} {checked}"
    );
}

/// `slots_beside` gives `Frame::slot` of every class of some sectors,
/// mover-major as the passes call it (the opponent's sets symmetric under
/// the mover's stabiliser included), and of random sets of mixed sizes.
#[test]
fn slots_beside_rank_as_the_frame() {
    let ix = Indexer::get();
    let mut out = Vec::new();
    let (mut checked, mut symmetric) = (0, 0);
    for s in [
        Sector::moving(3, 3),
        Sector::moving(4, 4),
        Sector::moving(5, 3),
        Sector::moving(2, 6),
    ] {
        for orbit in 0..ix.orbits(s.stm_board as usize) {
            let mut them = Vec::new();
            let mut mover = 0;
            ix.for_each_class_of_mover(s, orbit, |u, t, _| {
                mover = u;
                them.push(t);
            });
            ix.slots_beside(mover, &them, &mut out);
            assert_eq!(out.len(), them.len());
            for (&t, &slot) in them.iter().zip(&out) {
                assert_eq!(slot, ix.frame(t).slot(mover), "{s}: {mover:x} {t:x}");
                symmetric += usize::from(!ix.frame(t).is_plain());
                checked += 1;
            }
        }
    }
    let mut x = 0x9E37_79B9u32;
    let at_most_nine = |mut set: Bitboard| {
        while set.count_ones() > 9 {
            set &= set - 1;
        }
        set
    };
    for _ in 0..2_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let us = at_most_nine(x & crate::board::ALL_POINTS & (x >> 4 | x >> 9));
        let them: Vec<Bitboard> = (0..40u32)
            .map(|k| x.rotate_left(k) ^ k.wrapping_mul(0x2f1d_a3b5))
            .map(|t| at_most_nine(t & !us & crate::board::ALL_POINTS))
            .collect();
        ix.slots_beside(us, &them, &mut out);
        for (&t, &slot) in them.iter().zip(&out) {
            assert_eq!(slot, ix.frame(t).slot(us), "{us:x} {t:x}");
            checked += 1;
        }
    }
    assert!(
        checked > 100_000 && symmetric > 1_000,
        "{checked} {symmetric}"
    );
}

/// Mover-major, every class of a sector comes once, with its size:
/// the slots reached are exactly the canonical ones.
#[test]
fn classes_of_mover_cover_each_class_once() {
    let ix = Indexer::get();
    let sectors = [
        Sector::moving(3, 3),
        Sector::moving(4, 3),
        Sector::moving(3, 5),
        Sector {
            stm_board: 2,
            opp_board: 0,
            stm_hand: 7,
            opp_hand: 8,
        },
        Sector {
            stm_board: 4,
            opp_board: 4,
            stm_hand: 1,
            opp_hand: 1,
        },
    ];
    for s in sectors {
        let slots = ix.slots(s);
        let mut seen = vec![false; slots as usize];
        let (mut classes, mut positions) = (0u64, 0u64);
        for orbit in 0..ix.orbits(s.stm_board as usize) {
            ix.for_each_class_of_mover(s, orbit, |u, t, size| {
                assert_eq!(u & t, 0);
                assert_eq!(t.count_ones(), s.opp_board as u32);
                let node = Node {
                    us: u,
                    them: t,
                    us_hand: s.stm_hand,
                    them_hand: s.opp_hand,
                };
                let slot = ix.index(&node);
                assert!(!seen[slot as usize], "{s}: slot {slot} twice");
                seen[slot as usize] = true;
                assert_eq!(size, ix.class_size(s, slot), "{s}: slot {slot}");
                classes += 1;
                positions += size as u64;
            });
        }
        for (slot, &seen) in seen.iter().enumerate() {
            assert_eq!(seen, ix.is_canonical(s, slot as u64), "{s}: slot {slot}");
        }
        assert_eq!(classes, count_classes(s), "{s}");
        assert_eq!(positions, count_positions(s), "{s}");
    }
}

#[test]
fn binomials() {
    assert_eq!(BINOMIAL[24][12], 2_704_156);
    assert_eq!(BINOMIAL[5][0], 1);
    assert_eq!(BINOMIAL[3][5], 0);
}

#[test]
fn colex_round_trip() {
    let taken = 0b1011_0000_0000_0000_0110_0001;
    let free = 24 - 7;
    for (k, &count) in BINOMIAL[free].iter().enumerate().take(4) {
        for rank in 0..count {
            let set = colex_unrank_among_free(rank, k, taken);
            assert_eq!(set & taken, 0);
            assert_eq!(set.count_ones() as usize, k);
            assert_eq!(colex_rank(compress(set, taken)), rank);
        }
    }
}

#[test]
fn unrank_by_counting_matches_the_definition() {
    let mut x = 0x2545_F491u32;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let taken = x & crate::board::ALL_POINTS & (x >> 3 | x >> 7);
        let free = 24 - taken.count_ones() as usize;
        let k = (x >> 24) as usize % 10;
        let count = BINOMIAL[free][k];
        if count == 0 {
            continue;
        }
        for rank in [
            0,
            count - 1,
            u64::from(x) % count,
            u64::from(x >> 5) % count,
        ] {
            let set = expand(colex_unrank(rank, k), taken);
            assert_eq!(
                set,
                colex_unrank_among_free(rank, k, taken),
                "{rank} {k} {taken:#x}"
            );
        }
    }
    // Every rank of every size among all 24 points, against colex_rank.
    for (k, &count) in BINOMIAL[24].iter().enumerate().take(5) {
        for rank in 0..count {
            let set = colex_unrank(rank, k);
            assert_eq!(set.count_ones() as usize, k);
            assert_eq!(colex_rank(set), rank);
        }
    }
}

#[test]
fn orbit_counts_match_burnside() {
    let ix = Indexer::get();
    for k in 0..=9u8 {
        let classes = count_classes(Sector::moving(k, 0));
        assert_eq!(ix.orbits(k as usize), classes, "sets of {k} points");
    }
}

/// The 16 images of a position under the board's symmetries.
fn images(node: &Node) -> impl Iterator<Item = Node> + '_ {
    let sym = Symmetries::get();
    Symmetries::all().map(move |g| Node {
        us: sym.map(g, node.us),
        them: sym.map(g, node.them),
        ..*node
    })
}

/// Every slot's class size, counted a table at a time, is the number of
/// distinct images of its position (holes included: their position has
/// one too), from any first slot; past the sector's end it is 0.
#[test]
fn class_sizes_count_the_distinct_images() {
    let ix = Indexer::get();
    for sector in [
        Sector::moving(3, 2),
        Sector::moving(2, 4),
        Sector::moving(4, 4),
        Sector::moving(0, 8),
        "4v4h1v1".parse().unwrap(),
    ] {
        let n = ix.slots(sector);
        let mut sizes = Vec::new();
        ix.class_sizes(sector, 0..n + 3, |slot, size| sizes.push((slot, size)));
        assert_eq!(sizes.len() as u64, n + 3, "{sector}");
        let mut symmetric = 0;
        for &(slot, size) in &sizes[..n as usize] {
            let node = ix.unindex(sector, slot).unwrap();
            let mut distinct: Vec<(Bitboard, Bitboard)> =
                images(&node).map(|m| (m.us, m.them)).collect();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(size as usize, distinct.len(), "{sector}: slot {slot}");
            assert_eq!(size, ix.class_size(sector, slot), "{sector}: slot {slot}");
            symmetric += u32::from(size < 16);
        }
        assert!(symmetric > 0, "{sector}: no symmetric position tried");
        assert!(sizes[n as usize..].iter().all(|&(_, size)| size == 0));
        // From the middle of an orbit block.
        let from = n / 3 + 1;
        let mut tail = Vec::new();
        ix.class_sizes(sector, from..n, |slot, size| tail.push((slot, size)));
        assert_eq!(tail, sizes[from as usize..n as usize], "{sector}");
    }
}

#[test]
fn symmetric_images_share_a_slot_and_canonical_slots_count_classes() {
    let ix = Indexer::get();
    for sector in [
        Sector::moving(3, 2),
        Sector::moving(2, 4),
        Sector::moving(4, 4),
    ] {
        let mut canonical = 0;
        for slot in 0..ix.slots(sector) {
            let node = ix.unindex(sector, slot).unwrap();
            assert_eq!(Sector::of(&node), sector);
            let own = ix.index(&node);
            if own == slot {
                canonical += 1;
            }
            if slot % 7 == 0 {
                for image in images(&node) {
                    assert_eq!(ix.index(&image), own);
                }
            }
        }
        assert_eq!(canonical, count_classes(sector), "{sector}");
    }
}

#[test]
fn compress_by_bytes_matches_the_definition_and_expand_undoes_it() {
    let mut x = 0x9E37_79B9u32;
    for _ in 0..200_000 {
        // xorshift: random disjoint pairs of sets, sparse and dense
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let taken = x & crate::board::ALL_POINTS & (x >> 3 | x >> 7);
        let set = (x.rotate_left(11) ^ x) & crate::board::ALL_POINTS & !taken;
        assert_eq!(
            compress(set, taken),
            compress_by_points(set, taken),
            "{set:#x} {taken:#x}"
        );
        // ... and `expand` undoes it.
        assert_eq!(
            expand(compress(set, taken), taken),
            set,
            "{set:#x} {taken:#x}"
        );
    }
    let all = crate::board::ALL_POINTS;
    assert_eq!(compress(all, 0), all);
    assert_eq!(compress(0, all), 0);
    assert_eq!(compress(1 << 23, all >> 1), 1);
}

#[test]
fn positions_iterate_like_unindex() {
    let ix = Indexer::get();
    for sector in [
        Sector::moving(3, 3),
        Sector::moving(0, 2),
        Sector::moving(2, 0),
        Sector::moving(4, 5),
    ] {
        let n = ix.slots(sector);
        for (start, end) in [(0, n), (n / 3, n / 3 + 1000), (n.saturating_sub(5), n + 10)] {
            let got: Vec<_> = ix.positions(sector, start..end).collect();
            let want: Vec<_> = (start..end.min(n))
                .map(|s| (s, ix.unindex(sector, s).unwrap()))
                .collect();
            assert_eq!(got, want, "{sector} {start}..{end}");
        }
    }
}

/// The mover-major numbering gives every class of a sector one slot, the
/// same for each of its positions, below `slots_in`, and a slot that is not
/// a hole of the mirrored sector's numbering; no two classes share one.
/// Renumbering a table there and back gives it again, holes aside.
#[test]
fn mover_major_numbers_each_class_once_and_renumbers_both_ways() {
    let ix = Indexer::get();
    for sector in [
        Sector::moving(3, 3),
        Sector::moving(2, 4),
        Sector::moving(4, 2),
        Sector::moving(5, 3),
        Sector {
            stm_board: 1,
            opp_board: 2,
            stm_hand: 3,
            opp_hand: 2,
        },
    ] {
        let mirrored = sector.mirrored();
        let slots = ix.slots_in(sector, MOVER_MAJOR) as usize;
        assert_eq!(slots as u64, ix.slots(mirrored));
        let mut owner = vec![u64::MAX; slots];
        let mut classes = 0;
        for slot in 0..ix.slots(sector) {
            let node = ix.unindex(sector, slot).unwrap();
            let mm = ix.index_in(&node, MOVER_MAJOR);
            assert!(mm < slots as u64, "{sector} slot {slot}");
            for image in images(&node) {
                assert_eq!(ix.index_in(&image, MOVER_MAJOR), mm, "{sector} slot {slot}");
            }
            if ix.index(&node) != slot {
                continue; // a hole of the opponent-major numbering
            }
            classes += 1;
            assert_eq!(
                owner[mm as usize],
                u64::MAX,
                "{sector}: two classes at {mm}"
            );
            owner[mm as usize] = slot;
            assert!(ix.is_canonical(mirrored, mm), "{sector} slot {slot}");
        }
        assert_eq!(classes, count_classes(sector), "{sector}");
        let holes = owner.iter().filter(|&&o| o == u64::MAX).count() as u64;
        assert_eq!(slots as u64 - holes, count_classes(mirrored), "{sector}");

        // There and back, in runs of odd lengths.
        let table: Vec<u64> = (0..ix.slots(sector)).collect();
        let mut there = vec![0; slots];
        for (i, run) in there.chunks_mut(37).enumerate() {
            ix.renumber(mirrored, 37 * i as u64, run, &table, u64::MAX);
        }
        assert_eq!(there, owner, "{sector}");
        let mut back = vec![0; table.len()];
        for (i, run) in back.chunks_mut(101).enumerate() {
            ix.renumber(sector, 101 * i as u64, run, &there, u64::MAX);
        }
        for (slot, &v) in back.iter().enumerate() {
            let canonical = ix.is_canonical(sector, slot as u64);
            assert_eq!(
                v,
                if canonical { slot as u64 } else { u64::MAX },
                "{sector}"
            );
        }
    }
}

/// The tables built set by set, each set's 16 images compared (the
/// definition, sixteen times the work): the orbit-by-orbit build gives the
/// same entries, representatives and stabilisers.
#[test]
fn the_tables_built_by_orbit_equal_those_built_set_by_set() {
    let by_set = build_set_by_set();
    let by_orbit = Indexer::build();
    assert_eq!(by_orbit.base, by_set.base);
    assert_eq!(by_orbit.reps, by_set.reps);
    assert_eq!(by_orbit.stabilisers, by_set.stabilisers);
    assert!(by_orbit.entries == by_set.entries);
}

fn build_set_by_set() -> Indexer {
    let sym = Symmetries::get();
    let mut base = [0; MAX_STONES + 2];
    for k in 0..=MAX_STONES {
        base[k + 1] = base[k] + BINOMIAL[POINTS][k] as usize;
    }
    let mut entries = vec![0u32; base[MAX_STONES + 1]];
    let mut reps = Vec::new();
    let mut stabilisers = Vec::new();
    for k in 0..=MAX_STONES {
        let mut rep_of = Vec::with_capacity(BINOMIAL[POINTS][k] as usize);
        let mut k_reps = Vec::new();
        let mut k_stabs = Vec::new();
        // Sets of k points in increasing numeric order = colex order.
        let mut set: u32 = if k == 0 { 0 } else { (1 << k) - 1 };
        for _ in 0..BINOMIAL[POINTS][k] {
            let (mut best, mut best_sym, mut fixed) = (set, 0u8, 0u16);
            for s in Symmetries::all() {
                let image = sym.map(s, set);
                if image == set {
                    fixed |= 1 << s.0;
                }
                if image < best {
                    best = image;
                    best_sym = s.0;
                }
            }
            if best == set {
                k_reps.push(set);
                k_stabs.push(fixed);
            }
            rep_of.push((best, best_sym, fixed != 1));
            if k == 0 {
                break;
            }
            // Next set with the same number of points (Gosper's hack).
            let c = set & set.wrapping_neg();
            let r = set + c;
            set = (((r ^ set) >> 2) / c) | r;
        }
        for (rank, (rep, s, stab)) in rep_of.into_iter().enumerate() {
            let orbit = k_reps
                .binary_search(&rep)
                .expect("representative is listed");
            entries[base[k] + rank] =
                s as u32 | if stab { STAB_FLAG } else { 0 } | (orbit as u32) << ORBIT_SHIFT;
        }
        reps.push(k_reps);
        stabilisers.push(k_stabs);
    }
    Indexer {
        base,
        entries,
        reps,
        stabilisers,
    }
}

/// `unindex_each` is `unindex` slot by slot, for slots all over sectors of
/// every size, past their ends and in sectors with too many stones.
#[test]
fn unindex_each_is_unindex_slot_by_slot() {
    let ix = Indexer::get();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut checked = 0;
    for a in 0..=10u8 {
        for b in 0..=10u8 {
            let sector = Sector::moving(a, b);
            let n = ix.slots(sector).max(1);
            for _ in 0..50 {
                let slots: [u64; 4] = std::array::from_fn(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x % (n + n / 8 + 2)
                });
                let each = ix.unindex_each(sector, slots);
                for (&slot, node) in slots.iter().zip(each) {
                    assert_eq!(node, ix.unindex(sector, slot), "{sector} {slot}");
                    checked += usize::from(node.is_some());
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}
