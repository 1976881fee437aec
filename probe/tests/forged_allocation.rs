//! Forged files with valid checksums: a 7 KB file whose header claims the
//! largest sector (8v8, 6e8 slots) must not make the reader allocate what the
//! header claims. Memory grows only with blocks that were read, checked and
//! decoded. A counting allocator measures the peak of this test binary.

use moulin_core::index::{count_positions, Indexer};
use moulin_core::table::format::{Counts, Encoding, TableSummary, HEADER_LEN, INDEX_ENTRY_LEN};
use moulin_core::table::read::block_crc;
use moulin_core::table::Table;
use moulin_probe::{Rules, Sector};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A header for 8v8 with one-byte values in 1 MiB blocks, consistent with
/// itself, an index of empty blocks with valid CRCs, and a valid trailer.
fn forged() -> Vec<u8> {
    let sector = Sector::moving(8, 8);
    let slots = Indexer::get().slots(sector);
    let block_slots = 1u32 << 20;
    let blocks = slots.div_ceil(block_slots as u64) as u32;
    let data_start = (HEADER_LEN + blocks as usize * INDEX_ENTRY_LEN) as u64;
    let summary = TableSummary {
        sector,
        rules: Rules::default(),
        slots,
        classes: Counts {
            win: 0,
            loss: 0,
            draw: slots,
        },
        positions: Counts {
            win: 0,
            loss: 0,
            draw: count_positions(sector),
        },
        holes: 0,
        max_win: None,
        max_loss: None,
        cursed_wins: 0,
        blessed_losses: 0,
        wdl: false,
        play: None,
        encoding: Encoding::U8,
        block_slots,
        blocks,
        level: 19,
        bytes: data_start + 8,
        scheme: 0,
    };
    let mut file = summary.to_bytes().to_vec();
    for block in 0..blocks {
        file.extend(data_start.to_le_bytes());
        file.extend(block_crc(block, &[]).to_le_bytes());
    }
    file.extend(b"MTBE");
    let crc = crc32fast::hash(&file);
    file.extend(crc.to_le_bytes());
    file
}

#[test]
fn a_forged_header_does_not_allocate_what_it_claims() {
    let file = forged();
    assert!(file.len() < 8 << 10, "{} bytes", file.len());
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let table = Table::new(file.as_slice()).expect("the forged header is consistent");
    assert!(table.summary().slots > 500_000_000);
    assert!(table.check_checksum().is_ok(), "valid checksums");
    assert!(table.decode_all().is_err(), "empty blocks are not values");
    assert!(table.get(12345).is_err());
    let peak = PEAK.load(Ordering::Relaxed) - before;
    // One block's bound (1 MiB) and the first block's slots, never 600 MB.
    assert!(peak < 4 << 20, "peak allocation {peak} bytes");
}
