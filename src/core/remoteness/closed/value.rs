//! The integers the closed form's layers run in (`i32`, `i64` or `i128`,
//! the narrowest a row allows) and the bound that picks one.

use std::num::Wrapping;

/// The signed integer every number of an interval is kept in: the
/// narrowest of `i32`, `i64` and `i128` that holds [`value_bound`] with
/// room to spare ([`top_wide`] picks it). Narrower numbers put more
/// intervals in one vector instruction: `i32` runs twice as fast as `i64`.
pub trait Value:
    Copy
    + Default
    + Ord
    + Send
    + Sync
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitAnd<Output = Self>
    + 'static
{
    /// A value far above every remoteness, still safe to add 1 to.
    const HUGE: Self;
    /// `v` as a value.
    fn of(v: u64) -> Self;
    /// The value as an `i128`.
    fn wide(self) -> i128;
    /// 1 if `b` else 0.
    fn bit(b: bool) -> Self;
}

// `i32` and `i64` wrap: no number of a row of their width comes near
// overflow ([`width`]), and overflow checks (on in test builds) would keep
// the pass from vectorising.
macro_rules! wrapping_value {
    ($($int:ty),*) => {$(
        impl Value for Wrapping<$int> {
            const HUGE: Self = Wrapping(<$int>::MAX - 1);
            #[inline(always)]
            fn of(v: u64) -> Self {
                Wrapping(v as $int)
            }
            #[inline(always)]
            fn wide(self) -> i128 {
                i128::from(self.0)
            }
            #[inline(always)]
            fn bit(b: bool) -> Self {
                Wrapping(b as $int)
            }
        }
    )*};
}
wrapping_value!(i32, i64);

impl Value for i128 {
    const HUGE: Self = i128::MAX / 4;
    #[inline(always)]
    fn of(v: u64) -> Self {
        i128::from(v)
    }
    #[inline(always)]
    fn wide(self) -> i128 {
        self
    }
    #[inline(always)]
    fn bit(b: bool) -> Self {
        b as i128
    }
}

/// A bound on every number the layers of a row keep or compute, while the
/// tripwire holds (δ of an interval of k piles in `0 ..= 2k`): table
/// entries are at most the largest pile + 1, and every remoteness is a
/// curve value `2m + δ + 2` (m ≤ largest pile + 1) plus a few plies.
pub fn value_bound(piles: &[u64]) -> u128 {
    let max = u128::from(piles.iter().copied().max().unwrap_or(0));
    2 * max + 2 * piles.len() as u128 + 64
}

/// The width the layers of a row run in: `i32` when [`value_bound`] is
/// below its [`Value::HUGE`] (piles up to about 10^9), `i64` likewise
/// (piles below 2^62), else `i128`.
pub fn width(piles: &[u64]) -> u32 {
    match value_bound(piles) {
        b if b < <Wrapping<i32>>::HUGE.0 as u128 => 32,
        b if b < <Wrapping<i64>>::HUGE.0 as u128 => 64,
        _ => 128,
    }
}
