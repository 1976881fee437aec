//! Where a table's bytes come from: a small positional-read trait, its
//! backends (positional reads on a file by default, a memory map as an
//! `unsafe` opt-in, bytes in memory). Where a tablebase finds the tables
//! of its sectors (a directory, a web host) is the probe's `TableSource`.
//!
//! The reader asks for the 128-byte header and the block index once per
//! table, then one compressed block per cache miss; `ReadHint` says which,
//! so that a remote backend can fetch exactly that range.

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
/// ([`Table::new`](crate::table::Table::new)).
///
/// # Example
/// ```
/// use moulin_core::table::{ReadHint, Storage};
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
pub use native::{Mapped, PositionalFile};

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;
    use std::fs::File;
    use std::path::Path;

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
