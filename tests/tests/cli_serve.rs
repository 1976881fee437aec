//! `moulin serve` from the outside, over plain HTTP/1.1 on the loopback:
//! files and table ranges byte for byte, refusals of paths that leave the
//! served directories, `/api/probe` against `moulin probe --json`, and what
//! a public server needs: caching (ETag, 304, Cache-Control), CORS, request
//! size limits, the bound on connections, timeouts and the request log.

use moulin_tests::moulin;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A running `moulin serve`, stopped when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Tables up to 4 stones a side, a page directory with stand-in files, and
/// a file and symbolic links outside both.
struct Site {
    _dir: tempfile::TempDir,
    tables: std::path::PathBuf,
    web: std::path::PathBuf,
}

fn site() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("tables");
        let web = dir.path().join("web");
        let out = moulin()
            .args(["solve", "--max-stones", "4", "--dir"])
            .arg(&tables)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", moulin_tests::text(&out));
        std::fs::create_dir_all(web.join("sub")).unwrap();
        std::fs::write(web.join("index.html"), "<!doctype html>page").unwrap();
        std::fs::write(web.join("moulin_wasm.wasm"), b"\0asm").unwrap();
        std::fs::write(web.join("sub/app.js"), "export {};").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
        std::fs::write(dir.path().join("secret.mtb"), "secret").unwrap();
        #[cfg(unix)]
        {
            // A page file and a table that are links out of their directories
            // (the tablebase follows the table's link; the server does not).
            use std::os::unix::fs::symlink;
            symlink(dir.path().join("secret.txt"), web.join("out.txt")).unwrap();
            let outside = dir.path().join("outside");
            std::fs::create_dir(&outside).unwrap();
            std::fs::rename(tables.join("4v4.mtb"), outside.join("4v4.mtb")).unwrap();
            symlink(outside.join("4v4.mtb"), tables.join("4v4.mtb")).unwrap();
        }
        Site {
            _dir: dir,
            tables,
            web,
        }
    })
}

fn serve(extra: &[&str]) -> Server {
    let site = site();
    serve_at(&site.tables, &site.web, extra)
}

fn serve_at(tables: &Path, web: &Path, extra: &[&str]) -> Server {
    // `--log` and `--quiet` exclude each other.
    let quiet = if extra.contains(&"--log") {
        None
    } else {
        Some("--quiet")
    };
    let mut child = moulin()
        .args(["serve", "--port", "0"])
        .args(quiet)
        .arg("--dir")
        .arg(tables)
        .arg("--web")
        .arg(web)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let address = moulin_tests::served_address(&mut child);
    assert!(address.starts_with("127.0.0.1:"), "{address}");
    Server { child, address }
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One request on a fresh connection (`Connection: close`), the raw path
/// sent as is.
fn request(server: &Server, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut stream = TcpStream::connect(&server.address).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse_reply(&raw)
}

/// A whole response as received (the body is everything after the head).
fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of the headers");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

fn get(server: &Server, path: &str) -> Reply {
    request(server, "GET", path, &[])
}

fn get_range(server: &Server, path: &str, range: &str) -> Reply {
    request(server, "GET", path, &[("Range", range)])
}

#[test]
fn serves_the_page_and_table_ranges() {
    let server = serve(&[]);
    let page = get(&server, "/");
    assert_eq!(page.status, 200);
    assert_eq!(page.text(), "<!doctype html>page");
    assert!(page
        .header("Content-Type")
        .unwrap()
        .starts_with("text/html"));
    let wasm = get(&server, "/moulin_wasm.wasm");
    assert_eq!(wasm.header("Content-Type"), Some("application/wasm"));
    assert_eq!(get(&server, "/sub/app.js").text(), "export {};");
    assert_eq!(get(&server, "/sub/%61pp.js").status, 200);

    let table = std::fs::read(site().tables.join("4v3.mtb")).unwrap();
    let len = table.len();
    let whole = get(&server, "/tables/4v3.mtb");
    assert_eq!(whole.status, 200);
    assert_eq!(whole.body, table);
    assert_eq!(whole.header("Accept-Ranges"), Some("bytes"));
    let head = get_range(&server, "/tables/4v3.mtb", "bytes=0-127");
    assert_eq!(head.status, 206);
    assert_eq!(head.body, &table[..128]);
    let span = format!("bytes 0-127/{len}");
    assert_eq!(head.header("Content-Range"), Some(span.as_str()));
    let middle = get_range(&server, "/tables/4v3.mtb", "bytes=1000-1999");
    assert_eq!(middle.body, &table[1000..2000]);
    let tail = get_range(&server, "/tables/4v3.mtb", "bytes=-8");
    assert_eq!(tail.body, &table[len - 8..]);
    let span = format!("bytes {}-{}/{len}", len - 8, len - 1);
    assert_eq!(tail.header("Content-Range"), Some(span.as_str()));
    let rest = get_range(&server, "/tables/4v3.mtb", &format!("bytes={}-", len - 3));
    assert_eq!(rest.body, &table[len - 3..]);
    for bad in [
        format!("bytes={len}-"),
        "bytes=9-5".into(),
        "bytes=x".into(),
    ] {
        let r = get_range(&server, "/tables/4v3.mtb", &bad);
        assert_eq!(r.status, 416, "{bad}");
        let span = format!("bytes */{len}");
        assert_eq!(r.header("Content-Range"), Some(span.as_str()), "{bad}");
    }
    let head_only = request(&server, "HEAD", "/tables/4v3.mtb", &[]);
    assert_eq!(head_only.status, 200);
    assert!(head_only.body.is_empty());
    let len_text = len.to_string();
    assert_eq!(head_only.header("Content-Length"), Some(len_text.as_str()));
    // A range longer than what is read at once is streamed, as exactly.
    let big = get_range(&server, "/tables/4v3.mtb", "bytes=100-70099");
    assert_eq!(big.status, 206);
    assert_eq!(big.body, &table[100..70100]);
    assert_eq!(big.header("Content-Length"), Some("70000"));
    assert_eq!(request(&server, "POST", "/", &[]).status, 405);
    assert_eq!(get(&server, "/tables/9v9.mtb").status, 404);
    // The WDL tables beside the tables, and nothing else of the directory:
    // the solve's run record stays private.
    let wdl = std::fs::read(site().tables.join("4v3.mtw")).unwrap();
    let part = get_range(&server, "/tables/4v3.mtw", "bytes=0-127");
    assert_eq!(part.status, 206);
    assert_eq!(part.body, &wdl[..128]);
    assert!(site().tables.join("solve-record.jsonl").exists());
    assert_eq!(get(&server, "/tables/solve-record.jsonl").status, 404);
}

#[test]
fn never_serves_outside_the_page_and_the_tables() {
    let server = serve(&[]);
    for path in [
        "/../secret.txt",
        "/sub/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E%2Fsecret.txt",
        "/sub/..%2f..%2fsecret.txt",
        "/..%5csecret.txt",
        "/out.txt",
        "/tables/../secret.mtb",
        "/tables/..%2fsecret.mtb",
        "/tables/%2e%2e%2fsecret.mtb",
        "/tables/4v4.mtb",
        "/tables/../../secret.txt",
        "/tables/",
        "/..",
        "/%00",
    ] {
        let reply = get(&server, path);
        assert!(
            [400, 403, 404].contains(&reply.status),
            "{path}: {}",
            reply.status
        );
        assert!(!reply.text().contains("secret"), "{path}");
    }
    #[cfg(unix)]
    {
        assert_eq!(get(&server, "/out.txt").status, 403);
        assert_eq!(get(&server, "/tables/4v4.mtb").status, 403);
    }
}

/// What `moulin probe --json` prints for positions read from standard input.
fn cli_json(positions: &[&str]) -> Vec<String> {
    let mut child = moulin()
        .args(["probe", "--json", "--dir"])
        .arg(&site().tables)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = positions.join("\n") + "\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn api_probe_answers_what_the_command_line_prints() {
    let server = serve(&[]);
    let positions = [
        "W:a1,d1,g1 B:b2,d2,f2 w",
        "W:a1,d1,g1 B:b2,d2,f2 b",
        "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w",
        "W:a7,d7,g1,g4 B:b2,d2,f2,c5 b",
        "W:c3,d3,e3 B:a1,d1,g1,g7 w",
        "W:a1,d1,g1 B:b2,d2,f2",
        "W:a1,z9 B:b2,d2,f2 w",
        "W:a1,d1,g1,a4,a7 B:b2,d2,f2,b4,b6 w",
        "W:a1,g1 B:d1,b2 w 7 7",
    ];
    let expected = cli_json(&positions);
    assert_eq!(expected.len(), positions.len());
    for (position, line) in positions.iter().zip(&expected) {
        let reply = get(
            &server,
            &format!("/api/probe?position={}", encode(position)),
        );
        assert_eq!(&reply.text(), line, "{position}");
        assert_eq!(reply.header("Content-Type"), Some("application/json"));
        let status = if line.contains("\"error\":\"invalid position") {
            400
        } else if line.contains("no table for sector") {
            404
        } else {
            200
        };
        assert_eq!(reply.status, status, "{position}: {line}");
    }
    // `+` for spaces, as HTML forms send them.
    let plus = get(&server, "/api/probe?position=W:a1,d1,g1+B:b2,d2,f2+w");
    assert_eq!(plus.text(), expected[0]);
    let missing = get(&server, "/api/probe");
    assert_eq!(missing.status, 400);
    assert!(missing
        .text()
        .contains("missing query parameter `position`"));
    let info = get(&server, "/api/info");
    let info: serde_json::Value = serde_json::from_slice(&info.body).unwrap();
    assert_eq!(info["rules"]["flying"], true);
    assert_eq!(info["sectors"].as_array().unwrap().len(), 4);
}

#[test]
fn static_only_serves_files_and_no_api() {
    let server = serve(&["--static-only"]);
    assert_eq!(
        get(&server, "/api/probe?position=W:a1,d1,g1+B:b2,d2,f2+w").status,
        404
    );
    assert_eq!(get(&server, "/api/info").status, 404);
    assert_eq!(get(&server, "/").status, 200);
    assert_eq!(
        get_range(&server, "/tables/3v3.mtb", "bytes=0-7").body,
        b"MOULINTB"
    );
}

#[test]
fn refuses_to_start_without_the_page_or_its_webassembly() {
    let dir = tempfile::tempdir().unwrap();
    let web = dir.path().join("web");
    std::fs::create_dir(&web).unwrap();
    std::fs::write(web.join("index.html"), "page").unwrap();
    let run = |web: &Path| {
        moulin()
            .args(["serve", "--port", "0", "--dir"])
            .arg(&site().tables)
            .arg("--web")
            .arg(web)
            .output()
            .unwrap()
    };
    let out = run(&web);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        moulin_tests::text(&out).contains("scripts/build-web.sh"),
        "{}",
        moulin_tests::text(&out)
    );
    let out = run(&dir.path().join("nowhere"));
    assert_eq!(out.status.code(), Some(1));
    assert!(moulin_tests::text(&out).contains("does not exist"));
}

#[test]
fn api_probe_answers_at_a_counter_on_rule_tables() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let out = moulin()
        .args([
            "solve",
            "--max-stones",
            "3",
            "--no-capture-limit",
            "6",
            "-q",
            "--dir",
        ])
        .arg(&tables)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", moulin_tests::text(&out));
    let server = serve_at(&tables, &site().web, &[]);
    let position = "W:a1,d1,b4 B:g1,g4,f6 w";
    for counter in ["0", "3", "5"] {
        let cli = moulin()
            .args(["probe", "--json", "--counter", counter, "--dir"])
            .arg(&tables)
            .arg(position)
            .output()
            .unwrap();
        let reply = get(
            &server,
            &format!("/api/probe?position={}&counter={counter}", encode(position)),
        );
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.text(),
            String::from_utf8_lossy(&cli.stdout),
            "counter {counter}"
        );
    }
    for bad in ["6", "-1", "x"] {
        let reply = get(
            &server,
            &format!("/api/probe?position={}&counter={bad}", encode(position)),
        );
        assert_eq!(reply.status, 400, "counter {bad}: {}", reply.text());
        assert!(reply.text().contains("counter"), "{}", reply.text());
    }
    let info = get(&server, "/api/info");
    let info: serde_json::Value = serde_json::from_slice(&info.body).unwrap();
    assert_eq!(info["rules"]["no_capture_limit"], 6);
    // Tables without the rule answer no counter.
    let plain = serve(&[]);
    let reply = get(
        &plain,
        &format!("/api/probe?position={}&counter=1", encode(position)),
    );
    assert_eq!(reply.status, 400);
    assert!(
        reply.text().contains("no no-capture rule"),
        "{}",
        reply.text()
    );
}

/// A kept-alive connection: requests one after the other, each response
/// read by its `Content-Length`.
struct KeptAlive {
    reader: BufReader<TcpStream>,
}

impl KeptAlive {
    fn open(server: &Server) -> KeptAlive {
        let stream = TcpStream::connect(&server.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        KeptAlive {
            reader: BufReader::new(stream),
        }
    }

    fn get(&mut self, path: &str) -> Reply {
        let head = format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n");
        self.reader.get_mut().write_all(head.as_bytes()).unwrap();
        let mut raw = Vec::new();
        loop {
            let mut line = Vec::new();
            self.reader.read_until(b'\n', &mut line).unwrap();
            assert!(!line.is_empty(), "connection closed before a response");
            raw.extend_from_slice(&line);
            if line == b"\r\n" {
                break;
            }
        }
        let mut reply = parse_reply(&raw);
        let len: usize = reply.header("Content-Length").unwrap().parse().unwrap();
        reply.body = vec![0; len];
        self.reader.read_exact(&mut reply.body).unwrap();
        reply
    }
}

/// Whether the server closes `stream` (end of file, or a reset) within
/// `limit`, and when; any bytes it sent before are returned too.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> (Option<Duration>, Vec<u8>) {
    let start = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) if start.elapsed() < limit => return (Some(start.elapsed()), got),
            Ok(0) | Err(_) => return (None, got),
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

#[test]
fn tables_and_page_carry_validators_and_cache_policies() {
    // A page directory of its own: one of its files is replaced below.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "first").unwrap();
    std::fs::write(dir.path().join("moulin_wasm.wasm"), b"\0asm").unwrap();
    let server = serve_at(&site().tables, dir.path(), &[]);

    let table = get(&server, "/tables/4v3.mtb");
    let tag = table
        .header("ETag")
        .expect("a table has an ETag")
        .to_string();
    // Strong (no W/), quoted (RFC 9110, section 8.8.3).
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
    assert_eq!(
        table.header("Cache-Control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(
        get(&server, "/tables/4v3.mtb").header("ETag"),
        Some(tag.as_str())
    );
    assert_ne!(
        get(&server, "/tables/3v3.mtb").header("ETag"),
        Some(tag.as_str())
    );
    // A range carries the tag of the whole table.
    let part = get_range(&server, "/tables/4v3.mtb", "bytes=0-9");
    assert_eq!(part.header("ETag"), Some(tag.as_str()));

    // The client's copy is current: 304, no body, the tag again.
    let weak = format!("W/{tag}");
    for current in [
        tag.as_str(),
        weak.as_str(),
        "\"other\", ".to_owned().as_str(),
        "*",
    ] {
        let header = if current.ends_with(", ") {
            format!("{current}{tag}")
        } else {
            current.to_string()
        };
        let r = request(
            &server,
            "GET",
            "/tables/4v3.mtb",
            &[("If-None-Match", &header)],
        );
        assert_eq!(r.status, 304, "{header}");
        assert!(r.body.is_empty());
        assert_eq!(r.header("ETag"), Some(tag.as_str()));
        assert!(r.header("Cache-Control").unwrap().contains("immutable"));
    }
    // An old copy: the table again.
    let stale = request(
        &server,
        "GET",
        "/tables/4v3.mtb",
        &[("If-None-Match", "\"0-0-0\"")],
    );
    assert_eq!(stale.status, 200);
    assert_eq!(stale.body, table.body);

    // If-Range: the range only while the tag is the current one.
    let if_range = |value: &str| {
        request(
            &server,
            "GET",
            "/tables/4v3.mtb",
            &[("Range", "bytes=0-7"), ("If-Range", value)],
        )
    };
    let r = if_range(&tag);
    assert_eq!((r.status, r.body.as_slice()), (206, &b"MOULINTB"[..]));
    for other in ["\"0-0-0\"", weak.as_str(), "Fri, 04 Dec 2026 04:00:00 GMT"] {
        let r = if_range(other);
        assert_eq!(r.status, 200, "{other}");
        assert_eq!(r.body, table.body, "{other}");
    }

    // The page: revalidated each time, 304 while unchanged, and a new tag
    // (and the new bytes) once the file is written anew.
    let page = get(&server, "/");
    assert_eq!(page.header("Cache-Control"), Some("no-cache"));
    let page_tag = page.header("ETag").unwrap().to_string();
    let again = request(&server, "GET", "/", &[("If-None-Match", &page_tag)]);
    assert_eq!(again.status, 304);
    std::fs::remove_file(dir.path().join("index.html")).unwrap();
    std::fs::write(dir.path().join("index.html"), "second!").unwrap();
    let changed = request(&server, "GET", "/", &[("If-None-Match", &page_tag)]);
    assert_eq!(changed.status, 200);
    assert_eq!(changed.text(), "second!");
    assert_ne!(changed.header("ETag"), Some(page_tag.as_str()));

    // The API: cached briefly (an hour at most); errors of files never.
    let api = get(&server, "/api/probe?position=W:a1,d1,g1+B:b2,d2,f2+w");
    let cache = api.header("Cache-Control").unwrap();
    let age: u64 = cache
        .split(',')
        .find_map(|d| d.trim().strip_prefix("max-age="))
        .unwrap_or_else(|| panic!("{cache}"))
        .parse()
        .unwrap();
    assert!((1..=3600).contains(&age), "{cache}");
    assert_eq!(
        get(&server, "/tables/9v9.mtb").header("Cache-Control"),
        Some("no-store")
    );
}

#[test]
fn other_sites_may_read_the_api_and_the_tables() {
    let server = serve(&[]);
    let origin = ("Origin", "https://elsewhere.example");
    for path in ["/api/info", "/api/probe?position=x", "/tables/4v3.mtb"] {
        let r = request(&server, "GET", path, &[origin, ("Range", "bytes=0-3")]);
        assert_eq!(r.header("Access-Control-Allow-Origin"), Some("*"), "{path}");
    }
    let part = request(
        &server,
        "GET",
        "/tables/4v3.mtb",
        &[origin, ("Range", "bytes=0-3")],
    );
    assert_eq!(part.status, 206);
    let exposed = part
        .header("Access-Control-Expose-Headers")
        .unwrap()
        .to_ascii_lowercase();
    for name in ["content-range", "etag", "content-length"] {
        assert!(exposed.split(',').any(|h| h.trim() == name), "{exposed}");
    }
    // The preflight a browser sends before a Range request of another site.
    let preflight = request(
        &server,
        "OPTIONS",
        "/tables/4v3.mtb",
        &[
            origin,
            ("Access-Control-Request-Method", "GET"),
            ("Access-Control-Request-Headers", "range"),
        ],
    );
    assert!(
        [200, 204].contains(&preflight.status),
        "{}",
        preflight.status
    );
    assert!(preflight.body.is_empty());
    assert_eq!(preflight.header("Access-Control-Allow-Origin"), Some("*"));
    let methods = preflight.header("Access-Control-Allow-Methods").unwrap();
    assert!(methods.split(',').any(|m| m.trim() == "GET"), "{methods}");
    let headers = preflight
        .header("Access-Control-Allow-Headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(headers.split(',').any(|h| h.trim() == "range"), "{headers}");
}

#[test]
fn refuses_oversized_requests_and_bodies() {
    let server = serve(&[]);
    // A target over 8 KiB, a head over 16 KiB.
    let long = format!("/api/probe?position={}", "a".repeat(9 * 1024));
    assert_eq!(get(&server, &long).status, 414);
    let huge = "x".repeat(20 * 1024);
    let r = request(&server, "GET", "/", &[("X-Padding", &huge)]);
    assert_eq!(r.status, 431);
    let many: Vec<(String, String)> = (0..40)
        .map(|i| (format!("X-Pad-{i}"), "y".repeat(500)))
        .collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(request(&server, "GET", "/", &many).status, 431);
    // Heads under the limits pass.
    let fine = format!("/api/probe?position={}", "a".repeat(7 * 1024));
    assert_eq!(get(&server, &fine).status, 400);
    let r = request(&server, "GET", "/", &[("X-Padding", &"x".repeat(8 * 1024))]);
    assert_eq!(r.status, 200);
    // Bodies: none is taken, whatever the method.
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream
        .write_all(b"POST /api/probe HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    assert_eq!(parse_reply(&raw).status, 413);
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    assert_eq!(parse_reply(&raw).status, 413);
    // And the server goes on.
    assert_eq!(get(&server, "/").status, 200);
}

#[test]
fn connections_beyond_the_bound_get_503() {
    let server = serve(&["--max-connections", "3"]);
    // Three connections, each served (and kept open).
    let mut open: Vec<KeptAlive> = (0..3).map(|_| KeptAlive::open(&server)).collect();
    for c in &mut open {
        assert_eq!(c.get("/api/info").status, 200);
    }
    // A fourth is turned away, clearly.
    for _ in 0..3 {
        let busy = get(&server, "/");
        assert_eq!(busy.status, 503);
        assert!(busy.header("Retry-After").is_some());
        assert!(busy.text().contains("connections"), "{}", busy.text());
    }
    // The three go on being served meanwhile.
    for c in &mut open {
        assert_eq!(c.get("/tables/4v3.mtb").status, 200);
        assert_eq!(c.get("/").text(), "<!doctype html>page");
    }
    // One closes: a new connection is served again (once the server has
    // seen the close).
    drop(open.pop());
    let start = Instant::now();
    loop {
        let r = get(&server, "/");
        if r.status == 200 {
            break;
        }
        assert_eq!(r.status, 503);
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "never served again"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn idle_and_slow_clients_are_dropped_after_the_timeout() {
    let server = serve(&["--timeout", "0.6"]);
    let limit = Duration::from_secs(5);
    // Sends nothing.
    let mut silent = TcpStream::connect(&server.address).unwrap();
    // Sends its head a byte every 100 ms: never whole within 0.6 s.
    let mut slow = TcpStream::connect(&server.address).unwrap();
    let mut slow_writer = slow.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        for b in b"GET / HTTP/1.1\r\nHost: test\r\nX-Slow: ".iter().cycle() {
            if slow_writer.write_all(&[*b]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    // Served once, then idle on its kept-alive connection.
    let mut kept = KeptAlive::open(&server);
    assert_eq!(kept.get("/").status, 200);
    let start = Instant::now();
    // Others are served meanwhile.
    for _ in 0..5 {
        assert_eq!(get(&server, "/api/info").status, 200);
    }
    let (silent_closed, bytes) = closed_within(&mut silent, limit);
    let silent_closed = silent_closed.expect("the silent client is never dropped");
    assert!(!String::from_utf8_lossy(&bytes).contains(" 200 "));
    let (slow_closed, bytes) = closed_within(&mut slow, limit);
    slow_closed.expect("the trickling client is never dropped");
    assert!(!String::from_utf8_lossy(&bytes).contains(" 200 "));
    let (kept_closed, _) = closed_within(kept.reader.get_mut(), limit);
    kept_closed.expect("the idle kept-alive connection is never dropped");
    // Not before the timeout (the connections were made before `start`).
    assert!(
        start.elapsed() >= Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
    assert!(silent_closed + Duration::from_millis(100) < limit);
    trickle.join().unwrap();
    assert_eq!(get(&server, "/").status, 200);
}

#[test]
fn log_has_a_line_per_request() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.log");
    let log_arg = log.to_str().unwrap();
    let server = serve(&["--log", log_arg]);
    let mut stream = TcpStream::connect(&server.address).unwrap();
    let client = stream.local_addr().unwrap().to_string();
    stream
        .write_all(
            b"GET /tables/4v3.mtb HTTP/1.1\r\nHost: t\r\nRange: bytes=0-127\r\nConnection: close\r\n\r\n",
        )
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    assert_eq!(parse_reply(&raw).status, 206);
    assert_eq!(get(&server, "/nowhere?x=1").status, 404);
    let head = request(&server, "HEAD", "/tables/4v3.mtb", &[]);
    assert_eq!(head.status, 200);
    // Lines are written once a response is done: wait for the three.
    let start = Instant::now();
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.lines().count() >= 3 || start.elapsed() > Duration::from_secs(5) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 3, "{text}");
    for fields in &lines {
        assert_eq!(fields.len(), 7, "{fields:?}");
        // 2026-12-04T05:06:07.089Z
        let time = fields[0];
        assert_eq!(time.len(), 24, "{time}");
        assert_eq!((&time[4..5], &time[10..11], &time[23..]), ("-", "T", "Z"));
        assert!(fields[1].starts_with("127.0.0.1:"), "{fields:?}");
        let ms: f64 = fields[6].strip_suffix("ms").unwrap().parse().unwrap();
        assert!((0.0..5000.0).contains(&ms), "{fields:?}");
    }
    assert_eq!(lines[0][1], client);
    assert_eq!(&lines[0][2..6], ["GET", "/tables/4v3.mtb", "206", "128"]);
    assert_eq!(&lines[1][2..5], ["GET", "/nowhere?x=1", "404"]);
    // HEAD: the status of the table, no bytes of it.
    assert_eq!(&lines[2][2..6], ["HEAD", "/tables/4v3.mtb", "200", "0"]);
    // Today, in UTC.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let year = 1970 + now / 31_556_952;
    assert!(
        lines[0][0].starts_with(&year.to_string()),
        "{}",
        lines[0][0]
    );
    // `--log` and `--quiet` contradict each other.
    let both = moulin()
        .args(["serve", "--port", "0", "--quiet", "--log", log_arg])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn a_client_that_stops_reading_is_dropped() {
    // A page file larger than what the socket buffers of both ends hold
    // (sparse: no disk written).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "page").unwrap();
    std::fs::write(dir.path().join("moulin_wasm.wasm"), b"\0asm").unwrap();
    let len = 96u64 << 20;
    std::fs::File::create(dir.path().join("big.bin"))
        .unwrap()
        .set_len(len)
        .unwrap();
    let server = serve_at(&site().tables, dir.path(), &["--timeout", "0.5"]);
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream
        .write_all(b"GET /big.bin HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    // Reads nothing for four timeouts, then all it can.
    std::thread::sleep(Duration::from_secs(2));
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut got = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
        got += n as u64;
    }
    assert!(
        got < len / 2,
        "{got} bytes of {len}: the client was not dropped"
    );
    // A client that reads gets the whole file.
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream
        .write_all(b"HEAD /big.bin HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let len_text = len.to_string();
    assert_eq!(
        parse_reply(&raw).header("Content-Length"),
        Some(len_text.as_str())
    );
}
