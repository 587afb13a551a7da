//! The full `left` / `right` tables of one row (docs/game.md §1), O(n²).
//!
//! Every entry is an end pile's size plus a 2-bit code, so the tables are
//! stored as one byte per entry of the upper triangle:
//!
//! | code | `left[i][j]` | `right[i][j]` |
//! |------|--------------|---------------|
//! | 0    | 0            | 0             |
//! | 1    | a_j − 1      | a_i − 1       |
//! | 2    | a_j          | a_i           |
//! | 3    | a_j + 1      | a_i + 1       |
//!
//! The tables are built with the recurrence exactly as docs/game.md writes it (plain
//! `if` chains on `u64`), independently of the vectorised kernel, so tests
//! can hold one against the other.

use super::cancel::{Cancel, Never};
use super::row::ValidRow;

/// `left` and `right` of every interval of one row (0-based indices here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tables {
    piles: Vec<u64>,
    left: Vec<u8>,
    right: Vec<u8>,
}

/// Decodes a 2-bit table code relative to the end pile `end`.
pub fn decode(code: u8, end: u64) -> u64 {
    match code {
        0 => 0,
        c => end + u64::from(c) - 2,
    }
}

fn encode(value: u64, end: u64) -> u8 {
    if value == 0 {
        0
    } else {
        debug_assert!(value + 1 >= end && value <= end + 1, "{value} vs {end}");
        (value + 2 - end) as u8
    }
}

/// docs/game.md §1's recurrence for `left[i][j]` with `L = left[i][j−1]`,
/// `R = right[i][j−1]`, `X = a_j`, as written there.
pub fn left_step(l: u64, r: u64, x: u64) -> u64 {
    if x == r {
        0
    } else if x < r && x < l {
        x
    } else if x < r && x >= l {
        x + 1
    } else if x > r && x > l {
        x
    } else {
        // x > r && x <= l
        x - 1
    }
}

/// docs/game.md §1's mirror recurrence for `right[i][j]` with `L = left[i+1][j]`,
/// `R = right[i+1][j]`, `X = a_i`.
pub fn right_step(l: u64, r: u64, x: u64) -> u64 {
    if x == l {
        0
    } else if x < l && x < r {
        x
    } else if x < l && x >= r {
        x + 1
    } else if x > l && x > r {
        x
    } else {
        x - 1
    }
}

impl Tables {
    /// Builds the tables of a row: O(n²) time and n (n + 1) bytes, so the
    /// caller bounds n (with the limit it validates the row against).
    pub fn new(row: &ValidRow<'_>) -> Tables {
        let Ok(tables) = Tables::new_cancellable(row, &Never);
        tables
    }

    /// [`Tables::new`], polling `cancel` once per diagonal (every n − len
    /// entries, at most n cells apart): a caller that goes away stops the
    /// O(n²) build within one diagonal.
    pub fn new_cancellable<C: Cancel + ?Sized>(
        row: &ValidRow<'_>,
        cancel: &C,
    ) -> Result<Tables, C::Stop> {
        cancel.check()?;
        let piles = row.as_slice();
        let n = piles.len();
        let size = n * (n + 1) / 2;
        let mut t = Tables {
            piles: piles.to_vec(),
            left: vec![0; size],
            right: vec![0; size],
        };
        for i in 0..n {
            let k = t.index(i, i);
            t.left[k] = 2;
            t.right[k] = 2;
        }
        for len in 2..=n {
            cancel.check()?;
            for i in 0..=n - len {
                let j = i + len - 1;
                let l = left_step(t.left(i, j - 1), t.right(i, j - 1), piles[j]);
                let r = right_step(t.left(i + 1, j), t.right(i + 1, j), piles[i]);
                let k = t.index(i, j);
                t.left[k] = encode(l, piles[j]);
                t.right[k] = encode(r, piles[i]);
            }
        }
        Ok(t)
    }

    /// Number of piles.
    pub fn len(&self) -> usize {
        self.piles.len()
    }

    /// Always false: a row has at least one pile.
    pub fn is_empty(&self) -> bool {
        self.piles.is_empty()
    }

    /// The row.
    pub fn piles(&self) -> &[u64] {
        &self.piles
    }

    fn index(&self, i: usize, j: usize) -> usize {
        debug_assert!(i <= j && j < self.len());
        // Row i of the upper triangle starts after rows 0..i, of n − r entries each.
        let n = self.len();
        i * n - i * i.saturating_sub(1) / 2 + (j - i)
    }

    /// The 2-bit code of `left[i][j]` (0-based, `i ≤ j`).
    pub fn left_code(&self, i: usize, j: usize) -> u8 {
        self.left[self.index(i, j)]
    }

    /// The 2-bit code of `right[i][j]` (0-based, `i ≤ j`).
    pub fn right_code(&self, i: usize, j: usize) -> u8 {
        self.right[self.index(i, j)]
    }

    /// `left[i][j]` (0-based, `i ≤ j`).
    pub fn left(&self, i: usize, j: usize) -> u64 {
        decode(self.left_code(i, j), self.piles[j])
    }

    /// `right[i][j]` (0-based, `i ≤ j`).
    pub fn right(&self, i: usize, j: usize) -> u64 {
        decode(self.right_code(i, j), self.piles[i])
    }

    /// Does the first player win on the whole row?
    pub fn first_player_wins(&self) -> bool {
        let n = self.len();
        n == 1 || self.piles[0] != self.left(1, n - 1)
    }
}
