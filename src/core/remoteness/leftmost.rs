//! Remoteness of the leftmost-only variant (docs/game.md §2 and §5), O(n).
//!
//! With r the remoteness of the rest `a_2 … a_n` (0 when empty), the row
//! has remoteness 1 + r when a_1 = 1 (the move is forced) or the rest is
//! lost (r even: the winner takes the whole pile at once), and 2 + r when
//! a_1 ≥ 2 and the rest is won (the winner leaves one stone, which the
//! loser must take).

use super::super::moves::Side;
use super::{MoveRange, Solved};

/// The remoteness of `(x, rest)` from that of the rest.
fn with_first(x: u64, rest: u128) -> u128 {
    match x {
        0 => rest,
        1 => 1 + rest,
        _ if rest.is_multiple_of(2) => 1 + rest,
        _ => 2 + rest,
    }
}

/// The remoteness of a row (any row of positive piles; empty: 0).
pub fn remoteness(piles: &[u64]) -> u128 {
    piles.iter().rev().fold(0, |r, &x| with_first(x, r))
}

/// Remoteness and the (unsorted) move ranges of a row of n ≥ 1 piles.
pub fn solve(piles: &[u64]) -> Solved {
    let rest = remoteness(&piles[1..]);
    let first = piles[0];
    let mut ranges = Vec::with_capacity(3);
    let mut push = |lo: u64, hi: u64| {
        let r = with_first(lo, rest);
        ranges.push(MoveRange {
            side: Side::Left,
            left_min: lo,
            left_max: hi,
            mover_wins: r.is_multiple_of(2),
            remoteness_at_min: r,
            slope: 0,
        });
    };
    push(0, 0);
    if first >= 2 {
        push(1, 1);
    }
    if first >= 3 {
        push(2, first - 1);
    }
    Solved {
        remoteness: with_first(first, rest),
        ranges,
        max_pieces: 0,
    }
}
