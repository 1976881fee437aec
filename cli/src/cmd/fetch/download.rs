//! One file of a fetch: continue its `<name>.part` with a range request,
//! check its SHA-256 against the list, and only then move it into place
//! (fsync the file, rename, fsync the directory).

use super::list::{hex, Entry};
use moulin_probe::remote::content_range;
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Tries of a file whose transfer breaks off (the part is kept and continued).
const TRIES: u32 = 3;
/// Bytes read from the network or the disk at a time.
const CHUNK: usize = 256 << 10;

/// The HTTP side: one connection pool for every file, and the base URL.
pub struct Client {
    http: ureq::Agent,
    base: String,
}

impl Client {
    /// A client of the tables under `base` (no trailing `/`), giving up on a
    /// connection, a response or a read that takes longer than `timeout`.
    pub fn new(base: &str, timeout: Duration) -> Client {
        let config = ureq::Agent::config_builder()
            .user_agent(format!("moulin/{}", env!("CARGO_PKG_VERSION")))
            .http_status_as_error(false)
            // The bytes as stored: their SHA-256 is the list's.
            .accept_encoding("identity")
            .timeout_connect(Some(timeout))
            .timeout_recv_response(Some(timeout))
            .timeout_per_read(Some(timeout))
            .build();
        Client {
            http: ureq::Agent::new_with_config(config),
            base: base.trim_end_matches('/').to_string(),
        }
    }

    /// The URL of a file.
    pub fn url(&self, name: &str) -> String {
        format!("{}/{name}", self.base)
    }
}

/// The progress of the whole fetch: bytes in place, shown by a bar whose
/// length grows as the lengths of unlisted sizes become known.
pub struct Progress {
    pub bar: indicatif::ProgressBar,
    done: AtomicU64,
    /// Bytes received over the network.
    pub received: AtomicU64,
}

impl Progress {
    pub fn new(bar: indicatif::ProgressBar) -> Progress {
        Progress {
            bar,
            done: AtomicU64::new(0),
            received: AtomicU64::new(0),
        }
    }

    fn advance(&self, n: u64) {
        let v = self.done.fetch_add(n, Ordering::Relaxed) + n;
        self.bar.set_position(v);
    }

    fn undo(&self, n: u64) {
        let v = self.done.fetch_sub(n, Ordering::Relaxed).saturating_sub(n);
        self.bar.set_position(v);
    }

    /// The length of a file whose size the list does not give, once.
    fn learn(&self, entry: &Entry, len: Option<u64>, learned: &mut bool) {
        if let (None, Some(len), false) = (entry.bytes, len, *learned) {
            self.bar.inc_length(len);
            *learned = true;
        }
    }

    /// A line on standard error, above the bar.
    pub fn note(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }
}

/// How a file ended well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// It was in the directory already, intact: not fetched.
    Intact,
    /// Fetched now (`replaced`: a file of that name that did not match the
    /// list was there and was removed).
    Fetched { replaced: bool },
}

/// SHA-256 of a file.
fn hash_file(path: &Path) -> std::io::Result<[u8; 32]> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        match file.read(&mut buf)? {
            0 => return Ok(hasher.finalize().into()),
            n => hasher.update(&buf[..n]),
        }
    }
}

/// An error of the file system, naming the file.
fn io(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

fn len_of(path: &Path) -> Option<u64> {
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// What one request brought.
enum Transfer {
    /// The body was appended to the part; the file is complete.
    Complete,
    /// The server has nothing after the part's end (416): the part may be
    /// the whole file already.
    NothingAfter,
    /// A transport error: the part keeps what came, worth another try.
    Broken(String),
}

/// Fetches one file into `dir` (see the module). The error names the file
/// and, for what the server did, the URL.
pub fn fetch_one(
    client: &Client,
    dir: &Path,
    entry: &Entry,
    progress: &Progress,
) -> Result<Done, String> {
    let name = &entry.name;
    let path = dir.join(name);
    let part = part_path(dir, name);
    let mut learned = false;
    let mut replaced = false;
    if let Some(len) = len_of(&path) {
        let digest = hash_file(&path).map_err(|e| io("read", &path, e))?;
        if digest == entry.sha256 {
            let _ = std::fs::remove_file(&part);
            progress.learn(entry, Some(len), &mut learned);
            progress.advance(len);
            return Ok(Done::Intact);
        }
        progress.note(&format!(
            "{name}: the file in {} does not match its SHA-256 in the list: fetching it again \
             (it replaces the file once checked)",
            dir.display()
        ));
        replaced = true;
    }
    download(client, dir, entry, progress, &mut learned)
        .map(|()| Done::Fetched { replaced })
        .map_err(|e| match replaced {
            true => format!("{e} (the file there before, not matching the list, is kept)"),
            false => e,
        })
}

/// Downloads a file into its part, checks it and moves it into place.
fn download(
    client: &Client,
    dir: &Path,
    entry: &Entry,
    progress: &Progress,
    learned: &mut bool,
) -> Result<(), String> {
    let name = &entry.name;
    let path = dir.join(name);
    let part = part_path(dir, name);
    let url = client.url(name);
    let mut broken = 0;
    let mut restarted = false;
    loop {
        let mut have = len_of(&part).unwrap_or(0);
        if entry.bytes.is_some_and(|b| have > b) {
            std::fs::remove_file(&part).map_err(|e| io("remove", &part, e))?;
            have = 0;
        }
        let resumed = have > 0;
        let transfer = if entry.bytes == Some(have) && resumed {
            // A run stopped between the last byte and the rename.
            Transfer::NothingAfter
        } else {
            transfer(client, &url, entry, &part, have, progress, learned)?
        };
        if let Transfer::NothingAfter = transfer {
            progress.learn(entry, Some(have), learned);
            progress.advance(have);
        }
        if let Transfer::Broken(e) = transfer {
            // The next try counts the part again.
            progress.undo(len_of(&part).unwrap_or(0));
            broken += 1;
            if broken >= TRIES {
                return Err(format!(
                    "{url}: {e} ({TRIES} tries; run again to continue from byte {})",
                    len_of(&part).unwrap_or(0)
                ));
            }
            progress.note(&format!("{name}: {url}: {e}; continuing"));
            std::thread::sleep(Duration::from_secs(1));
            continue;
        }
        let digest = hash_file(&part).map_err(|e| io("read", &part, e))?;
        if digest == entry.sha256 {
            let sync = |p: &Path| File::open(p).and_then(|f| f.sync_all());
            sync(&part).map_err(|e| io("sync", &part, e))?;
            std::fs::rename(&part, &path).map_err(|e| io("rename", &part, e))?;
            #[cfg(unix)]
            sync(dir).map_err(|e| io("sync", dir, e))?;
            return Ok(());
        }
        let len = len_of(&part).unwrap_or(0);
        std::fs::remove_file(&part).map_err(|e| io("remove", &part, e))?;
        progress.undo(len);
        if resumed && !restarted {
            restarted = true;
            progress.note(&format!(
                "{name}: continued from byte {have}, it does not match its SHA-256 in the list: \
                 fetching it again from the start"
            ));
            continue;
        }
        return Err(format!(
            "{url}: its SHA-256 is {}, the list says {}: refused and removed",
            hex(&digest),
            hex(&entry.sha256)
        ));
    }
}

/// One GET of `url` from byte `have` on (a range request if the part has
/// bytes), appending to the part. A server that answers a range request
/// with the whole file (200) restarts the part.
fn transfer(
    client: &Client,
    url: &str,
    entry: &Entry,
    part: &Path,
    have: u64,
    progress: &Progress,
    learned: &mut bool,
) -> Result<Transfer, String> {
    let name = &entry.name;
    let mut request = client.http.get(url);
    if have > 0 {
        request = request.header("Range", format!("bytes={have}-"));
    }
    let mut response = match request.call() {
        Ok(r) => r,
        Err(e) => return Ok(Transfer::Broken(e.to_string())),
    };
    let status = response.status();
    let header = |h: &str| {
        response
            .headers()
            .get(h)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let length = header("content-length").and_then(|v| v.parse::<u64>().ok());
    let (start, total) = match status.as_u16() {
        206 if have > 0 => match header("content-range").as_deref().and_then(content_range) {
            Some(range) if range.first == have => (have, range.total),
            other => {
                return Err(format!(
                    "{url}: asked for bytes from {have} on, the server sent {}",
                    other.map_or("an unreadable Content-Range".into(), |range| format!(
                        "bytes from {} on",
                        range.first
                    ))
                ))
            }
        },
        200 => (0, length),
        416 if have > 0 => return Ok(Transfer::NothingAfter),
        code => {
            return Err(format!(
                "{url}: HTTP {code} {}",
                status.canonical_reason().unwrap_or("")
            )
            .trim_end()
            .to_string())
        }
    };
    if start == 0 && have > 0 {
        progress.note(&format!(
            "{name}: the server sent the whole file instead of the bytes from {have} on: starting it again"
        ));
    } else if start > 0 {
        progress.note(&format!("{name}: continuing from byte {start}"));
    }
    if let (Some(want), Some(total)) = (entry.bytes, total) {
        if want != total {
            return Err(format!(
                "{url}: the server's file has {total} bytes, the list says {want}: not the listed file"
            ));
        }
    }
    progress.learn(entry, total, learned);
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(part)
        .map_err(|e| format!("cannot open {}: {e}", part.display()))?;
    if start == 0 {
        file.set_len(0)
            .map_err(|e| format!("cannot truncate {}: {e}", part.display()))?;
    }
    progress.advance(start);
    let mut reader = response.body_mut().as_reader();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Ok(Transfer::Broken(e.to_string())),
        };
        file.write_all(&buf[..n])
            .map_err(|e| format!("cannot write {}: {e}", part.display()))?;
        progress.advance(n as u64);
        progress.received.fetch_add(n as u64, Ordering::Relaxed);
    }
    file.sync_all()
        .map_err(|e| format!("cannot sync {}: {e}", part.display()))?;
    Ok(Transfer::Complete)
}

/// The part file of a table file name.
pub fn part_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.part"))
}
