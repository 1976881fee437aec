//! The solver: sectors in dependency order, each moving-phase pair by
//! retrograde analysis (`retro`), written as tables.

pub mod driver;
pub mod memory;
pub mod placement;
pub mod record;
pub mod retro;
pub mod scheme;

pub use driver::{solve_moving, SolveOptions, SolveReport};

use moulin_probe::{Rules, Sector};
use retro::LowerSectors;
use std::collections::HashMap;

/// Solved sectors kept in memory, by sector.
#[derive(Default)]
pub struct Solved {
    tables: HashMap<Sector, Vec<u16>>,
}

impl Solved {
    /// Adds a solved sector.
    pub fn insert(&mut self, sector: Sector, values: Vec<u16>) {
        self.tables.insert(sector, values);
    }

    /// The codes of a solved sector, if present.
    pub fn get(&self, sector: Sector) -> Option<&[u16]> {
        self.tables.get(&sector).map(Vec::as_slice)
    }

    /// Forgets the sectors `keep` does not want.
    pub fn retain(&mut self, keep: impl Fn(Sector) -> bool) {
        self.tables.retain(|s, _| keep(*s));
    }

    /// Forgets a sector.
    pub fn remove(&mut self, sector: Sector) {
        self.tables.remove(&sector);
    }

    /// The sectors held.
    pub fn sectors(&self) -> Vec<Sector> {
        self.tables.keys().copied().collect()
    }
}

impl LowerSectors for Solved {
    fn values(&self, sector: Sector) -> &[u16] {
        self.get(sector)
            .unwrap_or_else(|| panic!("sector {sector} is solved before it is needed"))
    }
}

/// The moving-phase pairs `(a, b)` with `a <= b`, in solving order, up to `max` stones a side.
pub fn moving_pairs(max: u8) -> Vec<(u8, u8)> {
    Sector::all(false)
        .into_iter()
        .filter(|s| s.stm_board <= s.opp_board && s.opp_board <= max)
        .map(|s| (s.stm_board, s.opp_board))
        .collect()
}

/// The sectors the captures of a pair lead into.
pub fn pair_needs(a: u8, b: u8) -> Vec<Sector> {
    let mut out = Vec::new();
    if b > 3 {
        out.push(Sector::moving(b - 1, a));
    }
    if a > 3 && a != b {
        out.push(Sector::moving(a - 1, b));
    }
    out
}

/// Solves every moving-phase sector up to `max` stones a side in memory.
pub fn solve_moving_in_memory(rules: &Rules, max: u8) -> Solved {
    let mut solved = Solved::default();
    for (a, b) in moving_pairs(max) {
        for (s, v) in retro::solve_pair(rules, a, b, &solved, &retro::Silent) {
            solved.insert(s, v);
        }
    }
    solved
}
