//! The direct kernel: table entries stored as biased machine words.
//!
//! A value `v` of an unsigned `w`-bit word is kept as the signed word
//! `v ^ 2^(w−1)`, so that the CPU's signed vector compares order them as
//! unsigned numbers while `+1`/`−1` still work; `0` (no pile) is the signed
//! minimum. The narrowest word that holds `max(a) + 1` is used ([`Width`]):
//! 16, 32 or 64 bits. The recurrence is docs/game.md §1's, written branch-free.

use super::{Advance, KernelOptions, Layers, multiversion, run_layers};
use crate::core::cancel::Cancel;

/// A machine word that holds biased pile values (see the module docs).
pub trait Word: Copy + Default + Send + Sync + PartialEq + PartialOrd + 'static {
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

/// `left[i][j]` from `L = left[i][j−1]`, `R = right[i][j−1]`, `X = a_j`
/// (docs/game.md §1), branch-free on biased words. `right[i][j]` is the mirror image:
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
        st.swap();
    }
}

multiversion!(fn advance<W: Word>(a: &[W], c0: usize, k0: usize, steps: usize, st: &mut Layers<W>) => advance_body);

/// The direct kernel over one row of biased words.
struct Direct<'a, W> {
    a: &'a [W],
    opts: KernelOptions,
}

impl<W: Word> Advance<W> for Direct<'_, W> {
    fn advance(&self, c0: usize, k0: usize, steps: usize, st: &mut Layers<W>) {
        advance(self.opts.isa, self.a, c0, k0, steps, st)
    }
}

/// Layer `last` (`1 ≤ last ≤ n`) of the row `a` of biased words: its
/// `(left, right)` arrays, of length `n − last + 1`; the stop of `cancel`
/// if it stopped the run.
///
/// # Panics
/// If `last` is not in `1 ..= n`.
pub fn layer<W: Word, C: Cancel + ?Sized>(
    a: &[W],
    last: usize,
    opts: KernelOptions,
    cancel: &C,
) -> Result<(Vec<W>, Vec<W>), C::Stop> {
    run_layers(
        a.to_vec(),
        a.to_vec(),
        last,
        opts,
        &Direct { a, opts },
        cancel,
    )
}

/// Encodes a row of piles (all ≤ `W::MAX_PILE`) as biased words.
pub fn encode_row<W: Word>(piles: &[u64]) -> Vec<W> {
    piles.iter().map(|&v| W::encode(v)).collect()
}
