//! Verdicts of the two-ends game in O(n) memory, for one row or a batch.
//!
//! The verdict and both winning moves of a row `a_1 … a_n` (n ≥ 2) follow
//! from two numbers (docs/game.md §1): `t = left[2][n]` and `u = right[1][n−1]`, the
//! two cells of layer `n − 1`. [`end_values`] computes them with the
//! [`kernel`](super::kernel).

use rayon::prelude::*;

use super::cancel::{Cancel, Never};
use super::kernel::direct::{self, Width, Word};
use super::kernel::{KernelOptions, codes};
use super::leftmost;
use super::row::{MAX_PILES, RowError, ValidRow, Variant};

/// The two table entries that decide a row of n piles.
///
/// For n = 1 both are 0: the tail and the head are empty rows, and the pile
/// that makes "(x)" lost is x = 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndValues {
    /// `left[2][n]`: the left pile that would make `a_2 … a_n` lost.
    pub left_of_tail: u64,
    /// `right[1][n−1]`: the right pile that would make `a_1 … a_{n−1}` lost.
    pub right_of_head: u64,
}

/// Rows with at least this many piles split their layers across cores.
pub const PARALLEL_MIN_PILES: usize = 20_000;

/// Which kernel computes the layers (see [`kernel`](super::kernel)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    /// One byte per entry, coordinates instead of piles (the default).
    Codes,
    /// Entries as biased words of the given width (widened to the narrowest
    /// that holds the row's largest pile plus one).
    Direct(Width),
}

/// Computes the [`EndValues`] of a row with the given kernel and options,
/// polling `cancel` between blocks of layers; its stop if it stopped the
/// work. Pass [`Never`] for work that cannot be cancelled.
pub fn end_values_with<C: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    kind: KernelKind,
    opts: KernelOptions,
    cancel: &C,
) -> Result<EndValues, C::Stop> {
    let n = row.len();
    if n == 1 {
        return Ok(EndValues {
            left_of_tail: 0,
            right_of_head: 0,
        });
    }
    fn direct<W: Word, C: Cancel + ?Sized>(
        piles: &[u64],
        opts: KernelOptions,
        cancel: &C,
    ) -> Result<EndValues, C::Stop> {
        let a = direct::encode_row::<W>(piles);
        let (l, r) = direct::layer(&a, a.len() - 1, opts, cancel)?;
        Ok(EndValues {
            left_of_tail: l[1].decode(),
            right_of_head: r[0].decode(),
        })
    }
    match kind {
        KernelKind::Codes => {
            let (l, r) = codes::layer(row, n - 1, opts, cancel)?;
            Ok(EndValues {
                left_of_tail: codes::decode(l[1], row.last_pile()),
                right_of_head: codes::decode(r[0], row.first_pile()),
            })
        }
        // A word too narrow for the row would wrap: take the narrowest that
        // holds it.
        KernelKind::Direct(w) => {
            let max = row.iter().copied().max().unwrap_or(0);
            match w.max(Width::for_max_pile(max)) {
                Width::W16 => direct::<i16, C>(row, opts, cancel),
                Width::W32 => direct::<i32, C>(row, opts, cancel),
                Width::W64 => direct::<i64, C>(row, opts, cancel),
            }
        }
    }
}

/// The default kernel options for a row of `n` piles.
pub fn default_options(n: usize) -> KernelOptions {
    KernelOptions {
        parallel: n >= PARALLEL_MIN_PILES,
        ..KernelOptions::default()
    }
}

/// [`EndValues`] of a row with the default kernel and options.
pub fn end_values(row: &ValidRow<'_>) -> EndValues {
    let Ok(ends) = end_values_with(row, KernelKind::Codes, default_options(row.len()), &Never);
    ends
}

/// [`end_values`], polling `cancelled` between blocks of layers; `None` if
/// it returned true on the way.
pub fn end_values_cancellable(
    row: &ValidRow<'_>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<EndValues> {
    end_values_with(
        row,
        KernelKind::Codes,
        default_options(row.len()),
        cancelled,
    )
    .ok()
}

/// The verdict of a row: `true` when the first player wins.
fn wins_with<C: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    variant: Variant,
    cancel: &C,
) -> Result<bool, C::Stop> {
    match variant {
        Variant::Leftmost => Ok(leftmost::first_player_wins(row)),
        Variant::TwoEnds if row.len() == 1 => Ok(true),
        Variant::TwoEnds => {
            let opts = default_options(row.len());
            let ends = end_values_with(row, KernelKind::Codes, opts, cancel)?;
            Ok(row.first_pile() != ends.left_of_tail)
        }
    }
}

/// [`first_player_wins`] polling `cancelled` between blocks of layers;
/// `None` if it returned true on the way.
pub fn first_player_wins_cancellable(
    row: &ValidRow<'_>,
    variant: Variant,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<bool> {
    wins_with(row, variant, cancelled).ok()
}

/// Does the first player win on `row`?
pub fn first_player_wins(row: &ValidRow<'_>, variant: Variant) -> bool {
    let Ok(wins) = wins_with(row, variant, &Never);
    wins
}

/// Verdicts of many rows, in parallel, in input order. Each row is checked
/// once (at most [`MAX_PILES`] piles of 1 ..= 2^63−1 stones), without a
/// copy; an invalid row gets its error and does not stop the others.
pub fn solve_batch<R: AsRef<[u64]> + Sync>(
    rows: &[R],
    variant: Variant,
) -> Vec<Result<bool, RowError>> {
    rows.par_iter()
        .with_max_len(1)
        .map(|row| -> Result<bool, RowError> {
            let row = ValidRow::new(row.as_ref(), MAX_PILES)?;
            Ok(first_player_wins(&row, variant))
        })
        .collect()
}

/// Verdicts of many valid rows, in parallel, in input order.
pub fn solve_valid_batch(rows: &[ValidRow<'_>], variant: Variant) -> Vec<bool> {
    rows.par_iter()
        .with_max_len(1)
        .map(|row| first_player_wins(row, variant))
        .collect()
}
