//! `moulin serve`: the play-and-analyse page (`web/`), the tables with HTTP
//! range requests (what the page's WebAssembly probe reads), and
//! `GET /api/probe?position=...`, which answers what `moulin probe --json`
//! prints. With `--static-only` only files are served, as any static host
//! would, and the page probes in WebAssembly.
//!
//! Made to face the public: the tables carry a strong `ETag` and are cached
//! for a year (`immutable`), the page is revalidated (304), the API and the
//! tables may be read by pages of other sites (CORS, preflight answered),
//! and connections, request sizes and slow clients are bounded (`net`).

mod files;
mod log;
mod net;
mod site;

use anyhow::{bail, Context};
use moulin_probe::Tablebase;
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The WebAssembly file the page loads, written by `scripts/build-web.sh`.
pub const WASM_FILE: &str = "moulin_wasm.wasm";

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
    /// Connections open at once; one more is answered `503 Service
    /// Unavailable` (with `Retry-After`) and closed.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_connections: u32,
    /// Seconds a client has to send a whole request head (a new connection,
    /// or the next request on a kept-alive one), and to start taking a
    /// response it stopped reading; then its connection is closed.
    #[arg(long, default_value = "20", value_parser = seconds)]
    pub timeout: Duration,
    /// Log each request (time, client, method, path, status, bytes,
    /// duration) to this file, appended to; `-` for standard error (the
    /// default).
    #[arg(long, value_name = "FILE", conflicts_with = "quiet")]
    pub log: Option<PathBuf>,
    /// Do not log requests.
    #[arg(long)]
    pub quiet: bool,
}

/// A positive number of seconds (fractions allowed) up to a day.
fn seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "`{text}` is not a number of seconds above 0 (at most a day)"
        )),
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
    let log = match (&args.log, args.quiet) {
        (_, true) => log::Log::Off,
        (None, false) => log::Log::Stderr,
        (Some(path), false) => log::Log::open(path)
            .with_context(|| format!("cannot open the log file {}", path.display()))?,
    };
    let listener = listen(args.bind, args.port)
        .map_err(|e| anyhow::anyhow!("cannot listen on {}:{}: {e}", args.bind, args.port))?;
    let address = listener.local_addr()?;
    let site = site::Site {
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
    let limits = net::Limits {
        max_connections: args.max_connections as usize,
        timeout: args.timeout,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Probes and file reads wait on the disk there; beyond these, they
        // queue.
        .max_blocking_threads(64)
        .thread_name("moulin-serve")
        .build()
        .context("cannot start the server's threads")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        net::serve(listener, site, log, limits).await;
        anyhow::Ok(())
    })?;
    Ok(true)
}

/// A listening socket whose connections send small writes at once
/// (`TCP_NODELAY`, also set on each accepted socket): without it each block
/// of a table waited for the client's delayed acknowledgement (40 ms a
/// request on Linux).
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
    socket.set_nonblocking(true)?;
    socket.bind(&address.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}
