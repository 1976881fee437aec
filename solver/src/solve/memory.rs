//! The solver's big arrays: one slot word per position of a pair, the codes
//! of the sectors captures lead into. Their accesses are random across
//! gigabytes, so every one would also miss the TLB with 4 KiB pages; on Linux
//! the arrays ask for transparent huge pages (2 MiB): up to 6 stones a side
//! the levels ran 10 % faster with them (8.2 s against 9.1 s on 6v6, machine
//! idle, `MOULIN_TRACE=1 moulin solve --max-stones 6`). Elsewhere, or when
//! the kernel says no, they are plain vectors.

use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Elements filled per parallel task.
const CHUNK: usize = 1 << 16;

/// A vector of `n` elements, `fill(i)` at `i`, filled in parallel, in memory
/// that asks for huge pages before its first touch.
pub fn huge_vec<T: Send>(n: usize, fill: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise_huge_pages(v.as_mut_ptr().cast(), n * std::mem::size_of::<T>());
    v.spare_capacity_mut()[..n]
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            for (k, x) in chunk.iter_mut().enumerate() {
                *x = MaybeUninit::new(fill(c * CHUNK + k));
            }
        });
    // SAFETY: the loop above initialised each of the first `n` elements
    // (`par_chunks_mut` covers the slice exactly once), and `n <= capacity`.
    unsafe { v.set_len(n) };
    v
}

/// `n` zeros in memory that asks for huge pages before its first touch,
/// which the system zeroes: for a caller that overwrites every element
/// (in parallel) anyway.
pub fn huge_zeroed(n: usize) -> Vec<u16> {
    let mut v = vec![0u16; n];
    advise_huge_pages(v.as_mut_ptr().cast(), n * std::mem::size_of::<u16>());
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    // Only whole huge pages inside the allocation can be advised.
    let first = (start as usize).next_multiple_of(HUGE);
    let end = (start as usize + len) / HUGE * HUGE;
    if end > first {
        // SAFETY: the range lies inside one live allocation owned by the
        // caller; MADV_HUGEPAGE changes how pages are backed, never their
        // contents. A refusal (old kernel, THP disabled) is harmless.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: *mut u8, _: usize) {}

/// This process's resident memory now and at its peak, in KiB (`VmRSS` and
/// `VmHWM` of `/proc/self/status`), where the system tells them.
pub fn resident_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// With `MOULIN_TRACE` set, prints the resident memory now and at its peak
/// after `what`, beside the bytes the budget counted for it.
pub fn trace_resident(what: &str, counted: u64) {
    if std::env::var_os("MOULIN_TRACE").is_none() {
        return;
    }
    if let Some((now, peak)) = resident_kib() {
        eprintln!(
            "{what}: resident {} MiB, peak {} MiB, counted {} MiB",
            now >> 10,
            peak >> 10,
            counted >> 20
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_every_element_in_order() {
        for n in [0, 1, CHUNK - 1, CHUNK, 3 * CHUNK + 7, (5 << 20) + 3] {
            let v = huge_vec(n, |i| i as u32 ^ 0x5555);
            assert_eq!(v.len(), n);
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 ^ 0x5555));
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn resident_memory_counts_a_touched_allocation() {
        // Other tests allocate and free beside this one, so only what this
        // one holds is certain: 64 MiB touched and alive are resident.
        let v = huge_vec(64 << 20, |i| i as u8);
        let (now, peak) = resident_kib().expect("linux tells");
        assert!(now >= 64 << 10, "{now} KiB resident with 64 MiB touched");
        assert!(peak >= now, "peak {peak} KiB below {now} KiB");
        assert_eq!(v[(64 << 20) - 1], ((64 << 20) - 1) as u8);
        drop(v);
    }
}
