//! `moulin serve`: the play-and-analyse page (`web/`), the tables with HTTP
//! range requests (what the page's WebAssembly probe reads), and
//! `GET /api/probe?position=...`, which answers what `moulin probe --json`
//! prints. With `--static-only` only files are served, as any static host
//! would, and the page probes in WebAssembly.

mod files;

use anyhow::{bail, Context};
use files::{content_type, parse_range, read_part, resolve, Range, Refusal};
use moulin_probe::report::{JsonError, Report};
use moulin_probe::AdviceOptions;
use moulin_probe::{Position, ProbeError, Tablebase};
use std::io::{Cursor, Read, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

/// The WebAssembly file the page loads, written by `scripts/build-web.sh`.
pub const WASM_FILE: &str = "moulin_wasm.wasm";
/// Requests served at once.
const WORKERS: usize = 4;

/// Arguments of `moulin serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of the tables, served under `/tables/`.
    #[arg(long, default_value = "data/tables")]
    pub dir: PathBuf,
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. The default answers this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Directory of the page (its WebAssembly built by `scripts/build-web.sh`).
    #[arg(long, default_value = "web")]
    pub web: PathBuf,
    /// Serve the files only (no `/api/`), as a static host would: the page
    /// then probes in WebAssembly.
    #[arg(long)]
    pub static_only: bool,
    /// Do not log requests on standard error.
    #[arg(long)]
    pub quiet: bool,
}

/// What the server needs to answer a request.
struct Site {
    web: PathBuf,
    tables: PathBuf,
    /// `None` with `--static-only`.
    tablebase: Option<Tablebase>,
}

/// An answer before it is sent.
struct Reply {
    status: u16,
    content_type: &'static str,
    headers: Vec<(&'static str, String)>,
    body: Body,
}

enum Body {
    Bytes(Vec<u8>),
    File(std::fs::File, u64),
}

impl Reply {
    fn bytes(status: u16, content_type: &'static str, bytes: Vec<u8>) -> Reply {
        Reply {
            status,
            content_type,
            headers: Vec::new(),
            body: Body::Bytes(bytes),
        }
    }

    fn text(status: u16, text: &str) -> Reply {
        Reply::bytes(
            status,
            "text/plain; charset=utf-8",
            format!("{text}\n").into_bytes(),
        )
    }

    fn refused(r: Refusal) -> Reply {
        Reply::text(r.status, r.reason)
    }

    fn len(&self) -> u64 {
        match &self.body {
            Body::Bytes(b) => b.len() as u64,
            Body::File(_, len) => *len,
        }
    }
}

/// Runs `moulin serve` until the process is stopped.
pub fn run(args: &Args) -> super::Outcome {
    let web = args.web.canonicalize().with_context(|| {
        format!(
            "the page directory {} does not exist (give it with --web)",
            args.web.display()
        )
    })?;
    if !web.join("index.html").is_file() {
        bail!(
            "{} has no index.html: is it the page directory?",
            web.display()
        );
    }
    if !web.join(WASM_FILE).is_file() {
        bail!(
            "{} has no {WASM_FILE}: build the page's WebAssembly with scripts/build-web.sh",
            web.display()
        );
    }
    let tables = args.dir.canonicalize().with_context(|| {
        format!(
            "the table directory {} does not exist (give it with --dir)",
            args.dir.display()
        )
    })?;
    let tablebase = match args.static_only {
        true => None,
        false => Some(
            Tablebase::open(&tables)
                .with_context(|| format!("cannot open the tables in {}", tables.display()))?,
        ),
    };
    let server = listen(args.bind, args.port)
        .and_then(|l| Server::from_listener(l, None).map_err(std::io::Error::other))
        .map_err(|e| anyhow::anyhow!("cannot listen on {}:{}: {e}", args.bind, args.port))?;
    let address = server
        .server_addr()
        .to_ip()
        .context("the server has no IP address")?;
    let site = Site {
        web,
        tables,
        tablebase,
    };
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "moulin serve: http://{address}/")?;
        writeln!(
            out,
            "  page {}, tables {}{}",
            site.web.display(),
            site.tables.display(),
            if args.static_only {
                " (static files only: the page probes in WebAssembly)"
            } else {
                ", probes at /api/probe?position=..."
            }
        )?;
        out.flush()?;
    }
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| loop {
                let request = match server.recv() {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("moulin serve: {e}");
                        continue;
                    }
                };
                if let Err(e) = answer(&site, request, args.quiet) {
                    eprintln!("moulin serve: cannot send a response: {e}");
                }
            });
        }
    });
    Ok(true)
}

/// A listening socket whose connections send small writes at once
/// (`TCP_NODELAY`, inherited by accepted sockets): tiny_http writes a reply
/// in pieces, and without it each block of a table waited for the
/// client's delayed acknowledgement (40 ms a request on Linux).
fn listen(bind: IpAddr, port: u16) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let address = std::net::SocketAddr::new(bind, port);
    let socket = Socket::new(
        Domain::for_address(address),
        Type::STREAM,
        Some(Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    socket.set_tcp_nodelay(true)?;
    socket.bind(&address.into())?;
    socket.listen(128)?;
    Ok(socket.into())
}

fn answer(site: &Site, request: Request, quiet: bool) -> std::io::Result<()> {
    let range = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Range"))
        .map(|h| h.value.as_str().to_string());
    let reply = match request.method() {
        Method::Get | Method::Head => route(site, request.url(), range.as_deref()),
        _ => {
            let mut r = Reply::text(405, "method not allowed");
            r.headers.push(("Allow", "GET, HEAD".into()));
            r
        }
    };
    if !quiet {
        eprintln!(
            "{} {} {}{} {}",
            request.method(),
            request.url(),
            reply.status,
            range.map(|r| format!(" {r}")).unwrap_or_default(),
            reply.len()
        );
    }
    let len = reply.len() as usize;
    let mut headers = vec![header("Content-Type", reply.content_type)];
    headers.extend(reply.headers.iter().map(|(k, v)| header(k, v)));
    let body: Box<dyn Read + Send> = match reply.body {
        Body::Bytes(b) => Box::new(Cursor::new(b)),
        Body::File(f, _) => Box::new(f),
    };
    // Content-Length always (tiny_http would switch large bodies to chunked).
    let response = Response::new(StatusCode(reply.status), headers, body, Some(len), None)
        .with_chunked_threshold(usize::MAX);
    request.respond(response)
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("ASCII header")
}

/// The reply to a GET of `url` (path and query) with an optional `Range`.
fn route(site: &Site, url: &str, range: Option<&str>) -> Reply {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if let Some(api) = path.strip_prefix("/api/") {
        return match &site.tablebase {
            Some(tb) => api_reply(tb, api, query),
            None => Reply::text(404, "not found (static files only)"),
        };
    }
    let file = match path.strip_prefix("/tables/") {
        Some(name) if name.ends_with(".mtb") && !name.contains(['/', '%']) => {
            resolve(&site.tables, name)
        }
        Some(_) => Err(Refusal {
            status: 404,
            reason: "not a table",
        }),
        None => resolve(&site.web, path),
    };
    match file {
        Ok(file) => file_reply(&file, range),
        Err(refusal) => Reply::refused(refusal),
    }
}

/// A file, whole or the part a `Range` header asks for.
fn file_reply(path: &Path, range: Option<&str>) -> Reply {
    let opened = std::fs::File::open(path).and_then(|f| Ok((f.metadata()?.len(), f)));
    let Ok((len, mut file)) = opened else {
        return Reply::text(404, "not found");
    };
    let kind = content_type(path);
    let mut reply = match parse_range(range, len) {
        Range::Whole => Reply {
            status: 200,
            content_type: kind,
            headers: Vec::new(),
            body: Body::File(file, len),
        },
        Range::Part { start, end } => match read_part(&mut file, start, end) {
            Ok(bytes) => {
                let mut r = Reply::bytes(206, kind, bytes);
                let span = format!("bytes {start}-{}/{len}", end - 1);
                r.headers.push(("Content-Range", span));
                r
            }
            Err(e) => Reply::text(500, &format!("cannot read the file: {e}")),
        },
        Range::Unsatisfiable => {
            let mut r = Reply::text(416, "range not satisfiable");
            r.headers.push(("Content-Range", format!("bytes */{len}")));
            r
        }
    };
    reply.headers.push(("Accept-Ranges", "bytes".into()));
    reply.headers.push(("Cache-Control", "no-cache".into()));
    reply
}

/// `/api/probe?position=...[&counter=C]` (what `moulin probe --json
/// [--counter C]` prints for the position, status 400 for an invalid one or
/// a counter the tables cannot answer, 404 for a missing table) and
/// `/api/info` (the rules and sectors of the tables).
fn api_reply(tb: &Tablebase, api: &str, query: &str) -> Reply {
    let json = |status, text: String| {
        let mut r = Reply::bytes(status, "application/json", format!("{text}\n").into_bytes());
        r.headers.push(("Cache-Control", "no-store".into()));
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
                        let status = match e {
                            ProbeError::InvalidPosition(_)
                            | ProbeError::NoCaptureRule
                            | ProbeError::CounterOutOfRange { .. }
                            | ProbeError::CounterInPlacement { .. } => 400,
                            ProbeError::MissingSector(_) => 404,
                            _ => 500,
                        };
                        (status, Err(super::probe::message(e)))
                    }
                },
            };
            let line = super::probe::json_line(&result, text).expect("JSON");
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
