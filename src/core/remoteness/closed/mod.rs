//! The two-ends remoteness in O(1) per interval, from the closed form of
//! the lost rows (docs/game.md §5, "The closed form"): every lost row
//! `(x, I, y)` with x, y ≥ 1 has remoteness `2m + δ(I) + 2·[m < max(L, R)]`,
//! m = min(x, y), with one integer δ per interior I. That form is a
//! conjecture, checked against the game tree and the exact piecewise-linear
//! DP ([`super::dp`]); this algorithm is exact wherever it holds.
//!
//! Each interval keeps five numbers ([`Interval`]): its `left`/`right`
//! table entries L and R, δ, and the remoteness of its two lost rows with
//! one end pile removed, `rem(L, I)` and `rem(I, R)`. An interval's numbers
//! come from its two sub-intervals of one pile fewer by evaluating the
//! curve recursion at its first point (y = 1, or 2 when R = 1). Only the
//! previous layer of interval lengths is kept (O(n) memory, O(n²) time),
//! as five arrays, and a layer pass is branch-free so that it vectorises;
//! it is compiled per instruction set like the verdict kernels.
//!
//! [`value`] holds the integer widths, [`interval`] one interval's
//! arithmetic, [`layers`] the passes over layers and blocks; this module
//! picks the width for a row and turns its top into the DP's functions.

mod interval;
mod layers;
mod value;

pub use interval::Interval;
#[cfg(test)]
pub use layers::{BLOCK_CELLS, BLOCK_LAYERS};
pub use layers::{Plan, Top, top};
pub use value::width;

use std::num::Wrapping;

use super::super::cancel::Cancel;
use super::dp::{RowFunctions, Scratch, left_free, right_free};
use super::pl::{END, Pl};

/// The top of a two-ends row of n ≥ 2 piles in `i128` numbers, computed
/// in the [`width`] the row allows; `None` when the tripwire went off.
pub fn top_wide<C: Cancel + ?Sized>(
    piles: &[u64],
    cancel: &C,
) -> Result<Option<Top<i128>>, C::Stop> {
    let plan = Plan::best();
    Ok(match width(piles) {
        32 => top::<Wrapping<i32>, C>(piles, plan, cancel)?.map(|t| t.widen()),
        64 => top::<Wrapping<i64>, C>(piles, plan, cancel)?.map(|t| t.widen()),
        _ => top::<i128, C>(piles, plan, cancel)?,
    })
}

/// The DP's functions of the whole row (n ≥ 2) from its top: the curve of
/// its interior as a piecewise-linear function, then `P` and `Q` by the
/// DP's own steps.
pub fn row_functions(piles: &[u64], t: &Top<i128>) -> RowFunctions {
    let n = piles.len();
    let iv = &t.inner;
    let mut ws = Scratch::default();
    curve_function(iv, &mut ws.c);
    let (first, last) = (i128::from(piles[0]), i128::from(piles[n - 1]));
    let mut left = Pl::default();
    let mut right = Pl::default();
    left_free(&mut ws, iv.l, iv.r, last, t.without_first, &mut left);
    right_free(&mut ws, iv.l, iv.r, first, t.without_last, &mut right);
    let max_pieces = ws.c.len().max(left.len()).max(right.len());
    RowFunctions {
        left,
        right,
        max_pieces,
    }
}

/// Into `out`: the curve `C(y)` of an interval on `0 .. END`, from its
/// closed form (`C(0) = rem(L, I)`, `C(R) = rem(I, R)`): linear between
/// the points where a case of the form changes.
fn curve_function(iv: &Interval<i128>, out: &mut Pl) {
    let (l, r) = (iv.l, iv.r);
    let mu = l.max(r);
    let mut cuts = [0, 1, r, r + 1, l, l + 1, mu, mu + 1];
    cuts.sort_unstable();
    let at = |y: i128| if y == 0 { iv.c0 } else { iv.curve_at(y) };
    out.clear();
    for (k, &s) in cuts.iter().enumerate() {
        let e = cuts.get(k + 1).copied().unwrap_or(END);
        if s >= e {
            continue;
        }
        // A piece of one point leans towards the next, so that it merges
        // with it when they are collinear.
        out.push(s, at(s), at(s + 1) - at(s));
    }
}
