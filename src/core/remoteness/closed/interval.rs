//! One interval's five numbers and the closed form's arithmetic on them:
//! the curve, the remoteness of a row around the interval, and an
//! interval's numbers from its two sub-intervals (docs/game.md §5, "The
//! algorithm: five numbers per interval"). Pure, branch-free and inlined
//! into the layer pass.

use super::value::Value;

/// What an interval I keeps: `l = L`, `r = R` (the end piles that make
/// `(L, I)` and `(I, R)` lost; 0 when I itself is lost), `delta = δ(I)`,
/// `c0 = rem(L, I)` and `cr = rem(I, R)`. The empty interval has all five 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Interval<T> {
    pub l: T,
    pub r: T,
    pub delta: T,
    pub c0: T,
    pub cr: T,
}

/// `f(y)` of an interior with end values `(l, r)`, y ≥ 1: the left pile
/// that makes `(f(y), I, y)` lost (docs/game.md §1: the same step as the
/// `left` table's).
#[inline(always)]
fn curve<T: Value>(l: T, r: T, y: T) -> T {
    let plus = T::bit((y < r) & (y >= l));
    let minus = T::bit((y > r) & (y <= l));
    let v = y + plus - minus;
    if y == r { T::default() } else { v }
}

/// `f⁻¹(x)` of an interior with end values `(l, r)`, x ≥ 1 (the `right`
/// table's step).
#[inline(always)]
fn curve_inv<T: Value>(l: T, r: T, x: T) -> T {
    curve(r, l, x)
}

impl<T: Value> Interval<T> {
    /// The same numbers as `i128`.
    pub fn widen(&self) -> Interval<i128> {
        Interval {
            l: self.l.wide(),
            r: self.r.wide(),
            delta: self.delta.wide(),
            c0: self.c0.wide(),
            cr: self.cr.wide(),
        }
    }

    /// `C(y)` by the closed form, for y ≥ 1 other than R: the remoteness
    /// of the lost row `(f(y), I, y)`, `2m + δ + 2·[m < max(L, R)]` with
    /// `m = min(f(y), y)`.
    #[inline(always)]
    fn formula(&self, y: T) -> T {
        let m = y - T::bit((self.l > self.r) & (self.r < y) & (y <= self.l));
        let high = T::bit(m < self.l.max(self.r));
        m + m + self.delta + high + high
    }

    /// `C(y)` for any y ≥ 1.
    #[inline(always)]
    pub(super) fn curve_at(&self, y: T) -> T {
        if y == self.r {
            self.cr
        } else {
            self.formula(y)
        }
    }

    /// The remoteness of the row `(x, I, y)`, x, y ≥ 1: lost on the curve,
    /// else 1 + the smaller of its (at most two) lost children's.
    #[inline(always)]
    pub fn row(&self, x: T, y: T) -> T {
        let one = T::of(1);
        let fy = curve(self.l, self.r, y);
        let yi = curve_inv(self.l, self.r, x);
        let cy = self.curve_at(y);
        let cyi = if yi == T::default() {
            self.c0
        } else {
            self.curve_at(yi)
        };
        let a = if fy < x { cy } else { T::HUGE };
        let b = if yi < y { cyi } else { T::HUGE };
        if x == fy { cy } else { one + a.min(b) }
    }

    /// The interval `a, …, b` from its sub-intervals of one pile fewer:
    /// `without_last = (a, …)` and `without_first = (…, b)` (both empty
    /// for an interval of one pile, a = b).
    #[inline(always)]
    pub fn extend(a: T, b: T, without_last: &Self, without_first: &Self) -> Self {
        let (k2, k) = (without_last, without_first);
        let zero = T::default();
        let one = T::of(1);
        // L makes (L, k2, b) lost; R makes (a, k, R) lost.
        let l = curve(k2.l, k2.r, b);
        let r = curve_inv(k.l, k.r, a);
        // rem(L, I) = C_k2(b), rem(I, R) = C_k(R) (R ≠ R of k, as a ≥ 1).
        let c0 = k2.curve_at(b);
        let cr = if r == zero { k.c0 } else { k.formula(r) };
        // C of I at its first point y0 ≥ 1 other than R, by the recursion
        // C(y0) = 1 + max(rem(I, y0), rem(f(y0), I), 1 + C(1) if y0 = 2,
        //                 1 + C(0) if 1 ≤ L < f(y0)).
        let second = r == one;
        let y0 = one + T::bit(second);
        let fy = curve(l, r, y0);
        // rem(I, y0) = rem(a, k, y0): its lost children are (f_k(y0), k, y0)
        // and (a, k, R), the latter of remoteness rem(I, R).
        let fk = curve(k.l, k.r, y0);
        let ck = k.curve_at(y0);
        let t1 = {
            let p = if fk < a { ck } else { T::HUGE };
            let q = if r < y0 { cr } else { T::HUGE };
            if a == fk { ck } else { one + p.min(q) }
        };
        // rem(f(y0), I) = rem(f(y0), k2, b): its lost children are
        // (L, k2, b), of remoteness rem(L, I), and (f(y0), k2, f_k2⁻¹(f(y0))).
        let yi = curve_inv(k2.l, k2.r, fy);
        let cyi = if yi == zero { k2.c0 } else { k2.formula(yi) };
        let t2 = {
            let p = if l < fy { c0 } else { T::HUGE };
            let q = if yi < b { cyi } else { T::HUGE };
            if fy == l { c0 } else { one + p.min(q) }
        };
        let mut longest = t1.max(t2);
        if second {
            longest = longest.max(cr + one);
        }
        if (one <= l) & (l < fy) {
            longest = longest.max(c0 + one);
        }
        let c = one + longest;
        let m = fy.min(y0);
        let high = T::bit(m < l.max(r));
        Interval {
            l,
            r,
            delta: c - m - m - high - high,
            c0,
            cr,
        }
    }
}
