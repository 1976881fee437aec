//! The small table the examples of this documentation read.

use crate::write::{write_table, write_wdl_table_with, WriteOptions};
use moulin_core::{index::Indexer, value::HOLE};
use moulin_core::{Outcome, Position, RuleOutcome, Rules, Sector, Side};
use std::path::Path;

/// Writes the 3 v 3 example table of the documentation into `dir`: the
/// table of the crate's section "The table of the examples", a win in 1
/// where the player to move can close a mill and a draw elsewhere, with
/// its WDL table beside it; under the no-capture rule, [`RuleOutcome`]
/// codes and no WDL table. Public only for the doc examples, which call
/// it in a hidden line; not part of the probing API.
///
/// # Errors
/// Those of [`write_table`] and [`write_wdl_table_with`].
#[doc(hidden)]
pub fn tiny_table(dir: &Path, rules: Rules) -> Result<(), Box<dyn std::error::Error>> {
    let (sector, ix) = (Sector::moving(3, 3), Indexer::get());
    let (win, draw) = match rules.no_capture_limit {
        None => (Outcome::Win(1).code(), Outcome::Draw.code()),
        Some(_) => (RuleOutcome::Win(1).code(), RuleOutcome::Draw.code()),
    };
    let codes: Vec<u16> = (0..ix.slots(sector))
        .map(|slot| match ix.unindex(sector, slot) {
            Some(node) if ix.index(&node) == slot => {
                let pos = Position::from_node(node, Side::White);
                let mill = rules.legal_moves(&pos).iter().any(|m| m.remove.is_some());
                if mill {
                    win.unwrap()
                } else {
                    draw.unwrap()
                }
            }
            _ => HOLE,
        })
        .collect();
    write_table(dir, sector, rules, &codes)?;
    if rules.no_capture_limit.is_none() {
        write_wdl_table_with(dir, sector, rules, &codes, &WriteOptions::default())?;
    }
    Ok(())
}
