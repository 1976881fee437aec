//! Everything that reads untrusted input, fed arbitrary and almost-valid
//! input: positions, moves and sector names parse or are refused (never a
//! panic, and what parses prints back to itself), and a real solved table
//! with random damage opens and reads or fails, never giving a value that
//! differs from the undamaged table's.

use moulin::solve::solve_moving_in_memory;
use moulin::write::{encode_table, WriteOptions};
use moulin_core::table::Table;
use moulin_probe::{Move, Position, Rules, Sector};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::sync::OnceLock;

/// The solved 3v3 table (codes and file bytes), in small blocks so that a
/// damage hits one block among many.
fn table() -> &'static (Vec<u16>, Vec<u8>) {
    static TABLE: OnceLock<(Vec<u16>, Vec<u8>)> = OnceLock::new();
    TABLE.get_or_init(|| {
        let rules = Rules::default();
        let solved = solve_moving_in_memory(&rules, 3);
        let s = Sector::moving(3, 3);
        let codes = solved.get(s).expect("3v3 solved").to_vec();
        let options = WriteOptions {
            level: 3,
            block_bytes: 8 * 1024,
            ..WriteOptions::default()
        };
        let bytes = encode_table(s, rules, &codes, &options).unwrap();
        (codes, bytes)
    })
}

/// Reads a possibly damaged table every way there is; each value read must
/// be the undamaged table's.
fn read_back(bytes: &[u8], codes: &[u16], changed: bool) -> Result<(), TestCaseError> {
    let Ok(table) = Table::new(bytes) else {
        return Ok(());
    };
    let slots = table.slots();
    prop_assert_eq!(slots as usize, codes.len());
    match table.decode_all() {
        Ok(all) => {
            prop_assert!(!changed, "a damaged table decoded whole");
            prop_assert!(all == codes);
        }
        Err(_) => prop_assert!(changed),
    }
    let step = (slots / 97).max(1);
    for slot in (0..slots).step_by(step as usize).chain([slots - 1, slots]) {
        if let Ok(code) = table.get(slot) {
            prop_assert_eq!(Some(&code), codes.get(slot as usize), "slot {}", slot);
        }
    }
    Ok(())
}

/// Position texts made of real point names, often valid, often not (a
/// point twice, too many stones, hands the alternation cannot produce).
fn position_text() -> impl Strategy<Value = String> {
    let points = || proptest::collection::vec(0..24usize, 0..11);
    (
        points(),
        points(),
        any::<bool>(),
        proptest::option::of((0..11u8, 0..11u8)),
    )
        .prop_map(|(white, black, black_to_move, hands)| {
            let names = |list: Vec<usize>| {
                list.iter()
                    .map(|&i| moulin_core::board::POINT_NAMES[i])
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let side = if black_to_move { "b" } else { "w" };
            let mut t = format!("W:{} B:{} {side}", names(white), names(black));
            if let Some((w, b)) = hands {
                t.push_str(&format!(" {w} {b}"));
            }
            t
        })
}

const POSITION_LIKE: &str =
    "[WB ]{0,2}:[a-h0-8,]{0,30} [WBw]:[a-h0-8,]{0,30} [wbx ]{0,2}( [0-9]{1,2} [0-9]{1,2})?";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn positions_parse_or_are_refused(
        text in any::<String>(),
        near in POSITION_LIKE,
        built in position_text(),
    ) {
        for t in [&text, &near, &built] {
            if let Ok(pos) = t.parse::<Position>() {
                prop_assert!(pos.validate().is_ok());
                let again: Position = pos.to_string().parse().expect("printed positions parse");
                prop_assert_eq!(again, pos);
            }
        }
    }

    #[test]
    fn moves_parse_or_are_refused(
        text in any::<String>(),
        near in "[a-h][0-8](-[a-h][0-8])?(x[a-h][0-8])?[x-]?",
    ) {
        for t in [&text, &near] {
            if let Ok(m) = t.parse::<Move>() {
                prop_assert_eq!(m.to_string().parse::<Move>().expect("printed moves parse"), m);
            }
        }
    }

    #[test]
    fn sector_names_parse_or_are_refused(
        text in any::<String>(),
        near in "[0-9]{1,3}v[0-9]{1,3}(h[0-9]{1,3}v[0-9]{1,3})?",
    ) {
        for t in [&text, &near] {
            if let Ok(s) = t.parse::<Sector>() {
                prop_assert!(s.is_valid());
                prop_assert_eq!(&s.name(), t);
            }
        }
    }

    #[test]
    fn arbitrary_bytes_are_not_a_table(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let (codes, _) = table();
        read_back(&bytes, codes, true)?;
    }

    #[test]
    fn a_valid_header_with_arbitrary_data(tail in proptest::collection::vec(any::<u8>(), 0..4000)) {
        let (codes, good) = table();
        let mut bytes = good[..128].to_vec();
        bytes.extend(tail);
        read_back(&bytes, codes, true)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn damaged_real_tables_never_give_a_wrong_value(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        cut in proptest::option::weighted(0.1, any::<prop::sample::Index>()),
    ) {
        let (codes, good) = table();
        let mut bytes = good.clone();
        for (at, x) in &edits {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if let Some(at) = cut {
            bytes.truncate(at.index(bytes.len()));
        }
        let changed = bytes != *good;
        read_back(&bytes, codes, changed)?;
    }
}

#[test]
fn built_positions_are_often_valid() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let valid = (0..1000)
        .filter(|_| {
            let t = position_text().new_tree(&mut runner).unwrap().current();
            t.parse::<Position>().is_ok()
        })
        .count();
    assert!(valid > 50, "{valid} of 1000 valid");
}

#[test]
fn the_undamaged_table_reads_back() {
    let (codes, good) = table();
    let table = Table::new(good.as_slice()).unwrap();
    assert!(
        table.summary().blocks > 10,
        "blocks: {}",
        table.summary().blocks
    );
    assert_eq!(table.decode_all().unwrap(), *codes);
}
