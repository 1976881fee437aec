//! Where a table's bytes come from: a small positional-read trait, its
//! backends (positional reads on a file by default, a memory map as an
//! `unsafe` opt-in, bytes in memory), and the sources a `Tablebase` opens
//! tables from (a directory on disk; a web host in the browser build).
//!
//! The reader asks for the 128-byte header and the block index once per
//! table, then one compressed block per cache miss; `ReadHint` says which,
//! so that a remote backend can fetch exactly that range.

use crate::error::{FileError, ProbeError};
use crate::sector::Sector;
use crate::table::TableKind;
use std::io;

/// What a read is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadHint {
    /// The fixed header or the trailer marker (once per table).
    Header,
    /// The block index (once per table).
    BlockIndex,
    /// One compressed block (once per cache miss).
    Block,
    /// A sequential pass over the whole file (the checksum of `verify`).
    Scan,
}

/// Random access to the bytes of one table file.
///
/// Implementations must not panic: a range past the end or bytes that are
/// gone (a file truncated underneath) are an `io::Error`. `Vec<u8>` and
/// `&[u8]` are storages, so a table can be read from memory
/// ([`Table::new`](crate::Table::new)).
///
/// # Example
/// ```
/// use moulin_probe::{ReadHint, Storage};
///
/// let bytes: Vec<u8> = (0..10).collect();
/// let mut buf = [0u8; 4];
/// bytes.read_at(6, &mut buf, ReadHint::Block)?;
/// assert_eq!(buf, [6, 7, 8, 9]);
/// assert!(bytes.read_at(7, &mut buf, ReadHint::Block).is_err()); // past the end
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait Storage: Send + Sync {
    /// Length of the file in bytes.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` with the bytes that start at `offset`, all of them or an
    /// error.
    ///
    /// # Errors
    /// An `io::Error` if the range is not all within the file or reading
    /// fails; `buf` may then be partly filled.
    fn read_at(&self, offset: u64, buf: &mut [u8], hint: ReadHint) -> io::Result<()>;
}

fn read_slice(bytes: &[u8], offset: u64, buf: &mut [u8]) -> io::Result<()> {
    let start = usize::try_from(offset).ok().filter(|&s| s <= bytes.len());
    match start.and_then(|s| bytes.get(s..s.checked_add(buf.len())?)) {
        Some(src) => {
            buf.copy_from_slice(src);
            Ok(())
        }
        None => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "bytes {offset}..+{} past the end of {} bytes",
                buf.len(),
                bytes.len()
            ),
        )),
    }
}

macro_rules! in_memory {
    ($($t:ty),*) => {$(
        impl Storage for $t {
            fn len(&self) -> u64 {
                <[u8]>::len(self) as u64
            }

            fn read_at(&self, offset: u64, buf: &mut [u8], _: ReadHint) -> io::Result<()> {
                read_slice(self, offset, buf)
            }
        }
    )*};
}

in_memory!(Vec<u8>, &[u8]);

impl Storage for Box<dyn Storage> {
    fn len(&self) -> u64 {
        (**self).len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8], hint: ReadHint) -> io::Result<()> {
        (**self).read_at(offset, buf, hint)
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use native::{Directory, Mapped, PositionalFile};

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;
    use std::fs::File;
    use std::path::{Path, PathBuf};

    /// A table file read with positional reads (`pread`): the default. A
    /// file changed underneath gives errors (checksums, short reads) or the
    /// old answer, never undefined behaviour.
    #[derive(Debug)]
    pub struct PositionalFile {
        file: File,
        len: u64,
    }

    impl PositionalFile {
        /// Opens a file for positional reads.
        pub fn open(path: &Path) -> io::Result<PositionalFile> {
            let file = File::open(path)?;
            let len = file.metadata()?.len();
            Ok(PositionalFile { file, len })
        }
    }

    impl Storage for PositionalFile {
        fn len(&self) -> u64 {
            self.len
        }

        fn read_at(&self, offset: u64, buf: &mut [u8], _: ReadHint) -> io::Result<()> {
            #[cfg(unix)]
            {
                std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
            }
            #[cfg(windows)]
            {
                let mut done = 0;
                while done < buf.len() {
                    let n = std::os::windows::fs::FileExt::seek_read(
                        &self.file,
                        &mut buf[done..],
                        offset + done as u64,
                    )?;
                    if n == 0 {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                    done += n;
                }
                Ok(())
            }
        }
    }

    /// A table file mapped into memory: no system call per block, but the
    /// file must not change while mapped (see `Mapped::open`).
    #[derive(Debug)]
    pub struct Mapped(Option<memmap2::Mmap>);

    impl Mapped {
        /// Maps a file into memory.
        ///
        /// # Safety
        /// The file must not be modified or truncated while the mapping (or
        /// the table or tablebase that holds it) is alive: the bytes are read
        /// straight from the mapping, and a file changed underneath breaks
        /// the memory safety the rest of the program relies on (a truncated
        /// file crashes the process with SIGBUS at the next read). moulin's
        /// writer never changes a table in place (it renames a new file over
        /// the old, which leaves mappings of the old file intact), but
        /// `cp` over an existing file or `rsync --inplace` do.
        pub unsafe fn open(path: &Path) -> io::Result<Mapped> {
            let file = File::open(path)?;
            if file.metadata()?.len() == 0 {
                // Mapping an empty file fails on some systems; an empty
                // mapping is what it is.
                return Ok(Mapped(None));
            }
            // SAFETY: the caller promises the file does not change while mapped.
            Ok(Mapped(Some(unsafe { memmap2::Mmap::map(&file)? })))
        }
    }

    impl Storage for Mapped {
        fn len(&self) -> u64 {
            self.0.as_ref().map_or(0, |m| m.len() as u64)
        }

        fn read_at(&self, offset: u64, buf: &mut [u8], _: ReadHint) -> io::Result<()> {
            read_slice(self.0.as_deref().unwrap_or_default(), offset, buf)
        }
    }

    /// The tables of a directory, `<dir>/<sector>.mtb` (or its WDL tables,
    /// `<dir>/<sector>.mtw`, or a play set's distance tables,
    /// `<dir>/<sector>.mtd`).
    #[derive(Debug)]
    pub struct Directory {
        dir: PathBuf,
        mapped: bool,
        kind: TableKind,
    }

    impl Directory {
        /// The tables of `dir`, read with positional reads.
        pub fn new(dir: impl Into<PathBuf>) -> Directory {
            Directory::of_kind(dir, TableKind::Distances)
        }

        /// The WDL tables of `dir` (`*.mtw`), read with positional reads.
        pub fn wdl(dir: impl Into<PathBuf>) -> Directory {
            Directory::of_kind(dir, TableKind::Outcomes)
        }

        /// The tables of one kind of `dir`, read with positional reads.
        pub fn of_kind(dir: impl Into<PathBuf>, kind: TableKind) -> Directory {
            Directory {
                dir: dir.into(),
                mapped: false,
                kind,
            }
        }

        /// The same directory, memory-mapped.
        ///
        /// # Safety
        /// As [`Directory::mapped`].
        pub unsafe fn into_mapped(self) -> Directory {
            Directory {
                mapped: true,
                ..self
            }
        }

        fn extension(&self) -> &'static str {
            self.kind.extension()
        }

        /// The tables of `dir`, memory-mapped.
        ///
        /// # Safety
        /// No table file of the directory may be modified or truncated in
        /// place while the tablebase is alive (see `Mapped::open`).
        pub unsafe fn mapped(dir: impl Into<PathBuf>) -> Directory {
            Directory {
                dir: dir.into(),
                mapped: true,
                kind: TableKind::Distances,
            }
        }

        fn path(&self, sector: Sector) -> PathBuf {
            self.dir
                .join(format!("{}.{}", sector.name(), self.extension()))
        }
    }

    impl TableSource for Directory {
        fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError> {
            let listing_error = |source| ProbeError::Directory {
                path: self.dir.clone(),
                source,
            };
            let mut sectors = Vec::new();
            for item in std::fs::read_dir(&self.dir).map_err(listing_error)? {
                let path = item.map_err(listing_error)?.path();
                let is_table = path.extension().is_some_and(|e| e == self.extension());
                if !is_table || !path.is_file() {
                    continue;
                }
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                match stem.parse::<Sector>() {
                    Ok(sector) if path == self.path(sector) => sectors.push(sector),
                    // `3v03.mtb` parses, but is not the sector's own name.
                    _ => {
                        return Err(ProbeError::File {
                            source: FileError::BadFileName(format!("{stem}.{}", self.extension())),
                            path,
                        })
                    }
                }
            }
            sectors.sort();
            Ok(Some(sectors))
        }

        fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError> {
            let path = self.path(sector);
            let opened: io::Result<Box<dyn Storage>> = if self.mapped {
                // SAFETY: the contract of `Directory::mapped`.
                unsafe { Mapped::open(&path) }.map(|m| Box::new(m) as Box<dyn Storage>)
            } else {
                PositionalFile::open(&path).map(|f| Box::new(f) as Box<dyn Storage>)
            };
            match opened {
                Ok(storage) => Ok(Some(storage)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(FileError::Io(e)),
            }
        }

        fn location(&self, sector: Sector) -> String {
            self.path(sector).display().to_string()
        }

        fn describe(&self) -> String {
            self.dir.display().to_string()
        }

        fn wdl(&self) -> bool {
            self.kind == TableKind::Outcomes
        }

        fn kind(&self) -> TableKind {
            self.kind
        }
    }
}

/// Where a `Tablebase` finds its tables: one per sector.
pub trait TableSource: Send + Sync {
    /// The sectors present, if the source can list them (a directory can, a
    /// web host cannot: `None`, and tables are looked for on first use).
    ///
    /// # Errors
    /// A listing that fails ([`ProbeError::Directory`] for a directory), or
    /// a file that looks like a table but is not named after its sector
    /// ([`ProbeError::File`]).
    fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError>;

    /// The table of a sector, `Ok(None)` if the source has none.
    ///
    /// # Errors
    /// A table that is there but cannot be opened or read.
    fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError>;

    /// Where a sector's table lives (a path, a URL), for messages.
    fn location(&self, sector: Sector) -> String;

    /// The source as a whole (a directory, a base URL), for messages.
    fn describe(&self) -> String;

    /// Whether the source holds WDL tables (outcomes only) rather than
    /// distance tables; a table of the other kind is refused.
    fn wdl(&self) -> bool {
        false
    }

    /// What the source's tables hold (by default: WDL tables if `wdl`,
    /// else distance tables); a table of another kind is refused.
    fn kind(&self) -> TableKind {
        if self.wdl() {
            TableKind::Outcomes
        } else {
            TableKind::Distances
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_reads_are_bounded() {
        let bytes: Vec<u8> = (0..10).collect();
        let mut buf = [0u8; 4];
        bytes.read_at(6, &mut buf, ReadHint::Block).unwrap();
        assert_eq!(buf, [6, 7, 8, 9]);
        assert!(bytes.read_at(7, &mut buf, ReadHint::Block).is_err());
        assert!(bytes.read_at(u64::MAX, &mut buf, ReadHint::Block).is_err());
        assert!(bytes.read_at(10, &mut [], ReadHint::Block).is_ok());
    }
}
