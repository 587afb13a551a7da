//! Moves: the winning moves of a position and the move a bot plays.
//!
//! Two-ends (docs/game.md §1, n ≥ 2): with `t = left[2][n]` and `u = right[1][n−1]`,
//! reducing the left pile to `t` wins iff `t < a_1`, reducing the right pile
//! to `u` wins iff `u < a_n`, and there are no other winning moves. With one
//! pile the only winning move takes it all (reported as a left move).
//!
//! In a lost position every move loses against perfect play; the bot then
//! takes **one stone from the larger end pile** (the left one on a tie, the
//! whole pile when it is a single stone). That keeps the position as large and
//! the game as long as possible, so an imperfect opponent has the most
//! chances to go wrong, and it is deterministic, which judges need.

use std::fmt;

use super::cancel::{Cancel, Never};
use super::leftmost;
use super::row::{ValidRow, Variant};
use super::verdict::{KernelKind, default_options, end_values_with};

/// Which end pile a move takes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The leftmost pile.
    Left,
    /// The rightmost pile.
    Right,
}

/// One move: take `take` stones from the `side` pile, leaving `remaining`
/// (0 when the pile is removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub side: Side,
    pub take: u64,
    pub remaining: u64,
}

impl Move {
    /// The move that leaves `remaining` stones on the `side` pile of size `pile`.
    pub fn to_remaining(side: Side, pile: u64, remaining: u64) -> Move {
        debug_assert!(remaining < pile);
        Move {
            side,
            take: pile - remaining,
            remaining,
        }
    }

    /// Applies the move to `row`: the new row, or `None` when the move took
    /// the only pile (the player to move next has lost).
    ///
    /// The move must be legal on the row: `take` between 1 and the `side`
    /// pile's size, and `remaining` what is left of it.
    pub fn apply(&self, row: &ValidRow<'_>) -> Result<Option<ValidRow<'static>>, IllegalMove> {
        let idx = match self.side {
            Side::Left => 0,
            Side::Right => row.len() - 1,
        };
        let pile = row[idx];
        if self.take == 0 || self.take > pile || self.remaining != pile - self.take {
            return Err(IllegalMove { mv: *self, pile });
        }
        let mut out = row.to_vec();
        if self.remaining == 0 {
            out.remove(idx);
        } else {
            out[idx] = self.remaining;
        }
        // Piles were 1 ..= MAX_PILE and one of them shrank or went away.
        Ok((!out.is_empty()).then(|| ValidRow::from_valid_vec(out)))
    }
}

/// A move that cannot be played on the row it was applied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cannot {mv}: that pile holds {pile}")]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// The size of the pile it takes from.
    pub pile: u64,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::Left => "left",
            Side::Right => "right",
        };
        if self.remaining == 0 {
            write!(f, "take all {} from the {side} pile", self.take)
        } else {
            write!(
                f,
                "take {} from the {side} pile, leaving {}",
                self.take, self.remaining
            )
        }
    }
}

/// Everything a judge or a bot wants to know about a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Does the player to move win with perfect play?
    pub first_player_wins: bool,
    /// All winning moves (empty exactly when the position is lost), left first.
    pub winning_moves: Vec<Move>,
    /// The first winning move, or the bot's move in a lost position.
    pub best_move: Move,
}

/// The winning moves of a row (docs/game.md §1 / §2), left before right.
pub fn winning_moves(row: &ValidRow<'_>, variant: Variant) -> Vec<Move> {
    let Ok(moves) = winning_moves_with(row, variant, &Never);
    moves
}

fn winning_moves_with<C: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    variant: Variant,
    cancel: &C,
) -> Result<Vec<Move>, C::Stop> {
    let first = row.first_pile();
    Ok(match variant {
        Variant::Leftmost => leftmost::winning_remaining(row)
            .map(|rem| vec![Move::to_remaining(Side::Left, first, rem)])
            .unwrap_or_default(),
        Variant::TwoEnds if row.len() == 1 => vec![Move::to_remaining(Side::Left, first, 0)],
        Variant::TwoEnds => {
            let opts = default_options(row.len());
            let ends = end_values_with(row, KernelKind::Codes, opts, cancel)?;
            two_ends_winning_moves(row, ends.left_of_tail, ends.right_of_head)
        }
    })
}

/// The two-ends winning moves of a row of n ≥ 2 piles from its end values
/// `t = left[2][n]` and `u = right[1][n−1]`.
fn two_ends_winning_moves(row: &ValidRow<'_>, t: u64, u: u64) -> Vec<Move> {
    let (first, last) = (row.first_pile(), row.last_pile());
    let mut out = Vec::with_capacity(2);
    if t < first {
        out.push(Move::to_remaining(Side::Left, first, t));
    }
    if u < last {
        out.push(Move::to_remaining(Side::Right, last, u));
    }
    out
}

/// The bot's move in a lost position (see the module docs for the policy).
/// It is legal in any position.
pub fn bot_move(row: &ValidRow<'_>, variant: Variant) -> Move {
    let (first, last) = (row.first_pile(), row.last_pile());
    let side = match variant {
        Variant::Leftmost => Side::Left,
        Variant::TwoEnds if last > first => Side::Right,
        Variant::TwoEnds => Side::Left,
    };
    let pile = if side == Side::Left { first } else { last };
    Move::to_remaining(side, pile, pile - 1)
}

fn analyze_with<C: Cancel + ?Sized>(
    row: &ValidRow<'_>,
    variant: Variant,
    cancel: &C,
) -> Result<Analysis, C::Stop> {
    let winning_moves = winning_moves_with(row, variant, cancel)?;
    let best_move = winning_moves
        .first()
        .copied()
        .unwrap_or_else(|| bot_move(row, variant));
    Ok(Analysis {
        first_player_wins: !winning_moves.is_empty(),
        winning_moves,
        best_move,
    })
}

/// Verdict, winning moves and best move of a row.
pub fn analyze(row: &ValidRow<'_>, variant: Variant) -> Analysis {
    let Ok(analysis) = analyze_with(row, variant, &Never);
    analysis
}

/// [`analyze`], polling `cancelled` between blocks of layers; `None` if it
/// returned true on the way.
pub fn analyze_cancellable(
    row: &ValidRow<'_>,
    variant: Variant,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<Analysis> {
    analyze_with(row, variant, cancelled).ok()
}

/// All legal moves of a row (left first, then right; with one pile only left
/// moves, as both ends are the same pile). Any row: an empty one has none.
pub fn legal_moves(piles: &[u64], variant: Variant) -> Vec<Move> {
    let mut out = Vec::new();
    if let Some(&first) = piles.first() {
        out.extend((0..first).map(|rem| Move::to_remaining(Side::Left, first, rem)));
        if variant == Variant::TwoEnds && piles.len() >= 2 {
            let last = piles[piles.len() - 1];
            out.extend((0..last).map(|rem| Move::to_remaining(Side::Right, last, rem)));
        }
    }
    out
}

/// A uniformly random legal move on the end piles `x` (left) and `y`
/// (right): every take from either end equally likely; with `two_sided`
/// false (one pile, or the leftmost variant) only the left one.
pub fn random_end_move(x: u64, y: u64, two_sided: bool, rng: &mut impl rand::Rng) -> Move {
    // x + y ≤ 2 · (2^63 − 1) < 2^64.
    let total = if two_sided { x + y } else { x };
    let k = rng.random_range(0..total);
    if k < x {
        Move::to_remaining(Side::Left, x, x - 1 - k)
    } else {
        Move::to_remaining(Side::Right, y, y - (k - x + 1))
    }
}
