//! The two-ends remoteness DP of [`super::dp`] in `i64` with pieces in
//! fixed-capacity inline arrays: no allocation per segment, no `i128`
//! arithmetic. It computes the same functions as [`super::dp`] restricted
//! to `0 .. END` (every pile, table entry and curve point of a row it
//! accepts lies far below), and gives up (returns `None`, the caller then
//! runs the `i128` DP) when a row is outside its bounds or a function needs
//! more pieces than its arrays hold: a fast path, never a different answer.
//!
//! Besides the narrower numbers, the stages of a segment do not build
//! intermediate functions: they pass runs (start, end, value, slope) from
//! one to the next through [`Sink`]s, and only the curve `C` of the
//! interior and the segment's own P and Q are stored (docs/game.md §5).
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

/// Pieces the curve `C` of an interior can hold.
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

    /// Runs into `sink`: on each range of `inner`, `self(x + shift) + add`
    /// (`compose`) or `self(x) + add` where `x + shift < hi`, [`INF`]` + add`
    /// elsewhere.
    fn masked_runs<S: Sink>(&self, inner: &[Shift], hi: V, compose: bool, add: V, sink: &mut S) {
        for sh in inner {
            let kept = sh.end.min(hi - sh.shift);
            let rs = if compose { sh.shift } else { 0 };
            if sh.start < kept {
                let (lo, hi) = (sh.start + rs, kept + rs);
                let mut k = self.find(lo);
                let mut x = lo;
                while x < hi {
                    let p = self.p[k];
                    let e = self.end_of(k).min(hi);
                    sink.run(x - rs, e - rs, p.at(x) + add, p.slope);
                    x = e;
                    k += 1;
                }
            }
            let t = sh.start.max(kept);
            if t < sh.end {
                sink.run(t, sh.end, INF + add, 0);
            }
        }
    }

    /// Runs into `sink`: `max(self ∘ inner, other) + add`.
    fn compose_max_runs<const M: usize, S: Sink>(
        &self,
        inner: &[Shift],
        other: &Fx<M>,
        add: V,
        sink: &mut S,
    ) {
        let mut runs = ComposeRuns::new(self, inner);
        let (mut ta, mut ea, mut va, mut sa) = runs.next_run();
        let mut ib = 0;
        let mut t = 0;
        while t < END {
            let b = other.p[ib];
            let eb = other.end_of(ib);
            let e = ea.min(eb);
            let a_t = va + sa * (t - ta);
            better_runs(sink, t, e, a_t + add, sa, b.at(t) + add, b.slope, 1);
            t = e;
            if ea == e {
                (ta, ea, va, sa) = runs.next_run();
            }
            if eb == e {
                ib += 1;
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

/// Where the stages of a segment send their result: runs `v + sl · (x − t)`
/// on `t .. e`, in order, covering `0 .. END`.
trait Sink {
    fn run(&mut self, t: V, e: V, v: V, sl: V);
}

/// Runs into `sink` on `t .. e`: the better (`sign` 1: larger, −1: smaller)
/// of the lines `va + sa · (x − t)` and `vb + sb · (x − t)`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn better_runs<S: Sink>(sink: &mut S, t: V, e: V, va: V, sa: V, vb: V, sb: V, sign: V) {
    let d = sign * (va - vb);
    let ds = sign * (sa - sb);
    let d_last = d + ds * (e - 1 - t);
    if d >= 0 && d_last >= 0 {
        sink.run(t, e, va, sa);
    } else if d <= 0 && d_last <= 0 {
        sink.run(t, e, vb, sb);
    } else if d > 0 {
        // a then b: the first k with d + ds·k < 0 (ds < 0).
        let k = div_small(d, -ds) + 1;
        sink.run(t, t + k, va, sa);
        sink.run(t + k, e, vb + sb * k, sb);
    } else {
        // b then a: the first k with d + ds·k > 0 (ds > 0).
        let k = div_small(-d, ds) + 1;
        sink.run(t, t + k, vb, sb);
        sink.run(t + k, e, va + sa * k, sa);
    }
}

/// The better (`sign`) of the runs and the constant `c` from `from` on.
struct Clamp<S> {
    from: V,
    c: V,
    sign: V,
    next: S,
}

impl<S: Sink> Sink for Clamp<S> {
    #[inline(always)]
    fn run(&mut self, t: V, e: V, v: V, sl: V) {
        if t < self.from {
            self.next.run(t, e.min(self.from), v, sl);
        }
        let s = t.max(self.from);
        if s < e {
            let vs = v + sl * (s - t);
            better_runs(&mut self.next, s, e, vs, sl, self.c, 0, self.sign);
        }
    }
}

/// The runs with the value `v` at each point `(x, v)` (in increasing
/// order), pushed onto a function.
struct Points<'a, const N: usize> {
    points: [(V, V); 2],
    len: usize,
    next: usize,
    out: &'a mut Fx<N>,
}

impl<const N: usize> Sink for Points<'_, N> {
    #[inline(always)]
    fn run(&mut self, mut t: V, e: V, mut v: V, sl: V) {
        while self.next < self.len && self.points[self.next].0 < e {
            let (x, pv) = self.points[self.next];
            if t < x {
                self.out.push(t, v, sl);
            }
            self.out.push(x, pv, 0);
            v += sl * (x + 1 - t);
            t = x + 1;
            self.next += 1;
        }
        if t < e {
            self.out.push(t, v, sl);
        }
    }
}

/// `C(0) = c0`, `C(y) = v` at the forced point `(y, v)`, and elsewhere on
/// `1 .. END`, `C(y) = max(2 + max_{1 ≤ y' < y} C(y'), g(y))` for the runs
/// `g`, pushed onto a function.
struct RunningMax<'a> {
    /// The largest C(y') so far (y' ≥ 1).
    best: Option<V>,
    forced: Option<(V, V)>,
    out: &'a mut Sc,
}

impl RunningMax<'_> {
    #[inline(always)]
    fn stretch(&mut self, s: V, e: V, gv: V, slope: V) {
        let last = e - 1 - s;
        let out = &mut *self.out;
        let Some(b) = self.best else {
            out.push(s, gv, slope.max(2));
            self.best = Some(gv + slope.max(2) * last);
            return;
        };
        let a = b + 2;
        if slope < 2 {
            // The best start in the run is its first point.
            let v = a.max(gv);
            out.push(s, v, 2);
            self.best = Some(v + 2 * last);
        } else if gv >= a {
            out.push(s, gv, slope);
            self.best = Some(gv + slope * last);
        } else if slope == 2 {
            out.push(s, a, 2);
            self.best = Some(a + 2 * last);
        } else {
            // a + 2k until g overtakes it: the first k with gv + slope·k ≥ a + 2k.
            let d = a - gv;
            let k = (d + slope - 3) / (slope - 2);
            out.push(s, a, 2);
            if k <= last {
                out.push(s + k, gv + slope * k, slope);
            }
            self.best = Some((a + 2 * last).max(gv + slope * last));
        }
    }
}

impl Sink for RunningMax<'_> {
    #[inline(always)]
    fn run(&mut self, t: V, e: V, v: V, sl: V) {
        // C(0) is given: the runs count from 1.
        let (s, gv) = if t == 0 { (1, v + sl) } else { (t, v) };
        if s >= e {
            return;
        }
        match self.forced {
            Some((fy, fv)) if s <= fy && fy < e => {
                if s < fy {
                    self.stretch(s, fy, gv, sl);
                }
                self.out.push(fy, fv, 0);
                self.best = Some(self.best.map_or(fv, |b| b.max(fv)));
                if fy + 1 < e {
                    self.stretch(fy + 1, e, gv + sl * (fy + 1 - s), sl);
                }
            }
            _ => self.stretch(s, e, gv, sl),
        }
    }
}

/// The runs of `p ∘ inner` in order (`inner` covers `0 .. END` and maps
/// into the domain), one per piece of `p` met on each range of `inner`.
struct ComposeRuns<'a, const N: usize> {
    p: &'a Fx<N>,
    inner: &'a [Shift],
    /// The range of `inner`, the piece of `p` and the point (in `p`'s
    /// coordinates) the next run starts at.
    sh: usize,
    k: usize,
    x: V,
}

impl<'a, const N: usize> ComposeRuns<'a, N> {
    fn new(p: &'a Fx<N>, inner: &'a [Shift]) -> Self {
        let x = inner[0].start + inner[0].shift;
        ComposeRuns {
            p,
            inner,
            sh: 0,
            k: p.find(x),
            x,
        }
    }

    /// The next run `(t, e, v, sl)`; past the last, an empty run at END.
    #[inline(always)]
    fn next_run(&mut self) -> (V, V, V, V) {
        let Some(sh) = self.inner.get(self.sh) else {
            return (END, END, 0, 0);
        };
        let hi = sh.end + sh.shift;
        let piece = self.p.p[self.k];
        let e = self.p.end_of(self.k).min(hi);
        let run = (
            self.x - sh.shift,
            e - sh.shift,
            piece.at(self.x),
            piece.slope,
        );
        if e < hi {
            self.k += 1;
            self.x = e;
        } else {
            self.sh += 1;
            if let Some(next) = self.inner.get(self.sh) {
                self.x = next.start + next.shift;
                self.k = self.p.find(self.x);
            }
        }
        run
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
    /// The curve of the current interior.
    c: Sc,
}

/// Into `ws.c`: the remoteness `C(y)` of the lost positions
/// `(f(y), I, y)` of an interior I with end values `(l, r)`, from
/// `p(x) = rem(x, I)` and `q(y) = rem(I, y)` (as [`super::dp`]):
/// `C(0) = p(l)`, `C(r) = q(r)`, and for the other `y ≥ 1`
/// `C(y) = max(2 + max_{1 ≤ y' < y} C(y'), G(y))` with
/// `G(y) = 1 + max(q(y), p(f(y)), 1 + C(0) if 1 ≤ l < f(y))`.
fn curve_remoteness(p: &Lf, q: &Lf, l: V, r: V, ws: &mut Scratch) {
    let c0 = p.eval(l);
    // f(y) > l exactly for y ≥ l (l < r) or y > l (l ≥ r), y ≠ r.
    let from = match l {
        0 => END,
        _ if l < r => l,
        _ => l + 1,
    };
    let forced = (r >= 1).then(|| (r, q.eval(r)));
    ws.c.clear();
    ws.c.push(0, c0, 0);
    let mut sink = Clamp {
        from,
        c: c0 + 2,
        sign: 1,
        next: RunningMax {
            best: None,
            forced,
            out: &mut ws.c,
        },
    };
    p.compose_max_runs(curve_shifts(l, r).as_slice(), q, 1, &mut sink);
}

/// The points `(0, v0)` and, when `point ≥ 1`, `(point, v)` as a sink
/// onto `out`.
fn points(v0: V, point: V, v: V, out: &mut Lf) -> Points<'_, LAYER_CAP> {
    out.clear();
    Points {
        points: [(0, v0), (point, v)],
        len: if point >= 1 { 2 } else { 1 },
        next: 0,
        out,
    }
}

/// Into `out`: `P(x) = rem(x, I, y_end)` for every x from the curve
/// `ws.c` of I, and `p0 = rem(I, y_end)`.
fn left_free(ws: &mut Scratch, l: V, r: V, y_end: V, p0: V, out: &mut Lf) {
    let c = &ws.c;
    let fy = curve(l, r, y_end);
    let cy = c.eval(y_end);
    let inv = curve_inv_shifts(l, r);
    out.full |= c.full;
    // 1 + the lost child (x, I, f⁻¹(x)) when f⁻¹(x) < y_end, or
    // (f(y_end), I, y_end) when f(y_end) < x, the faster.
    let mut sink = Clamp {
        from: fy + 1,
        c: cy + 1,
        sign: -1,
        next: points(p0, fy, cy, out),
    };
    c.masked_runs(inv.as_slice(), y_end, true, 1, &mut sink);
}

/// Into `out`: `Q(y) = rem(x_end, I, y)` for every y from the curve `ws.c`
/// of I, and `q0 = rem(x_end, I)`.
fn right_free(ws: &mut Scratch, l: V, r: V, x_end: V, q0: V, out: &mut Lf) {
    let c = &ws.c;
    let yx = curve_inv(l, r, x_end);
    let cx = c.eval(yx);
    let f = curve_shifts(l, r);
    out.full |= c.full;
    // 1 + the lost child (f(y), I, y) when f(y) < x_end, or
    // (x_end, I, f⁻¹(x_end)) when f⁻¹(x_end) < y, the faster.
    let mut sink = Clamp {
        from: yx + 1,
        c: cx + 1,
        sign: -1,
        next: points(q0, yx, cx, out),
    };
    c.masked_runs(f.as_slice(), x_end, false, 1, &mut sink);
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
            if ws.c.full || out.0.full || out.1.full {
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
