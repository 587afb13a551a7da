//! Piecewise-linear functions on the integers `0 .. END`: the values the
//! remoteness DP carries for each interval (docs/game.md §5).
//!
//! A function is a list of pieces, each a start, the value there and the
//! slope (change per step), valid up to the next piece's start (the last
//! up to [`END`]). Values are exact `i128`: remoteness stays below 2^83
//! (the number of stones left bounds it), far from the sentinels ±[`INF`]
//! that stand for "no such child".

/// The exclusive end of every domain: above every pile, every table entry
/// (≤ 2^63) and every value the maps of an interval's curve reach.
pub const END: i128 = 1 << 66;

/// "Not there": a value no real remoteness reaches, used as +∞ in minima
/// and −∞ in maxima.
pub const INF: i128 = 1 << 120;

/// One piece: `value + slope · (x − start)` from `start` to the next piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub start: i128,
    pub value: i128,
    pub slope: i128,
}

impl Piece {
    /// The piece's line at `x`.
    #[inline]
    pub fn at(&self, x: i128) -> i128 {
        self.value + self.slope * (x - self.start)
    }
}

/// A map `x ↦ x + shift` on `start .. end`: the pieces of an interval's
/// curve `f` and of its inverse (every piece has slope 1, single points
/// included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shift {
    pub start: i128,
    pub end: i128,
    pub shift: i128,
}

/// A piecewise-linear function on `0 .. END` (pieces in order, the first
/// starting at 0, adjacent collinear pieces merged).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pl {
    pieces: Vec<Piece>,
}

impl Pl {
    /// An empty builder: push pieces from 0 upwards.
    pub fn with_capacity(n: usize) -> Pl {
        Pl {
            pieces: Vec::with_capacity(n),
        }
    }

    /// Makes `self` the function `inside` on the given ranges (in order,
    /// disjoint), `outside` elsewhere.
    pub fn set_indicator(&mut self, ranges: &[(i128, i128)], inside: i128, outside: i128) {
        self.pieces.clear();
        self.push(0, outside, 0);
        for &(s, e) in ranges {
            self.push(s, inside, 0);
            self.push(e, outside, 0);
        }
    }

    /// Empties the function (keeping its storage) to push pieces anew.
    pub fn clear(&mut self) {
        self.pieces.clear();
    }

    /// The pieces.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// The end (exclusive) of piece `k`.
    #[inline]
    pub fn end_of(&self, k: usize) -> i128 {
        self.pieces.get(k + 1).map_or(END, |p| p.start)
    }

    /// Appends a piece starting at `start` (≥ the last start; one at the
    /// same start replaces the last), merged with the last when collinear.
    #[inline]
    pub fn push(&mut self, start: i128, value: i128, slope: i128) {
        if start >= END {
            return;
        }
        if let Some(last) = self.pieces.last_mut() {
            debug_assert!(start >= last.start);
            if last.start == start {
                self.pieces.pop();
                return self.push(start, value, slope);
            }
            if last.slope == slope && last.at(start) == value {
                return;
            }
        }
        self.pieces.push(Piece {
            start,
            value,
            slope,
        });
    }

    /// The index of the piece holding `x`.
    #[inline]
    fn find(&self, x: i128) -> usize {
        self.pieces.partition_point(|p| p.start <= x) - 1
    }

    /// The value at `x` (`0 ≤ x < END`).
    #[inline]
    pub fn eval(&self, x: i128) -> i128 {
        self.pieces[self.find(x)].at(x)
    }

    /// Adds `c` to every value.
    pub fn add(&mut self, c: i128) {
        for p in &mut self.pieces {
            p.value += c;
        }
    }

    /// Into `out`: the same function with the value `v` at the one point `x`.
    pub fn set_point_into(&self, x: i128, v: i128, out: &mut Pl) {
        out.clear();
        for (k, p) in self.pieces.iter().enumerate() {
            let e = self.end_of(k);
            if e <= x || p.start > x {
                out.push(p.start, p.value, p.slope);
                continue;
            }
            // x in this piece.
            if p.start < x {
                out.push(p.start, p.value, p.slope);
            }
            out.push(x, v, 0);
            if x + 1 < e {
                out.push(x + 1, p.at(x + 1), p.slope);
            }
        }
    }

    /// Into `out`: the pointwise maximum (`max = true`) or minimum of two
    /// functions.
    pub fn combine_into(&self, other: &Pl, max: bool, out: &mut Pl) {
        let sign: i128 = if max { 1 } else { -1 };
        out.clear();
        let (mut ia, mut ib) = (0, 0);
        let mut t = 0;
        while t < END {
            let (a, b) = (self.pieces[ia], other.pieces[ib]);
            let (ea, eb) = (self.end_of(ia), other.end_of(ib));
            let e = ea.min(eb);
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
                let k = d / (-ds) + 1;
                out.push(t, va, a.slope);
                out.push(t + k, b.at(t + k), b.slope);
            } else {
                // b then a: the first k with d + ds·k > 0 (ds > 0).
                let k = (-d) / ds + 1;
                out.push(t, vb, b.slope);
                out.push(t + k, a.at(t + k), a.slope);
            }
            t = e;
            if ea == e {
                ia += 1;
            }
            if eb == e {
                ib += 1;
            }
        }
    }

    /// Into `out`: `self ∘ inner`, where `inner` covers `0 .. END` in order
    /// and maps into the domain.
    pub fn compose_into(&self, inner: &[Shift], out: &mut Pl) {
        out.clear();
        for sh in inner {
            let (lo, hi) = (sh.start + sh.shift, sh.end + sh.shift);
            debug_assert!(0 <= lo && hi <= END, "{sh:?}");
            let mut k = self.find(lo);
            let mut x = lo;
            while x < hi {
                let p = self.pieces[k];
                out.push(x - sh.shift, p.at(x), p.slope);
                x = self.end_of(k);
                k += 1;
            }
        }
    }
}

/// At most [`MAX_SHIFTS`] items on the stack.
#[derive(Debug, Clone, Copy)]
pub struct Few<T: Copy + Default> {
    items: [T; MAX_SHIFTS],
    len: usize,
}

/// The most ranges of a curve map.
pub const MAX_SHIFTS: usize = 5;

impl<T: Copy + Default> Few<T> {
    pub fn new() -> Self {
        Few {
            items: [T::default(); MAX_SHIFTS],
            len: 0,
        }
    }

    pub fn push(&mut self, t: T) {
        self.items[self.len] = t;
        self.len += 1;
    }

    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.len.checked_sub(1).map(|k| &mut self.items[k])
    }
}

impl<T: Copy + Default> std::ops::Deref for Few<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items[..self.len]
    }
}

/// The ranges of `x` (in order) where `inner(x) < hi`, within `from .. END`.
pub fn ranges_below(inner: &[Shift], hi: i128, from: i128) -> Few<(i128, i128)> {
    let mut out: Few<(i128, i128)> = Few::new();
    for sh in inner {
        let s = sh.start.max(from);
        let e = sh.end.min(hi - sh.shift);
        if s < e {
            match out.last_mut() {
                Some(last) if last.1 == s => last.1 = e,
                _ => out.push((s, e)),
            }
        }
    }
    out
}
