//! What a fetch takes: the published table sets, embedded from
//! `data/checksums/` so that an installed `moulin` has them, or any list in
//! `sha256sum` format (`<hex>  <file name>`).

use moulin_core::table::{EXTENSION, WDL_EXTENSION};
use moulin_probe::Sector;
use std::collections::HashMap;

/// One file to fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// File name in the directory and on the server: `<sector>.mtb` or
    /// `<sector>.mtw`.
    pub name: String,
    /// The sector the file holds (from its name).
    pub sector: Sector,
    /// SHA-256 of the whole file.
    pub sha256: [u8; 32],
    /// Length of the file, where the list says it.
    pub bytes: Option<u64>,
}

/// A table set `--set` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Set {
    /// The whole game (354 tables), flying rule.
    Plain,
    /// The whole game under the 50-turn no-capture rule.
    N50,
    /// The whole game under the 100-turn no-capture rule.
    N100,
    /// WDL tables (`.mtw`): no published list, give one with --checksums.
    Wdl,
    /// The 49 moving-phase tables (flying rule).
    Moving,
    /// The moving-phase tables under the 50-turn no-capture rule.
    #[value(name = "moving-n50")]
    MovingN50,
    /// The moving-phase tables under the 100-turn no-capture rule.
    #[value(name = "moving-n100")]
    MovingN100,
    /// The moving-phase tables up to 5 stones a side (9 small tables).
    #[value(name = "moving-5")]
    Moving5,
}

/// A published list: where it comes from, its text, and the manifest
/// holding the files' lengths (`sector bytes ... sha256`), if there is one.
struct Published {
    origin: &'static str,
    sha256: Option<&'static str>,
    manifest: Option<&'static str>,
}

macro_rules! checksums {
    ($file:literal) => {
        include_str!(concat!("../../../../data/checksums/", $file))
    };
}

impl Set {
    /// The set's name as typed.
    pub fn name(self) -> &'static str {
        match self {
            Set::Plain => "plain",
            Set::N50 => "n50",
            Set::N100 => "n100",
            Set::Wdl => "wdl",
            Set::Moving => "moving",
            Set::MovingN50 => "moving-n50",
            Set::MovingN100 => "moving-n100",
            Set::Moving5 => "moving-5",
        }
    }

    fn published(self) -> Option<Published> {
        let (origin, sha256, manifest) = match self {
            Set::Plain => (
                "data/checksums/game-9.sha256",
                Some(checksums!("game-9.sha256")),
                Some(checksums!("game-9.txt")),
            ),
            Set::N50 => (
                "data/checksums/game-9-n50.sha256",
                Some(checksums!("game-9-n50.sha256")),
                Some(checksums!("game-9-n50.txt")),
            ),
            Set::N100 => (
                "data/checksums/game-9-n100.sha256",
                Some(checksums!("game-9-n100.sha256")),
                Some(checksums!("game-9-n100.txt")),
            ),
            Set::Moving => (
                "data/checksums/moving-9.sha256",
                Some(checksums!("moving-9.sha256")),
                None,
            ),
            Set::MovingN50 => (
                "data/checksums/moving-9-n50.sha256",
                Some(checksums!("moving-9-n50.sha256")),
                None,
            ),
            Set::MovingN100 => (
                "data/checksums/moving-9-n100.sha256",
                Some(checksums!("moving-9-n100.sha256")),
                None,
            ),
            Set::Moving5 => (
                "data/checksums/moving-5.txt",
                None,
                Some(checksums!("moving-5.txt")),
            ),
            Set::Wdl => return None,
        };
        Some(Published {
            origin,
            sha256,
            manifest,
        })
    }

    /// The files of a published set, with their lengths where a manifest
    /// gives them, and where the list comes from; `None` for `wdl`.
    pub fn entries(self) -> Option<(Vec<Entry>, &'static str)> {
        let p = self.published()?;
        let from_manifest = p
            .manifest
            .map(|m| parse_manifest(m).unwrap_or_else(|e| panic!("embedded {}: {e}", self.name())));
        let entries = match (p.sha256, from_manifest) {
            (Some(text), sized) => {
                let mut entries =
                    parse_sha256sum(text).unwrap_or_else(|e| panic!("embedded {}: {e}", p.origin));
                let sizes: HashMap<_, _> = sized
                    .unwrap_or_default()
                    .into_iter()
                    .map(|e| ((e.name, e.sha256), e.bytes))
                    .collect();
                for e in &mut entries {
                    e.bytes = sizes.get(&(e.name.clone(), e.sha256)).copied().flatten();
                }
                entries
            }
            (None, Some(sized)) => sized,
            (None, None) => unreachable!("a published set has a list"),
        };
        Some((entries, p.origin))
    }
}

/// Checks a file name of a list: `<sector>.mtb` or `<sector>.mtw` (nothing
/// that could leave the directory).
fn table_name(name: &str) -> Result<Sector, String> {
    let bad = || {
        format!("`{name}` is not a table file name (`<sector>.{EXTENSION}` or `<sector>.{WDL_EXTENSION}`)")
    };
    let (stem, ext) = name.rsplit_once('.').ok_or_else(bad)?;
    if ext != EXTENSION && ext != WDL_EXTENSION {
        return Err(bad());
    }
    stem.parse().map_err(|_| bad())
}

fn parse_hex(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Lower-case hexadecimal of a digest.
pub fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses a list in `sha256sum` format: `<64 hex digits>  <file name>` (or
/// ` *<file name>`) a line; empty lines and lines starting with `#` are
/// skipped. Every name must be a table file name, once.
pub fn parse_sha256sum(text: &str) -> Result<Vec<Entry>, String> {
    let mut out: Vec<Entry> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.trim_start().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |what: String| format!("line {}: {what}", i + 1);
        let (digest, name) = line
            .split_once(char::is_whitespace)
            .map(|(d, rest)| (d, rest.trim_start_matches([' ', '\t', '*'])))
            .filter(|(_, name)| !name.is_empty())
            .ok_or_else(|| at(format!("`{line}` is not `<sha256>  <file name>`")))?;
        let sha256 = parse_hex(digest).ok_or_else(|| {
            at(format!(
                "`{digest}` is not a SHA-256 (64 hexadecimal digits)"
            ))
        })?;
        push(&mut out, name, sha256, None).map_err(at)?;
    }
    if out.is_empty() {
        return Err("it lists no file".into());
    }
    Ok(out)
}

/// Parses a published manifest (`data/checksums/*.txt`): a line per table,
/// `sector bytes ... sha256`, the SHA-256 in the last column.
fn parse_manifest(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.is_empty() || cols[0].starts_with('#') {
            continue;
        }
        let at = |what: &str| format!("line {}: {what}", i + 1);
        let sha256 = cols
            .last()
            .and_then(|h| parse_hex(h))
            .ok_or_else(|| at("no SHA-256 in the last column"))?;
        let bytes = cols.get(1).and_then(|b| b.parse().ok());
        let name = format!("{}.{EXTENSION}", cols[0]);
        push(&mut out, &name, sha256, bytes).map_err(|e| at(&e))?;
    }
    Ok(out)
}

fn push(
    out: &mut Vec<Entry>,
    name: &str,
    sha256: [u8; 32],
    bytes: Option<u64>,
) -> Result<(), String> {
    let sector = table_name(name)?;
    if out.iter().any(|e| e.name == name) {
        return Err(format!("`{name}` is listed twice"));
    }
    out.push(Entry {
        name: name.to_string(),
        sector,
        sha256,
        bytes,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn published_sets_parse_with_their_sizes() {
        let count = |set: Set| set.entries().unwrap().0.len();
        assert_eq!(count(Set::Plain), 354);
        assert_eq!(count(Set::N50), 354);
        assert_eq!(count(Set::N100), 354);
        assert_eq!(count(Set::Moving), 49);
        assert_eq!(count(Set::MovingN50), 49);
        assert_eq!(count(Set::MovingN100), 49);
        assert_eq!(count(Set::Moving5), 9);
        assert!(Set::Wdl.entries().is_none());
        // The game sets take their lengths from the manifests, whose
        // SHA-256 column must agree with the .sha256 list for every table.
        for set in [Set::Plain, Set::N50, Set::N100, Set::Moving5] {
            let (entries, _) = set.entries().unwrap();
            assert!(entries.iter().all(|e| e.bytes.is_some()), "{set:?}");
        }
        // The moving tables are the game set's moving sectors, same bytes.
        let plain = Set::Plain.entries().unwrap().0;
        for e in Set::Moving5.entries().unwrap().0 {
            assert!(plain.contains(&e), "{}", e.name);
        }
        for e in Set::Moving.entries().unwrap().0 {
            let p = plain.iter().find(|p| p.name == e.name).unwrap();
            assert_eq!(p.sha256, e.sha256, "{}", e.name);
        }
        // Every value the command line accepts has a name that matches.
        for set in Set::value_variants() {
            let typed = set.to_possible_value().unwrap();
            assert_eq!(typed.get_name(), set.name());
        }
    }

    #[test]
    fn sha256sum_lines() {
        let a = "a".repeat(64);
        let b = "0123456789ABCDEF".repeat(4);
        let text = format!("# comment\n\n{a}  3v3.mtb\n{b} *1v2h8v7.mtw\n");
        let entries = parse_sha256sum(&text).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].name, "3v3.mtb");
        assert_eq!(entries[0].sha256, [0xaa; 32]);
        assert_eq!(entries[1].name, "1v2h8v7.mtw");
        assert_eq!(hex(&entries[1].sha256), b.to_lowercase());
        for bad in [
            format!("{a}  ../3v3.mtb"),
            format!("{a}  3v3.txt"),
            format!("{a}  10v3.mtb"),
            a.clone(),
            format!("{}  3v3.mtb", &a[1..]),
            format!("{}g  3v3.mtb", &a[1..]),
            format!("{a}  3v3.mtb\n{a}  3v3.mtb"),
            "# nothing\n".to_string(),
        ] {
            assert!(parse_sha256sum(&bad).is_err(), "{bad}");
        }
    }
}
