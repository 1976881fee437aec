//! The native [`HttpSource`]: a [`RangeSource`] whose requests ureq makes,
//! with the timeouts and the disk cache of [`RemoteOptions`].

use super::cache::DiskCache;
use super::range::{RangeSource, Reply, ReplyBody, Transport, DEFAULT_FIRST_REQUEST_BYTES};
use crate::error::ProbeError;
use crate::Tablebase;
use moulin_core::table::TableKind;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

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
    /// beyond one block. (`RangeSource::first_request` raises a smaller
    /// value to the header's length.)
    pub fn first_request(mut self, bytes: u64) -> RemoteOptions {
        self.first_request = bytes;
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

/// The tables under an `http://` or `https://` URL, read with ureq.
pub type HttpSource = RangeSource<Ureq>;

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
        let source = RangeSource::with_transport(url, Ureq { agent }, kind)
            .first_request(options.first_request);
        Ok(match cache {
            Some(cache) => source.block_cache(Arc::new(cache)),
            None => source,
        })
    }
}

/// The requests of an [`HttpSource`]: a ureq agent, shared by its tables.
pub struct Ureq {
    agent: ureq::Agent,
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

impl Transport for Ureq {
    type Body = ureq::Body;

    fn get(&self, url: &str, first: u64, last: u64) -> io::Result<Reply<ureq::Body>> {
        let (head, body) = self
            .agent
            .get(url)
            .header("Range", format!("bytes={first}-{last}"))
            .call()
            .map_err(|e| io_error(e, "request failed"))?
            .into_parts();
        let header = |name: &str| {
            head.headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        Ok(Reply {
            status: head.status.as_u16(),
            reason: head.status.canonical_reason().unwrap_or("").to_string(),
            content_range: header("content-range"),
            etag: header("etag"),
            content_length: body.content_length(),
            body,
        })
    }
}

impl ReplyBody for ureq::Body {
    fn read_all(mut self, limit: u64) -> io::Result<Vec<u8>> {
        self.with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| io_error(e, "reading the reply failed"))
    }
}

/// Opening a tablebase over HTTP(S).
impl Tablebase {
    /// The tables of a remote set, `<url>/<sector>.mtb`, read by HTTP(S)
    /// range requests (`moulin serve` serves a directory at
    /// `http://host:port/tables/`): see `open_url_with`, here with the
    /// default options (30 s timeouts, no disk cache).
    pub fn open_url(url: &str) -> Result<Tablebase, ProbeError> {
        Tablebase::open_url_with(url, RemoteOptions::default())
    }

    /// The WDL tables of a remote set, `<url>/<sector>.mtw`, like
    /// `open_url` (they answer as those of `open_wdl`).
    pub fn open_url_wdl(url: &str) -> Result<Tablebase, ProbeError> {
        Tablebase::open_url_with(url, RemoteOptions::default().wdl(true))
    }

    /// The tables of a remote set with these options (timeouts, a disk
    /// cache of blocks, WDL tables). Nothing is requested yet: a remote set
    /// cannot be listed, so each table is asked for when a probe first needs
    /// it, and a table the server does not have (404) is `MissingSector`, as
    /// in a directory. Errors name the table's URL and, for an error status,
    /// the status (`FileError::Http`); wrong bytes are caught by the header
    /// and block checksums; a server that stops answering is an error after
    /// the timeout. The rules are those of the first table read (ask for
    /// some with `with_rules`).
    ///
    /// With `options.play(true)`, a play set (`moulin pack`): the outcome
    /// tables `<url>/<sector>.mtw` and the distance tables
    /// `<url>/<sector>.mtd`, answering as `open_play` does.
    pub fn open_url_with(url: &str, options: RemoteOptions) -> Result<Tablebase, ProbeError> {
        if options.is_play() {
            return Tablebase::play_from_sources(
                HttpSource::of_kind(url, &options, TableKind::Outcomes)?,
                HttpSource::of_kind(url, &options, TableKind::PlayDistances)?,
            );
        }
        Tablebase::from_source(HttpSource::new(url, &options)?)
    }

    /// The play set at `url` (`<sector>.mtw` and `<sector>.mtd`, written by
    /// `moulin pack`), like `open_url`: every answer of the distance
    /// tables from about half their bytes.
    pub fn open_url_play(url: &str) -> Result<Tablebase, ProbeError> {
        Tablebase::open_url_with(url, RemoteOptions::default().play(true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::TableSource;
    use moulin_core::sector::Sector;

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
