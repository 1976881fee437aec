//! Play sets (`moulin pack`, `moulin_core::play`): outcome tables and the
//! distances of one side only (the losses by default), the other side's
//! rebuilt by one ply. On the
//! reduced game (the moving phase up to 4 stones a side and its placement
//! sectors), without the rule and under a no-capture limit of 10 without
//! flying:
//!
//! - every slot of every sector rebuilt from the play set equals the
//!   distance table's code (`moulin pack --check`, and `verify` rederives
//!   the rebuilt values from the rules);
//! - probes through `Tablebase` (outcome, moves, counters, advice) answer
//!   as on the distance tables;
//! - a rerun skips what is packed; bad arguments, a missing or damaged
//!   file and tables that contradict each other are errors, never answers.

use moulin::solve::{solve_moving, SolveOptions};
use moulin::write::{write_contents, Contents, WriteOptions};
use moulin_core::index::{Indexer, MOVER_MAJOR};
use moulin_core::table::PlaySide;
use moulin_core::value::HOLE;
use moulin_probe::error::chain;
use moulin_probe::{Outcome, Position, ProbeError, Rules, Tablebase};
use moulin_tests::{moulin, text};
use std::path::Path;
use tempfile::TempDir;

/// The reduced game under `rules`, solved, and its play set packed by the
/// `moulin` program.
fn packed(rules: Rules, side: &str) -> (TempDir, TempDir) {
    packed_with(rules, &["-q", "--side", side])
}

/// The reduced game under `rules`, solved, and its play set packed with
/// these arguments.
fn packed_with(rules: Rules, args: &[&str]) -> (TempDir, TempDir) {
    let full = tempfile::tempdir().unwrap();
    solve_moving(&SolveOptions {
        dir: full.path().to_path_buf(),
        max_stones: 4,
        placement: true,
        rules,
        ..Default::default()
    })
    .unwrap();
    let play = tempfile::tempdir().unwrap();
    let out = pack(full.path(), play.path(), args);
    assert!(out.status.success(), "{}", text(&out));
    (full, play)
}

/// The plain reduced game and its play set of losses, packed once for the
/// tests that only read them (or copy them).
fn shared() -> (&'static Path, &'static Path) {
    static SHARED: std::sync::OnceLock<(TempDir, TempDir)> = std::sync::OnceLock::new();
    let (full, play) = SHARED.get_or_init(|| packed(Rules::default(), "losses"));
    (full.path(), play.path())
}

fn pack(full: &Path, play: &Path, more: &[&str]) -> std::process::Output {
    moulin()
        .arg("pack")
        .arg("--dir")
        .arg(full)
        .arg("--out")
        .arg(play)
        .args(more)
        .output()
        .unwrap()
}

/// Every `step`-th class of every sector, as a position.
fn sample(tb: &Tablebase, step: u64) -> Vec<Position> {
    let ix = Indexer::get();
    let mut out = Vec::new();
    for (sector, summary) in tb.sectors() {
        for slot in (0..summary.slots).step_by(step as usize) {
            if let Some(node) = ix.unindex(sector, slot).filter(|n| ix.index(n) == slot) {
                out.push(Position::from_node(node, node.side_by_hands()));
            }
        }
    }
    out
}

/// Every slot agrees (`pack --check`), the rules rederive every rebuilt
/// value (`verify`), and the probes answer alike.
/// `moulin verify` on a play set: every rebuilt value from the rules.
fn verify(play: &Path) -> std::process::Output {
    moulin()
        .args(["verify", "-q", "--dir"])
        .arg(play)
        .output()
        .unwrap()
}

fn answers_as_the_tables(full: &Path, play: &Path, rules: Rules) {
    let check = pack(full, play, &["--check", "-q"]);
    assert!(check.status.success(), "{}", text(&check));
    assert!(text(&check).contains(": 0 differ"), "{}", text(&check));

    let tables = Tablebase::open(full).unwrap();
    let set = Tablebase::open(play).unwrap();
    // SAFETY: nothing writes the play set while it is mapped.
    let mapped = unsafe { Tablebase::open_mapped(play) }.unwrap();
    assert!(mapped.is_play_set());
    assert!(set.is_play_set() && !set.is_wdl() && !tables.is_play_set());
    assert_eq!(set.rules(), rules);
    let sectors: Vec<_> = tables.sectors().map(|(s, h)| (s, h.classes)).collect();
    // A set may leave sectors out: those it lists have the tables' counts.
    let listed: Vec<_> = set.sectors().map(|(s, h)| (s, h.classes)).collect();
    assert!(listed.iter().all(|s| sectors.contains(s)), "{listed:?}");
    for &(sector, _) in &sectors {
        let left_out = !listed.iter().any(|&(s, _)| s == sector);
        assert_eq!(set.is_left_out(sector), left_out, "{sector}");
    }
    // `--check` above rebuilds whole sectors at once; a probe rebuilds a
    // slot at a time (`sector_values` of a play set): every slot again.
    for &(sector, _) in &sectors {
        assert_eq!(
            set.sector_values(sector).unwrap(),
            tables.sector_values(sector).unwrap(),
            "{sector}, slot by slot"
        );
    }
    // Under the rule, three counters and every move's value at each: fewer
    // positions (every slot is compared above).
    let step = if rules.no_capture_limit.is_some() {
        1511
    } else {
        2003
    };
    let positions = sample(&tables, step);
    assert!(positions.len() > 1_500, "{}", positions.len());
    let mut losses = 0;
    for pos in &positions {
        let outcome = tables.probe(pos).unwrap();
        assert_eq!(set.probe(pos).unwrap(), outcome, "{pos}");
        assert_eq!(mapped.probe(pos).unwrap(), outcome, "{pos}");
        assert_eq!(
            set.probe_wdl(pos).unwrap(),
            tables.probe_wdl(pos).unwrap(),
            "{pos}"
        );
        losses += matches!(outcome, Outcome::Loss(_)) as u32;
        if let Some(n) = rules.no_capture_limit {
            let node = pos.node();
            let counters = match node.us_hand + node.them_hand {
                0 => vec![0, n / 2, n - 1],
                _ => vec![0],
            };
            for c in counters {
                assert_eq!(
                    set.probe_counter(pos, c).unwrap(),
                    tables.probe_counter(pos, c).unwrap()
                );
                assert_eq!(
                    set.probe_moves_counter(pos, c).unwrap(),
                    tables.probe_moves_counter(pos, c).unwrap(),
                    "{pos} at counter {c}"
                );
            }
        } else {
            assert_eq!(
                set.probe_moves(pos).unwrap(),
                tables.probe_moves(pos).unwrap(),
                "{pos}"
            );
        }
    }
    assert!(losses > 10, "{losses} losses among the sample");
}

#[test]
fn a_play_set_answers_as_the_tables() {
    let (full, play) = shared();
    answers_as_the_tables(full, play, Rules::default());
    // Random positions with every move's value (`--check --sample`).
    let out = pack(full, play, &["--check", "--sample", "3000", "--seed", "7"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("3000 random positions of 15 sectors probed with every move: 0 differ"),
        "{}",
        text(&out)
    );
}

/// A play set whose stored distances are off (every loss of 3v3 two turns
/// longer, but the longest, so the headers agree) answers differently, and
/// the random sample says so.
#[test]
fn a_sample_of_positions_finds_distances_that_differ() {
    let (full, play) = shared();
    let tables = Tablebase::open(full).unwrap();
    let sector = "3v3".parse().unwrap();
    let longest = tables.summary(sector).unwrap().max_loss.unwrap();
    let mut values = tables.sector_values(sector).unwrap();
    let mut changed = 0;
    for v in values.iter_mut() {
        if let Some(Outcome::Loss(d)) = Outcome::from_code(*v) {
            if d > 0 && d + 2 < longest {
                *v = Outcome::Loss(d + 2).code().unwrap();
                changed += 1;
            }
        }
    }
    assert!(changed > 1000, "{changed}");
    let lie = moulin_tests::copy_of(play);
    let what = Contents::Play(PlaySide::Losses);
    // Numbered mover-major, beside outcomes numbered as the tables: refused.
    let ix = Indexer::get();
    let mut numbered = vec![HOLE; ix.slots(sector.mirrored()) as usize];
    ix.renumber(sector.mirrored(), 0, &mut numbered, &values, HOLE);
    let options = WriteOptions {
        scheme: MOVER_MAJOR,
        ..WriteOptions::default()
    };
    let write = |values: &[u16], options: &WriteOptions| {
        write_contents(
            lie.path(),
            what,
            sector,
            Rules::default(),
            values,
            options,
            true,
        )
        .unwrap()
    };
    write(&numbered, &options);
    let out = pack(full, lie.path(), &["--check", "--sector", "3v3"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("distances in index scheme 1, outcomes in index scheme 0"),
        "{}",
        text(&out)
    );
    // Numbered as the play set.
    write(&values, &WriteOptions::default());
    let out = pack(
        full,
        lie.path(),
        &["--check", "--sample", "2000", "--sector", "3v3"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("3v3 "), "{}", text(&out));
    assert!(!text(&out).contains(": 0 differ"), "{}", text(&out));
    // Every slot: the stored losses, and the wins rebuilt from them.
    let every = pack(full, lie.path(), &["--check", "--sector", "3v3"]);
    assert_eq!(every.status.code(), Some(1), "{}", text(&every));
    let differ = text(&every).lines().find_map(|l| {
        l.strip_prefix("3v3: ")?
            .split(' ')
            .next()?
            .parse::<u64>()
            .ok()
    });
    assert!(differ.is_some_and(|n| n > changed), "{}", text(&every));
}

#[test]
#[ignore = "every slot again, through verify; CI runs it"]
fn verify_rederives_a_play_set_from_the_rules() {
    let (_, play) = shared();
    let out = verify(play);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
#[ignore = "the other side; CI runs it"]
fn a_play_set_of_the_wins_answers_as_the_tables() {
    let (full, play) = packed(Rules::default(), "wins");
    answers_as_the_tables(full.path(), play.path(), Rules::default());
    let out = verify(play.path());
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
#[ignore = "the rule, both sides, about a minute; CI runs it"]
fn a_play_set_under_the_rule_answers_at_every_counter() {
    let rules = Rules {
        flying: false,
        no_capture_limit: Some(10),
    };
    let (full, losses) = packed(rules, "losses");
    answers_as_the_tables(full.path(), losses.path(), rules);
    let wins = tempfile::tempdir().unwrap();
    let out = pack(full.path(), wins.path(), &["-q", "--side", "wins"]);
    assert!(out.status.success(), "{}", text(&out));
    answers_as_the_tables(full.path(), wins.path(), rules);
    for play in [losses.path(), wins.path()] {
        let out = verify(play);
        assert!(out.status.success(), "{}", text(&out));
    }
}

/// A play set numbered mover-major (`--numbering mover-major`, index
/// scheme 1) answers as the tables too, and so does the verifier; the
/// default set is numbered as the tables, and a rerun with the other
/// numbering packs every sector again.
#[test]
#[ignore = "another pack and check of the game, about twenty seconds; CI runs it"]
fn a_play_set_numbered_mover_major_answers_alike() {
    let (full, default) = shared();
    let (_, play) = packed_with(Rules::default(), &["-q", "--numbering", "mover-major"]);
    let scheme = |dir: &Path| {
        let mut seen = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("mtw" | "mtd")
            ) {
                seen.insert(std::fs::read(&path).unwrap()[23]);
            }
        }
        seen.into_iter().collect::<Vec<u8>>()
    };
    assert_eq!(scheme(play.path()), [MOVER_MAJOR]);
    assert_eq!(scheme(default), [0]);
    answers_as_the_tables(full, play.path(), Rules::default());
    let verified = verify(play.path());
    assert!(verified.status.success(), "{}", text(&verified));
    let again = pack(full, play.path(), &["-q"]);
    assert!(again.status.success(), "{}", text(&again));
    assert!(
        text(&again).contains("15 sectors packed, 0 already there"),
        "{}",
        text(&again)
    );
    assert_eq!(scheme(play.path()), [0]);
    let bad = pack(full, play.path(), &["--numbering", "sideways"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(text(&bad).contains("not a numbering"), "{}", text(&bad));
}

/// Both sides' distances, the placement sectors with Black to move left
/// out: every answer as the tables', each position of a sector left out
/// rebuilt by one ply over those its turns lead into.
#[test]
#[ignore = "two more packs and checks of the game, about a minute; CI runs it"]
fn a_play_set_of_both_sides_leaves_black_placement_out() {
    let rule = Rules {
        flying: false,
        no_capture_limit: Some(10),
    };
    for rules in [Rules::default(), rule] {
        let args = ["-q", "--side", "both", "--leave-out", "black-placement"];
        let (full, play) = packed_with(rules, &args);
        let tables = Tablebase::open(full.path()).unwrap();
        let set = Tablebase::open(play.path()).unwrap();
        let left_out: Vec<_> = tables
            .sectors()
            .map(|(s, _)| s)
            .filter(|&s| set.is_left_out(s))
            .collect();
        // Black to move during placement: one stone more in hand.
        assert!(!left_out.is_empty());
        assert!(left_out.iter().all(|s| s.stm_hand == s.opp_hand + 1));
        for s in &left_out {
            assert!(!play.path().join(format!("{}.mtw", s.name())).exists());
        }
        let stored = set.play_distances().unwrap();
        assert!(stored
            .sectors()
            .all(|(_, h)| h.play == Some(PlaySide::Both) && h.version() == 3));
        answers_as_the_tables(full.path(), play.path(), rules);
        let out = verify(play.path());
        assert!(out.status.success(), "{}", text(&out));
        // Every sector, those left out too (rebuilt whole by one ply).
        let all = tables.sectors().count();
        assert!(
            text(&out).contains(&format!("slots of {all} tables")),
            "{}",
            text(&out)
        );
        // `--list` names the same sectors, left out or not, those of the
        // tables: in solving order, but each sector of the last placement
        // (one stone in hand against none) right after the moving sector
        // with a stone more on the board, whose turns lead where its do.
        let list = moulin()
            .args(["verify", "--list", "--dir"])
            .arg(play.path())
            .output()
            .unwrap();
        assert!(list.status.success(), "{}", text(&list));
        let order = moulin_probe::Sector::all(true);
        let mut expected: Vec<_> = tables.sectors().map(|(s, _)| s).collect();
        expected.sort_by_key(|s| order.iter().position(|o| o == s));
        let listed: Vec<moulin_probe::Sector> = String::from_utf8_lossy(&list.stdout)
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        let mut sorted = listed.clone();
        sorted.sort_by_key(|s| order.iter().position(|o| o == s));
        assert_eq!(sorted, expected);
        let last_placement = |s: &moulin_probe::Sector| (s.stm_hand, s.opp_hand) == (1, 0);
        let others: Vec<_> = listed.iter().filter(|s| !last_placement(s)).collect();
        let in_order: Vec<_> = expected.iter().filter(|s| !last_placement(s)).collect();
        assert_eq!(others, in_order);
        let mut partners = 0;
        for (i, s) in listed.iter().enumerate().filter(|(_, s)| last_placement(s)) {
            let partner = moulin_probe::Sector {
                stm_board: s.stm_board + 1,
                stm_hand: 0,
                ..*s
            };
            if listed.contains(&partner) {
                assert_eq!(listed[i - 1], partner, "{}", text(&list));
                partners += 1;
            }
        }
        assert!(partners > 0);
        assert!(left_out.iter().all(|s| listed.contains(s)));
        // A rerun keeps it; one side only cannot leave sectors out.
        let again = pack(full.path(), play.path(), &args);
        assert!(
            text(&again).contains("0 sectors packed"),
            "{}",
            text(&again)
        );
        let one = pack(
            full.path(),
            play.path(),
            &["-q", "--leave-out", "black-placement"],
        );
        assert_eq!(one.status.code(), Some(2), "{}", text(&one));
        assert!(text(&one).contains("--side both"), "{}", text(&one));
    }
}

#[test]
fn a_play_set_is_smaller_and_a_rerun_keeps_it() {
    let (full, play) = shared();
    let bytes = |dir: &Path, ext: &str| -> u64 {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == ext))
            .map(|e| e.metadata().unwrap().len())
            .sum()
    };
    let (tables, set) = (bytes(full, "mtb"), bytes(play, "mtw") + bytes(play, "mtd"));
    assert!(
        set < tables * 3 / 4,
        "{set} bytes of play set for {tables} of tables"
    );
    // `moulin stats` counts both files of each sector.
    let stats = moulin()
        .args(["stats", "--dir"])
        .arg(play)
        .output()
        .unwrap();
    assert!(
        text(&stats).contains(&format!(" in {set} bytes")),
        "{}",
        text(&stats)
    );
    let record = std::fs::read_to_string(play.join("pack-record.jsonl")).unwrap();
    assert_eq!(record.lines().count(), 15, "{record}");
    let again = pack(full, play, &["-q"]);
    assert!(again.status.success(), "{}", text(&again));
    assert!(
        text(&again).contains("0 sectors packed, 15 already there"),
        "{}",
        text(&again)
    );
}

#[test]
#[ignore = "a second pack of the game; CI runs it"]
fn a_rerun_with_other_settings_writes_again() {
    let (full, play) = shared();
    let copy = moulin_tests::copy_of(play);
    let other = pack(full, copy.path(), &["-q", "--outcome-block-kib", "64"]);
    assert!(other.status.success(), "{}", text(&other));
    assert!(
        text(&other).contains("15 sectors packed, 0 already there"),
        "{}",
        text(&other)
    );
    let check = pack(full, copy.path(), &["--check", "-q"]);
    assert!(text(&check).contains(": 0 differ"), "{}", text(&check));
}

#[test]
fn bad_arguments_and_damaged_files_are_errors() {
    let (full, play) = shared();
    // The play set in the directory of the tables, and no tables at all.
    let same = pack(full, full, &["-q"]);
    assert_eq!(same.status.code(), Some(2), "{}", text(&same));
    assert!(text(&same).contains("needs its own"), "{}", text(&same));
    let empty = tempfile::tempdir().unwrap();
    let none = pack(empty.path(), play, &["-q"]);
    assert_eq!(none.status.code(), Some(2), "{}", text(&none));
    assert!(
        text(&none).contains("no distance tables"),
        "{}",
        text(&none)
    );
    let unknown = pack(full, play, &["--sector", "9v9", "-q"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown));

    // A distance table missing: opening names it.
    let copy = moulin_tests::copy_of(play);
    std::fs::remove_file(copy.path().join("4v4.mtd")).unwrap();
    let err = Tablebase::open(copy.path()).unwrap_err();
    assert!(chain(&err).contains("4v4.mtd"), "{}", chain(&err));

    // A flipped byte in a block: the block's checksum, not a wrong answer.
    let copy = moulin_tests::copy_of(play);
    let path = copy.path().join("4v4.mtd");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
    let check = pack(full, copy.path(), &["--check", "-q"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    assert!(text(&check).contains("4v4.mtd"), "{}", text(&check));
}

#[test]
fn outcome_tables_that_contradict_the_moves_are_an_error() {
    let (lie, sector, slot) = contradictory();
    let set = Tablebase::open(lie.path()).unwrap();
    let err = set.code(sector, slot).unwrap_err();
    assert!(matches!(err, ProbeError::File { .. }), "{err:?}");
    assert!(
        chain(&err).contains("its best move gives"),
        "{}",
        chain(&err)
    );
}

#[test]
#[ignore = "every slot through verify; CI runs it"]
fn verify_finds_a_contradictory_play_set() {
    let (lie, _, _) = contradictory();
    let out = verify(lie.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

/// A copy of the shared play set whose 4v4 says won at a class its table
/// says lost; the sector and the slot.
fn contradictory() -> (TempDir, moulin_probe::Sector, u64) {
    let (full, play) = shared();
    let tables = Tablebase::open(full).unwrap();
    let sector = "4v4".parse().unwrap();
    let mut values = tables.sector_values(sector).unwrap();
    // A lost class marked won: its win is rebuilt from its moves, and none
    // of them wins.
    let slot = values
        .iter()
        .position(|&c| matches!(Outcome::from_code(c), Some(Outcome::Loss(d)) if d > 0))
        .unwrap();
    values[slot] = Outcome::Win(1).code().unwrap();
    assert_ne!(values[slot], HOLE);
    let lie = moulin_tests::copy_of(play);
    let options = WriteOptions::default();
    for what in [Contents::Outcomes, Contents::Play(PlaySide::Losses)] {
        let rules = Rules::default();
        write_contents(lie.path(), what, sector, rules, &values, &options, true).unwrap();
    }
    (lie, sector, slot as u64)
}

/// The sectors `moulin pack --check` says agree in `text` (its lines or
/// its log), in their order.
fn agreeing(text: &str) -> Vec<moulin_probe::Sector> {
    text.lines()
        .filter_map(|l| {
            let (sector, rest) = l.split_once(": ")?;
            let mut words = rest.split(' ');
            words.next()?.parse::<u64>().ok()?;
            (words.next()? == "slots" && words.next()? == "agree").then(|| sector.parse().ok())?
        })
        .collect()
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

/// `moulin pack --check --log`: every sector's line goes to the log; a
/// rerun skips the sectors the log says agree, and checks those whose line
/// is gone.
#[test]
fn a_log_resumes_a_check() {
    let (full, play) = shared();
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("check.txt");
    let log_arg = log.to_str().unwrap();
    let sectors: Vec<_> = Tablebase::open(full)
        .unwrap()
        .sectors()
        .map(|(s, _)| s)
        .collect();
    assert_eq!(sectors.len(), 15);
    let out = pack(full, play, &["--check", "--log", log_arg]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(sorted(agreeing(&t)), sectors, "{t}");
    assert!(
        t.contains("15 sectors, ") && t.contains(": 0 differ, 0 skipped as agreeing in "),
        "{t}"
    );
    let first = std::fs::read_to_string(&log).unwrap();
    assert_eq!(first.lines().count(), 15, "{first}");
    assert_eq!(sorted(agreeing(&first)), sectors, "{first}");

    let out = pack(full, play, &["--check", "--log", log_arg]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(agreeing(&t), [], "{t}");
    assert!(
        t.contains("0 sectors, 0 slots compared: 0 differ, 15 skipped"),
        "{t}"
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap(), first);

    // 3v3's line gone: 3v3 is checked again, and only 3v3.
    assert_eq!(moulin_tests::remove_lines(&log, "3v3: "), 14, "{first}");
    let out = pack(full, play, &["--check", "--log", log_arg]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(agreeing(&t), ["3v3".parse().unwrap()], "{t}");
    assert!(
        t.contains("1 sectors, ") && t.contains(", 14 skipped"),
        "{t}"
    );
    let now = std::fs::read_to_string(&log).unwrap();
    assert_eq!(sorted(agreeing(&now)), sectors, "{now}");
}

/// A damaged file of the play set stops the check at the first sector that
/// reads it: the log names that sector, not as agreeing, and a rerun checks
/// it again (and goes on once the file is mended).
#[test]
fn a_log_checks_a_damaged_sector_again() {
    let (full, play) = shared();
    let copy = moulin_tests::copy_of(play);
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("check.txt");
    let log_arg = log.to_str().unwrap();
    let path = copy.path().join("4v4.mtd");
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let at = bad.len() - 100;
    bad[at] ^= 0x10;
    std::fs::write(&path, &bad).unwrap();

    let out = pack(full, copy.path(), &["--check", "--log", log_arg]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("4v4.mtd"), "{t}");
    let logged = std::fs::read_to_string(&log).unwrap();
    let last = logged.lines().last().unwrap();
    let (failed, why) = last.split_once(": cannot be checked: ").expect(&logged);
    let failed: moulin_probe::Sector = failed.parse().unwrap();
    assert!(why.contains("4v4.mtd"), "{logged}");
    let before = agreeing(&logged);
    assert!(!before.contains(&failed), "{logged}");
    assert_eq!(logged.lines().count(), before.len() + 1, "{logged}");

    let out = pack(full, copy.path(), &["--check", "--log", log_arg]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_eq!(agreeing(&t), [], "{t}");
    let again = std::fs::read_to_string(&log).unwrap();
    assert_eq!(again.lines().count(), logged.lines().count() + 1, "{again}");
    assert_eq!(again.lines().last(), Some(last), "{again}");

    std::fs::write(&path, &good).unwrap();
    let out = pack(full, copy.path(), &["--check", "--log", log_arg]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(agreeing(&t).first(), Some(&failed), "{t}");
    assert!(t.contains(&format!(", {} skipped", before.len())), "{t}");
    let done = std::fs::read_to_string(&log).unwrap();
    assert_eq!(agreeing(&done).len(), 15, "{done}");
}
