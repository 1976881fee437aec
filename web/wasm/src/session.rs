//! What the page's worker holds: the tables under a base URL, opened the
//! way the browser needs them, and the JSON answers about positions.

use crate::answers::{info_json, message, moves_json, probe_json, probe_json_at};
use crate::http::{source, Transport};
use moulin_core::index::Indexer;
use moulin_probe::TableKind;
use moulin_probe::{ProbeError, Sector, Tablebase};

/// The tables of one web host and the answers the page asks for.
pub struct Session {
    tablebase: Tablebase,
}

impl Session {
    /// Opens the tables at `<base><sector>.mtb` with `cache_bytes` for
    /// decoded blocks, or, when the host has no `3v3.mtb` but a `3v3.mtw`
    /// and `3v3.mtd`, the play set there (`moulin_core::play`: the same
    /// answers). Also builds the index's tables (a few hundred
    /// milliseconds in a browser: better while the page loads than on the
    /// first probe) and opens the smallest table, 3v3 (its header and block
    /// index), to learn the rules: a web host cannot be listed, and the
    /// legal moves of three-stone positions depend on flying.
    pub fn open(
        base: &str,
        transport: impl Transport + Clone + 'static,
        cache_bytes: usize,
    ) -> Result<Session, String> {
        let of_kind = |kind| source(base, transport.clone(), kind);
        let full = Tablebase::from_source(of_kind(TableKind::Distances))
            .map_err(|e| message(&e))?
            .with_cache_bytes(cache_bytes);
        Indexer::get();
        let first = Sector::moving(3, 3);
        let tablebase = match full.summary(first) {
            Err(ProbeError::MissingSector(_)) => {
                let play = Tablebase::play_from_sources(
                    of_kind(TableKind::Outcomes),
                    of_kind(TableKind::PlayDistances),
                )
                .map_err(|e| message(&e))?
                .with_cache_bytes(cache_bytes);
                // A missing 3v3 leaves the default rules until a table opens.
                match play.summary(first) {
                    Ok(_) => play,
                    Err(_) => full,
                }
            }
            _ => full,
        };
        Ok(Session { tablebase })
    }

    /// `moulin probe --json` of a position (see `answers::probe_json`).
    pub fn probe(&self, position: &str) -> String {
        probe_json(&self.tablebase, position)
    }

    /// `moulin probe --json --counter C` of a position (see
    /// `answers::probe_json_at`).
    pub fn probe_counter(&self, position: &str, counter: u32) -> String {
        probe_json_at(&self.tablebase, position, Some(counter))
    }

    /// The legal moves of a position under the rules of the tables (see
    /// `answers::moves_json`).
    pub fn moves(&self, position: &str) -> String {
        moves_json(self.tablebase.rules(), position)
    }

    /// The rules of the tables (see `answers::info_json`).
    pub fn info(&self) -> String {
        info_json(&self.tablebase)
    }

    /// The tablebase.
    pub fn tablebase(&self) -> &Tablebase {
        &self.tablebase
    }
}
