//! The O(n)-memory layer kernels of the two-ends game (docs/kernel.md).
//!
//! A *layer* holds, for one interval length `k`, the pairs `(left, right)`
//! of every interval `[i, i + k − 1]` in two contiguous arrays indexed by
//! `i`; one branch-free pass turns layer `k − 1` into layer `k`
//! (docs/game.md §1). Two kernels implement that pass: [`codes`] (the
//! default: 2-bit codes relative to the end pile, one byte each, over
//! order- and adjacency-preserving coordinates) and [`direct`] (the entries
//! themselves in 16-, 32- or 64-bit words, the second implementation the
//! first is tested against). Each is built for the baseline target and, on
//! x86-64, for AVX2 and AVX-512, [`Isa::detect`] picking at run time.
//!
//! [`run_layers`] drives either kernel, in cache blocks of [`BLOCK_CELLS`]
//! cells and [`BLOCK_LAYERS`] layers (with a ghost zone of `BLOCK_LAYERS`
//! cells to the right) run on all cores when asked to.

pub mod codes;
pub mod direct;

use rayon::prelude::*;

use super::cancel::Cancel;

named_enum! {
    /// The instruction set a kernel was compiled for (`ALL`: baseline first).
    pub enum Isa: fn name {
        /// The build target's default features (SSE2 on x86-64, NEON on aarch64…).
        Baseline => "baseline",
        /// x86-64 with AVX2.
        Avx2 => "avx2",
        /// x86-64 with AVX-512 F and BW.
        Avx512 => "avx512",
    }
}

impl Isa {
    /// The best instruction set the running CPU supports. [`Isa::Avx512`]
    /// needs AVX2 as well (its kernels use both).
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                {
                    return Isa::Avx512;
                }
                return Isa::Avx2;
            }
        }
        Isa::Baseline
    }

    /// Every instruction set the running CPU supports, baseline first.
    pub fn available() -> Vec<Isa> {
        Isa::ALL
            .into_iter()
            .filter(|&isa| isa.supported() == isa)
            .collect()
    }

    /// `self` if the CPU supports it, else the best one it does.
    pub fn supported(self) -> Isa {
        match (self, Isa::detect()) {
            (Isa::Avx512, Isa::Avx2) => Isa::Avx2,
            (Isa::Avx512 | Isa::Avx2, Isa::Baseline) => Isa::Baseline,
            (isa, _) => isa,
        }
    }
}

/// Compiles `$body` (an `#[inline(always)]` generic function of the given
/// signature) once per instruction set and defines `$name(isa, …)` that calls
/// the right copy. The copies differ only in the target features LLVM may use.
macro_rules! multiversion {
    (
        fn $name:ident<$($g:ident : $bound:path),*>($($arg:ident : $ty:ty),* $(,)?) => $body:path
    ) => {
        pub(crate) fn $name<$($g: $bound),*>(isa: $crate::core::kernel::Isa, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            fn avx2<$($g: $bound),*>($($arg: $ty),*) {
                $body($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512bw")]
            fn avx512<$($g: $bound),*>($($arg: $ty),*) {
                $body($($arg),*)
            }
            fn baseline<$($g: $bound),*>($($arg: $ty),*) {
                $body($($arg),*)
            }
            match isa.supported() {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `supported()` checked that the CPU has AVX-512 F and BW.
                $crate::core::kernel::Isa::Avx512 => unsafe { avx512($($arg),*) },
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `supported()` checked that the CPU has AVX2.
                $crate::core::kernel::Isa::Avx2 => unsafe { avx2($($arg),*) },
                _ => baseline($($arg),*),
            }
        }
    };
}
pub(crate) use multiversion;

/// Whether splitting work over rayon's pool can pay: the pool has more
/// than one thread. Handing each step to a pool of one costs more than it
/// saves (the verdict: 27–31 ms instead of 17 at n = 20,000), so the
/// layer kernels and the remoteness's layers run such steps here.
pub fn pool_can_split() -> bool {
    rayon::current_num_threads() > 1
}

/// Width of a block in cells. A block's working set (four layer buffers of
/// one byte per cell, two rows of 16-bit coordinates and the `E`/`F` bytes of
/// the codes kernel: about 10 bytes per cell) then fits a 32 KiB L1 data
/// cache (the measurements that chose it: docs/benchmarks.md).
pub const BLOCK_CELLS: usize = 2048;
/// Layers advanced per block step (also the ghost-zone width).
pub const BLOCK_LAYERS: usize = 64;

/// How to run a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelOptions {
    /// Instruction set of the kernel (falls back to what the CPU has).
    pub isa: Isa,
    /// Run the independent blocks of one large row on the rayon pool, when
    /// it has more than one thread ([`pool_can_split`]).
    pub parallel: bool,
    /// Use cache blocking for wide layers (turned off only to test it).
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

/// Every layer buffer has this many cells of slack past its capacity, so a
/// kernel may process whole chunks of [`PAD`] cells (the cells past `len` are
/// garbage that never flows into real ones: cell `i` reads only `i`, `i + 1`).
pub const PAD: usize = 64;

/// Ping-pong buffers of a run of layers over cells `c0 .. c0 + len`, each
/// with [`PAD`] cells of slack.
pub struct Layers<T> {
    pub l: Vec<T>,
    pub r: Vec<T>,
    pub tl: Vec<T>,
    pub tr: Vec<T>,
    pub len: usize,
}

impl<T: Copy + Default> Layers<T> {
    fn with_capacity(cap: usize) -> Self {
        Layers {
            l: vec![T::default(); cap + PAD],
            r: vec![T::default(); cap + PAD],
            tl: vec![T::default(); cap + PAD],
            tr: vec![T::default(); cap + PAD],
            len: 0,
        }
    }

    fn load(&mut self, l: &[T], r: &[T]) {
        self.len = l.len();
        self.l[..self.len].copy_from_slice(l);
        self.r[..self.len].copy_from_slice(r);
    }

    /// Swaps the freshly written layer in, one cell shorter.
    pub fn swap(&mut self) {
        std::mem::swap(&mut self.l, &mut self.tl);
        std::mem::swap(&mut self.r, &mut self.tr);
        self.len -= 1;
    }
}

/// One block of a step: its index, its output cells and its buffers.
type BlockJob<'a, T> = (usize, ((&'a mut [T], &'a mut [T]), &'a mut Layers<T>));

/// Advances a [`Layers`] holding layer `k0` of cells from `c0` by `steps`
/// layers: `advance(c0, k0, steps, layers)`.
pub trait Advance<T>: Sync {
    fn advance(&self, c0: usize, k0: usize, steps: usize, st: &mut Layers<T>);
}

/// Runs `kernel` from layer 1 (`init_l`, `init_r`, one cell per pile) to
/// layer `last` and returns that layer's `(left, right)` arrays.
///
/// `cancel` is polled between block steps (every [`BLOCK_LAYERS`] layers
/// at most); when it says stop, the run stops and returns its error.
///
/// # Panics
/// If `last` is not in `1 ..= n`.
pub fn run_layers<T: Copy + Default + Send + Sync, C: Cancel + ?Sized>(
    init_l: Vec<T>,
    init_r: Vec<T>,
    last: usize,
    opts: KernelOptions,
    kernel: &impl Advance<T>,
    cancel: &C,
) -> Result<(Vec<T>, Vec<T>), C::Stop> {
    let n = init_l.len();
    assert!(last >= 1 && last <= n, "layer {last} out of 1..={n}");
    let mut k = 1;
    let (mut gl, mut gr) = (init_l, init_r);

    if opts.blocking {
        let mut blocks: Vec<Layers<T>> = Vec::new();
        let (mut dl, mut dr): (Vec<T>, Vec<T>) = (Vec::new(), Vec::new());
        while last - k >= BLOCK_LAYERS && gl.len() >= 2 * BLOCK_CELLS + BLOCK_LAYERS {
            cancel.check()?;
            let s = BLOCK_LAYERS;
            let m_new = gl.len() - s;
            let count = m_new.div_ceil(BLOCK_CELLS);
            if blocks.len() < count {
                blocks.resize_with(count, || Layers::with_capacity(BLOCK_CELLS + s));
            }
            dl.resize(m_new, T::default());
            dr.resize(m_new, T::default());
            let (src_l, src_r) = (&gl, &gr);
            let work = |(b, ((out_l, out_r), st)): BlockJob<'_, T>| {
                let c0 = b * BLOCK_CELLS;
                let w = out_l.len();
                st.load(&src_l[c0..c0 + w + s], &src_r[c0..c0 + w + s]);
                kernel.advance(c0, k, s, st);
                out_l.copy_from_slice(&st.l[..w]);
                out_r.copy_from_slice(&st.r[..w]);
            };
            if opts.parallel && pool_can_split() {
                dl.par_chunks_mut(BLOCK_CELLS)
                    .zip(dr.par_chunks_mut(BLOCK_CELLS))
                    .zip(blocks.par_iter_mut())
                    .enumerate()
                    .for_each(work);
            } else {
                dl.chunks_mut(BLOCK_CELLS)
                    .zip(dr.chunks_mut(BLOCK_CELLS))
                    .zip(blocks.iter_mut())
                    .enumerate()
                    .for_each(work);
            }
            std::mem::swap(&mut gl, &mut dl);
            std::mem::swap(&mut gr, &mut dr);
            k += s;
        }
    }

    // The rest in one run, polling for cancellation every so many layers.
    let len = gl.len();
    gl.resize(len + PAD, T::default());
    gr.resize(len + PAD, T::default());
    let mut st = Layers {
        tl: vec![T::default(); len + PAD],
        tr: vec![T::default(); len + PAD],
        l: gl,
        r: gr,
        len,
    };
    while k < last {
        cancel.check()?;
        let steps = (last - k).min(BLOCK_LAYERS);
        kernel.advance(0, k, steps, &mut st);
        k += steps;
    }
    st.l.truncate(st.len);
    st.r.truncate(st.len);
    Ok((st.l, st.r))
}
