//! The two-ends remoteness DP over intervals (docs/game.md §5, "The
//! algorithm"), one layer of segment lengths at a time.
//!
//! For a segment `a_i … a_j` it keeps two piecewise-linear functions:
//! `P(x)`, the remoteness of `(x, a_{i+1}, …, a_j)` (the left pile
//! replaced by any `x ≥ 0`, 0 meaning no pile), and `Q(y)`, that of
//! `(a_i, …, a_{j−1}, y)`. Those of length s come from those of length
//! s − 1 through the curve function `C` of the interior `a_{i+1} … a_{j−1}`.

use rayon::prelude::*;

use super::super::cancel::Cancel;
use super::super::moves::Side;
use super::super::tables::{left_step, right_step};
use super::MoveRange;
use super::pl::{END, Few, INF, Pl, Shift, ranges_below};

/// `f(y)`: the left pile that makes `(f(y), I, y)` lost, for an interior
/// with end values `(l, r)` (docs/game.md §1, "Why").
pub fn curve(l: i128, r: i128, y: i128) -> i128 {
    if y == 0 {
        l
    } else if y == r {
        0
    } else if l < r && l <= y && y < r {
        y + 1
    } else if l > r && r < y && y <= l {
        y - 1
    } else {
        y
    }
}

/// `f⁻¹(x)`.
pub fn curve_inv(l: i128, r: i128, x: i128) -> i128 {
    if x == 0 {
        r
    } else if x == l {
        0
    } else if l < r && l < x && x <= r {
        x - 1
    } else if l > r && r <= x && x < l {
        x + 1
    } else {
        x
    }
}

fn shifts(parts: &[(i128, i128, i128)]) -> Few<Shift> {
    let mut out = Few::new();
    for &(start, end, shift) in parts {
        if start < end {
            out.push(Shift { start, end, shift });
        }
    }
    out
}

/// [`curve`] as maps `y ↦ y + shift`.
pub fn curve_shifts(l: i128, r: i128) -> Few<Shift> {
    if l == 0 {
        shifts(&[(0, END, 0)])
    } else if l == r {
        shifts(&[(0, 1, l), (1, r, 0), (r, r + 1, -r), (r + 1, END, 0)])
    } else if l < r {
        shifts(&[
            (0, 1, l),
            (1, l, 0),
            (l, r, 1),
            (r, r + 1, -r),
            (r + 1, END, 0),
        ])
    } else {
        shifts(&[
            (0, 1, l),
            (1, r, 0),
            (r, r + 1, -r),
            (r + 1, l + 1, -1),
            (l + 1, END, 0),
        ])
    }
}

/// [`curve_inv`] as maps `x ↦ x + shift`.
pub fn curve_inv_shifts(l: i128, r: i128) -> Few<Shift> {
    if l == 0 {
        shifts(&[(0, END, 0)])
    } else if l == r {
        shifts(&[(0, 1, r), (1, l, 0), (l, l + 1, -l), (l + 1, END, 0)])
    } else if l < r {
        shifts(&[
            (0, 1, r),
            (1, l, 0),
            (l, l + 1, -l),
            (l + 1, r + 1, -1),
            (r + 1, END, 0),
        ])
    } else {
        shifts(&[
            (0, 1, r),
            (1, r, 0),
            (r, l, 1),
            (l, l + 1, -l),
            (l + 1, END, 0),
        ])
    }
}

/// Scratch functions reused from one segment to the next (no allocation
/// once they have grown).
#[derive(Debug, Default)]
pub struct Scratch {
    a: Pl,
    b: Pl,
    mask: Pl,
    /// The curve of the current interior.
    pub c: Pl,
}

/// Into `ws.c`: the remoteness `C(y)` of the lost positions
/// `(f(y), I, y)` of an interior I with end values `(l, r)`, from
/// `p(x) = rem(x, I)` and `q(y) = rem(I, y)`:
///
/// `C(0) = p(l)`, `C(r) = q(r)`, and for the other `y ≥ 1`
/// `C(y) = max(2 + max_{1 ≤ y' < y} C(y'), G(y))` with
/// `G(y) = 1 + max(q(y), p(f(y)), 1 + C(0) if 1 ≤ l < f(y))`.
pub fn curve_remoteness(p: &Pl, q: &Pl, l: i128, r: i128, ws: &mut Scratch) {
    let c0 = p.eval(l);
    p.compose_into(&curve_shifts(l, r), &mut ws.a);
    ws.a.combine_into(q, true, &mut ws.b);
    if l >= 1 {
        // f(y) > l exactly for y ≥ l (l < r) or y > l (l ≥ r), y ≠ r.
        let from = if l < r { l } else { l + 1 };
        ws.mask.set_indicator(&[(from, END)], c0 + 1, -INF);
        ws.b.combine_into(&ws.mask, true, &mut ws.a);
        std::mem::swap(&mut ws.a, &mut ws.b);
    }
    ws.b.add(1);
    let forced = (r >= 1).then(|| (r, q.eval(r)));
    running_max(&ws.b, forced, c0, &mut ws.c);
}

/// `C(0) = c0`, `C(y) = v` at the forced point `(y, v)`, and elsewhere on
/// `1 .. END`, `C(y) = max(2 + max_{1 ≤ y' < y} C(y'), g(y))`.
fn running_max(g: &Pl, forced: Option<(i128, i128)>, c0: i128, out: &mut Pl) {
    out.clear();
    out.push(0, c0, 0);
    // The largest C(y') so far (y' ≥ 1).
    let mut best: Option<i128> = None;
    let run = |out: &mut Pl, best: &mut Option<i128>, s: i128, e: i128, gv: i128, slope: i128| {
        let last = e - 1 - s;
        let Some(b) = *best else {
            out.push(s, gv, slope.max(2));
            *best = Some(gv + slope.max(2) * last);
            return;
        };
        let a = b + 2;
        if slope < 2 {
            // The best start in the piece is its first point.
            let v = a.max(gv);
            out.push(s, v, 2);
            *best = Some(v + 2 * last);
        } else if gv >= a {
            out.push(s, gv, slope);
            *best = Some(gv + slope * last);
        } else if slope == 2 {
            out.push(s, a, 2);
            *best = Some(a + 2 * last);
        } else {
            // a + 2k until g overtakes it: the first k with gv + slope·k ≥ a + 2k.
            let d = a - gv;
            let k = (d + slope - 3) / (slope - 2);
            out.push(s, a, 2);
            if k <= last {
                out.push(s + k, gv + slope * k, slope);
            }
            *best = Some((a + 2 * last).max(gv + slope * last));
        }
    };
    for (k, piece) in g.pieces().iter().enumerate() {
        let s = piece.start.max(1);
        let e = g.end_of(k);
        if s >= e {
            continue;
        }
        match forced {
            Some((fy, fv)) if s <= fy && fy < e => {
                if s < fy {
                    run(out, &mut best, s, fy, piece.at(s), piece.slope);
                }
                out.push(fy, fv, 0);
                best = Some(best.map_or(fv, |b| b.max(fv)));
                if fy + 1 < e {
                    run(out, &mut best, fy + 1, e, piece.at(fy + 1), piece.slope);
                }
            }
            _ => run(out, &mut best, s, e, piece.at(s), piece.slope),
        }
    }
}

/// Into `out`: `P(x) = rem(x, I, y_end)` for every x from the curve
/// `ws.c` of I, and `p0 = rem(I, y_end)`.
pub fn left_free(ws: &mut Scratch, l: i128, r: i128, y_end: i128, p0: i128, out: &mut Pl) {
    let c = &ws.c;
    let fy = curve(l, r, y_end);
    let cy = c.eval(y_end);
    let inv = curve_inv_shifts(l, r);
    // The lost child (x, I, f⁻¹(x)) when f⁻¹(x) < y_end …
    c.compose_into(&inv, &mut ws.a);
    ws.mask
        .set_indicator(&ranges_below(&inv, y_end, 0), -INF, INF);
    ws.a.combine_into(&ws.mask, true, &mut ws.b);
    // … and (f(y_end), I, y_end) when f(y_end) < x.
    ws.mask.set_indicator(&[(fy + 1, END)], cy, INF);
    ws.b.combine_into(&ws.mask, false, &mut ws.a);
    ws.a.add(1);
    finish(&ws.a, p0, fy, cy, &mut ws.b, out);
}

/// `out` = `m` with `m(0) = v0` and `m(point) = v` when `point ≥ 1`.
fn finish(m: &Pl, v0: i128, point: i128, v: i128, tmp: &mut Pl, out: &mut Pl) {
    if point >= 1 {
        m.set_point_into(0, v0, tmp);
        tmp.set_point_into(point, v, out);
    } else {
        m.set_point_into(0, v0, out);
    }
}

/// Into `out`: `Q(y) = rem(x_end, I, y)` for every y from the curve `ws.c`
/// of I, and `q0 = rem(x_end, I)`.
pub fn right_free(ws: &mut Scratch, l: i128, r: i128, x_end: i128, q0: i128, out: &mut Pl) {
    let c = &ws.c;
    let yx = curve_inv(l, r, x_end);
    let cx = c.eval(yx);
    let f = curve_shifts(l, r);
    // The lost child (f(y), I, y) when f(y) < x_end …
    ws.mask
        .set_indicator(&ranges_below(&f, x_end, 0), -INF, INF);
    c.combine_into(&ws.mask, true, &mut ws.a);
    // … and (x_end, I, f⁻¹(x_end)) when f⁻¹(x_end) < y.
    ws.mask.set_indicator(&[(yx + 1, END)], cx, INF);
    ws.a.combine_into(&ws.mask, false, &mut ws.b);
    ws.b.add(1);
    finish(&ws.b, q0, yx, cx, &mut ws.a, out);
}

/// Layers of at least this many segments are split across threads.
pub const PARALLEL_MIN_SEGMENTS: usize = 2048;

/// What the DP returns for a whole row of n ≥ 2 piles.
#[derive(Debug, Clone)]
pub struct RowFunctions {
    /// `P(x)`: remoteness of `(x, a_2, …, a_n)`.
    pub left: Pl,
    /// `Q(y)`: remoteness of `(a_1, …, a_{n−1}, y)`.
    pub right: Pl,
    /// The most pieces any function of the run had.
    pub max_pieces: usize,
}

/// Runs the DP over a row of n ≥ 2 piles, polling `cancel` once per layer.
pub fn row_functions<C: Cancel + ?Sized>(
    piles: &[u64],
    cancel: &C,
) -> Result<RowFunctions, C::Stop> {
    let n = piles.len();
    assert!(n >= 2);
    let a: Vec<i128> = piles.iter().map(|&v| i128::from(v)).collect();
    let unit = {
        let mut u = Pl::with_capacity(2);
        u.push(0, 0, 0);
        u.push(1, 1, 0);
        u
    };
    // (P, Q) of the segments of the current length, by first index.
    let mut layer = vec![(unit.clone(), unit); n];
    let mut next = vec![(Pl::default(), Pl::default()); n];
    let mut ws = Scratch::default();
    // (left, right) of the intervals of length k = s − 2, by first index.
    let mut lr: Vec<(u64, u64)> = piles.iter().map(|&v| (v, v)).collect();
    let mut k = 1;
    let mut max_pieces = 2;
    for s in 2..=n {
        cancel.check()?;
        if s >= 4 {
            // Advance lr from length k to k + 1 = s − 2.
            for i in 0..n - k {
                let (l0, r0) = lr[i];
                let (l1, r1) = lr[i + 1];
                lr[i] = (
                    left_step(l0, r0, piles[i + k]),
                    right_step(l1, r1, piles[i]),
                );
            }
            lr.truncate(n - k);
            k += 1;
        }
        let (layer_ref, lr_ref, a_ref) = (&layer, &lr, &a);
        // One segment a_i … a_{i+s−1}: its (P, Q) into `out`, its most pieces.
        let segment = move |i: usize, out: &mut (Pl, Pl), ws: &mut Scratch| -> usize {
            let j = i + s - 1;
            let (l, r) = if s == 2 {
                ws.c.clear();
                ws.c.push(0, 0, 2);
                (0, 0)
            } else {
                let (l, r) = lr_ref[i + 1];
                let (l, r) = (i128::from(l), i128::from(r));
                curve_remoteness(&layer_ref[i].0, &layer_ref[i + 1].1, l, r, ws);
                (l, r)
            };
            let p0 = layer_ref[i + 1].1.eval(a_ref[j]);
            let q0 = layer_ref[i].0.eval(a_ref[i]);
            left_free(ws, l, r, a_ref[j], p0, &mut out.0);
            right_free(ws, l, r, a_ref[i], q0, &mut out.1);
            ws.c.len().max(out.0.len()).max(out.1.len())
        };
        let count = n - s + 1;
        let most = if count >= PARALLEL_MIN_SEGMENTS {
            next[..count]
                .par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .map_init(Scratch::default, |ws, (i, out)| segment(i, out, ws))
                .max()
                .unwrap_or(0)
        } else {
            let mut most = 0;
            for (i, out) in next[..count].iter_mut().enumerate() {
                most = most.max(segment(i, out, &mut ws));
            }
            most
        };
        max_pieces = max_pieces.max(most);
        std::mem::swap(&mut layer, &mut next);
    }
    layer.truncate(1);
    let (left, right) = layer.pop().expect("one segment");
    Ok(RowFunctions {
        left,
        right,
        max_pieces,
    })
}

/// The moves on one end pile of size `pile` as ranges, from the function
/// `f` giving the remoteness left by each number of stones left: one range
/// per piece of `f` below `pile`, split into single moves where a piece
/// has an odd slope (the outcome alternates there; never seen).
pub fn ranges(f: &Pl, side: Side, pile: u64) -> Vec<MoveRange> {
    let mut out = Vec::with_capacity(f.len());
    let top = i128::from(pile);
    for (k, p) in f.pieces().iter().enumerate() {
        if p.start >= top {
            break;
        }
        let e = f.end_of(k).min(top);
        let mut emit = |lo: i128, hi: i128, slope: i128| {
            let v = p.at(lo);
            out.push(MoveRange {
                side,
                left_min: lo as u64,
                left_max: (hi - 1) as u64,
                mover_wins: v % 2 == 0,
                remoteness_at_min: v as u128,
                slope: if hi - lo == 1 { 0 } else { slope },
            });
        };
        if p.slope % 2 == 0 || e - p.start == 1 {
            emit(p.start, e, p.slope);
        } else {
            for x in p.start..e {
                emit(x, x + 1, 0);
            }
        }
    }
    out
}
