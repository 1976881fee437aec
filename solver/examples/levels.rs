//! Table size and write time at several zstd levels, for one solved sector:
//! `cargo run --release --features studies --example levels -- <dir> <sector>`.

use moulin::write::{encode_table, WriteOptions};
use moulin_probe::{Sector, Tablebase};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(sector)) = (args.next(), args.next()) else {
        return Err("usage: levels <dir> <sector>".into());
    };
    let sector: Sector = sector.parse()?;
    let tb = Tablebase::open(&dir)?;
    let values = tb.sector_values(sector)?;
    for level in [1, 3, 6, 9, 12, 15, 19] {
        let start = std::time::Instant::now();
        let options = WriteOptions {
            level,
            threads: 1,
            ..Default::default()
        };
        let bytes = encode_table(sector, tb.rules(), &values, &options)?;
        println!(
            "level {level}: {} bytes, {:.3} bits/slot, {:.2}s",
            bytes.len(),
            bytes.len() as f64 * 8.0 / values.len() as f64,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
