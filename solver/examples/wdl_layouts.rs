//! How outcomes compress in three layouts before zstd: two bits a slot
//! (the WDL tables), two bit planes (a bit a slot for wins, then one for
//! losses) and a byte a slot, in blocks of 1 Mi and 4 Mi slots at levels 6
//! and 19: `cargo run --release --features studies --example wdl_layouts -- DIR SECTOR...`.
use moulin_probe::{Outcome, Sector, Tablebase};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tb = Tablebase::open(&args[0]).expect("tables");
    for name in &args[1..] {
        let sector: Sector = name.parse().expect("a sector");
        let codes = tb.sector_values(sector).expect("values");
        let mut last = 0u8;
        let v: Vec<u8> = codes
            .iter()
            .map(|&c| {
                last = match Outcome::from_code(c) {
                    Some(Outcome::Draw) => 0,
                    Some(Outcome::Win(_)) => 1,
                    Some(Outcome::Loss(_)) => 2,
                    None => last,
                };
                last
            })
            .collect();
        for slots_per in [1usize << 20, 1 << 22] {
            for level in [6, 19] {
                let mut sizes = [0usize; 3];
                for chunk in v.chunks(slots_per) {
                    let packed: Vec<u8> = chunk
                        .chunks(4)
                        .map(|q| {
                            q.iter()
                                .enumerate()
                                .fold(0u8, |b, (i, &x)| b | x << (2 * i))
                        })
                        .collect();
                    let mut planes: Vec<u8> = chunk
                        .chunks(8)
                        .map(|q| {
                            q.iter()
                                .enumerate()
                                .fold(0u8, |b, (i, &x)| b | ((x == 1) as u8) << i)
                        })
                        .collect();
                    planes.extend(chunk.chunks(8).map(|q| {
                        q.iter()
                            .enumerate()
                            .fold(0u8, |b, (i, &x)| b | ((x == 2) as u8) << i)
                    }));
                    let bytes = chunk.to_vec();
                    for (k, raw) in [packed, planes, bytes].iter().enumerate() {
                        sizes[k] += zstd::bulk::compress(raw, level).unwrap().len();
                    }
                }
                println!(
                    "{name} {} slots, block {} Ki slots, level {level}: packed {} planes {} bytes {}",
                    v.len(),
                    slots_per >> 10,
                    sizes[0],
                    sizes[1],
                    sizes[2]
                );
            }
        }
    }
}
