//! Synthetic tables for the table tests: deterministic codes per slot, holes
//! exactly where the index has them.
#![allow(dead_code)]

use moulin_core::index::Indexer;
use moulin_core::value::HOLE;
use moulin_probe::Sector;

use moulin_core::seeded::splitmix64;

/// Codes for every slot of `sector`: `HOLE` at the holes, else a code below
/// `below` (at least 1) picked from the slot and `seed`, draws (0) for about
/// half of the slots so that the table compresses somewhat.
pub fn values(sector: Sector, below: u16, seed: u64) -> Vec<u16> {
    let ix = Indexer::get();
    (0..ix.slots(sector))
        .map(|slot| {
            if !ix.is_canonical(sector, slot) {
                return HOLE;
            }
            let r = splitmix64(slot ^ seed.rotate_left(32));
            if r & 1 == 0 {
                0
            } else {
                ((r >> 8) % below as u64) as u16
            }
        })
        .collect()
}

/// Holes of a sector, as a code vector with draws everywhere else.
pub fn draws(sector: Sector) -> Vec<u16> {
    values(sector, 1, 0)
}

/// An error's message followed by its sources', joined with `: `.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
