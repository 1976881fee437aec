//! The files `moulin serve` hands out: a URL path resolved inside one root
//! directory (never outside it, whatever the dots, encodings or symbolic
//! links), byte ranges, and content types.

use percent_encoding::percent_decode_str;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Why a path gives no file: the HTTP status and a short reason.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    /// 400, 403 or 404.
    pub status: u16,
    /// A few words for the response body and the log.
    pub reason: &'static str,
}

const NOT_FOUND: Refusal = Refusal {
    status: 404,
    reason: "not found",
};

/// The file a URL path (after the route's prefix, still percent-encoded,
/// without the query) names under `root`, which must be canonical
/// (`Path::canonicalize`). Refuses `.` and `..` segments and names starting
/// with a dot (also when percent-encoded), backslashes and NUL bytes, and any
/// file whose real path (symbolic links followed) lies outside `root`. A
/// directory gives its `index.html`.
pub fn resolve(root: &Path, url_path: &str) -> Result<PathBuf, Refusal> {
    let bad = Refusal {
        status: 400,
        reason: "bad path",
    };
    let decoded = percent_decode_str(url_path)
        .decode_utf8()
        .map_err(|_| Refusal {
            status: 400,
            reason: "path is not UTF-8",
        })?;
    if decoded.contains(['\\', '\0']) {
        return Err(bad);
    }
    let mut path = root.to_path_buf();
    for segment in decoded.split('/').filter(|s| !s.is_empty()) {
        if segment.starts_with('.') {
            return Err(bad);
        }
        path.push(segment);
    }
    let real = path.canonicalize().map_err(|_| NOT_FOUND)?;
    if !real.starts_with(root) {
        return Err(Refusal {
            status: 403,
            reason: "outside the served directory",
        });
    }
    if real.is_dir() {
        let index = real.join("index.html");
        return match index.canonicalize() {
            Ok(i) if i.starts_with(root) && i.is_file() => Ok(i),
            _ => Err(NOT_FOUND),
        };
    }
    if !real.is_file() {
        return Err(NOT_FOUND);
    }
    Ok(real)
}

/// What a `Range` header asks of a file of `len` bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum Range {
    /// No range (or a unit other than bytes, or several ranges): the whole file.
    Whole,
    /// Bytes `start..end` (end exclusive, within the file, not empty).
    Part {
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
    },
    /// A range of bytes that is malformed or starts past the end: 416.
    Unsatisfiable,
}

/// Interprets a `Range` header (RFC 9110, section 14.2) for a file of `len`
/// bytes: `bytes=a-b`, `bytes=a-` and the suffix `bytes=-n`. Several ranges
/// get the whole file (a server may ignore `Range`); malformed byte ranges
/// and ranges starting at or past the end are unsatisfiable.
pub fn parse_range(header: Option<&str>, len: u64) -> Range {
    let Some(header) = header else {
        return Range::Whole;
    };
    let Some(spec) = header.trim().strip_prefix("bytes=") else {
        return Range::Whole;
    };
    if spec.contains(',') {
        return Range::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return Range::Unsatisfiable;
    };
    let number = |s: &str| {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            None
        } else {
            s.parse::<u64>().ok()
        }
    };
    let (start, end) = match (first, last) {
        ("", suffix) => match number(suffix) {
            Some(n) if n > 0 => (len.saturating_sub(n), len),
            _ => return Range::Unsatisfiable,
        },
        (first, "") => match number(first) {
            Some(a) => (a, len),
            None => return Range::Unsatisfiable,
        },
        (first, last) => match (number(first), number(last)) {
            (Some(a), Some(b)) if a <= b => (a, b.saturating_add(1).min(len)),
            _ => return Range::Unsatisfiable,
        },
    };
    if start >= len {
        return Range::Unsatisfiable;
    }
    Range::Part { start, end }
}

/// Reads bytes `start..end` of a file.
pub fn read_part(file: &mut File, start: u64, end: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::with_capacity((end - start) as usize);
    file.take(end - start).read_to_end(&mut bytes)?;
    if (bytes.len() as u64) < end - start {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the file shrank while it was read",
        ));
    }
    Ok(bytes)
}

/// A strong entity tag for a file: its length, modification time (in
/// nanoseconds) and inode number, so a file written anew (a new inode, or a
/// new time) gets a new tag. Tables are never rewritten in place once
/// finished, so the tag names their bytes.
pub fn etag(meta: &std::fs::Metadata) -> String {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0u64;
    format!("\"{:x}-{modified:x}-{inode:x}\"", meta.len())
}

/// Whether an `If-None-Match` header names `etag` (or is `*`): the weak
/// comparison of RFC 9110, section 13.1.2 (a `W/` prefix is ignored).
pub fn none_match_hits(header: &str, etag: &str) -> bool {
    header
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// Whether an `If-Range` header lets a range be answered: only the strong,
/// exact entity tag of the file does (a date, a weak tag or another tag
/// gets the whole file, as RFC 9110, section 13.1.5 asks; the server sends
/// no `Last-Modified`, so no date can be a validator it gave).
pub fn if_range_holds(header: &str, etag: &str) -> bool {
    header.trim() == etag
}

/// The `Content-Type` of a file by its extension.
pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let part = |start, end| Range::Part { start, end };
        assert_eq!(parse_range(None, 100), Range::Whole);
        assert_eq!(parse_range(Some("bytes=0-9"), 100), part(0, 10));
        assert_eq!(parse_range(Some("bytes=90-"), 100), part(90, 100));
        assert_eq!(parse_range(Some("bytes=-10"), 100), part(90, 100));
        assert_eq!(parse_range(Some("bytes=-1000"), 100), part(0, 100));
        assert_eq!(parse_range(Some("bytes=95-200"), 100), part(95, 100));
        assert_eq!(parse_range(Some("bytes=99-99"), 100), part(99, 100));
        for bad in [
            "bytes=100-",
            "bytes=100-200",
            "bytes=9-5",
            "bytes=-0",
            "bytes=-",
            "bytes=x-5",
            "bytes=5",
            "bytes=+1-2",
            "bytes=18446744073709551616-",
        ] {
            assert_eq!(parse_range(Some(bad), 100), Range::Unsatisfiable, "{bad}");
        }
        assert_eq!(parse_range(Some("bytes=0-"), 0), Range::Unsatisfiable);
        assert_eq!(parse_range(Some("items=0-5"), 100), Range::Whole);
        assert_eq!(parse_range(Some("bytes=0-1,5-6"), 100), Range::Whole);
    }

    #[test]
    fn entity_tags_and_conditions() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, "same").unwrap();
        std::fs::write(&b, "same").unwrap();
        let tag = etag(&std::fs::metadata(&a).unwrap());
        assert!(tag.starts_with('"') && tag.ends_with('"') && tag.len() > 2);
        assert_eq!(tag, etag(&std::fs::metadata(&a).unwrap()));
        // Same bytes in another file: another inode, another tag.
        assert_ne!(tag, etag(&std::fs::metadata(&b).unwrap()));
        // A file written anew under the same name.
        std::fs::remove_file(&a).unwrap();
        std::fs::write(&a, "other!").unwrap();
        assert_ne!(tag, etag(&std::fs::metadata(&a).unwrap()));

        let t = "\"1-2-3\"";
        assert!(none_match_hits(t, t));
        assert!(none_match_hits("W/\"1-2-3\"", t));
        assert!(none_match_hits("\"x\", \"1-2-3\"", t));
        assert!(none_match_hits("*", t));
        assert!(!none_match_hits("\"1-2-4\"", t));
        assert!(!none_match_hits("1-2-3", t));
        assert!(if_range_holds(" \"1-2-3\" ", t));
        assert!(!if_range_holds("W/\"1-2-3\"", t));
        assert!(!if_range_holds("Fri, 04 Dec 2026 04:00:00 GMT", t));
    }

    #[test]
    fn paths_stay_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("index.html"), "i").unwrap();
        std::fs::write(root.join("sub/a.js"), "a").unwrap();
        std::fs::write(root.join(".hidden"), "h").unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link")).unwrap();
            std::os::unix::fs::symlink(root.join("sub/a.js"), root.join("inner")).unwrap();
        }
        let root = root.canonicalize().unwrap();
        assert_eq!(resolve(&root, "/").unwrap(), root.join("index.html"));
        assert_eq!(resolve(&root, "/sub/a.js").unwrap(), root.join("sub/a.js"));
        assert_eq!(
            resolve(&root, "/sub/%61.js").unwrap(),
            root.join("sub/a.js")
        );
        for (path, status) in [
            ("/../secret", 400),
            ("/sub/../../secret", 400),
            ("/%2e%2e/secret", 400),
            ("/%2E%2E%2Fsecret", 400),
            ("/sub/..%2f..%2fsecret", 400),
            ("/..%5csecret", 400),
            ("/.hidden", 400),
            ("/a%00", 400),
            ("/%ff", 400),
            ("/missing", 404),
            ("/sub", 404),
        ] {
            assert_eq!(
                resolve(&root, path).map_err(|r| r.status),
                Err(status),
                "{path}"
            );
        }
        #[cfg(unix)]
        {
            assert_eq!(resolve(&root, "/link").map_err(|r| r.status), Err(403));
            assert_eq!(resolve(&root, "/inner").unwrap(), root.join("sub/a.js"));
        }
    }
}
