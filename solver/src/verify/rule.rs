//! The verifier's reading of values: distances to win without the
//! no-capture rule, distances to conversion under it (`docs/rules.md`). Both are
//! checked by one local equation, the stored value is the best value of a
//! move; what differs is what a move is worth, and that is all here.
//!
//! Under the rule a value is stored at counter 0 with its level: the turns
//! to the next conversion (a capture or the end of the game), the winner
//! shortest, the loser longest, a level past `N` marking a cursed win or a
//! blessed loss. So in the moving phase a move is worth:
//! - a capture that ends the game: win 1;
//! - another capture: a conversion, win 1 into a loss, cursed win `N + 1`
//!   into a blessed loss, draw into a draw, blessed loss `N + 1` into a
//!   cursed win, loss 1 into a win;
//! - any other turn: the next position's value one level further, a win
//!   past `N` cursed and a loss past `N` blessed.
//!
//! During placement the counter is 0 after every turn, and the stored
//! distance is the plain minimax one: the next position's value one turn
//! further, whatever the turn. A labelling that satisfies these equations
//! everywhere is the analysis by levels: by induction on the level every
//! win, cursed win, loss and blessed loss is forced exactly as stored (the
//! captures' levels come from lower sectors, checked on their own), so the
//! draws are right too.
//!
//! The probe rebuilds a play set's values by the same equation, so both
//! read a code and value a move with `moulin_core::play`'s functions; what
//! the verifier adds is applying the equation to every stored value.

pub use moulin_core::play::{decode, move_value};
