//! The codes kernel (the default): one byte per table entry, 32 cells per
//! 256-bit vector.
//!
//! SPEC §1: `left[i][j] ∈ {0, a_j − 1, a_j, a_j + 1}` and
//! `right[i][j] ∈ {0, a_i − 1, a_i, a_i + 1}`. So an entry is stored as a code
//! relative to its end pile: −1, 0, +1, or [`NO_PILE`] for the value 0.
//!
//! The recurrence only *compares* `X` with `L` and `R`. With codes, each such
//! comparison becomes "is the difference of two piles smaller or larger than
//! a code?", and for that the difference only matters clamped to −2 ..= 2. The
//! piles are first replaced by *coordinates* that keep both order and
//! adjacency (`v` and `v + 1` get neighbouring coordinates, other gaps become
//! 2), which fit in 16 bits for rows up to 32,768 piles and in 32 bits for
//! any row, whatever the pile sizes (up to 2^63 − 1).
//!
//! Per layer `k`, cell `i` (interval `[i, j]`, `j = i + k − 1`):
//!
//! * `D = clamp(c_j − c_i)`: pile `j` against pile `i`, computed each layer;
//! * `E_j = clamp(c_j − c_{j−1})` and `F_i = clamp(c_i − c_{i+1})`: fixed.
//!
//! `left[i][j]` compares `X = a_j` with `R = right[i][j−1]` (relative to
//! `a_i`, so through `D`) and `L = left[i][j−1]` (relative to `a_{j−1}`, so
//! through `E_j`); `right[i][j]` compares `X = a_i` with `L' = left[i+1][j]`
//! (through `−D`) and `R' = right[i+1][j]` (through `F_i`). See [`step`].

use super::{Advance, KernelOptions, Layers, PAD, multiversion, run_layers};

/// The code of the value 0 ("no pile"): below every clamped difference.
pub const NO_PILE: i8 = i8::MIN;

/// A pile coordinate: 16 or 32 bits, always ≥ 0. The narrowest type that
/// holds the row's coordinates is used (`i16`, then `u16`, then `i32`).
pub trait Coord: Copy + Default + Send + Sync + 'static {
    /// Largest coordinate this type holds.
    const MAX: u32;
    /// Whether [`Coord::saturated_diff`] already clamps to −2 ..= 2.
    const CLAMPED: bool;
    fn from_u32(v: u32) -> Self;
    /// `hi − lo`, saturated to the `i8` range; the kernel clamps it further
    /// to −2 ..= 2 on 8-bit lanes, where that is cheapest.
    fn saturated_diff(hi: Self, lo: Self) -> i8;
}

macro_rules! coord {
    ($t:ty) => {
        impl Coord for $t {
            const MAX: u32 = <$t>::MAX as u32;
            const CLAMPED: bool = false;
            #[inline(always)]
            fn from_u32(v: u32) -> Self {
                v as $t
            }
            #[inline(always)]
            fn saturated_diff(hi: Self, lo: Self) -> i8 {
                // Both are in 0 ..= MAX, so the difference does not overflow;
                // the saturating narrowing compiles to pack instructions.
                (hi - lo).clamp(i8::MIN as $t, i8::MAX as $t) as i8
            }
        }
    };
}
coord!(i16);
coord!(i32);

impl Coord for u16 {
    const MAX: u32 = u16::MAX as u32;
    const CLAMPED: bool = true;
    #[inline(always)]
    fn from_u32(v: u32) -> Self {
        v as u16
    }
    #[inline(always)]
    fn saturated_diff(hi: Self, lo: Self) -> i8 {
        // Saturating differences keep every lane within 16 bits.
        hi.saturating_sub(lo).min(2) as i8 - lo.saturating_sub(hi).min(2) as i8
    }
}

/// Coordinates of the piles that keep order and adjacency: for any two piles,
/// `clamp(c_x − c_y, −2, 2) == clamp(a_x − a_y, −2, 2)`. The largest
/// coordinate is at most `2 (n − 1)`.
pub fn coordinates(piles: &[u64]) -> Vec<u32> {
    let mut values = piles.to_vec();
    values.sort_unstable();
    values.dedup();
    let mut coord = Vec::with_capacity(values.len());
    let mut c = 0u32;
    for (t, &v) in values.iter().enumerate() {
        if t > 0 {
            c += if v == values[t - 1] + 1 { 1 } else { 2 };
        }
        coord.push(c);
    }
    piles
        .iter()
        .map(|v| match values.binary_search(v) {
            Ok(idx) => coord[idx],
            Err(_) => unreachable!("every pile is among the sorted values"),
        })
        .collect()
}

/// One entry of the recurrence in codes. `X` is compared with `P` (through
/// `dp = clamp(X − base of P)`, code `p`) and `Q` (through `dq`, code `q`):
///
/// * `X == P` → 0 ([`NO_PILE`]);
/// * `X < P` and `X ≥ Q` → `X + 1`; `X > P` and `X ≤ Q` → `X − 1`;
/// * otherwise → `X`.
///
/// For `left[i][j]`, `P = right[i][j−1]` and `Q = left[i][j−1]`; for
/// `right[i][j]`, `P = left[i+1][j]` and `Q = right[i+1][j]` (SPEC §1).
#[inline(always)]
pub fn step(p: i8, q: i8, dp: i8, dq: i8) -> i8 {
    let x_lt_p = p > dp;
    let x_gt_p = dp > p;
    let plus = x_lt_p & (q <= dq);
    let minus = x_gt_p & (dq <= q);
    let v = (plus as i8) - (minus as i8);
    if x_lt_p | x_gt_p { v } else { NO_PILE }
}

/// Turns a code back into a value, given its end pile.
pub fn decode(code: i8, end: u64) -> u64 {
    if code == NO_PILE {
        0
    } else {
        end.wrapping_add_signed(i64::from(code))
    }
}

/// One layer on `m` cells, in whole chunks of [`PAD`] cells (the slices
/// reach at least that far: see [`Layers`]). `D` stays in registers.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn layer_body<C: Coord>(
    m: usize,
    c_lo: &[C],
    c_hi: &[C],
    e_hi: &[i8],
    f_lo: &[i8],
    old_l: &[i8],
    old_r: &[i8],
    new_l: &mut [i8],
    new_r: &mut [i8],
) {
    for s in (0..m).step_by(PAD) {
        let chunk =
            |x: &[i8], at: usize| -> [i8; PAD] { x[at..at + PAD].try_into().expect("padded") };
        let c_lo: &[C; PAD] = c_lo[s..s + PAD].try_into().expect("padded");
        let c_hi: &[C; PAD] = c_hi[s..s + PAD].try_into().expect("padded");
        let (e, f) = (chunk(e_hi, s), chunk(f_lo, s));
        let (l0, r0, l1, r1) = (
            chunk(old_l, s),
            chunk(old_r, s),
            chunk(old_l, s + 1),
            chunk(old_r, s + 1),
        );
        let mut d = [0i8; PAD];
        for t in 0..PAD {
            let v = C::saturated_diff(c_hi[t], c_lo[t]);
            d[t] = if C::CLAMPED { v } else { v.clamp(-2, 2) };
        }
        let (mut nl, mut nr) = ([0i8; PAD], [0i8; PAD]);
        for t in 0..PAD {
            nl[t] = step(r0[t], l0[t], d[t], e[t]);
            nr[t] = step(l1[t], r1[t], -d[t], f[t]);
        }
        new_l[s..s + PAD].copy_from_slice(&nl);
        new_r[s..s + PAD].copy_from_slice(&nr);
    }
}

/// The fixed per-row data of the kernel.
pub(crate) struct Row<'a, C> {
    c: &'a [C],
    e: &'a [i8],
    f: &'a [i8],
}

#[inline(always)]
fn advance_body<C: Coord>(
    row: &Row<'_, C>,
    c0: usize,
    k0: usize,
    steps: usize,
    st: &mut Layers<i8>,
) {
    for k in k0 + 1..=k0 + steps {
        let m = st.len - 1;
        layer_body(
            m,
            &row.c[c0..],
            &row.c[c0 + k - 1..],
            &row.e[c0 + k - 1..],
            &row.f[c0..],
            &st.l,
            &st.r,
            &mut st.tl,
            &mut st.tr,
        );
        st.swap();
    }
}

multiversion!(fn advance<C: Coord>(row: &Row<'_, C>, c0: usize, k0: usize, steps: usize, st: &mut Layers<i8>) => advance_body);

struct Codes<'a, C> {
    row: Row<'a, C>,
    opts: KernelOptions,
}

impl<C: Coord> Advance<i8> for Codes<'_, C> {
    fn advance(&self, c0: usize, k0: usize, steps: usize, st: &mut Layers<i8>) {
        advance(self.opts.isa, &self.row, c0, k0, steps, st)
    }
}

fn clamp2(d: i64) -> i8 {
    d.clamp(-2, 2) as i8
}

fn run<C: Coord>(
    coords: &[u32],
    last: usize,
    opts: KernelOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<(Vec<i8>, Vec<i8>)> {
    let n = coords.len();
    // Each per-row array has PAD entries of slack for the chunked kernel.
    let mut c: Vec<C> = coords.iter().map(|&v| C::from_u32(v)).collect();
    c.resize(n + PAD, C::default());
    let diff = |x: usize, y: usize| clamp2(i64::from(coords[x]) - i64::from(coords[y]));
    let e: Vec<i8> = (0..n + PAD)
        .map(|j| if j == 0 || j >= n { 0 } else { diff(j, j - 1) })
        .collect();
    let f: Vec<i8> = (0..n + PAD)
        .map(|i| if i + 1 >= n { 0 } else { diff(i, i + 1) })
        .collect();
    let kernel = Codes {
        row: Row {
            c: &c,
            e: &e,
            f: &f,
        },
        opts,
    };
    // Layer 1: left[i][i] = right[i][i] = a_i, code 0 relative to itself.
    run_layers(vec![0; n], vec![0; n], last, opts, &kernel, cancelled)
}

/// Layer `last` (`1 ≤ last ≤ n`) of a valid row: the codes of its `left`
/// entries (relative to `a_j`) and `right` entries (relative to `a_i`).
/// `None` if cancelled.
pub fn layer(
    piles: &[u64],
    last: usize,
    opts: KernelOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<(Vec<i8>, Vec<i8>)> {
    let coords = coordinates(piles);
    let max = coords.iter().copied().max().unwrap_or(0);
    if max <= <i16 as Coord>::MAX {
        run::<i16>(&coords, last, opts, cancelled)
    } else if max <= <u16 as Coord>::MAX {
        run::<u16>(&coords, last, opts, cancelled)
    } else {
        run::<i32>(&coords, last, opts, cancelled)
    }
}
