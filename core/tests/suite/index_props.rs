//! Property tests of the index on random positions and slots of every size:
//! round trips up to symmetry, one slot per class, slots in range, and
//! every slot decoding to a position of its sector (a class's own or a hole).

use moulin_core::index::Indexer;
use moulin_core::Sector;
use moulin_core::{Node, Symmetries};
use proptest::prelude::*;

/// Whether some symmetry maps `a` onto `b`.
fn same_class(a: &Node, b: &Node) -> bool {
    let sym = Symmetries::get();
    a.us_hand == b.us_hand
        && a.them_hand == b.them_hand
        && Symmetries::all().any(|s| sym.map(s, a.us) == b.us && sym.map(s, a.them) == b.them)
}

/// Positions with 0..=9 stones a side on distinct points, hands included.
fn node() -> impl Strategy<Value = Node> {
    (
        Just((0u32..24).collect::<Vec<_>>()).prop_shuffle(),
        0usize..=9,
        0usize..=9,
        0u8..=9,
        0u8..=1,
    )
        .prop_map(|(points, a, b, hand, extra)| {
            let set = |ps: &[u32]| ps.iter().fold(0, |acc, p| acc | 1 << p);
            Node {
                us: set(&points[..a]),
                them: set(&points[a..a + b]),
                us_hand: hand,
                them_hand: hand.saturating_sub(extra),
            }
        })
}

/// Moving-phase positions, mostly in the larger sectors where the index is used most.
fn moving_node() -> impl Strategy<Value = Node> {
    (
        Just((0u32..24).collect::<Vec<_>>()).prop_shuffle(),
        3usize..=9,
        3usize..=9,
    )
        .prop_map(|(points, a, b)| {
            let set = |ps: &[u32]| ps.iter().fold(0, |acc, p| acc | 1 << p);
            Node {
                us: set(&points[..a]),
                them: set(&points[a..a + b]),
                us_hand: 0,
                them_hand: 0,
            }
        })
}

/// A sector (of the game or not: the index depends only on the stones on
/// the board) and a slot drawn from all of its slots.
fn sector_and_slot() -> impl Strategy<Value = (Sector, u64)> {
    (0u8..=9, 0u8..=9, 0u8..=9, any::<u64>()).prop_map(|(a, b, hand, r)| {
        let sector = Sector {
            stm_board: a,
            opp_board: b,
            stm_hand: hand,
            opp_hand: hand,
        };
        let slots = Indexer::get().slots(sector);
        (sector, r % slots)
    })
}

fn check_node(node: &Node) -> Result<(), TestCaseError> {
    let ix = Indexer::get();
    let sym = Symmetries::get();
    let sector = Sector::of(node);
    let slot = ix.index(node);
    prop_assert!(slot < ix.slots(sector), "slot {} of {}", slot, sector);
    let back = ix.unindex(sector, slot).expect("a slot decodes");
    prop_assert!(
        same_class(node, &back),
        "{:?} came back as {:?}",
        node,
        back
    );
    prop_assert!(ix.is_canonical(sector, slot));
    prop_assert_eq!(ix.canonical(node), back);
    let mut images = Vec::new();
    for s in Symmetries::all() {
        let image = Node {
            us: sym.map(s, node.us),
            them: sym.map(s, node.them),
            ..*node
        };
        prop_assert_eq!(ix.index(&image), slot, "image under {:?}", s);
        images.push((image.us, image.them));
    }
    let fixed = images
        .iter()
        .filter(|&&im| im == (node.us, node.them))
        .count() as u32;
    prop_assert_eq!(ix.stabiliser_size(node), fixed);
    images.sort_unstable();
    images.dedup();
    prop_assert_eq!(ix.class_size(sector, slot), images.len() as u32);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_position_comes_back_up_to_symmetry(node in node()) {
        check_node(&node)?;
    }

    #[test]
    fn moving_phase_positions_come_back_up_to_symmetry(node in moving_node()) {
        check_node(&node)?;
    }

    #[test]
    fn every_slot_decodes_to_a_position_of_its_sector((sector, slot) in sector_and_slot()) {
        let ix = Indexer::get();
        prop_assert!(slot < ix.slots(sector));
        let node = ix.unindex(sector, slot).expect("a slot below `slots` decodes");
        prop_assert_eq!(Sector::of(&node), sector);
        prop_assert_eq!(node.us & node.them, 0);
        prop_assert_eq!((node.us | node.them) >> 24, 0);
        let own = ix.index(&node);
        if ix.is_canonical(sector, slot) {
            prop_assert_eq!(own, slot);
        } else {
            // A hole: its position belongs to the class stored at another slot.
            prop_assert_ne!(own, slot);
            let stored = ix.unindex(sector, own).unwrap();
            prop_assert!(same_class(&node, &stored));
            prop_assert!(ix.is_canonical(sector, own));
        }
    }

    #[test]
    fn nothing_past_the_last_slot(sector in (0u8..=9, 0u8..=9).prop_map(|(a, b)| Sector::moving(a, b)), past in 0u64..1000) {
        let ix = Indexer::get();
        prop_assert_eq!(ix.unindex(sector, ix.slots(sector) + past), None);
    }
}
