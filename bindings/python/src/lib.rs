//! The Python module `moulin`: the tablebase probe of `moulin-probe` for
//! Python 3.9+ (one abi3 wheel). The public face is documented in
//! `python/moulin/__init__.pyi`.
#![warn(missing_docs)]

use moulin_probe::error::chain;
use moulin_probe::remote::RemoteOptions;
use moulin_probe::{ErrorKind, Move, Outcome, Position, ProbeError, RuleOutcome, Rules, Tablebase};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::path::PathBuf;

create_exception!(
    moulin,
    TableError,
    PyOSError,
    "The tables cannot answer: a directory that cannot be read, tables of mixed rules."
);
create_exception!(
    moulin,
    MissingTableError,
    TableError,
    "No table of the position's sector in the directory (`moulin solve` writes it)."
);
create_exception!(
    moulin,
    DamagedTableError,
    TableError,
    "A table file is damaged: truncated, bad checksum, not a table, wrong name."
);
create_exception!(
    moulin,
    WdlOnlyError,
    TableError,
    "WDL tables (`Tablebase(path, wdl=True)`) were asked for a distance, best moves or \
     moves: they store outcomes only (ask `probe_wdl`, or open the distance tables)."
);

/// The message of a distance asked of WDL tables (the library's message names
/// Rust calls; this one the Python API).
const WDL_ONLY: &str = "these are WDL tables (outcomes only, no distances): ask for the \
     outcome alone with probe_wdl, or open the distance tables with Tablebase(path)";

fn probe_error(error: ProbeError) -> PyErr {
    probe_error_in(error, "")
}

/// The Python exception of an error, its message after `prefix`.
fn probe_error_in(error: ProbeError, prefix: &str) -> PyErr {
    let text = format!("{prefix}{}", chain(&error));
    match error.kind() {
        ErrorKind::MissingTable => MissingTableError::new_err(text),
        ErrorKind::InvalidPosition | ErrorKind::Counter | ErrorKind::BadUrl => {
            PyValueError::new_err(text)
        }
        ErrorKind::DamagedTable => DamagedTableError::new_err(text),
        ErrorKind::WdlOnly => WdlOnlyError::new_err(format!("{prefix}{WDL_ONLY}")),
        // `Io` and `Rules`, and any kind without a class of its own.
        _ => TableError::new_err(text),
    }
}

fn parse_position(text: &str) -> PyResult<Position> {
    text.parse()
        .map_err(|e| PyValueError::new_err(format!("invalid position `{text}`: {e}")))
}

/// A position as `str` or `Position`.
fn position_arg(position: &Bound<'_, PyAny>) -> PyResult<Position> {
    if let Ok(p) = position.extract::<PyRef<'_, PyPosition>>() {
        return Ok(p.0);
    }
    match position.extract::<String>() {
        Ok(text) => parse_position(&text),
        // A str that is not valid Unicode (lone surrogates): UnicodeEncodeError,
        // a ValueError.
        Err(e) if position.is_instance_of::<PyString>() => Err(e),
        Err(_) => Err(PyTypeError::new_err(format!(
            "a position is a str or a moulin.Position, not {}",
            position.get_type().name()?
        ))),
    }
}

fn points(set: u32) -> Vec<&'static str> {
    moulin_probe::board::points(set).map(|p| p.name()).collect()
}

/// A position: stones on the board and in hand, and the side to move.
#[pyclass(name = "Position", module = "moulin", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct PyPosition(Position);

#[pymethods]
impl PyPosition {
    /// Parses `W:<points> B:<points> <w|b> [<white in hand> <black in hand>]`
    /// (`W: B: w 9 9` is the start); ValueError names what is wrong.
    #[new]
    fn new(text: &str) -> PyResult<PyPosition> {
        parse_position(text).map(PyPosition)
    }

    /// The start of the game: empty board, nine stones in hand each.
    #[staticmethod]
    fn start() -> PyPosition {
        PyPosition(Position::start())
    }

    /// `'w'` or `'b'`: the player to move.
    #[getter]
    fn side_to_move(&self) -> char {
        self.0.side.letter()
    }

    /// White's stones still to be placed.
    #[getter]
    fn white_hand(&self) -> u8 {
        self.0.white_hand
    }

    /// Black's stones still to be placed.
    #[getter]
    fn black_hand(&self) -> u8 {
        self.0.black_hand
    }

    /// White's points on the board, in the canonical order (`a1`, `d1`, ...).
    #[getter]
    fn white(&self) -> Vec<&'static str> {
        points(self.0.white)
    }

    /// Black's points on the board, in the canonical order.
    #[getter]
    fn black(&self) -> Vec<&'static str> {
        points(self.0.black)
    }

    /// Every legal move (`d2`, `b2-b4`, `b2-b4xg4`); empty when the game is over.
    #[pyo3(signature = (flying = true))]
    fn legal_moves(&self, flying: bool) -> Vec<String> {
        Rules::with_flying(flying)
            .legal_moves(&self.0)
            .iter()
            .map(Move::to_string)
            .collect()
    }

    /// The position after a legal move; ValueError for a malformed or
    /// illegal one.
    #[pyo3(signature = (r#move, flying = true))]
    fn play(&self, r#move: &str, flying: bool) -> PyResult<PyPosition> {
        let mv: Move = r#move
            .parse()
            .map_err(|e| PyValueError::new_err(format!("invalid move `{move}`: {e}")))?;
        Rules::with_flying(flying)
            .play(&self.0, mv)
            .map(PyPosition)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Whether the player to move has lost: fewer than three stones, or
    /// blocked.
    #[pyo3(signature = (flying = true))]
    fn is_lost(&self, flying: bool) -> bool {
        Rules::with_flying(flying).is_lost(&self.0.node())
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}')", self.0)
    }
}

/// What the tables say about a position, for the player to move.
#[pyclass(name = "Probe", module = "moulin", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct PyProbe {
    /// `'win'`, `'draw'` or `'loss'` for the player to move.
    #[pyo3(get)]
    outcome: &'static str,
    /// Turns (plies) to the end of the game under perfect play; None for a draw.
    #[pyo3(get)]
    distance: Option<u16>,
}

#[pymethods]
impl PyProbe {
    fn __repr__(&self) -> String {
        match self.distance {
            Some(d) => format!("Probe(outcome='{}', distance={d})", self.outcome),
            None => format!("Probe(outcome='{}', distance=None)", self.outcome),
        }
    }
}

impl From<Outcome> for PyProbe {
    fn from(o: Outcome) -> PyProbe {
        PyProbe {
            outcome: o.word(),
            distance: o.distance(),
        }
    }
}

impl From<RuleOutcome> for PyProbe {
    fn from(v: RuleOutcome) -> PyProbe {
        PyProbe {
            outcome: v.word(),
            distance: v.distance(),
        }
    }
}

/// The tables of one directory. Opening is cheap (tables are mapped when a
/// probe first needs them); one Tablebase may be shared by threads, and
/// probes release the GIL.
#[pyclass(name = "Tablebase", module = "moulin", frozen)]
struct PyTablebase {
    tables: Tablebase,
}

impl PyTablebase {
    /// The tables, if they can answer distances (not WDL tables).
    fn distance_tables(&self) -> PyResult<&Tablebase> {
        if self.tables.is_wdl() {
            Err(WdlOnlyError::new_err(WDL_ONLY))
        } else {
            Ok(&self.tables)
        }
    }
}

/// The options of a remote table set, checked.
fn remote_options(
    wdl: bool,
    play: bool,
    cache_dir: Option<PathBuf>,
    cache_bytes: Option<u64>,
    timeout: Option<f64>,
) -> PyResult<RemoteOptions> {
    let mut options = RemoteOptions::default()
        .wdl(wdl)
        .play(play)
        .cache_dir(cache_dir);
    if let Some(bytes) = cache_bytes {
        options = options.cache_bytes(bytes);
    }
    if let Some(seconds) = timeout {
        let timeout = std::time::Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "timeout {seconds} is not a positive number of seconds"
                ))
            })?;
        options = options.timeout(timeout);
    }
    Ok(options)
}

#[pymethods]
impl PyTablebase {
    /// Opens the `*.mtb` tables of a directory, or with `wdl=True` its WDL
    /// tables (`*.mtw`: outcomes only, much smaller), which answer
    /// `probe_wdl` alone (the other probes raise WdlOnlyError). TableError
    /// (an OSError) if the directory cannot be listed, DamagedTableError if
    /// a table's header is damaged.
    ///
    /// `path` may be an `http://` or `https://` URL under which the tables
    /// lie as `<url>/<sector>.mtb` (as `moulin serve` serves them): read by
    /// range requests, each table when first needed; `timeout` (seconds,
    /// default 30) bounds connecting and each read, `cache_dir` keeps
    /// fetched blocks on disk up to `cache_bytes` (default 1 GiB). A server
    /// error or timeout raises TableError naming the URL and the status.
    /// A directory holding a play set (`moulin pack`) opens as one; a
    /// remote play set (`<url>/<sector>.mtw` and `.mtd`) needs `play=True`.
    #[new]
    #[pyo3(signature = (path, *, wdl = false, play = false, cache_dir = None, cache_bytes = None, timeout = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        wdl: bool,
        play: bool,
        cache_dir: Option<PathBuf>,
        cache_bytes: Option<u64>,
        timeout: Option<f64>,
    ) -> PyResult<PyTablebase> {
        let what = if wdl { "WDL tables" } else { "tables" };
        let url = path
            .to_str()
            .filter(|p| p.starts_with("http://") || p.starts_with("https://"));
        let remote = match url {
            Some(url) => Some((
                url,
                remote_options(wdl, play, cache_dir, cache_bytes, timeout)?,
            )),
            None if cache_dir.is_some() || cache_bytes.is_some() || timeout.is_some() || play => {
                return Err(PyValueError::new_err(
                    "play, cache_dir, cache_bytes and timeout are options of a remote table set \
                     (an http:// or https:// URL), not of a directory (which opens as a play \
                     set when it holds one)",
                ))
            }
            None => None,
        };
        let tables = py
            .detach(|| match remote {
                Some((url, options)) => Tablebase::open_url_with(url, options),
                None if wdl => Tablebase::open_wdl(&path),
                None => Tablebase::open(&path),
            })
            .map_err(|e| {
                probe_error_in(
                    e,
                    &format!("cannot open the {what} in {}: ", path.display()),
                )
            })?;
        Ok(PyTablebase { tables })
    }

    /// The outcome of a position (str or Position) for the player to move,
    /// without its distance: 'win', 'draw' or 'loss' (a finished game is a
    /// loss). From WDL tables or from distance tables (there the outcome of
    /// `probe`, under the no-capture rule at counter 0, a cursed win or
    /// blessed loss a draw).
    fn probe_wdl(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<&'static str> {
        let position = position_arg(position)?;
        Ok(py
            .detach(|| self.tables.probe_wdl(&position))
            .map_err(probe_error)?
            .word())
    }

    /// Whether these are WDL tables (`Tablebase(path, wdl=True)`).
    #[getter]
    fn is_wdl(&self) -> bool {
        self.tables.is_wdl()
    }

    /// The outcome and distance of a position (str or Position) for the
    /// player to move; a finished game is a loss in 0. With `counter` (turns
    /// since the last capture or placement), under the tables' no-capture
    /// rule: 'win', 'cursed-win', 'draw', 'blessed-loss' or 'loss' with the
    /// distance to conversion; ValueError for a counter the tables cannot
    /// answer (or tables without the rule).
    #[pyo3(signature = (position, counter = None))]
    fn probe(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        counter: Option<u16>,
    ) -> PyResult<PyProbe> {
        let position = position_arg(position)?;
        let tables = self.distance_tables()?;
        match counter {
            None => Ok(py
                .detach(|| tables.probe(&position))
                .map_err(probe_error)?
                .into()),
            Some(c) => Ok(py
                .detach(|| tables.probe_counter(&position, c))
                .map_err(probe_error)?
                .into()),
        }
    }

    /// The best moves: the fastest wins, else every drawing move, else the
    /// slowest losses (in the order of `legal_moves`); with `counter`,
    /// under the no-capture rule.
    #[pyo3(signature = (position, counter = None))]
    fn best_moves(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        counter: Option<u16>,
    ) -> PyResult<Vec<String>> {
        let position = position_arg(position)?;
        let tables = self.distance_tables()?;
        let best = py
            .detach(|| match counter {
                None => tables.best_moves(&position),
                Some(c) => tables.best_moves_counter(&position, c),
            })
            .map_err(probe_error)?;
        Ok(best.iter().map(Move::to_string).collect())
    }

    /// Every legal move as `(move, outcome, distance)` for the player who
    /// makes it, best first (ties in the order of `legal_moves`): the order
    /// of `moulin probe --json`.
    /// With `counter`, under the no-capture rule, each move valued at the
    /// counter it leads to.
    #[allow(clippy::type_complexity)]
    #[pyo3(signature = (position, counter = None))]
    fn moves(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        counter: Option<u16>,
    ) -> PyResult<Vec<(String, &'static str, Option<u16>)>> {
        let position = position_arg(position)?;
        let tables = self.distance_tables()?;
        let mut moves: Vec<(Move, RuleOutcome)> = py
            .detach(|| match counter {
                None => tables.probe_moves(&position).map(|moves| {
                    moves
                        .into_iter()
                        .map(|(m, o)| (m, RuleOutcome::from(o)))
                        .collect()
                }),
                Some(c) => tables.probe_moves_counter(&position, c),
            })
            .map_err(probe_error)?;
        moves.sort_by_key(|(_, o)| -o.rank());
        Ok(moves
            .into_iter()
            .map(|(m, o)| (m.to_string(), o.word(), o.distance()))
            .collect())
    }

    /// The directory of the tables.
    #[getter]
    fn path(&self) -> PathBuf {
        self.tables.dir().to_path_buf()
    }

    /// Whether the tables were solved with flying (three stones fly).
    #[getter]
    fn flying(&self) -> bool {
        self.tables.rules().flying
    }

    /// The no-capture limit the tables were solved under (turns without a
    /// capture before the game is drawn), None for tables without the rule.
    #[getter]
    fn no_capture_limit(&self) -> Option<u16> {
        self.tables.no_capture_limit()
    }

    /// The sectors present, like `['3v3', '3v4', ...]`.
    fn sectors(&self) -> Vec<String> {
        self.tables.sectors().map(|(s, _)| s.to_string()).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Tablebase('{}', {} {}tables)",
            self.tables.dir().display(),
            self.tables.sectors().count(),
            if self.tables.is_wdl() { "WDL " } else { "" }
        )
    }
}

/// Perfect play for Nine Men's Morris from the moulin tables.
#[pymodule]
fn _moulin(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyTablebase>()?;
    m.add_class::<PyProbe>()?;
    m.add_class::<PyPosition>()?;
    m.add("TableError", py.get_type::<TableError>())?;
    m.add("MissingTableError", py.get_type::<MissingTableError>())?;
    m.add("DamagedTableError", py.get_type::<DamagedTableError>())?;
    m.add("WdlOnlyError", py.get_type::<WdlOnlyError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
