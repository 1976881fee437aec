//! Arbitrary bytes through the reader: errors, never panics, never a wrong
//! value from a damaged valid table.

use crate::table_synthetic;

use moulin::write::{encode_table, WriteOptions};
use moulin_core::table::Table;
use moulin_probe::{Rules, Sector};
use proptest::prelude::*;
use std::sync::OnceLock;

/// Reads everything a table offers; only errors may come out.
fn read_all(bytes: &[u8]) -> Option<Vec<Option<u16>>> {
    let table = Table::new(bytes).ok()?;
    let _ = table.check_checksum();
    let _ = table.decode_all();
    let slots = table.slots();
    let probes = [0, slots / 2, slots.saturating_sub(1), slots, u64::MAX];
    Some(probes.iter().map(|&s| table.get(s).ok()).collect())
}

fn valid() -> &'static (Vec<u16>, Vec<u8>) {
    static TABLE: OnceLock<(Vec<u16>, Vec<u8>)> = OnceLock::new();
    TABLE.get_or_init(|| {
        let s: Sector = "1v1h8v8".parse().unwrap();
        let codes = table_synthetic::values(s, 600, 21);
        let options = WriteOptions {
            level: 1,
            block_bytes: 16,
            ..WriteOptions::default()
        };
        let bytes = encode_table(s, Rules::default(), &codes, &options).unwrap();
        (codes, bytes)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_do_not_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        read_all(&bytes);
        // The same bytes behind a valid magic and version.
        let mut framed = b"MOULINTB\x01\x00\x80\x00".to_vec();
        framed.extend(&bytes);
        read_all(&framed);
    }

    #[test]
    fn edited_tables_give_errors_or_right_values(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let (codes, bytes) = valid();
        let mut damaged = bytes.clone();
        for (at, value) in edits {
            let at = at % damaged.len();
            damaged[at] = value;
        }
        if let Some(cut) = cut {
            damaged.truncate(cut % (bytes.len() + 1));
        }
        if let Ok(table) = Table::new(&damaged[..]) {
            if damaged != *bytes {
                prop_assert!(table.decode_all().is_err());
            }
            for (slot, &want) in codes.iter().enumerate() {
                if let Ok(code) = table.get(slot as u64) {
                    prop_assert_eq!(code, want);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Forged headers (edited, their checksum recomputed) reach the deeper
    /// checks: they may give wrong values, but never a panic.
    #[test]
    fn forged_headers_do_not_panic(
        edits in proptest::collection::vec((0usize..124, any::<u8>()), 1..4),
    ) {
        let (_, bytes) = valid();
        let mut forged = bytes.clone();
        for (at, value) in edits {
            forged[at] = value;
        }
        let crc = crc32fast::hash(&forged[..124]);
        forged[124..128].copy_from_slice(&crc.to_le_bytes());
        read_all(&forged);
    }
}
