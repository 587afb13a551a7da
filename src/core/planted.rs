//! Making first-player losses on purpose (docs/game.md, "Making losing positions").
//!
//! For any tail `a_2 … a_n`, the row `(t, a_2, …, a_n)` with
//! `t = left[2][n]` is lost for the first player whenever `t ≥ 1`. Random rows
//! are almost always wins, so test data must plant losses this way.

use super::cancel::Never;
use super::kernel::codes;
use super::row::{MAX_PILE, ValidRow};
use super::verdict::default_options;

/// `left[1][m]` of a row `b_1 … b_m`: the left pile that makes it lost.
pub fn left_of(row: &ValidRow<'_>) -> u64 {
    let n = row.len();
    let Ok((l, _)) = codes::layer(row, n, default_options(n), &Never);
    codes::decode(l[0], row.last_pile())
}

/// The lost row `(t, tail…)`, or `None` when `t` is 0 (the tail itself is
/// lost) or larger than [`MAX_PILE`].
pub fn plant_loss(tail: &ValidRow<'_>) -> Option<ValidRow<'static>> {
    let t = left_of(tail);
    if t == 0 || t > MAX_PILE {
        return None;
    }
    let mut row = Vec::with_capacity(tail.len() + 1);
    row.push(t);
    row.extend_from_slice(tail);
    // t is in 1 ..= MAX_PILE and the tail is valid.
    Some(ValidRow::from_valid_vec(row))
}
