//! The codes kernel's layer pass written with AVX2 intrinsics.
//!
//! The portable [`step`](super::step) costs about nine vector instructions
//! per entry (four compares, two and-nots, a subtraction, a compare for
//! equality and a blend). Here each entry takes six, because every quantity
//! it looks at is a small non-negative byte:
//!
//! * `D' = clamp(c_j − c_i + 2, 0, 4)` (from the coordinates plus 2, with an
//!   unsigned saturating pack and one `min`);
//! * stored codes carry the biases [`LEFT_BIAS`] and [`RIGHT_BIAS`], chosen so
//!   that `x` (the difference that compares `X` with `P`) and `y` (with `Q`)
//!   lie in `0 ..= 15`, with the operand order that lets the CPU read two of
//!   the four old entries straight from memory;
//! * one `vpshufb` maps `x` to `0 / 3 / 6` (`X > P`, `X == P`, `X < P`), one
//!   maps `y` to `0 / 1 / 2` (`X > Q`, `X == Q`, `X < Q`), and a third maps
//!   their sum to the new entry (docs/game.md §1's table), already biased.
//!
//! | step  | `x`                    | `X == P` at | `y`          | `X == Q` at |
//! |-------|------------------------|-------------|--------------|-------------|
//! | left  | `D' − (R + RIGHT_BIAS)`| 2 − RIGHT_BIAS | `(L + LEFT_BIAS) − E` | LEFT_BIAS |
//! | right | `(L' + LEFT_BIAS) + D'`| LEFT_BIAS + 2 | `F − (R' + RIGHT_BIAS)` | −RIGHT_BIAS |
//!
//! Cell `t` of a chunk reads only cells `t` and `t + 1` of the previous
//! layer, so the chunks may run past the layer's end into the [`PAD`] slack;
//! the garbage computed there never flows into real cells.

use std::arch::x86_64::*;

use super::super::{Layers, PAD};
use super::{Coord, LEFT_BIAS, NO_PILE, RIGHT_BIAS, Row};

/// Cells per vector.
const LANES: usize = 32;
/// Cells per loop turn.
const CHUNK: usize = 2 * LANES;

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

/// Classes of `v` against `at`: below, equal, above → `lo`, `mid`, `hi`.
const fn classes(at: i8, lo: i8, mid: i8, hi: i8) -> [i8; 32] {
    let mut t = [0i8; 16];
    let mut v = 0;
    while v < 16 {
        t[v as usize] = if v < at {
            lo
        } else if v == at {
            mid
        } else {
            hi
        };
        v += 1;
    }
    twice(t)
}

/// The new entry, biased by `bias`, for `class(x) + class(y)`: `X > P`:
/// `X − 1` if `X ≤ Q` else `X`; `X == P`: 0; `X < P`: `X + 1` if `X ≥ Q`
/// else `X`.
const fn result(bias: i8) -> [i8; 32] {
    let (b, n) = (bias, NO_PILE + bias);
    twice([
        b,
        b - 1,
        b - 1,
        n,
        n,
        n,
        b + 1,
        b + 1,
        b,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ])
}

/// The lookups of one step.
#[derive(Clone, Copy)]
struct Tables {
    x_class: __m256i,
    y_class: __m256i,
    result: __m256i,
}

/// `x = D' − R` is larger when `R` is smaller, i.e. when `X < P` is less so.
const LEFT_X: [i8; 32] = classes(2 - RIGHT_BIAS, 6, 3, 0);
const LEFT_Y: [i8; 32] = classes(LEFT_BIAS, 0, 1, 2);
const LEFT_RESULT: [i8; 32] = result(LEFT_BIAS);
const RIGHT_X: [i8; 32] = classes(LEFT_BIAS + 2, 0, 3, 6);
/// `y = F − R'` is larger when `R'` is smaller, i.e. when `X < Q` is less so.
const RIGHT_Y: [i8; 32] = classes(-RIGHT_BIAS, 2, 1, 0);
const RIGHT_RESULT: [i8; 32] = result(RIGHT_BIAS);

#[target_feature(enable = "avx2")]
#[inline]
fn load_table(t: &[i8; 32]) -> __m256i {
    // SAFETY: `t` holds exactly 32 bytes.
    unsafe { _mm256_loadu_si256(t.as_ptr().cast()) }
}

/// `D' = clamp(hi2 − lo, 0, 4)` (`hi2` = coordinate plus 2) for 32 cells of
/// 16-bit (biased) coordinates.
///
/// # Safety
/// `lo` and `hi2` must be readable for 32 `i16` each.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn diff_narrow(lo: *const i16, hi2: *const i16) -> __m256i {
    unsafe {
        let a0 = _mm256_subs_epi16(
            _mm256_loadu_si256(hi2.cast()),
            _mm256_loadu_si256(lo.cast()),
        );
        let a1 = _mm256_subs_epi16(
            _mm256_loadu_si256(hi2.add(16).cast()),
            _mm256_loadu_si256(lo.add(16).cast()),
        );
        // Packing interleaves the 128-bit halves: cells 0-7, 16-23 | 8-15, 24-31.
        let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a0, a1));
        _mm256_min_epu8(packed, _mm256_set1_epi8(4))
    }
}

/// `D' = clamp(hi2 − lo, 0, 4)` for 32 cells of 32-bit coordinates.
///
/// # Safety
/// `lo` and `hi2` must be readable for 32 `i32` each.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn diff_wide(lo: *const i32, hi2: *const i32) -> __m256i {
    unsafe {
        let sub = |t: usize| {
            _mm256_sub_epi32(
                _mm256_loadu_si256(hi2.add(8 * t).cast()),
                _mm256_loadu_si256(lo.add(8 * t).cast()),
            )
        };
        let p0 = _mm256_packs_epi32(sub(0), sub(1));
        let p1 = _mm256_packs_epi32(sub(2), sub(3));
        // Dwords now hold cells 0-3, 8-11, 16-19, 24-27, 4-7, 12-15, 20-23, 28-31.
        let packed = _mm256_permutevar8x32_epi32(
            _mm256_packus_epi16(p0, p1),
            _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7),
        );
        _mm256_min_epu8(packed, _mm256_set1_epi8(4))
    }
}

/// One entry of the recurrence for 32 cells from their `x` and `y`.
#[target_feature(enable = "avx2")]
#[inline]
fn step(x: __m256i, y: __m256i, t: Tables) -> __m256i {
    let idx = _mm256_add_epi8(
        _mm256_shuffle_epi8(t.x_class, x),
        _mm256_shuffle_epi8(t.y_class, y),
    );
    _mm256_shuffle_epi8(t.result, idx)
}

/// Pointers of one layer pass; see [`super::layer_body`] for their meaning.
struct Pass<C> {
    c_lo: *const C,
    /// Coordinates plus 2, from `j`.
    c_hi2: *const C,
    e_hi: *const i8,
    f_lo: *const i8,
    old_l: *const i8,
    old_r: *const i8,
    new_l: *mut i8,
    new_r: *mut i8,
}

/// 32 cells of one layer pass, from cell `s`.
///
/// # Safety
/// As for [`layer`], with `s + 32` within its bounds.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn cells32<C: Coord>(p: &Pass<C>, s: usize, left: Tables, right: Tables) {
    // SAFETY: the caller's bounds.
    unsafe {
        let d = if C::WIDE {
            diff_wide(p.c_lo.add(s).cast(), p.c_hi2.add(s).cast())
        } else {
            diff_narrow(p.c_lo.add(s).cast(), p.c_hi2.add(s).cast())
        };
        let load = |ptr: *const i8| _mm256_loadu_si256(ptr.add(s).cast());
        // left[i][j]: P = right[i][j−1] via D, Q = left[i][j−1] via E_j.
        let nl = step(
            _mm256_sub_epi8(d, load(p.old_r)),
            _mm256_sub_epi8(load(p.old_l), load(p.e_hi)),
            left,
        );
        // right[i][j]: P = left[i+1][j] via −D, Q = right[i+1][j] via F_i.
        let nr = step(
            _mm256_add_epi8(d, load(p.old_l.add(1))),
            _mm256_sub_epi8(load(p.f_lo), load(p.old_r.add(1))),
            right,
        );
        _mm256_storeu_si256(p.new_l.add(s).cast(), nl);
        _mm256_storeu_si256(p.new_r.add(s).cast(), nr);
    }
}

/// One layer pass over `chunks` chunks of [`CHUNK`] cells (two vectors per
/// loop turn: fewer loop instructions per cell).
///
/// # Safety
/// The `C`, `e`, `f` and new-layer pointers must be valid for
/// `CHUNK * chunks` elements and the old-layer ones for one more.
#[target_feature(enable = "avx2")]
unsafe fn layer<C: Coord>(p: &Pass<C>, chunks: usize) {
    let tables = |x: &[i8; 32], y: &[i8; 32], r: &[i8; 32]| Tables {
        x_class: load_table(x),
        y_class: load_table(y),
        result: load_table(r),
    };
    let left = tables(&LEFT_X, &LEFT_Y, &LEFT_RESULT);
    let right = tables(&RIGHT_X, &RIGHT_Y, &RIGHT_RESULT);
    for chunk in 0..chunks {
        let s = chunk * CHUNK;
        // SAFETY: `s + CHUNK <= CHUNK * chunks`, within the caller's bounds.
        unsafe {
            cells32(p, s, left, right);
            cells32(p, s + LANES, left, right);
        }
    }
}

/// Advances `st` (layer `k0` of the cells from `c0`) by `steps` layers.
/// Callers without AVX2 enabled call it in `unsafe`, having checked that
/// the CPU has it.
#[target_feature(enable = "avx2")]
pub(super) fn advance<C: Coord>(
    row: &Row<'_, C>,
    c0: usize,
    k0: usize,
    steps: usize,
    st: &mut Layers<i8>,
) {
    const { assert!(PAD >= CHUNK) };
    for k in k0 + 1..=k0 + steps {
        let m = st.len - 1;
        let chunks = m.div_ceil(CHUNK);
        let cells = chunks * CHUNK;
        let hi = c0 + k - 1;
        // The bounds `layer` relies on (cheap: once per layer).
        assert!(
            row.c.len() >= c0 + cells
                && row.c2.len() >= hi + cells
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
            c_hi2: row.c2[hi..].as_ptr(),
            e_hi: row.e[hi..].as_ptr(),
            f_lo: row.f[c0..].as_ptr(),
            old_l: st.l.as_ptr(),
            old_r: st.r.as_ptr(),
            new_l: st.tl.as_mut_ptr(),
            new_r: st.tr.as_mut_ptr(),
        };
        // SAFETY: the assertion above gives the bounds `layer` needs; the
        // new layer does not alias the old one.
        unsafe { layer(&pass, chunks) };
        st.swap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[target_feature(enable = "avx2")]
    fn lookup(x: i8, y: i8, x_class: &[i8; 32], y_class: &[i8; 32], result: &[i8; 32]) -> i8 {
        let t = Tables {
            x_class: load_table(x_class),
            y_class: load_table(y_class),
            result: load_table(result),
        };
        let v = step(_mm256_set1_epi8(x), _mm256_set1_epi8(y), t);
        _mm256_extract_epi8::<17>(v) as i8
    }

    /// Both lookup steps equal the portable step on every input they see:
    /// codes `p`, `q` and clamped differences `dp`, `dq`.
    #[test]
    fn lookup_steps_equal_the_portable_step() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            // Past the harness's output capture, so that the skip shows.
            let _ = writeln!(
                std::io::stderr(),
                "avx2 lookup steps: skipped, the CPU lacks AVX2"
            );
            return;
        }
        let codes = [NO_PILE, -1, 0, 1];
        let mut checked = 0;
        for p in codes {
            for q in codes {
                for dp in -2i8..=2 {
                    for dq in -2i8..=2 {
                        let want = super::super::step(p, q, dp, dq);
                        // Left: P = R (code p) against D = dp, Q = L against E = dq.
                        let x = (dp + 2) - (p + RIGHT_BIAS);
                        let y = (q + LEFT_BIAS) - dq;
                        assert!((0..16).contains(&x) && (0..16).contains(&y), "left {x} {y}");
                        // SAFETY: AVX2 was detected above.
                        let got = unsafe { lookup(x, y, &LEFT_X, &LEFT_Y, &LEFT_RESULT) };
                        assert_eq!(got - LEFT_BIAS, want, "left {p} {q} {dp} {dq}");
                        // Right: P = L' against −D = dp, Q = R' against F = dq.
                        let x = (p + LEFT_BIAS) + (-dp + 2);
                        let y = dq - (q + RIGHT_BIAS);
                        // SAFETY: AVX2 was detected above.
                        let got = unsafe { lookup(x, y, &RIGHT_X, &RIGHT_Y, &RIGHT_RESULT) };
                        assert_eq!(got - RIGHT_BIAS, want, "right {p} {q} {dp} {dq}");
                        assert!(
                            (0..16).contains(&x) && (0..16).contains(&y),
                            "right {x} {y}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        let _ = writeln!(
            std::io::stderr(),
            "avx2 lookup steps: tested on {checked} inputs"
        );
    }
}
