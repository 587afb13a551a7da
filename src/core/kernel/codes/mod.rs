//! The codes kernel (the default): one byte per table entry, 32 cells per
//! 256-bit vector.
//!
//! docs/game.md §1: `left[i][j] ∈ {0, a_j − 1, a_j, a_j + 1}` and
//! `right[i][j] ∈ {0, a_i − 1, a_i, a_i + 1}`. So an entry is stored as a
//! *code* relative to its end pile: −1, 0, +1, or [`NO_PILE`] for the value 0.
//!
//! The recurrence only *compares* `X` with `L` and `R`. With codes, each such
//! comparison becomes "is the difference of two piles smaller or larger than
//! a code?", and for that the difference only matters clamped to −2 ..= 2. The
//! piles are first replaced by *coordinates* that keep both order and
//! adjacency (`v` and `v + 1` get neighbouring coordinates, other gaps become
//! 2), which fit in 16 bits for rows up to 32,767 piles and in 32 bits for
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
//!
//! Two implementations of one layer pass: a portable one ([`step`], which the
//! compiler vectorises for the baseline target), and on x86-64 one written
//! with AVX2 intrinsics (`avx2`), which turns each step into three byte
//! table lookups (`vpshufb`). Tests hold each against the other.

#[cfg(target_arch = "x86_64")]
mod avx2;
pub(crate) mod from_layer;

use super::{Advance, KernelOptions, Layers, PAD, run_layers};
use crate::core::cancel::Cancel;
use crate::core::row::ValidRow;

/// The code of the value 0 ("no pile"): below every clamped difference it
/// is compared with (−2 and up), so 0 is smaller than every pile and equal
/// to none. The other codes are −1, 0 and +1.
pub const NO_PILE: i8 = -3;

/// Inside a run, `left` codes are stored as `code + LEFT_BIAS` and `right`
/// codes as `code + RIGHT_BIAS`: the biases that keep every quantity the
/// AVX2 pass looks up within 0 ..= 15 (see `avx2`). [`layer`] returns plain
/// codes.
pub(crate) const LEFT_BIAS: i8 = 8;
/// See [`LEFT_BIAS`].
pub(crate) const RIGHT_BIAS: i8 = -4;

/// Which coordinate type a run uses; the narrowest that fits is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordWidth {
    /// 16-bit coordinates (any row of up to 32,767 piles).
    Narrow,
    /// 32-bit coordinates (any row).
    Wide,
}

/// A pile coordinate: 16 or 32 bits.
pub trait Coord: Copy + Default + Send + Sync + 'static {
    /// Largest coordinate this type holds, with room for `+ 2` (the AVX2
    /// pass reads the coordinates plus 2 as well).
    const MAX: u32;
    /// Whether this is the 32-bit type (for the AVX2 kernel).
    const WIDE: bool;
    fn from_u32(v: u32) -> Self;
    /// `hi − lo`, saturated to the `i8` range (the sign is always right).
    fn saturated_diff(hi: Self, lo: Self) -> i8;
}

/// 16-bit coordinates are stored as `c − 32768`, so that the whole range
/// 0 ..= 65535 fits: a saturating subtraction of two biased coordinates has
/// the sign of the true difference and equals it whenever it is small, which
/// is all the kernel needs (it compiles to `vpsubsw`).
impl Coord for i16 {
    const MAX: u32 = u16::MAX as u32 - 2;
    const WIDE: bool = false;
    #[inline(always)]
    fn from_u32(v: u32) -> Self {
        (v as i32 - 32_768) as i16
    }
    #[inline(always)]
    fn saturated_diff(hi: Self, lo: Self) -> i8 {
        hi.saturating_sub(lo).clamp(i8::MIN as i16, i8::MAX as i16) as i8
    }
}

impl Coord for i32 {
    const MAX: u32 = i32::MAX as u32 - 2;
    const WIDE: bool = true;
    #[inline(always)]
    fn from_u32(v: u32) -> Self {
        v as i32
    }
    #[inline(always)]
    fn saturated_diff(hi: Self, lo: Self) -> i8 {
        // Both are in 0 ..= i32::MAX, so the difference does not overflow.
        (hi - lo).clamp(i8::MIN as i32, i8::MAX as i32) as i8
    }
}

/// Coordinates of the piles that keep order and adjacency: for any two piles,
/// `clamp(c_x − c_y, −2, 2) == clamp(a_x − a_y, −2, 2)`. The largest
/// coordinate is at most `2 (n − 1)`.
pub fn coordinates(piles: &[u64]) -> Vec<u32> {
    let n = piles.len();
    let max = piles.iter().copied().max().unwrap_or(0);
    let mut coord = vec![0u32; n];
    if n <= 1 << INDEX_BITS && max < 1 << (64 - INDEX_BITS) {
        // Value and index in one word: sorting plain `u64`s is about twice
        // as fast as sorting pairs.
        let mut keys: Vec<u64> = piles
            .iter()
            .enumerate()
            .map(|(i, &v)| (v << INDEX_BITS) | i as u64)
            .collect();
        keys.sort_unstable();
        let mask = (1u64 << INDEX_BITS) - 1;
        assign(
            keys.iter().map(|&k| (k >> INDEX_BITS, (k & mask) as usize)),
            &mut coord,
        );
    } else {
        let mut pairs: Vec<(u64, usize)> = piles.iter().copied().zip(0..).collect();
        pairs.sort_unstable();
        assign(pairs.into_iter(), &mut coord);
    }
    coord
}

/// Bits of a pile's index in [`coordinates`]' packed keys (rows of up to
/// 262,144 piles with values below 2^46).
const INDEX_BITS: u32 = 18;

/// Gives the piles, visited in increasing order as `(value, index)`, their
/// coordinates: equal values the same, a value one above the previous one
/// the next coordinate, any larger step two more.
fn assign(sorted: impl Iterator<Item = (u64, usize)>, coord: &mut [u32]) {
    let mut prev: Option<(u64, u32)> = None;
    for (v, i) in sorted {
        let c = match prev {
            None => 0,
            Some((pv, pc)) if pv == v => pc,
            Some((pv, pc)) if pv + 1 == v => pc + 1,
            Some((_, pc)) => pc + 2,
        };
        coord[i] = c;
        prev = Some((v, c));
    }
}

/// One entry of the recurrence in codes. `X` is compared with `P` (through
/// `dp = clamp(X − base of P)`, code `p`) and `Q` (through `dq`, code `q`):
///
/// * `X == P` → 0 ([`NO_PILE`]);
/// * `X < P` and `X ≥ Q` → `X + 1`; `X > P` and `X ≤ Q` → `X − 1`;
/// * otherwise → `X`.
///
/// For `left[i][j]`, `P = right[i][j−1]` and `Q = left[i][j−1]`; for
/// `right[i][j]`, `P = left[i+1][j]` and `Q = right[i+1][j]` (docs/game.md §1).
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
    let cells = m.div_ceil(PAD) * PAD;
    fn chunks(x: &[i8], from: usize, cells: usize) -> &[[i8; PAD]] {
        x[from..from + cells].as_chunks::<PAD>().0
    }
    let (c_lo, c_hi) = (
        c_lo[..cells].as_chunks::<PAD>().0,
        c_hi[..cells].as_chunks::<PAD>().0,
    );
    let (e, f) = (chunks(e_hi, 0, cells), chunks(f_lo, 0, cells));
    let (l0, r0, l1, r1) = (
        chunks(old_l, 0, cells),
        chunks(old_r, 0, cells),
        chunks(old_l, 1, cells),
        chunks(old_r, 1, cells),
    );
    let new_l = new_l[..cells].as_chunks_mut::<PAD>().0;
    let new_r = new_r[..cells].as_chunks_mut::<PAD>().0;
    for (s, (nl, nr)) in new_l.iter_mut().zip(new_r.iter_mut()).enumerate() {
        let (c_lo, c_hi, e, f) = (&c_lo[s], &c_hi[s], &e[s], &f[s]);
        let (l0, r0, l1, r1) = (&l0[s], &r0[s], &l1[s], &r1[s]);
        // Two loops, so that the byte loop runs at full byte width.
        let mut d = [0i8; PAD];
        for t in 0..PAD {
            d[t] = C::saturated_diff(c_hi[t], c_lo[t]).clamp(-2, 2);
        }
        let (lb, rb) = (LEFT_BIAS, RIGHT_BIAS);
        for t in 0..PAD {
            // (Wrapping: the cells past the layer's end hold garbage.)
            let nl_t = step(r0[t].wrapping_sub(rb), l0[t].wrapping_sub(lb), d[t], e[t]);
            let nr_t = step(l1[t].wrapping_sub(lb), r1[t].wrapping_sub(rb), -d[t], f[t]);
            nl[t] = nl_t.wrapping_add(lb);
            nr[t] = nr_t.wrapping_add(rb);
        }
    }
}

/// The fixed per-row data of the kernel.
pub(crate) struct Row<'a, C> {
    c: &'a [C],
    /// `c + 2`.
    c2: &'a [C],
    e: &'a [i8],
    f: &'a [i8],
}

/// The portable kernel: `steps` layers from layer `k0` of cells from `c0`.
fn advance_portable<C: Coord>(
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

struct Codes<'a, C> {
    row: Row<'a, C>,
    opts: KernelOptions,
}

impl<C: Coord> Advance<i8> for Codes<'_, C> {
    fn advance(&self, c0: usize, k0: usize, steps: usize, st: &mut Layers<i8>) {
        #[cfg(target_arch = "x86_64")]
        if matches!(
            self.opts.isa.supported(),
            super::Isa::Avx2 | super::Isa::Avx512
        ) {
            // SAFETY: `supported()` returns these only when the CPU has AVX2.
            unsafe { avx2::advance(&self.row, c0, k0, steps, st) };
            return;
        }
        advance_portable(&self.row, c0, k0, steps, st)
    }
}

fn clamp2(d: i64) -> i8 {
    d.clamp(-2, 2) as i8
}

fn run<C: Coord, X: Cancel + ?Sized>(
    coords: &[u32],
    last: usize,
    opts: KernelOptions,
    cancel: &X,
) -> Result<(Vec<i8>, Vec<i8>), X::Stop> {
    let n = coords.len();
    // Each per-row array has PAD entries of slack for the chunked kernels.
    let mut c: Vec<C> = coords.iter().map(|&v| C::from_u32(v)).collect();
    c.resize(n + PAD, C::default());
    let mut c2: Vec<C> = coords.iter().map(|&v| C::from_u32(v + 2)).collect();
    c2.resize(n + PAD, C::default());
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
            c2: &c2,
            e: &e,
            f: &f,
        },
        opts,
    };
    // Layer 1: left[i][i] = right[i][i] = a_i, code 0 relative to itself.
    let init = (vec![LEFT_BIAS; n], vec![RIGHT_BIAS; n]);
    let (mut l, mut r) = run_layers(init.0, init.1, last, opts, &kernel, cancel)?;
    l.iter_mut().for_each(|c| *c -= LEFT_BIAS);
    r.iter_mut().for_each(|c| *c -= RIGHT_BIAS);
    Ok((l, r))
}

/// The narrowest coordinate type that holds `coords`.
pub fn narrowest(coords: &[u32]) -> CoordWidth {
    let max = coords.iter().copied().max().unwrap_or(0);
    if max <= <i16 as Coord>::MAX {
        CoordWidth::Narrow
    } else {
        CoordWidth::Wide
    }
}

/// Layer `last` (`1 ≤ last ≤ n`) of a row: the codes of its `left`
/// entries (relative to `a_j`) and `right` entries (relative to `a_i`);
/// [`decode`] turns them into values. The stop of `cancel` if it stopped
/// the run.
///
/// # Panics
/// If `last` is not in `1 ..= n`.
pub fn layer<X: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    last: usize,
    opts: KernelOptions,
    cancel: &X,
) -> Result<(Vec<i8>, Vec<i8>), X::Stop> {
    layer_with(row, last, opts, None, cancel)
}

/// [`layer`] with the coordinate type forced (`None`: the narrowest that
/// fits; `Narrow` on a row whose coordinates need 32 bits is widened).
pub fn layer_with<X: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    last: usize,
    opts: KernelOptions,
    width: Option<CoordWidth>,
    cancel: &X,
) -> Result<(Vec<i8>, Vec<i8>), X::Stop> {
    let coords = coordinates(row);
    let width = match (narrowest(&coords), width) {
        (CoordWidth::Narrow, Some(CoordWidth::Wide)) => CoordWidth::Wide,
        (fits, _) => fits,
    };
    match width {
        CoordWidth::Narrow => run::<i16, X>(&coords, last, opts, cancel),
        CoordWidth::Wide => run::<i32, X>(&coords, last, opts, cancel),
    }
}

#[cfg(test)]
mod tests {
    use super::coordinates;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The defining property, on every pair, for rows that take the packed
    /// path (small values, many equal and adjacent) and the pairs path
    /// (values from 2^46 up to 2^63 − 1).
    #[test]
    fn coordinates_keep_order_and_adjacency() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let bases = [1u64, 1 << 40, (1 << 46) - 3, 1 << 46, (1 << 63) - 12];
        for &base in &bases {
            for _ in 0..50 {
                let n = rng.random_range(1..=60);
                let spread = rng.random_range(1..=12u64);
                let row: Vec<u64> = (0..n)
                    .map(|_| (base + rng.random_range(0..spread)).min((1 << 63) - 1))
                    .collect();
                let c = coordinates(&row);
                assert_eq!(c.iter().min(), Some(&0));
                assert!(c.iter().all(|&x| x as usize <= 2 * (n - 1)));
                for x in 0..n {
                    for y in 0..n {
                        let want = (i128::from(row[x]) - i128::from(row[y])).clamp(-2, 2);
                        let got = (i64::from(c[x]) - i64::from(c[y])).clamp(-2, 2);
                        assert_eq!(i128::from(got), want, "{row:?}");
                    }
                }
            }
        }
    }
}
