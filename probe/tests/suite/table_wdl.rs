//! WDL tables (outcomes only, two bits a slot): written from a distance
//! table's codes, read back slot by slot, through a `Tablebase` of `*.mtw`
//! files, and refused where a table of the other kind belongs.

use crate::table_synthetic;

use moulin::write::{
    encode_table, encode_wdl_table, write_table, write_wdl_table_with, WriteOptions,
};
use moulin_core::table::{Encoding, Table};
use moulin_core::value::HOLE;
use moulin_probe::error::{chain, FileError, ProbeError};
use moulin_probe::{Position, RuleOutcome, Rules, Sector, Tablebase, Wdl};
use table_synthetic::values;

fn sector(name: &str) -> Sector {
    name.parse().unwrap()
}

/// The outcome of a distance code, independently of the writer: 0 a draw,
/// odd `d + 1`... i.e. code `c` is a win when `c - 1` is odd.
fn outcome_of(code: u16) -> Option<Wdl> {
    match code {
        HOLE => None,
        0 => Some(Wdl::Draw),
        c if (c - 1) % 2 == 1 => Some(Wdl::Win),
        _ => Some(Wdl::Loss),
    }
}

fn check_wdl(s: Sector, codes: &[u16], options: &WriteOptions) {
    let wdl = Table::new(encode_wdl_table(s, Rules::default(), codes, options).unwrap()).unwrap();
    let dtw = Table::new(encode_table(s, Rules::default(), codes, options).unwrap()).unwrap();
    let (w, d) = (*wdl.summary(), *dtw.summary());
    assert!(w.wdl && !d.wdl);
    assert_eq!(w.encoding, Encoding::Wdl);
    // The header's counts and longest distances are the distance table's.
    assert_eq!(
        (w.classes, w.positions, w.holes, w.max_win, w.max_loss),
        (d.classes, d.positions, d.holes, d.max_win, d.max_loss),
        "{s}"
    );
    wdl.check_checksum().unwrap();
    let all = wdl.decode_all().unwrap();
    assert_eq!(all.len(), codes.len());
    let mut last = 0;
    for (slot, &code) in codes.iter().enumerate() {
        let got = wdl.get(slot as u64).unwrap();
        assert_eq!(all[slot], got);
        match outcome_of(code) {
            Some(want) => assert_eq!(Wdl::from_code(got), Some(want), "{s} slot {slot}"),
            // A hole repeats the slot before it in its block.
            None if (slot as u64).is_multiple_of(w.block_slots as u64) => assert_eq!(got, 0),
            None => assert_eq!(got, last, "{s} hole {slot}"),
        }
        last = got;
    }
    assert!(matches!(
        wdl.get(codes.len() as u64),
        Err(FileError::SlotOutOfRange { .. })
    ));
}

#[test]
fn outcomes_read_back_in_any_block_size() {
    outcomes_read_back_in_blocks_of(&["3v3", "2v2h7v7", "0v0h9v9"], &[4097]);
}

/// Blocks of 1, 3 and 1000 bytes (a block per few slots), and a sector with
/// stones in hand of 2.7 million slots (slow; run with `--ignored`).
#[test]
#[ignore]
fn outcomes_read_back_in_tiny_blocks() {
    outcomes_read_back_in_blocks_of(&["3v3", "2v2h7v7", "0v0h9v9"], &[1, 3, 1000]);
    outcomes_read_back_in_blocks_of(&["3v3h6v6"], &[1, 3, 1000, 4097]);
}

fn outcomes_read_back_in_blocks_of(names: &[&str], sizes: &[u32]) {
    for &name in names {
        let s = sector(name);
        let codes = values(s, 300, 21);
        check_wdl(s, &codes, &WriteOptions::default());
        for &block_bytes in sizes {
            let options = WriteOptions {
                level: 3,
                block_bytes,
                ..WriteOptions::default()
            };
            check_wdl(s, &codes, &options);
        }
    }
}

#[test]
fn a_wdl_table_is_smaller_than_its_distance_table() {
    let s = sector("3v3");
    let codes = values(s, 200, 5);
    let options = WriteOptions::default();
    let wdl = encode_wdl_table(s, Rules::default(), &codes, &options).unwrap();
    let dtw = encode_table(s, Rules::default(), &codes, &options).unwrap();
    assert!(wdl.len() * 2 < dtw.len(), "{} vs {}", wdl.len(), dtw.len());
}

#[test]
fn outcome_tables_under_the_rule_hold_five_values() {
    let s = sector("3v3");
    let rules = Rules {
        no_capture_limit: Some(50),
        ..Rules::default()
    };
    // Rule codes of every kind (`values` draws codes below 200: draws,
    // wins, losses, cursed wins and blessed losses with their DTC).
    let codes = values(s, 200, 1);
    let dir = tempfile::tempdir().unwrap();
    let written =
        write_wdl_table_with(dir.path(), s, rules, &codes, &WriteOptions::default()).unwrap();
    assert_eq!(written.encoding, Encoding::RuleOutcomes);
    let bytes = std::fs::read(dir.path().join("3v3.mtw")).unwrap();
    assert_eq!(bytes[8], 2, "format version 2");
    let table = Table::new(bytes).unwrap();
    let outcomes = table.decode_all().unwrap();
    let mut seen = [0u32; 5];
    for (&code, &got) in codes.iter().zip(&outcomes) {
        let Some(value) = RuleOutcome::from_code(code) else {
            continue;
        };
        assert_eq!(got, value.outcome_code(), "{value:?}");
        seen[got as usize] += 1;
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    // Opened as WDL tables: a cursed win or a blessed loss is a draw.
    let tb = Tablebase::open_wdl(dir.path()).unwrap();
    let ix = moulin_core::index::Indexer::get();
    for (slot, &code) in codes.iter().enumerate().step_by(7) {
        let Some(value) = RuleOutcome::from_code(code) else {
            continue;
        };
        assert_eq!(tb.wdl(s, slot as u64).unwrap(), Wdl::from(value.outcome()));
        assert!(ix.is_canonical(s, slot as u64));
    }
}

#[test]
fn a_tablebase_of_wdl_tables() {
    let dir = tempfile::tempdir().unwrap();
    let s = sector("3v3");
    let codes = values(s, 100, 9);
    write_table(dir.path(), s, Rules::default(), &codes).unwrap();
    write_wdl_table_with(
        dir.path(),
        s,
        Rules::default(),
        &codes,
        &WriteOptions::default(),
    )
    .unwrap();
    assert!(dir.path().join("3v3.mtw").is_file());
    let wdl = Tablebase::open_wdl(dir.path()).unwrap();
    let dtw = Tablebase::open(dir.path()).unwrap();
    assert!(wdl.is_wdl() && !dtw.is_wdl());
    assert_eq!(wdl.sectors().map(|(s, _)| s).collect::<Vec<_>>(), [s]);
    for slot in (0..codes.len() as u64).step_by(13) {
        if let Some(want) = outcome_of(codes[slot as usize]) {
            assert_eq!(wdl.wdl(s, slot).unwrap(), want, "slot {slot}");
            assert_eq!(dtw.wdl(s, slot).unwrap(), want, "slot {slot}");
        }
    }
    // A distance table holds holes where a WDL table cannot tell them.
    let hole = codes.iter().position(|&c| c == HOLE).unwrap() as u64;
    assert!(matches!(dtw.wdl(s, hole), Err(ProbeError::File { .. })));

    // By position: the same outcome from both kinds; distances only from
    // the distance tables.
    let pos: Position = "W:a1,b2,c3 B:g7,f6,e5 w".parse().unwrap();
    let want: Wdl = dtw.probe(&pos).unwrap().into();
    assert_eq!(wdl.probe_wdl(&pos).unwrap(), want);
    assert_eq!(dtw.probe_wdl(&pos).unwrap(), want);
    let err = wdl.probe(&pos).unwrap_err();
    assert!(matches!(err, ProbeError::WdlOnly), "{err}");
    assert!(err.to_string().contains("WDL tables"), "{err}");
    assert!(matches!(wdl.probe_moves(&pos), Err(ProbeError::WdlOnly)));
}

#[test]
fn a_table_of_the_other_kind_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = sector("3v3");
    let codes = values(s, 100, 9);
    write_wdl_table_with(
        dir.path(),
        s,
        Rules::default(),
        &codes,
        &WriteOptions::default(),
    )
    .unwrap();
    // A WDL table renamed to a distance table's name, and the other way.
    std::fs::rename(dir.path().join("3v3.mtw"), dir.path().join("3v3.mtb")).unwrap();
    let err = Tablebase::open(dir.path()).unwrap_err();
    assert!(
        chain(&err).contains("is an outcome (WDL) table, where a distance table belongs"),
        "{}",
        chain(&err)
    );
    std::fs::remove_file(dir.path().join("3v3.mtb")).unwrap();
    write_table(dir.path(), s, Rules::default(), &codes).unwrap();
    std::fs::rename(dir.path().join("3v3.mtb"), dir.path().join("3v3.mtw")).unwrap();
    let err = Tablebase::open_wdl(dir.path()).unwrap_err();
    assert!(
        chain(&err).contains("is a distance table, where an outcome (WDL) table belongs"),
        "{}",
        chain(&err)
    );
}
