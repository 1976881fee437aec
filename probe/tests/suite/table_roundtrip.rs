//! Tables written and read back: values, counts, encodings, blocks, files.

use crate::table_synthetic;

use moulin::write::write_table;
use moulin::write::{encode_table, write_table_with, WriteOptions};
use moulin_core::index::{count_classes, count_positions, Indexer};
use moulin_core::table::{Encoding, Table};
use moulin_core::value::{Outcome, HOLE};
use moulin_probe::error::FileError;
use moulin_probe::{Rules, Sector};
use table_synthetic::values;

fn sector(name: &str) -> Sector {
    name.parse().unwrap()
}

fn small_blocks(block_bytes: u32) -> WriteOptions {
    WriteOptions {
        level: 3,
        block_bytes,
        ..WriteOptions::default()
    }
}

/// Reads a table back every way and compares with the values it was written from.
fn check_round_trip(s: Sector, codes: &[u16], options: &WriteOptions, encoding: Encoding) {
    let bytes = encode_table(s, Rules::default(), codes, options).unwrap();
    let table = Table::new(bytes).unwrap();
    let summary = *table.summary();
    assert_eq!(summary.encoding, encoding, "{s}");
    assert_eq!(summary.sector, s);
    assert_eq!(summary.slots, codes.len() as u64);
    assert_eq!(table.decode_all().unwrap(), codes, "{s}");
    let mut into = vec![7u16; codes.len()];
    table.decode_into(&mut into).unwrap();
    assert_eq!(into, codes, "{s}: decode_into");
    for wrong in [codes.len() - 1, codes.len() + 1] {
        let err = table.decode_into(&mut vec![0; wrong]).unwrap_err();
        assert!(err.to_string().contains("slots asked for"), "{err}");
    }
    // Block by block, as a parallel reader decodes them.
    let per = summary.block_slots as usize;
    let mut blocks = vec![7u16; codes.len()];
    for (block, out) in blocks.chunks_mut(per).enumerate() {
        table.decode_block_into(block as u32, out).unwrap();
    }
    assert_eq!(blocks, codes, "{s}: decode_block_into");
    let err = table
        .decode_block_into(0, &mut vec![0; per.min(codes.len()) + 1])
        .unwrap_err();
    assert!(err.to_string().contains("asked for"), "{err}");
    let past = table.decode_block_into(summary.blocks, &mut vec![0; per]);
    assert!(
        past.is_err(),
        "block {} of {}",
        summary.blocks,
        summary.blocks
    );
    for slot in (0..codes.len()).step_by(97).chain([codes.len() - 1]) {
        assert_eq!(
            table.get(slot as u64).unwrap(),
            codes[slot],
            "{s} slot {slot}"
        );
    }
    assert!(matches!(
        table.get(codes.len() as u64),
        Err(FileError::SlotOutOfRange { .. })
    ));
    table.check_checksum().unwrap();

    // The counts of the header, recomputed here.
    let ix = Indexer::get();
    let (mut classes, mut positions, mut holes) = ([0u64; 3], [0u64; 3], 0);
    let (mut max_win, mut max_loss) = (None, None);
    for (slot, &c) in codes.iter().enumerate() {
        let k = match Outcome::from_code(c) {
            None => {
                holes += 1;
                continue;
            }
            Some(Outcome::Win(d)) => {
                max_win = max_win.max(Some(d));
                0
            }
            Some(Outcome::Loss(d)) => {
                max_loss = max_loss.max(Some(d));
                1
            }
            Some(Outcome::Draw) => 2,
        };
        classes[k] += 1;
        positions[k] += ix.class_size(s, slot as u64) as u64;
    }
    let c = summary.classes;
    assert_eq!([c.win, c.loss, c.draw], classes);
    let p = summary.positions;
    assert_eq!([p.win, p.loss, p.draw], positions);
    assert_eq!(p.total(), count_positions(s));
    assert_eq!(c.total(), count_classes(s));
    assert_eq!(summary.holes, holes);
    assert_eq!((summary.max_win, summary.max_loss), (max_win, max_loss));
}

#[test]
fn one_byte_codes_in_many_blocks() {
    let s = sector("3v3");
    let codes = values(s, 200, 1);
    check_round_trip(s, &codes, &small_blocks(1000), Encoding::U8);
    let table = Table::new(encode_table(s, Rules::default(), &codes, &small_blocks(1000)).unwrap())
        .unwrap();
    assert_eq!(table.summary().block_slots, 1000);
    assert!(table.summary().blocks > 100);
}

#[test]
fn two_byte_codes_plain_and_in_planes() {
    let s = sector("3v3");
    let codes = values(s, 1000, 2);
    check_round_trip(s, &codes, &small_blocks(4096), Encoding::U16Planes);
    let plain = WriteOptions {
        encoding: Some(Encoding::U16),
        ..small_blocks(777)
    };
    check_round_trip(s, &codes, &plain, Encoding::U16);
    // The largest code a table can hold.
    let mut codes = codes;
    let first = codes.iter().position(|&c| c != HOLE).unwrap();
    codes[first] = HOLE - 1;
    check_round_trip(s, &codes, &WriteOptions::default(), Encoding::U16Planes);
}

#[test]
fn codes_at_the_one_byte_limit() {
    let s = sector("2v2h7v7");
    let mut codes = values(s, 250, 3);
    let canonical: Vec<usize> = (0..codes.len()).filter(|&i| codes[i] != HOLE).collect();
    codes[canonical[0]] = 254; // loss in 253: still one byte
    check_round_trip(s, &codes, &WriteOptions::default(), Encoding::U8);
    codes[canonical[1]] = 255; // win in 254: two bytes
    check_round_trip(s, &codes, &WriteOptions::default(), Encoding::U16Planes);
}

#[test]
fn tiny_sectors() {
    for name in ["0v0h9v9", "0v1h9v8", "1v1h8v8", "3v3h6v6"] {
        let s = sector(name);
        let codes = values(s, 40, 4);
        check_round_trip(s, &codes, &WriteOptions::default(), Encoding::U8);
        check_round_trip(s, &codes, &small_blocks(1), Encoding::U8);
    }
    // One slot, all draws.
    let s = sector("0v0h9v9");
    check_round_trip(s, &[0], &WriteOptions::default(), Encoding::U8);
}

#[test]
fn output_does_not_depend_on_threads() {
    let s = sector("3v3");
    let codes = values(s, 600, 5);
    let encode = |threads| {
        let options = WriteOptions {
            threads,
            ..small_blocks(2048)
        };
        encode_table(s, Rules::with_flying(false), &codes, &options).unwrap()
    };
    let one = encode(1);
    assert_eq!(one, encode(2));
    assert_eq!(one, encode(5));
    assert!(!Table::new(one).unwrap().summary().rules.flying);
}

#[test]
fn values_that_cannot_be_the_table_are_refused() {
    let s = sector("3v3");
    let codes = values(s, 100, 6);
    let options = WriteOptions::default();
    let err = encode_table(s, Rules::default(), &codes[1..], &options).unwrap_err();
    assert!(matches!(err, FileError::BadValues(_)), "{err}");
    let mut misplaced = codes.clone();
    let hole = misplaced.iter().position(|&c| c == HOLE).unwrap();
    misplaced[hole] = 0;
    let err = encode_table(s, Rules::default(), &misplaced, &options).unwrap_err();
    assert!(err.to_string().contains("holes are not where"), "{err}");
    let mut wide = codes;
    wide[0] = 300;
    let forced = WriteOptions {
        encoding: Some(Encoding::U8),
        ..WriteOptions::default()
    };
    let err = encode_table(s, Rules::default(), &wide, &forced).unwrap_err();
    assert!(matches!(err, FileError::BadValues(_)), "{err}");
}

#[test]
fn files_are_named_for_their_sector_and_leave_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let s = sector("3v4");
    let codes = values(s, 100, 7);
    let summary = write_table(dir.path(), s, Rules::default(), &codes).unwrap();
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["3v4.mtb"]);
    let path = dir.path().join("3v4.mtb");
    assert_eq!(summary.bytes, std::fs::metadata(&path).unwrap().len());
    // SAFETY: nothing writes the file while it is mapped.
    let table = unsafe { Table::map(&path) }.unwrap();
    assert_eq!(*table.summary(), summary);
    assert_eq!(table.decode_all().unwrap(), codes);

    // A path that is not a directory is the file itself; its name must not
    // be another sector's.
    let other = dir.path().join("custom.mtb");
    write_table_with(&other, s, Rules::default(), &codes, &small_blocks(512)).unwrap();
    assert_eq!(
        unsafe { Table::map(&other) }.unwrap().decode_all().unwrap(),
        codes
    );
    let wrong = dir.path().join("4v3.mtb");
    let err = write_table(&wrong, s, Rules::default(), &codes).unwrap_err();
    assert!(matches!(err, FileError::WrongSector { .. }), "{err}");
    assert!(!wrong.exists());
}

#[test]
fn block_size_follows_the_entropy_of_the_values() {
    let s = sector("4v4");
    let block_bytes = |codes: &[u16]| {
        let bytes = encode_table(s, Rules::default(), codes, &WriteOptions::default()).unwrap();
        let summary = *Table::new(bytes).unwrap().summary();
        summary.block_slots * summary.encoding.width() as u32
    };
    assert_eq!(block_bytes(&table_synthetic::draws(s)), 64 * 1024);
    assert_eq!(block_bytes(&values(s, 200, 8)), 8 * 1024);
}
