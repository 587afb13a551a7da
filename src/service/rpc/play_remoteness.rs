//! The remoteness a game with analysis carries (docs/play.md, "Analysis"):
//! for each position of at most `limits.analysis_remoteness_max_piles`
//! live piles, its remoteness and that of every child, from one exact
//! solve of the live row ([`solve_with`]), which fills
//! `GameState.remoteness`, the `remoteness_after` of its winning moves and,
//! on the next state, its `PlayedMove.remoteness_before`.
//!
//! A solve is admitted in the cell budget as SuggestMove's
//! `want_remoteness` is (`limits.remoteness_cell_factor` times the
//! verdict's cells of the live row, [`remoteness_cells_of`]), run on the
//! CPU pool (inline when tiny, [`State::run_cpu_sized`]) and stopped with
//! the game's stream. A game cannot be refused halfway, so a busy budget is
//! waited for (pauses of 1 ms doubling up to 50 ms, as Check's batches
//! wait); a position whose remoteness alone is larger than the whole
//! budget (possible only when the limits were set in code: the
//! configuration refuses such a bound) gets none.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::core::game::Game;
use crate::core::remoteness::{MoveRange, after_move, solve_with};
use crate::core::{MAX_PILES, Move, ValidRow, Variant};
use crate::service::metrics::units::{AdmissionError, remoteness_cells_of};
use crate::service::state::State;

/// The longest pause while the cell budget is busy.
const MAX_PAUSE: Duration = Duration::from_millis(50);

/// The remoteness of one position of a game and of each of its children.
#[derive(Debug, Clone)]
pub struct Known {
    /// The ply of the position.
    pub ply: u64,
    /// Its remoteness for the player to move (0 once the game is over).
    pub remoteness: u128,
    /// Its live piles (0 once over).
    piles: usize,
    /// Its moves with the remoteness they leave ([`solve_with`]).
    ranges: Vec<MoveRange>,
}

impl Known {
    /// The remoteness of the position a legal move of this position
    /// leaves; `None` for a move that is not one of its legal moves.
    pub fn after(&self, m: &Move) -> Option<u128> {
        after_move(&self.ranges, self.piles, m)
    }

    /// The position's moves, best first ([`solve_with`]'s ranges): the
    /// bot reads its tempo move from them.
    pub fn ranges(&self) -> &[MoveRange] {
        &self.ranges
    }
}

/// The game stopped (its client went away, its deadline passed, or the
/// server shut down) while the remoteness was computed or waited for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the game stopped while its remoteness was computed")]
pub struct Stopped;

/// The remoteness of `game`'s position now, when its live piles are at
/// most `limits.analysis_remoteness_max_piles` (and the game is over: 0);
/// `None` beyond, or when the position alone is larger than the whole cell
/// budget, or when the solve failed (a panic on the pool: logged).
pub async fn known(
    state: &State,
    game: &Game,
    cancel: &CancellationToken,
) -> Result<Option<Known>, Stopped> {
    let ply = game.ply();
    if game.is_over() {
        return Ok(Some(Known {
            ply,
            remoteness: 0,
            piles: 0,
            ranges: Vec::new(),
        }));
    }
    let (first, last) = game.live();
    let n = last - first + 1;
    if n > state.limits.analysis_remoteness_max_piles {
        return Ok(None);
    }
    let variant = game.variant();
    let factor = state.limits.remoteness_cell_factor.get();
    let cells = remoteness_cells_of(n, variant == Variant::TwoEnds, factor);
    let Some(reservations) = admit(state, cells, n as u64, cancel).await? else {
        return Ok(None);
    };
    let piles = game.piles_now();
    let stop = cancel.clone();
    let solved = state
        .run_cpu_sized(cells, move || {
            let _reservations = reservations;
            let row = ValidRow::new(&piles, MAX_PILES).ok()?;
            let cancelled = || stop.is_cancelled();
            Some(solve_with(&row, variant, &cancelled))
        })
        .await;
    match solved {
        Ok(Some(Ok(solved))) => Ok(Some(Known {
            ply,
            remoteness: solved.remoteness,
            piles: n,
            ranges: solved.ranges,
        })),
        Ok(Some(Err(_cancelled))) => Err(Stopped),
        // Not reached: a live position is a valid row.
        Ok(None) => Ok(None),
        Err(status) => {
            tracing::warn!(
                code = ?status.code(),
                message = status.message(),
                "the remoteness of a game's position failed; the state goes without it"
            );
            Ok(None)
        }
    }
}

/// Reserves `cells` and `piles` in the budgets, waiting while they are
/// busy; `None` if they are larger than a whole budget.
async fn admit(
    state: &State,
    cells: u64,
    piles: u64,
    cancel: &CancellationToken,
) -> Result<Option<[crate::service::state::limits::Reservation; 2]>, Stopped> {
    let mut pause = Duration::from_millis(1);
    loop {
        if cancel.is_cancelled() {
            return Err(Stopped);
        }
        match state.try_admit(cells, piles) {
            Ok(reservations) => return Ok(Some(reservations)),
            Err(AdmissionError::Busy { .. }) => {
                tokio::select! {
                    () = cancel.cancelled() => return Err(Stopped),
                    () = tokio::time::sleep(pause) => {}
                }
                pause = (pause * 2).min(MAX_PAUSE);
            }
            Err(e) => {
                tracing::debug!(%e, "a game's position gets no remoteness");
                return Ok(None);
            }
        }
    }
}
