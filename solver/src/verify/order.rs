//! The order the verifier takes the sectors in, and what it keeps decoded
//! from one sector to the next.
//!
//! Solving order, but with each sector of the last placement (one stone in
//! hand against none) right after the moving sector with a stone more on
//! the board: the turns of both lead into the same two sectors (the
//! opponent to move against the mover's stones after the turn, with and
//! without a capture), valued alike in the game without the no-capture
//! rule. So the second finds its successors' codes decoded, and the mills'
//! best captures worked out (`captures.rs`), by the first.

use super::VerifyOptions;
use moulin_probe::{Sector, Tablebase};

/// The sectors to verify, in verifying order: those of `options.sectors`,
/// or every table of `tables` and, in a play set, every sector it leaves
/// out and rebuilds whole by one ply.
pub fn targets(
    options: &VerifyOptions,
    tables: impl Iterator<Item = Sector>,
    play: Option<&Tablebase>,
) -> Vec<Sector> {
    let order = Sector::all(true);
    let mut targets: Vec<Sector> = if options.sectors.is_empty() {
        let mut all: Vec<Sector> = tables.collect();
        // The sectors a play set leaves out, rebuilt whole by one ply.
        if let Some(tb) = play {
            // A successor's unreadable header fails its own check.
            let whole = |s: Sector| tb.is_left_out(s) && tb.rebuilds_whole(s).unwrap_or(false);
            all.extend(order.iter().copied().filter(|&s| whole(s)));
        }
        all
    } else {
        options.sectors.clone()
    };
    targets.sort_by_key(|s| order.iter().position(|o| o == s).unwrap_or(usize::MAX));
    targets.dedup();
    partners_together(targets)
}

/// The sector of the last placement whose turns lead where those of the
/// moving sector `s` do: one stone fewer on the mover's board, one in hand.
fn last_placement(s: Sector) -> Option<Sector> {
    let partner = Sector {
        stm_board: s.stm_board.checked_sub(1)?,
        stm_hand: 1,
        ..s
    };
    (s.is_moving() && partner.is_valid()).then_some(partner)
}

/// `sectors` in their order, but each sector of the last placement moved
/// right after its moving sector when both are there.
fn partners_together(sectors: Vec<Sector>) -> Vec<Sector> {
    let placed_after: Vec<Sector> = sectors
        .iter()
        .filter_map(|&s| last_placement(s))
        .filter(|p| sectors.contains(p))
        .collect();
    let mut out = Vec::with_capacity(sectors.len());
    for s in sectors {
        if placed_after.contains(&s) {
            continue;
        }
        out.push(s);
        out.extend(last_placement(s).filter(|p| placed_after.contains(p)));
    }
    out
}

/// Whether the sector `s`, or the one after it (`next`), reads the decoded
/// codes of `table`: itself or a sector its turns lead into. The verifier
/// keeps the others no longer.
pub fn wanted(table: Sector, s: Sector, next: Option<Sector>) -> bool {
    let reads = |s: Sector| s == table || s.successors().contains(&table);
    reads(s) || next.is_some_and(reads)
}

/// Whether the turns of `s` and `next` lead into the same sectors, valued
/// alike: then `next` reads the best captures `s` worked out.
pub fn shares_captures(s: Sector, next: Option<Sector>, no_capture_rule: bool) -> bool {
    !no_capture_rule && next.is_some_and(|n| n.successors() == s.successors())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sectors(names: &[&str]) -> Vec<Sector> {
        names.iter().map(|n| n.parse().expect("a sector")).collect()
    }

    /// The moves of a moving sector and of its partner of the last
    /// placement reach the same sectors: the mover's stones after a turn
    /// are as many, the hands the same.
    #[test]
    fn partners_lead_into_the_same_sectors() {
        let all = Sector::all(true);
        let mut partners = 0;
        for s in all.iter().filter(|s| s.is_moving()) {
            if let Some(p) = last_placement(*s) {
                assert!(all.contains(&p), "{s}: {p}");
                assert_eq!(p.stm_board + 1, s.stm_board);
                assert_eq!((p.stm_hand, p.opp_hand), (1, 0));
                assert_eq!(p.successors(), s.successors(), "{s} and {p}");
                partners += 1;
            }
        }
        // Every moving sector, 3 to 9 stones a side, has one.
        assert_eq!(partners, 49);
    }

    #[test]
    fn each_partner_comes_right_after_its_moving_sector() {
        let order = sectors(&[
            "3v3", "3v4", "4v3", "2v3h1v0", "2v4h1v0", "3v3h1v0", "3v3h1v1",
        ]);
        let expected = sectors(&[
            "3v3", "2v3h1v0", "3v4", "2v4h1v0", "4v3", "3v3h1v0", "3v3h1v1",
        ]);
        assert_eq!(partners_together(order), expected);
        // A partner without its moving sector stays where it was.
        let order = sectors(&["3v4", "2v3h1v0", "3v3h1v1"]);
        assert_eq!(partners_together(order.clone()), order);
        // The whole game: a permutation, every partner after its sector.
        let all = Sector::all(true);
        let together = partners_together(all.clone());
        let mut sorted = together.clone();
        sorted.sort_by_key(|s| all.iter().position(|o| o == s));
        assert_eq!(sorted, all);
        for pair in together.windows(2) {
            if pair[1].stm_hand == 1 && pair[1].opp_hand == 0 {
                assert_eq!(last_placement(pair[0]), Some(pair[1]));
            }
        }
    }

    #[test]
    fn a_table_is_kept_while_this_sector_or_the_next_reads_it() {
        let [s, partner, next, other] = sectors(&["8v8", "7v8h1v0", "8v7", "3v3"])[..] else {
            unreachable!()
        };
        // 8v8 and its partner read 8v8 and 7v8; 8v7 reads 7v8 and 6v8.
        assert!(wanted(s, s, Some(partner)));
        assert!(wanted(s, partner, Some(next)));
        assert!(!wanted(partner, next, Some(other)));
        assert!(!wanted(other, s, Some(next)));
        assert!(shares_captures(s, Some(partner), false));
        assert!(!shares_captures(s, Some(partner), true));
        assert!(!shares_captures(partner, Some(next), false));
        assert!(!shares_captures(s, None, false));
    }
}
