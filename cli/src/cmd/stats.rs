//! `moulin stats`: per-sector counts of the solved tables, read from their
//! headers (no table is decompressed).

use anyhow::Context;
use moulin_core::table::{Counts, TableSummary};
use moulin_probe::{Sector, Tablebase};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `moulin stats`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Print a JSON list of objects (one per sector) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Win, loss and draw counts in `moulin stats --json`.
#[derive(Serialize)]
pub struct CountsJson {
    /// Won for the player to move.
    pub win: u64,
    /// Lost for the player to move.
    pub loss: u64,
    /// Drawn.
    pub draw: u64,
}

impl From<&Counts> for CountsJson {
    fn from(c: &Counts) -> CountsJson {
        CountsJson {
            win: c.win,
            loss: c.loss,
            draw: c.draw,
        }
    }
}

/// One sector's object in `moulin stats --json`.
#[derive(Serialize)]
pub struct SectorStats {
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
    /// Outcomes over all positions, every symmetric copy counted.
    pub positions: CountsJson,
    /// Outcomes over symmetry classes (stored slots).
    pub classes: CountsJson,
    /// Longest win in turns (null: no win).
    pub max_win: Option<u16>,
    /// Longest loss in turns (null: no loss).
    pub max_loss: Option<u16>,
    /// Size of the file.
    pub bytes: u64,
    /// Bits of file per position.
    pub bits_per_position: f64,
    /// Bits of file per class.
    pub bits_per_class: f64,
    /// Slots of the index (classes and holes).
    pub slots: u64,
    /// Slots that are holes.
    pub holes: u64,
    /// Bytes per decoded value (1 or 2).
    pub value_bytes: u8,
    /// Compressed blocks.
    pub blocks: u32,
    /// The flying rule of the tables.
    pub flying: bool,
    /// The no-capture limit of rule tables (null: no such rule).
    pub no_capture_limit: Option<u16>,
    /// Rule tables: classes won without the rule, drawn under it at counter
    /// 0 (among the draws of `classes`).
    pub cursed_wins: u64,
    /// Rule tables: classes lost without the rule, drawn under it at
    /// counter 0 (among the draws of `classes`).
    pub blessed_losses: u64,
}

impl SectorStats {
    /// The statistics of a table header.
    pub fn of(s: &TableSummary) -> SectorStats {
        let sector = s.sector;
        SectorStats {
            sector: sector.name(),
            stm_board: sector.stm_board,
            opp_board: sector.opp_board,
            stm_hand: sector.stm_hand,
            opp_hand: sector.opp_hand,
            positions: (&s.positions).into(),
            classes: (&s.classes).into(),
            max_win: s.max_win,
            max_loss: s.max_loss,
            bytes: s.bytes,
            bits_per_position: bits_per(s.bytes, s.positions.total()),
            bits_per_class: bits_per(s.bytes, s.classes.total()),
            slots: s.slots,
            holes: s.holes,
            value_bytes: s.encoding.width(),
            blocks: s.blocks,
            flying: s.rules.flying,
            no_capture_limit: s.rules.no_capture_limit,
            cursed_wins: s.cursed_wins,
            blessed_losses: s.blessed_losses,
        }
    }
}

fn bits_per(bytes: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 / count as f64
    }
}

fn add(total: &mut Counts, c: &Counts) {
    total.win += c.win;
    total.loss += c.loss;
    total.draw += c.draw;
}

fn distance(d: Option<u16>) -> String {
    d.map_or("-".into(), |d| d.to_string())
}

fn row(
    name: &str,
    p: &Counts,
    c: &Counts,
    win: Option<u16>,
    loss: Option<u16>,
    bytes: u64,
) -> String {
    format!(
        "{name:<9} {:>14} {:>14} {:>14} {:>12} {:>12} {:>12} {:>7} {:>8} {:>13} {:>9.3}\n",
        p.win,
        p.loss,
        p.draw,
        c.win,
        c.loss,
        c.draw,
        distance(win),
        distance(loss),
        bytes,
        bits_per(bytes, c.total()),
    )
}

/// Runs `moulin stats`.
pub fn run(args: &Args) -> super::Outcome {
    let tb = Tablebase::open(&args.dir)
        .with_context(|| format!("cannot open the tables in {}", args.dir.display()))?;
    // Solving order first, then anything else present.
    let order = Sector::all(true);
    // A play set's bytes are those of both its files.
    let owned: Vec<TableSummary> = tb
        .sectors()
        .map(|(sector, s)| {
            let distances = tb.play_distances().and_then(|d| d.summary(sector).ok());
            TableSummary {
                bytes: s.bytes + distances.map_or(0, |d| d.bytes),
                ..*s
            }
        })
        .collect();
    let mut tables: Vec<&TableSummary> = owned.iter().collect();
    tables.sort_by_key(|s| {
        order
            .iter()
            .position(|o| *o == s.sector)
            .unwrap_or(usize::MAX)
    });
    if args.json {
        let list: Vec<SectorStats> = tables.iter().map(|s| SectorStats::of(s)).collect();
        return print(&format!("{}\n", serde_json::to_string_pretty(&list)?));
    }
    if tables.is_empty() {
        return print(&format!("no tables in {}\n", args.dir.display()));
    }
    if let Some(n) = tb.no_capture_limit() {
        return print(&rule_stats(args, &tb, n, &tables));
    }
    let mut out = format!(
        "tables in {} (rules: {})\n{:<9} {:>14} {:>14} {:>14} {:>12} {:>12} {:>12} {:>7} {:>8} {:>13} {:>9}\n",
        args.dir.display(),
        tb.rules(),
        "sector",
        "pos. won",
        "pos. lost",
        "pos. drawn",
        "classes won",
        "lost",
        "drawn",
        "max win",
        "max loss",
        "bytes",
        "bits/cls"
    );
    let (mut positions, mut classes, mut bytes) = (Counts::default(), Counts::default(), 0);
    let (mut max_win, mut max_loss) = (None, None);
    for s in &tables {
        out.push_str(&row(
            &s.sector.name(),
            &s.positions,
            &s.classes,
            s.max_win,
            s.max_loss,
            s.bytes,
        ));
        add(&mut positions, &s.positions);
        add(&mut classes, &s.classes);
        bytes += s.bytes;
        max_win = max_win.max(s.max_win);
        max_loss = max_loss.max(s.max_loss);
    }
    out.push_str(&row(
        "total", &positions, &classes, max_win, max_loss, bytes,
    ));
    out.push_str(&format!(
        "{} sector{}, {} positions ({} classes) in {} bytes: {:.3} bits per position, {:.3} per class\n",
        tables.len(),
        if tables.len() == 1 { "" } else { "s" },
        positions.total(),
        classes.total(),
        bytes,
        bits_per(bytes, positions.total()),
        bits_per(bytes, classes.total()),
    ));
    print(&out)
}

/// The table of rule tables: per sector the classes of the five values at
/// counter 0 and the longest DTC of a win and of a loss.
fn rule_stats(args: &Args, tb: &Tablebase, n: u16, tables: &[&TableSummary]) -> String {
    let mut out = format!(
        "tables in {} (rules: {}); values at counter 0, distances to conversion\n\
         {:<9} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>8} {:>13}\n",
        args.dir.display(),
        tb.rules(),
        "sector",
        "classes",
        "won",
        "cursed won",
        "drawn",
        "blessed lost",
        "lost",
        "max win",
        "max loss",
        "bytes"
    );
    let mut total = [0u64; 7];
    let (mut max_win, mut max_loss) = (None, None);
    let line = |name: &str, v: [u64; 7], win: Option<u16>, loss: Option<u16>| {
        format!(
            "{name:<9} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>8} {:>13}\n",
            v[0],
            v[1],
            v[2],
            v[3],
            v[4],
            v[5],
            distance(win),
            distance(loss),
            v[6]
        )
    };
    for s in tables {
        let c = &s.classes;
        let plain_draws = c.draw - s.cursed_wins - s.blessed_losses;
        let v = [
            c.total(),
            c.win,
            s.cursed_wins,
            plain_draws,
            s.blessed_losses,
            c.loss,
            s.bytes,
        ];
        out.push_str(&line(&s.sector.name(), v, s.max_win, s.max_loss));
        for (t, x) in total.iter_mut().zip(v) {
            *t += x;
        }
        max_win = max_win.max(s.max_win);
        max_loss = max_loss.max(s.max_loss);
    }
    out.push_str(&line("total", total, max_win, max_loss));
    out.push_str(&format!(
        "{} sector{}, no-capture limit {n}: {} cursed wins and {} blessed losses among {} classes\n",
        tables.len(),
        if tables.len() == 1 { "" } else { "s" },
        total[2],
        total[4],
        total[0],
    ));
    out
}

/// Prints to standard output; a closed pipe (`| head`) is not an error.
fn print(text: &str) -> super::Outcome {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(true),
    }
}
