//! Remoteness: how many plies a game lasts when both players play
//! perfectly, the winner as fast and the loser as slowly as possible
//! (docs/game.md §5).
//!
//! The remoteness of the empty row is 0. A lost position has 1 + the
//! largest remoteness of its children; a won one 1 + the smallest
//! remoteness among its children that are lost for the player then to
//! move. It is odd exactly when the player to move wins.
//!
//! * [`remoteness`] — the exact remoteness of any valid row, both variants;
//! * [`move_ranges`] — every legal move with the remoteness of the position
//!   it leaves, as ranges on which that is linear, best first;
//! * [`best_move`] — a fastest winning move, or in a lost position a
//!   move that resists longest;
//! * [`after_move`] — the remoteness one move leaves, from the ranges;
//! * [`exhaustive`] — the game-tree truth for small rows;
//! * [`closed_form_differs`] — the closed form against the exact DP on one
//!   row (tests, fuzzing and checks by hand of the conjecture).
//!
//! Two-ends rows run the closed form ([`closed`]): five numbers per
//! interval from its two sub-intervals, O(1) each, O(n²) time and O(n)
//! memory, in vectorised layer passes of `i32`, `i64` or `i128` numbers.
//! Its form of the lost rows is a conjecture (docs/game.md §5); it is
//! checked against the game tree and the exact DP, and a tripwire (an odd
//! or out-of-range number, which the form rules out) hands the row to
//! that DP ([`dp`]): an interval DP carrying, for every segment, the
//! remoteness with one end pile replaced by any value, as exact
//! piecewise-linear functions, O(n² · k) time with k the pieces per
//! function (at most [`PIECE_BOUND`] on every row tried). The move ranges
//! of the whole row come from the DP's last step, fed the interior's curve.
//! The leftmost variant is a simple O(n) recursion (docs/game.md §5).

mod closed;
mod dp;
pub mod exhaustive;
mod leftmost;
mod pl;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

use super::cancel::{Cancel, Cancelled, Never};
use super::moves::{Move, Side};
use super::row::{ValidRow, Variant};

pub use exhaustive::ExhaustiveRemoteness;

/// The most pieces a function of the DP was seen to need. The running time
/// is quadratic times the pieces actually used; a test fails if a row
/// needs more than this.
pub const PIECE_BOUND: usize = 6;

/// The moves of one end that leave `left_min ..= left_max` stones on it,
/// with the same outcome and a remoteness linear in the stones left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveRange {
    /// The pile the moves take from (`Left` for the only pile of n = 1).
    pub side: Side,
    /// The fewest stones the moves leave on that pile (0: the pile goes).
    pub left_min: u64,
    /// The most stones the moves leave on that pile.
    pub left_max: u64,
    /// Does the player who makes the move win (the position left is lost
    /// for the player then to move, its remoteness is even)?
    pub mover_wins: bool,
    /// The remoteness of the position left by the move leaving `left_min`.
    pub remoteness_at_min: u128,
    /// How much that remoteness grows per extra stone left (exact on the
    /// whole range).
    pub slope: i128,
}

impl MoveRange {
    /// The remoteness of the position left by leaving `left` stones
    /// (`left_min ≤ left ≤ left_max`).
    pub fn remoteness_at(&self, left: u64) -> u128 {
        debug_assert!(self.left_min <= left && left <= self.left_max);
        let v = self.remoteness_at_min as i128 + self.slope * i128::from(left - self.left_min);
        v as u128
    }

    /// The best move of the range for its mover (fastest win or longest
    /// loss), more stones left on a tie, and the remoteness it leaves.
    pub fn best(&self) -> (u64, u128) {
        let up = if self.mover_wins {
            self.slope <= 0
        } else {
            self.slope >= 0
        };
        let left = if up { self.left_max } else { self.left_min };
        (left, self.remoteness_at(left))
    }

    /// The move that leaves `left` stones on this range's pile of `pile`.
    fn to_move(self, pile: u64, left: u64) -> Move {
        Move::to_remaining(self.side, pile, left)
    }
}

/// The remoteness of a row, its moves and the DP's piece count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solved {
    /// The remoteness of the row.
    pub remoteness: u128,
    /// Every legal move, as [`move_ranges`] orders them.
    pub ranges: Vec<MoveRange>,
    /// The most pieces of any function built for the row: the top's three
    /// on the closed form, every segment's on the DP (0 for the leftmost
    /// variant and n = 1).
    pub max_pieces: usize,
}

/// Solves a row: remoteness, move ranges and piece count, polling
/// `cancel` once per layer of the DP (every n − s segments).
pub fn solve_with<C: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    variant: Variant,
    cancel: &C,
) -> Result<Solved, C::Stop> {
    cancel.check()?;
    let piles = row.as_slice();
    let first = row.first_pile();
    let mut out = match variant {
        Variant::Leftmost => leftmost::solve(piles),
        Variant::TwoEnds if piles.len() == 1 => {
            let mut ranges = vec![MoveRange {
                side: Side::Left,
                left_min: 0,
                left_max: 0,
                mover_wins: true,
                remoteness_at_min: 0,
                slope: 0,
            }];
            if first >= 2 {
                ranges.push(MoveRange {
                    side: Side::Left,
                    left_min: 1,
                    left_max: first - 1,
                    mover_wins: false,
                    remoteness_at_min: 1,
                    slope: 0,
                });
            }
            Solved {
                remoteness: 1,
                ranges,
                max_pieces: 0,
            }
        }
        Variant::TwoEnds => {
            let f = row_functions(piles, cancel)?;
            let mut ranges = dp::ranges(&f.left, Side::Left, first);
            ranges.extend(dp::ranges(&f.right, Side::Right, row.last_pile()));
            Solved {
                remoteness: f.left.eval(i128::from(first)) as u128,
                ranges,
                max_pieces: f.max_pieces,
            }
        }
    };
    sort_best_first(&mut out.ranges);
    Ok(out)
}

/// The functions of a row of n ≥ 2 piles: from the closed form's layers,
/// or from the exact DP when their tripwire went off.
fn row_functions<C: Cancel + ?Sized>(
    piles: &[u64],
    cancel: &C,
) -> Result<dp::RowFunctions, C::Stop> {
    match closed::top_wide(piles, cancel)? {
        Some(t) => Ok(closed::row_functions(piles, &t)),
        None => dp::row_functions(piles, cancel),
    }
}

/// The closed form (as the service runs it: the row's width, cache
/// blocks, every thread) against the exact DP, which assumes nothing
/// unproven (docs/game.md §5), on one two-ends row of at least two piles:
/// `None` when they give the same remoteness and the same remoteness after
/// every move of either end (compared at each end and the next point of
/// every range of either), else what differs, or that the tripwire went
/// off. A counterexample to the conjecture would show here. The DP costs
/// hundreds of times the closed form: for checks, not for answers.
///
/// # Panics
/// If `piles` has fewer than two piles.
pub fn closed_form_differs(piles: &[u64]) -> Option<String> {
    let n = piles.len();
    assert!(n >= 2, "two piles at least");
    let Ok(exact) = dp::row_functions(piles, &Never);
    let Ok(top) = closed::top_wide(piles, &Never);
    let Some(top) = top else {
        return Some(format!("the tripwire went off on {piles:?}"));
    };
    let got = closed::row_functions(piles, &top);
    let (closed, dp) = (
        top.remoteness(piles[0], piles[n - 1]),
        exact.left.eval(i128::from(piles[0])),
    );
    if closed != dp {
        return Some(format!(
            "{piles:?}: remoteness {closed} (closed form) != {dp} (DP)"
        ));
    }
    for (side, pile, got, want) in [
        (Side::Left, piles[0], &got.left, &exact.left),
        (Side::Right, piles[n - 1], &got.right, &exact.right),
    ] {
        let mut ranges = dp::ranges(got, side, pile);
        ranges.extend(dp::ranges(want, side, pile));
        for r in ranges {
            for x in [r.left_min, r.left_min + 1, r.left_max] {
                let x = i128::from(x);
                if x < i128::from(pile) && got.eval(x) != want.eval(x) {
                    return Some(format!(
                        "{piles:?}: leaving {x} on the {side:?} pile: {} (closed form) != {} (DP)",
                        got.eval(x),
                        want.eval(x)
                    ));
                }
            }
        }
    }
    None
}

/// Orders ranges best first for the mover: winning ranges before losing
/// ones; winning ranges by the smallest remoteness they leave (ascending),
/// losing ones by the largest (descending); then `Left` before `Right`, then
/// the range whose best move leaves more stones first.
fn sort_best_first(ranges: &mut [MoveRange]) {
    ranges.sort_by(|a, b| {
        let (xa, ra) = a.best();
        let (xb, rb) = b.best();
        b.mover_wins
            .cmp(&a.mover_wins)
            .then(if a.mover_wins {
                ra.cmp(&rb)
            } else {
                rb.cmp(&ra)
            })
            .then(a.side.cmp(&b.side))
            .then(xb.cmp(&xa))
    });
}

/// The remoteness of a row in plies: odd exactly when the first player
/// wins.
pub fn remoteness(row: &ValidRow<'_>, variant: Variant) -> u128 {
    let Ok(r) = remoteness_with(row, variant, &Never);
    r
}

/// [`remoteness`], polling `cancel` once per layer of the DP.
pub fn remoteness_with<C: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    variant: Variant,
    cancel: &C,
) -> Result<u128, C::Stop> {
    match variant {
        Variant::Leftmost => Ok(leftmost::remoteness(row.as_slice())),
        Variant::TwoEnds if row.len() == 1 => Ok(1),
        Variant::TwoEnds => {
            cancel.check()?;
            let piles = row.as_slice();
            if let Some(t) = closed::top_wide(piles, cancel)? {
                return Ok(t.remoteness(row.first_pile(), row.last_pile()) as u128);
            }
            let f = dp::row_functions(piles, cancel)?;
            Ok(f.left.eval(i128::from(row.first_pile())) as u128)
        }
    }
}

/// [`remoteness`], polling `cancelled` once per layer of the DP;
/// [`Cancelled`] if it returned true on the way.
pub fn remoteness_cancellable(
    row: &ValidRow<'_>,
    variant: Variant,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<u128, Cancelled> {
    remoteness_with(row, variant, cancelled)
}

/// Every legal move of a row, grouped into ranges of the same outcome on
/// which the remoteness of the position left is linear, best first (see
/// [`MoveRange`]; the order is winning ranges by the fastest win they
/// hold, then losing ranges by the longest resistance they hold, then
/// `Left` before `Right`, then more stones left first).
pub fn move_ranges(row: &ValidRow<'_>, variant: Variant) -> Vec<MoveRange> {
    let Ok(solved) = solve_with(row, variant, &Never);
    solved.ranges
}

/// A count of plies as people write it: `1 ply`, `0 plies`, `10 plies`.
/// Every message that counts plies (the CLI's, the server's explanations,
/// the interactor's verdicts) writes it through this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plies(pub u128);

impl std::fmt::Display for Plies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = if self.0 == 1 { "ply" } else { "plies" };
        write!(f, "{} {unit}", self.0)
    }
}

impl From<u64> for Plies {
    fn from(plies: u64) -> Plies {
        Plies(u128::from(plies))
    }
}

/// The remoteness of the position a legal move `m` of a row of `n` piles
/// leaves, from the row's move ranges (every legal move is in one); `None`
/// if no range holds it (not a legal move of that row). The only pile of a
/// row of one pile may be named by either side.
pub fn after_move(ranges: &[MoveRange], n: usize, m: &Move) -> Option<u128> {
    ranges
        .iter()
        .find(|r| (n == 1 || r.side == m.side) && (r.left_min..=r.left_max).contains(&m.remaining))
        .map(|r| r.remoteness_at(m.remaining))
}

/// A best move: in a won position a winning move leaving the smallest
/// remoteness, in a lost one a move leaving the largest; on a tie the left
/// pile before the right one, then the move that leaves more stones.
pub fn best_move(row: &ValidRow<'_>, variant: Variant) -> Move {
    let ranges = move_ranges(row, variant);
    best_of(row, &ranges)
}

/// [`best_move`] from the row's [`move_ranges`] (or [`Solved::ranges`]):
/// the best move of the first range.
pub fn best_of(row: &ValidRow<'_>, ranges: &[MoveRange]) -> Move {
    let top = ranges[0];
    let pile = match top.side {
        Side::Left => row.first_pile(),
        Side::Right => row.last_pile(),
    };
    top.to_move(pile, top.best().0)
}

/// One timing of [`bench()`]: the remoteness of a random row beside its
/// verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchTiming {
    /// The number of piles.
    pub piles: usize,
    /// The largest pile drawn (piles are uniform in `1 ..= max_pile`).
    pub max_pile: u64,
    /// The time of the verdict (`first_player_wins`, two ends).
    pub verdict: std::time::Duration,
    /// The time of the remoteness with its move ranges ([`solve_with`]).
    pub remoteness: std::time::Duration,
    /// The remoteness found (its parity was checked against the verdict).
    pub value: u128,
    /// [`Solved::max_pieces`].
    pub max_pieces: usize,
}

/// Times the two-ends remoteness (with its move ranges) beside the verdict
/// on one row of `piles` piles drawn uniformly from `1 ..= max_pile` with
/// ChaCha8 seeded by `seed` (the same row for the same arguments on every
/// platform), polling `cancel` once per layer; panics if the parity of the
/// remoteness is not the verdict. `piles` must be 1 ..= 200,000 and
/// `max_pile` 1 ..= 2^63 − 1.
pub fn bench<C: Cancel + ?Sized>(
    piles: usize,
    max_pile: u64,
    seed: u64,
    cancel: &C,
) -> Result<BenchTiming, C::Stop> {
    use rand::{Rng, SeedableRng};
    use std::time::Instant;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let row: Vec<u64> = (0..piles).map(|_| rng.random_range(1..=max_pile)).collect();
    let v = ValidRow::new(&row, super::row::MAX_PILES).expect("a valid row");
    let t = Instant::now();
    let wins = super::verdict::first_player_wins(&v, Variant::TwoEnds);
    let verdict = t.elapsed();
    let t = Instant::now();
    let solved = solve_with(&v, Variant::TwoEnds, cancel)?;
    let remoteness = t.elapsed();
    assert_eq!(
        solved.remoteness % 2 == 1,
        wins,
        "parity against the verdict"
    );
    Ok(BenchTiming {
        piles,
        max_pile,
        verdict,
        remoteness,
        value: solved.remoteness,
        max_pieces: solved.max_pieces,
    })
}
