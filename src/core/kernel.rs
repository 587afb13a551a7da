//! The O(n)-memory layer kernel of the two-ends game.
//!
//! SPEC §1: the entries `left[i][j]` and `right[i][j]` of interval length `k`
//! depend only on those of length `k − 1`. A *layer* holds, for one length
//! `k`, the pairs `(left, right)` of every interval `[i, i + k − 1]` in two
//! contiguous arrays indexed by `i`. [`next_layer`] turns layer `k − 1` into
//! layer `k` with one branch-free pass that the compiler vectorises.
//!
//! Values are stored *biased*: a value `v` of an unsigned `w`-bit word is kept
//! as the signed word `v ^ 2^(w−1)`, so that the CPU's signed vector compares
//! order them as unsigned numbers while `+1`/`−1` still work. `0` (no pile) is
//! the signed minimum. The narrowest word that holds `max(a) + 1` is used
//! ([`Width`]): 16, 32 or 64 bits, so more lanes fit a vector.
//!
//! The same generic code is compiled several times: for the build's baseline
//! target and, on x86-64, for AVX2 and AVX-512; [`Isa::detect`] picks the best
//! one the running CPU has, so no `target-cpu=native` is needed.
//!
//! Large rows are processed in *blocks* ([`BLOCK_CELLS`] cells wide,
//! [`BLOCK_LAYERS`] layers deep): a block copies its cells plus a ghost zone of
//! `BLOCK_LAYERS` cells to its right, advances them that many layers inside the
//! cache, and writes its own cells back. Blocks of one step are independent, so
//! they run on all cores (rayon) when asked to.

use rayon::prelude::*;

/// A machine word that holds biased pile values (see the module docs).
pub trait Word: Copy + Send + Sync + PartialEq + PartialOrd + 'static {
    /// The biased representation of 0 ("no pile").
    const ZERO: Self;
    /// The largest pile this word can hold so that `pile + 1` still fits.
    const MAX_PILE: u64;
    /// Biases a value (must be ≤ `MAX_PILE + 1`).
    fn encode(v: u64) -> Self;
    /// Removes the bias.
    fn decode(self) -> u64;
    /// 1 if `b` else 0, as a word.
    fn from_bool(b: bool) -> Self;
    /// Wrapping addition.
    fn wadd(self, o: Self) -> Self;
    /// Wrapping subtraction.
    fn wsub(self, o: Self) -> Self;
}

macro_rules! biased_word {
    ($signed:ty, $unsigned:ty) => {
        impl Word for $signed {
            const ZERO: Self = <$signed>::MIN;
            const MAX_PILE: u64 = (<$unsigned>::MAX - 1) as u64;
            #[inline(always)]
            fn encode(v: u64) -> Self {
                ((v as $unsigned) ^ (1 << (<$unsigned>::BITS - 1))) as $signed
            }
            #[inline(always)]
            fn decode(self) -> u64 {
                ((self as $unsigned) ^ (1 << (<$unsigned>::BITS - 1))) as u64
            }
            #[inline(always)]
            fn from_bool(b: bool) -> Self {
                b as $signed
            }
            #[inline(always)]
            fn wadd(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn wsub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
        }
    };
}
biased_word!(i16, u16);
biased_word!(i32, u32);
biased_word!(i64, u64);

/// The word width used for a row, chosen from its largest pile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Width {
    W16,
    W32,
    W64,
}

impl Width {
    /// The narrowest width whose words hold `max_pile + 1`.
    pub fn for_max_pile(max_pile: u64) -> Width {
        if max_pile <= <i16 as Word>::MAX_PILE {
            Width::W16
        } else if max_pile <= <i32 as Word>::MAX_PILE {
            Width::W32
        } else {
            Width::W64
        }
    }

    /// All widths able to hold `max_pile + 1` (for cross-checking paths).
    pub fn all_for_max_pile(max_pile: u64) -> Vec<Width> {
        let narrowest = Width::for_max_pile(max_pile);
        [Width::W16, Width::W32, Width::W64]
            .into_iter()
            .filter(|w| *w >= narrowest)
            .collect()
    }
}

/// The instruction set a kernel was compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// The build target's default features (SSE2 on x86-64, NEON on aarch64…).
    Baseline,
    /// x86-64 with AVX2.
    Avx2,
    /// x86-64 with AVX-512 F and BW.
    Avx512,
}

impl Isa {
    /// The best instruction set the running CPU supports.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        Isa::Baseline
    }

    /// Every instruction set the running CPU supports, baseline first.
    pub fn available() -> Vec<Isa> {
        let best = Isa::detect();
        let mut all = vec![Isa::Baseline];
        if matches!(best, Isa::Avx2 | Isa::Avx512) {
            all.push(Isa::Avx2);
        }
        if best == Isa::Avx512 {
            all.push(Isa::Avx512);
        }
        all
    }

    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }
}

/// Width of a block in cells.
pub const BLOCK_CELLS: usize = 8 * 1024;
/// Layers advanced per block step (also the ghost-zone width).
pub const BLOCK_LAYERS: usize = 128;

/// `left[i][j]` from `L = left[i][j−1]`, `R = right[i][j−1]`, `X = a_j`
/// (SPEC §1), branch-free on biased words. `right[i][j]` is the mirror image:
/// `next_left(right[i+1][j], left[i+1][j], a_i)`.
#[inline(always)]
pub fn next_left<W: Word>(l: W, r: W, x: W) -> W {
    let plus = W::from_bool((x < r) & (x >= l));
    let minus = W::from_bool((x > r) & (x <= l));
    let v = x.wadd(plus).wsub(minus);
    if x == r { W::ZERO } else { v }
}

/// One layer step on `m = new_l.len()` cells: `new[i]` from `old[i]` (left)
/// and `old[i + 1]` (right), `a_lo[i] = a_i`, `a_hi[i] = a_j`.
#[inline(always)]
fn layer_body<W: Word>(
    a_lo: &[W],
    a_hi: &[W],
    old_l: &[W],
    old_r: &[W],
    new_l: &mut [W],
    new_r: &mut [W],
) {
    let m = new_l.len();
    let (a_lo, a_hi) = (&a_lo[..m], &a_hi[..m]);
    let (l0, r0) = (&old_l[..m], &old_r[..m]);
    let (l1, r1) = (&old_l[1..m + 1], &old_r[1..m + 1]);
    let new_r = &mut new_r[..m];
    for i in 0..m {
        new_l[i] = next_left(l0[i], r0[i], a_hi[i]);
        new_r[i] = next_left(r1[i], l1[i], a_lo[i]);
    }
}

/// Ping-pong buffers for one run of layers over cells `c0 .. c0 + len`.
struct Layers<W> {
    l: Vec<W>,
    r: Vec<W>,
    tl: Vec<W>,
    tr: Vec<W>,
    len: usize,
}

impl<W: Word> Layers<W> {
    fn with_capacity(cap: usize) -> Self {
        Layers {
            l: vec![W::ZERO; cap],
            r: vec![W::ZERO; cap],
            tl: vec![W::ZERO; cap],
            tr: vec![W::ZERO; cap],
            len: 0,
        }
    }

    fn load(&mut self, l: &[W], r: &[W]) {
        self.len = l.len();
        self.l[..self.len].copy_from_slice(l);
        self.r[..self.len].copy_from_slice(r);
    }
}

/// Advances `st` (layer `k0`, cells from `c0`) by `steps` layers.
#[inline(always)]
fn advance_body<W: Word>(a: &[W], c0: usize, k0: usize, steps: usize, st: &mut Layers<W>) {
    for k in k0 + 1..=k0 + steps {
        let m = st.len - 1;
        layer_body(
            &a[c0..],
            &a[c0 + k - 1..],
            &st.l[..m + 1],
            &st.r[..m + 1],
            &mut st.tl[..m],
            &mut st.tr[..m],
        );
        std::mem::swap(&mut st.l, &mut st.tl);
        std::mem::swap(&mut st.r, &mut st.tr);
        st.len = m;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn advance_avx2<W: Word>(a: &[W], c0: usize, k0: usize, steps: usize, st: &mut Layers<W>) {
    advance_body(a, c0, k0, steps, st)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn advance_avx512<W: Word>(a: &[W], c0: usize, k0: usize, steps: usize, st: &mut Layers<W>) {
    advance_body(a, c0, k0, steps, st)
}

fn advance_baseline<W: Word>(a: &[W], c0: usize, k0: usize, steps: usize, st: &mut Layers<W>) {
    advance_body(a, c0, k0, steps, st)
}

/// Advances with the kernel compiled for `isa`, falling back to the baseline
/// when the CPU lacks it.
fn advance<W: Word>(isa: Isa, a: &[W], c0: usize, k0: usize, steps: usize, st: &mut Layers<W>) {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx512
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw") =>
            {
                // SAFETY: the CPU supports AVX-512 F and BW (checked above).
                return unsafe { advance_avx512(a, c0, k0, steps, st) };
            }
            Isa::Avx2 | Isa::Avx512 if std::arch::is_x86_feature_detected!("avx2") => {
                // SAFETY: the CPU supports AVX2 (checked above).
                return unsafe { advance_avx2(a, c0, k0, steps, st) };
            }
            _ => {}
        }
    }
    let _ = isa;
    advance_baseline(a, c0, k0, steps, st)
}

/// How to run the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelOptions {
    /// Instruction set of the kernel.
    pub isa: Isa,
    /// Run independent blocks of one large row on the rayon pool.
    pub parallel: bool,
    /// Use cache blocking for wide layers (turn off only to test it).
    pub blocking: bool,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions {
            isa: Isa::detect(),
            parallel: true,
            blocking: true,
        }
    }
}

/// Computes layer `last` (`1 ≤ last ≤ a.len()`) of the row `a` (biased
/// words) and returns its `(left, right)` arrays, of length `n − last + 1`.
///
/// `cancelled` is polled between block steps; when it returns true the
/// computation stops early and `None` is returned.
// The block closure's argument spells out rayon's zipped item type.
#[allow(clippy::type_complexity)]
pub fn layer<W: Word>(
    a: &[W],
    last: usize,
    opts: KernelOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<(Vec<W>, Vec<W>)> {
    let n = a.len();
    assert!(last >= 1 && last <= n, "layer {last} out of 1..={n}");
    let mut k = 1;
    let mut gl = a.to_vec();
    let mut gr = a.to_vec();

    // Blocked steps while the layer is wide.
    if opts.blocking {
        let mut scratch: Vec<Layers<W>> = Vec::new();
        let mut dl: Vec<W> = Vec::new();
        let mut dr: Vec<W> = Vec::new();
        while last - k >= BLOCK_LAYERS && gl.len() - BLOCK_LAYERS >= 2 * BLOCK_CELLS {
            if cancelled() {
                return None;
            }
            let s = BLOCK_LAYERS;
            let m_new = gl.len() - s;
            let blocks = m_new.div_ceil(BLOCK_CELLS);
            if scratch.len() < blocks {
                scratch.resize_with(blocks, || Layers::with_capacity(BLOCK_CELLS + s));
            }
            dl.resize(m_new, W::ZERO);
            dr.resize(m_new, W::ZERO);
            let (src_l, src_r) = (&gl, &gr);
            let work =
                |(b, ((out_l, out_r), st)): (usize, ((&mut [W], &mut [W]), &mut Layers<W>))| {
                    let c0 = b * BLOCK_CELLS;
                    let w = out_l.len();
                    st.load(&src_l[c0..c0 + w + s], &src_r[c0..c0 + w + s]);
                    advance(opts.isa, a, c0, k, s, st);
                    out_l.copy_from_slice(&st.l[..w]);
                    out_r.copy_from_slice(&st.r[..w]);
                };
            if opts.parallel {
                dl.par_chunks_mut(BLOCK_CELLS)
                    .zip(dr.par_chunks_mut(BLOCK_CELLS))
                    .zip(scratch.par_iter_mut())
                    .enumerate()
                    .for_each(work);
            } else {
                dl.chunks_mut(BLOCK_CELLS)
                    .zip(dr.chunks_mut(BLOCK_CELLS))
                    .zip(scratch.iter_mut())
                    .enumerate()
                    .for_each(work);
            }
            std::mem::swap(&mut gl, &mut dl);
            std::mem::swap(&mut gr, &mut dr);
            k += s;
        }
    }

    // The rest in one run, polling for cancellation every so many layers.
    let mut st = Layers {
        len: gl.len(),
        tl: vec![W::ZERO; gl.len()],
        tr: vec![W::ZERO; gl.len()],
        l: gl,
        r: gr,
    };
    while k < last {
        if cancelled() {
            return None;
        }
        let steps = (last - k).min(BLOCK_LAYERS);
        advance(opts.isa, a, 0, k, steps, &mut st);
        k += steps;
    }
    st.l.truncate(st.len);
    st.r.truncate(st.len);
    Some((st.l, st.r))
}

/// Encodes a row of piles (all ≤ `W::MAX_PILE`) as biased words.
pub fn encode_row<W: Word>(piles: &[u64]) -> Vec<W> {
    piles.iter().map(|&v| W::encode(v)).collect()
}
