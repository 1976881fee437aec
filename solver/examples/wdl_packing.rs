//! How the outcomes of a table compress: two bits a slot (the WDL tables)
//! against a byte a slot, by zstd level and block size (a measurement for
//! the WDL format): `cargo run --release --example wdl_packing -- DIR
//! SECTOR...`.
use moulin_probe::table::{encode_table, encode_wdl_table, Encoding, WriteOptions};
use moulin_probe::value::HOLE;
use moulin_probe::{Outcome, Sector, Tablebase};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tb = Tablebase::open(&args[0]).expect("tables");
    for name in &args[1..] {
        let sector: Sector = name.parse().expect("a sector");
        let codes = tb.sector_values(sector).expect("values");
        // A byte a slot: the codes of a win in 1, a loss in 0 and a draw.
        let bytes: Vec<u16> = codes
            .iter()
            .map(|&c| match Outcome::from_code(c) {
                None => HOLE,
                Some(o) => match o {
                    Outcome::Win(_) => 2,
                    Outcome::Loss(_) => 1,
                    Outcome::Draw => 0,
                },
            })
            .collect();
        let dtw = std::fs::metadata(tb.path(sector).expect("path")).map_or(0, |m| m.len());
        for level in [6, 12, 19] {
            for kib in [0u32, 64, 256, 1024] {
                let options = WriteOptions {
                    level,
                    block_bytes: kib << 10,
                    encoding: Some(Encoding::U8),
                    threads: 0,
                };
                let wdl = encode_wdl_table(sector, tb.rules(), &codes, &options).expect("wdl");
                let per_byte = encode_table(sector, tb.rules(), &bytes, &options).expect("u8");
                println!(
                    "{name} slots {} level {level} block {kib} KiB: 2 bits {} 1 byte {} (dtw {dtw})",
                    codes.len(),
                    wdl.len(),
                    per_byte.len(),
                );
            }
        }
    }
}
