//! Making first-player losses on purpose (SPEC "Making losing positions").
//!
//! For any tail `a_2 … a_n`, the row `(t, a_2, …, a_n)` with
//! `t = left[2][n]` is lost for the first player whenever `t ≥ 1`. Random rows
//! are almost always wins, so test data must plant losses this way.

use super::kernel::codes;
use super::row::{MAX_PILE, RowError, validate_row};
use super::verdict::default_options;

/// `left[1][m]` of a valid row `b_1 … b_m`: the left pile that makes it lost.
pub fn left_of(piles: &[u64]) -> Result<u64, RowError> {
    validate_row(piles, usize::MAX)?;
    let never = || false;
    let n = piles.len();
    let (l, _) = codes::layer(piles, n, default_options(n), &never).expect("never cancelled");
    Ok(codes::decode(l[0], piles[n - 1]))
}

/// The lost row `(t, tail…)`, or `None` when `t` is 0 (the tail itself is
/// lost) or larger than [`MAX_PILE`].
pub fn plant_loss(tail: &[u64]) -> Result<Option<Vec<u64>>, RowError> {
    let t = left_of(tail)?;
    if t == 0 || t > MAX_PILE {
        return Ok(None);
    }
    let mut row = Vec::with_capacity(tail.len() + 1);
    row.push(t);
    row.extend_from_slice(tail);
    Ok(Some(row))
}
