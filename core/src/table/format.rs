//! The byte layout of a table file: header, block index, trailer, and the
//! O(1) checks a reader makes on open. `docs/format.md` has the same layout
//! as a table.

use crate::error::FileError;
use crate::index::{count_positions, Indexer, MOVER_MAJOR, OPPONENT_MAJOR};
use crate::play::PlaySide;
use crate::rules::{Rules, MAX_NO_CAPTURE_LIMIT};
use crate::sector::Sector;

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"MOULINTB";
/// The newest format version this crate reads and writes. Distance tables
/// and WDL tables without the rule are written in version 1, as they always
/// were; a play set's distance tables (`FLAG_WINS`, `FLAG_LOSSES`) and outcome tables
/// under the no-capture rule (`Encoding::RuleOutcomes`) in version 2, which
/// a reader of version 1 refuses by its version number; a play set's
/// distance table of both sides (both flags) in version 3, which readers
/// of versions 1 and 2 refuse.
pub const VERSION: u16 = 3;
/// Bytes of the fixed header.
pub const HEADER_LEN: usize = 128;
/// Bytes of one block index entry: end offset (u64) and CRC32 (u32).
pub const INDEX_ENTRY_LEN: usize = 12;
/// The four bytes before the file checksum.
pub const END_MAGIC: [u8; 4] = *b"MTBE";
/// Bytes of the trailer: `END_MAGIC` and the CRC32 of everything before it.
pub const TRAILER_LEN: usize = 8;
/// Largest decompressed block the reader accepts, so that a damaged header
/// cannot make it allocate much.
pub const MAX_BLOCK_BYTES: u64 = 1 << 20;
/// Rule flag bit 0: flying.
const FLAG_FLYING: u32 = 1;
/// Rule flag bit 1: the no-capture rule. Its limit is the u16 at byte 112,
/// the codes are rule codes (`RuleOutcome::code`), and bytes 116..124 hold
/// the class counts of cursed wins and blessed losses (u32 each).
const FLAG_NO_CAPTURE: u32 = 2;
/// Rule flag bit 2: a WDL table, outcomes only (`Encoding::Wdl`), beside the
/// distance table of the same sector and rules.
const FLAG_WDL: u32 = 4;
/// Rule flag bit 3: a play set's distance table of won positions: the
/// distance of each position its mover wins (a win or, under the rule, a
/// cursed win), any symbol elsewhere (see `crate::play`). Format version 2.
const FLAG_WINS: u32 = 8;
/// Rule flag bit 4: a play set's distance table of lost positions (a loss
/// or, under the rule, a blessed loss), as bit 3. Format version 2. Bits 3
/// and 4 together: the distances of both (`PlaySide::Both`), version 3.
const FLAG_LOSSES: u32 = 16;
/// Byte 23: the index scheme numbering the slots: 0, opponent-major
/// (`index::OPPONENT_MAJOR`, every table of the solver), or 1, mover-major
/// (`index::MOVER_MAJOR`, a play set's tables), both defined in
/// `docs/format.md`; a reader refuses any other as an unsupported feature.
pub const INDEX_SCHEME: u8 = crate::index::OPPONENT_MAJOR;
/// "No win / no loss" in the longest-distance fields.
const NONE_DISTANCE: u16 = u16::MAX;

/// How the codes of a block are laid out before compression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// One byte per slot: the code, `0xFF` for a hole (every code is below 255).
    U8,
    /// Two bytes per slot, little-endian codes.
    U16,
    /// Two bytes per slot, in two planes per block: every low byte, then every
    /// high byte (the high bytes are mostly zero and compress away).
    U16Planes,
    /// WDL tables: two bits per slot, four slots a byte (slot `4k + j` in
    /// bits `2j..2j + 2` of byte `k`): 0 a draw, 1 a win, 2 a loss; a hole
    /// holds the value of the slot before it (0 at the start of a block), as
    /// no probe reads it.
    Wdl,
    /// Outcome tables under the no-capture rule: five outcomes
    /// (`RuleOutcome::outcome_code`: 0 a draw, 1 a win, 2 a loss, 3 a cursed
    /// win, 4 a blessed loss), three slots a byte (slot `3k + j` is the
    /// digit `j` of byte `k` in base 5, so every byte is below 125); a hole
    /// holds the value before it, as in `Wdl`. Format version 2.
    RuleOutcomes,
    /// A play set's distance table: a block covers the slots of its outcome
    /// table's block (the same `block_slots`) and holds one byte, the
    /// symbol, per slot whose outcome there is of the stored side, in slot
    /// order, and nothing for the others. So a block is as long as the
    /// stored side's slots in the outcome block (a hole the outcome table
    /// fills with such an outcome has the symbol before it, 0 at the start
    /// of the block), and the symbol of a slot is found at its rank among
    /// them. Format version 2.
    Dense,
}

/// What a table file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableKind {
    /// Every position's value with its distance (`<sector>.mtb`).
    Distances,
    /// Outcomes only (`<sector>.mtw`): WDL tables without the rule, five
    /// outcomes under it.
    Outcomes,
    /// A play set's distances (`<sector>.mtd`), beside its outcome tables:
    /// those of the positions whose mover wins, or of those it loses
    /// (`PlaySide`).
    PlayDistances,
}

impl TableKind {
    /// The file extension of the kind.
    pub fn extension(self) -> &'static str {
        match self {
            TableKind::Distances => super::EXTENSION,
            TableKind::Outcomes => super::WDL_EXTENSION,
            TableKind::PlayDistances => super::PLAY_EXTENSION,
        }
    }

    /// The kind in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            TableKind::Distances => "a distance table",
            TableKind::Outcomes => "an outcome (WDL) table",
            TableKind::PlayDistances => "a play set's distance table",
        }
    }
}

impl Encoding {
    /// The encoding of an outcome table under `rules`: two bits a slot
    /// without the no-capture rule, five outcomes in base 5 under it.
    pub fn of_outcomes(rules: &Rules) -> Encoding {
        match rules.no_capture_limit {
            Some(_) => Encoding::RuleOutcomes,
            None => Encoding::Wdl,
        }
    }

    /// Header byte 20: bytes per slot (0 for the quarter byte of `Wdl`).
    pub fn width(self) -> u8 {
        match self {
            Encoding::U8 | Encoding::Dense => 1,
            Encoding::U16 | Encoding::U16Planes => 2,
            Encoding::Wdl | Encoding::RuleOutcomes => 0,
        }
    }

    /// Bytes that `slots` slots take decoded.
    pub fn bytes_for(self, slots: u64) -> u64 {
        match self {
            Encoding::Wdl => slots.div_ceil(4),
            Encoding::RuleOutcomes => slots.div_ceil(3),
            _ => slots * self.width() as u64,
        }
    }

    /// Slots that `bytes` decoded bytes hold (whole slots).
    pub fn slots_in(self, bytes: u64) -> u64 {
        match self {
            Encoding::Wdl => bytes * 4,
            Encoding::RuleOutcomes => bytes * 3,
            _ => bytes / self.width() as u64,
        }
    }

    fn to_byte(self) -> u8 {
        match self {
            Encoding::U8 => 0,
            Encoding::U16 => 1,
            Encoding::U16Planes => 2,
            Encoding::Wdl => 3,
            Encoding::RuleOutcomes => 4,
            Encoding::Dense => 5,
        }
    }

    fn from_byte(byte: u8) -> Option<Encoding> {
        match byte {
            0 => Some(Encoding::U8),
            1 => Some(Encoding::U16),
            2 => Some(Encoding::U16Planes),
            3 => Some(Encoding::Wdl),
            4 => Some(Encoding::RuleOutcomes),
            5 => Some(Encoding::Dense),
            _ => None,
        }
    }
}

/// Win, loss and draw counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Positions the player to move wins.
    pub win: u64,
    /// Positions the player to move loses.
    pub loss: u64,
    /// Drawn positions.
    pub draw: u64,
}

impl Counts {
    /// Wins, losses and draws together.
    pub fn total(&self) -> u64 {
        self.win + self.loss + self.draw
    }
}

/// What the header of a table says: the sector, the rules, the counts and
/// the layout. Reading it costs no decompression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableSummary {
    /// The sector of the table.
    pub sector: Sector,
    /// The rule options it was solved under.
    pub rules: Rules,
    /// Slots (symmetry classes and holes).
    pub slots: u64,
    /// Outcomes over symmetry classes (one per stored slot).
    pub classes: Counts,
    /// Outcomes over all positions, every symmetric copy counted.
    pub positions: Counts,
    /// Slots that are holes (see `index`).
    pub holes: u64,
    /// Longest win in turns, if any position is won (under the no-capture
    /// rule: the longest DTC of a win at counter 0).
    pub max_win: Option<u16>,
    /// Longest loss in turns, if any position is lost (under the rule: the
    /// longest DTC of a loss at counter 0).
    pub max_loss: Option<u16>,
    /// Under the no-capture rule, classes won without the rule but drawn
    /// under it at counter 0 (counted among the draws of `classes`); 0
    /// without the rule.
    pub cursed_wins: u64,
    /// Under the no-capture rule, classes lost without the rule but drawn
    /// under it at counter 0 (counted among the draws); 0 without the rule.
    pub blessed_losses: u64,
    /// A WDL table: outcomes only (`Encoding::Wdl`, or
    /// `Encoding::RuleOutcomes` under the rule); the counts and longest
    /// distances are those of the distance table it was written from.
    pub wdl: bool,
    /// A play set's distance table: the side whose distances it holds
    /// (`None` for other tables); the counts and longest distances are
    /// those of the distance table it was written from.
    pub play: Option<PlaySide>,
    /// Layout of the values.
    pub encoding: Encoding,
    /// Slots per block (the last block may be shorter).
    pub block_slots: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// zstd level the blocks were compressed with (informational).
    pub level: i32,
    /// Length of the file in bytes.
    pub bytes: u64,
    /// The index scheme numbering its slots (`index::OPPONENT_MAJOR` or
    /// `index::MOVER_MAJOR`).
    pub scheme: u8,
}

impl TableSummary {
    /// What the file holds.
    pub fn kind(&self) -> TableKind {
        match (self.wdl, self.play) {
            (true, _) => TableKind::Outcomes,
            (false, Some(_)) => TableKind::PlayDistances,
            (false, None) => TableKind::Distances,
        }
    }

    /// The format version of the file: 3 for a play set's distance table
    /// of both sides, 2 for the kinds version 2 introduced (a play set's
    /// distance table of one side, an outcome table under the rule), else 1.
    pub fn version(&self) -> u16 {
        if self.play == Some(PlaySide::Both) {
            3
        } else if self.play.is_some() || (self.wdl && self.rules.no_capture_limit.is_some()) {
            2
        } else {
            1
        }
    }

    /// Offset of the first compressed block.
    pub fn data_start(&self) -> u64 {
        HEADER_LEN as u64 + self.blocks as u64 * INDEX_ENTRY_LEN as u64
    }

    /// Offset of the trailer (the end of the last block).
    pub fn data_end(&self) -> u64 {
        self.bytes - TRAILER_LEN as u64
    }

    /// Slots in a block.
    pub fn slots_in_block(&self, block: u32) -> u64 {
        let start = block as u64 * self.block_slots as u64;
        (self.slots - start).min(self.block_slots as u64)
    }

    /// Serialises the header, its own CRC32 included.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&self.version().to_le_bytes());
        h[10..12].copy_from_slice(&(HEADER_LEN as u16).to_le_bytes());
        let mut flags = if self.rules.flying { FLAG_FLYING } else { 0 };
        if self.rules.no_capture_limit.is_some() {
            flags |= FLAG_NO_CAPTURE;
        }
        if self.wdl {
            flags |= FLAG_WDL;
        }
        match self.play {
            Some(PlaySide::Wins) => flags |= FLAG_WINS,
            Some(PlaySide::Losses) => flags |= FLAG_LOSSES,
            Some(PlaySide::Both) => flags |= FLAG_WINS | FLAG_LOSSES,
            None => {}
        }
        h[12..16].copy_from_slice(&flags.to_le_bytes());
        let s = self.sector;
        h[16..20].copy_from_slice(&[s.stm_board, s.opp_board, s.stm_hand, s.opp_hand]);
        h[20] = self.encoding.width();
        h[21] = self.encoding.to_byte();
        h[23] = self.scheme;
        h[24..28].copy_from_slice(&self.block_slots.to_le_bytes());
        h[28..32].copy_from_slice(&self.blocks.to_le_bytes());
        let words = [
            self.slots,
            self.bytes,
            self.classes.win,
            self.classes.loss,
            self.classes.draw,
            self.holes,
            self.positions.win,
            self.positions.loss,
            self.positions.draw,
        ];
        for (i, w) in words.iter().enumerate() {
            h[32 + 8 * i..40 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        h[104..106].copy_from_slice(&self.max_win.unwrap_or(NONE_DISTANCE).to_le_bytes());
        h[106..108].copy_from_slice(&self.max_loss.unwrap_or(NONE_DISTANCE).to_le_bytes());
        h[108..112].copy_from_slice(&self.level.to_le_bytes());
        if let Some(n) = self.rules.no_capture_limit {
            h[112..114].copy_from_slice(&n.to_le_bytes());
            // Slots fit 32 bits (the index ranks them in a u32).
            h[116..120].copy_from_slice(&(self.cursed_wins as u32).to_le_bytes());
            h[120..124].copy_from_slice(&(self.blessed_losses as u32).to_le_bytes());
        }
        let crc = crc32fast::hash(&h[..HEADER_LEN - 4]);
        h[HEADER_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
        h
    }

    /// Parses and checks a header: magic, version, its CRC32, and that every
    /// field agrees with the others and with the index of the sector. `bytes`
    /// is the start of the file (at least the header). Does not look at the
    /// actual file length; the caller compares it with `self.bytes`.
    ///
    /// # Errors
    /// [`FileError::BadMagic`], [`FileError::Version`],
    /// [`FileError::Unsupported`], [`FileError::Length`] for fewer bytes
    /// than a header, [`FileError::ChecksumMismatch`] for the header's CRC,
    /// [`FileError::Corrupt`] for fields that disagree.
    pub fn parse(bytes: &[u8]) -> Result<TableSummary, FileError> {
        if bytes.len() < MAGIC.len() || bytes[..8] != MAGIC {
            return Err(FileError::BadMagic);
        }
        if bytes.len() < 12 {
            return Err(FileError::Length {
                expected: HEADER_LEN as u64,
                got: bytes.len() as u64,
            });
        }
        let version = u16_at(bytes, 8);
        if !(1..=VERSION).contains(&version) {
            return Err(FileError::Version {
                expected: VERSION,
                got: version,
            });
        }
        if u16_at(bytes, 10) as usize != HEADER_LEN {
            return Err(corrupt(format!("header length {}", u16_at(bytes, 10))));
        }
        if bytes.len() < HEADER_LEN {
            return Err(FileError::Length {
                expected: HEADER_LEN as u64,
                got: bytes.len() as u64,
            });
        }
        let h = &bytes[..HEADER_LEN];
        let stored = u32_at(h, HEADER_LEN - 4);
        let computed = crc32fast::hash(&h[..HEADER_LEN - 4]);
        if stored != computed {
            return Err(FileError::ChecksumMismatch {
                part: "the header".into(),
                expected: stored,
                got: computed,
            });
        }
        let summary = TableSummary::fields(h)?;
        if summary.version() != version {
            return Err(corrupt(format!(
                "{} of format version {} says version {version}",
                summary.kind().describe(),
                summary.version()
            )));
        }
        summary.check()?;
        Ok(summary)
    }

    fn fields(h: &[u8]) -> Result<TableSummary, FileError> {
        let flags = u32_at(h, 12);
        if flags & !(FLAG_FLYING | FLAG_NO_CAPTURE | FLAG_WDL | FLAG_WINS | FLAG_LOSSES) != 0 {
            // The header's CRC held: a newer writer's rule option, not damage.
            return Err(FileError::Unsupported(format!(
                "rule flags {flags:#x} (this reader knows bit 0, flying, bit 1, \
                 the no-capture rule, bit 2, outcome tables, bits 3 and 4, a play set's \
                 distance tables)"
            )));
        }
        if h[23] > MOVER_MAJOR {
            return Err(FileError::Unsupported(format!(
                "index scheme {} (this reader knows schemes {OPPONENT_MAJOR} and {MOVER_MAJOR})",
                h[23]
            )));
        }
        let wdl = flags & FLAG_WDL != 0;
        let play = match (flags & FLAG_WINS != 0, flags & FLAG_LOSSES != 0) {
            (false, false) => None,
            (true, false) => Some(PlaySide::Wins),
            (false, true) => Some(PlaySide::Losses),
            (true, true) => Some(PlaySide::Both),
        };
        if wdl && play.is_some() {
            return Err(corrupt(
                "both an outcome table and a play set's distance table".into(),
            ));
        }
        let rule = flags & FLAG_NO_CAPTURE != 0;
        let limit = u16_at(h, 112);
        if rule && !(1..=MAX_NO_CAPTURE_LIMIT).contains(&limit) {
            return Err(FileError::Unsupported(format!(
                "no-capture limit {limit} (this reader knows 1 to {MAX_NO_CAPTURE_LIMIT})"
            )));
        }
        let rule_bytes = if rule { &h[114..116] } else { &h[112..124] };
        let sector = Sector {
            stm_board: h[16],
            opp_board: h[17],
            stm_hand: h[18],
            opp_hand: h[19],
        };
        if !sector.is_valid() {
            return Err(corrupt(format!(
                "sector bytes {:?} are not a sector of the game",
                &h[16..20]
            )));
        }
        let encoding = Encoding::from_byte(h[21])
            .filter(|e| e.width() == h[20])
            .ok_or_else(|| corrupt(format!("unknown encoding {} of width {}", h[21], h[20])))?;
        let fits = match encoding {
            Encoding::Wdl => wdl && !rule,
            Encoding::RuleOutcomes => wdl && rule,
            Encoding::U8 | Encoding::U16 | Encoding::U16Planes => !wdl,
            Encoding::Dense => !wdl && play.is_some(),
        };
        if !fits {
            return Err(corrupt(format!(
                "encoding {} in {}{}",
                h[21],
                if wdl {
                    "an outcome table"
                } else {
                    "a distance table"
                },
                if rule {
                    " under the no-capture rule"
                } else {
                    ""
                }
            )));
        }
        if h[22] != 0
            || rule_bytes.iter().any(|&b| b != 0)
            || h[124..HEADER_LEN - 4].iter().any(|&b| b != 0)
        {
            return Err(corrupt("reserved header bytes are not zero".into()));
        }
        let word = |i: usize| u64_at(h, 32 + 8 * i);
        let distance = |at: usize| Some(u16_at(h, at)).filter(|&d| d != NONE_DISTANCE);
        Ok(TableSummary {
            sector,
            rules: Rules {
                flying: flags & FLAG_FLYING != 0,
                no_capture_limit: rule.then_some(limit),
            },
            wdl,
            play,
            encoding,
            block_slots: u32_at(h, 24),
            blocks: u32_at(h, 28),
            slots: word(0),
            bytes: word(1),
            classes: Counts {
                win: word(2),
                loss: word(3),
                draw: word(4),
            },
            holes: word(5),
            positions: Counts {
                win: word(6),
                loss: word(7),
                draw: word(8),
            },
            max_win: distance(104),
            max_loss: distance(106),
            cursed_wins: if rule { u32_at(h, 116) as u64 } else { 0 },
            blessed_losses: if rule { u32_at(h, 120) as u64 } else { 0 },
            level: i32::from_le_bytes(h[108..112].try_into().expect("4 bytes")),
            scheme: h[23],
        })
    }

    /// The consistency checks of `parse` on the decoded fields.
    fn check(&self) -> Result<(), FileError> {
        let slots = Indexer::get().slots_in(self.sector, self.scheme);
        if self.slots != slots {
            let numbering = match self.scheme {
                MOVER_MAJOR => " numbered mover-major",
                _ => "",
            };
            return Err(corrupt(format!(
                "{} slots, but sector {}{numbering} has {slots}",
                self.slots, self.sector
            )));
        }
        let block_bytes = self.encoding.bytes_for(self.block_slots as u64);
        if self.block_slots == 0 || block_bytes > MAX_BLOCK_BYTES {
            return Err(corrupt(format!("block of {} slots", self.block_slots)));
        }
        if self.blocks as u64 != slots.div_ceil(self.block_slots as u64) {
            return Err(corrupt(format!(
                "{} blocks of {} slots for {slots} slots",
                self.blocks, self.block_slots
            )));
        }
        let min_len = self.data_start() + TRAILER_LEN as u64;
        if self.bytes < min_len {
            return Err(corrupt(format!(
                "file length {} is less than header, index and trailer ({min_len})",
                self.bytes
            )));
        }
        let classes = self.classes.win as u128 + self.classes.loss as u128;
        if classes + self.classes.draw as u128 + self.holes as u128 != slots as u128 {
            return Err(corrupt("class counts do not add up to the slots".into()));
        }
        let positions = self.positions.win as u128 + self.positions.loss as u128;
        if positions + self.positions.draw as u128 != count_positions(self.sector) as u128 {
            return Err(corrupt(
                "position counts do not add up to the positions of the sector".into(),
            ));
        }
        // Without the rule a win's distance is odd and a loss's even; a
        // distance to conversion has no parity.
        let rule = self.rules.no_capture_limit.is_some();
        let parity_ok = |d: Option<u16>, count: u64, odd: bool| match d {
            None => count == 0,
            Some(d) => count > 0 && (rule || (d % 2 == 1) == odd),
        };
        if self.cursed_wins as u128 + self.blessed_losses as u128 > self.classes.draw as u128 {
            return Err(corrupt(
                "more cursed wins and blessed losses than draws".into(),
            ));
        }
        if !parity_ok(self.max_win, self.classes.win, true)
            || !parity_ok(self.max_loss, self.classes.loss, false)
            || (self.classes.win == 0) != (self.positions.win == 0)
            || (self.classes.loss == 0) != (self.positions.loss == 0)
            || (self.classes.draw == 0) != (self.positions.draw == 0)
        {
            return Err(corrupt(
                "longest win/loss disagree with the outcome counts".into(),
            ));
        }
        let one_byte = if rule { 64 } else { 254 };
        // A distance table stores its own symbols (`crate::play`).
        if self.play.is_none()
            && self.encoding == Encoding::U8
            && self.max_win.max(self.max_loss) >= Some(one_byte)
        {
            return Err(corrupt("one-byte values with distances beyond 253".into()));
        }
        Ok(())
    }
}

/// Shorthand for `FileError::Corrupt`.
pub fn corrupt(what: String) -> FileError {
    FileError::Corrupt(what)
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// The little-endian u32 at `at` (the caller checked the bounds).
///
/// # Panics
/// If `b` has fewer than `at + 4` bytes.
pub fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// The little-endian u64 at `at` (the caller checked the bounds).
///
/// # Panics
/// If `b` has fewer than `at + 8` bytes.
pub fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}
