//! The run record `moulin solve` keeps beside the tables
//! (`solve-record.jsonl`): a line per item it solves, none for the items it
//! finds on disk, and the comparison script reading two records.

use moulin::solve::record::RECORD_FILE;
use moulin_tests::moulin;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn solve(dir: &Path, args: &[&str]) {
    let out = moulin()
        .args(["solve", "-q", "--dir"])
        .arg(dir)
        .args(args)
        .output()
        .expect("moulin runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn lines(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join(RECORD_FILE))
        .expect("a record")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn each_solved_item_gets_a_line_and_a_rerun_none() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), &["--max-stones", "4", "--threads", "2"]);
    let record = lines(dir.path());
    assert_eq!(record[0]["type"], "run");
    assert_eq!(record[0]["threads"], 2);
    // Up to 4 a side the moving phase is solved in the pairs 3v3, 3v4+4v3
    // and 4v4 (a sector and its mirror together).
    let items: Vec<&str> = record[1..]
        .iter()
        .map(|l| l["item"].as_str().unwrap())
        .collect();
    assert_eq!(items, ["3v3", "3v4+4v3", "4v4"]);
    for line in &record[1..] {
        let sectors: Vec<&str> = line["sectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        // The bytes written are those of the item's tables and WDL tables.
        let on_disk: u64 = sectors
            .iter()
            .flat_map(|s| [format!("{s}.mtb"), format!("{s}.mtw")])
            .map(|f| std::fs::metadata(dir.path().join(f)).unwrap().len())
            .sum();
        assert_eq!(line["bytes_written"].as_u64(), Some(on_disk), "{line}");
        let stages = line["stages"].as_object().unwrap();
        for stage in ["initialise", "levels", "write", "wdl"] {
            assert!(stages[stage]["wall"].as_f64().unwrap() >= 0.0, "{line}");
        }
        let sum: f64 = stages.values().map(|s| s["wall"].as_f64().unwrap()).sum();
        assert!(sum <= line["wall"].as_f64().unwrap() + 0.01, "{line}");
        assert!(line["peak_kib"].as_u64().unwrap() > 0, "{line}");
    }
    // The slots of each item: its sectors' counts in `moulin sectors`.
    let out = moulin().args(["sectors", "--json"]).output().unwrap();
    let sectors: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
    let slots = |name: &str| {
        sectors
            .iter()
            .find(|s| s["sector"] == name)
            .and_then(|s| s["slots"].as_u64())
            .unwrap()
    };
    assert_eq!(record[1]["slots"].as_u64(), Some(slots("3v3")));
    assert_eq!(
        record[2]["slots"].as_u64(),
        Some(slots("3v4") + slots("4v3"))
    );

    // Everything on disk: the record is left as it was.
    let before = std::fs::read(dir.path().join(RECORD_FILE)).unwrap();
    solve(dir.path(), &["--max-stones", "4"]);
    assert_eq!(std::fs::read(dir.path().join(RECORD_FILE)).unwrap(), before);

    // One more rung: a new run line and the new items only.
    solve(dir.path(), &["--max-stones", "5"]);
    let record = lines(dir.path());
    let runs = record.iter().filter(|l| l["type"] == "run").count();
    assert_eq!(runs, 2);
    let items: Vec<&str> = record[5..]
        .iter()
        .map(|l| l["item"].as_str().unwrap())
        .collect();
    assert_eq!(items, ["3v5+5v3", "4v5+5v4", "5v5"]);
}

#[test]
fn the_comparison_script_reads_two_records() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    solve(a.path(), &["--max-stones", "4"]);
    solve(b.path(), &["--max-stones", "3"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/compare-records.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(a.path().join(RECORD_FILE))
        .arg(b.path().join(RECORD_FILE))
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // 3v3 is in both; the other two items only in the first record.
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("3v3 ")),
        "{text}"
    );
    assert!(text.contains("only in old: 3v4+4v3 4v4"), "{text}");
    // A file that is not a record is refused with exit code 2.
    let bogus = a.path().join("bogus.jsonl");
    std::fs::write(&bogus, "{\"x\": 1}\n").unwrap();
    let out = Command::new("python3")
        .arg(&script)
        .arg(&bogus)
        .arg(b.path().join(RECORD_FILE))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bogus.jsonl:1"));
}
