//! Verdicts of the two-ends game in O(n) memory, for one row or a batch.
//!
//! The verdict and both winning moves of a row `a_1 … a_n` (n ≥ 2) follow
//! from two numbers (SPEC §1): `t = left[2][n]` and `u = right[1][n−1]`, the
//! two cells of layer `n − 1`. [`end_values_cancellable`] computes them with the
//! [`kernel`](super::kernel).

use rayon::prelude::*;

use super::kernel::direct::{self, Width, Word};
use super::kernel::{Isa, KernelOptions, codes};
use super::leftmost;
use super::row::{MAX_PILES, RowError, Variant, validate_row};

/// The two table entries that decide a row of n ≥ 2 piles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndValues {
    /// `left[2][n]`: the left pile that would make `a_2 … a_n` lost.
    pub left_of_tail: u64,
    /// `right[1][n−1]`: the right pile that would make `a_1 … a_{n−1}` lost.
    pub right_of_head: u64,
}

/// Rows with at least this many piles split their layers across cores.
pub const PARALLEL_MIN_PILES: usize = 20_000;

/// Which kernel computes the layers (see [`kernel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    /// One byte per entry, coordinates instead of piles (the default).
    Codes,
    /// Entries as biased words of the given width.
    Direct(Width),
}

/// Computes [`EndValues`] of a valid row of at least two piles.
///
/// Returns `None` only if `cancelled` returned true on the way.
pub fn end_values_with(
    piles: &[u64],
    kind: KernelKind,
    opts: KernelOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<EndValues> {
    debug_assert!(piles.len() >= 2);
    let n = piles.len();
    fn direct<W: Word>(
        piles: &[u64],
        opts: KernelOptions,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Option<EndValues> {
        let a = direct::encode_row::<W>(piles);
        let (l, r) = direct::layer(&a, a.len() - 1, opts, cancelled)?;
        Some(EndValues {
            left_of_tail: l[1].decode(),
            right_of_head: r[0].decode(),
        })
    }
    match kind {
        KernelKind::Codes => {
            let (l, r) = codes::layer(piles, n - 1, opts, cancelled)?;
            Some(EndValues {
                left_of_tail: codes::decode(l[1], piles[n - 1]),
                right_of_head: codes::decode(r[0], piles[0]),
            })
        }
        KernelKind::Direct(Width::W16) => direct::<i16>(piles, opts, cancelled),
        KernelKind::Direct(Width::W32) => direct::<i32>(piles, opts, cancelled),
        KernelKind::Direct(Width::W64) => direct::<i64>(piles, opts, cancelled),
    }
}

/// The default kernel options for a row of `n` piles.
pub fn default_options(n: usize) -> KernelOptions {
    KernelOptions {
        isa: Isa::detect(),
        parallel: n >= PARALLEL_MIN_PILES,
        blocking: true,
    }
}

/// [`EndValues`] of a valid row of at least two piles with the default
/// kernel and options; `None` if `cancelled` returned true.
pub fn end_values_cancellable(
    piles: &[u64],
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<EndValues> {
    end_values_with(
        piles,
        KernelKind::Codes,
        default_options(piles.len()),
        cancelled,
    )
}

/// Decides a validated row with a cancellation check; `None` if cancelled.
pub fn first_player_wins_cancellable(
    piles: &[u64],
    variant: Variant,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<bool> {
    match variant {
        Variant::Leftmost => Some(leftmost::first_player_wins(piles)),
        Variant::TwoEnds => {
            if piles.len() == 1 {
                return Some(true);
            }
            let ends = end_values_cancellable(piles, cancelled)?;
            Some(piles[0] != ends.left_of_tail)
        }
    }
}

/// Does the first player win on `piles`? Validates the row (at most
/// [`MAX_PILES`] piles of 1 ..= 2^63−1 stones).
pub fn first_player_wins(piles: &[u64], variant: Variant) -> Result<bool, RowError> {
    validate_row(piles, MAX_PILES)?;
    let never = || false;
    Ok(first_player_wins_cancellable(piles, variant, &never).expect("never cancelled"))
}

/// Verdicts of many rows, in parallel, in input order.
pub fn solve_batch<R: AsRef<[u64]> + Sync>(
    rows: &[R],
    variant: Variant,
) -> Vec<Result<bool, RowError>> {
    rows.par_iter()
        .with_max_len(1)
        .map(|row| first_player_wins(row.as_ref(), variant))
        .collect()
}
