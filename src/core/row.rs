//! Rows of piles: the limits, validation, the typed errors it reports and
//! [`ValidRow`], the row type the core's public functions take.
//!
//! Pile numbers in errors are 1-based, as in the problem statement
//! (`a_1 … a_n`).

use std::borrow::Cow;
use std::ops::Deref;
use std::str::FromStr;

/// Largest pile size accepted: 2^63 − 1. Table entries may reach one more than
/// the largest pile, which still fits a `u64`.
pub const MAX_PILE: u64 = i64::MAX as u64;

/// Default largest number of piles in one row.
pub const MAX_PILES: usize = 200_000;

named_enum! {
    /// Which game is played on the row. With the `cli` feature it is also
    /// the command line's `--variant` value (`two-ends`, `leftmost`); its
    /// name is the one used there and in messages.
    #[derive(Default)]
    #[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
    pub enum Variant: fn name {
        /// A move takes stones from the leftmost or the rightmost pile (ZJOI 2009).
        #[default]
        TwoEnds => "two-ends",
        /// A move takes stones from the leftmost pile only (docs/game.md §2).
        Leftmost => "leftmost",
    }
}

impl FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "two-ends" | "two_ends" | "twoends" => Ok(Variant::TwoEnds),
            "leftmost" => Ok(Variant::Leftmost),
            other => Err(format!(
                "unknown variant `{other}` (expected `two-ends` or `leftmost`)"
            )),
        }
    }
}

/// Why a row of piles is not a valid position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// The row has no piles.
    #[error("the row is empty: a case needs at least one pile")]
    Empty,
    /// More piles than the limit allows.
    #[error("the row has {len} piles, more than the limit of {max}")]
    TooManyPiles { len: usize, max: usize },
    /// A pile holds no stones.
    #[error("pile {pile} is 0: every pile needs at least 1 stone")]
    ZeroPile { pile: usize },
    /// A pile is larger than [`MAX_PILE`].
    #[error("pile {pile} is {value}, larger than the maximum of {MAX_PILE} (2^63-1)")]
    PileTooLarge { pile: usize, value: u64 },
}

impl RowError {
    /// The 1-based pile the error is about, if it is about one pile.
    pub fn pile(&self) -> Option<usize> {
        match self {
            RowError::ZeroPile { pile } | RowError::PileTooLarge { pile, .. } => Some(*pile),
            _ => None,
        }
    }
}

/// Checks that `piles` is a position: 1 ≤ n ≤ `max_piles`, 1 ≤ a_i ≤ [`MAX_PILE`].
///
/// To solve the row, build a [`ValidRow`] instead: it runs this check once
/// and carries its result.
pub fn validate_row(piles: &[u64], max_piles: usize) -> Result<(), RowError> {
    if piles.is_empty() {
        return Err(RowError::Empty);
    }
    if piles.len() > max_piles {
        return Err(RowError::TooManyPiles {
            len: piles.len(),
            max: max_piles,
        });
    }
    validate_piles(piles)
}

/// Checks every pile value (not the length) of a row.
pub fn validate_piles(piles: &[u64]) -> Result<(), RowError> {
    for (i, &v) in piles.iter().enumerate() {
        if v == 0 {
            return Err(RowError::ZeroPile { pile: i + 1 });
        }
        if v > MAX_PILE {
            return Err(RowError::PileTooLarge {
                pile: i + 1,
                value: v,
            });
        }
    }
    Ok(())
}

/// A row of piles that passed validation: at least one pile, at most the
/// limit it was checked against, every pile in 1 ..= [`MAX_PILE`].
///
/// The only way to get one is [`ValidRow::new`] (or `TryFrom`, with the
/// default limit [`MAX_PILES`]), so every function that takes a `ValidRow`
/// may rely on those facts instead of checking or assuming them. The piles
/// are borrowed or owned ([`Cow`]): `ValidRow::new(&piles[..], max)` costs no
/// copy, `ValidRow::new(vec, max)` keeps the vector. It dereferences to
/// `[u64]` (read-only).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ValidRow<'a>(Cow<'a, [u64]>);

impl<'a> ValidRow<'a> {
    /// Validates `piles` (a `Vec<u64>`, a `&[u64]` or a `Cow`) against
    /// `max_piles`: the errors are those of [`validate_row`].
    pub fn new(piles: impl Into<Cow<'a, [u64]>>, max_piles: usize) -> Result<Self, RowError> {
        let piles = piles.into();
        validate_row(&piles, max_piles)?;
        Ok(ValidRow(piles))
    }

    /// A row the core has just built from a valid one (a move applied, a
    /// pile prepended) and knows to be valid; checked in debug builds.
    pub(in crate::core) fn from_valid_vec(piles: Vec<u64>) -> ValidRow<'static> {
        debug_assert_eq!(validate_row(&piles, usize::MAX), Ok(()), "{piles:?}");
        ValidRow(Cow::Owned(piles))
    }

    /// The piles.
    pub fn as_slice(&self) -> &[u64] {
        &self.0
    }

    /// The leftmost pile `a_1`.
    pub fn first_pile(&self) -> u64 {
        self.0[0]
    }

    /// The rightmost pile `a_n` (`a_1` when n = 1).
    pub fn last_pile(&self) -> u64 {
        self.0[self.0.len() - 1]
    }

    /// The same row, borrowed (no copy).
    pub fn borrowed(&self) -> ValidRow<'_> {
        ValidRow(Cow::Borrowed(&self.0))
    }

    /// The row without its first pile: valid, or `None` when n = 1.
    pub fn tail(&self) -> Option<ValidRow<'_>> {
        match &self.0[1..] {
            [] => None,
            rest => Some(ValidRow(Cow::Borrowed(rest))),
        }
    }

    /// The same row, owning its piles (copies them if they were borrowed).
    pub fn into_owned(self) -> ValidRow<'static> {
        ValidRow(Cow::Owned(self.0.into_owned()))
    }

    /// The piles as a vector (copies them if they were borrowed).
    pub fn into_vec(self) -> Vec<u64> {
        self.0.into_owned()
    }
}

impl Deref for ValidRow<'_> {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.0
    }
}

impl AsRef<[u64]> for ValidRow<'_> {
    fn as_ref(&self) -> &[u64] {
        &self.0
    }
}

impl From<ValidRow<'_>> for Vec<u64> {
    fn from(row: ValidRow<'_>) -> Vec<u64> {
        row.into_vec()
    }
}

/// Validates against the default limit [`MAX_PILES`], keeping the vector.
impl TryFrom<Vec<u64>> for ValidRow<'static> {
    type Error = RowError;
    fn try_from(piles: Vec<u64>) -> Result<Self, RowError> {
        ValidRow::new(piles, MAX_PILES)
    }
}

/// Validates against the default limit [`MAX_PILES`], borrowing the piles.
impl<'a> TryFrom<&'a [u64]> for ValidRow<'a> {
    type Error = RowError;
    fn try_from(piles: &'a [u64]) -> Result<Self, RowError> {
        ValidRow::new(piles, MAX_PILES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_valid_rows_are_built_and_the_messages_are_kept() {
        let err = |piles: &[u64], max| ValidRow::new(piles, max).unwrap_err();
        assert_eq!(err(&[], 5), RowError::Empty);
        assert_eq!(
            err(&[], 5).to_string(),
            "the row is empty: a case needs at least one pile"
        );
        assert_eq!(err(&[1; 6], 5), RowError::TooManyPiles { len: 6, max: 5 });
        assert_eq!(
            err(&[1; 6], 5).to_string(),
            "the row has 6 piles, more than the limit of 5"
        );
        assert_eq!(err(&[4, 0, 1], 5), RowError::ZeroPile { pile: 2 });
        assert_eq!(
            err(&[4, 0, 1], 5).to_string(),
            "pile 2 is 0: every pile needs at least 1 stone"
        );
        let big = MAX_PILE + 1;
        assert_eq!(
            err(&[1, 2, big], 5),
            RowError::PileTooLarge {
                pile: 3,
                value: big
            }
        );
        assert_eq!(
            err(&[1, 2, big], 5).to_string(),
            "pile 3 is 9223372036854775808, larger than the maximum of \
             9223372036854775807 (2^63-1)"
        );
        // The first problem in the order empty, length, piles left to right.
        assert_eq!(err(&[0, big], 1), RowError::TooManyPiles { len: 2, max: 1 });
        assert_eq!(err(&[big, 0], 2).pile(), Some(1));
        assert_eq!(
            ValidRow::try_from(vec![1; MAX_PILES + 1]),
            Err(RowError::TooManyPiles {
                len: MAX_PILES + 1,
                max: MAX_PILES
            })
        );
    }

    #[test]
    fn a_valid_row_borrows_or_owns_and_reads_as_a_slice() {
        let piles = vec![3, 1, 9, 4];
        let row = ValidRow::new(&piles[..], 4).unwrap();
        assert!(matches!(row.0, Cow::Borrowed(_)));
        assert_eq!((row.first_pile(), row.last_pile(), row.len()), (3, 4, 4));
        assert_eq!(row.as_slice(), &piles[..]);
        assert_eq!(row.tail().unwrap().as_slice(), &[1, 9, 4]);
        let owned = ValidRow::try_from(piles.clone()).unwrap();
        assert!(matches!(owned.0, Cow::Owned(_)));
        assert_eq!(owned, row);
        assert_eq!(row.clone().into_owned(), owned);
        assert_eq!(owned.borrowed(), row);
        assert_eq!(Vec::from(owned), piles);
        let one = ValidRow::try_from(&[MAX_PILE][..]).unwrap();
        assert_eq!((one.first_pile(), one.last_pile()), (MAX_PILE, MAX_PILE));
        assert_eq!(one.tail(), None);
    }
}
