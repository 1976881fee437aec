//! `moulin serve` from the outside, over plain HTTP/1.1 on the loopback:
//! files and table ranges byte for byte, refusals of paths that leave the
//! served directories, and `/api/probe` against `moulin probe --json`.

use moulin_tests::moulin;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::OnceLock;

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
    let mut child = moulin()
        .args(["serve", "--port", "0", "--quiet", "--dir"])
        .arg(tables)
        .arg("--web")
        .arg(web)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .strip_prefix("moulin serve: http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("first line: {line:?}"))
        .to_string();
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
    assert_eq!(request(&server, "POST", "/", &[]).status, 405);
    assert_eq!(get(&server, "/tables/9v9.mtb").status, 404);
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
