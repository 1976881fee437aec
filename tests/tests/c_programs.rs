//! C programs compiled with the system C compiler against the committed
//! header and the built library, run over tables solved up to five stones a
//! side, and compared with `moulin probe --json`: random positions, the
//! example `examples/probe.c`, the README's C example, hostile calls and
//! damaged tables; the WDL tables (`moulin_open_wdl`, `moulin_probe_wdl`)
//! against the CLI's outcomes from the distance tables.

use moulin_core::seeded::SplitMix64;
use moulin_probe::{Position, Side};
use moulin_tests::{copy_of, moulin, random_points, text};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The C binding's crate, `bindings/c`: its header, examples and C tests.
fn crate_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../bindings/c"))
}

/// The directory holding `libmoulin_c.a` and `libmoulin_c.so`: cargo builds
/// them as this package's dependency on moulin-c, in the same invocation as
/// this test, into `target/<profile>/deps`.
fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = moulin_tests::profile_dir().join("deps");
        for name in ["libmoulin_c.a", "libmoulin_c.so"] {
            assert!(
                dir.join(name).is_file(),
                "{} is missing: cargo builds it with the tests of moulin-tests",
                dir.join(name).display()
            );
        }
        dir
    })
}

/// Compiles C sources with `cc` into `out`: linked with the static library,
/// or with the shared one (found at run time through an rpath).
fn compile(sources: &[&Path], out: &Path, shared: bool) {
    let lib = library_dir();
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args([
        "-std=c11",
        "-D_POSIX_C_SOURCE=200809L",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Werror",
    ])
    .arg("-I")
    .arg(crate_dir().join("include"))
    .args(sources)
    .arg("-o")
    .arg(out);
    if shared {
        cc.arg("-L").arg(lib).arg("-lmoulin_c");
        cc.arg(format!("-Wl,-rpath,{}", lib.display()));
    } else {
        cc.arg(lib.join("libmoulin_c.a"));
    }
    cc.args(["-lpthread", "-ldl", "-lm"]);
    let result = cc.output().expect("the C compiler `cc` runs");
    assert!(result.status.success(), "cc failed: {}", text(&result));
}

/// The C test program, linked with the shared library.
fn conformance() -> &'static Path {
    static BIN: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, bin) = BIN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("conformance");
        compile(&[&crate_dir().join("tests/c/conformance.c")], &bin, true);
        (dir, bin)
    });
    bin
}

/// The moving-phase tables up to five stones a side, solved once per run.
fn solved() -> &'static Path {
    moulin_tests::solved(5)
}

/// Runs a program with `input` on standard input; a crash fails the test.
fn run_with_input(command: &mut Command, input: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("program starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.code().is_some(),
        "killed by a signal: {}",
        text(&out)
    );
    out
}

/// Random moving-phase positions with `white` and `black` stones (either
/// side to move), as text.
fn random_positions(seed: u64, n: usize, stones: impl Fn(&mut SplitMix64) -> (u32, u32)) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut text = String::new();
    for _ in 0..n {
        let (w, b) = stones(&mut rng);
        let white = random_points(&mut rng, w, 0);
        let black = random_points(&mut rng, b, white);
        let side = if rng.below(2) == 0 {
            Side::White
        } else {
            Side::Black
        };
        let pos = Position {
            white,
            black,
            white_hand: 0,
            black_hand: 0,
            side,
        };
        text.push_str(&format!("{pos}\n"));
    }
    text
}

/// Parses JSON lines.
fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Compares the C program's lines with the CLI's: the same answers, errors
/// for the same positions (the CLI's message starts with the library's, to
/// which it may add a hint); returns the C error codes met.
fn compare(c: &[Value], cli: &[Value]) -> Vec<i64> {
    assert_eq!(c.len(), cli.len(), "one line per position");
    let mut codes = Vec::new();
    for (c, cli) in c.iter().zip(cli) {
        match (c.get("error"), cli.get("error")) {
            (None, None) => assert_eq!(c, cli),
            (Some(c_error), Some(cli_error)) => {
                assert_eq!(c["position"], cli["position"]);
                let (c_error, cli_error) = (c_error.as_str().unwrap(), cli_error.as_str().unwrap());
                assert!(
                    cli_error.starts_with(c_error),
                    "C: {c_error}\nCLI: {cli_error}"
                );
                codes.push(c["code"].as_i64().unwrap());
            }
            _ => panic!("C and CLI disagree:\nC:   {c}\nCLI: {cli}"),
        }
    }
    codes
}

fn cli_json(dir: &Path, input: &str) -> Output {
    let mut cli = moulin();
    cli.args(["probe", "--json", "--no-chances", "-", "--dir"])
        .arg(dir);
    run_with_input(&mut cli, input)
}

fn c_json(dir: &Path, input: &str) -> Output {
    let mut c = Command::new(conformance());
    c.arg("json").arg(dir);
    let out = run_with_input(&mut c, input);
    assert!(out.status.success(), "{}", text(&out));
    out
}

#[test]
fn c_agrees_with_the_cli_on_random_positions() {
    // 3 to 5 stones a side; every 20th has a sixth stone (no table: an error).
    let mut input = random_positions(14, 400, |r| {
        let extra = u32::from(r.below(20) == 0);
        (3 + r.below(3) as u32 + extra, 3 + r.below(3) as u32)
    });
    // The start (no placement tables), a game lost by capture, one by blocking.
    for extra in [
        "W: B: w 9 9",
        "W:a1,d1 B:a7,d2,g4 w",
        "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w",
    ] {
        input.push_str(&format!("{}\n", extra.parse::<Position>().unwrap()));
    }
    let cli = cli_json(solved(), &input);
    let c = c_json(solved(), &input);
    let codes = compare(&json_lines(&c), &json_lines(&cli));
    assert!(
        !codes.is_empty() && codes.iter().all(|&code| code == -4),
        "{codes:?}"
    );
    assert!(json_lines(&c).len() - codes.len() >= 380);
}

#[test]
fn hostile_calls_get_error_codes() {
    let out = Command::new(conformance())
        .arg("bad")
        .arg(solved())
        .output()
        .unwrap();
    let printed = text(&out);
    assert!(out.status.success(), "{printed}");
    assert!(printed.contains(" passed, 0 failed"), "{printed}");
}

/// The lines of `moulin probe` (text) and of `examples/probe.c` agree: the
/// best moves and every move's outcome line for line, the outcome in words.
#[test]
fn example_probe_c_prints_what_the_cli_prints() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("probe");
    compile(&[&crate_dir().join("examples/probe.c")], &bin, false);
    let input = random_positions(3, 30, |r| (3 + r.below(3) as u32, 3 + r.below(3) as u32));
    let example = run_with_input(Command::new(&bin).arg(solved()), &input);
    assert!(example.status.success(), "{}", text(&example));
    let cli = run_with_input(
        moulin()
            .args(["probe", "--no-chances", "-", "--dir"])
            .arg(solved()),
        &input,
    );
    let cli_json = json_lines(&cli_json(solved(), &input));
    let example = String::from_utf8(example.stdout).unwrap();
    let cli = String::from_utf8(cli.stdout).unwrap();
    let blocks = |t: &str| -> Vec<Vec<String>> {
        let mut blocks: Vec<Vec<String>> = Vec::new();
        for line in t.lines() {
            if !line.starts_with(' ') {
                blocks.push(Vec::new());
            }
            blocks.last_mut().unwrap().push(line.to_string());
        }
        blocks
    };
    let (ours, theirs) = (blocks(&example), blocks(&cli));
    assert_eq!(ours.len(), 30);
    assert_eq!(ours.len(), theirs.len());
    for ((ours, theirs), json) in ours.iter().zip(&theirs).zip(&cli_json) {
        let outcome = match &json["distance"] {
            Value::Null => format!("  outcome: {}", json["outcome"].as_str().unwrap()),
            d => format!("  outcome: {} in {d}", json["outcome"].as_str().unwrap()),
        };
        assert_eq!(ours[0], theirs[0]);
        assert_eq!(ours[1], outcome);
        assert_eq!(ours[2..], theirs[2..], "{ours:#?}");
    }
    // Positions as arguments too, and a bad one: exit code 1, others answered.
    let out = Command::new(&bin)
        .arg(solved())
        .args(["W:a1,d1,g1 B:b2,d2,f2 w", "W:a1,z9 B: w"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("outcome: win in 3"), "{}", text(&out));
    assert!(text(&out).contains("unknown point `z9`"), "{}", text(&out));
}

/// The README's C example, compiled and run as it stands.
#[test]
fn readme_c_example_runs() {
    let readme = std::fs::read_to_string(crate_dir().join("../../README.md")).unwrap();
    let start = readme.find("```c\n").expect("a ```c block in the README") + 5;
    let code = &readme[start..start + readme[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("readme.c");
    std::fs::write(&source, code).unwrap();
    let bin = dir.path().join("readme");
    compile(&[&source], &bin, true);
    let out = Command::new(&bin).arg(solved()).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let position = "W:a1,d1,g1 B:b2,d2,f2 w";
    let cli = &json_lines(&cli_json(solved(), position))[0];
    let best: Vec<&str> = cli["best_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let expected = format!(
        "{} in {}, best moves: {}\n",
        cli["outcome"].as_str().unwrap(),
        cli["distance"],
        best.join(" "),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}

/// Damaged tables: the library fails where the CLI fails, with
/// `MOULIN_ERR_DAMAGED_TABLE`, and answers what the CLI answers elsewhere.
#[test]
fn damaged_tables_give_error_codes() {
    let table = |d: &Path| d.join("5v4.mtb");
    let flip_at = |d: &Path, at: &dyn Fn(usize) -> usize| {
        let mut bytes = std::fs::read(table(d)).unwrap();
        let i = at(bytes.len());
        bytes[i] ^= 0x5a;
        std::fs::write(table(d), bytes).unwrap();
    };
    type Damage<'a> = (&'a str, Box<dyn Fn(&Path) + 'a>, bool);
    let damages: Vec<Damage> = vec![
        (
            "truncated",
            Box::new(|d| {
                let bytes = std::fs::read(table(d)).unwrap();
                std::fs::write(table(d), &bytes[..bytes.len() / 2]).unwrap();
            }),
            true,
        ),
        (
            "emptied",
            Box::new(|d| std::fs::write(table(d), b"").unwrap()),
            true,
        ),
        (
            "header byte flipped",
            Box::new(|d| flip_at(d, &|_| 60)),
            true,
        ),
        (
            "data bytes flipped",
            Box::new(|d| {
                for k in 1..16 {
                    flip_at(d, &|len| 4096 + k * (len - 4096) / 16);
                }
            }),
            false,
        ),
    ];
    // Positions of the damaged sector (5v4 for White or Black to move) and
    // of others whose moves lead into it.
    let input = random_positions(54, 200, |r| match r.below(3) {
        0 => (5, 4),
        1 => (4, 5),
        _ => (4, 4),
    });
    for (what, damage, open_fails) in damages {
        let dir = copy_of(solved());
        damage(dir.path());
        let c = json_lines(&c_json(dir.path(), &input));
        let cli = cli_json(dir.path(), &input);
        if open_fails {
            assert_eq!(cli.status.code(), Some(1), "{what}: {}", text(&cli));
            assert_eq!(c.len(), 1, "{what}");
            assert_eq!(c[0]["code"], -5, "{what}: {}", c[0]);
            assert!(
                c[0]["open_error"].as_str().unwrap().contains("5v4.mtb"),
                "{what}"
            );
            continue;
        }
        let codes = compare(&c, &json_lines(&cli));
        assert!(!codes.is_empty(), "{what}: the damage was never met");
        assert!(codes.iter().all(|&code| code == -5), "{what}: {codes:?}");
    }
}

fn c_wdl(dir: &Path, input: &str) -> Vec<Value> {
    let mut c = Command::new(conformance());
    c.arg("wdl").arg(dir);
    let out = run_with_input(&mut c, input);
    assert!(out.status.success(), "{}", text(&out));
    json_lines(&out)
}

/// One answer of `conformance wdl` (`{"outcome"}` or `{"error", "code"}`)
/// against the CLI's line for the same position (from the distance tables):
/// the same outcome, or an error where the CLI failed; the error code.
fn compare_wdl(c: &Value, cli: &Value) -> Option<i64> {
    match (c.get("error"), cli.get("error")) {
        (None, None) => {
            assert_eq!(c["outcome"], cli["outcome"], "{c} against {cli}");
            None
        }
        (Some(c_error), Some(cli_error)) => {
            let (c_error, cli_error) = (c_error.as_str().unwrap(), cli_error.as_str().unwrap());
            assert!(
                cli_error.starts_with(c_error),
                "C: {c_error}\nCLI: {cli_error}"
            );
            Some(c["code"].as_i64().unwrap())
        }
        _ => panic!("C and CLI disagree:\nC:   {c}\nCLI: {cli}"),
    }
}

/// `moulin_probe_wdl` on the WDL tables (`moulin_open_wdl`) and on the
/// distance tables says what `moulin probe --json` says, which reads the
/// distance tables alone: 400 random positions, the positions the CLI's
/// best moves lead to from the won ones, finished games, missing tables.
#[test]
fn c_wdl_agrees_with_the_cli_on_random_positions() {
    let mut input = random_positions(41, 400, |r| {
        let extra = u32::from(r.below(20) == 0);
        (3 + r.below(3) as u32, 3 + r.below(3) as u32 + extra)
    });
    // Random positions are mostly draws; the CLI's best move out of each won
    // one leads to a lost one.
    let mut losses = String::new();
    for line in json_lines(&cli_json(solved(), &input)) {
        if line["outcome"] == "win" {
            let pos: Position = line["position"].as_str().unwrap().parse().unwrap();
            let best: moulin_probe::Move = line["best_moves"][0].as_str().unwrap().parse().unwrap();
            let after = moulin_probe::Rules::with_flying(true)
                .play(&pos, best)
                .unwrap();
            losses.push_str(&format!("{after}\n"));
        }
    }
    input.push_str(&losses);
    for extra in [
        "W: B: w 9 9",
        "W:a1,d1 B:a7,d2,g4 w",
        "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w",
        "W:a1,d1,g1 B:b2,d2,f2 w",
    ] {
        input.push_str(&format!("{}\n", extra.parse::<Position>().unwrap()));
    }
    let cli = json_lines(&cli_json(solved(), &input));
    let c = c_wdl(solved(), &input);
    assert_eq!(c.len(), cli.len(), "one line per position");
    let mut outcomes = std::collections::HashMap::new();
    let mut codes = Vec::new();
    for (c, cli) in c.iter().zip(&cli) {
        assert_eq!(c["position"], cli["position"]);
        let code = compare_wdl(&c["wdl"], cli);
        assert_eq!(code, compare_wdl(&c["distance_tables"], cli), "{c}");
        match code {
            Some(code) => codes.push(code),
            None => {
                *outcomes
                    .entry(cli["outcome"].as_str().unwrap())
                    .or_insert(0) += 1
            }
        }
    }
    assert!(
        !codes.is_empty() && codes.iter().all(|&code| code == -4),
        "{codes:?}"
    );
    // Every outcome met, many times.
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");
    assert!(outcomes.values().all(|&n| n >= 10), "{outcomes:?}");
    assert!(c.len() - codes.len() >= 380);
}

/// Directories without WDL tables: solved with `--no-wdl`, or under the
/// no-capture rule (which writes none). `moulin_open_wdl` opens them and
/// every probe is `MOULIN_ERR_MISSING_TABLE`, while `moulin_probe_wdl` on
/// the distance tables answers as the CLI (under the rule: its outcome at
/// counter 0, a cursed win or a blessed loss a draw).
#[test]
fn directories_without_wdl_tables() {
    let plain = tempfile::tempdir().unwrap();
    let rule = tempfile::tempdir().unwrap();
    for (dir, options) in [
        (plain.path(), &["--no-wdl"][..]),
        (rule.path(), &["--no-capture-limit", "6"][..]),
    ] {
        let out = moulin()
            .args(["solve", "--max-stones", "4", "-q"])
            .args(options)
            .arg("--dir")
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        assert!(
            std::fs::read_dir(dir)
                .unwrap()
                .all(|f| f.unwrap().path().extension() != Some("mtw".as_ref())),
            "{options:?} wrote WDL tables"
        );
    }
    let input = random_positions(8, 120, |r| (3 + r.below(2) as u32, 3 + r.below(2) as u32));
    for (dir, counter) in [(plain.path(), None), (rule.path(), Some("0"))] {
        let mut cli = moulin();
        cli.args(["probe", "--json", "--no-chances", "-", "--dir"])
            .arg(dir);
        if let Some(counter) = counter {
            cli.args(["--counter", counter]);
        }
        let cli = json_lines(&run_with_input(&mut cli, &input));
        let c = c_wdl(dir, &input);
        assert_eq!(c.len(), cli.len());
        let mut kinds = std::collections::HashSet::new();
        for (c, cli) in c.iter().zip(&cli) {
            assert_eq!(c["wdl"]["code"], -4, "{c}");
            assert!(
                c["wdl"]["error"]
                    .as_str()
                    .unwrap()
                    .starts_with("no table for sector"),
                "{c}"
            );
            let mut cli = cli.clone();
            let outcome = cli["outcome"].as_str().unwrap().to_string();
            kinds.insert(outcome.clone());
            if outcome == "cursed-win" || outcome == "blessed-loss" {
                cli["outcome"] = "draw".into();
            }
            assert_eq!(compare_wdl(&c["distance_tables"], &cli), None, "{c}");
        }
        assert!(kinds.len() >= 3, "{kinds:?}");
    }
}

/// Damaged WDL tables: a damaged header fails `moulin_open_wdl` with
/// `MOULIN_ERR_DAMAGED_TABLE` naming the file; damaged blocks fail the
/// probes that read them with that code, and the other probes still say
/// what the CLI says on the intact distance tables.
#[test]
fn damaged_wdl_tables_give_error_codes() {
    let table = |d: &Path| d.join("5v4.mtw");
    let input = random_positions(55, 300, |r| match r.below(3) {
        0 => (5, 4),
        1 => (4, 5),
        _ => (4, 4),
    });
    let cli = json_lines(&cli_json(solved(), &input));
    type Damage = (&'static str, fn(&mut Vec<u8>), bool);
    let damages: [Damage; 4] = [
        ("truncated", |b| b.truncate(b.len() / 2), true),
        ("emptied", |b| b.clear(), true),
        ("header byte flipped", |b| b[60] ^= 0x5a, true),
        (
            "data bytes flipped",
            |b| {
                let len = b.len();
                for k in 1..16 {
                    b[4096 + k * (len - 4096) / 16] ^= 0x5a;
                }
            },
            false,
        ),
    ];
    for (what, damage, open_fails) in damages {
        let dir = copy_of(solved());
        let mut bytes = std::fs::read(table(dir.path())).unwrap();
        assert!(bytes.len() > 8192, "{what}: {} bytes", bytes.len());
        damage(&mut bytes);
        std::fs::write(table(dir.path()), bytes).unwrap();
        let c = c_wdl(dir.path(), &input);
        if open_fails {
            assert_eq!(c.len(), 1, "{what}");
            assert_eq!(c[0]["code"], -5, "{what}: {}", c[0]);
            let message = c[0]["open_error"].as_str().unwrap();
            assert!(
                message.contains("5v4.mtw") && message.contains("cannot open the WDL tables"),
                "{what}: {message}"
            );
            continue;
        }
        let mut codes = Vec::new();
        for (c, cli) in c.iter().zip(&cli) {
            // The distance tables are intact.
            assert_eq!(compare_wdl(&c["distance_tables"], cli), None, "{c}");
            match c["wdl"].get("code") {
                Some(code) => {
                    codes.push(code.as_i64().unwrap());
                    assert!(
                        c["wdl"]["error"].as_str().unwrap().contains("5v4.mtw"),
                        "{c}"
                    );
                }
                None => assert_eq!(compare_wdl(&c["wdl"], cli), None),
            }
        }
        assert!(!codes.is_empty(), "{what}: the damage was never met");
        assert!(codes.iter().all(|&code| code == -5), "{what}: {codes:?}");
    }
}

#[test]
fn moulin_open_of_a_url_reads_the_served_tables() {
    let served = moulin_tests::serve_tables(solved());
    let mut input = random_positions(21, 120, |r| {
        let extra = u32::from(r.below(10) == 0);
        (3 + r.below(3) as u32 + extra, 3 + r.below(3) as u32)
    });
    // A game lost by capture needs no table.
    let lost: Position = "W:a1,d1 B:a7,d2,g4 w".parse().unwrap();
    input.push_str(&format!("{lost}\n"));
    let cli = cli_json(solved(), &input);
    let c = c_json(Path::new(&served.url), &input);
    let codes = compare(&json_lines(&c), &json_lines(&cli));
    // Sectors the set lacks are missing tables, as in a directory.
    assert!(
        !codes.is_empty() && codes.iter().all(|&code| code == -4),
        "{codes:?}"
    );
    // Nothing listens on a port just freed: MOULIN_ERR_IO naming the URL.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/tables");
    let lines = json_lines(&c_json(Path::new(&url), "W:a1,d1,g1 B:b2,d2,f2 w\n"));
    assert_eq!(lines[0]["code"], -6, "{}", lines[0]);
    let message = lines[0]["error"].as_str().unwrap();
    assert!(message.contains(&format!("{url}/3v3.mtb")), "{message}");
}
