//! How the outcomes of a table compress: two bits a slot (the WDL tables)
//! against a byte a slot, by zstd level and block size (a measurement for
//! the WDL format): `cargo run --release --features studies --example wdl_packing -- DIR
//! SECTOR...` (`LEVELS="6 19"` and `BLOCKS_KIB="256 1024"` choose the
//! settings tried; `WDL_ONLY=1` skips the byte-a-slot encoding).
use moulin::write::{encode_table, encode_wdl_table, WriteOptions};
use moulin_core::table::Encoding;
use moulin_core::value::HOLE;
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
        let list = |name: &str, default: &str| -> Vec<u32> {
            std::env::var(name)
                .unwrap_or_else(|_| default.into())
                .split_whitespace()
                .map(|w| w.parse().expect("a number"))
                .collect()
        };
        let wdl_only = std::env::var_os("WDL_ONLY").is_some();
        for level in list("LEVELS", "6 12 19") {
            for &kib in &list("BLOCKS_KIB", "0 64 256 1024") {
                let level = level as i32;
                let options = WriteOptions {
                    level,
                    block_bytes: kib << 10,
                    encoding: Some(Encoding::U8),
                    threads: 0,
                    ..WriteOptions::default()
                };
                let clock = std::time::Instant::now();
                let wdl = encode_wdl_table(sector, tb.rules(), &codes, &options).expect("wdl");
                let secs = clock.elapsed().as_secs_f64();
                let per_byte = match wdl_only {
                    true => 0,
                    false => encode_table(sector, tb.rules(), &bytes, &options)
                        .expect("u8")
                        .len(),
                };
                println!(
                    "{name} slots {} level {level} block {kib} KiB: 2 bits {} in {secs:.2} s, 1 byte {per_byte} (dtw {dtw})",
                    codes.len(),
                    wdl.len(),
                );
            }
        }
    }
}
