//! End-to-end tests live in `tests/`; this library holds shared helpers.

pub mod brute;
pub mod brute_counter;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A command running the `moulin` binary of the profile these tests were
/// built with. Cargo builds a package's binary only for that package's own
/// tests, so the first call builds it (same profile and target directory),
/// which also keeps it from being stale.
pub fn moulin() -> Command {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    let binary = BINARY.get_or_init(|| {
        let exe = std::env::current_exe().expect("path of the test binary");
        // target/<profile>/deps/<test>-<hash>
        let profile_dir = exe
            .parent()
            .and_then(|deps| deps.parent())
            .expect("the test binary lies in target/<profile>/deps");
        let target_dir = profile_dir.parent().expect("target directory");
        let profile = profile_dir.file_name().unwrap().to_str().unwrap();
        let mut build = Command::new(option_env!("CARGO").unwrap_or("cargo"));
        build
            .args(["build", "--quiet", "-p", "moulin", "--bin", "moulin"])
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        match profile {
            "debug" => {}
            "release" => {
                build.arg("--release");
            }
            other => {
                build.args(["--profile", other]);
            }
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "building the moulin binary failed");
        profile_dir.join(format!("moulin{}", std::env::consts::EXE_SUFFIX))
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
