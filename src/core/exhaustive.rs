//! An exhaustive game-tree solver for small rows: the independent truth the
//! fast solvers are tested against.
//!
//! It knows only the rules (docs/game.md §1 and §2: which moves are legal, who loses)
//! and searches every line of play with memoisation. Cost grows with the
//! product of the pile sizes, so keep rows small (say n ≤ 8, piles ≤ 6).

use std::collections::HashMap;

use super::moves::{Move, Side, legal_moves};
use super::row::Variant;

/// A memoising game-tree solver for one variant.
#[derive(Debug, Default)]
pub struct Exhaustive {
    variant: Variant,
    memo: HashMap<Vec<u64>, bool>,
}

impl Exhaustive {
    /// A solver for `variant` with an empty memo.
    pub fn new(variant: Variant) -> Self {
        Exhaustive {
            variant,
            memo: HashMap::new(),
        }
    }

    /// Does the player to move win on `piles`? (Empty row: no, they lost.)
    pub fn wins(&mut self, piles: &[u64]) -> bool {
        if piles.is_empty() {
            return false;
        }
        if let Some(&w) = self.memo.get(piles) {
            return w;
        }
        let win = legal_moves(piles, self.variant)
            .into_iter()
            .any(|m| !self.wins(&after(piles, m)));
        self.memo.insert(piles.to_vec(), win);
        win
    }

    /// Every move after which the opponent loses, in [`legal_moves`] order.
    pub fn winning_moves(&mut self, piles: &[u64]) -> Vec<Move> {
        legal_moves(piles, self.variant)
            .into_iter()
            .filter(|m| !self.wins(&after(piles, *m)))
            .collect()
    }
}

/// The row after a legal move `m` (the rules: the end pile keeps
/// `remaining` stones, and goes away at 0). Any row, as a plain slice: the
/// search reaches the empty row.
pub fn after(piles: &[u64], m: Move) -> Vec<u64> {
    let mut out = piles.to_vec();
    let idx = match m.side {
        Side::Left => 0,
        Side::Right => out.len() - 1,
    };
    if m.remaining == 0 {
        out.remove(idx);
    } else {
        out[idx] = m.remaining;
    }
    out
}

/// Every row of 1 ..= `max_len` piles with sizes 1 ..= `max_pile`.
pub fn all_rows(max_len: usize, max_pile: u64) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    let mut layer: Vec<Vec<u64>> = vec![Vec::new()];
    for _ in 0..max_len {
        layer = layer
            .iter()
            .flat_map(|row| {
                (1..=max_pile).map(move |v| {
                    let mut r = row.clone();
                    r.push(v);
                    r
                })
            })
            .collect();
        out.extend(layer.iter().cloned());
    }
    out
}
