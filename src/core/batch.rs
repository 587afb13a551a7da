//! Groups valid rows into bounded batches for [`solve_valid_batch`], so that
//! many small cases are solved in parallel while memory stays bounded; a
//! batch of little work is solved on the calling thread.

use super::row::{ValidRow, Variant};
use super::verdict::{first_player_wins, solve_valid_batch};

/// A batch is solved once it holds this much work (n² / 2 cell updates)…
const BATCH_CELLS: u128 = 1 << 28;
/// …or this many piles (bounds memory)…
const BATCH_PILES: usize = 1 << 21;
/// …or this many cases.
const BATCH_CASES: usize = 4096;
/// A batch of less work than this is solved on the calling thread: it takes
/// less time than waking the pool (and, in a short-lived process, less than
/// starting it: see docs/benchmarks.md, "Start-up").
const INLINE_CELLS: u128 = 1 << 16;

/// Rows waiting to be solved.
#[derive(Debug, Default)]
pub struct Batch {
    rows: Vec<ValidRow<'static>>,
    cells: u128,
    piles: usize,
}

impl Batch {
    /// Adds a row.
    pub fn push(&mut self, row: ValidRow<'static>) {
        let n = row.len();
        self.cells += (n as u128) * (n as u128) / 2;
        self.piles += n;
        self.rows.push(row);
    }

    /// Is the batch big enough to be solved now?
    pub fn is_full(&self) -> bool {
        self.cells >= BATCH_CELLS || self.piles >= BATCH_PILES || self.rows.len() >= BATCH_CASES
    }

    /// Number of rows waiting.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The waiting rows, in push order.
    pub fn rows(&self) -> &[ValidRow<'static>] {
        &self.rows
    }

    /// Is the batch empty?
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Solves every waiting row (in parallel) and empties the batch. The
    /// verdicts are in push order: `true` when the first player wins.
    pub fn solve(&mut self, variant: Variant) -> Vec<bool> {
        let inline = self.cells < INLINE_CELLS;
        let Ok(verdicts) = self.solve_with(|rows| {
            Ok::<_, std::convert::Infallible>(if inline {
                rows.iter()
                    .map(|row| first_player_wins(row, variant))
                    .collect()
            } else {
                solve_valid_batch(rows, variant)
            })
        });
        verdicts
    }

    /// Hands every waiting row to `solve` (which returns their verdicts in
    /// order, or why it stopped) and empties the batch.
    pub fn solve_with<E>(
        &mut self,
        solve: impl FnOnce(&[ValidRow<'static>]) -> Result<Vec<bool>, E>,
    ) -> Result<Vec<bool>, E> {
        let verdicts = solve(&self.rows);
        self.rows.clear();
        (self.cells, self.piles) = (0, 0);
        verdicts
    }
}
