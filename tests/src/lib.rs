//! End-to-end tests live in `tests/`; this library holds shared helpers.

pub mod brute;
pub mod brute_counter;
pub mod http_fixture;

use moulin_core::seeded::SplitMix64;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// `target/<profile>`, the directory of the test binary's `deps/`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("path of the test binary");
    exe.parent()
        .and_then(|deps| deps.parent())
        .expect("the test binary lies in target/<profile>/deps")
        .to_path_buf()
}

/// A command running the `moulin` program: `moulin-e2e`, the solver's
/// `main.rs` built by cargo beside this package's tests (same invocation,
/// profile and features), so it is never stale and never built twice.
pub fn moulin() -> Command {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    let binary = BINARY.get_or_init(|| {
        let binary = profile_dir().join(format!("moulin-e2e{}", std::env::consts::EXE_SUFFIX));
        assert!(
            binary.is_file(),
            "{} is missing: cargo builds it with the tests of moulin-tests",
            binary.display()
        );
        binary
    });
    Command::new(binary)
}

/// The address (`127.0.0.1:<port>`) that `moulin serve --port 0`, started
/// as `child` with its standard output piped, prints on its first line.
pub fn served_address(child: &mut std::process::Child) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().expect("standard output piped"))
        .read_line(&mut line)
        .expect("moulin serve prints its address");
    line.trim()
        .strip_prefix("moulin serve: http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("first line: {line:?}"))
        .to_string()
}

/// A running `moulin serve --static-only` of a table directory (beside
/// stand-in page files), stopped when dropped.
pub struct ServedTables {
    child: std::process::Child,
    /// The tables' base URL, `http://127.0.0.1:<port>/tables`.
    pub url: String,
    _web: tempfile::TempDir,
}

impl Drop for ServedTables {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `moulin serve --static-only` on a free port for the tables of `dir`.
pub fn serve_tables(dir: &std::path::Path) -> ServedTables {
    let web = tempfile::tempdir().expect("temporary directory");
    std::fs::write(web.path().join("index.html"), "<!doctype html>").unwrap();
    std::fs::write(web.path().join("moulin_wasm.wasm"), b"\0asm").unwrap();
    let mut child = moulin()
        .args(["serve", "--port", "0", "--quiet", "--static-only", "--dir"])
        .arg(dir)
        .arg("--web")
        .arg(web.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("moulin serve starts");
    let url = format!("http://{}/tables", served_address(&mut child));
    ServedTables {
        child,
        url,
        _web: web,
    }
}

/// A fresh temporary copy of the files of `from` (a table directory).
pub fn copy_of(from: &std::path::Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    for item in std::fs::read_dir(from).unwrap() {
        let path = item.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// The play set of the tables in `tables`, packed by the `moulin` program
/// with its defaults into a fresh temporary directory.
pub fn play_set_of(tables: &std::path::Path) -> tempfile::TempDir {
    let play = tempfile::tempdir().expect("temporary directory");
    let out = moulin()
        .args(["pack", "-q", "--dir"])
        .arg(tables)
        .arg("--out")
        .arg(play.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    play
}

/// Removes the lines of the file at `path` that start with `prefix`, and
/// gives how many are left.
pub fn remove_lines(path: &std::path::Path, prefix: &str) -> usize {
    let text = std::fs::read_to_string(path).expect("a text file");
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with(prefix))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(path, &kept).expect("the file rewritten");
    kept.lines().count()
}

/// What a finished command printed: standard output, then standard error.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The moving-phase tables up to `max_stones` a side (3..=9), solved by the
/// `moulin` program into a temporary directory once per test process.
pub fn solved(max_stones: u8) -> &'static std::path::Path {
    static DIRS: [OnceLock<tempfile::TempDir>; 10] = [const { OnceLock::new() }; 10];
    DIRS[max_stones as usize]
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("temporary directory");
            let out = moulin()
                .args([
                    "solve",
                    "--max-stones",
                    &max_stones.to_string(),
                    "-q",
                    "--dir",
                ])
                .arg(dir.path())
                .output()
                .expect("moulin runs");
            assert!(out.status.success(), "{}", text(&out));
            dir
        })
        .path()
}

/// `count` distinct points drawn from `rng`, none of them in `taken` (sets
/// of points as the board's bits: bit `i` for point `i`).
pub fn random_points(rng: &mut SplitMix64, count: u32, taken: u32) -> u32 {
    let mut set = 0u32;
    while set.count_ones() < count {
        let p = 1 << rng.below(24);
        if (set | taken) & p == 0 {
            set |= p;
        }
    }
    set
}
