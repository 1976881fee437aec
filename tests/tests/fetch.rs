//! `moulin fetch` against `moulin serve --static-only` and against a test
//! HTTP server (throttled, ignoring ranges, flipping a byte, missing files,
//! stalled): the fetched files equal the served ones byte
//! for byte, a stopped fetch continues where it was, and a file whose
//! SHA-256 (computed here with the `sha2` crate) is not the listed one is
//! refused.

use moulin_tests::http_fixture::{Faults, HttpFixture, Which};
use moulin_tests::{moulin, text};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// The tables served by every test: up to 4 stones a side, `.mtb` and `.mtw`.
fn source() -> &'static Path {
    moulin_tests::solved(4)
}

/// The files of `dir` with this extension, sorted, and their bytes.
fn files(dir: &Path, ext: &str) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes the `sha256sum` list of the source's files with this extension.
fn list(dir: &Path, ext: &str) -> PathBuf {
    let path = dir.join(format!("{ext}.sha256"));
    let text: String = files(source(), ext)
        .iter()
        .map(|(name, bytes)| format!("{}  {name}\n", sha256_hex(bytes)))
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// A test server of the source's files, with these faults.
fn mirror_with(faults: Faults) -> HttpFixture {
    HttpFixture::start(source(), faults)
}

fn fetch_command(url: &str, dir: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = moulin();
    cmd.args(["fetch", url, "--dir"]).arg(dir).args(args);
    cmd
}

fn fetch(url: &str, dir: &Path, list: &Path, args: &[&str]) -> Output {
    fetch_command(url, dir, args)
        .arg("--checksums")
        .arg(list)
        .output()
        .unwrap()
}

/// The fetched directory holds exactly the source's files of `ext`, byte
/// for byte, and nothing partial.
fn assert_same(dir: &Path, ext: &str) {
    let got = files(dir, ext);
    let want = files(source(), ext);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &want {
        assert!(got[name] == *bytes, "{name} differs from the served file");
    }
    assert!(files(dir, "part").is_empty(), "partial files left");
}

/// A `moulin serve --static-only` of the source, stopped when dropped.
fn serve() -> moulin_tests::ServedTables {
    moulin_tests::serve_tables(source())
}

#[test]
fn fetches_from_moulin_serve_byte_for_byte_and_skips_intact_files_after() {
    let served = serve();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    let mtb = list(work.path(), "mtb");
    let out = fetch(&served.url, &dir, &mtb, &["--jobs", "3"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_same(&dir, "mtb");
    assert!(files(&dir, "mtw").is_empty());
    let before: Vec<_> = files(&dir, "mtb")
        .keys()
        .map(|n| std::fs::metadata(dir.join(n)).unwrap().modified().unwrap())
        .collect();

    // Again: nothing to fetch, every file named as skipped, none rewritten.
    let out = fetch(&served.url, &dir, &mtb, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("skipped all 4 files: already there and intact"),
        "{said}"
    );
    let after: Vec<_> = files(&dir, "mtb")
        .keys()
        .map(|n| std::fs::metadata(dir.join(n)).unwrap().modified().unwrap())
        .collect();
    assert_eq!(before, after);

    // A file the server does not have: named with the URL and the status;
    // the others stay.
    let with_missing = work.path().join("more.sha256");
    let mut listed = std::fs::read_to_string(&mtb).unwrap();
    listed.push_str(&format!("{}  5v5.mtb\n", "ab".repeat(32)));
    std::fs::write(&with_missing, listed).unwrap();
    let out = fetch(&served.url, &dir, &with_missing, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}/5v5.mtb: HTTP 404", served.url)),
        "{err}"
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("skipped 4 files already there and intact: "),
        "{said}"
    );
    assert_same(&dir, "mtb");
}

#[test]
fn the_built_in_published_list_accepts_the_solved_tables() {
    // The published SHA-256 of these sectors (data/checksums/game-9.sha256,
    // checked by `moulin verify` before publication) are those of the tables
    // the solver writes, so a fetch of them by the built-in list succeeds.
    let served = serve();
    let work = tempfile::tempdir().unwrap();
    let out = fetch_command(&served.url, work.path(), &["--set", "plain"])
        .args(["--sector", "3v3", "--sector", "4v4", "--sector", "3v4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let got = files(work.path(), "mtb");
    assert_eq!(got.len(), 3);
    for (name, bytes) in &got {
        assert!(
            *bytes == std::fs::read(source().join(name)).unwrap(),
            "{name}"
        );
    }
}

/// Waits until `ready` holds of the directory (checked every few
/// milliseconds), then kills the fetch: the lengths of its partial files.
fn kill_when(
    child: &mut Child,
    dir: &Path,
    ready: impl Fn(&BTreeMap<String, Vec<u8>>, u64) -> bool,
) -> BTreeMap<String, usize> {
    let start = Instant::now();
    loop {
        assert!(start.elapsed() < Duration::from_secs(60), "never ready");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        if std::fs::metadata(dir).is_ok() {
            let parts = files(dir, "part");
            let total: u64 = std::fs::read_dir(dir)
                .unwrap()
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum();
            if ready(&parts, total) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    files(dir, "part")
        .into_iter()
        .map(|(n, b)| (n, b.len()))
        .collect()
}

#[test]
fn a_fetch_killed_twice_continues_to_the_same_bytes() {
    // 2 KiB every 10 ms: about 1.5 s for the tables and WDL tables.
    let slow = mirror_with(Faults {
        throttle: Some((2048, Duration::from_millis(10))),
        ..Faults::default()
    });
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    let all = work.path().join("all.sha256");
    let text_of = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    std::fs::write(
        &all,
        text_of(list(work.path(), "mtb")) + &text_of(list(work.path(), "mtw")),
    )
    .unwrap();
    let sizes: BTreeMap<String, usize> = files(source(), "mtb")
        .into_iter()
        .chain(files(source(), "mtw"))
        .map(|(n, b)| (n, b.len()))
        .collect();
    // A part well short of its file's end: the kill leaves it partial.
    let partial = |parts: &BTreeMap<String, Vec<u8>>| {
        parts.iter().any(|(n, b)| {
            let full = sizes[n.strip_suffix(".part").unwrap()];
            !b.is_empty() && b.len() + 8192 < full
        })
    };
    let run = || {
        fetch_command(&slow.url, &dir, &["--jobs", "2", "--checksums"])
            .arg(&all)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let first = kill_when(&mut run(), &dir, |parts, _| partial(parts));
    let after_first: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    let second = kill_when(&mut run(), &dir, |parts, total| {
        partial(parts) && total > after_first + 20_000
    });
    let left: Vec<_> = first
        .iter()
        .chain(&second)
        .filter(|(_, &l)| l > 0)
        .collect();
    assert!(!left.is_empty());

    // Finished at full speed: the same bytes, and each part left by a kill
    // was continued by a range request from its length.
    let fast = mirror_with(Faults::default());
    let out = fetch(&fast.url, &dir, &all, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_same(&dir, "mtb");
    assert_same(&dir, "mtw");
    for (part, len) in &second {
        let name = part.strip_suffix(".part").unwrap();
        let ranges = fast.ranges(name);
        if *len > 0 {
            assert_eq!(ranges, [Some(format!("bytes={len}-"))], "{name}");
        }
    }
    for (part, len) in first.iter().filter(|(_, &l)| l > 0) {
        let name = part.strip_suffix(".part").unwrap();
        assert!(
            slow.ranges(name).contains(&Some(format!("bytes={len}-"))),
            "{name}: the second run did not continue from byte {len}"
        );
    }
}

#[test]
fn wrong_partial_and_damaged_files_are_fetched_again() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    std::fs::create_dir(&dir).unwrap();
    let mtb = list(work.path(), "mtb");
    let src = files(source(), "mtb");
    // 3v3: a part of wrong bytes; 3v4: the whole file as a part (a fetch
    // stopped before the rename); 4v4: in place, one bit flipped.
    std::fs::write(dir.join("3v3.mtb.part"), vec![0xee; 1000]).unwrap();
    std::fs::write(dir.join("3v4.mtb.part"), &src["3v4.mtb"]).unwrap();
    let mut damaged = src["4v4.mtb"].clone();
    damaged[100] ^= 0x10;
    std::fs::write(dir.join("4v4.mtb"), damaged).unwrap();

    let mirror = mirror_with(Faults::default());
    let out = fetch(&mirror.url, &dir, &mtb, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_same(&dir, "mtb");
    let all = text(&out);
    assert!(all.contains("fetched again 1 file, "), "{all}");
    assert!(all.contains("4v4.mtb"), "{all}");
    // 3v3 was continued from byte 1000, did not match, and came again whole.
    assert_eq!(
        mirror.ranges("3v3.mtb"),
        [Some("bytes=1000-".to_string()), None]
    );
    // 3v4 was asked from its end (416) and moved into place.
    let len = src["3v4.mtb"].len();
    assert_eq!(mirror.ranges("3v4.mtb"), [Some(format!("bytes={len}-"))]);
    assert_eq!(mirror.ranges("4v4.mtb"), [None]);
}

#[test]
fn a_server_ignoring_ranges_restarts_the_file() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    std::fs::create_dir(&dir).unwrap();
    let src = files(source(), "mtb");
    // The right first 5000 bytes, then appended to as if it were the rest.
    std::fs::write(dir.join("4v3.mtb.part"), &src["4v3.mtb"][..5000]).unwrap();
    let mirror = mirror_with(Faults {
        ignore_range: true,
        ..Faults::default()
    });
    let out = fetch(&mirror.url, &dir, &list(work.path(), "mtb"), &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_same(&dir, "mtb");
    assert_eq!(mirror.ranges("4v3.mtb"), [Some("bytes=5000-".to_string())]);
    assert!(text(&out).contains("whole file"), "{}", text(&out));
}

#[test]
fn a_file_with_a_flipped_byte_is_refused_and_the_others_kept() {
    // One bit flipped in the middle of 3v4.
    let middle = std::fs::metadata(source().join("3v4.mtb")).unwrap().len() / 2;
    let mirror = mirror_with(Faults {
        flip: Some(("3v4.mtb".into(), middle)),
        ..Faults::default()
    });
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    let out = fetch(&mirror.url, &dir, &list(work.path(), "mtb"), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1 of 4 files failed"), "{err}");
    assert!(err.contains(&format!("{}/3v4.mtb", mirror.url)), "{err}");
    assert!(err.contains("refused and removed"), "{err}");
    let got = files(&dir, "mtb");
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        ["3v3.mtb", "4v3.mtb", "4v4.mtb"]
    );
    for (name, bytes) in got {
        assert!(
            bytes == std::fs::read(source().join(&name)).unwrap(),
            "{name}"
        );
    }
    assert!(files(&dir, "part").is_empty());
}

#[test]
fn missing_and_failing_files_are_named_with_their_status() {
    let mirror = mirror_with(Faults {
        missing: Which::file("4v3.mtb"),
        fail: Which::file("3v3.mtb"),
        ..Faults::default()
    });
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    // A 3v3 that does not match the list: kept, as it cannot be replaced.
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("3v3.mtb"), b"not the table").unwrap();
    let out = fetch(&mirror.url, &dir, &list(work.path(), "mtb"), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let url = &mirror.url;
    assert!(err.contains(&format!("{url}/4v3.mtb: HTTP 404")), "{err}");
    assert!(err.contains(&format!("{url}/3v3.mtb: HTTP 500")), "{err}");
    assert!(err.contains("2 of 4 files failed"), "{err}");
    assert!(err.contains("not matching the list, is kept"), "{err}");
    let got = files(&dir, "mtb");
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        ["3v3.mtb", "3v4.mtb", "4v4.mtb"]
    );
    assert_eq!(got["3v3.mtb"], b"not the table");
}

#[test]
fn a_stalled_server_is_given_up_after_the_timeout_and_the_part_kept() {
    let mirror = mirror_with(Faults {
        stall: Which::file("3v3.mtb"),
        stall_body: Which::file("4v4.mtb"),
        ..Faults::default()
    });
    let work = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let sectors = ["--sector", "3v3", "--sector", "4v4", "--set", "plain"];
    let out = fetch_command(&mirror.url, work.path(), &["--timeout", "1"])
        .args(sectors)
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    for name in ["3v3.mtb", "4v4.mtb"] {
        assert!(err.contains(&format!("{}/{name}", mirror.url)), "{err}");
    }
    assert!(err.to_lowercase().contains("timeout"), "{err}");
    // Three tries of 4v4, each continuing the part where the last stalled.
    let ranges = mirror.ranges("4v4.mtb");
    assert_eq!(ranges.len(), 3, "{ranges:?}");
    assert_eq!(ranges[0], None);
    let part = std::fs::read(work.path().join("4v4.mtb.part")).unwrap();
    let full = std::fs::read(source().join("4v4.mtb")).unwrap();
    assert_eq!(
        ranges[2],
        Some(format!(
            "bytes={}-",
            full.len() / 2 + (full.len() - full.len() / 2) / 2
        ))
    );
    assert!(part.len() > full.len() / 2 && full.starts_with(&part));
    // Every request said who asked.
    let ours = format!("moulin/{}", env!("CARGO_PKG_VERSION"));
    for r in mirror.requests() {
        assert_eq!(r.client.as_deref(), Some(ours.as_str()), "{}", r.path);
    }

    let fine = mirror_with(Faults::default());
    let out = fetch_command(&fine.url, work.path(), &sectors)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        fine.ranges("4v4.mtb"),
        [Some(format!("bytes={}-", part.len()))]
    );
    for name in ["3v3.mtb", "4v4.mtb"] {
        let got = std::fs::read(work.path().join(name)).unwrap();
        assert!(got == std::fs::read(source().join(name)).unwrap(), "{name}");
    }
}

#[test]
fn wdl_tables_need_a_list_given() {
    let mirror = mirror_with(Faults::default());
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    let out = fetch_command(&mirror.url, &dir, &["--set", "wdl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("no published list of WDL tables"),
        "{}",
        text(&out)
    );
    let out = fetch_command(&mirror.url, &dir, &["--set", "wdl", "--checksums"])
        .arg(list(work.path(), "mtw"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_same(&dir, "mtw");
    assert!(files(&dir, "mtb").is_empty());
}

#[test]
fn bad_arguments_are_refused_with_exit_code_2() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    let mtb = list(work.path(), "mtb");
    let bad_list = work.path().join("bad.sha256");
    std::fs::write(&bad_list, format!("{}  ../3v3.mtb\n", "ab".repeat(32))).unwrap();
    let url = "http://127.0.0.1:9/tables";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--sector", "10v3"], "`10v3` is not a sector"),
        (vec!["--sector", "5v5"], "no table of sector 5v5"),
        (vec!["--set", "plain"], "give one of them"),
    ];
    for (args, says) in cases {
        let out = fetch(url, &dir, &mtb, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
    let out = fetch(url, &dir, &bad_list, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("line 1: `../3v3.mtb`"),
        "{}",
        text(&out)
    );
    let out = fetch_command("ftp://127.0.0.1/tables", &dir, &[])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("not an http"), "{}", text(&out));
    assert!(!dir.exists(), "a refused fetch created its directory");
}

#[test]
fn a_directory_being_written_is_not_fetched_into() {
    let work = tempfile::tempdir().unwrap();
    let _held = moulin::lock::DirectoryLock::acquire(work.path(), "moulin solve").unwrap();
    let mirror = mirror_with(Faults::default());
    let out = fetch(&mirror.url, work.path(), &list(work.path(), "mtb"), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("moulin solve"), "{}", text(&out));
    assert!(mirror.requests().is_empty());
    assert!(files(work.path(), "mtb").is_empty());
}
