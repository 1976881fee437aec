//! Compares the values of the sectors two table directories both hold
//! (whatever their compression): `cargo run --release --features studies --example same_values -- DIR1 DIR2`.
//! Exit code 1 if any value differs.

use moulin_probe::Tablebase;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(args.len() == 2, "usage: same_values DIR1 DIR2");
    let a = Tablebase::open(&args[0])?;
    let b = Tablebase::open(&args[1])?;
    let mut differ = false;
    for (sector, _) in a.sectors() {
        if b.summary(sector).is_err() {
            continue;
        }
        let (va, vb) = (a.sector_values(sector)?, b.sector_values(sector)?);
        let diff = va.iter().zip(&vb).filter(|(x, y)| x != y).count();
        println!("{sector}: {} slots, {diff} differ", va.len());
        differ |= diff > 0 || va.len() != vb.len();
    }
    if differ {
        std::process::exit(1);
    }
    Ok(())
}
