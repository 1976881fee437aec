//! The counts a table's header gives, recomputed from its values.

use moulin_core::table::{Counts, TableSummary};
use moulin_probe::RuleOutcome;

/// Outcome counts recomputed from the values, to compare with a header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Outcomes over the canonical slots.
    pub classes: Counts,
    /// Outcomes over all positions, every symmetric copy counted.
    pub positions: Counts,
    /// Non-canonical slots.
    pub holes: u64,
    /// Longest stored win.
    pub max_win: Option<u16>,
    /// Longest stored loss.
    pub max_loss: Option<u16>,
    /// Cursed wins among the classes drawn (rule tables).
    pub cursed_wins: u64,
    /// Blessed losses among the classes drawn (rule tables).
    pub blessed_losses: u64,
}

impl Tally {
    /// Adds the counts of `o`.
    pub(crate) fn add(&mut self, o: &Tally) {
        for (a, b) in [
            (&mut self.classes, &o.classes),
            (&mut self.positions, &o.positions),
        ] {
            a.win += b.win;
            a.loss += b.loss;
            a.draw += b.draw;
        }
        self.holes += o.holes;
        self.cursed_wins += o.cursed_wins;
        self.blessed_losses += o.blessed_losses;
        self.max_win = self.max_win.max(o.max_win);
        self.max_loss = self.max_loss.max(o.max_loss);
    }

    /// How a header disagrees with the tally, one line per field.
    pub fn header_disagreements(&self, s: &TableSummary) -> Vec<String> {
        let mut out = Vec::new();
        let mut field = |name: &str, header: String, values: String| {
            if header != values {
                out.push(format!(
                    "the header says {header} {name}, the values hold {values}"
                ));
            }
        };
        let counts = [
            ("classes won", s.classes.win, self.classes.win),
            ("classes lost", s.classes.loss, self.classes.loss),
            ("classes drawn", s.classes.draw, self.classes.draw),
            ("positions won", s.positions.win, self.positions.win),
            ("positions lost", s.positions.loss, self.positions.loss),
            ("positions drawn", s.positions.draw, self.positions.draw),
            ("holes", s.holes, self.holes),
            ("classes cursed won", s.cursed_wins, self.cursed_wins),
            (
                "classes blessed lost",
                s.blessed_losses,
                self.blessed_losses,
            ),
        ];
        for (name, h, v) in counts {
            field(name, h.to_string(), v.to_string());
        }
        let d = |d: Option<u16>| d.map_or("none".to_string(), |d| d.to_string());
        field("as longest win", d(s.max_win), d(self.max_win));
        field("as longest loss", d(s.max_loss), d(self.max_loss));
        out
    }
}

/// Counts `classes` classes of value `value`, of `weight` positions each.
pub fn count(t: &mut Tally, value: RuleOutcome, classes: u64, weight: u64) {
    let positions = classes * weight;
    match value {
        RuleOutcome::Win(d) => {
            t.classes.win += classes;
            t.positions.win += positions;
            t.max_win = t.max_win.max(Some(d));
        }
        RuleOutcome::Loss(d) => {
            t.classes.loss += classes;
            t.positions.loss += positions;
            t.max_loss = t.max_loss.max(Some(d));
        }
        other => {
            t.classes.draw += classes;
            t.positions.draw += positions;
            match other {
                RuleOutcome::CursedWin(_) => t.cursed_wins += classes,
                RuleOutcome::BlessedLoss(_) => t.blessed_losses += classes,
                _ => {}
            }
        }
    }
}
