//! How much smaller WDL tables get when the values a probe can recover by a
//! one-ply capture search are stored as whatever compresses best (Syzygy's
//! "don't cares"): `cargo run --release --features studies --example wdl_dontcare -- DIR
//! SECTOR...`. A don't-care slot takes the value before it where that is no
//! better than its own (a probe takes the better of the stored value and
//! the best capture), else its own; levels 6 and 19, automatic blocks.
use moulin::write::{encode_wdl_table, WriteOptions};
use moulin_core::index::Indexer;
use moulin_probe::{Outcome, Sector, Tablebase, Wdl};

fn code(w: Wdl) -> u16 {
    match w {
        Wdl::Win => Outcome::Win(1),
        Wdl::Draw => Outcome::Draw,
        Wdl::Loss => Outcome::Loss(0),
    }
    .code()
    .unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tb = Tablebase::open(&args[0]).expect("tables");
    let rules = tb.rules();
    let ix = Indexer::get();
    for name in &args[1..] {
        let sector: Sector = name.parse().expect("a sector");
        let codes = tb.sector_values(sector).expect("values");
        let mut filled = codes.clone();
        let (mut cares, mut lost, mut dont) = (0u64, 0u64, 0u64);
        let mut prev = Wdl::Draw;
        let clock = std::time::Instant::now();
        for (slot, &c) in codes.iter().enumerate() {
            let Some(o) = Outcome::from_code(c) else {
                continue;
            };
            let node = ix.unindex(sector, slot as u64).unwrap();
            let truth = Wdl::from(o);
            let mut best = None::<Wdl>;
            let free = if rules.is_lost(&node) {
                lost += 1;
                true
            } else {
                rules.for_each_move(&node, |m, next| {
                    if m.remove.is_some() && best != Some(Wdl::Win) {
                        let v = match rules.is_lost(&next) {
                            true => Wdl::Win,
                            false => Wdl::from(tb.probe_node(&next).expect("child")).flipped(),
                        };
                        best = best.max(Some(v));
                    }
                });
                best == Some(truth)
            };
            let stored = if free {
                dont += 1;
                prev.min(truth)
            } else {
                cares += 1;
                truth
            };
            filled[slot] = code(stored);
            prev = stored;
        }
        let secs = clock.elapsed().as_secs_f64();
        let opts = WriteOptions {
            level: 6,
            ..WriteOptions::default()
        };
        let plain = encode_wdl_table(sector, rules, &codes, &opts)
            .unwrap()
            .len();
        let packed = encode_wdl_table(sector, rules, &filled, &opts)
            .unwrap()
            .len();
        let opts19 = WriteOptions {
            level: 19,
            ..WriteOptions::default()
        };
        let packed19 = encode_wdl_table(sector, rules, &filled, &opts19)
            .unwrap()
            .len();
        println!(
            "{name}: {} slots, {cares} stored, {dont} don't care ({lost} lost), {secs:.1} s; \
             level 6: {plain} -> {packed} bytes ({:+.1} %), level 19 {packed19} ({:+.1} %)",
            codes.len(),
            100.0 * (packed as f64 / plain as f64 - 1.0),
            100.0 * (packed19 as f64 / plain as f64 - 1.0),
        );
    }
}
