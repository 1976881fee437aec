//! The disk cache of blocks read over HTTP: one file per block, named by a
//! hash of its key (URL, file length, entity tag, offset, length) and
//! holding the key itself, so that a file is only ever taken for its own
//! key. Its users check each block's checksum before writing it and after
//! reading it back. Failures of the cache (a full disk, a directory
//! removed) never fail a probe: the block is fetched again.

use super::range::BlockCache;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::SystemTime;

const MAGIC: &[u8; 8] = b"MOULINC1";
const SUFFIX: &str = "blk";

/// Blocks on disk, at most about `bound` bytes of them.
pub(super) struct DiskCache {
    dir: PathBuf,
    bound: u64,
    /// Bytes in the cache as this process counts them (other processes
    /// sharing the directory are counted at the next eviction's scan).
    used: Mutex<u64>,
}

/// A 64-bit FNV-1a hash: stable across builds, unlike `std`'s hasher.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Every entry of the cache with its size and last use.
fn entries(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let mut found = Vec::new();
    let Ok(subdirs) = fs::read_dir(dir) else {
        return found;
    };
    for sub in subdirs.flatten() {
        let Ok(files) = fs::read_dir(sub.path()) else {
            continue;
        };
        for file in files.flatten() {
            let path = file.path();
            if path.extension().is_none_or(|e| e != SUFFIX) {
                continue;
            }
            if let Ok(meta) = file.metadata() {
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                found.push((path, meta.len(), used));
            }
        }
    }
    found
}

impl DiskCache {
    /// The cache in `dir`, created if missing.
    pub(super) fn open(dir: &Path, bound: u64) -> io::Result<DiskCache> {
        fs::create_dir_all(dir)?;
        let used = entries(dir).iter().map(|e| e.1).sum();
        let cache = DiskCache {
            dir: dir.to_path_buf(),
            bound,
            used: Mutex::new(used),
        };
        if used > bound {
            cache.evict();
        }
        Ok(cache)
    }

    fn path(&self, key: &str) -> PathBuf {
        let hash = format!("{:016x}", fnv(key));
        self.dir
            .join(&hash[..2])
            .join(format!("{}.{SUFFIX}", &hash[2..]))
    }

    /// Deletes the entries used longest ago until the cache holds three
    /// quarters of its bound (so that evictions, which list the directory,
    /// are rare).
    fn evict(&self) {
        let mut all = entries(&self.dir);
        all.sort_by_key(|e| e.2);
        let mut total: u64 = all.iter().map(|e| e.1).sum();
        let target = self.bound / 4 * 3;
        for (path, size, _) in all {
            if total <= target {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                total -= size;
            }
        }
        *self.used.lock().unwrap_or_else(|e| e.into_inner()) = total;
    }
}

impl BlockCache for DiskCache {
    /// Fills `buf` from the entry of `key`: whether there was one, of the
    /// right key and length.
    fn get(&self, key: &str, buf: &mut [u8]) -> bool {
        let path = self.path(key);
        let Ok(bytes) = fs::read(&path) else {
            return false;
        };
        let head = MAGIC.len() + 4 + key.len();
        let matches = bytes.len() == head + buf.len()
            && bytes.starts_with(MAGIC)
            && bytes[MAGIC.len()..MAGIC.len() + 4] == (key.len() as u32).to_le_bytes()
            && &bytes[MAGIC.len() + 4..head] == key.as_bytes();
        if !matches {
            return false;
        }
        buf.copy_from_slice(&bytes[head..]);
        // Marks the entry as used now, for eviction (best effort).
        if let Ok(file) = fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(SystemTime::now());
        }
        true
    }

    /// Deletes the entry of `key` (a damaged or stale one).
    fn remove(&self, key: &str) {
        let path = self.path(key);
        if let Ok(meta) = fs::metadata(&path) {
            if fs::remove_file(&path).is_ok() {
                let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
                *used = used.saturating_sub(meta.len());
            }
        }
    }

    /// Keeps `data` as the entry of `key`, then evicts the entries used
    /// longest ago if the cache is over its bound.
    fn put(&self, key: &str, data: &[u8]) {
        static UNIQUE: AtomicU64 = AtomicU64::new(0);
        let path = self.path(key);
        let mut entry = Vec::with_capacity(MAGIC.len() + 4 + key.len() + data.len());
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(&(key.len() as u32).to_le_bytes());
        entry.extend_from_slice(key.as_bytes());
        entry.extend_from_slice(data);
        if entry.len() as u64 > self.bound {
            return;
        }
        // Written beside, then renamed: a reader never sees half an entry.
        let temporary = path.with_extension(format!(
            "{}.{}.tmp",
            std::process::id(),
            UNIQUE.fetch_add(1, Ordering::Relaxed)
        ));
        let written = path
            .parent()
            .map_or(Ok(()), fs::create_dir_all)
            .and_then(|()| fs::write(&temporary, &entry))
            .and_then(|()| fs::rename(&temporary, &path));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
            return;
        }
        let over = {
            let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
            *used += entry.len() as u64;
            *used > self.bound
        };
        if over {
            self.evict();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_checks_and_evicts_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path(), 1000).unwrap();
        let mut buf = [0u8; 100];
        assert!(!cache.get("a", &mut buf));
        cache.put("a", &[7; 100]);
        assert!(cache.get("a", &mut buf));
        assert_eq!(buf, [7; 100]);
        // Another length or key is not this entry.
        assert!(!cache.get("a", &mut [0u8; 99]));
        assert!(!cache.get("b", &mut buf));
        // A damaged entry (cut short) is not taken.
        let path = cache.path("a");
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(!cache.get("a", &mut buf));
        cache.remove("a");
        assert!(!path.exists());
        // Twenty entries of about 113 bytes under a bound of 1000: the
        // oldest go, the newest stay, the total stays under the bound.
        for i in 0..20 {
            // File times are coarse: apart, so that their order is sure.
            std::thread::sleep(std::time::Duration::from_millis(10));
            cache.put(&format!("k{i}"), &[i as u8; 100]);
        }
        let total: u64 = entries(dir.path()).iter().map(|e| e.1).sum();
        assert!(total <= 1000, "{total}");
        assert!(cache.get("k19", &mut buf));
        assert_eq!(buf, [19; 100]);
        assert!(!cache.get("k0", &mut buf));
        // Reopening counts what is there and keeps it.
        drop(cache);
        let again = DiskCache::open(dir.path(), 1000).unwrap();
        assert!(again.get("k19", &mut buf));
    }
}
