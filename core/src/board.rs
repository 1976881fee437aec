//! Board geometry: the 24 points, their adjacencies, the 16 mills and the 16
//! symmetries, all as bitboards (bit `i` is point `i` of the canonical order).

/// A set of points, one bit per point in the canonical order.
pub type Bitboard = u32;

/// Number of points on the board.
pub const POINTS: usize = 24;

/// Every point of the board.
pub const ALL_POINTS: Bitboard = (1 << POINTS) - 1;

/// Point names in the canonical order of `docs/rules.md`.
pub const POINT_NAMES: [&str; POINTS] = [
    "a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4", "e4", "f4", "g4", "c5",
    "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7",
];

/// A point of the board, `0..24` in the canonical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point(u8);

impl Point {
    /// The point with canonical index `i`, if `i < 24`.
    pub const fn new(i: usize) -> Option<Point> {
        if i < POINTS {
            Some(Point(i as u8))
        } else {
            None
        }
    }

    /// Canonical index of the point.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The point as a one-bit bitboard.
    pub const fn bit(self) -> Bitboard {
        1 << self.0
    }

    /// The point's name (`a1` .. `g7`).
    pub fn name(self) -> &'static str {
        POINT_NAMES[self.index()]
    }

    /// Parses a point name such as `d2`; `None` for anything else.
    pub fn from_name(name: &str) -> Option<Point> {
        POINT_NAMES
            .iter()
            .position(|&n| n == name)
            .map(|i| Point(i as u8))
    }

    /// Board coordinates: column 0..7 (a..g) and row 0..7 (1..7).
    pub fn coordinates(self) -> (i8, i8) {
        let name = self.name().as_bytes();
        ((name[0] - b'a') as i8, (name[1] - b'1') as i8)
    }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Iterates over the points of a bitboard, lowest first.
pub fn points(mut bb: Bitboard) -> impl Iterator<Item = Point> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let i = bb.trailing_zeros();
            bb &= bb - 1;
            Some(Point(i as u8))
        }
    })
}

const fn bits3(a: u32, b: u32, c: u32) -> Bitboard {
    (1 << a) | (1 << b) | (1 << c)
}

/// The 16 mills, as listed in `docs/rules.md`.
pub const MILLS: [Bitboard; 16] = [
    bits3(0, 1, 2),    // a1 d1 g1
    bits3(2, 14, 23),  // g1 g4 g7
    bits3(21, 22, 23), // a7 d7 g7
    bits3(0, 9, 21),   // a1 a4 a7
    bits3(3, 4, 5),    // b2 d2 f2
    bits3(5, 13, 20),  // f2 f4 f6
    bits3(18, 19, 20), // b6 d6 f6
    bits3(3, 10, 18),  // b2 b4 b6
    bits3(6, 7, 8),    // c3 d3 e3
    bits3(8, 12, 17),  // e3 e4 e5
    bits3(15, 16, 17), // c5 d5 e5
    bits3(6, 11, 15),  // c3 c4 c5
    bits3(1, 4, 7),    // d1 d2 d3
    bits3(9, 10, 11),  // a4 b4 c4
    bits3(12, 13, 14), // e4 f4 g4
    bits3(16, 19, 22), // d5 d6 d7
];

/// The middle point of a mill, whose two neighbours on the line are its ends.
const fn mill_middle(mill: Bitboard) -> u32 {
    let lo = mill.trailing_zeros();
    let rest = mill & !(1 << lo);
    rest.trailing_zeros()
}

const fn build_adjacent() -> [Bitboard; POINTS] {
    // Every adjacency joins the middle of a mill to one of its ends.
    let mut adj = [0; POINTS];
    let mut m = 0;
    while m < 16 {
        let mill = MILLS[m];
        let mid = mill_middle(mill);
        let ends = mill & !(1 << mid);
        adj[mid as usize] |= ends;
        let mut e = ends;
        while e != 0 {
            let p = e.trailing_zeros();
            adj[p as usize] |= 1 << mid;
            e &= e - 1;
        }
        m += 1;
    }
    adj
}

/// Points adjacent to each point.
pub const ADJACENT: [Bitboard; POINTS] = build_adjacent();

const fn build_mills_through() -> [[Bitboard; 2]; POINTS] {
    let mut through = [[0; 2]; POINTS];
    let mut count = [0usize; POINTS];
    let mut m = 0;
    while m < 16 {
        let mut e = MILLS[m];
        while e != 0 {
            let p = e.trailing_zeros() as usize;
            through[p][count[p]] = MILLS[m];
            count[p] += 1;
            e &= e - 1;
        }
        m += 1;
    }
    through
}

/// The two mills through each point (every point lies on exactly two).
pub const MILLS_THROUGH: [[Bitboard; 2]; POINTS] = build_mills_through();

/// Whether `stones` (which include `to`) hold a complete mill through `to`.
///
/// # Panics
/// If `to` is not a point index (24 or more).
#[inline]
pub fn forms_mill(stones: Bitboard, to: usize) -> bool {
    let [m1, m2] = MILLS_THROUGH[to];
    stones & m1 == m1 || stones & m2 == m2
}

/// Stones of `stones` that are part of at least one complete mill.
#[inline]
pub fn stones_in_mills(stones: Bitboard) -> Bitboard {
    stones_in(stones, &MILLS)
}

/// The stones of `stones` that a capture may remove: those in no mill, or all
/// of them when every one is in a mill.
#[inline]
pub fn removable(stones: Bitboard) -> Bitboard {
    removable_in(stones, &MILLS)
}

/// `removable` with the board's points renumbered: `stones` and `mills`
/// numbered alike (say as codes among the points some other stones leave
/// free, `mills` then being the mills those stones do not touch).
#[inline]
pub fn removable_in(stones: Bitboard, mills: &[Bitboard]) -> Bitboard {
    let free = stones & !stones_in(stones, mills);
    if free != 0 {
        free
    } else {
        stones
    }
}

/// The stones of `stones` in at least one of `mills`.
#[inline]
fn stones_in(stones: Bitboard, mills: &[Bitboard]) -> Bitboard {
    let mut inside = 0;
    for &mill in mills {
        if stones & mill == mill {
            inside |= mill;
        }
    }
    inside
}

/// One of the 16 symmetries of the board, `0` being the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(pub(crate) u8);

/// Number of board symmetries.
pub const SYMMETRY_COUNT: usize = 16;

/// The 16 symmetries of the board as point permutations (`permutation(s)[p]`
/// is the image of point `p`), with tables that map a whole bitboard at once.
pub struct Symmetries {
    perms: [[u8; POINTS]; SYMMETRY_COUNT],
    bytes: [[[Bitboard; 256]; 3]; SYMMETRY_COUNT],
    compose: [[u8; SYMMETRY_COUNT]; SYMMETRY_COUNT],
    inverse: [u8; SYMMETRY_COUNT],
}

fn point_at(x: i8, y: i8) -> Option<usize> {
    (0..POINTS).find(|&i| Point(i as u8).coordinates() == (x, y))
}

impl Symmetries {
    fn build() -> Symmetries {
        let mut perms = [[0u8; POINTS]; SYMMETRY_COUNT];
        for (s, perm) in perms.iter_mut().enumerate() {
            for (p, image) in perm.iter_mut().enumerate() {
                let (x, y) = Point(p as u8).coordinates();
                let (mut cx, mut cy) = (x - 3, y - 3);
                // The 8 symmetries of the square: optional transpose, then sign flips.
                if s & 4 != 0 {
                    std::mem::swap(&mut cx, &mut cy);
                }
                if s & 1 != 0 {
                    cx = -cx;
                }
                if s & 2 != 0 {
                    cy = -cy;
                }
                // Bit 3 exchanges the inner and the outer square.
                if s & 8 != 0 {
                    let ring = cx.abs().max(cy.abs());
                    let to = 4 - ring;
                    cx = cx / ring * to;
                    cy = cy / ring * to;
                }
                *image = point_at(cx + 3, cy + 3).expect("symmetry maps points to points") as u8;
            }
        }
        let mut bytes = [[[0; 256]; 3]; SYMMETRY_COUNT];
        for (perm, tables) in perms.iter().zip(bytes.iter_mut()) {
            for (chunk, table) in tables.iter_mut().enumerate() {
                for (b, out) in table.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if b & (1 << bit) != 0 {
                            *out |= 1 << perm[chunk * 8 + bit];
                        }
                    }
                }
            }
        }
        let find = |perm: &[u8; POINTS]| perms.iter().position(|q| q == perm).unwrap() as u8;
        let mut compose = [[0; SYMMETRY_COUNT]; SYMMETRY_COUNT];
        let mut inverse = [0; SYMMETRY_COUNT];
        for a in 0..SYMMETRY_COUNT {
            for b in 0..SYMMETRY_COUNT {
                // compose[a][b] applies b first, then a.
                let mut perm = [0u8; POINTS];
                for p in 0..POINTS {
                    perm[p] = perms[a][perms[b][p] as usize];
                }
                compose[a][b] = find(&perm);
                if compose[a][b] == 0 {
                    inverse[a] = b as u8;
                }
            }
        }
        Symmetries {
            perms,
            bytes,
            compose,
            inverse,
        }
    }

    /// The shared symmetry tables.
    pub fn get() -> &'static Symmetries {
        static TABLES: std::sync::OnceLock<Symmetries> = std::sync::OnceLock::new();
        TABLES.get_or_init(Symmetries::build)
    }

    /// Image of a point.
    #[inline]
    pub fn map_point(&self, s: Symmetry, p: Point) -> Point {
        Point(self.perms[s.0 as usize][p.index()])
    }

    /// Image of a set of points.
    ///
    /// # Panics
    /// If `bb` has a bit beyond the 24 points.
    #[inline]
    pub fn map(&self, s: Symmetry, bb: Bitboard) -> Bitboard {
        let t = &self.bytes[s.0 as usize];
        t[0][(bb & 0xff) as usize] | t[1][((bb >> 8) & 0xff) as usize] | t[2][(bb >> 16) as usize]
    }

    /// The symmetry that applies `second` after `first`.
    #[inline]
    pub fn then(&self, first: Symmetry, second: Symmetry) -> Symmetry {
        Symmetry(self.compose[second.0 as usize][first.0 as usize])
    }

    /// The symmetry undoing `s`.
    #[inline]
    pub fn inverse(&self, s: Symmetry) -> Symmetry {
        Symmetry(self.inverse[s.0 as usize])
    }

    /// All 16 symmetries, the identity first.
    pub fn all() -> impl Iterator<Item = Symmetry> {
        (0..SYMMETRY_COUNT as u8).map(Symmetry)
    }

    /// The permutation of a symmetry, image of each point in canonical order.
    pub fn permutation(&self, s: Symmetry) -> &[u8; POINTS] {
        &self.perms[s.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_two_adjacencies_and_sixteen_mills() {
        let degree: u32 = ADJACENT.iter().map(|a| a.count_ones()).sum();
        assert_eq!(degree, 64);
        for (p, through) in MILLS_THROUGH.iter().enumerate() {
            assert!(through.iter().all(|m| m & (1 << p) != 0));
            assert_ne!(through[0], through[1]);
        }
        // Adjacent points share a row or a column and nothing lies between them.
        let d4 = Point::from_name("d4");
        assert!(d4.is_none());
        let a1 = Point::from_name("a1").unwrap();
        let names: Vec<_> = points(ADJACENT[a1.index()]).map(|p| p.name()).collect();
        assert_eq!(names, ["d1", "a4"]);
        let d2 = Point::from_name("d2").unwrap();
        let names: Vec<_> = points(ADJACENT[d2.index()]).map(|p| p.name()).collect();
        assert_eq!(names, ["d1", "b2", "f2", "d3"]);
    }

    #[test]
    fn a_mill_protects_its_stones_unless_all_are_in_mills() {
        let set = |names: &[&str]| {
            names
                .iter()
                .map(|n| Point::from_name(n).expect("a point").bit())
                .fold(0, |s, p| s | p)
        };
        let mill = set(&["a1", "d1", "g1"]);
        assert_eq!(removable(mill | set(&["b2"])), set(&["b2"]));
        assert_eq!(removable(mill), mill);
        assert_eq!(
            removable(mill | set(&["a4", "a7"])),
            mill | set(&["a4", "a7"])
        );
    }

    /// `removable_in` over sets renumbered among the points some stones
    /// leave free, with the mills those stones do not touch, is `removable`
    /// renumbered.
    #[test]
    fn removable_among_free_points_is_removable_renumbered() {
        use crate::index::compress;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed & 0xff_ffff) as Bitboard
        };
        let mut protected = 0;
        for _ in 0..100_000 {
            let taken = next() & next();
            let stones = next() & !taken;
            let mills: Vec<Bitboard> = MILLS
                .iter()
                .filter(|&&m| m & taken == 0)
                .map(|&m| compress(m, taken))
                .collect();
            let expected = compress(removable(stones), taken);
            assert_eq!(removable_in(compress(stones, taken), &mills), expected);
            protected += (expected != compress(stones, taken)) as u32;
        }
        assert!(protected > 1_000, "{protected} sets with a protected stone");
    }

    #[test]
    fn symmetries_preserve_adjacency_and_mills_and_form_a_group() {
        let sym = Symmetries::get();
        let mut seen = std::collections::HashSet::new();
        for s in Symmetries::all() {
            assert!(seen.insert(*sym.permutation(s)), "symmetries are distinct");
            for (p, &adjacent) in ADJACENT.iter().enumerate() {
                let img = sym.map(s, adjacent);
                let q = sym.map_point(s, Point(p as u8));
                assert_eq!(img, ADJACENT[q.index()]);
            }
            let mut mills: Vec<_> = MILLS.iter().map(|&m| sym.map(s, m)).collect();
            mills.sort();
            let mut orig = MILLS.to_vec();
            orig.sort();
            assert_eq!(mills, orig);
            assert_eq!(sym.then(s, sym.inverse(s)), Symmetry(0));
        }
    }
}
