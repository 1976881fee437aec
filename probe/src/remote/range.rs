//! Tables read by range requests, whatever makes the requests: a
//! [`RangeSource`] over a [`Transport`] (ureq in a native program, see
//! `HttpSource`; the browser's synchronous requests in moulin-wasm), and
//! [`content_range`], the parser of the `Content-Range` header.
//!
//! A table's first request asks for its first bytes (the header, and with
//! the default size the block index of most tables); every later read asks
//! for exactly the bytes read. Each reply is checked before its body is
//! read: a 206 must carry the range asked for and the length the table had
//! when opened (and the same `ETag`, when the server sends one); a 200
//! (a server that ignores ranges) is taken only for a small table asked for
//! from its start, then kept whole in memory; a 404 or 410 on opening means
//! that there is no such table, any other status is an `HttpStatus` error.

use crate::error::{FileError, HttpStatus, ProbeError};
use crate::tablebase::TableSource;
use moulin_core::sector::Sector;
use moulin_core::table::format::{u32_at, u64_at, HEADER_LEN, INDEX_ENTRY_LEN};
use moulin_core::table::read::block_crc;
use moulin_core::table::{ReadHint, Storage, TableKind};
use std::io;
use std::sync::{Arc, OnceLock};

/// Bytes asked for when a table is opened by default: the header and, for
/// most tables, the whole block index, in one round trip.
pub const DEFAULT_FIRST_REQUEST_BYTES: u64 = 64 << 10;

/// A server that ignores `Range` may send a whole table in reply to the
/// first request if it is at most this long (a small table, kept in
/// memory); a longer one is refused without reading it.
const WHOLE_FILE_LIMIT: u64 = 1 << 20;

/// A `Content-Range` value: `bytes <first>-<last>/<total>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContentRange {
    /// The first byte sent.
    pub first: u64,
    /// The last byte sent (inclusive).
    pub last: u64,
    /// The length of the whole file; `None` when the server wrote `*`
    /// (unknown).
    pub total: Option<u64>,
}

/// Parses a `Content-Range` value, `bytes <first>-<last>/<total>` where
/// the total may be `*`. Strict: `None` unless both ends and the total are
/// decimal numbers (or `*`), `first <= last` and `last < total`; the form
/// `bytes */<total>` of a 416 reply is `None` too.
///
/// ```
/// use moulin_probe::remote::{content_range, ContentRange};
/// let range = content_range("bytes 0-127/5000").unwrap();
/// assert_eq!((range.first, range.last, range.total), (0, 127, Some(5000)));
/// assert_eq!(content_range("bytes 0-5000/5000"), None);
/// ```
pub fn content_range(value: &str) -> Option<ContentRange> {
    fn number(digits: &str) -> Option<u64> {
        match digits.bytes().all(|b| b.is_ascii_digit()) {
            true => digits.parse().ok(),
            false => None,
        }
    }
    let (range, total) = value.trim().strip_prefix("bytes ")?.split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let (first, last) = (number(first)?, number(last)?);
    let total = match total {
        "*" => None,
        digits => Some(number(digits)?),
    };
    (first <= last && total.is_none_or(|total| last < total)).then_some(ContentRange {
        first,
        last,
        total,
    })
}

/// Makes the requests of a [`RangeSource`].
pub trait Transport: Send + Sync {
    /// The body of a reply, read only once its status and headers passed.
    type Body: ReplyBody;

    /// One GET of `url` with the header `Range: bytes=<first>-<last>`.
    ///
    /// # Errors
    /// No reply: the request could not be made, or timed out (the message
    /// says which). An error status is a reply, not an error.
    fn get(&self, url: &str, first: u64, last: u64) -> io::Result<Reply<Self::Body>>;
}

/// What a server answered to a range request, its body not read yet.
#[derive(Debug)]
pub struct Reply<B> {
    /// The status code.
    pub status: u16,
    /// Its reason phrase, empty if unknown.
    pub reason: String,
    /// The `Content-Range` header.
    pub content_range: Option<String>,
    /// The `ETag` header.
    pub etag: Option<String>,
    /// The length of the body, if known before reading it.
    pub content_length: Option<u64>,
    /// The body.
    pub body: B,
}

/// The body of a [`Reply`].
pub trait ReplyBody {
    /// Reads the whole body.
    ///
    /// # Errors
    /// A body longer than `limit` bytes, or a transfer that breaks off.
    fn read_all(self, limit: u64) -> io::Result<Vec<u8>>;
}

/// A body already read.
impl ReplyBody for Vec<u8> {
    fn read_all(self, limit: u64) -> io::Result<Vec<u8>> {
        match self.len() as u64 <= limit {
            true => Ok(self),
            false => Err(invalid(format!(
                "the reply is longer than the {limit} bytes expected"
            ))),
        }
    }
}

/// Where a [`RangeSource`] keeps blocks beyond its process (the native
/// disk cache, `RemoteOptions::cache_dir`). A block is put there only
/// after its checksum, from the table's block index, matched, and taken
/// back only if it still matches: entries may be lost or damaged.
pub trait BlockCache: Send + Sync {
    /// Fills `buf` from the entry of `key`: whether there was one of that
    /// length.
    fn get(&self, key: &str, buf: &mut [u8]) -> bool;

    /// Keeps `block` as the entry of `key` (at best).
    fn put(&self, key: &str, block: &[u8]);

    /// Deletes the entry of `key` (a damaged or stale one).
    fn remove(&self, key: &str);
}

/// The tables under a base URL, `<base>/<sector>.<extension>`, read by
/// range requests through a [`Transport`] (see the module). It cannot list
/// them: each is looked for when first probed, and a 404 (or 410) means
/// that the set has no such table.
pub struct RangeSource<T> {
    base: String,
    transport: Arc<T>,
    cache: Option<Arc<dyn BlockCache>>,
    first_request: u64,
    kind: TableKind,
}

impl<T> std::fmt::Debug for RangeSource<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeSource")
            .field("base", &self.base)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl<T: Transport> RangeSource<T> {
    /// The tables of one kind (`TableKind::extension`) under `base`, with
    /// or without a final `/`, read through `transport`, with first
    /// requests of `DEFAULT_FIRST_REQUEST_BYTES` and no block cache.
    /// Nothing is requested yet.
    pub fn with_transport(base: &str, transport: T, kind: TableKind) -> RangeSource<T> {
        let mut base = base.to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        RangeSource {
            base,
            transport: Arc::new(transport),
            cache: None,
            first_request: DEFAULT_FIRST_REQUEST_BYTES,
            kind,
        }
    }

    /// The bytes asked for by a table's first request (at least its
    /// 128-byte header): more saves the round trip for the block index of
    /// larger tables, less saves bandwidth on tables never probed beyond
    /// one block.
    pub fn first_request(mut self, bytes: u64) -> RangeSource<T> {
        self.first_request = bytes.max(HEADER_LEN as u64);
        self
    }

    /// Keeps the blocks read in `cache` too (see [`BlockCache`]).
    pub fn block_cache(mut self, cache: Arc<dyn BlockCache>) -> RangeSource<T> {
        self.cache = Some(cache);
        self
    }
}

impl<T: Transport + 'static> TableSource for RangeSource<T> {
    fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError> {
        Ok(None)
    }

    fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError> {
        let url = self.location(sector);
        let Some(head) = fetch(&*self.transport, &url, 0, self.first_request, None)? else {
            return Ok(None);
        };
        Ok(Some(Box::new(RangeTable {
            url,
            len: head.total,
            etag: head.etag,
            head: head.bytes,
            index: OnceLock::new(),
            transport: Arc::clone(&self.transport),
            cache: self.cache.clone(),
        })))
    }

    fn location(&self, sector: Sector) -> String {
        format!("{}{}.{}", self.base, sector.name(), self.kind.extension())
    }

    fn describe(&self) -> String {
        self.base.clone()
    }

    fn wdl(&self) -> bool {
        self.kind == TableKind::Outcomes
    }

    fn kind(&self) -> TableKind {
        self.kind
    }
}

/// A checked range reply.
struct Fetched {
    /// The bytes from the offset asked for (fewer than asked for only at
    /// the end of the file).
    bytes: Vec<u8>,
    /// The length of the whole file.
    total: u64,
    /// The entity tag of the file, if the server sent one.
    etag: Option<String>,
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// Bytes `offset..offset + len` of `url` (clipped at the end of the file
/// only when `known` is `None`, the opening request); `Ok(None)` if the
/// server has no such file. `known`: the length and entity tag the file
/// had when opened, which the reply must match.
fn fetch<T: Transport>(
    transport: &T,
    url: &str,
    offset: u64,
    len: u64,
    known: Option<(u64, Option<&str>)>,
) -> io::Result<Option<Fetched>> {
    let last = offset + len - 1;
    let reply = transport.get(url, offset, last)?;
    let (start, end, total) = match reply.status {
        206 => {
            let value = reply.content_range.unwrap_or_default();
            content_range(&value)
                .and_then(|range| Some((range.first, range.last, range.total?)))
                .ok_or_else(|| {
                    invalid(format!(
                        "the server answered a range request with Content-Range `{value}`, \
                         not `bytes a-b/length`"
                    ))
                })?
        }
        200 => {
            // The server ignores ranges: usable only for a small file
            // asked for from its start, and then only once.
            match reply.content_length {
                Some(n) if known.is_none() && offset == 0 && n <= WHOLE_FILE_LIMIT => {
                    (0, n.saturating_sub(1), n)
                }
                length => {
                    return Err(invalid(format!(
                        "the server ignores range requests (HTTP 200 with the whole \
                         file{}): tables are read by ranges, not downloaded whole \
                         (`moulin fetch` downloads a set)",
                        length.map_or(String::new(), |n| format!(", {n} bytes"))
                    )))
                }
            }
        }
        404 | 410 if known.is_none() => return Ok(None),
        status => {
            return Err(io::Error::other(HttpStatus {
                status,
                reason: reply.reason,
            }))
        }
    };
    if let Some((known_len, known_etag)) = known {
        if total != known_len {
            return Err(invalid(format!(
                "the file changed on the server: {total} bytes long, {known_len} when opened"
            )));
        }
        if let (Some(was), Some(now)) = (known_etag, reply.etag.as_deref()) {
            if was != now {
                return Err(invalid(format!(
                    "the file changed on the server: ETag {now}, {was} when opened"
                )));
            }
        }
    }
    let wanted_end = if reply.status == 200 {
        end
    } else if known.is_none() {
        last.min(total.saturating_sub(1))
    } else {
        last
    };
    if start != offset || end != wanted_end {
        return Err(invalid(format!(
            "the server sent bytes {start}-{end} for bytes {offset}-{wanted_end}"
        )));
    }
    let expected = if total == 0 { 0 } else { end - start + 1 };
    let bytes = reply.body.read_all(expected)?;
    if bytes.len() as u64 != expected {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the server sent {} bytes of {expected} (connection closed early)",
                bytes.len()
            ),
        ));
    }
    Ok(Some(Fetched {
        bytes,
        total,
        etag: reply.etag,
    }))
}

/// One table read by ranges; its first bytes kept from the opening request.
struct RangeTable<T> {
    url: String,
    len: u64,
    etag: Option<String>,
    head: Vec<u8>,
    /// The block index, once read (with a block cache only: it checks the
    /// blocks that go to and come from the cache).
    index: OnceLock<Vec<u8>>,
    transport: Arc<T>,
    cache: Option<Arc<dyn BlockCache>>,
}

impl<T: Transport> RangeTable<T> {
    fn fetch(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let known = Some((self.len, self.etag.as_deref()));
        let fetched = fetch(&*self.transport, &self.url, offset, buf.len() as u64, known)?
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "gone from the server"))?;
        buf.copy_from_slice(&fetched.bytes);
        Ok(())
    }

    /// The number and stored checksum of the block at `offset..offset +
    /// len`, if the index has one there.
    fn block_at(&self, offset: u64, len: u64) -> Option<(u32, u32)> {
        let index = self.index.get()?;
        let entries = index.len() / INDEX_ENTRY_LEN;
        let end_of = |i: usize| u64_at(index, i * INDEX_ENTRY_LEN);
        let end = offset.checked_add(len)?;
        let (mut lo, mut hi) = (0, entries);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if end_of(mid) < end {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let i = lo;
        let start = if i == 0 {
            HEADER_LEN as u64 + index.len() as u64
        } else {
            end_of(i - 1)
        };
        (i < entries && end_of(i) == end && start == offset)
            .then(|| (i as u32, u32_at(index, i * INDEX_ENTRY_LEN + 8)))
    }

    /// Reads a block through the block cache: from the cache if an entry
    /// there matches the block's checksum, else from the server (kept in
    /// the cache if it matches).
    fn read_block(&self, cache: &dyn BlockCache, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let Some((block, crc)) = self.block_at(offset, buf.len() as u64) else {
            return self.fetch(offset, buf);
        };
        let key = format!(
            "{} {} {} {offset} {}",
            self.url,
            self.len,
            self.etag.as_deref().unwrap_or("-"),
            buf.len()
        );
        if cache.get(&key, buf) {
            if block_crc(block, buf) == crc {
                return Ok(());
            }
            cache.remove(&key);
        }
        self.fetch(offset, buf)?;
        if block_crc(block, buf) == crc {
            cache.put(&key, buf);
        }
        Ok(())
    }
}

impl<T: Transport> Storage for RangeTable<T> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8], hint: ReadHint) -> io::Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&end| end <= self.len)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "bytes {offset}..+{} past the end of {}",
                        buf.len(),
                        self.len
                    ),
                )
            })?;
        if buf.is_empty() {
            return Ok(());
        }
        if end <= self.head.len() as u64 {
            buf.copy_from_slice(&self.head[offset as usize..end as usize]);
        } else {
            match (&self.cache, hint) {
                (Some(cache), ReadHint::Block) => self.read_block(&**cache, offset, buf)?,
                _ => self.fetch(offset, buf)?,
            }
        }
        if hint == ReadHint::BlockIndex && offset == HEADER_LEN as u64 && self.cache.is_some() {
            let _ = self.index.set(buf.to_vec());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
