//! The no-capture rule through the C ABI (called from Rust): counters, the
//! five outcomes and the counter errors, against the Rust probe.

use moulin_c::*;
use moulin_probe::{Position, RuleOutcome, Tablebase};
use moulin_tests::{moulin, text};
use std::ffi::{CStr, CString};

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn code_of(v: RuleOutcome) -> i32 {
    match v {
        RuleOutcome::Win(_) => MOULIN_WIN,
        RuleOutcome::CursedWin(_) => MOULIN_CURSED_WIN,
        RuleOutcome::Draw => MOULIN_DRAW,
        RuleOutcome::BlessedLoss(_) => MOULIN_BLESSED_LOSS,
        RuleOutcome::Loss(_) => MOULIN_LOSS,
    }
}

#[test]
fn counters_through_the_c_abi() {
    let dir = tempfile::tempdir().unwrap();
    let out = moulin()
        .args([
            "solve",
            "--max-stones",
            "4",
            "--no-capture-limit",
            "6",
            "-q",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let tb = Tablebase::open(dir.path()).unwrap();
    let handle = unsafe { moulin_open(c(dir.path().to_str().unwrap()).as_ptr()) };
    assert!(!handle.is_null());
    assert_eq!(unsafe { moulin_no_capture_limit(handle) }, 6);
    let ix = moulin_core::index::Indexer::get();
    let sector = "3v3".parse().unwrap();
    let values = tb.sector_values(sector).unwrap();
    let mut kinds = std::collections::HashSet::new();
    for slot in (0..values.len() as u64).step_by(97) {
        let Some(node) = ix.unindex(sector, slot) else {
            continue;
        };
        if ix.index(&node) != slot || tb.rules().is_lost(&node) {
            continue;
        }
        let pos = Position::from_node(node, node.side_by_hands());
        let text = c(&pos.to_string());
        for counter in 0..6 {
            let want = tb.probe_counter(&pos, counter).unwrap();
            kinds.insert(code_of(want));
            let mut got = moulin_result::default();
            let rc =
                unsafe { moulin_probe_counter(handle, text.as_ptr(), counter as i32, &mut got) };
            assert_eq!(rc, MOULIN_OK);
            assert_eq!(got.outcome, code_of(want), "{pos} counter {counter}");
            assert_eq!(got.distance, want.distance().map_or(-1, i32::from));
            let mut moves = vec![
                moulin_move_result {
                    r#move: [0; MOULIN_MOVE_TEXT],
                    outcome: 0,
                    distance: 0
                };
                MOULIN_MAX_MOVES
            ];
            let mut count = 0usize;
            let rc = unsafe {
                moulin_moves_counter(
                    handle,
                    text.as_ptr(),
                    counter as i32,
                    moves.as_mut_ptr(),
                    moves.len(),
                    &mut count,
                )
            };
            assert_eq!(rc, MOULIN_OK);
            let rust = tb.probe_moves_counter(&pos, counter).unwrap();
            assert_eq!(count, rust.len());
            for m in &moves[..count] {
                let name = unsafe { CStr::from_ptr(m.r#move.as_ptr()) }
                    .to_str()
                    .unwrap();
                let (_, v) = rust.iter().find(|(x, _)| x.to_string() == name).unwrap();
                assert_eq!(m.outcome, code_of(*v), "{pos} counter {counter} {name}");
            }
        }
    }
    assert!(kinds.len() >= 4, "{kinds:?}");
    // Counters the tables cannot answer.
    let pos = c("W:a1,d1,b4 B:g1,g4,f6 w");
    let mut got = moulin_result::default();
    for bad in [-1, 6, 70000] {
        let rc = unsafe { moulin_probe_counter(handle, pos.as_ptr(), bad, &mut got) };
        assert_eq!(rc, MOULIN_ERR_COUNTER, "counter {bad}");
        let message = unsafe { CStr::from_ptr(moulin_last_error()) }
            .to_str()
            .unwrap();
        assert!(message.contains("out of range"), "{message}");
    }
    unsafe { moulin_close(handle) };
    // Tables without the rule.
    let plain = tempfile::tempdir().unwrap();
    let out = moulin()
        .args(["solve", "--max-stones", "3", "-q", "--dir"])
        .arg(plain.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let handle = unsafe { moulin_open(c(plain.path().to_str().unwrap()).as_ptr()) };
    assert_eq!(unsafe { moulin_no_capture_limit(handle) }, 0);
    let rc = unsafe { moulin_probe_counter(handle, pos.as_ptr(), 0, &mut got) };
    assert_eq!(rc, MOULIN_ERR_COUNTER);
    let message = unsafe { CStr::from_ptr(moulin_last_error()) }
        .to_str()
        .unwrap();
    assert!(message.contains("no no-capture rule"), "{message}");
    unsafe { moulin_close(handle) };
}
