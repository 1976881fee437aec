//! How `moulin serve` carries its answers: HTTP/1.1 (hyper) on tokio, with
//! the bounds a server open to anyone needs. At most `max_connections`
//! connections at once (one more gets `503 Service Unavailable` with
//! `Retry-After` and is closed); a request head must arrive whole within
//! the timeout (a client that sends nothing, trickles its headers, or keeps
//! an idle connection open is dropped) and be at most 16 KiB (431), its
//! target at most 8 KiB (414), with no body (413); a client that takes none
//! of its response for the timeout is dropped too.

use super::log::Log;
use super::site::{Asked, Body, Method, Reply, Site, NO_STORE};
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper::header::{HeaderMap, HeaderValue};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// The longest request target (path and query) answered: 414 beyond.
pub const MAX_TARGET: usize = 8 * 1024;
/// The longest request head (request line and headers): 431 beyond.
pub const MAX_HEAD: usize = 16 * 1024;
/// Bytes of a file sent at a time.
const CHUNK: usize = 128 * 1024;

/// The bounds of the server.
#[derive(Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub timeout: Duration,
}

/// Everything a connection shares with the others.
struct Shared {
    site: Site,
    log: Log,
    limits: Limits,
}

/// Accepts connections until the process is stopped.
pub async fn serve(listener: TcpListener, site: Site, log: Log, limits: Limits) {
    let shared = Arc::new(Shared { site, log, limits });
    let open = Arc::new(Semaphore::new(limits.max_connections));
    // Connections being turned away, each for at most a second; beyond
    // these, a connection is closed at once without an answer.
    let turning_away = Arc::new(Semaphore::new(limits.max_connections.clamp(16, 1024)));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, or a connection reset before it
                // was accepted: wait a little rather than spin.
                eprintln!("moulin serve: cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Small writes leave at once: without it the page's many small
        // range requests each waited for a delayed acknowledgement.
        let _ = stream.set_nodelay(true);
        match open.clone().try_acquire_owned() {
            Ok(permit) => {
                let shared = shared.clone();
                tokio::spawn(async move {
                    connection(stream, peer, &shared).await;
                    drop(permit);
                });
            }
            Err(_) => {
                if let Ok(permit) = turning_away.clone().try_acquire_owned() {
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        turn_away(stream, peer, &shared).await;
                        drop(permit);
                    });
                }
            }
        }
    }
}

/// One connection, its requests one after the other (keep-alive).
async fn connection(stream: TcpStream, peer: SocketAddr, shared: &Arc<Shared>) {
    let io = TokioIo::new(Stalling::new(stream, shared.limits.timeout));
    let service = service_fn(|request| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(handle(&shared, peer, request).await) }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(shared.limits.timeout)
        .max_header_size(MAX_HEAD)
        .keep_alive(true);
    // Errors here are the client's (a reset, a timeout, a malformed
    // request hyper answered itself): nothing to do but close.
    let _ = http.serve_connection(io, service).await;
}

/// The answer to one more connection than allowed: 503, then close.
async fn turn_away(mut stream: TcpStream, peer: SocketAddr, shared: &Shared) {
    let start = Instant::now();
    let body = format!(
        "server busy: all {} connections are taken, try again shortly\n",
        shared.limits.max_connections
    );
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\n\
         Retry-After: 1\r\n\
         Cache-Control: no-store\r\n\
         Access-Control-Allow-Origin: *\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await?;
        // Read what the client sent until it closes (or the second is
        // over): closing with unread bytes would reset the connection, and
        // the client could lose the answer.
        let mut sink = [0u8; 4096];
        let mut read = 0;
        while read < MAX_HEAD {
            match stream.read(&mut sink).await? {
                0 => break,
                n => read += n,
            }
        }
        io::Result::Ok(())
    })
    .await;
    shared
        .log
        .request(peer, "-", "-", 503, body.len() as u64, start.elapsed());
}

/// The response to one request.
async fn handle(
    shared: &Arc<Shared>,
    peer: SocketAddr,
    request: Request<Incoming>,
) -> Response<Sent> {
    let start = Instant::now();
    let method = match *request.method() {
        hyper::Method::GET => Method::Get,
        hyper::Method::HEAD => Method::Head,
        hyper::Method::OPTIONS => Method::Options,
        _ => Method::Other,
    };
    let target = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let record = Record {
        shared: shared.clone(),
        peer,
        method: request.method().to_string(),
        // The log keeps the start of a long target only.
        target: target.chars().take(1024).collect(),
        start,
    };
    let header = |name| {
        request
            .headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    let mut close = false;
    let reply = if !hyper::body::Body::is_end_stream(request.body()) {
        // Nothing here takes a body; it is not read, and the connection
        // is closed after the answer.
        close = true;
        Reply::text(413, "request bodies are not accepted")
    } else if target.len() > MAX_TARGET {
        Reply::text(
            414,
            &format!("request target longer than {MAX_TARGET} bytes"),
        )
    } else if !target.starts_with('/') {
        Reply::text(400, "request target must be a path")
    } else {
        let asked = Asked {
            method,
            target,
            range: header(hyper::header::RANGE),
            if_none_match: header(hyper::header::IF_NONE_MATCH),
            if_range: header(hyper::header::IF_RANGE),
        };
        // Answered on this thread (most answers take a hundred
        // microseconds; a hop to another thread and back cost a tenth more
        // at one client), its other connections handed to another thread
        // meanwhile, since an answer may wait on the disk.
        tokio::task::block_in_place(|| {
            std::panic::catch_unwind(AssertUnwindSafe(|| shared.site.answer(&asked)))
                .unwrap_or_else(|_| Reply::text(500, "internal error"))
        })
    };
    response(reply, method == Method::Head, close, record)
}

/// A reply as hyper sends it: `Content-Length` always (for HEAD too), no
/// body for HEAD, 204 and 304.
fn response(reply: Reply, head: bool, close: bool, record: Record) -> Response<Sent> {
    let len = reply.len();
    let status = reply.status;
    let mut headers = HeaderMap::new();
    let mut put = |name: &'static str, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.append(name, value);
        }
    };
    let no_body = matches!(reply.body, Body::Empty);
    if !no_body {
        put("Content-Type", reply.content_type);
        put("Content-Length", &len.to_string());
    }
    for (name, value) in &reply.headers {
        put(name, value);
    }
    if close {
        put("Connection", "close");
    }
    if status >= 500 && !reply.headers.iter().any(|(n, _)| *n == "Cache-Control") {
        put("Cache-Control", NO_STORE);
    }
    let body = match reply.body {
        _ if head => Kind::Done,
        Body::Empty => Kind::Done,
        Body::Bytes(b) => Kind::Bytes(Some(Bytes::from(b))),
        Body::File { file, len } => {
            let mut file = tokio::fs::File::from_std(file);
            file.set_max_buf_size(CHUNK);
            Kind::File {
                file,
                left: len,
                buf: Vec::new(),
            }
        }
    };
    let mut response = Response::new(Sent {
        kind: body,
        sent: 0,
        record: Some((record, status)),
    });
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    *response.headers_mut() = headers;
    response
}

/// What the log needs of a request; written when its body is done.
struct Record {
    shared: Arc<Shared>,
    peer: SocketAddr,
    method: String,
    target: String,
    start: Instant,
}

/// A response body: bytes, or part of a file read in chunks as the client
/// takes them. Logs its request when dropped (sent, or abandoned).
pub struct Sent {
    kind: Kind,
    sent: u64,
    record: Option<(Record, u16)>,
}

enum Kind {
    Done,
    Bytes(Option<Bytes>),
    /// A file at the first byte to send, and how many to send.
    File {
        file: tokio::fs::File,
        left: u64,
        buf: Vec<u8>,
    },
}

impl Drop for Sent {
    fn drop(&mut self) {
        if let Some((r, status)) = self.record.take() {
            r.shared.log.request(
                r.peer,
                &r.method,
                &r.target,
                status,
                self.sent,
                r.start.elapsed(),
            );
        }
    }
}

impl hyper::body::Body for Sent {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        let chunk = match &mut this.kind {
            Kind::Done => return Poll::Ready(None),
            Kind::Bytes(b) => match b.take() {
                Some(b) => b,
                None => return Poll::Ready(None),
            },
            Kind::File { file, left, buf } => {
                if *left == 0 {
                    return Poll::Ready(None);
                }
                let want = (*left).min(CHUNK as u64) as usize;
                buf.resize(want, 0);
                let mut read = ReadBuf::new(&mut buf[..want]);
                match Pin::new(file).poll_read(cx, &mut read) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(e)) => return Poll::Ready(Some(Err(e))),
                    Poll::Ready(Ok(())) => {}
                }
                let n = read.filled().len();
                if n == 0 {
                    return Poll::Ready(Some(Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file shrank while it was sent",
                    ))));
                }
                *left -= n as u64;
                Bytes::copy_from_slice(&buf[..n])
            }
        };
        this.sent += chunk.len() as u64;
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Done => true,
            Kind::Bytes(b) => b.is_none(),
            Kind::File { left, .. } => *left == 0,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Done => SizeHint::with_exact(0),
            Kind::Bytes(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            Kind::File { left, .. } => SizeHint::with_exact(*left),
        }
    }
}

/// A connection whose writes fail once the client has taken nothing for
/// `timeout` (a full send buffer that does not drain): a client that asks
/// and never reads is dropped instead of holding its connection forever.
struct Stalling {
    stream: TcpStream,
    timeout: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    waiting: bool,
}

impl Stalling {
    fn new(stream: TcpStream, timeout: Duration) -> Stalling {
        Stalling {
            stream,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
            waiting: false,
        }
    }

    fn watch<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Ready(r) => {
                self.waiting = false;
                Poll::Ready(r)
            }
            Poll::Pending => {
                if !self.waiting {
                    self.waiting = true;
                    let at = tokio::time::Instant::now() + self.timeout;
                    self.deadline.as_mut().reset(at);
                }
                match self.deadline.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client took none of its response in time",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncRead for Stalling {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalling {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.watch(cx, r)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.watch(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_flush(cx);
        this.watch(cx, r)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_shutdown(cx);
        this.watch(cx, r)
    }
}
