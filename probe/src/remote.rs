//! Tables read over HTTP(S): a [`TableSource`](crate::TableSource) for a
//! base URL under which the tables lie as `<url>/<sector>.mtb` (or
//! `<sector>.mtw`), read with `Range` requests (`moulin serve` serves them at
//! `http://host:port/tables/`; any static host that honours ranges is a
//! mirror). [`RangeSource`] reads them through any [`Transport`] (the
//! browser build brings its own); `HttpSource`, its requests made by
//! ureq in a native program, is behind the `http` feature.
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
//! With a cache directory (`RemoteOptions::cache_dir`), blocks are also
//! kept on disk, up to a bound in bytes, oldest used evicted first. A block
//! is written there only after its checksum (from the table's block index,
//! fetched anew by each process) matched, and read back only if it still
//! matches: a damaged or stale entry is deleted and fetched again.

mod range;

pub use range::{content_range, ContentRange, DEFAULT_FIRST_REQUEST_BYTES};
pub use range::{BlockCache, RangeSource, Reply, ReplyBody, Transport};

#[cfg(all(feature = "http", not(target_arch = "wasm32")))]
mod cache;
#[cfg(all(feature = "http", not(target_arch = "wasm32")))]
mod native;

#[cfg(all(feature = "http", not(target_arch = "wasm32")))]
pub use native::{HttpSource, RemoteOptions, Ureq, DEFAULT_DISK_CACHE_BYTES, DEFAULT_TIMEOUT};
