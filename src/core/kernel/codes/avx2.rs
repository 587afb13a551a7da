//! The codes kernel's layer pass written with AVX2 intrinsics.
//!
//! The portable [`step`](super::step) costs about nine vector instructions
//! per entry (four compares, two and-nots, a subtraction, a compare for
//! equality and a blend). Here each entry takes six, using the fact that the
//! biased codes and clamped differences are small non-negative bytes:
//!
//! * `x = p − dp` and `y = q − dq` lie in `3 ..= 11`, and only whether each is
//!   below, at or above [`BIAS`] matters;
//! * one `vpshufb` maps `x` to `0 / 3 / 6` ([`SIGN3`]) and one maps `y` to
//!   `0 / 1 / 2` ([`SIGN1`]); their sum indexes a third lookup ([`RESULT`])
//!   that holds the recurrence's answer as a biased code.
//!
//! `D` is computed for 32 cells at once from the coordinates (16-bit with a
//! saturating subtraction, or 32-bit), packed to bytes and clamped to ±2.
//!
//! Cell `t` of a chunk reads only cells `t` and `t + 1` of the previous
//! layer, so the chunks may run past the layer's end into the [`PAD`] slack;
//! the garbage computed there never flows into real cells.

use std::arch::x86_64::*;

use super::super::{Layers, PAD};
use super::{BIAS, Coord, NO_PILE, Row};

/// Cells per vector.
const LANES: usize = 32;

/// A 16-entry lookup table, repeated in both 128-bit halves (`vpshufb`
/// looks up within each half).
const fn twice(t: [i8; 16]) -> [i8; 32] {
    let mut out = [0i8; 32];
    let mut x = 0;
    while x < 16 {
        out[x] = t[x];
        out[x + 16] = t[x];
        x += 1;
    }
    out
}

const B: i8 = BIAS;
const N: i8 = NO_PILE;

/// `x` below / at / above `BIAS` (`X > P`, `X == P`, `X < P`) → 0 / 3 / 6.
const SIGN3: [i8; 32] = twice([0, 0, 0, 0, 0, 0, 0, 0, 3, 6, 6, 6, 6, 6, 6, 6]);
/// `y` below / at / above `BIAS` (`X > Q`, `X == Q`, `X < Q`) → 0 / 1 / 2.
const SIGN1: [i8; 32] = twice([0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2]);
/// The new entry for `SIGN3[x] + SIGN1[y]` (SPEC §1's table): `X > P`:
/// `X − 1` if `X ≤ Q` else `X`; `X == P`: 0; `X < P`: `X + 1` if `X ≥ Q`
/// else `X`.
const RESULT: [i8; 32] = twice([
    B,
    B - 1,
    B - 1,
    N,
    N,
    N,
    B + 1,
    B + 1,
    B,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
]);

#[inline(always)]
fn load_table(t: &[i8; 32]) -> __m256i {
    // SAFETY: `t` holds exactly 32 bytes.
    unsafe { _mm256_loadu_si256(t.as_ptr().cast()) }
}

/// `clamp(hi − lo, −2, 2)` for 32 cells of 16-bit (biased) coordinates.
///
/// # Safety
/// `lo` and `hi` must be readable for 32 `i16` each; the CPU must have AVX2.
#[inline(always)]
unsafe fn diff_narrow(lo: *const i16, hi: *const i16) -> __m256i {
    unsafe {
        let a0 = _mm256_subs_epi16(_mm256_loadu_si256(hi.cast()), _mm256_loadu_si256(lo.cast()));
        let a1 = _mm256_subs_epi16(
            _mm256_loadu_si256(hi.add(16).cast()),
            _mm256_loadu_si256(lo.add(16).cast()),
        );
        // Packing interleaves the 128-bit halves: cells 0-7, 16-23 | 8-15, 24-31.
        let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(a0, a1));
        _mm256_max_epi8(
            _mm256_min_epi8(packed, _mm256_set1_epi8(2)),
            _mm256_set1_epi8(-2),
        )
    }
}

/// `clamp(hi − lo, −2, 2)` for 32 cells of 32-bit coordinates.
///
/// # Safety
/// `lo` and `hi` must be readable for 32 `i32` each; the CPU must have AVX2.
#[inline(always)]
unsafe fn diff_wide(lo: *const i32, hi: *const i32) -> __m256i {
    unsafe {
        let sub = |t: usize| {
            _mm256_sub_epi32(
                _mm256_loadu_si256(hi.add(8 * t).cast()),
                _mm256_loadu_si256(lo.add(8 * t).cast()),
            )
        };
        let p0 = _mm256_packs_epi32(sub(0), sub(1));
        let p1 = _mm256_packs_epi32(sub(2), sub(3));
        // Dwords now hold cells 0-3, 8-11, 16-19, 24-27, 4-7, 12-15, 20-23, 28-31.
        let packed = _mm256_permutevar8x32_epi32(
            _mm256_packs_epi16(p0, p1),
            _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7),
        );
        _mm256_max_epi8(
            _mm256_min_epi8(packed, _mm256_set1_epi8(2)),
            _mm256_set1_epi8(-2),
        )
    }
}

/// One entry of the recurrence for 32 cells: `x = p − dp`, `y = q − dq`.
#[inline(always)]
fn step(x: __m256i, y: __m256i, sign3: __m256i, sign1: __m256i, result: __m256i) -> __m256i {
    // SAFETY: only called from `layer`, which runs with AVX2 enabled.
    unsafe {
        let idx = _mm256_add_epi8(_mm256_shuffle_epi8(sign3, x), _mm256_shuffle_epi8(sign1, y));
        _mm256_shuffle_epi8(result, idx)
    }
}

/// Pointers of one layer pass; see [`super::layer_body`] for their meaning.
struct Pass<C> {
    c_lo: *const C,
    c_hi: *const C,
    e_hi: *const i8,
    f_lo: *const i8,
    old_l: *const i8,
    old_r: *const i8,
    new_l: *mut i8,
    new_r: *mut i8,
}

/// One layer pass over `chunks` chunks of 32 cells.
///
/// # Safety
/// The CPU must have AVX2; the `C`, `e`, `f` and new-layer pointers must be
/// valid for `32 * chunks` elements and the old-layer ones for one more.
#[target_feature(enable = "avx2")]
unsafe fn layer<C: Coord>(p: &Pass<C>, chunks: usize) {
    let (sign3, sign1, result) = (load_table(&SIGN3), load_table(&SIGN1), load_table(&RESULT));
    for chunk in 0..chunks {
        let s = chunk * LANES;
        // SAFETY: `s + 32 <= 32 * chunks`, within the bounds the caller gave.
        unsafe {
            let d = if C::WIDE {
                diff_wide(p.c_lo.add(s).cast(), p.c_hi.add(s).cast())
            } else {
                diff_narrow(p.c_lo.add(s).cast(), p.c_hi.add(s).cast())
            };
            let load = |ptr: *const i8| _mm256_loadu_si256(ptr.add(s).cast());
            let (l0, r0) = (load(p.old_l), load(p.old_r));
            let (l1, r1) = (load(p.old_l.add(1)), load(p.old_r.add(1)));
            let (e, f) = (load(p.e_hi), load(p.f_lo));
            // left[i][j]: P = right[i][j−1] via D, Q = left[i][j−1] via E_j.
            let nl = step(
                _mm256_sub_epi8(r0, d),
                _mm256_sub_epi8(l0, e),
                sign3,
                sign1,
                result,
            );
            // right[i][j]: P = left[i+1][j] via −D, Q = right[i+1][j] via F_i.
            let nr = step(
                _mm256_add_epi8(l1, d),
                _mm256_sub_epi8(r1, f),
                sign3,
                sign1,
                result,
            );
            _mm256_storeu_si256(p.new_l.add(s).cast(), nl);
            _mm256_storeu_si256(p.new_r.add(s).cast(), nr);
        }
    }
}

/// Advances `st` (layer `k0` of the cells from `c0`) by `steps` layers.
/// The caller has checked that the CPU has AVX2.
pub(super) fn advance<C: Coord>(
    row: &Row<'_, C>,
    c0: usize,
    k0: usize,
    steps: usize,
    st: &mut Layers<i8>,
) {
    const { assert!(PAD > LANES) };
    for k in k0 + 1..=k0 + steps {
        let m = st.len - 1;
        let chunks = m.div_ceil(LANES);
        let cells = chunks * LANES;
        let hi = c0 + k - 1;
        // The bounds `layer` relies on (cheap: once per layer).
        assert!(
            row.c.len() >= hi + cells
                && row.e.len() >= hi + cells
                && row.f.len() >= c0 + cells
                && st.l.len() > cells
                && st.r.len() > cells
                && st.tl.len() >= cells
                && st.tr.len() >= cells,
            "layer buffers too short"
        );
        let pass = Pass {
            c_lo: row.c[c0..].as_ptr(),
            c_hi: row.c[hi..].as_ptr(),
            e_hi: row.e[hi..].as_ptr(),
            f_lo: row.f[c0..].as_ptr(),
            old_l: st.l.as_ptr(),
            old_r: st.r.as_ptr(),
            new_l: st.tl.as_mut_ptr(),
            new_r: st.tr.as_mut_ptr(),
        };
        // SAFETY: the caller checked AVX2; the assertion above gives the
        // bounds `layer` needs; the new layer does not alias the old one.
        unsafe { layer(&pass, chunks) };
        st.swap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lookup step equals the portable one on every input it can see.
    #[test]
    fn lookup_step_equals_portable_step() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let codes = [NO_PILE, BIAS - 1, BIAS, BIAS + 1];
        let mut checked = 0;
        for p in codes {
            for q in codes {
                for dp in -2i8..=2 {
                    for dq in -2i8..=2 {
                        #[target_feature(enable = "avx2")]
                        fn one(p: i8, q: i8, dp: i8, dq: i8) -> i8 {
                            let v = step(
                                _mm256_set1_epi8(p - dp),
                                _mm256_set1_epi8(q - dq),
                                load_table(&SIGN3),
                                load_table(&SIGN1),
                                load_table(&RESULT),
                            );
                            _mm256_extract_epi8::<17>(v) as i8
                        }
                        // SAFETY: AVX2 was detected above.
                        let got = unsafe { one(p, q, dp, dq) };
                        assert_eq!(got, super::super::step(p, q, dp, dq), "{p} {q} {dp} {dq}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 400);
    }
}
