//! Rows of piles: the limits, validation and the typed errors it reports.
//!
//! Pile numbers in errors are 1-based, as in the problem statement
//! (`a_1 … a_n`).

use std::fmt;
use std::str::FromStr;

/// Largest pile size accepted: 2^63 − 1. Table entries may reach one more than
/// the largest pile, which still fits a `u64`.
pub const MAX_PILE: u64 = i64::MAX as u64;

/// Default largest number of piles in one row.
pub const MAX_PILES: usize = 200_000;

/// Which game is played on the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// A move takes stones from the leftmost or the rightmost pile (ZJOI 2009).
    #[default]
    TwoEnds,
    /// A move takes stones from the leftmost pile only (SPEC §2).
    Leftmost,
}

impl Variant {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Variant::TwoEnds => "two-ends",
            Variant::Leftmost => "leftmost",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
