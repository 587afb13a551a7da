//! What a game needs of the `left`/`right` tables, in O(n²/s) memory per row
//! and O(s²) per game: the kept layers of a row ([`GameRow`], shared by all
//! the games on it) and the cone of one game ([`Cone`]).
//!
//! Entries are kept as 2-bit codes relative to their end pile (docs/game.md
//! §1: `left[i][j]` is 0 or `a_j` − 1, + 0, + 1; `right[i][j]` likewise with
//! `a_i`): 0 → 0, 1 → end − 1, 2 → end, 3 → end + 1, as in
//! [`tables`](crate::core::tables). A cell (both entries) is a nibble, two
//! cells a byte.

use std::fmt;

use crate::core::cancel::Cancel;
use crate::core::kernel::KernelOptions;
use crate::core::kernel::Layers;
use crate::core::kernel::codes::from_layer::RowKernel;
use crate::core::kernel::codes::{LEFT_BIAS, NO_PILE, RIGHT_BIAS};
use crate::core::row::{ValidRow, Variant};
use crate::core::tables::decode;
use crate::core::verdict::default_options;

/// Keep every this-many-th layer of a large row (see docs/play.md for the
/// measurements behind it).
pub const DEFAULT_STRIDE: usize = 1024;

/// Rows of at most this many piles keep no layers: one cone from layer 1,
/// computed when a game starts, is their whole table (at most
/// `n² / 4` bytes per game).
pub const FULL_TABLE_MAX_PILES: usize = 1024;

/// How a [`GameRow`] is prepared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowOptions {
    /// Keep every `stride`-th layer (≥ 1) of rows longer than
    /// `full_table_max_piles`.
    pub stride: usize,
    /// Rows of at most this many piles keep no layers (full table per game).
    pub full_table_max_piles: usize,
    /// How to run the kernel (`None`: the default for the row's length).
    pub kernel: Option<KernelOptions>,
}

impl Default for RowOptions {
    fn default() -> Self {
        RowOptions {
            stride: DEFAULT_STRIDE,
            full_table_max_piles: FULL_TABLE_MAX_PILES,
            kernel: None,
        }
    }
}

/// The 2-bit code of a biased kernel code.
#[inline(always)]
fn code2(biased: i8, bias: i8) -> u8 {
    let c = biased.wrapping_sub(bias);
    if c == NO_PILE { 0 } else { (c + 2) as u8 }
}

/// The biased kernel code of a 2-bit code.
#[inline(always)]
fn biased(code2: u8, bias: i8) -> i8 {
    (if code2 == 0 { NO_PILE } else { code2 as i8 - 2 }) + bias
}

/// Packs `l.len()` cells of biased codes into nibbles (`out` holds at least
/// half as many bytes, rounded up).
fn pack(l: &[i8], r: &[i8], out: &mut [u8]) {
    let nib = |t: usize| code2(l[t], LEFT_BIAS) | (code2(r[t], RIGHT_BIAS) << 2);
    let m = l.len();
    for (b, byte) in out[..m / 2].iter_mut().enumerate() {
        *byte = nib(2 * b) | (nib(2 * b + 1) << 4);
    }
    if m % 2 == 1 {
        out[m / 2] = nib(m - 1);
    }
}

/// The 2-bit codes `(left, right)` of cell `i` of packed cells.
#[inline(always)]
fn unpack(bytes: &[u8], i: usize) -> (u8, u8) {
    let nib = (bytes[i / 2] >> (4 * (i % 2))) & 15;
    (nib & 3, nib >> 2)
}

/// One byte per cell (`left | right << 2`): the cone's layout, which the
/// compiler vectorises (a cone is written once per cell and read once per
/// layer, so the halved memory of nibbles is not worth their packing).
fn pack_bytes(l: &[i8], r: &[i8], out: &mut [u8]) {
    for ((o, &lc), &rc) in out.iter_mut().zip(l).zip(r) {
        *o = code2(lc, LEFT_BIAS) | (code2(rc, RIGHT_BIAS) << 2);
    }
}

/// Everything a game needs that depends on the row alone: computed once
/// (the two-ends sweep is O(n²) time), then shared read-only by every game
/// on the row (it is `Send + Sync`; hold it in an `Arc`).
pub struct GameRow {
    pub(super) piles: ValidRow<'static>,
    pub(super) variant: Variant,
    pub(super) inner: Inner,
}

pub(super) enum Inner {
    TwoEnds(TwoEnds),
    /// `wins[i]`: the player to move wins on `a_i … a_n` (0-based; `wins[n]`
    /// is false), docs/game.md §2.
    Leftmost {
        wins: Vec<bool>,
    },
}

pub(super) struct TwoEnds {
    /// `None` for rows of at most two piles (no interior is ever read).
    kernel: Option<RowKernel>,
    /// `None`: no kept layers (every cone starts at layer 1).
    stride: Option<usize>,
    /// `kept[t]`: layer `(t + 1) · stride`, packed, one cell per start `i`.
    kept: Vec<Vec<u8>>,
}

impl fmt::Debug for GameRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameRow")
            .field("piles", &self.piles.len())
            .field("variant", &self.variant)
            .field("stride", &self.stride())
            .field("heap_bytes", &self.heap_bytes())
            .finish()
    }
}

impl GameRow {
    /// Prepares a row with the default options. `cancel` is polled during
    /// the two-ends sweep (about every 64 layers): its stop if it stopped
    /// it (a closure `|| bool` stops with
    /// [`Cancelled`](crate::core::Cancelled); with [`Never`](crate::core::Never),
    /// `let Ok(row) = GameRow::new(…);`).
    pub fn new<C: Cancel + ?Sized>(
        piles: &ValidRow<'_>,
        variant: Variant,
        cancel: &C,
    ) -> Result<GameRow, C::Stop> {
        GameRow::with_options(piles, variant, RowOptions::default(), cancel)
    }

    /// [`GameRow::new`] with explicit options (tests force a small stride).
    ///
    /// # Panics
    /// If `opts.stride` is 0.
    pub fn with_options<C: Cancel + ?Sized>(
        piles: &ValidRow<'_>,
        variant: Variant,
        opts: RowOptions,
        cancel: &C,
    ) -> Result<GameRow, C::Stop> {
        assert!(opts.stride >= 1, "the stride must be at least 1");
        let n = piles.len();
        let inner = match variant {
            Variant::Leftmost => {
                let mut wins = vec![false; n + 1];
                for i in (0..n).rev() {
                    wins[i] = piles[i] > 1 || !wins[i + 1];
                }
                Inner::Leftmost { wins }
            }
            Variant::TwoEnds => {
                let stride = (n > opts.full_table_max_piles).then_some(opts.stride);
                let kernel = (n >= 3).then(|| {
                    RowKernel::new(piles, opts.kernel.unwrap_or_else(|| default_options(n)))
                });
                let mut kept = Vec::new();
                if let (Some(s), Some(kernel)) = (stride, &kernel) {
                    // The longest interior is n − 2 piles; a game starting
                    // there needs the kept layer at or below it.
                    let last = (n - 2) / s * s;
                    if last >= 1 {
                        kept.reserve(last / s);
                        let sink = |k: usize, l: &[i8], r: &[i8]| {
                            debug_assert_eq!(k, (kept.len() + 1) * s);
                            let mut bytes = vec![0u8; l.len().div_ceil(2)];
                            pack(l, r, &mut bytes);
                            kept.push(bytes);
                        };
                        kernel.sweep(s, last, cancel, sink)?;
                    }
                }
                Inner::TwoEnds(TwoEnds {
                    kernel,
                    stride,
                    kept,
                })
            }
        };
        Ok(GameRow {
            piles: piles.clone().into_owned(),
            variant,
            inner,
        })
    }

    /// The original row.
    pub fn piles(&self) -> &ValidRow<'static> {
        &self.piles
    }

    /// The variant played on it.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The stride of the kept layers (`None`: none kept, a game computes
    /// its whole table; always `None` for the leftmost variant).
    pub fn stride(&self) -> Option<usize> {
        match &self.inner {
            Inner::TwoEnds(t) => t.stride,
            Inner::Leftmost { .. } => None,
        }
    }

    /// Bytes held on the heap (the row, the kernel's arrays, the kept layers).
    pub fn heap_bytes(&self) -> usize {
        8 * self.piles.len()
            + match &self.inner {
                Inner::Leftmost { wins } => wins.capacity(),
                Inner::TwoEnds(t) => {
                    t.kernel.as_ref().map_or(0, RowKernel::heap_bytes)
                        + t.kept.iter().map(Vec::capacity).sum::<usize>()
                        + 24 * t.kept.capacity()
                }
            }
    }
}

/// The layers of one game's *cone*: every layer from `base` (1 or a kept
/// layer) up to `top`, restricted to the cells inside the interval
/// `[p, p + top − 1]` in play when it was computed. Every later interval of
/// the game down to length `base` lies inside it.
#[derive(Default)]
pub(super) struct Cone {
    valid: bool,
    p: usize,
    base: usize,
    top: usize,
    /// Cells at layer `base`.
    width: usize,
    /// Layers `base ..= top`, one after the other, a byte per cell.
    data: Vec<u8>,
    buffers: Option<Layers<i8>>,
    /// Cells computed since the game started (for measurements).
    pub(super) cells: u64,
}

impl Cone {
    /// Bytes held on the heap.
    pub(super) fn heap_bytes(&self) -> usize {
        self.data.capacity() + self.buffers.as_ref().map_or(0, |b| 4 * b.l.capacity())
    }
}

impl TwoEnds {
    fn kept_layer(&self, k: usize) -> Option<&[u8]> {
        let s = self.stride?;
        (k.is_multiple_of(s) && k / s >= 1 && k / s <= self.kept.len())
            .then(|| &self.kept[k / s - 1][..])
    }

    /// The layer a cone for an interval of length `m` starts from.
    fn base_for(&self, m: usize) -> usize {
        match self.stride {
            Some(s) if m / s >= 1 => (m / s).min(self.kept.len()) * s,
            _ => 1,
        }
    }
}

impl GameRow {
    fn two_ends(&self) -> &TwoEnds {
        match &self.inner {
            Inner::TwoEnds(t) => t,
            Inner::Leftmost { .. } => unreachable!("a two-ends query on a leftmost row"),
        }
    }

    /// Makes `cone` cover the interior `[p, q]` (0-based, `p ≤ q`): O(1)
    /// when it already does or the interval's length is a kept layer, else
    /// O(s²) (at most `s (s + 1) / 2` cells).
    pub(super) fn ensure(&self, cone: &mut Cone, p: usize, q: usize) {
        let t = self.two_ends();
        let m = q - p + 1;
        if t.kept_layer(m).is_some()
            || (cone.valid
                && cone.base <= m
                && m <= cone.top
                && cone.p <= p
                && q < cone.p + cone.top)
        {
            return;
        }
        let kernel = t.kernel.as_ref().expect("an interior means n ≥ 3");
        let base = t.base_for(m);
        let width = m - base + 1;
        let st = match &mut cone.buffers {
            Some(b) if b.l.len() >= width + crate::core::kernel::PAD => b,
            slot => slot.insert(RowKernel::buffers(width.next_power_of_two())),
        };
        st.len = width;
        match t.kept_layer(base) {
            Some(bytes) => {
                for c in 0..width {
                    let (l2, r2) = unpack(bytes, p + c);
                    st.l[c] = biased(l2, LEFT_BIAS);
                    st.r[c] = biased(r2, RIGHT_BIAS);
                }
            }
            None => {
                debug_assert_eq!(base, 1);
                st.l[..width].fill(LEFT_BIAS);
                st.r[..width].fill(RIGHT_BIAS);
            }
        }
        // Layer `base + t` has `width − t` cells, from byte `offset(t)`.
        let cells = width * (width + 1) / 2;
        cone.data.clear();
        cone.data.reserve_exact(cells);
        cone.data.resize(cells, 0);
        pack_bytes(&st.l[..width], &st.r[..width], &mut cone.data[..width]);
        let mut off = width;
        for k in base + 1..=m {
            kernel.advance(p, k - 1, st);
            let len = st.len;
            pack_bytes(&st.l[..len], &st.r[..len], &mut cone.data[off..off + len]);
            off += len;
        }
        cone.width = width;
        cone.cells += (width * (width + 1) / 2) as u64;
        cone.valid = true;
        cone.p = p;
        cone.base = base;
        cone.top = m;
    }

    /// `(left[p][q], right[p][q])` (0-based); the cone must cover `[p, q]`
    /// ([`GameRow::ensure`]) unless its length is a kept layer.
    pub(super) fn interior(&self, cone: &Cone, p: usize, q: usize) -> (u64, u64) {
        let t = self.two_ends();
        let m = q - p + 1;
        let (l2, r2) = match t.kept_layer(m) {
            Some(bytes) => unpack(bytes, p),
            None => {
                debug_assert!(cone.valid && cone.base <= m && m <= cone.top && cone.p <= p);
                // Layers base .. base + t − 1 hold w + (w − 1) + … cells.
                let (t, w) = (m - cone.base, cone.width);
                let cell = cone.data[t * w - t * (t.saturating_sub(1)) / 2 + (p - cone.p)];
                (cell & 3, cell >> 2)
            }
        };
        (decode(l2, self.piles[q]), decode(r2, self.piles[p]))
    }

    /// Leftmost: does the player to move win on `a_i … a_n` (0-based `i`,
    /// `i = n` for the empty row)?
    pub(super) fn suffix_wins(&self, i: usize) -> bool {
        match &self.inner {
            Inner::Leftmost { wins } => wins[i],
            Inner::TwoEnds(_) => unreachable!("a leftmost query on a two-ends row"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let codes = [NO_PILE, -1, 0, 1];
        let mut l = Vec::new();
        let mut r = Vec::new();
        for a in codes {
            for b in codes {
                l.push(a + LEFT_BIAS);
                r.push(b + RIGHT_BIAS);
            }
        }
        l.push(1 + LEFT_BIAS);
        r.push(NO_PILE + RIGHT_BIAS);
        let mut out = vec![0u8; l.len().div_ceil(2)];
        pack(&l, &r, &mut out);
        for i in 0..l.len() {
            let (l2, r2) = unpack(&out, i);
            assert_eq!(biased(l2, LEFT_BIAS), l[i]);
            assert_eq!(biased(r2, RIGHT_BIAS), r[i]);
        }
    }
}
