//! What `moulin serve` answers, apart from how it is carried: a request's
//! method, target and the few headers that matter, in; a status, headers
//! and a body, out. Runs on a blocking thread (it opens files and probes).

use super::files::{
    content_type, etag, if_range_holds, none_match_hits, parse_range, read_part, resolve, Range,
    Refusal,
};
use moulin_probe::report::{JsonError, Report};
use moulin_probe::AdviceOptions;
use moulin_probe::{ErrorKind, Position, Tablebase};
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// How long a table may be kept by browsers and caches: a year, and never
/// revalidated (`immutable`): a finished table never changes.
pub const TABLE_CACHE: &str = "public, max-age=31536000, immutable";
/// The page: kept, but revalidated (`If-None-Match`, a 304 when unchanged)
/// on every use, so a rebuilt page is seen at once.
pub const PAGE_CACHE: &str = "no-cache";
/// Answers of the API: the same position gets the same answer from the same
/// tables; a minute keeps a restart with other tables visible soon.
pub const API_CACHE: &str = "public, max-age=60";
/// Errors of the server and refusals of files.
pub const NO_STORE: &str = "no-store";
/// Ranges up to this length are read at once; longer ones are streamed.
const SMALL_PART: u64 = 64 * 1024;

/// What the server needs to answer a request.
pub struct Site {
    pub web: PathBuf,
    pub tables: PathBuf,
    /// `None` with `--static-only`.
    pub tablebase: Option<Tablebase>,
}

/// The method of a request, as far as the server tells them apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Method {
    Get,
    Head,
    Options,
    Other,
}

/// A request, reduced to what the answer depends on.
pub struct Asked {
    pub method: Method,
    /// Path and query, as sent (still percent-encoded).
    pub target: String,
    pub range: Option<String>,
    pub if_none_match: Option<String>,
    pub if_range: Option<String>,
}

/// An answer before it is sent.
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(&'static str, String)>,
    pub body: Body,
}

pub enum Body {
    /// No body at all (204, 304).
    Empty,
    Bytes(Vec<u8>),
    /// The next `len` bytes of a file (positioned at the first).
    File {
        file: std::fs::File,
        len: u64,
    },
}

impl Reply {
    pub fn bytes(status: u16, content_type: &'static str, bytes: Vec<u8>) -> Reply {
        Reply {
            status,
            content_type,
            headers: Vec::new(),
            body: Body::Bytes(bytes),
        }
    }

    /// A short plain text answer (a refusal or an error), never cached.
    pub fn text(status: u16, text: &str) -> Reply {
        let mut r = Reply::bytes(
            status,
            "text/plain; charset=utf-8",
            format!("{text}\n").into_bytes(),
        );
        r.headers.push(("Cache-Control", NO_STORE.into()));
        r
    }

    fn empty(status: u16) -> Reply {
        Reply {
            status,
            content_type: "",
            headers: Vec::new(),
            body: Body::Empty,
        }
    }

    fn refused(r: Refusal) -> Reply {
        Reply::text(r.status, r.reason)
    }

    /// The length of the body.
    pub fn len(&self) -> u64 {
        match &self.body {
            Body::Empty => 0,
            Body::Bytes(b) => b.len() as u64,
            Body::File { len, .. } => *len,
        }
    }

    /// Readable by the pages of any site (the API and the tables): the
    /// headers a range reader needs are exposed to its script.
    fn shared(mut self) -> Reply {
        self.headers
            .push(("Access-Control-Allow-Origin", "*".into()));
        self.headers.push((
            "Access-Control-Expose-Headers",
            "Content-Range, Content-Length, Accept-Ranges, ETag".into(),
        ));
        self
    }
}

/// The methods answered, for `Allow` and preflights.
const ALLOWED: &str = "GET, HEAD, OPTIONS";

impl Site {
    /// The reply to a request.
    pub fn answer(&self, asked: &Asked) -> Reply {
        let (path, query) = asked.target.split_once('?').unwrap_or((&asked.target, ""));
        let shared = path.starts_with("/api/") || path.starts_with("/tables/");
        match asked.method {
            Method::Get | Method::Head => {}
            // A preflight (or a plain question): what may be asked.
            Method::Options => {
                let mut r = Reply::empty(204);
                r.headers.push(("Allow", ALLOWED.into()));
                if shared {
                    r.headers
                        .push(("Access-Control-Allow-Methods", ALLOWED.into()));
                    r.headers.push((
                        "Access-Control-Allow-Headers",
                        "Range, If-None-Match, If-Range".into(),
                    ));
                    r.headers.push(("Access-Control-Max-Age", "86400".into()));
                    r = r.shared();
                }
                return r;
            }
            Method::Other => {
                let mut r = Reply::text(405, "method not allowed");
                r.headers.push(("Allow", ALLOWED.into()));
                return r;
            }
        }
        if let Some(api) = path.strip_prefix("/api/") {
            let reply = match &self.tablebase {
                Some(tb) => api_reply(tb, api, query),
                None => Reply::text(404, "not found (static files only)"),
            };
            return reply.shared();
        }
        if let Some(name) = path.strip_prefix("/tables/") {
            // Tables, WDL tables and a play set's distance tables, nothing
            // else of the directory (the solve's logs and its lock stay
            // private).
            let table = [".mtb", ".mtw", ".mtd"].iter().any(|e| name.ends_with(e));
            let reply = if table && !name.contains(['/', '%']) {
                match resolve(&self.tables, name) {
                    Ok(file) => file_reply(&file, asked, TABLE_CACHE),
                    Err(refusal) => Reply::refused(refusal),
                }
            } else {
                Reply::text(404, "not a table")
            };
            return reply.shared();
        }
        match resolve(&self.web, path) {
            Ok(file) => file_reply(&file, asked, PAGE_CACHE),
            Err(refusal) => Reply::refused(refusal),
        }
    }
}

/// A file, whole or the part a `Range` header asks for, or a 304 when the
/// client's copy (`If-None-Match`) is current.
fn file_reply(path: &Path, asked: &Asked, cache: &'static str) -> Reply {
    let opened = std::fs::File::open(path).and_then(|f| Ok((f.metadata()?, f)));
    let Ok((meta, mut file)) = opened else {
        return Reply::text(404, "not found");
    };
    let len = meta.len();
    let tag = etag(&meta);
    let kind = content_type(path);
    let validators = |mut r: Reply| {
        r.headers.push(("ETag", tag.clone()));
        r.headers.push(("Cache-Control", cache.into()));
        r
    };
    // RFC 9110, section 13.2.2: If-None-Match first, and Range only then.
    if asked
        .if_none_match
        .as_deref()
        .is_some_and(|h| none_match_hits(h, &tag))
    {
        return validators(Reply::empty(304));
    }
    let range = match &asked.if_range {
        Some(h) if !if_range_holds(h, &tag) => None,
        _ => asked.range.as_deref(),
    };
    let mut reply = match parse_range(range, len) {
        Range::Whole => validators(Reply {
            status: 200,
            content_type: kind,
            headers: Vec::new(),
            body: Body::File { file, len },
        }),
        Range::Part { start, end } => {
            let body = if end - start <= SMALL_PART {
                match read_part(&mut file, start, end) {
                    Ok(bytes) => Body::Bytes(bytes),
                    Err(e) => return Reply::text(500, &format!("cannot read the file: {e}")),
                }
            } else {
                match file.seek(SeekFrom::Start(start)) {
                    Ok(_) => Body::File {
                        file,
                        len: end - start,
                    },
                    Err(e) => return Reply::text(500, &format!("cannot read the file: {e}")),
                }
            };
            let mut r = validators(Reply {
                status: 206,
                content_type: kind,
                headers: Vec::new(),
                body,
            });
            let span = format!("bytes {start}-{}/{len}", end - 1);
            r.headers.push(("Content-Range", span));
            r
        }
        Range::Unsatisfiable => {
            let mut r = Reply::text(416, "range not satisfiable");
            r.headers.push(("Content-Range", format!("bytes */{len}")));
            r
        }
    };
    reply.headers.push(("Accept-Ranges", "bytes".into()));
    reply
}

/// `/api/probe?position=...[&counter=C]` (what `moulin probe --json
/// [--counter C]` prints for the position, status 400 for an invalid one or
/// a counter the tables cannot answer, 404 for a missing table) and
/// `/api/info` (the rules and sectors of the tables).
fn api_reply(tb: &Tablebase, api: &str, query: &str) -> Reply {
    let json = |status, text: String| {
        let mut r = Reply::bytes(status, "application/json", format!("{text}\n").into_bytes());
        let cache = if status < 500 { API_CACHE } else { NO_STORE };
        r.headers.push(("Cache-Control", cache.into()));
        r
    };
    match api {
        "probe" => {
            let position = form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "position")
                .map(|(_, v)| v.into_owned());
            let Some(text) = position else {
                let error = JsonError {
                    position: "",
                    error: "missing query parameter `position`",
                };
                return json(400, serde_json::to_string(&error).expect("JSON"));
            };
            let text = text.trim();
            let counter = form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "counter")
                .map(|(_, v)| v.trim().parse::<u16>().map_err(|_| v.into_owned()));
            let counter = match counter {
                None => None,
                Some(Ok(c)) => Some(c),
                Some(Err(v)) => {
                    let error = format!("invalid counter `{v}`: a number of turns, 0 or more");
                    let error = JsonError {
                        position: text,
                        error: &error,
                    };
                    return json(400, serde_json::to_string(&error).expect("JSON"));
                }
            };
            let answer = |position| match counter {
                // Under the no-capture rule, at the counter asked for.
                Some(c) => Report::at_counter(tb, position, c),
                // Exactly `moulin probe --json`: practical chances included.
                None => Report::with_chances(tb, position, &AdviceOptions::default()),
            };
            let (status, result) = match text.parse::<Position>() {
                Err(e) => (400, Err(format!("invalid position: {e}"))),
                Ok(position) => match answer(position) {
                    Ok(report) => (200, Ok(report)),
                    Err(e) => {
                        let status = match e.kind() {
                            ErrorKind::InvalidPosition | ErrorKind::Counter => 400,
                            ErrorKind::MissingTable => 404,
                            _ => 500,
                        };
                        (status, Err(crate::cmd::probe::message(e)))
                    }
                },
            };
            let line = crate::cmd::probe::json_line(&result, text).expect("JSON");
            json(status, line)
        }
        "info" => {
            let sectors: Vec<String> = tb.sectors().map(|(s, _)| s.to_string()).collect();
            let info = serde_json::json!({
                "rules": {
                    "flying": tb.rules().flying,
                    "no_capture_limit": tb.no_capture_limit(),
                },
                "sectors": sectors,
            });
            json(200, info.to_string())
        }
        _ => Reply::text(404, "no such API (there are /api/probe and /api/info)"),
    }
}
