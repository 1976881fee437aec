//! A table server for the tests that can misbehave: [`HttpFixture`] serves
//! the files of a directory under `/tables/` over HTTP/1.1 (range requests,
//! persistent connections) in threads of the test, records every request,
//! and injects the [`Faults`] it is given: a throttled body, a missing or
//! failing file, a flipped bit, ranges ignored, a reply that never comes or
//! stops halfway.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a stalled reply waits before the connection closes: far past
/// the timeouts the tests give their clients.
const STALL: Duration = Duration::from_secs(30);

/// The headers of a reply that carries a file's bytes.
const FILE_HEADERS: &str = "ETag: \"v1\"\r\nCache-Control: public, max-age=31536000, immutable\r\n\
                            Accept-Ranges: bytes\r\n";

/// Which requests a fault applies to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Which {
    /// None.
    #[default]
    None,
    /// Every request.
    All,
    /// The requests of this file (`3v3.mtb`).
    File(String),
    /// The requests of a table's blocks (see [`Request::is_block`]).
    Blocks,
}

impl Which {
    /// The requests of the file `name`.
    pub fn file(name: &str) -> Which {
        Which::File(name.to_string())
    }

    fn applies(&self, request: &Request) -> bool {
        match self {
            Which::None => false,
            Which::All => true,
            Which::File(name) => request.file() == Some(name.as_str()),
            Which::Blocks => request.is_block(),
        }
    }
}

/// What the server does besides serving files with ranges. The default
/// serves them faithfully.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    /// Every body sent in pieces of this many bytes, with this pause before
    /// each.
    pub throttle: Option<(usize, Duration)>,
    /// Answered with 500 Internal Server Error.
    pub fail: Which,
    /// Answered with 404 Not Found, as a file that is not there.
    pub missing: Which,
    /// One bit (0x20) of the byte at this offset of this file (`3v3.mtb`)
    /// flipped, in every reply that holds it.
    pub flip: Option<(String, u64)>,
    /// Every request of a file answered with the whole file, status 200,
    /// whatever range it asks for.
    pub ignore_range: bool,
    /// Read, then never answered.
    pub stall: Which,
    /// Answered with the head and half of the body, then nothing more.
    pub stall_body: Which,
}

/// A request the server received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The path asked for (`/tables/3v3.mtb`).
    pub path: String,
    /// The `Range` header, as sent (`bytes=0-1023`, `bytes=5000-`).
    pub range: Option<String>,
    /// The `User-Agent` header.
    pub client: Option<String>,
}

impl Request {
    /// The name of the file asked for under `/tables/`.
    pub fn file(&self) -> Option<&str> {
        self.path.strip_prefix("/tables/")
    }

    /// The first and the last byte of the range asked for (the last `None`
    /// for a range to the end of the file).
    pub fn span(&self) -> Option<(u64, Option<u64>)> {
        let range = self.range.as_deref()?.strip_prefix("bytes=")?;
        let (first, last) = range.split_once('-')?;
        let first = first.trim().parse().ok()?;
        let last = match last.trim() {
            "" => None,
            last => Some(last.parse().ok()?),
        };
        Some((first, last))
    }

    /// Whether this asks for a block of a table, as a remote tablebase
    /// reads one: a range that starts neither at 0 (the first request of a
    /// table) nor at 128 (the block index), and is not 4 bytes long (the
    /// trailer's marker).
    pub fn is_block(&self) -> bool {
        match self.span() {
            Some((first, Some(last))) if first <= last => {
                first != 0 && first != 128 && last - first + 1 != 4
            }
            _ => false,
        }
    }
}

/// A running test server of a directory's files, at [`url`](Self::url);
/// its threads end with the test process.
pub struct HttpFixture {
    /// The tables' base URL, `http://127.0.0.1:<port>/tables`.
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl HttpFixture {
    /// Serves the files of `dir` on a free port of 127.0.0.1, with `faults`.
    pub fn start(dir: &Path, faults: Faults) -> HttpFixture {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let url = format!("http://{}/tables", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (dir, log) = (dir.to_path_buf(), Arc::clone(&requests));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (dir, faults, log) = (dir.clone(), faults.clone(), Arc::clone(&log));
                std::thread::spawn(move || serve_connection(stream, &dir, &faults, &log));
            }
        });
        HttpFixture { url, requests }
    }

    /// Every request received so far, in the order they came.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The `Range` headers of the requests of the file `name` so far.
    pub fn ranges(&self, name: &str) -> Vec<Option<String>> {
        self.requests()
            .into_iter()
            .filter(|r| r.file() == Some(name))
            .map(|r| r.range)
            .collect()
    }

    /// How many requests so far asked for a table's block.
    pub fn block_requests(&self) -> usize {
        self.requests().iter().filter(|r| r.is_block()).count()
    }
}

/// Answers the requests of one connection until the client closes it or a
/// fault ends it.
fn serve_connection(stream: TcpStream, dir: &Path, faults: &Faults, log: &Mutex<Vec<Request>>) {
    // A head and a body written apart would wait on Nagle's algorithm and
    // the client's delayed acknowledgement, 40 ms a reply.
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut out = stream;
    while let Some(request) = read_request(&mut reader) {
        log.lock().unwrap().push(request.clone());
        if !matches!(answer(&mut out, &request, dir, faults), Ok(true)) {
            return;
        }
    }
}

/// The next request's line and headers; `None` at the end of the connection.
fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut first = String::new();
    if reader.read_line(&mut first).ok()? == 0 {
        return None;
    }
    let mut request = Request {
        path: first.split(' ').nth(1).unwrap_or("").to_string(),
        range: None,
        client: None,
    };
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line.trim().is_empty() {
            return Some(request);
        }
        if let Some((name, value)) = line.split_once(':') {
            let value = Some(value.trim().to_string());
            if name.trim().eq_ignore_ascii_case("range") {
                request.range = value;
            } else if name.trim().eq_ignore_ascii_case("user-agent") {
                request.client = value;
            }
        }
    }
}

/// Answers one request; whether the connection stays open for the next.
fn answer(out: &mut TcpStream, request: &Request, dir: &Path, faults: &Faults) -> io::Result<bool> {
    if faults.stall.applies(request) {
        std::thread::sleep(STALL);
        return Ok(false);
    }
    let mut reply = |status: &str, headers: &str, body: &[u8], stall: bool| {
        send(out, status, headers, body, faults.throttle, stall)
    };
    if faults.fail.applies(request) {
        return reply("500 Internal Server Error", "", b"broken\n", false);
    }
    let name = request
        .file()
        .filter(|name| !name.contains('/') && !faults.missing.applies(request));
    let Some(mut bytes) = name.and_then(|name| std::fs::read(dir.join(name)).ok()) else {
        return reply("404 Not Found", "", b"not found\n", false);
    };
    if let Some((file, at)) = &faults.flip {
        if name == Some(file.as_str()) {
            if let Some(byte) = bytes.get_mut(*at as usize) {
                *byte ^= 0x20;
            }
        }
    }
    let stall = faults.stall_body.applies(request);
    let total = bytes.len() as u64;
    match request.span().filter(|_| !faults.ignore_range) {
        None => reply("200 OK", FILE_HEADERS, &bytes, stall),
        Some((first, _)) if first >= total => reply(
            "416 Range Not Satisfiable",
            &format!("Content-Range: bytes */{total}\r\n"),
            b"",
            false,
        ),
        Some((first, last)) => {
            let last = last.map_or(total - 1, |last| last.min(total - 1));
            let headers = format!("{FILE_HEADERS}Content-Range: bytes {first}-{last}/{total}\r\n");
            let body = &bytes[first as usize..=last as usize];
            reply("206 Partial Content", &headers, body, stall)
        }
    }
}

/// Writes a reply: its head, then its body (throttled, or half of it and
/// then nothing when `stall`); whether the connection stays open.
fn send(
    out: &mut TcpStream,
    status: &str,
    headers: &str,
    body: &[u8],
    throttle: Option<(usize, Duration)>,
    stall: bool,
) -> io::Result<bool> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{headers}\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    if stall {
        out.write_all(&body[..body.len() / 2])?;
        out.flush()?;
        std::thread::sleep(STALL);
        return Ok(false);
    }
    match throttle {
        None => out.write_all(body)?,
        Some((piece, pause)) => {
            for chunk in body.chunks(piece) {
                std::thread::sleep(pause);
                out.write_all(chunk)?;
            }
        }
    }
    Ok(true)
}
