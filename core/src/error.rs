//! What is wrong with one table file (`FileError`), and the message of an
//! error with its sources (`chain`). The tablebase's `ProbeError` wraps it.

use crate::sector::Sector;
use std::error::Error;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// What is wrong with a table file (or with values handed to the writer).
///
/// Reading never panics on file content: any inconsistent byte becomes one of
/// these. As in `std`, a variant that wraps another error leaves it out of
/// its own message and returns it as `source()`: print the chain (anyhow's
/// `{:#}`) to see everything.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileError {
    /// Reading, writing, syncing or renaming failed.
    Io(io::Error),
    /// The file does not start with the table magic: not a moulin table.
    BadMagic,
    /// A table of a format version this reader does not know.
    Version {
        /// The version this reader reads.
        expected: u16,
        /// The version in the file.
        got: u16,
    },
    /// A table of this version that uses a feature this reader does not
    /// know (a rule option of a newer moulin): says which.
    Unsupported(String),
    /// The file is shorter or longer than its header says (an interrupted
    /// copy, a truncated download).
    Length {
        /// Length from the header.
        expected: u64,
        /// Actual length.
        got: u64,
    },
    /// The checksum of the header, of the whole file or of one block does not
    /// match the bytes.
    ChecksumMismatch {
        /// What the checksum covers: `the header`, `the file` or `block <n>`.
        part: String,
        /// The checksum stored in the file.
        expected: u32,
        /// The checksum of the bytes read.
        got: u32,
    },
    /// Inconsistent content the checksums did not catch (or a block that does
    /// not decompress): says what.
    Corrupt(String),
    /// The file's name is another sector's than the one in its header (a file
    /// renamed or copied under the wrong name).
    WrongSector {
        /// The sector the file name says.
        file_name: String,
        /// The sector in the header.
        header: Sector,
    },
    /// A slot past the end of the table.
    SlotOutOfRange {
        /// The slot asked for.
        slot: u64,
        /// Slots in the table.
        slots: u64,
    },
    /// A table file whose name is not `<sector>.mtb`.
    BadFileName(String),
    /// The writer was given values that cannot be the table of the sector.
    BadValues(String),
    /// A table server answered with an error status (other than 404 for a
    /// table it does not have).
    Http {
        /// The status code.
        status: u16,
        /// Its reason phrase (`Internal Server Error`), empty if unknown.
        reason: String,
    },
    /// Another process is writing into the table directory.
    Locked {
        /// The directory.
        dir: PathBuf,
        /// Who holds it, as the holder wrote it (`pid 1234: moulin solve --all`).
        holder: String,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io(_) => f.write_str("i/o error"),
            FileError::BadMagic => f.write_str("not a moulin table (bad magic bytes)"),
            FileError::Version { expected, got } => write!(
                f,
                "unsupported table format version {got}: this program reads version {expected} \
                 (a table written by {} moulin)",
                if got > expected { "a newer" } else { "another" }
            ),
            FileError::Unsupported(what) => write!(
                f,
                "unsupported table feature: {what} (a table written by a newer moulin)"
            ),
            FileError::Length { expected, got } => write!(
                f,
                "file is {got} bytes long but its header says {expected} (truncated or damaged)"
            ),
            FileError::ChecksumMismatch {
                part,
                expected,
                got,
            } => write!(
                f,
                "checksum mismatch in {part}: stored {expected:08x}, computed {got:08x}"
            ),
            FileError::Corrupt(what) => write!(f, "corrupt table: {what}"),
            FileError::WrongSector { file_name, header } => write!(
                f,
                "file is named for sector {file_name} but holds sector {header} (renamed?)"
            ),
            FileError::SlotOutOfRange { slot, slots } => {
                write!(
                    f,
                    "slot {slot} is past the end of the table ({slots} slots)"
                )
            }
            FileError::BadFileName(name) => write!(
                f,
                "file name `{name}` is not a sector's name (like `8v7.mtb`)"
            ),
            FileError::BadValues(what) => write!(f, "cannot write table: {what}"),
            FileError::Http { status, reason } => write!(
                f,
                "{}",
                HttpStatus {
                    status: *status,
                    reason: reason.clone()
                }
            ),
            FileError::Locked { dir, holder } => write!(
                f,
                "another process is writing into {} ({}); one writer per directory",
                dir.display(),
                if holder.is_empty() {
                    "holder unknown"
                } else {
                    holder
                }
            ),
        }
    }
}

impl Error for FileError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            FileError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for FileError {
    /// `Io`, or `Http` for the status a table server answered with (which
    /// reaches the reader as an `io::Error` through `Storage::read_at`).
    fn from(e: io::Error) -> FileError {
        if !e.get_ref().is_some_and(|inner| inner.is::<HttpStatus>()) {
            return FileError::Io(e);
        }
        let kind = e.kind();
        match e.into_inner().map(|inner| inner.downcast::<HttpStatus>()) {
            Some(Ok(s)) => FileError::Http {
                status: s.status,
                reason: s.reason,
            },
            Some(Err(other)) => FileError::Io(io::Error::new(kind, other)),
            None => FileError::Io(kind.into()),
        }
    }
}

/// An HTTP error status carried in an `io::Error` (the error type of
/// `Storage`); it becomes `FileError::Http`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpStatus {
    /// The status code.
    pub status: u16,
    /// Its reason phrase, empty if unknown.
    pub reason: String,
}

impl fmt::Display for HttpStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        if !self.reason.is_empty() {
            write!(f, " {}", self.reason)?;
        }
        Ok(())
    }
}

impl Error for HttpStatus {}

/// The message of an error and of its sources, joined by `: `, as the
/// command line prints it (anyhow's `{:#}`): what the bindings report.
pub fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}
