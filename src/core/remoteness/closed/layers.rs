//! The layers of the closed form: a pass over one layer of intervals
//! (five arrays, compiled per instruction set), cache blocks of several
//! layers, the plan that says how to run them, and [`top`], which runs a
//! row up to its interior in O(n) memory.

use rayon::prelude::*;

use super::interval::Interval;
use super::value::Value;
use crate::core::cancel::Cancel;
use crate::core::kernel::{Isa, multiversion, pool_can_split};

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

/// Whether `work` returns true for any of `jobs` (each with its index),
/// run on rayon's pool when `split`, else one after another here.
fn any<J: Send>(
    jobs: Vec<J>,
    split: bool,
    work: impl Fn((usize, J)) -> bool + Sync + Send,
) -> bool {
    if split {
        jobs.into_par_iter()
            .enumerate()
            .map(work)
            .reduce(|| false, |x, y| x | y)
    } else {
        jobs.into_iter()
            .enumerate()
            .map(work)
            .fold(false, |x, y| x | y)
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
        let jobs: Vec<_> = next
            .chunks(count, c)
            .into_iter()
            .zip(blocks.iter_mut())
            .collect();
        let split = parallel.is_some() && pool_can_split();
        tripped |= any(jobs, split, |(j, (out, block))| {
            advance_block(a, src, (j * c, done, s), block, isa, out)
        });
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
            .filter(|&c| count >= 2 * c && pool_can_split())
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
        // A layer in one chunk runs here: handing it to the pool costs
        // more than it takes.
        tripped |= any(next.chunks(count, c), c < count, work);
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
