//! Runs of the codes kernel that start from a given layer instead of layer
//! 1, for the play engine ([`crate::core::game`]):
//!
//! * [`RowKernel::sweep`]: the one O(n²) sweep of a row, handing out every
//!   `stride`-th layer (the engine keeps them), with [`run_layers`]'
//!   blocking, cores and cancellation;
//! * [`RowKernel::advance`]: one layer over a window of cells (the engine's
//!   *cone*: the cells inside the interval still in play).
//!
//! Both work on codes as the kernel keeps them inside a run: `left` codes
//! plus [`LEFT_BIAS`], `right` codes plus [`RIGHT_BIAS`] (plain codes are
//! [`NO_PILE`](super::NO_PILE), −1, 0, +1; see [`super`]).

use super::super::{Advance, KernelOptions, Layers, run_layers};
use super::{Codes, Coord, CoordWidth, LEFT_BIAS, RIGHT_BIAS, Row, clamp2, coordinates, narrowest};
use crate::core::cancel::Cancel;
use crate::core::row::ValidRow;

/// The per-row arrays of the codes kernel, kept for runs that start anywhere.
pub struct RowKernel {
    n: usize,
    coords: Coords,
    e: Vec<i8>,
    f: Vec<i8>,
    opts: KernelOptions,
}

enum Coords {
    Narrow { c: Vec<i16>, c2: Vec<i16> },
    Wide { c: Vec<i32>, c2: Vec<i32> },
}

/// Shifts the layer number a kernel sees: [`run_layers`] counts from layer
/// 1, a resumed run starts at layer `k_off + 1`.
struct Offset<'a, K> {
    inner: &'a K,
    k_off: usize,
}

impl<K: Advance<i8>> Advance<i8> for Offset<'_, K> {
    fn advance(&self, c0: usize, k0: usize, steps: usize, st: &mut Layers<i8>) {
        self.inner.advance(c0, k0 + self.k_off, steps, st)
    }
}

/// `biased(kernel)`: runs `$body` with `kernel` bound to the row's
/// [`Codes`] kernel, whatever its coordinate type.
macro_rules! with_codes {
    ($self:ident, $kernel:ident => $body:expr) => {{
        let (e, f, opts) = (&$self.e[..], &$self.f[..], $self.opts);
        match &$self.coords {
            Coords::Narrow { c, c2 } => {
                let $kernel = Codes {
                    row: Row { c, c2, e, f },
                    opts,
                };
                $body
            }
            Coords::Wide { c, c2 } => {
                let $kernel = Codes {
                    row: Row { c, c2, e, f },
                    opts,
                };
                $body
            }
        }
    }};
}

impl RowKernel {
    /// Prepares a row (the coordinates: one sort).
    pub fn new(piles: &ValidRow<'_>, opts: KernelOptions) -> RowKernel {
        let coords = coordinates(piles);
        let n = piles.len();
        let pad = super::super::PAD;
        fn arrays<C: Coord>(coords: &[u32], pad: usize) -> (Vec<C>, Vec<C>) {
            let n = coords.len();
            let mut c: Vec<C> = coords.iter().map(|&v| C::from_u32(v)).collect();
            c.resize(n + pad, C::default());
            let mut c2: Vec<C> = coords.iter().map(|&v| C::from_u32(v + 2)).collect();
            c2.resize(n + pad, C::default());
            (c, c2)
        }
        let diff = |x: usize, y: usize| clamp2(i64::from(coords[x]) - i64::from(coords[y]));
        let e = (0..n + pad)
            .map(|j| if j == 0 || j >= n { 0 } else { diff(j, j - 1) })
            .collect();
        let f = (0..n + pad)
            .map(|i| if i + 1 >= n { 0 } else { diff(i, i + 1) })
            .collect();
        let coords = match narrowest(&coords) {
            CoordWidth::Narrow => {
                let (c, c2) = arrays::<i16>(&coords, pad);
                Coords::Narrow { c, c2 }
            }
            CoordWidth::Wide => {
                let (c, c2) = arrays::<i32>(&coords, pad);
                Coords::Wide { c, c2 }
            }
        };
        RowKernel {
            n,
            coords,
            e,
            f,
            opts,
        }
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        let coords = match &self.coords {
            Coords::Narrow { c, c2 } => 2 * (c.capacity() + c2.capacity()),
            Coords::Wide { c, c2 } => 4 * (c.capacity() + c2.capacity()),
        };
        coords + self.e.capacity() + self.f.capacity()
    }

    /// Runs layers 1 to `last` over the whole row and calls
    /// `sink(k, left, right)` with layer `k` (biased codes, `n − k + 1`
    /// cells) for every `k` that is a multiple of `stride`. `cancel` is
    /// polled as in [`run_layers`]; its stop if it stopped the sweep.
    ///
    /// # Panics
    /// If `stride` is 0 or `last` is not in `1 ..= n`.
    pub fn sweep<X: Cancel + ?Sized>(
        &self,
        stride: usize,
        last: usize,
        cancel: &X,
        mut sink: impl FnMut(usize, &[i8], &[i8]),
    ) -> Result<(), X::Stop> {
        assert!(stride >= 1 && (1..=self.n).contains(&last));
        let mut l = vec![LEFT_BIAS; self.n];
        let mut r = vec![RIGHT_BIAS; self.n];
        let mut k = 1;
        if stride == 1 {
            sink(1, &l, &r);
        }
        while k < last {
            let target = ((k / stride + 1) * stride).min(last);
            (l, r) = with_codes!(self, kernel => {
                let shifted = Offset { inner: &kernel, k_off: k - 1 };
                run_layers(l, r, target - k + 1, self.opts, &shifted, cancel)
            })?;
            k = target;
            if k.is_multiple_of(stride) {
                sink(k, &l, &r);
            }
        }
        Ok(())
    }

    /// Buffers for a run over at most `width` cells.
    pub fn buffers(width: usize) -> Layers<i8> {
        Layers::with_capacity(width)
    }

    /// Advances `st`, which holds layer `k0` (biased codes) of the cells
    /// `c0 .. c0 + st.len`, by one layer (one cell fewer).
    ///
    /// # Panics
    /// If the cells reach past the row (`c0 + k0 + st.len − 1 > n`) or
    /// `st.len < 2`.
    pub fn advance(&self, c0: usize, k0: usize, st: &mut Layers<i8>) {
        assert!(st.len >= 2 && c0 + k0 + st.len - 1 <= self.n);
        with_codes!(self, kernel => kernel.advance(c0, k0, 1, st))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cancel::{Cancelled, Never};
    use crate::core::kernel::{Isa, KernelOptions};
    use crate::core::row::ValidRow;
    use crate::core::tables::Tables;

    /// Every kept layer of a sweep and every layer of a window run equal
    /// the O(n²) tables, on every instruction set, blocked and parallel or
    /// not.
    #[test]
    fn resumed_runs_equal_the_tables() {
        let piles: Vec<u64> = (0..4_500u64).map(|i| 1 + (i * 7919 + i / 3) % 5).collect();
        let piles = ValidRow::try_from(piles).unwrap();
        let n = piles.len();
        let t = Tables::new(&piles);
        let check = |k: usize, c0: usize, l: &[i8], r: &[i8], what: &str| {
            for (c, (&lc, &rc)) in l.iter().zip(r).enumerate() {
                let (i, j) = (c0 + c, c0 + c + k - 1);
                let code = |v: i8| {
                    if v == super::super::NO_PILE {
                        0
                    } else {
                        (v + 2) as u8
                    }
                };
                assert_eq!(
                    code(lc - LEFT_BIAS),
                    t.left_code(i, j),
                    "{what}: left[{i}][{j}]"
                );
                assert_eq!(
                    code(rc - RIGHT_BIAS),
                    t.right_code(i, j),
                    "{what}: right[{i}][{j}]"
                );
            }
        };
        for isa in Isa::available() {
            for (parallel, blocking) in [(false, false), (false, true), (true, true)] {
                let opts = KernelOptions {
                    isa,
                    parallel,
                    blocking,
                };
                let rk = RowKernel::new(&piles, opts);
                let mut kept = Vec::new();
                let Ok(()) = rk.sweep(700, n - 2, &Never, |k, l: &[i8], r: &[i8]| {
                    kept.push((k, l.to_vec(), r.to_vec()))
                });
                let ks: Vec<usize> = kept.iter().map(|k| k.0).collect();
                assert_eq!(ks, [700, 1400, 2100, 2800, 3500, 4200]);
                for (k, l, r) in &kept {
                    assert_eq!(l.len(), n - k + 1);
                    check(*k, 0, l, r, "sweep");
                }
                // A window of 300 cells from cell 1000, layers 1400 → 1699.
                let (k0, c0, w) = (1400, 1000, 300);
                let (_, l, r) = &kept[1];
                let mut st = RowKernel::buffers(w);
                st.len = w;
                st.l[..w].copy_from_slice(&l[c0..c0 + w]);
                st.r[..w].copy_from_slice(&r[c0..c0 + w]);
                for k in k0 + 1..k0 + w {
                    rk.advance(c0, k - 1, &mut st);
                    check(k, c0, &st.l[..st.len], &st.r[..st.len], "window");
                }
                assert_eq!(st.len, 1);
            }
        }
        // Cancelled: no layers after the first poll that says stop.
        let rk = RowKernel::new(&piles, KernelOptions::default());
        let mut calls = 0;
        let stop = || true;
        assert_eq!(
            rk.sweep(700, n - 2, &stop, |_, _, _| calls += 1),
            Err(Cancelled)
        );
        assert_eq!(calls, 0);
    }
}
