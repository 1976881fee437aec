//! The checks of the fuzz targets: what must hold for any input, whatever
//! its bytes. The targets of `fuzz/fuzz_targets/` call these; the corpus
//! replay test (`probe/tests/fuzz_corpus.rs`) includes this same file, so
//! that every committed input goes through them with the stable test
//! harness, without libFuzzer.
//!
//! A check panics when a property fails; errors from the library are fine
//! (they are what hostile input should get), panics from it are not.

use moulin_core::index::Indexer;
use moulin_core::table::Table;
use moulin_core::MoveError;
use moulin_probe::{
    FileError, Move, Outcome, Position, ProbeError, RuleOutcome, Rules, Sector, Storage,
    TableSource, Tablebase,
};

/// Blocks decoded one by one at most (`decode_all` still decodes them all).
const MAX_BLOCKS: u32 = 64;

/// Both rule sets the tables and the rules know.
const RULES: [Rules; 2] = [Rules::with_flying(true), Rules::with_flying(false)];

/// Arbitrary bytes as a table file: through `Table` (open, locate, get,
/// every block up to `MAX_BLOCKS`, `decode_all`, `check_checksum`) and
/// through a `Tablebase` over a source that serves the bytes as the table
/// of the sector the header names (listed and lazy), probing a few of its
/// positions. Never a panic; whatever reads succeed agree with each other.
pub fn table(bytes: &[u8]) {
    let decoded = read_table(bytes);
    let Some(sector) = header_sector(bytes) else {
        return;
    };
    for listed in [true, false] {
        through_tablebase(bytes, sector, listed, decoded.as_deref());
    }
}

/// The slots a check probes: the ends, the middle, past the end, and one
/// that depends on the bytes.
fn probe_slots(slots: u64, bytes: &[u8]) -> [u64; 8] {
    let tail = bytes.len().saturating_sub(4);
    let seed = bytes[tail..].iter().fold(0u64, |h, &b| h << 8 | b as u64);
    let inner = ((seed as u128 * slots as u128) >> 32) as u64;
    [
        0,
        1,
        slots / 2,
        inner,
        slots.saturating_sub(1),
        slots,
        slots.saturating_add(1),
        u64::MAX,
    ]
}

/// Reads everything a `Table` offers; the codes if the whole file decodes.
fn read_table(bytes: &[u8]) -> Option<Vec<u16>> {
    let table = Table::new(bytes).ok()?;
    let s = *table.summary();
    assert_eq!(s.bytes, bytes.len() as u64, "the length was checked");
    assert_eq!(
        s.slots,
        Indexer::get().slots(s.sector),
        "the slots were checked"
    );
    assert!(s.blocks >= 1 && s.block_slots >= 1);
    assert_eq!(table.sector(), s.sector);
    assert_eq!(table.slots(), s.slots);
    assert!(table.block_range(s.blocks).is_err());
    assert!(table.decode_block(s.blocks).is_err());
    assert!(table.decode_block(u32::MAX).is_err());

    let slots = probe_slots(s.slots, bytes);
    for &slot in &slots {
        match table.locate(slot) {
            Ok((block, i)) => {
                assert!(slot < s.slots, "slot {slot} of {} located", s.slots);
                assert!(block < s.blocks);
                assert!((i as u64) < s.slots_in_block(block));
            }
            Err(e) => {
                assert!(slot >= s.slots, "slot {slot} of {}: {e}", s.slots);
                assert!(matches!(e, FileError::SlotOutOfRange { .. }));
            }
        }
    }

    let mut blocks = Vec::new();
    for b in 0..s.blocks.min(MAX_BLOCKS) {
        let block = table.decode_block(b);
        if let Ok(block) = &block {
            assert_eq!(block.len() as u64, s.slots_in_block(b), "block {b}");
            assert_eq!(block.code(block.len()), None);
            let (start, end, _) = table.block_range(b).expect("a decoded block has a range");
            assert!(s.data_start() <= start && start <= end && end <= s.data_end());
        }
        blocks.push(block.ok());
    }

    let checksum = table.check_checksum();
    let all = table.decode_all().ok();
    if let Some(all) = &all {
        assert!(checksum.is_ok(), "decoded whole with a bad file checksum");
        assert_eq!(all.len() as u64, s.slots);
        for (b, block) in blocks.iter().enumerate() {
            let block = block
                .as_ref()
                .expect("a table that decodes whole decodes by block");
            let start = b * s.block_slots as usize;
            assert!((0..block.len()).all(|i| block.code(i) == Some(all[start + i])));
        }
    }
    for &slot in &slots {
        let Ok(code) = table.get(slot) else {
            assert!(all.is_none() || slot >= s.slots, "slot {slot} unread");
            continue;
        };
        assert!(slot < s.slots);
        if let Some(all) = &all {
            assert_eq!(code, all[slot as usize], "slot {slot}");
        }
        let (block, i) = table.locate(slot).expect("read, so located");
        if let Some(Some(decoded)) = blocks.get(block as usize) {
            assert_eq!(decoded.code(i), Some(code), "slot {slot}");
        }
    }
    all
}

/// The sector named by the header bytes, valid or not as a header.
fn header_sector(bytes: &[u8]) -> Option<Sector> {
    let b = bytes.get(16..20)?;
    let sector = Sector {
        stm_board: b[0],
        opp_board: b[1],
        stm_hand: b[2],
        opp_hand: b[3],
    };
    sector.is_valid().then_some(sector)
}

/// A source of one table held in memory.
struct OneTable {
    sector: Sector,
    bytes: Vec<u8>,
    listed: bool,
}

impl TableSource for OneTable {
    fn sectors(&self) -> Result<Option<Vec<Sector>>, ProbeError> {
        Ok(self.listed.then(|| vec![self.sector]))
    }

    fn open(&self, sector: Sector) -> Result<Option<Box<dyn Storage>>, FileError> {
        Ok((sector == self.sector).then(|| Box::new(self.bytes.clone()) as Box<dyn Storage>))
    }

    fn location(&self, sector: Sector) -> String {
        format!("memory/{}.mtb", sector.name())
    }

    fn describe(&self) -> String {
        "memory".into()
    }
}

/// The bytes as the table of `sector` in a tablebase: probes by slot and by
/// position agree with the table read directly (`decoded`, when the whole
/// file decodes).
fn through_tablebase(bytes: &[u8], sector: Sector, listed: bool, decoded: Option<&[u16]>) {
    let source = OneTable {
        sector,
        bytes: bytes.to_vec(),
        listed,
    };
    let tb = match Tablebase::from_source(source) {
        Ok(tb) => tb,
        Err(e) => {
            assert!(listed, "a lazy source opens without reading: {e}");
            assert!(decoded.is_none(), "a valid table refused: {e}");
            return;
        }
    };
    // A small cache for the lazy one: blocks are decoded again, or evicted.
    let tb = if listed {
        tb
    } else {
        tb.with_cache_bytes(1 << 16)
    };
    let ix = Indexer::get();
    let slots = ix.slots(sector);
    let header_ok = tb.summary(sector).is_ok();
    if decoded.is_some() {
        assert!(header_ok, "a valid table without a summary");
        assert!(tb.check_checksum(sector).is_ok());
    }
    let direct = Table::new(bytes).ok();
    for &slot in probe_slots(slots, bytes).iter() {
        let code = tb.code(sector, slot);
        match (decoded, &code) {
            (Some(all), Ok(code)) => assert_eq!(Some(code), all.get(slot as usize)),
            (Some(_), Err(e)) => assert!(slot >= slots, "slot {slot} of a valid table: {e}"),
            (None, _) => {}
        }
        // A damaged file too: what the tablebase reads is what the table holds.
        if let (Ok(code), Some(table)) = (&code, &direct) {
            assert_eq!(table.get(slot).ok(), Some(*code), "slot {slot}");
        }
        let Some(node) = ix.unindex(sector, slot).filter(|_| slot < slots) else {
            continue;
        };
        let pos = Position::from_node(node, node.side_by_hands());
        if pos.validate().is_err() {
            continue;
        }
        if let Some(all) = decoded {
            let node = pos.node();
            let expected = if tb.rules().is_lost(&node) {
                Some(Outcome::Loss(0))
            } else {
                // `None`: the position's own slot is a hole, an error.
                let code = all[ix.index(&node) as usize];
                match tb.rules().no_capture_limit {
                    None => Outcome::from_code(code),
                    // Rule tables answer `probe` at counter 0.
                    Some(_) => RuleOutcome::from_code(code).map(RuleOutcome::outcome),
                }
            };
            assert_eq!(tb.probe(&pos).ok(), expected, "{pos}");
        }
        if let Some(n) = tb.rules().no_capture_limit {
            // Any counter, in range or not, answers or errs; never panics.
            for c in [0, 1, n - 1, n, u16::MAX] {
                let value = tb.probe_counter(&pos, c);
                if c >= n {
                    assert!(value.is_err(), "{pos} counter {c}");
                }
                let _ = tb.probe_moves_counter(&pos, c);
            }
        }
        if let Ok(moves) = tb.probe_moves(&pos) {
            let legal = tb.rules().legal_moves(&pos);
            assert_eq!(moves.iter().map(|(m, _)| *m).collect::<Vec<_>>(), legal);
            let best = tb.best_moves(&pos).expect("the same probes again");
            assert!(best.iter().all(|m| legal.contains(m)));
            assert_eq!(best.is_empty(), legal.is_empty());
        }
    }
    if let Ok(all) = tb.sector_values(sector) {
        assert_eq!(
            Some(all.as_slice()),
            decoded,
            "decoded through the tablebase only"
        );
    }
    if header_ok {
        assert!(tb.sectors().any(|(s, _)| s == sector));
    }
}

/// UTF-8 text as a position (and as a sector name): what parses is valid
/// and prints to text that parses back to itself.
pub fn position(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = text.parse::<Position>();
    if let Ok(pos) = parsed {
        assert_eq!(pos.validate(), Ok(()));
        assert_eq!(pos.to_string().parse::<Position>(), Ok(pos), "{text:?}");
    }
    match Position::parse_unvalidated(text) {
        Ok(pos) => {
            let again = Position::parse_unvalidated(&pos.to_string());
            assert_eq!(again, Ok(pos), "{text:?}");
            assert_eq!(pos.validate().is_ok(), parsed.is_ok(), "{text:?}");
            if let Err(e) = pos.validate() {
                assert!(!e.to_string().is_empty());
            }
        }
        Err(e) => {
            assert!(parsed.is_err(), "{text:?} parses but not unvalidated: {e}");
            assert!(!e.to_string().is_empty());
        }
    }
    if let Ok(sector) = text.parse::<Sector>() {
        assert!(sector.is_valid());
        assert_eq!(sector.name(), text);
    }
}

/// A position text and a move text, on the first line and the rest: both
/// parse or are refused; `Rules::play` refuses the move or gives a valid
/// position; the legal moves of a valid position print and parse back to
/// themselves and each plays to a valid position. Under both rule sets.
pub fn moves(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pos_text, move_text) = text.split_once('\n').unwrap_or((text, ""));
    let mv = move_text.parse::<Move>();
    match &mv {
        Ok(m) => assert_eq!(m.to_string().parse::<Move>(), Ok(*m), "{move_text:?}"),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    let Ok(pos) = pos_text.parse::<Position>() else {
        // Positions no game reaches still never make the rules panic.
        if let Ok(pos) = Position::parse_unvalidated(pos_text) {
            for rules in RULES {
                let _ = rules.legal_moves(&pos);
                let _ = rules.is_lost(&pos.node());
                if let Ok(m) = mv {
                    let _ = rules.play(&pos, m);
                }
            }
        }
        return;
    };
    for rules in RULES {
        let legal = rules.legal_moves(&pos);
        let mut distinct = legal.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), legal.len(), "a move listed twice in {pos}");
        assert_eq!(rules.is_lost(&pos.node()), legal.is_empty(), "{pos}");
        for &m in &legal {
            assert_eq!(m.to_string().parse::<Move>(), Ok(m), "{pos}: {m}");
            let next = rules.play(&pos, m).expect("a legal move plays");
            assert_eq!(next.validate(), Ok(()), "{pos}: {m} gives {next}");
            assert_eq!(next.side, pos.side.opponent());
        }
        if let Ok(m) = mv {
            match rules.play(&pos, m) {
                Ok(next) => {
                    assert!(legal.contains(&m), "{pos}: {m} played but not legal");
                    assert_eq!(next.validate(), Ok(()), "{pos}: {m} gives {next}");
                }
                Err(e) => {
                    assert!(!legal.contains(&m), "{pos}: legal {m} refused");
                    assert_eq!(e, MoveError::Illegal(m));
                }
            }
        }
    }
}
