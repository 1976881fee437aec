//! What is wrong with a query to the tablebase: [`ProbeError`]. What is
//! wrong with one table file is a [`FileError`], its source. The
//! [`ErrorKind`] of an error is what the front ends tell apart.

pub use moulin_core::error::{chain, FileError, HttpStatus};
use moulin_core::position::PositionError;
use moulin_core::rules::Rules;
use moulin_core::sector::Sector;
use std::error::Error;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// What is wrong with a query to a `Tablebase`. Wrapped errors are the
/// `source()`, not part of the message (see `FileError`).
#[derive(Debug)]
#[non_exhaustive]
pub enum ProbeError {
    /// No table of this sector in the directory.
    MissingSector(Sector),
    /// The position breaks the rules' invariants.
    InvalidPosition(PositionError),
    /// The tables were solved under other rule options than those asked for.
    RulesMismatch {
        /// Rules of the tables.
        tables: Rules,
        /// Rules asked for.
        asked: Rules,
    },
    /// Two tables of one directory were solved under different rule options.
    MixedRules {
        /// A table with the other rules.
        path: PathBuf,
        /// Its rules.
        rules: Rules,
        /// The rules of the other tables.
        others: Rules,
    },
    /// The table directory cannot be listed.
    Directory {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A counter was given, but the tables carry no no-capture rule.
    NoCaptureRule,
    /// A counter the no-capture rule cannot reach: at or past the limit.
    CounterOutOfRange {
        /// The counter asked for.
        counter: u16,
        /// The tables' no-capture limit.
        limit: u16,
    },
    /// A counter other than 0 for a position with stones in hand: every
    /// placement resets the counter.
    CounterInPlacement {
        /// The counter asked for.
        counter: u16,
    },
    /// A distance was asked of WDL tables, which store outcomes only.
    WdlOnly,
    /// Not an `http://` or `https://` URL of a table directory.
    BadUrl(String),
    /// A table file is damaged or unreadable.
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: FileError,
    },
}

fn rules_text(rules: &Rules) -> String {
    rules.to_string()
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::MissingSector(s) => write!(f, "no table for sector {s}"),
            ProbeError::InvalidPosition(_) => f.write_str("invalid position"),
            ProbeError::RulesMismatch { tables, asked } => write!(
                f,
                "the tables were solved with {} but {} was asked for",
                rules_text(tables),
                rules_text(asked)
            ),
            ProbeError::MixedRules {
                path,
                rules,
                others,
            } => write!(
                f,
                "{} was solved with {}, the other tables with {}: one directory holds one rule set",
                path.display(),
                rules_text(rules),
                rules_text(others)
            ),
            ProbeError::Directory { path, .. } => {
                write!(f, "cannot list table directory {}", path.display())
            }
            ProbeError::NoCaptureRule => f.write_str(
                "the tables carry no no-capture rule, so they answer no counter \
                 (solve with --no-capture-limit N)",
            ),
            ProbeError::CounterOutOfRange { counter, limit } => write!(
                f,
                "counter {counter} is out of range: the no-capture limit of the tables \
                 is {limit}, so 0 <= counter < {limit}"
            ),
            ProbeError::CounterInPlacement { counter } => write!(
                f,
                "counter {counter} with stones in hand: every placement resets the \
                 counter, so it is 0 during placement"
            ),
            ProbeError::WdlOnly => f.write_str(
                "these are WDL tables (outcomes only, no distances): ask for the \
                 outcome alone (probe_wdl), or open the distance tables",
            ),
            ProbeError::BadUrl(url) => write!(
                f,
                "`{url}` is not the URL of a table directory (like \
                 `https://example.org/tables/` or `http://127.0.0.1:8080/tables`)"
            ),
            ProbeError::File { path, .. } => write!(f, "table {}", path.display()),
        }
    }
}

impl Error for ProbeError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ProbeError::InvalidPosition(e) => Some(e),
            ProbeError::Directory { source, .. } => Some(source),
            ProbeError::File { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<PositionError> for ProbeError {
    fn from(e: PositionError) -> ProbeError {
        ProbeError::InvalidPosition(e)
    }
}

/// The kind of a [`ProbeError`]: what a front end tells apart when it
/// reports one (the C library's `MOULIN_ERR_*` codes, the Python module's
/// exception classes, the HTTP statuses of `moulin serve`). Several errors
/// share a kind; each front end words its own message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No table of the position's sector
    /// ([`ProbeError::MissingSector`]).
    MissingTable,
    /// The position breaks the rules' invariants
    /// ([`ProbeError::InvalidPosition`]).
    InvalidPosition,
    /// A counter the tables cannot answer: tables without the no-capture
    /// rule, a counter at or past its limit, or not 0 with stones in hand
    /// ([`ProbeError::NoCaptureRule`], [`ProbeError::CounterOutOfRange`],
    /// [`ProbeError::CounterInPlacement`]).
    Counter,
    /// Tables solved under other rule options than those asked for, or a
    /// directory of tables of mixed rules ([`ProbeError::RulesMismatch`],
    /// [`ProbeError::MixedRules`]).
    Rules,
    /// A distance asked of WDL tables ([`ProbeError::WdlOnly`]).
    WdlOnly,
    /// Not the URL of a table directory ([`ProbeError::BadUrl`]).
    BadUrl,
    /// Reading failed: a directory that cannot be listed, an i/o error on a
    /// table, or an error status from a table server
    /// ([`ProbeError::Directory`]; [`ProbeError::File`] with
    /// [`FileError::Io`] or [`FileError::Http`]).
    Io,
    /// A table file is damaged or is not a table: any other
    /// [`ProbeError::File`] (truncated, a checksum that does not match, a
    /// wrong name, an unknown format version).
    DamagedTable,
}

impl ProbeError {
    /// The kind of this error.
    ///
    /// ```
    /// use moulin_probe::error::ErrorKind;
    /// use moulin_probe::{ProbeError, Sector};
    ///
    /// let missing = ProbeError::MissingSector(Sector::moving(3, 3));
    /// assert_eq!(missing.kind(), ErrorKind::MissingTable);
    /// assert_eq!(ProbeError::NoCaptureRule.kind(), ErrorKind::Counter);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            ProbeError::MissingSector(_) => ErrorKind::MissingTable,
            ProbeError::InvalidPosition(_) => ErrorKind::InvalidPosition,
            ProbeError::NoCaptureRule
            | ProbeError::CounterOutOfRange { .. }
            | ProbeError::CounterInPlacement { .. } => ErrorKind::Counter,
            ProbeError::RulesMismatch { .. } | ProbeError::MixedRules { .. } => ErrorKind::Rules,
            ProbeError::WdlOnly => ErrorKind::WdlOnly,
            ProbeError::BadUrl(_) => ErrorKind::BadUrl,
            ProbeError::Directory { .. } => ErrorKind::Io,
            ProbeError::File {
                source: FileError::Io(_) | FileError::Http { .. },
                ..
            } => ErrorKind::Io,
            ProbeError::File { .. } => ErrorKind::DamagedTable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(source: FileError) -> ProbeError {
        ProbeError::File {
            path: "3v3.mtb".into(),
            source,
        }
    }

    #[test]
    fn a_file_error_is_io_when_reading_failed_else_damage() {
        let io = io::Error::other("refused");
        assert_eq!(file(FileError::Io(io)).kind(), ErrorKind::Io);
        let http = FileError::Http {
            status: 500,
            reason: String::new(),
        };
        assert_eq!(file(http).kind(), ErrorKind::Io);
        assert_eq!(file(FileError::BadMagic).kind(), ErrorKind::DamagedTable);
        let checksum = FileError::ChecksumMismatch {
            part: "block 1".into(),
            expected: 1,
            got: 2,
        };
        assert_eq!(file(checksum).kind(), ErrorKind::DamagedTable);
        let directory = ProbeError::Directory {
            path: "tables".into(),
            source: io::ErrorKind::NotFound.into(),
        };
        assert_eq!(directory.kind(), ErrorKind::Io);
    }
}
