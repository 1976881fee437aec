//! `moulin sectors`: every sector in solving order with its sizes: positions
//! counting every symmetric copy, symmetry classes, slots of the index and
//! the holes among them (slots that store no class of their own).

use super::moves::write_stdout;
use moulin_core::index::{count_classes, count_positions, Indexer};
use moulin_probe::Sector;
use serde::Serialize;

/// Arguments of `moulin sectors`.
#[derive(clap::Args)]
pub struct Args {
    /// Print a JSON list of objects instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Every sector of the game, placement phase included (default: the 49
    /// sectors of the moving phase).
    #[arg(long, visible_alias = "all")]
    pub placement: bool,
}

/// The sizes of one sector, as printed by `moulin sectors --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectorSizes {
    /// The sector's name (`8v7`, `3v2h5v4`).
    pub sector: String,
    /// Stones on the board of the player to move.
    pub stm_board: u8,
    /// Stones on the board of the opponent.
    pub opp_board: u8,
    /// Stones in hand of the player to move.
    pub stm_hand: u8,
    /// Stones in hand of the opponent.
    pub opp_hand: u8,
    /// Positions, every symmetric copy counted.
    pub positions: u64,
    /// Classes of positions under the 16 board symmetries.
    pub classes: u64,
    /// Slots of the index (classes plus holes).
    pub slots: u64,
}

impl SectorSizes {
    /// Computes the sizes of a sector.
    pub fn of(sector: Sector) -> SectorSizes {
        SectorSizes {
            sector: sector.name(),
            stm_board: sector.stm_board,
            opp_board: sector.opp_board,
            stm_hand: sector.stm_hand,
            opp_hand: sector.opp_hand,
            positions: count_positions(sector),
            classes: count_classes(sector),
            slots: Indexer::get().slots(sector),
        }
    }
}

/// Share of slots that are holes, in percent.
fn slack(classes: u64, slots: u64) -> f64 {
    if slots == 0 {
        0.0
    } else {
        100.0 * (slots - classes) as f64 / slots as f64
    }
}

/// Runs `moulin sectors`.
pub fn run(args: &Args) -> super::Outcome {
    let rows: Vec<SectorSizes> = Sector::all(args.placement)
        .into_iter()
        .map(SectorSizes::of)
        .collect();
    if args.json {
        let mut json = serde_json::to_string_pretty(&rows)?;
        json.push('\n');
        write_stdout(&json)?;
        return Ok(true);
    }
    let mut out = String::new();
    out.push_str(&format!(
        "{:<9} {:>3} {:>3} {:>4} {:>4} {:>16} {:>15} {:>15} {:>12} {:>7}\n",
        "sector", "stm", "opp", "hand", "opp", "positions", "classes", "slots", "holes", "slack"
    ));
    let (mut positions, mut classes, mut slots) = (0u64, 0u64, 0u64);
    for r in &rows {
        out.push_str(&format!(
            "{:<9} {:>3} {:>3} {:>4} {:>4} {:>16} {:>15} {:>15} {:>12} {:>6.2}%\n",
            r.sector,
            r.stm_board,
            r.opp_board,
            r.stm_hand,
            r.opp_hand,
            r.positions,
            r.classes,
            r.slots,
            r.slots - r.classes,
            slack(r.classes, r.slots)
        ));
        positions += r.positions;
        classes += r.classes;
        slots += r.slots;
    }
    out.push_str(&format!(
        "{:<9} {:>3} {:>3} {:>4} {:>4} {:>16} {:>15} {:>15} {:>12} {:>6.2}%\n",
        format!("total {}", rows.len()),
        "",
        "",
        "",
        "",
        positions,
        classes,
        slots,
        slots - classes,
        slack(classes, slots)
    ));
    write_stdout(&out)?;
    Ok(true)
}
