//! The reader's unit tests.

use super::*;

#[test]
fn ranks_count_the_slots_of_a_side_before_each_slot() {
    // Outcomes from a fixed generator, with runs, in blocks whose
    // lengths end inside a byte and inside a directory step.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (encoding, kinds, slots) in [
        (Encoding::Wdl, 3, 5_003),
        (Encoding::Wdl, 3, 1_024),
        (Encoding::RuleOutcomes, 5, 4_999),
        (Encoding::RuleOutcomes, 5, 1_537),
    ] {
        let mut outcomes = Vec::with_capacity(slots);
        while outcomes.len() < slots {
            let (o, run) = ((next() % kinds) as u8, 1 + next() % 40);
            outcomes.extend(std::iter::repeat_n(o, run as usize));
        }
        outcomes.truncate(slots);
        let bytes: Box<[u8]> = match encoding {
            Encoding::Wdl => outcomes
                .chunks(4)
                .map(|c| c.iter().rev().fold(0, |b, &o| b << 2 | o))
                .collect(),
            _ => outcomes
                .chunks(3)
                .map(|c| c.iter().rev().fold(0, |b, &o| b * 5 + o))
                .collect(),
        };
        for side in [PlaySide::Wins, PlaySide::Losses] {
            let mut block = Block {
                encoding,
                slots,
                bytes: bytes.clone(),
                ranks: None,
            };
            assert_eq!(block.rank(side, 0), None, "no directory yet");
            block.ensure_ranks(side);
            let of = |o: u8| match side {
                PlaySide::Wins => o == 1 || o == 3,
                _ => o == 2 || o == 4,
            };
            let mut before = 0;
            for (i, &o) in outcomes.iter().enumerate() {
                assert_eq!(block.code(i), Some(o as u16));
                assert_eq!(block.rank(side, i), Some(before), "{encoding:?} slot {i}");
                before += of(o) as usize;
            }
            assert_eq!(block.rank(side, slots), None);
            let other = match side {
                PlaySide::Wins => PlaySide::Losses,
                _ => PlaySide::Wins,
            };
            assert_eq!(block.rank(other, 1), None, "the directory is of one side");
        }
        // Both sides: the wins' symbols first, then the losses'.
        let mut block = Block {
            encoding,
            slots,
            bytes: bytes.clone(),
            ranks: None,
        };
        block.ensure_ranks(PlaySide::Both);
        let wins = outcomes.iter().filter(|&&o| o == 1 || o == 3).count();
        let (mut won, mut lost) = (0, 0);
        for (i, &o) in outcomes.iter().enumerate() {
            let want = match o {
                1 | 3 => Some(won),
                2 | 4 => Some(wins + lost),
                _ => None,
            };
            assert_eq!(block.rank(PlaySide::Both, i), want, "{encoding:?} slot {i}");
            won += (o == 1 || o == 3) as usize;
            lost += (o == 2 || o == 4) as usize;
        }
        assert_eq!(
            block.rank(PlaySide::Wins, 0),
            None,
            "the directory is of both"
        );
    }
}

/// A block's codes written at once (`copy_to`, `extend`: how tables are
/// decoded) are its codes slot by slot (`Block::code`), in every
/// encoding, for lengths that end inside a byte.
#[test]
fn a_block_copies_the_codes_it_reads_slot_by_slot() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut byte = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 24) as u8
    };
    for slots in [0usize, 1, 2, 3, 4, 5, 7, 1_000, 1_001, 1_002, 1_003] {
        for encoding in [
            Encoding::U8,
            Encoding::Dense,
            Encoding::U16,
            Encoding::U16Planes,
            Encoding::Wdl,
            Encoding::RuleOutcomes,
        ] {
            let len = match encoding {
                Encoding::U8 | Encoding::Dense => slots,
                Encoding::U16 | Encoding::U16Planes => 2 * slots,
                Encoding::Wdl => slots.div_ceil(4),
                Encoding::RuleOutcomes => slots.div_ceil(3),
            };
            let bytes: Box<[u8]> = (0..len)
                .map(|_| match (encoding, byte()) {
                    // Four 2-bit values, none of them 3.
                    (Encoding::Wdl, b) => (0..4).fold(0, |w, k| w | ((b >> k) % 3) << (2 * k)),
                    (Encoding::RuleOutcomes, b) => b % 125,
                    (_, b) => b,
                })
                .collect();
            let block = Block {
                encoding,
                slots,
                bytes,
                ranks: None,
            };
            let mut out = vec![7u16; slots + 2];
            assert_eq!(block.copy_to(&mut out), slots);
            let mut extended = vec![5u16];
            block.extend(&mut extended);
            assert_eq!(extended.len(), slots + 1);
            for i in 0..slots {
                let code = block.code(i).expect("a slot of the block");
                assert_eq!(out[i], code, "{encoding:?}, {slots} slots, slot {i}");
                assert_eq!(
                    extended[i + 1],
                    code,
                    "{encoding:?}, {slots} slots, slot {i}"
                );
            }
            assert_eq!(out[slots..], [7, 7], "{encoding:?}: nothing past the block");
        }
    }
}

#[test]
fn the_pure_rust_decoder_agrees_with_libzstd() {
    let mut values: Vec<u8> = (0..70_000u64).map(|i| (i * i % 251 / 7) as u8).collect();
    values[5_000..30_000].fill(0);
    for level in [1, 6, 19] {
        let mut c = zstd::bulk::Compressor::new(level).unwrap();
        c.set_parameter(zstd::stream::raw::CParameter::ContentSizeFlag(false))
            .unwrap();
        let frame = c.compress(&values).unwrap();
        assert_eq!(pure::decompress(&frame, values.len()).unwrap(), values);
        assert_eq!(decompress(&frame, values.len()).unwrap(), values);
        // An oversized frame shows as one byte too many, not a silent cut.
        assert_eq!(
            pure::decompress(&frame, 1000).unwrap().len(),
            1001,
            "level {level}"
        );
        assert!(pure::decompress(&frame[..frame.len() / 2], values.len()).is_err());
    }
}

#[test]
fn garbage_is_refused_without_panic() {
    assert!(matches!(Table::new(Vec::new()), Err(FileError::BadMagic)));
    assert!(matches!(
        Table::new(b"MOULINTB".to_vec()),
        Err(FileError::Length { .. })
    ));
    let mut v = b"MOULINTB".to_vec();
    v.extend([9, 0, 128, 0]);
    assert!(matches!(
        Table::new(v),
        Err(FileError::Version {
            expected: 3,
            got: 9
        })
    ));
}
