//! The index's tables: every set of at most nine points with the symmetry
//! taking it to its orbit's representative, built orbit by orbit.
//!
//! Sets of one size are visited in increasing numeric order (their colex
//! order), so the first set of an orbit met is its smallest, the
//! representative. Its 16 images are the whole orbit: each is entered
//! there, with the first symmetry (by number) that takes it back to the
//! representative. Each orbit costs 16 images rather than 16 per member,
//! and every probe from the command line builds these tables first.

use super::{colex_rank, next_of_size, Indexer, BINOMIAL, MAX_STONES, ORBIT_SHIFT, STAB_FLAG};
use crate::board::{Symmetries, Symmetry, POINTS, SYMMETRY_COUNT};

impl Indexer {
    pub(super) fn build() -> Indexer {
        let sym = Symmetries::get();
        let mut base = [0; MAX_STONES + 2];
        for k in 0..=MAX_STONES {
            base[k + 1] = base[k] + BINOMIAL[POINTS][k] as usize;
        }
        let mut entries = vec![0; base[MAX_STONES + 1]];
        let mut reps = Vec::new();
        let mut stabilisers = Vec::new();
        for k in 0..=MAX_STONES {
            let here = &mut entries[base[k]..base[k + 1]];
            // The sets entered so far, a bit each: a table small enough for
            // the cache, where `here` is megabytes written out of order.
            let mut entered = vec![0u64; here.len().div_ceil(64)];
            let mut k_reps = Vec::new();
            let mut k_stabs = Vec::new();
            // Sets of k points in increasing numeric order = colex order.
            let mut set: u32 = if k == 0 { 0 } else { (1 << k) - 1 };
            for rank in 0..here.len() {
                if entered[rank / 64] & 1 << (rank % 64) == 0 {
                    let orbit = k_reps.len() as u32;
                    assert!(
                        orbit < 1 << (32 - ORBIT_SHIFT),
                        "orbit numbers fit an entry"
                    );
                    // Where each image is entered, and the symmetries
                    // fixing the representative.
                    let mut at = [0; SYMMETRY_COUNT];
                    let mut fixed = 0u16;
                    for s in Symmetries::all() {
                        let image = sym.map(s, set);
                        at[s.0 as usize] = colex_rank(image) as usize;
                        if image == set {
                            fixed |= 1 << s.0;
                        }
                    }
                    let stab = if fixed != 1 { STAB_FLAG } else { 0 };
                    let back = |s: usize| sym.inverse(Symmetry(s as u8)).0 as u32;
                    for (s, &i) in at.iter().enumerate() {
                        // The image goes back to `set` by the inverse of
                        // `s`, and of every symmetry that gives the same
                        // image (only with a stabiliser): keep the first.
                        let first = match stab {
                            0 => back(s),
                            _ if at[..s].contains(&i) => continue,
                            _ => (s..SYMMETRY_COUNT)
                                .filter(|&t| at[t] == i)
                                .map(back)
                                .min()
                                .expect("s itself"),
                        };
                        here[i] = first | stab | orbit << ORBIT_SHIFT;
                        entered[i / 64] |= 1 << (i % 64);
                    }
                    k_reps.push(set);
                    k_stabs.push(fixed);
                }
                if k == 0 {
                    break;
                }
                set = next_of_size(set);
            }
            reps.push(k_reps);
            stabilisers.push(k_stabs);
        }
        Indexer {
            base,
            entries,
            reps,
            stabilisers,
        }
    }
}
