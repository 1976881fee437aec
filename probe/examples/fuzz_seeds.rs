//! Writes the seed inputs of the fuzz targets (`fuzz/`): real tables,
//! small synthetic tables of each encoding, and forged variants whose
//! checksums are all valid (a header claiming a huge sector over a few
//! kilobytes, a file cut short with its length and trailer rewritten, a
//! wrong encoding), plus position and move texts.
//!
//! ```text
//! cargo run --release -- solve --max-stones 4 --dir /tmp/t
//! cargo run --release -p moulin-probe --example fuzz_seeds -- /tmp/t /tmp/seeds
//! ```
//! writes `/tmp/seeds/{table,position,moves}/`; `scripts/fuzz.sh --merge /tmp/seeds`
//! merges them into the committed corpus (libFuzzer `-merge=1` keeps the
//! inputs that add coverage).

use moulin::write::{encode_table, WriteOptions};
use moulin_core::index::{count_positions, Indexer};
use moulin_core::table::format::{END_MAGIC, HEADER_LEN, INDEX_ENTRY_LEN, TRAILER_LEN};
use moulin_core::table::read::block_crc;
use moulin_core::table::Table;
use moulin_core::table::{Counts, Encoding, TableSummary};
use moulin_core::value::HOLE;
use moulin_probe::{Rules, Sector};
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [tables, out] = args.as_slice() else {
        return Err("usage: fuzz_seeds <solved table dir> <output dir>".into());
    };
    let dir = |name: &str| -> std::io::Result<PathBuf> {
        let d = out.join(name);
        std::fs::create_dir_all(&d)?;
        Ok(d)
    };
    let (table_dir, position_dir, moves_dir) = (dir("table")?, dir("position")?, dir("moves")?);
    let mut n = 0;
    let mut put = |dir: &Path, name: &str, bytes: &[u8]| -> std::io::Result<()> {
        n += 1;
        std::fs::write(dir.join(format!("{n:03}-{name}")), bytes)
    };

    // Real tables: the smallest moving-phase sectors.
    let mut real = Vec::new();
    for name in ["3v3", "4v4"] {
        let bytes = std::fs::read(tables.join(format!("{name}.mtb")))?;
        Table::new(bytes.as_slice())?;
        put(&table_dir, &format!("real-{name}"), &bytes)?;
        real.push(bytes);
    }

    // Small synthetic tables, one per encoding, in blocks of a few slots.
    let mut small = Vec::new();
    for (name, below, encoding, block_bytes) in [
        ("1v1h8v8", 200, Some(Encoding::U8), 16),
        ("1v2h8v7", 600, Some(Encoding::U16Planes), 32),
        ("2v2h7v7", 300, Some(Encoding::U16), 64),
        ("0v0h9v9", 5, None, 0),
    ] {
        let sector: Sector = name.parse()?;
        let options = WriteOptions {
            level: 3,
            block_bytes,
            encoding,
            threads: 1,
            ..WriteOptions::default()
        };
        let bytes = encode_table(sector, Rules::default(), &codes(sector, below), &options)?;
        put(&table_dir, &format!("synthetic-{name}"), &bytes)?;
        small.push(bytes);
    }
    let no_flying = encode_table(
        "1v1h8v8".parse()?,
        Rules::with_flying(false),
        &codes("1v1h8v8".parse()?, 50),
        &WriteOptions {
            block_bytes: 24,
            threads: 1,
            ..WriteOptions::default()
        },
    )?;
    put(&table_dir, "synthetic-no-flying", &no_flying)?;

    // Forged, every checksum valid.
    put(&table_dir, "forged-huge-sector", &huge_sector(4)?)?;
    put(&table_dir, "forged-huge-sector-no-block", &huge_sector(0)?)?;
    for (i, bytes) in [&small[0], &small[1], &real[0]].into_iter().enumerate() {
        for keep in [3, 2] {
            put(
                &table_dir,
                &format!("forged-cut-{i}-{keep}"),
                &cut(bytes, keep)?,
            )?;
        }
    }
    let mut wrong = header(&small[0])?;
    wrong.encoding = Encoding::U16;
    wrong.block_slots /= 2;
    wrong.blocks = Indexer::get()
        .slots(wrong.sector)
        .div_ceil(wrong.block_slots as u64) as u32;
    put(&table_dir, "forged-encoding", &reheader(&small[0], &wrong))?;
    let mut swapped = header(&small[2])?;
    swapped.sector = "2v2h6v6".parse()?;
    put(
        &table_dir,
        "forged-other-sector",
        &reheader(&small[2], &swapped),
    )?;

    for text in [
        "W: B: w 9 9",
        "W:a4,b2,c4,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w",
        "W:a1,d1,g1 B:b2,d2,f2 b",
        "W:a1,d1,g7 B:b2,d2,f2,d6 w",
        "W:d1,g1,a4,a7 B:b2,c3,e3,d7 w 5 5",
        "W:a1 B:d1 w 8 9",
        "W:d1,g1 B:a1 b 1 2",
        "W:a1,a1 B:b2 w",
        "W:a1 B:d1 w 10 10",
        "3v2h5v4",
        "8v7",
    ] {
        put(&position_dir, "text", text.as_bytes())?;
    }
    for (pos, mv) in [
        ("W: B: w 9 9", "d2"),
        ("W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w", "b2-b4xg4"),
        ("W:a4,c4,b2,d2,e5,g7 B:b6,d6,f6,a1,d1,g1 w", "b2-b4xa1"),
        ("W:a1,d1 B:b2,c3 w 7 7", "g1xc3"),
        ("W:a1,d1,g7 B:b2,d2,f2,d6 w", "g7-a7"),
        ("W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w", "a1-a4"),
        ("W:a1,d1 B:a7,d2,g4 w", "a1xd2"),
        ("W:d1,g1 B:a1 b 1 2", "a4"),
    ] {
        put(&moves_dir, "text", format!("{pos}\n{mv}").as_bytes())?;
    }
    println!("{n} seeds in {}", out.display());
    Ok(())
}

/// Codes for every slot of a sector: holes where the index has them, else
/// a code below `below` picked from the slot.
fn codes(sector: Sector, below: u16) -> Vec<u16> {
    let ix = Indexer::get();
    (0..ix.slots(sector))
        .map(|slot| match ix.is_canonical(sector, slot) {
            false => HOLE,
            true => (slot.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as u16 % below,
        })
        .collect()
}

fn header(bytes: &[u8]) -> Result<TableSummary, Box<dyn std::error::Error>> {
    Ok(TableSummary::parse(&bytes[..HEADER_LEN])?)
}

/// The file with another header (its CRC recomputed) and its file
/// checksum recomputed.
fn reheader(bytes: &[u8], summary: &TableSummary) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[..HEADER_LEN].copy_from_slice(&summary.to_bytes());
    seal(&mut out);
    out
}

/// Rewrites the end marker and the file checksum at the end of `bytes`.
fn seal(bytes: &mut [u8]) {
    let n = bytes.len();
    bytes[n - TRAILER_LEN..n - 4].copy_from_slice(&END_MAGIC);
    let crc = crc32fast::hash(&bytes[..n - 4]);
    bytes[n - 4..].copy_from_slice(&crc.to_le_bytes());
}

/// The table cut to `keep` of 4 of its data, with its length field, end
/// marker and checksums rewritten: the block index points past the end.
fn cut(bytes: &[u8], keep: usize) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut s = header(bytes)?;
    let start = s.data_start() as usize;
    let data = s.data_end() as usize - start;
    let mut out = bytes[..start + data * keep / 4].to_vec();
    out.extend([0; TRAILER_LEN]);
    s.bytes = out.len() as u64;
    out[..HEADER_LEN].copy_from_slice(&s.to_bytes());
    seal(&mut out);
    Ok(out)
}

/// A header claiming the largest moving-phase sector (9v9), all draws, in
/// blocks of a mebibyte of one-byte codes: the index is a few kilobytes, the
/// first `valid` blocks are real frames of zeros with their CRCs, and the
/// others are empty (they do not decompress).
fn huge_sector(valid: u32) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let sector = Sector::moving(9, 9);
    let slots = Indexer::get().slots(sector);
    let block_slots = 1u32 << 20;
    let blocks = slots.div_ceil(block_slots as u64) as u32;
    let frame = zstd::bulk::compress(&vec![0u8; block_slots as usize], 19)?;
    let mut s = TableSummary {
        sector,
        rules: Rules::default(),
        slots,
        classes: Counts {
            draw: slots,
            ..Counts::default()
        },
        positions: Counts {
            draw: count_positions(sector),
            ..Counts::default()
        },
        holes: 0,
        max_win: None,
        max_loss: None,
        cursed_wins: 0,
        blessed_losses: 0,
        wdl: false,
        play: None,
        encoding: Encoding::U8,
        block_slots,
        blocks,
        level: 19,
        bytes: 0,
        scheme: 0,
    };
    let data_start = s.data_start() as usize;
    let mut out = vec![0u8; data_start];
    let mut end = data_start;
    for b in 0..blocks {
        let at = HEADER_LEN + b as usize * INDEX_ENTRY_LEN;
        let crc = if b < valid {
            out.extend(&frame);
            end += frame.len();
            block_crc(b, &frame)
        } else {
            block_crc(b, &[])
        };
        out[at..at + 8].copy_from_slice(&(end as u64).to_le_bytes());
        out[at + 8..at + 12].copy_from_slice(&crc.to_le_bytes());
    }
    out.extend([0; TRAILER_LEN]);
    s.bytes = out.len() as u64;
    out[..HEADER_LEN].copy_from_slice(&s.to_bytes());
    seal(&mut out);
    let table = Table::new(out.as_slice())?;
    assert_eq!(table.decode_block(0).is_ok(), valid > 0);
    Ok(out)
}
