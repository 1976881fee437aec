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

#[cfg(test)]
mod tests {
    use super::*;
    use moulin_core::Node;
    use moulin_probe::{RuleOutcome, Rules};

    #[test]
    fn values_of_moves_under_the_rule() {
        let rules = Rules {
            flying: true,
            no_capture_limit: Some(10),
        };
        let moving = Node {
            us: 0b111,
            them: 0b111 << 8,
            us_hand: 0,
            them_hand: 0,
        };
        let placing = Node {
            us_hand: 2,
            ..moving
        };
        let v = |node: &Node, capture, after| move_value(&rules, node, capture, after);
        assert_eq!(
            v(&moving, false, RuleOutcome::Loss(9)),
            RuleOutcome::Win(10)
        );
        assert_eq!(
            v(&moving, false, RuleOutcome::Loss(10)),
            RuleOutcome::CursedWin(11)
        );
        assert_eq!(
            v(&moving, false, RuleOutcome::Win(10)),
            RuleOutcome::BlessedLoss(11)
        );
        assert_eq!(v(&moving, true, RuleOutcome::Loss(10)), RuleOutcome::Win(1));
        assert_eq!(v(&moving, true, RuleOutcome::Loss(0)), RuleOutcome::Win(1));
        assert_eq!(
            v(&moving, true, RuleOutcome::CursedWin(30)),
            RuleOutcome::BlessedLoss(11)
        );
        assert_eq!(v(&moving, true, RuleOutcome::Win(3)), RuleOutcome::Loss(1));
        // Placement: no conversion, the distances add up.
        assert_eq!(
            v(&placing, true, RuleOutcome::Loss(10)),
            RuleOutcome::Win(11)
        );
        assert_eq!(
            v(&placing, false, RuleOutcome::BlessedLoss(12)),
            RuleOutcome::CursedWin(13)
        );
        // Without the rule: the distance to win.
        let plain = Rules::default();
        assert_eq!(
            move_value(&plain, &moving, true, RuleOutcome::Loss(10)),
            RuleOutcome::Win(11)
        );
    }
}
