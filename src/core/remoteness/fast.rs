//! The two-ends remoteness DP of [`super::dp`] in `i64` with pieces in
//! fixed-capacity inline arrays: no allocation per segment, no `i128`
//! arithmetic. It computes the same functions as [`super::dp`] restricted
//! to `0 .. END` (every pile, table entry and curve point of a row it
//! accepts lies far below), and gives up (returns `None`, the caller then
//! runs the `i128` DP) when a row is outside its bounds or a function needs
//! more pieces than its arrays hold: a fast path, never a different answer.
//!
//! Bounds: every pile below [`MAX_PILE`] = 2^50 and their sum below 2^58.
//! Every value the DP builds on `0 .. END` (END = 2^52) is the remoteness
//! of a position with at most `sum + 2 · END < 2^59` stones, so at most
//! that (each ply takes a stone), or a sentinel ±[`INF`] (= 2^61) possibly
//! plus a few units; slopes are 0 or 2 (every slope the DP makes is an
//! input slope, 0 or 2, or `max(slope, 2)`). So no sum or product below
//! leaves `i64`: the largest is `|INF − (−INF)| + 2 · END < 2^63`.

use rayon::prelude::*;

use super::super::cancel::Cancel;
use super::super::tables::{left_step, right_step};
use super::dp::{PARALLEL_MIN_SEGMENTS, RowFunctions};
use super::pl::Pl;

type V = i64;

/// The exclusive end of every domain.
const END: V = 1 << 52;

/// "Not there" (±∞).
const INF: V = 1 << 61;

/// Piles must be below this for the fast path.
pub const MAX_PILE: u64 = 1 << 50;

/// The sum of the piles must be below this for the fast path.
const MAX_SUM: u128 = 1 << 58;

/// Pieces a function of a layer can hold (a row needing more falls back).
pub const LAYER_CAP: usize = 8;

/// Pieces an intermediate function can hold.
const SCRATCH_CAP: usize = 24;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Piece {
    start: V,
    value: V,
    slope: V,
}

impl Piece {
    #[inline(always)]
    fn at(&self, x: V) -> V {
        self.value + self.slope * (x - self.start)
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Shift {
    start: V,
    end: V,
    shift: V,
}

/// A piecewise-linear function on `0 .. END` in an inline array of at most
/// `N` pieces; `full` records a piece that did not fit (the run then gives
/// up).
#[derive(Debug, Clone, Copy)]
pub struct Fx<const N: usize> {
    len: u32,
    full: bool,
    p: [Piece; N],
}

impl<const N: usize> Default for Fx<N> {
    fn default() -> Self {
        Fx {
            len: 0,
            full: false,
            p: [Piece::default(); N],
        }
    }
}

impl<const N: usize> Fx<N> {
    #[inline(always)]
    fn pieces(&self) -> &[Piece] {
        &self.p[..self.len as usize]
    }

    #[inline(always)]
    fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    fn end_of(&self, k: usize) -> V {
        if k + 1 < self.len() {
            self.p[k + 1].start
        } else {
            END
        }
    }

    #[inline(always)]
    fn push(&mut self, start: V, value: V, slope: V) {
        if start >= END {
            return;
        }
        let mut len = self.len();
        if len > 0 && self.p[len - 1].start == start {
            // The same start replaces the last piece.
            len -= 1;
            self.len -= 1;
        }
        if len > 0 {
            let last = self.p[len - 1];
            debug_assert!(start > last.start);
            if last.slope == slope && last.at(start) == value {
                return;
            }
        }
        if len == N {
            self.full = true;
            return;
        }
        self.p[len] = Piece {
            start,
            value,
            slope,
        };
        self.len += 1;
    }

    #[inline(always)]
    fn find(&self, x: V) -> usize {
        let mut k = self.len() - 1;
        while k > 0 && self.p[k].start > x {
            k -= 1;
        }
        k
    }

    #[inline(always)]
    fn eval(&self, x: V) -> V {
        self.p[self.find(x)].at(x)
    }

    fn add(&mut self, c: V) {
        let len = self.len();
        for p in &mut self.p[..len] {
            p.value += c;
        }
    }

    fn combine_into<const M: usize, const K: usize>(
        &self,
        other: &Fx<M>,
        max: bool,
        out: &mut Fx<K>,
    ) {
        let sign: V = if max { 1 } else { -1 };
        out.clear();
        out.full |= self.full | other.full;
        let (mut ia, mut ib) = (0, 0);
        let mut t = 0;
        while t < END {
            let (a, b) = (self.p[ia], other.p[ib]);
            let (ea, eb) = (self.end_of(ia), other.end_of(ib));
            let e = ea.min(eb);
            emit_better(out, t, e, a, b, sign);
            t = e;
            if ea == e {
                ia += 1;
            }
            if eb == e {
                ib += 1;
            }
        }
    }

    /// Into `out`: `self`, with the better (`sign` 1: larger, −1: smaller)
    /// of it and the constant `c` on `s .. e`.
    fn clamp_into<const K: usize>(&self, s: V, e: V, c: V, sign: V, out: &mut Fx<K>) {
        out.clear();
        out.full |= self.full;
        for (k, &p) in self.pieces().iter().enumerate() {
            let (ps, pe) = (p.start, self.end_of(k));
            if ps < s {
                out.push(ps, p.value, p.slope);
            }
            let (is, ie) = (ps.max(s), pe.min(e));
            if is < ie {
                let cp = Piece {
                    start: is,
                    value: c,
                    slope: 0,
                };
                emit_better(out, is, ie, p, cp, sign);
            }
            let t = ps.max(e);
            if t < pe {
                out.push(t, p.at(t), p.slope);
            }
        }
    }

    /// Into `out`: on each range of `inner`, `self(x + shift) + add` (`compose`)
    /// or `self(x) + add` where `x + shift < hi`, [`INF`]` + add` elsewhere.
    fn masked_into<const K: usize>(
        &self,
        inner: &[Shift],
        hi: V,
        compose: bool,
        add: V,
        out: &mut Fx<K>,
    ) {
        out.clear();
        out.full |= self.full;
        for sh in inner {
            let kept = sh.end.min(hi - sh.shift);
            let rs = if compose { sh.shift } else { 0 };
            if sh.start < kept {
                let (lo, hi) = (sh.start + rs, kept + rs);
                let mut k = self.find(lo);
                let mut x = lo;
                while x < hi {
                    let p = self.p[k];
                    out.push(x - rs, p.at(x) + add, p.slope);
                    x = self.end_of(k);
                    k += 1;
                }
            }
            let t = sh.start.max(kept);
            if t < sh.end {
                out.push(t, INF + add, 0);
            }
        }
    }

    /// Into `out`: `self` with the value `v` at each point `(x, v)` (in
    /// increasing order).
    fn set_points_into<const M: usize>(&self, points: &[(V, V)], out: &mut Fx<M>) {
        out.clear();
        out.full |= self.full;
        let mut next = 0;
        for (k, p) in self.pieces().iter().enumerate() {
            let e = self.end_of(k);
            let mut t = p.start;
            while next < points.len() && points[next].0 < e {
                let (x, v) = points[next];
                if t < x {
                    out.push(t, p.at(t), p.slope);
                }
                out.push(x, v, 0);
                t = x + 1;
                next += 1;
            }
            if t < e {
                out.push(t, p.at(t), p.slope);
            }
        }
    }

    fn compose_into<const K: usize>(&self, inner: &[Shift], out: &mut Fx<K>) {
        out.clear();
        out.full |= self.full;
        for sh in inner {
            let (lo, hi) = (sh.start + sh.shift, sh.end + sh.shift);
            let mut k = self.find(lo);
            let mut x = lo;
            while x < hi {
                let p = self.p[k];
                out.push(x - sh.shift, p.at(x), p.slope);
                x = self.end_of(k);
                k += 1;
            }
        }
    }

    fn to_pl(self) -> Pl {
        let mut out = Pl::with_capacity(self.len());
        for p in self.pieces() {
            out.push(
                i128::from(p.start),
                i128::from(p.value),
                i128::from(p.slope),
            );
        }
        out
    }
}

/// `d / s` for `d ≥ 0`, `s > 0` (s is 2 or 1 on every row seen).
#[inline(always)]
fn div_small(d: V, s: V) -> V {
    match s {
        2 => d >> 1,
        1 => d,
        _ => d / s,
    }
}

/// Pushes onto `out`, on `t .. e`, the better (`sign` 1: larger, −1:
/// smaller) of the lines of `a` and `b`.
#[inline(always)]
fn emit_better<const K: usize>(out: &mut Fx<K>, t: V, e: V, a: Piece, b: Piece, sign: V) {
    let (va, vb) = (a.at(t), b.at(t));
    // d ≥ 0 where a is the one to keep.
    let d = sign * (va - vb);
    let ds = sign * (a.slope - b.slope);
    let d_last = d + ds * (e - 1 - t);
    if d >= 0 && d_last >= 0 {
        out.push(t, va, a.slope);
    } else if d <= 0 && d_last <= 0 {
        out.push(t, vb, b.slope);
    } else if d > 0 {
        // a then b: the first k with d + ds·k < 0 (ds < 0).
        let k = div_small(d, -ds) + 1;
        out.push(t, va, a.slope);
        out.push(t + k, b.at(t + k), b.slope);
    } else {
        // b then a: the first k with d + ds·k > 0 (ds > 0).
        let k = div_small(-d, ds) + 1;
        out.push(t, vb, b.slope);
        out.push(t + k, a.at(t + k), a.slope);
    }
}

/// At most five shifts, inline.
#[derive(Clone, Copy)]
struct Shifts {
    items: [Shift; 5],
    len: usize,
}

impl Shifts {
    #[inline(always)]
    fn new(parts: &[(V, V, V)]) -> Shifts {
        let mut out = Shifts {
            items: [Shift::default(); 5],
            len: 0,
        };
        for &(start, end, shift) in parts {
            if start < end {
                out.items[out.len] = Shift { start, end, shift };
                out.len += 1;
            }
        }
        out
    }

    #[inline(always)]
    fn as_slice(&self) -> &[Shift] {
        &self.items[..self.len]
    }
}

fn curve(l: V, r: V, y: V) -> V {
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

fn curve_inv(l: V, r: V, x: V) -> V {
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

fn curve_shifts(l: V, r: V) -> Shifts {
    if l == 0 {
        Shifts::new(&[(0, END, 0)])
    } else if l == r {
        Shifts::new(&[(0, 1, l), (1, r, 0), (r, r + 1, -r), (r + 1, END, 0)])
    } else if l < r {
        Shifts::new(&[
            (0, 1, l),
            (1, l, 0),
            (l, r, 1),
            (r, r + 1, -r),
            (r + 1, END, 0),
        ])
    } else {
        Shifts::new(&[
            (0, 1, l),
            (1, r, 0),
            (r, r + 1, -r),
            (r + 1, l + 1, -1),
            (l + 1, END, 0),
        ])
    }
}

fn curve_inv_shifts(l: V, r: V) -> Shifts {
    if l == 0 {
        Shifts::new(&[(0, END, 0)])
    } else if l == r {
        Shifts::new(&[(0, 1, r), (1, l, 0), (l, l + 1, -l), (l + 1, END, 0)])
    } else if l < r {
        Shifts::new(&[
            (0, 1, r),
            (1, l, 0),
            (l, l + 1, -l),
            (l + 1, r + 1, -1),
            (r + 1, END, 0),
        ])
    } else {
        Shifts::new(&[
            (0, 1, r),
            (1, r, 0),
            (r, l, 1),
            (l, l + 1, -l),
            (l + 1, END, 0),
        ])
    }
}

type Sc = Fx<SCRATCH_CAP>;
type Lf = Fx<LAYER_CAP>;

#[derive(Debug, Default)]
struct Scratch {
    a: Sc,
    b: Sc,
    c: Sc,
}

impl Scratch {
    fn full(&self) -> bool {
        self.a.full | self.b.full | self.c.full
    }
}

fn curve_remoteness(p: &Lf, q: &Lf, l: V, r: V, ws: &mut Scratch) {
    let c0 = p.eval(l);
    p.compose_into(curve_shifts(l, r).as_slice(), &mut ws.a);
    ws.a.combine_into(q, true, &mut ws.b);
    let g = if l >= 1 {
        // f(y) > l exactly for y ≥ l (l < r) or y > l (l ≥ r), y ≠ r.
        let from = if l < r { l } else { l + 1 };
        ws.b.clamp_into(from, END, c0 + 1, 1, &mut ws.a);
        &mut ws.a
    } else {
        &mut ws.b
    };
    g.add(1);
    let forced = (r >= 1).then(|| (r, q.eval(r)));
    running_max(g, forced, c0, &mut ws.c);
}

fn running_max(g: &Sc, forced: Option<(V, V)>, c0: V, out: &mut Sc) {
    out.clear();
    out.full |= g.full;
    out.push(0, c0, 0);
    let mut best: Option<V> = None;
    let run = |out: &mut Sc, best: &mut Option<V>, s: V, e: V, gv: V, slope: V| {
        let last = e - 1 - s;
        let Some(b) = *best else {
            out.push(s, gv, slope.max(2));
            *best = Some(gv + slope.max(2) * last);
            return;
        };
        let a = b + 2;
        if slope < 2 {
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

/// Into `out`: `m` with `m(0) = v0` and `m(point) = v` when `point ≥ 1`.
fn finish(m: &Sc, v0: V, point: V, v: V, out: &mut Lf) {
    if point >= 1 {
        m.set_points_into(&[(0, v0), (point, v)], out);
    } else {
        m.set_points_into(&[(0, v0)], out);
    }
}

fn left_free(ws: &mut Scratch, l: V, r: V, y_end: V, p0: V, out: &mut Lf) {
    let c = &ws.c;
    let fy = curve(l, r, y_end);
    let cy = c.eval(y_end);
    let inv = curve_inv_shifts(l, r);
    // 1 + the lost child (x, I, f⁻¹(x)) when f⁻¹(x) < y_end …
    c.masked_into(inv.as_slice(), y_end, true, 1, &mut ws.a);
    // … or (f(y_end), I, y_end) when f(y_end) < x, the faster.
    ws.a.clamp_into(fy + 1, END, cy + 1, -1, &mut ws.b);
    finish(&ws.b, p0, fy, cy, out);
}

fn right_free(ws: &mut Scratch, l: V, r: V, x_end: V, q0: V, out: &mut Lf) {
    let c = &ws.c;
    let yx = curve_inv(l, r, x_end);
    let cx = c.eval(yx);
    let f = curve_shifts(l, r);
    // 1 + the lost child (f(y), I, y) when f(y) < x_end …
    c.masked_into(f.as_slice(), x_end, false, 1, &mut ws.a);
    // … or (x_end, I, f⁻¹(x_end)) when f⁻¹(x_end) < y, the faster.
    ws.a.clamp_into(yx + 1, END, cx + 1, -1, &mut ws.b);
    finish(&ws.b, q0, yx, cx, out);
}

/// Is the row within the fast path's bounds?
pub fn accepts(piles: &[u64]) -> bool {
    piles.iter().all(|&v| v < MAX_PILE)
        && piles.iter().map(|&v| u128::from(v)).sum::<u128>() < MAX_SUM
}

/// The DP of [`super::dp::row_functions`] on the fast path: `Ok(None)` when
/// the row is outside its bounds or needs more than [`LAYER_CAP`] pieces.
pub fn row_functions<C: Cancel + ?Sized>(
    piles: &[u64],
    cancel: &C,
) -> Result<Option<RowFunctions>, C::Stop> {
    let n = piles.len();
    assert!(n >= 2);
    if !accepts(piles) {
        return Ok(None);
    }
    let a: Vec<V> = piles.iter().map(|&v| v as V).collect();
    let mut unit = Lf::default();
    unit.push(0, 0, 0);
    unit.push(1, 1, 0);
    let mut layer = vec![(unit, unit); n];
    let mut next = vec![(Lf::default(), Lf::default()); n];
    let mut ws = Scratch::default();
    let mut lr: Vec<(u64, u64)> = piles.iter().map(|&v| (v, v)).collect();
    let mut k = 1;
    let mut max_pieces = 2;
    for s in 2..=n {
        cancel.check()?;
        if s >= 4 {
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
        // The most pieces of the segment, or None when something overflowed.
        let segment = move |i: usize, out: &mut (Lf, Lf), ws: &mut Scratch| -> Option<usize> {
            let j = i + s - 1;
            let (l, r) = if s == 2 {
                ws.c.clear();
                ws.c.push(0, 0, 2);
                (0, 0)
            } else {
                let (l, r) = lr_ref[i + 1];
                let (l, r) = (l as V, r as V);
                curve_remoteness(&layer_ref[i].0, &layer_ref[i + 1].1, l, r, ws);
                (l, r)
            };
            let p0 = layer_ref[i + 1].1.eval(a_ref[j]);
            let q0 = layer_ref[i].0.eval(a_ref[i]);
            left_free(ws, l, r, a_ref[j], p0, &mut out.0);
            right_free(ws, l, r, a_ref[i], q0, &mut out.1);
            if ws.full() || out.0.full || out.1.full {
                return None;
            }
            Some(ws.c.len().max(out.0.len()).max(out.1.len()))
        };
        let count = n - s + 1;
        let most = if count >= PARALLEL_MIN_SEGMENTS {
            next[..count]
                .par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .map_init(Scratch::default, |ws, (i, out)| segment(i, out, ws))
                .try_reduce(|| 0, |x, y| Some(x.max(y)))
        } else {
            let mut most = Some(0);
            for (i, out) in next[..count].iter_mut().enumerate() {
                match segment(i, out, &mut ws) {
                    Some(m) => most = most.map(|x| x.max(m)),
                    None => {
                        most = None;
                        break;
                    }
                }
            }
            most
        };
        let Some(most) = most else {
            return Ok(None);
        };
        max_pieces = max_pieces.max(most);
        std::mem::swap(&mut layer, &mut next);
    }
    let (left, right) = layer[0];
    Ok(Some(RowFunctions {
        left: left.to_pl(),
        right: right.to_pl(),
        max_pieces,
    }))
}
