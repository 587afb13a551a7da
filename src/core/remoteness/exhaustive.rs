//! The game-tree truth for remoteness: a memoised search over every line of
//! play of small rows, knowing only the rules (docs/game.md §5).

use std::collections::HashMap;

use super::super::exhaustive::after;
use super::super::moves::{Move, legal_moves};
use super::super::row::Variant;

/// A memoising remoteness solver for one variant (small rows only: the cost
/// grows with the product of the pile sizes).
#[derive(Debug, Default)]
pub struct ExhaustiveRemoteness {
    variant: Variant,
    memo: HashMap<Vec<u64>, u32>,
}

impl ExhaustiveRemoteness {
    /// A solver for `variant` with an empty memo.
    pub fn new(variant: Variant) -> Self {
        ExhaustiveRemoteness {
            variant,
            memo: HashMap::new(),
        }
    }

    /// The remoteness of `piles` in plies (the empty row: 0). Odd exactly
    /// when the player to move wins.
    pub fn remoteness(&mut self, piles: &[u64]) -> u32 {
        if piles.is_empty() {
            return 0;
        }
        if let Some(&r) = self.memo.get(piles) {
            return r;
        }
        let children: Vec<u32> = legal_moves(piles, self.variant)
            .into_iter()
            .map(|m| self.remoteness(&after(piles, m)))
            .collect();
        // Lost children (even remoteness) are the mover's wins.
        let fastest_win = children.iter().copied().filter(|r| r % 2 == 0).min();
        let r = match fastest_win {
            Some(w) => w + 1,
            None => 1 + children.iter().copied().max().unwrap_or(0),
        };
        self.memo.insert(piles.to_vec(), r);
        r
    }

    /// Every legal move of `piles` (in [`legal_moves`] order) with the
    /// remoteness of the position it leaves.
    pub fn children(&mut self, piles: &[u64]) -> Vec<(Move, u32)> {
        legal_moves(piles, self.variant)
            .into_iter()
            .map(|m| (m, self.remoteness(&after(piles, m))))
            .collect()
    }
}
