//! Tables read over HTTP: a [`TableSource`] whose tables are files under a
//! base URL (`<base><sector>.mtb`), read with range requests by a
//! [`RangeReader`] (a synchronous `XMLHttpRequest` in the browser's worker,
//! plain files in the tests).

use moulin_core::table::format::HEADER_LEN;
use moulin_probe::{FileError, ProbeError, Sector};
use moulin_probe::{ReadHint, Storage, TableKind, TableSource};
use std::io;
use std::sync::Arc;

/// What a range request brought back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// Bytes written at the start of the buffer (fewer than asked only at
    /// the end of the file).
    pub copied: usize,
    /// The length of the whole file.
    pub total: u64,
}

/// Reads byte ranges of files named by URL.
pub trait RangeReader: Send + Sync {
    /// Reads up to `buf.len()` bytes of `url` from `offset` into `buf`;
    /// `Ok(None)` if there is no such file (HTTP 404).
    fn read(&self, url: &str, offset: u64, buf: &mut [u8]) -> io::Result<Option<Fetched>>;
}

/// The tables under a base URL. It cannot list them: the tablebase opens
/// each on its first probe.
pub struct HttpSource<R> {
    base: String,
    reader: Arc<R>,
    kind: TableKind,
}

impl<R: RangeReader> HttpSource<R> {
    /// The tables at `<base><sector>.mtb`; `base` ends with `/`.
    pub fn new(base: &str, reader: R) -> HttpSource<R> {
        HttpSource::of_kind(base, Arc::new(reader), TableKind::Distances)
    }

    /// The tables of one kind at `<base><sector>.<extension>` (a play
    /// set's outcome tables `.mtw`, its distance tables `.mtd`).
    pub fn of_kind(base: &str, reader: Arc<R>, kind: TableKind) -> HttpSource<R> {
        HttpSource {
            base: base.to_string(),
            reader,
            kind,
        }
    }
}

impl<R: RangeReader + 'static> TableSource for HttpSource<R> {
    fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError> {
        Ok(None)
    }

    fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError> {
        let url = self.location(sector);
        // The header comes with the first request, which also tells the length.
        let mut header = vec![0; HEADER_LEN];
        let Some(fetched) = self.reader.read(&url, 0, &mut header)? else {
            return Ok(None);
        };
        header.truncate(fetched.copied);
        Ok(Some(Box::new(HttpFile {
            url,
            len: fetched.total,
            header,
            reader: Arc::clone(&self.reader),
        })))
    }

    fn location(&self, sector: Sector) -> String {
        format!("{}{}.{}", self.base, sector.name(), self.kind.extension())
    }

    fn describe(&self) -> String {
        self.base.clone()
    }

    fn kind(&self) -> TableKind {
        self.kind
    }
}

/// One table over HTTP; its first bytes kept from the opening request.
struct HttpFile<R> {
    url: String,
    len: u64,
    header: Vec<u8>,
    reader: Arc<R>,
}

impl<R: RangeReader> Storage for HttpFile<R> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8], _hint: ReadHint) -> io::Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&end| end <= self.len)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("bytes {offset}+{} past the end of {}", buf.len(), self.url),
                )
            })?;
        if buf.is_empty() {
            return Ok(());
        }
        if end <= self.header.len() as u64 {
            buf.copy_from_slice(&self.header[offset as usize..end as usize]);
            return Ok(());
        }
        match self.reader.read(&self.url, offset, buf)? {
            Some(f) if f.copied == buf.len() && f.total == self.len => Ok(()),
            Some(f) if f.total != self.len => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} changed length from {} to {} bytes",
                    self.url, self.len, f.total
                ),
            )),
            Some(f) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{} sent {} bytes of {}", self.url, f.copied, buf.len()),
            )),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} disappeared", self.url),
            )),
        }
    }
}
