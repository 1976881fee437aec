//! Tables read over HTTP(S) from a native program: a [`TableSource`] for a
//! base URL under which the tables lie as `<url>/<sector>.mtb` (or
//! `<sector>.mtw`), read with `Range` requests (`moulin serve` serves them at
//! `http://host:port/tables/`; any static host that honours ranges is a
//! mirror). Behind the `http` feature.
//!
//! A table costs one request when first probed (its first 64 KiB: the header
//! and, for most tables, the block index), one for its trailer and one for
//! the rest of its block index if the table is larger, then one request per
//! block that misses the in-memory cache. The length of a table comes from
//! the `Content-Range` of the first reply; every reply must carry the range
//! asked for and the same length (and the same `ETag`, when the server sends
//! one), so a table replaced on the server while open is an error. The bytes
//! are never believed: the header, the block checksums and the trailer are
//! checked as for a file on disk.
//!
//! With a cache directory ([`RemoteOptions::cache_dir`]), blocks are also
//! kept on disk, up to a bound in bytes, oldest used evicted first. A block
//! is written there only after its checksum (from the table's block index,
//! fetched anew by each process) matched, and read back only if it still
//! matches: a damaged or stale entry is deleted and fetched again.

mod cache;

use crate::error::{FileError, HttpStatus, ProbeError};
use crate::tablebase::TableSource;
use cache::DiskCache;
use moulin_core::sector::Sector;
use moulin_core::table::format::{u32_at, u64_at, HEADER_LEN, INDEX_ENTRY_LEN};
use moulin_core::table::read::block_crc;
use moulin_core::table::TableKind;
use moulin_core::table::{ReadHint, Storage};
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Bytes asked for when a table is opened by default: the header and, for
/// most tables, the whole block index, in one round trip.
pub const DEFAULT_FIRST_REQUEST_BYTES: u64 = 64 << 10;

/// A server that ignores `Range` may send a whole table in reply to the
/// first request if it is at most this long (a small table, kept in
/// memory); a longer one is refused without reading it.
const WHOLE_FILE_LIMIT: u64 = 1 << 20;

/// Default size bound of the disk cache.
pub const DEFAULT_DISK_CACHE_BYTES: u64 = 1 << 30;

/// Default connect and read timeouts.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How a remote table set is read: timeouts and an optional disk cache.
/// Built with its methods from `RemoteOptions::default()`.
#[derive(Clone, Debug)]
pub struct RemoteOptions {
    timeout: Duration,
    request_timeout: Duration,
    cache_dir: Option<PathBuf>,
    cache_bytes: u64,
    first_request: u64,
    wdl: bool,
    play: bool,
}

impl Default for RemoteOptions {
    fn default() -> RemoteOptions {
        RemoteOptions {
            timeout: DEFAULT_TIMEOUT,
            request_timeout: 4 * DEFAULT_TIMEOUT,
            cache_dir: None,
            cache_bytes: DEFAULT_DISK_CACHE_BYTES,
            first_request: DEFAULT_FIRST_REQUEST_BYTES,
            wdl: false,
            play: false,
        }
    }
}

impl RemoteOptions {
    /// The bound on connecting and on each read from the connection
    /// (default 30 s): a server that stops answering is an error after
    /// this long, never a hang. Also sets the bound on a whole request to
    /// four times this (see `request_timeout`).
    pub fn timeout(mut self, timeout: Duration) -> RemoteOptions {
        self.timeout = timeout;
        self.request_timeout = timeout.saturating_mul(4);
        self
    }

    /// The bound on one whole request, from connecting to the last byte
    /// (default 120 s): a server that trickles bytes is an error too.
    pub fn request_timeout(mut self, timeout: Duration) -> RemoteOptions {
        self.request_timeout = timeout;
        self
    }

    /// Keeps fetched blocks in this directory (created if missing), shared
    /// by every process that names it; `None` (the default): memory only.
    pub fn cache_dir(mut self, dir: Option<PathBuf>) -> RemoteOptions {
        self.cache_dir = dir;
        self
    }

    /// The size bound of the disk cache in bytes (default 1 GiB): past it,
    /// the entries used longest ago are deleted.
    pub fn cache_bytes(mut self, bytes: u64) -> RemoteOptions {
        self.cache_bytes = bytes;
        self
    }

    /// The bytes asked for by a table's first request (default 64 KiB; at
    /// least its 128-byte header): more saves the round trip for the block
    /// index of larger tables, less saves bandwidth on tables never probed
    /// beyond one block.
    pub fn first_request(mut self, bytes: u64) -> RemoteOptions {
        self.first_request = bytes.max(HEADER_LEN as u64);
        self
    }

    /// Reads the WDL tables (`<sector>.mtw`) rather than the distance tables.
    pub fn wdl(mut self, wdl: bool) -> RemoteOptions {
        self.wdl = wdl;
        self
    }

    /// Reads a play set (`moulin pack`): the outcome tables
    /// (`<sector>.mtw`) and the distance tables of one side
    /// (`<sector>.mtd`); see `Tablebase::open_url_with`. Takes precedence
    /// over `wdl`.
    pub fn play(mut self, play: bool) -> RemoteOptions {
        self.play = play;
        self
    }

    /// Whether the set is a play set.
    pub fn is_play(&self) -> bool {
        self.play
    }
}

/// The tables under a base URL. It cannot list them: each is looked for
/// when first probed, and a 404 (or 410) means the set has no such table.
pub struct HttpSource {
    base: String,
    client: Arc<Client>,
    first_request: u64,
    kind: TableKind,
}

impl std::fmt::Debug for HttpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSource")
            .field("base", &self.base)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl HttpSource {
    /// The tables at `<url>/<sector>.mtb` (with `options.wdl`:
    /// `<sector>.mtw`). `url` is an `http://` or `https://` URL of the
    /// directory of the tables, with or without a final `/`; nothing is
    /// requested yet. Errs on another scheme or on a cache directory that
    /// cannot be created.
    pub fn new(url: &str, options: &RemoteOptions) -> Result<HttpSource, ProbeError> {
        let kind = match options.wdl {
            true => TableKind::Outcomes,
            false => TableKind::Distances,
        };
        HttpSource::of_kind(url, options, kind)
    }

    /// The tables of one kind under `url`: `<sector>.mtb`, `.mtw` or
    /// `.mtd` (`TableKind::extension`); otherwise as `new`.
    pub fn of_kind(
        url: &str,
        options: &RemoteOptions,
        kind: TableKind,
    ) -> Result<HttpSource, ProbeError> {
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"))
            .filter(|rest| !rest.is_empty() && !rest.starts_with('/'));
        if rest.is_none() || url.contains(['?', '#']) || url.chars().any(char::is_whitespace) {
            return Err(ProbeError::BadUrl(url.to_string()));
        }
        let mut base = url.to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        let cache = match &options.cache_dir {
            Some(dir) => Some(DiskCache::open(dir, options.cache_bytes).map_err(|source| {
                ProbeError::Directory {
                    path: dir.clone(),
                    source,
                }
            })?),
            None => None,
        };
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(options.timeout))
            .timeout_per_read(Some(options.timeout))
            .timeout_per_write(Some(options.timeout))
            .timeout_per_call(Some(options.request_timeout))
            .user_agent(concat!("moulin/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(HttpSource {
            base,
            client: Arc::new(Client { agent, cache }),
            first_request: options.first_request,
            kind,
        })
    }
}

impl TableSource for HttpSource {
    fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError> {
        Ok(None)
    }

    fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError> {
        let url = self.location(sector);
        let Some(head) = self.client.fetch(&url, 0, self.first_request, None)? else {
            return Ok(None);
        };
        Ok(Some(Box::new(HttpTable {
            url,
            len: head.total,
            etag: head.etag,
            head: head.bytes,
            index: OnceLock::new(),
            client: Arc::clone(&self.client),
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

/// The agent shared by the tables of a source, and the disk cache.
struct Client {
    agent: ureq::Agent,
    cache: Option<DiskCache>,
}

/// A range reply.
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

/// A ureq error as an `io::Error` that says what happened.
fn io_error(error: ureq::Error, doing: &str) -> io::Error {
    match error {
        ureq::Error::Io(e) => io::Error::new(e.kind(), format!("{doing}: {e}")),
        ureq::Error::Timeout(which) => io::Error::new(
            io::ErrorKind::TimedOut,
            format!("{doing}: timed out (the {which} timeout)"),
        ),
        other => io::Error::other(format!("{doing}: {other}")),
    }
}

/// Parses `bytes a-b/total`.
fn content_range(value: &str) -> Option<(u64, u64, u64)> {
    let (range, total) = value.trim().strip_prefix("bytes ")?.split_once('/')?;
    let (a, b) = range.split_once('-')?;
    let (a, b, total) = (a.parse().ok()?, b.parse().ok()?, total.parse().ok()?);
    (a <= b && b < total).then_some((a, b, total))
}

impl Client {
    /// Bytes `offset..offset + len` of `url` (clipped at the end of the
    /// file only when `known` is `None`, the opening request); `Ok(None)`
    /// if the server has no such file. `known`: the length and entity tag
    /// the file had when opened, which the reply must match.
    fn fetch(
        &self,
        url: &str,
        offset: u64,
        len: u64,
        known: Option<(u64, Option<&str>)>,
    ) -> io::Result<Option<Fetched>> {
        let last = offset + len - 1;
        let mut reply = self
            .agent
            .get(url)
            .header("Range", format!("bytes={offset}-{last}"))
            .call()
            .map_err(|e| io_error(e, "request failed"))?;
        let status = reply.status();
        let header = |name: &str| {
            reply
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let etag = header("etag");
        let (start, end, total) = match status.as_u16() {
            206 => {
                let value = header("content-range").unwrap_or_default();
                content_range(&value).ok_or_else(|| {
                    invalid(format!(
                        "the server answered a range request with Content-Range `{value}`, \
                         not `bytes a-b/length`"
                    ))
                })?
            }
            200 => {
                // The server ignores ranges: usable only for a small file
                // asked for from its start, and then only once.
                let length = reply.body().content_length();
                match length {
                    Some(n) if known.is_none() && offset == 0 && n <= WHOLE_FILE_LIMIT => {
                        (0, n.saturating_sub(1), n)
                    }
                    _ => {
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
            _ => {
                return Err(io::Error::other(HttpStatus {
                    status: status.as_u16(),
                    reason: status.canonical_reason().unwrap_or("").to_string(),
                }))
            }
        };
        if let Some((known_len, known_etag)) = known {
            if total != known_len {
                return Err(invalid(format!(
                    "the file changed on the server: {total} bytes long, {known_len} when opened"
                )));
            }
            if let (Some(was), Some(now)) = (known_etag, etag.as_deref()) {
                if was != now {
                    return Err(invalid(format!(
                        "the file changed on the server: ETag {now}, {was} when opened"
                    )));
                }
            }
        }
        let wanted_end = if status.as_u16() == 200 {
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
        let bytes = reply
            .body_mut()
            .with_config()
            .limit(expected)
            .read_to_vec()
            .map_err(|e| io_error(e, "reading the reply failed"))?;
        if bytes.len() as u64 != expected {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the server sent {} bytes of {expected} (connection closed early)",
                    bytes.len()
                ),
            ));
        }
        Ok(Some(Fetched { bytes, total, etag }))
    }
}

/// One table over HTTP; its first bytes kept from the opening request.
struct HttpTable {
    url: String,
    len: u64,
    etag: Option<String>,
    head: Vec<u8>,
    /// The block index, once read (with a disk cache only: it checks the
    /// blocks that go to and come from the disk).
    index: OnceLock<Vec<u8>>,
    client: Arc<Client>,
}

impl HttpTable {
    fn fetch(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let known = Some((self.len, self.etag.as_deref()));
        let fetched = self
            .client
            .fetch(&self.url, offset, buf.len() as u64, known)?
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

    /// Reads a block through the disk cache: from the disk if an entry
    /// there matches the block's checksum, else from the server (kept on
    /// disk if it matches).
    fn read_block(&self, cache: &DiskCache, offset: u64, buf: &mut [u8]) -> io::Result<()> {
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

impl Storage for HttpTable {
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
            match (&self.client.cache, hint) {
                (Some(cache), ReadHint::Block) => self.read_block(cache, offset, buf)?,
                _ => self.fetch(offset, buf)?,
            }
        }
        if hint == ReadHint::BlockIndex
            && offset == HEADER_LEN as u64
            && self.client.cache.is_some()
        {
            let _ = self.index.set(buf.to_vec());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_range() {
        assert_eq!(content_range("bytes 0-127/5000"), Some((0, 127, 5000)));
        assert_eq!(content_range("bytes 10-9/5000"), None);
        assert_eq!(content_range("bytes 0-5000/5000"), None);
        assert_eq!(content_range("bytes 0-1/*"), None);
        assert_eq!(content_range("bytes */5000"), None);
        assert_eq!(content_range(""), None);
    }

    #[test]
    fn refuses_urls_that_are_not_http() {
        let options = RemoteOptions::default();
        for url in [
            "",
            "ftp://x/",
            "http://",
            "http:///x",
            "/tmp/tables",
            "http://a b/",
        ] {
            assert!(
                matches!(HttpSource::new(url, &options), Err(ProbeError::BadUrl(_))),
                "{url}"
            );
        }
        let source = HttpSource::new("http://127.0.0.1:1/tables", &options).unwrap();
        let sector: Sector = "3v3".parse().unwrap();
        assert_eq!(source.location(sector), "http://127.0.0.1:1/tables/3v3.mtb");
        let wdl = HttpSource::new("https://h/t/", &options.wdl(true)).unwrap();
        assert_eq!(wdl.location(sector), "https://h/t/3v3.mtw");
    }
}
