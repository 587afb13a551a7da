//! The leftmost-only variant (docs/game.md §2): moves take from the leftmost pile.
//!
//! `g(i)` — "the player to move wins on piles i..n" — satisfies
//! `g(n+1) = false` and `g(i) = a_i > 1 || !g(i+1)`. O(n) time, O(1) memory.

use super::row::ValidRow;

/// `g` of any row of positive piles; an empty row is a loss.
fn wins(piles: &[u64]) -> bool {
    piles
        .iter()
        .rev()
        .fold(false, |g_next, &a| a > 1 || !g_next)
}

/// Does the player to move win on `row` (leftmost-only moves)?
pub fn first_player_wins(row: &ValidRow<'_>) -> bool {
    wins(row)
}

/// The pile size the leftmost pile should be reduced to, if the position is
/// won: 0 (take it all) when the rest is lost, else 1. `None` when lost.
pub fn winning_remaining(row: &ValidRow<'_>) -> Option<u64> {
    let rest_wins = wins(&row[1..]);
    // Lost only when a_1 = 1 and the rest wins; leave 1 exactly when the
    // rest wins (the opponent must take it).
    (row.first_pile() > 1 || !rest_wins).then_some(u64::from(rest_wins))
}
