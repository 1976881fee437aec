//! A cache of the reference tables on disk, so that the test binaries of a
//! run (and later runs) solve each table once.

use super::{solve_moving, BruteTable, Key};
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::OnceLock;

/// Solves, or loads from a cache file in `dir` written by an earlier run of
/// the same reference source, the tables the tests share: the moving phase up
/// to 4 stones a side, plus (`hands`) the positions with stones in hand of at
/// most 4 stones a side. Each is solved once per process.
pub fn shared(flying: bool, hands: bool, dir: &Path) -> &'static BruteTable {
    static TABLES: [OnceLock<BruteTable>; 4] = [const { OnceLock::new() }; 4];
    TABLES[flying as usize * 2 + hands as usize].get_or_init(|| {
        let name = format!(
            "brute-{}-{}",
            ["moving", "hands"][hands as usize],
            flying as u8
        );
        cached(dir, &name, flying, || {
            let mut table = if hands {
                shared(flying, false, dir).clone()
            } else {
                solve_moving(4, flying)
            };
            if hands {
                table.add_hands(4, 4);
            }
            table
        })
    })
}

/// Loads `dir/<name>-<hash of this source>.bin` if present, or builds the
/// table and writes that file (removing those of other versions).
pub fn cached(
    dir: &Path,
    name: &str,
    flying: bool,
    build: impl FnOnce() -> BruteTable,
) -> BruteTable {
    let mut hasher = std::hash::DefaultHasher::new();
    (
        include_str!("../brute.rs"),
        include_str!("index.rs"),
        include_str!("cache.rs"),
    )
        .hash(&mut hasher);
    let path = dir.join(format!("{name}-{:016x}.bin", hasher.finish()));
    if let Some(table) = std::fs::read(&path)
        .ok()
        .and_then(|bytes| BruteTable::decode(&bytes, flying))
    {
        return table;
    }
    let table = build();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(&format!("{name}-"))
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, table.encode()).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
    table
}

impl BruteTable {
    /// The sectors as bytes: per sector its key, then its codes (little endian).
    fn encode(&self) -> Vec<u8> {
        let mut out = vec![self.flying as u8];
        for key in &self.keys {
            out.extend([key.us, key.them, key.us_hand, key.them_hand]);
            for &code in self.codes(*key).unwrap() {
                out.extend(code.to_le_bytes());
            }
        }
        out
    }

    /// The inverse of `encode`; `None` if the bytes do not fit.
    fn decode(bytes: &[u8], flying: bool) -> Option<BruteTable> {
        let (&first, mut rest) = bytes.split_first()?;
        if first != flying as u8 {
            return None;
        }
        let mut table = BruteTable::new(flying);
        while !rest.is_empty() {
            let (head, tail) = rest.split_at_checked(4)?;
            let key = Key {
                us: head[0],
                them: head[1],
                us_hand: head[2],
                them_hand: head[3],
            };
            if [key.us, key.them, key.us_hand, key.them_hand]
                .iter()
                .any(|&n| n > 9)
            {
                return None;
            }
            let (body, tail) = tail.split_at_checked(2 * key.size())?;
            let codes = body
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            table.insert(key, codes);
            rest = tail;
        }
        Some(table)
    }
}
