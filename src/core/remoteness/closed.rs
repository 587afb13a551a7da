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

use std::num::Wrapping;

use rayon::prelude::*;

use super::super::cancel::Cancel;
use super::super::kernel::{Isa, multiversion};
use super::dp::{RowFunctions, Scratch, left_free, right_free};
use super::pl::{END, Pl};

/// The signed integer every number of an interval is kept in: the
/// narrowest of `i32`, `i64` and `i128` that holds [`value_bound`] with
/// room to spare ([`top_wide`] picks it). Narrower numbers put more
/// intervals in one vector instruction: `i32` runs twice as fast as `i64`.
pub trait Value:
    Copy
    + Default
    + Ord
    + Send
    + Sync
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitAnd<Output = Self>
    + 'static
{
    /// A value far above every remoteness, still safe to add 1 to.
    const HUGE: Self;
    /// `v` as a value.
    fn of(v: u64) -> Self;
    /// The value as an `i128`.
    fn wide(self) -> i128;
    /// 1 if `b` else 0.
    fn bit(b: bool) -> Self;
}

// `i32` and `i64` wrap: no number of a row of their width comes near
// overflow ([`width`]), and overflow checks (on in test builds) would keep
// the pass from vectorising.
impl Value for Wrapping<i32> {
    const HUGE: Self = Wrapping(i32::MAX - 1);
    #[inline(always)]
    fn of(v: u64) -> Self {
        Wrapping(v as i32)
    }
    #[inline(always)]
    fn wide(self) -> i128 {
        i128::from(self.0)
    }
    #[inline(always)]
    fn bit(b: bool) -> Self {
        Wrapping(b as i32)
    }
}

impl Value for Wrapping<i64> {
    const HUGE: Self = Wrapping(i64::MAX - 1);
    #[inline(always)]
    fn of(v: u64) -> Self {
        Wrapping(v as i64)
    }
    #[inline(always)]
    fn wide(self) -> i128 {
        i128::from(self.0)
    }
    #[inline(always)]
    fn bit(b: bool) -> Self {
        Wrapping(b as i64)
    }
}

impl Value for i128 {
    const HUGE: Self = i128::MAX / 4;
    #[inline(always)]
    fn of(v: u64) -> Self {
        i128::from(v)
    }
    #[inline(always)]
    fn wide(self) -> i128 {
        self
    }
    #[inline(always)]
    fn bit(b: bool) -> Self {
        b as i128
    }
}

/// A bound on every number the layers of a row keep or compute, while the
/// tripwire holds (δ of an interval of k piles in `0 ..= 2k`): table
/// entries are at most the largest pile + 1, and every remoteness is a
/// curve value `2m + δ + 2` (m ≤ largest pile + 1) plus a few plies.
pub fn value_bound(piles: &[u64]) -> u128 {
    let max = u128::from(piles.iter().copied().max().unwrap_or(0));
    2 * max + 2 * piles.len() as u128 + 64
}

/// The width the layers of a row run in: `i32` when [`value_bound`] is
/// below its [`Value::HUGE`] (piles up to about 10^9), `i64` likewise
/// (piles below 2^62), else `i128`.
pub fn width(piles: &[u64]) -> u32 {
    match value_bound(piles) {
        b if b < <Wrapping<i32>>::HUGE.0 as u128 => 32,
        b if b < <Wrapping<i64>>::HUGE.0 as u128 => 64,
        _ => 128,
    }
}

/// What an interval I keeps: `l = L`, `r = R` (the end piles that make
/// `(L, I)` and `(I, R)` lost; 0 when I itself is lost), `delta = δ(I)`,
/// `c0 = rem(L, I)` and `cr = rem(I, R)`. The empty interval has all five 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Interval<T> {
    pub l: T,
    pub r: T,
    pub delta: T,
    pub c0: T,
    pub cr: T,
}

/// `f(y)` of an interior with end values `(l, r)`, y ≥ 1: the left pile
/// that makes `(f(y), I, y)` lost (docs/game.md §1: the same step as the
/// `left` table's).
#[inline(always)]
fn curve<T: Value>(l: T, r: T, y: T) -> T {
    let plus = T::bit((y < r) & (y >= l));
    let minus = T::bit((y > r) & (y <= l));
    let v = y + plus - minus;
    if y == r { T::default() } else { v }
}

/// `f⁻¹(x)` of an interior with end values `(l, r)`, x ≥ 1 (the `right`
/// table's step).
#[inline(always)]
fn curve_inv<T: Value>(l: T, r: T, x: T) -> T {
    curve(r, l, x)
}

impl<T: Value> Interval<T> {
    /// The same numbers as `i128`.
    pub fn widen(&self) -> Interval<i128> {
        Interval {
            l: self.l.wide(),
            r: self.r.wide(),
            delta: self.delta.wide(),
            c0: self.c0.wide(),
            cr: self.cr.wide(),
        }
    }

    /// `C(y)` by the closed form, for y ≥ 1 other than R: the remoteness
    /// of the lost row `(f(y), I, y)`, `2m + δ + 2·[m < max(L, R)]` with
    /// `m = min(f(y), y)`.
    #[inline(always)]
    fn formula(&self, y: T) -> T {
        let m = y - T::bit((self.l > self.r) & (self.r < y) & (y <= self.l));
        let high = T::bit(m < self.l.max(self.r));
        m + m + self.delta + high + high
    }

    /// `C(y)` for any y ≥ 1.
    #[inline(always)]
    fn curve_at(&self, y: T) -> T {
        if y == self.r {
            self.cr
        } else {
            self.formula(y)
        }
    }

    /// The remoteness of the row `(x, I, y)`, x, y ≥ 1: lost on the curve,
    /// else 1 + the smaller of its (at most two) lost children's.
    #[inline(always)]
    pub fn row(&self, x: T, y: T) -> T {
        let one = T::of(1);
        let fy = curve(self.l, self.r, y);
        let yi = curve_inv(self.l, self.r, x);
        let cy = self.curve_at(y);
        let cyi = if yi == T::default() {
            self.c0
        } else {
            self.curve_at(yi)
        };
        let a = if fy < x { cy } else { T::HUGE };
        let b = if yi < y { cyi } else { T::HUGE };
        if x == fy { cy } else { one + a.min(b) }
    }

    /// The interval `a, …, b` from its sub-intervals of one pile fewer:
    /// `without_last = (a, …)` and `without_first = (…, b)` (both empty
    /// for an interval of one pile, a = b).
    #[inline(always)]
    pub fn extend(a: T, b: T, without_last: &Self, without_first: &Self) -> Self {
        let (k2, k) = (without_last, without_first);
        let zero = T::default();
        let one = T::of(1);
        // L makes (L, k2, b) lost; R makes (a, k, R) lost.
        let l = curve(k2.l, k2.r, b);
        let r = curve_inv(k.l, k.r, a);
        // rem(L, I) = C_k2(b), rem(I, R) = C_k(R) (R ≠ R of k, as a ≥ 1).
        let c0 = k2.curve_at(b);
        let cr = if r == zero { k.c0 } else { k.formula(r) };
        // C of I at its first point y0 ≥ 1 other than R, by the recursion
        // C(y0) = 1 + max(rem(I, y0), rem(f(y0), I), 1 + C(1) if y0 = 2,
        //                 1 + C(0) if 1 ≤ L < f(y0)).
        let second = r == one;
        let y0 = one + T::bit(second);
        let fy = curve(l, r, y0);
        // rem(I, y0) = rem(a, k, y0): its lost children are (f_k(y0), k, y0)
        // and (a, k, R), the latter of remoteness rem(I, R).
        let fk = curve(k.l, k.r, y0);
        let ck = k.curve_at(y0);
        let t1 = {
            let p = if fk < a { ck } else { T::HUGE };
            let q = if r < y0 { cr } else { T::HUGE };
            if a == fk { ck } else { one + p.min(q) }
        };
        // rem(f(y0), I) = rem(f(y0), k2, b): its lost children are
        // (L, k2, b), of remoteness rem(L, I), and (f(y0), k2, f_k2⁻¹(f(y0))).
        let yi = curve_inv(k2.l, k2.r, fy);
        let cyi = if yi == zero { k2.c0 } else { k2.formula(yi) };
        let t2 = {
            let p = if l < fy { c0 } else { T::HUGE };
            let q = if yi < b { cyi } else { T::HUGE };
            if fy == l { c0 } else { one + p.min(q) }
        };
        let mut longest = t1.max(t2);
        if second {
            longest = longest.max(cr + one);
        }
        if (one <= l) & (l < fy) {
            longest = longest.max(c0 + one);
        }
        let c = one + longest;
        let m = fy.min(y0);
        let high = T::bit(m < l.max(r));
        Interval {
            l,
            r,
            delta: c - m - m - high - high,
            c0,
            cr,
        }
    }
}

/// One layer of intervals of one length, by first index, as five arrays.
#[derive(Debug, Clone, Default)]
pub struct Layer<T> {
    l: Vec<T>,
    r: Vec<T>,
    delta: Vec<T>,
    c0: Vec<T>,
    cr: Vec<T>,
}

impl<T: Value> Layer<T> {
    fn empty(len: usize) -> Self {
        let z = vec![T::default(); len];
        Layer {
            l: z.clone(),
            r: z.clone(),
            delta: z.clone(),
            c0: z.clone(),
            cr: z,
        }
    }

    fn get(&self, i: usize) -> Interval<T> {
        Interval {
            l: self.l[i],
            r: self.r[i],
            delta: self.delta[i],
            c0: self.c0[i],
            cr: self.cr[i],
        }
    }
}

/// What a pass over a run of cells reads: cell i is the interval
/// `a_lo[i] … a_hi[i]` of `k` piles, from `prev` cells `from + i` (without
/// its last pile) and `from + i + 1` (without its first).
pub struct Job<'a, T> {
    a_lo: &'a [T],
    a_hi: &'a [T],
    prev: &'a Layer<T>,
    from: usize,
    k: T,
}

/// The output arrays of a pass over a run of cells.
pub struct Out<'a, T> {
    l: &'a mut [T],
    r: &'a mut [T],
    delta: &'a mut [T],
    c0: &'a mut [T],
    cr: &'a mut [T],
}

/// `v[from .. from + m]` and `v[from + 1 .. from + 1 + m]`.
#[inline(always)]
fn pair<T>(v: &[T], from: usize, m: usize) -> (&[T], &[T]) {
    (&v[from..from + m], &v[from + 1..from + 1 + m])
}

/// One layer pass over `out`'s cells (see [`Job`]). Sets `tripped` when a
/// cell breaks what the closed form implies (see [`top`]), else leaves it.
#[inline(always)]
fn pass_body<T: Value>(job: Job<'_, T>, out: Out<'_, T>, tripped: &mut bool) {
    let Job {
        a_lo,
        a_hi,
        prev,
        from,
        k,
    } = job;
    let m = out.l.len();
    let (a_lo, a_hi) = (&a_lo[..m], &a_hi[..m]);
    let (l0, l1) = pair(&prev.l, from, m);
    let (r0, r1) = pair(&prev.r, from, m);
    let (d0, d1) = pair(&prev.delta, from, m);
    let (z0, z1) = pair(&prev.c0, from, m);
    let (e0, e1) = pair(&prev.cr, from, m);
    let (mut odd, mut low, mut high) = (T::default(), T::default(), T::default());
    for i in 0..m {
        let k2 = Interval {
            l: l0[i],
            r: r0[i],
            delta: d0[i],
            c0: z0[i],
            cr: e0[i],
        };
        let k = Interval {
            l: l1[i],
            r: r1[i],
            delta: d1[i],
            c0: z1[i],
            cr: e1[i],
        };
        let v = Interval::extend(a_lo[i], a_hi[i], &k2, &k);
        out.l[i] = v.l;
        out.r[i] = v.r;
        out.delta[i] = v.delta;
        out.c0[i] = v.c0;
        out.cr[i] = v.cr;
        odd = odd | v.delta | v.c0 | v.cr;
        low = low.min(v.delta);
        high = high.max(v.delta);
    }
    let one = T::of(1);
    if (odd & one) == one || low < T::default() || high > k + k {
        *tripped = true;
    }
}

multiversion!(fn pass<T: Value>(job: Job<'_, T>, out: Out<'_, T>, tripped: &mut bool) => pass_body);

/// Width of a cache block in intervals: a block advances this many
/// intervals (plus a ghost zone of [`BLOCK_LAYERS`] to their right) by
/// `BLOCK_LAYERS` layers in two layers of its own, so that its working set
/// (two layers of five numbers: 40 bytes an interval in `i32`) stays in
/// the L2 cache instead of streaming every layer of a long row through
/// memory, as the verdict kernel does (docs/kernel.md).
pub const BLOCK_CELLS: usize = 2048;
/// Layers a block advances at a time (also its ghost zone).
pub const BLOCK_LAYERS: usize = 64;

/// Layers of at least two chunks of this many intervals are split across
/// threads (a smaller layer takes a few microseconds: less than handing
/// it to another thread).
pub const PARALLEL_CHUNK: usize = 16384;

/// How [`top`] runs its layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The instruction set of the pass (falls back to what the CPU has).
    pub isa: Isa,
    /// `Some(chunk)`: split the work over rayon's threads when it has more
    /// than one: cache blocks, and whole layers of at least two chunks.
    pub parallel: Option<usize>,
    /// `Some((cells, layers))`: advance long rows in cache blocks of
    /// `cells` intervals by `layers` layers; `None`: layer by layer.
    pub blocks: Option<(usize, usize)>,
}

impl Plan {
    /// What the service runs: the CPU's best pass, on every thread, in
    /// cache blocks of [`BLOCK_CELLS`] by [`BLOCK_LAYERS`].
    pub fn best() -> Plan {
        Plan {
            isa: Isa::detect(),
            parallel: Some(PARALLEL_CHUNK),
            blocks: Some((BLOCK_CELLS, BLOCK_LAYERS)),
        }
    }

    /// `isa`'s pass, one layer after another on this thread (what the
    /// other plans are tested against).
    #[cfg(test)]
    pub fn plain(isa: Isa) -> Plan {
        Plan {
            isa,
            parallel: None,
            blocks: None,
        }
    }
}

impl<T: Value> Layer<T> {
    /// Cells `from .. from + len` of `src`, into this layer's first cells.
    fn load(&mut self, src: &Layer<T>, from: usize, len: usize) {
        let r = from..from + len;
        self.l[..len].copy_from_slice(&src.l[r.clone()]);
        self.r[..len].copy_from_slice(&src.r[r.clone()]);
        self.delta[..len].copy_from_slice(&src.delta[r.clone()]);
        self.c0[..len].copy_from_slice(&src.c0[r.clone()]);
        self.cr[..len].copy_from_slice(&src.cr[r]);
    }

    /// This layer's first `dst.l.len()` cells, into `dst`.
    fn store(&self, dst: Out<'_, T>) {
        let len = dst.l.len();
        dst.l.copy_from_slice(&self.l[..len]);
        dst.r.copy_from_slice(&self.r[..len]);
        dst.delta.copy_from_slice(&self.delta[..len]);
        dst.c0.copy_from_slice(&self.c0[..len]);
        dst.cr.copy_from_slice(&self.cr[..len]);
    }

    /// The output arrays of cells `0 .. len`.
    fn first(&mut self, len: usize) -> Out<'_, T> {
        Out {
            l: &mut self.l[..len],
            r: &mut self.r[..len],
            delta: &mut self.delta[..len],
            c0: &mut self.c0[..len],
            cr: &mut self.cr[..len],
        }
    }

    /// The output arrays of cells `0 .. count`, in runs of `chunk` cells.
    fn chunks(&mut self, count: usize, chunk: usize) -> Vec<Out<'_, T>> {
        self.l[..count]
            .chunks_mut(chunk)
            .zip(self.r[..count].chunks_mut(chunk))
            .zip(self.delta[..count].chunks_mut(chunk))
            .zip(self.c0[..count].chunks_mut(chunk))
            .zip(self.cr[..count].chunks_mut(chunk))
            .map(|((((l, r), delta), c0), cr)| Out {
                l,
                r,
                delta,
                c0,
                cr,
            })
            .collect()
    }
}

/// One cache block's two layers.
struct Block<T> {
    cur: Layer<T>,
    next: Layer<T>,
}

/// Advances the cells `c0 .. c0 + out.len()` of layer `k0` (in `src`) by
/// `steps` layers into `out`, through `block`; true when the tripwire went
/// off.
fn advance_block<T: Value>(
    a: &[T],
    src: &Layer<T>,
    (c0, k0, steps): (usize, usize, usize),
    block: &mut Block<T>,
    isa: Isa,
    out: Out<'_, T>,
) -> bool {
    let w = out.l.len();
    let mut len = w + steps;
    block.cur.load(src, c0, len);
    let mut tripped = false;
    for k in k0 + 1..=k0 + steps {
        len -= 1;
        let job = Job {
            a_lo: &a[c0..],
            a_hi: &a[c0 + k - 1..],
            prev: &block.cur,
            from: 0,
            k: T::of(k as u64),
        };
        pass(isa, job, block.next.first(len), &mut tripped);
        std::mem::swap(&mut block.cur, &mut block.next);
    }
    block.cur.store(out);
    tripped
}

/// The top of a row of n ≥ 2 piles: its interior `a_2 … a_{n−1}` and the
/// remoteness of the row without its first or last pile.
#[derive(Debug, Clone, Copy)]
pub struct Top<T> {
    /// The interior `a_2 … a_{n−1}`.
    pub inner: Interval<T>,
    /// `rem(a_2, …, a_n)`.
    pub without_first: T,
    /// `rem(a_1, …, a_{n−1})`.
    pub without_last: T,
}

impl<T: Value> Top<T> {
    /// The remoteness of the row `(first, inner, last)`.
    pub fn remoteness(&self, first: u64, last: u64) -> T {
        self.inner.row(T::of(first), T::of(last))
    }

    /// The same numbers as `i128`.
    pub fn widen(&self) -> Top<i128> {
        Top {
            inner: self.inner.widen(),
            without_first: self.without_first.wide(),
            without_last: self.without_last.wide(),
        }
    }
}

/// Runs the layers over a row of n ≥ 2 piles up to its interior as `plan`
/// says, polling `cancel` once per layer or block step.
///
/// `None` when the tripwire went off: a cell whose δ is odd, negative or
/// above twice its length, or whose `rem(L, I)` or `rem(I, R)` (lost rows)
/// is odd. The closed form implies none of these; a row that trips it is
/// left to the exact DP. It never went off on any row tried.
pub fn top<T: Value, C: Cancel + ?Sized>(
    piles: &[u64],
    plan: Plan,
    cancel: &C,
) -> Result<Option<Top<T>>, C::Stop> {
    let Plan {
        isa,
        parallel,
        blocks: geometry,
    } = plan;
    let n = piles.len();
    assert!(n >= 2);
    let a: Vec<T> = piles.iter().map(|&p| T::of(p)).collect();
    // Intervals of the current length k, by first index (n + 1 − k of them).
    let mut layer = Layer::<T>::empty(n + 1);
    let mut next = layer.clone();
    let mut before = layer.clone();
    let mut tripped = false;
    // Layer `done` is in `layer`; the blocked steps stop while at least
    // two layers are left, so that `before` is filled by the plain loop.
    let mut done = 0;
    let mut blocks: Vec<Block<T>> = Vec::new();
    let (c, s) = geometry.unwrap_or((usize::MAX / 4, usize::MAX / 4));
    while n - 2 - done >= s + 2 && n + 1 - done >= 2 * c + s {
        cancel.check()?;
        let count = n + 1 - done - s;
        let nblocks = count.div_ceil(c);
        if blocks.len() < nblocks {
            blocks.resize_with(nblocks, || Block {
                cur: Layer::empty(c + s),
                next: Layer::empty(c + s),
            });
        }
        let (src, a) = (&layer, &a[..]);
        let outs = next.chunks(count, c);
        let work = |(j, (out, block)): (usize, (Out<'_, T>, &mut Block<T>))| {
            advance_block(a, src, (j * c, done, s), block, isa, out)
        };
        tripped |= if parallel.is_some() && rayon::current_num_threads() > 1 {
            outs.into_par_iter()
                .zip(blocks.par_iter_mut())
                .enumerate()
                .map(work)
                .reduce(|| false, |x, y| x | y)
        } else {
            outs.into_iter()
                .zip(blocks.iter_mut())
                .enumerate()
                .map(work)
                .fold(false, |x, y| x | y)
        };
        if tripped {
            return Ok(None);
        }
        std::mem::swap(&mut layer, &mut next);
        done += s;
    }
    for k in done + 1..=n - 2 {
        cancel.check()?;
        let count = n + 1 - k;
        let (a_lo, a_hi) = (&a[..], &a[k - 1..]);
        let kk = T::of(k as u64);
        // One chunk when the layer is not split.
        let c = parallel
            .filter(|&c| count >= 2 * c && rayon::current_num_threads() > 1)
            .unwrap_or(count);
        let prev = &layer;
        let work = |(j, out): (usize, Out<'_, T>)| {
            let from = j * c;
            let job = Job {
                a_lo: &a_lo[from..],
                a_hi: &a_hi[from..],
                prev,
                from,
                k: kk,
            };
            let mut t = false;
            pass(isa, job, out, &mut t);
            t
        };
        let outs = next.chunks(count, c);
        // A layer in one chunk runs here: handing it to the pool costs
        // more than it takes.
        tripped |= if c < count {
            outs.into_par_iter()
                .enumerate()
                .map(work)
                .reduce(|| false, |x, y| x | y)
        } else {
            outs.into_iter()
                .enumerate()
                .map(work)
                .fold(false, |x, y| x | y)
        };
        if tripped {
            return Ok(None);
        }
        std::mem::swap(&mut before, &mut layer);
        std::mem::swap(&mut layer, &mut next);
    }
    // `layer` holds length n − 2 (cell 1 is the interior), `before` n − 3.
    let inner = layer.get(1);
    let (without_first, without_last) = if n == 2 {
        (T::of(1), T::of(1))
    } else {
        // a_2 … a_n is (a_2, a_3 … a_{n−1}, a_n); a_1 … a_{n−1} likewise.
        (
            before.get(2).row(a[1], a[n - 1]),
            before.get(1).row(a[0], a[n - 2]),
        )
    };
    Ok(Some(Top {
        inner,
        without_first,
        without_last,
    }))
}

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
