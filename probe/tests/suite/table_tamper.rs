//! Damaged tables: every damage is an error, never a wrong value, never a panic.

use crate::table_synthetic;

use moulin::write::write_table;
use moulin::write::{encode_table, write_contents, Contents, WriteOptions};
use moulin_core::table::{PlaySide, Table};
use moulin_probe::error::{FileError, ProbeError};
use moulin_probe::{Rules, Sector, Tablebase};
use table_synthetic::{chain, values};

fn small_table() -> (Vec<u16>, Vec<u8>) {
    let s: Sector = "2v2h7v7".parse().unwrap();
    let codes = values(s, 300, 11);
    let options = WriteOptions {
        level: 3,
        block_bytes: 256,
        ..WriteOptions::default()
    };
    let bytes = encode_table(s, Rules::default(), &codes, &options).unwrap();
    (codes, bytes)
}

/// Either the damaged table fails to open, or every read gives the right
/// value or an error, and the full decode or checksum fails.
fn check_damaged(codes: &[u16], bytes: Vec<u8>, what: &str) {
    let Ok(table) = Table::new(bytes) else { return };
    assert!(table.decode_all().is_err(), "{what}: decode_all passed");
    let slots = table.summary().slots as usize;
    if slots <= codes.len() {
        let mut into = vec![0; slots];
        assert!(
            table.decode_into(&mut into).is_err(),
            "{what}: decode_into passed"
        );
    }
    assert!(table.check_checksum().is_err(), "{what}: checksum passed");
    let per = table.summary().block_slots as usize;
    for block_start in (0..codes.len()).step_by(per) {
        let end = (block_start + per).min(codes.len());
        for slot in [block_start, end - 1] {
            if let Ok(code) = table.get(slot as u64) {
                assert_eq!(code, codes[slot], "{what}: wrong value at slot {slot}");
            }
        }
    }
}

/// Every byte of a table flipped three ways (slow; run with `--ignored`;
/// the fuzz tests flip random bytes in the default run).
#[test]
#[ignore]
fn every_flipped_byte_is_detected() {
    let (codes, bytes) = small_table();
    assert!(Table::new(bytes.clone()).unwrap().summary().blocks > 5);
    for at in 0..bytes.len() {
        for flip in [0x01, 0x80, 0xFF] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            check_damaged(&codes, damaged, &format!("byte {at} ^ {flip:#x}"));
        }
    }
}

#[test]
fn truncated_and_extended_files_do_not_open() {
    let (_, bytes) = small_table();
    for len in 0..bytes.len() {
        assert!(Table::new(&bytes[..len]).is_err(), "truncated to {len}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(Table::new(longer), Err(FileError::Length { .. })));
    assert!(Table::new(bytes).is_ok());
}

#[test]
fn magic_and_version_are_named() {
    let (_, bytes) = small_table();
    let mut other = bytes.clone();
    other[0] = b'X';
    assert!(matches!(Table::new(other), Err(FileError::BadMagic)));
    let mut future = bytes.clone();
    future[8] = 4;
    let err = Table::new(future).err().unwrap();
    assert!(
        matches!(
            err,
            FileError::Version {
                expected: 3,
                got: 4
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("unsupported"), "{err}");
    assert!(err.to_string().contains("version 4"), "{err}");
    // A distance table stays version 1; one that says 2 is refused (the
    // header's CRC recomputed: not damage, a header that lies).
    assert_eq!(bytes[8], 1);
    let mut two = bytes.clone();
    two[8] = 2;
    let crc = crc32fast::hash(&two[..124]);
    two[124..128].copy_from_slice(&crc.to_le_bytes());
    let err = Table::new(two).err().unwrap();
    assert!(err.to_string().contains("says version 2"), "{err}");
    // A play set's distance table is version 2: one that says 1 is refused,
    // and a reader of version 1 refuses it by its version number.
    let s: Sector = "2v2h7v7".parse().unwrap();
    let options = WriteOptions::default();
    let play = Contents::Play(PlaySide::Losses);
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    write_contents(
        dir.path(),
        play,
        s,
        rules,
        &values(s, 300, 11),
        &options,
        true,
    )
    .unwrap();
    let mut one = std::fs::read(dir.path().join("2v2h7v7.mtd")).unwrap();
    assert_eq!(one[8], 2);
    one[8] = 1;
    let crc = crc32fast::hash(&one[..124]);
    one[124..128].copy_from_slice(&crc.to_le_bytes());
    let err = Table::new(one).err().unwrap();
    assert!(err.to_string().contains("says version 1"), "{err}");
    // One of both sides is version 3 (a reader of version 2 refuses it by
    // its number, as this one refuses 4 above): one that says 2 is refused.
    let both = Contents::Play(PlaySide::Both);
    let values = values(s, 300, 11);
    write_contents(dir.path(), both, s, rules, &values, &options, true).unwrap();
    let mut three = std::fs::read(dir.path().join("2v2h7v7.mtd")).unwrap();
    assert_eq!(three[8], 3);
    assert_eq!(
        u32::from_le_bytes(three[12..16].try_into().unwrap()) & 24,
        24
    );
    three[8] = 2;
    let crc = crc32fast::hash(&three[..124]);
    three[124..128].copy_from_slice(&crc.to_le_bytes());
    let err = Table::new(three).err().unwrap();
    assert!(err.to_string().contains("says version 2"), "{err}");
    // A rule flag this reader does not know, under a valid header CRC: a
    // newer writer's option, reported as unsupported, not as damage.
    let mut newer = bytes.clone();
    newer[12] |= 32;
    let crc = crc32fast::hash(&newer[..124]);
    newer[124..128].copy_from_slice(&crc.to_le_bytes());
    let err = Table::new(newer).err().unwrap();
    assert!(matches!(err, FileError::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("rule flags 0x21"), "{err}");
    // An index scheme this reader does not know (byte 23): unsupported.
    let mut scheme = bytes.clone();
    scheme[23] = 2;
    let crc = crc32fast::hash(&scheme[..124]);
    scheme[124..128].copy_from_slice(&crc.to_le_bytes());
    let err = Table::new(scheme).err().unwrap();
    assert!(matches!(err, FileError::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("index scheme 2"), "{err}");
    // The no-capture rule (bit 1) with a limit no rule has.
    let mut zero = bytes.clone();
    zero[12] |= 2;
    let crc = crc32fast::hash(&zero[..124]);
    zero[124..128].copy_from_slice(&crc.to_le_bytes());
    let err = Table::new(zero).err().unwrap();
    assert!(matches!(err, FileError::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("no-capture limit 0"), "{err}");
}

#[test]
fn a_renamed_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s: Sector = "3v4".parse().unwrap();
    write_table(dir.path(), s, Rules::default(), &values(s, 50, 12)).unwrap();
    std::fs::rename(dir.path().join("3v4.mtb"), dir.path().join("4v3.mtb")).unwrap();
    // SAFETY: nothing writes the file while it is mapped.
    let err = unsafe { Table::map(&dir.path().join("4v3.mtb")) }
        .err()
        .unwrap();
    assert!(matches!(err, FileError::WrongSector { .. }), "{err}");
    let err = Tablebase::open(dir.path()).err().unwrap();
    assert!(
        matches!(
            err,
            ProbeError::File {
                source: FileError::WrongSector { .. },
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("4v3.mtb"), "{err}");

    std::fs::rename(dir.path().join("4v3.mtb"), dir.path().join("notes.mtb")).unwrap();
    let err = Tablebase::open(dir.path()).err().unwrap();
    assert!(
        chain(&err).contains("notes.mtb` is not a sector's name"),
        "{err}"
    );
}

#[test]
fn a_damaged_block_fails_the_probe_not_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let s: Sector = "3v3".parse().unwrap();
    let codes = values(s, 100, 13);
    write_table(dir.path(), s, Rules::default(), &codes).unwrap();
    let path = dir.path().join("3v3.mtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 20; // inside the last block
    bytes[last] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let slots = codes.len() as u64;
    let err = tb.code(s, slots - 1).unwrap_err();
    let text = chain(&err);
    assert!(
        text.contains("3v3.mtb: checksum mismatch in block"),
        "{text}"
    );
    assert_eq!(tb.code(s, 0).unwrap(), codes[0]);
    assert!(tb.sector_values(s).is_err());
    assert!(tb.check_checksum(s).is_err());
}
