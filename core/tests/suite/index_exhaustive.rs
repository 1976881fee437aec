//! Exhaustive check of the index on small sectors: positions are enumerated
//! by plain bit enumeration and reduced to their class by a canonicalisation
//! written here, independently of the `Indexer` (the least of the 16 images
//! of the `(us, them)` pair, compared on `us` first). Then:
//! - the number of classes equals `count_classes` and the number of
//!   canonical slots;
//! - every position of a class gets the class's slot;
//! - distinct classes get distinct slots, each below `slots(sector)`, and
//!   exactly those slots are canonical; a canonical slot decodes to its class;
//! - the class sizes (orbit-stabiliser, counted here) add up to
//!   `count_positions`, and so do the `class_size`s of the canonical slots.

use moulin_core::index::{count_classes, count_positions, Indexer};
use moulin_core::Sector;
use moulin_core::{Node, Symmetries};

/// Byte tables of the 16 point permutations, built from the permutations
/// alone (not from `Symmetries::map`).
struct Images {
    bytes: Vec<[[u32; 256]; 3]>,
}

impl Images {
    fn new() -> Images {
        let sym = Symmetries::get();
        let bytes = Symmetries::all()
            .map(|s| {
                let perm = sym.permutation(s);
                let mut t = [[0u32; 256]; 3];
                for (chunk, table) in t.iter_mut().enumerate() {
                    for (byte, out) in table.iter_mut().enumerate() {
                        for bit in 0..8 {
                            if byte & (1 << bit) != 0 {
                                *out |= 1 << perm[chunk * 8 + bit];
                            }
                        }
                    }
                }
                t
            })
            .collect();
        Images { bytes }
    }

    fn map(&self, s: usize, bb: u32) -> u32 {
        let t = &self.bytes[s];
        t[0][(bb & 0xff) as usize] | t[1][((bb >> 8) & 0xff) as usize] | t[2][(bb >> 16) as usize]
    }
}

fn key(us: u32, them: u32) -> u64 {
    (us as u64) << 24 | them as u64
}

/// Calls `visit` with every set of `k` points among the `n` lowest bits
/// (`n` <= 24), in increasing order.
fn for_each_subset(n: u32, k: u32, mut visit: impl FnMut(u32)) {
    if k > n {
        return;
    }
    if k == 0 {
        visit(0);
        return;
    }
    let mut set: u32 = (1 << k) - 1;
    while set < 1 << n {
        visit(set);
        let c = set & set.wrapping_neg();
        let r = set + c;
        set = (((r ^ set) >> 2) / c) | r;
    }
}

/// Spreads the bits of a compact set onto the points listed in `free`.
fn deposit(mut compact: u32, free: &[u32]) -> u32 {
    let mut out = 0;
    while compact != 0 {
        out |= 1 << free[compact.trailing_zeros() as usize];
        compact &= compact - 1;
    }
    out
}

fn check_sector(sector: Sector) {
    let ix = Indexer::get();
    let images = Images::new();
    let (a, b) = (sector.stm_board as u32, sector.opp_board as u32);
    let slots = ix.slots(sector);
    let mut seen = vec![false; slots as usize];
    let mut positions = 0u64;
    let mut classes = 0u64;
    let node = |us, them| Node {
        us,
        them,
        us_hand: sector.stm_hand,
        them_hand: sector.opp_hand,
    };
    for_each_subset(24, a, |us| {
        let us_images: Vec<u32> = (0..16).map(|s| images.map(s, us)).collect();
        // Keys compare the mover's stones first, so a position can only be
        // the least of its images when `us` is the least image of itself,
        // and then only the symmetries fixing `us` can give a smaller key.
        if us_images.iter().any(|&img| img < us) {
            return;
        }
        let fixing: Vec<usize> = (0..16).filter(|&s| us_images[s] == us).collect();
        let free: Vec<u32> = (0..24).filter(|p| us & 1 << p == 0).collect();
        for_each_subset(24 - a, b, |compact| {
            let them = deposit(compact, &free);
            let mut fixed = 0;
            for &s in &fixing {
                let img = images.map(s, them);
                if img < them {
                    return;
                }
                fixed += (img == them) as u64;
            }
            // `(us, them)` is the least member of its class: visit the class.
            classes += 1;
            positions += 16 / fixed;
            let own = key(us, them);
            let slot = ix.index(&node(us, them));
            assert!(slot < slots, "{sector}: slot {slot} out of {slots}");
            assert!(
                !seen[slot as usize],
                "{sector}: two classes share slot {slot}"
            );
            seen[slot as usize] = true;
            for (s, &img) in us_images.iter().enumerate() {
                let image = node(img, images.map(s, them));
                assert_eq!(ix.index(&image), slot, "{sector}: class members differ");
            }
            let stored = ix.unindex(sector, slot).expect("slot decodes");
            let stored_key = (0..16)
                .map(|s| key(images.map(s, stored.us), images.map(s, stored.them)))
                .min()
                .unwrap();
            assert_eq!(
                stored_key, own,
                "{sector}: slot {slot} decodes to another class"
            );
            assert_eq!(
                ix.class_size(sector, slot) as u64,
                16 / fixed,
                "{sector}: class size"
            );
        });
    });
    assert_eq!(positions, count_positions(sector), "{sector}: positions");
    assert_eq!(classes, count_classes(sector), "{sector}: classes");
    let mut canonical = 0u64;
    let mut total_size = 0u64;
    for slot in 0..slots {
        let is_canonical = ix.is_canonical(sector, slot);
        assert_eq!(is_canonical, seen[slot as usize], "{sector}: slot {slot}");
        if is_canonical {
            canonical += 1;
            total_size += ix.class_size(sector, slot) as u64;
        } else {
            // A hole still decodes to a valid position of the sector.
            let hole = ix.unindex(sector, slot).expect("a hole decodes");
            assert_eq!(Sector::of(&hole), sector);
            assert_eq!(hole.us & hole.them, 0);
        }
    }
    assert_eq!(canonical, classes, "{sector}: canonical slots");
    assert_eq!(total_size, positions, "{sector}: sum of class sizes");
    assert_eq!(
        ix.unindex(sector, slots),
        None,
        "{sector}: past the last slot"
    );
}

#[test]
fn three_v_three() {
    check_sector(Sector::moving(3, 3));
}

#[test]
fn four_v_three() {
    check_sector(Sector::moving(4, 3));
}

#[test]
fn three_v_four() {
    check_sector(Sector::moving(3, 4));
}

/// The largest sectors here (slow; run with `--ignored`).
#[test]
#[ignore]
fn four_v_four() {
    check_sector(Sector::moving(4, 4));
}

#[test]
#[ignore]
fn five_v_three() {
    check_sector(Sector::moving(5, 3));
}

#[test]
fn placement_sectors() {
    for (a, b, hs, ho) in [
        (2, 1, 5, 5),
        (2, 2, 6, 6),
        (0, 1, 9, 8),
        (1, 1, 8, 8),
        (0, 0, 9, 9),
    ] {
        check_sector(Sector {
            stm_board: a,
            opp_board: b,
            stm_hand: hs,
            opp_hand: ho,
        });
    }
}
