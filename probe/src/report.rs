//! What the tables say about one position, in the shape every front end
//! prints: the outcome, the best moves and every legal move's outcome, best
//! first. `moulin probe --json`, `moulin serve`'s `/api/probe` and the
//! WebAssembly build all serialise [`Report::json`], so a field added to
//! [`JsonReport`] or [`JsonMove`] appears in all three.

use crate::advice::{AdviceOptions, Chances};
use crate::error::ProbeError;
use crate::tablebase::Tablebase;
use moulin_core::position::Position;
use moulin_core::rules::Move;
use moulin_core::value::RuleOutcome;
use serde::Serialize;

/// A position's outcome and every legal move's outcome, from the tables.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The position asked about.
    pub position: Position,
    /// Its outcome for the player to move (tables without the no-capture
    /// rule give only wins, draws and losses).
    pub outcome: RuleOutcome,
    /// Every legal move with its outcome for the mover, best first (moves of
    /// equal value by practical chances with `with_chances`, else in the
    /// order of `Rules::legal_moves`). Empty when the game is over. Under
    /// the no-capture rule each move is valued at the counter it leads to.
    pub moves: Vec<(Move, RuleOutcome)>,
    /// The practical chances of each move, in the order of `moves` (empty
    /// from `Report::new`).
    pub chances: Vec<Chances>,
}

/// One JSON object of `moulin probe --json`: `position`, `outcome` (`win`,
/// `loss`, `draw`; under the no-capture rule also `cursed-win` and
/// `blessed-loss`), `distance` (turns, null for a draw; under the rule the
/// distance to conversion), `best_moves`, and `moves` (`move`, `outcome`,
/// `distance` and `chances` for each, best first).
#[derive(Clone, Debug, Serialize)]
pub struct JsonReport {
    /// The position in the notation of `docs/rules.md`.
    pub position: String,
    /// `win`, `loss` or `draw` for the player to move (`cursed-win`,
    /// `blessed-loss` too under the no-capture rule).
    pub outcome: &'static str,
    /// Turns to the end of the game (under the no-capture rule: to the next
    /// conversion), `None` (null) for a draw.
    pub distance: Option<u16>,
    /// The moves that keep the outcome optimal.
    pub best_moves: Vec<String>,
    /// Every legal move, best first.
    pub moves: Vec<JsonMove>,
}

/// One move in [`JsonReport::moves`].
#[derive(Clone, Debug, Serialize)]
pub struct JsonMove {
    /// The move in the notation of `docs/rules.md` (`d2`, `b2-b4`, `b2-b4xg4`).
    #[serde(rename = "move")]
    pub mv: String,
    /// `win`, `loss` or `draw` (`cursed-win`, `blessed-loss`) for the
    /// player who makes the move.
    pub outcome: &'static str,
    /// Turns to the end of the game (to conversion) counting this move,
    /// `None` for a draw.
    pub distance: Option<u16>,
    /// What the opponent's replies do (absent with `--no-chances`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chances: Option<Chances>,
}

/// The JSON object for a position that has no answer: `position` as it was
/// typed and `error`, the message.
#[derive(Clone, Debug, Serialize)]
pub struct JsonError<'a> {
    /// The position as it was given.
    pub position: &'a str,
    /// Why there is no answer.
    pub error: &'a str,
}

impl Report {
    /// Probes a position and all its moves (under the no-capture rule: at
    /// counter 0).
    ///
    /// # Errors
    /// Those of [`Tablebase::probe`] and [`Tablebase::probe_moves`] (under
    /// the rule, [`Tablebase::probe_counter`]).
    ///
    /// # Example
    /// ```
    /// use moulin_probe::report::Report;
    /// use moulin_probe::{Position, Rules, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # moulin::doc_example::tiny_table(dir.path(), Rules::default())?;
    /// let tb = Tablebase::open(dir.path())?; // the 3 v 3 table of the crate's example
    /// let pos: Position = "W:a1,d1,g7 B:b2,d2,f6 w".parse()?;
    /// let json = Report::new(&tb, pos)?.json();
    /// assert_eq!((json.outcome, json.distance), ("win", Some(1)));
    /// assert_eq!(json.best_moves, ["g7-g1xb2", "g7-g1xd2", "g7-g1xf6"]);
    /// assert_eq!(json.moves.len(), 56); // every legal move, best first
    /// assert_eq!(json.moves[0].mv, "g7-g1xb2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(tb: &Tablebase, position: Position) -> Result<Report, ProbeError> {
        if tb.no_capture_limit().is_some() {
            return Report::at_counter(tb, position, 0);
        }
        let outcome = tb.probe(&position)?.into();
        let mut moves: Vec<(Move, RuleOutcome)> = tb
            .probe_moves(&position)?
            .into_iter()
            .map(|(m, o)| (m, o.into()))
            .collect();
        moves.sort_by_key(|(_, o)| -o.rank());
        Ok(Report {
            position,
            outcome,
            moves,
            chances: Vec::new(),
        })
    }

    /// Probes a position under the tables' no-capture rule when `counter`
    /// turns have passed without a capture, and all its moves at the
    /// counter each leads to (`Tablebase::probe_counter`).
    ///
    /// # Errors
    /// Those of [`Tablebase::probe_counter`], such as
    /// [`ProbeError::NoCaptureRule`] for tables without the rule.
    pub fn at_counter(
        tb: &Tablebase,
        position: Position,
        counter: u16,
    ) -> Result<Report, ProbeError> {
        let outcome = tb.probe_counter(&position, counter)?;
        let mut moves = tb.probe_moves_counter(&position, counter)?;
        moves.sort_by_key(|(_, o)| -o.rank());
        Ok(Report {
            position,
            outcome,
            moves,
            chances: Vec::new(),
        })
    }

    /// Probes a position and all its moves with their practical chances,
    /// moves of equal value ordered by them (`MoveAdvice::practical_order`).
    /// Under the no-capture rule: [`Report::at_counter`] at counter 0,
    /// without chances.
    ///
    /// # Errors
    /// Those of [`Tablebase::advise`].
    pub fn with_chances(
        tb: &Tablebase,
        position: Position,
        options: &AdviceOptions,
    ) -> Result<Report, ProbeError> {
        if tb.no_capture_limit().is_some() {
            // The chances count replies without the counter: none here.
            return Report::at_counter(tb, position, 0);
        }
        let outcome = tb.probe(&position)?.into();
        let advice = tb.advise(&position, options)?;
        Ok(Report {
            position,
            outcome,
            moves: advice.iter().map(|a| (a.mv, a.outcome.into())).collect(),
            chances: advice.iter().map(|a| a.chances).collect(),
        })
    }

    /// The moves that keep the outcome optimal, in the order of `moves`.
    pub fn best(&self) -> impl Iterator<Item = Move> + '_ {
        let top = self.moves.first().map(|(_, o)| o.rank());
        self.moves
            .iter()
            .take_while(move |(_, o)| Some(o.rank()) == top)
            .map(|(m, _)| *m)
    }

    /// The report as `moulin probe --json` prints it.
    pub fn json(&self) -> JsonReport {
        JsonReport {
            position: self.position.to_string(),
            outcome: self.outcome.word(),
            distance: self.outcome.distance(),
            best_moves: self.best().map(|m| m.to_string()).collect(),
            moves: self
                .moves
                .iter()
                .enumerate()
                .map(|(i, (m, o))| JsonMove {
                    mv: m.to_string(),
                    outcome: o.word(),
                    distance: o.distance(),
                    chances: self.chances.get(i).copied(),
                })
                .collect(),
        }
    }
}
