//! Tables read over HTTP: moulin-probe's [`RangeSource`], with first
//! requests of the header alone, over a [`Transport`]: in the browser
//! `Xhr`, the synchronous `XMLHttpRequest`s of the page's worker; in the
//! tests, plain files.

use moulin_core::table::format::HEADER_LEN;
pub use moulin_probe::remote::{RangeSource, Reply, ReplyBody, Transport};
use moulin_probe::TableKind;

/// The tables of one kind at `<base><sector>.<extension>` (the distance
/// tables `.mtb`; a play set's outcome tables `.mtw` and distance tables
/// `.mtd`), read through `transport`: each table's header first, then its
/// block index, then the blocks probes need.
pub fn source<T: Transport>(base: &str, transport: T, kind: TableKind) -> RangeSource<T> {
    RangeSource::with_transport(base, transport, kind).first_request(HEADER_LEN as u64)
}

#[cfg(target_arch = "wasm32")]
pub use browser::Xhr;

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::{Reply, ReplyBody, Transport};
    use std::io;

    #[link(wasm_import_module = "moulin")]
    extern "C" {
        /// GETs `url` with `Range: bytes=<first>-<last>` and keeps the
        /// reply for `reply_header` and `reply_body`. Returns its status, or
        /// -1 if there is no reply (a network error).
        fn range_get(url: *const u8, url_len: usize, first: f64, last: f64) -> i32;

        /// Writes up to `cap` bytes of the value of the header `name` of
        /// the last reply into `out`. Returns the value's length in bytes,
        /// or -1 if the reply has no such header.
        fn reply_header(name: *const u8, name_len: usize, out: *mut u8, cap: usize) -> i32;

        /// Writes up to `cap` bytes of the body of the last reply into
        /// `out`. Returns the body's length.
        fn reply_body(out: *mut u8, cap: usize) -> f64;
    }

    /// Range requests through the worker's synchronous `XMLHttpRequest`
    /// (one at a time: the worker keeps the last reply).
    #[derive(Clone, Copy, Debug)]
    pub struct Xhr;

    /// The body of the worker's last reply.
    pub struct XhrBody;

    fn header(name: &str) -> Option<String> {
        let mut value = vec![0u8; 64];
        loop {
            // SAFETY: the pointers are valid for the lengths given during
            // the call; the import writes at most `value.len()` bytes.
            let len =
                unsafe { reply_header(name.as_ptr(), name.len(), value.as_mut_ptr(), value.len()) };
            let len = usize::try_from(len).ok()?;
            if len <= value.len() {
                value.truncate(len);
                return String::from_utf8(value).ok();
            }
            value.resize(len, 0);
        }
    }

    impl Transport for Xhr {
        type Body = XhrBody;

        fn get(&self, url: &str, first: u64, last: u64) -> io::Result<Reply<XhrBody>> {
            // SAFETY: `url` is valid for its length during the call.
            let status = unsafe { range_get(url.as_ptr(), url.len(), first as f64, last as f64) };
            let status = u16::try_from(status).map_err(|_| {
                io::Error::other("the request failed (network error or the server is gone)")
            })?;
            // SAFETY: nothing is written with a capacity of 0.
            let length = unsafe { reply_body(std::ptr::null_mut(), 0) };
            Ok(Reply {
                status,
                reason: String::new(),
                content_range: header("Content-Range"),
                etag: header("ETag"),
                content_length: Some(length as u64),
                body: XhrBody,
            })
        }
    }

    impl ReplyBody for XhrBody {
        fn read_all(self, limit: u64) -> io::Result<Vec<u8>> {
            // SAFETY: nothing is written with a capacity of 0.
            let length = unsafe { reply_body(std::ptr::null_mut(), 0) } as u64;
            // One byte more than the limit, if there is more, tells a body too long.
            let mut body = vec![0u8; length.min(limit.saturating_add(1)) as usize];
            // SAFETY: `body` is valid for its length during the call.
            unsafe { reply_body(body.as_mut_ptr(), body.len()) };
            body.read_all(limit)
        }
    }
}
