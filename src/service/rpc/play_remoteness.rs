//! The remoteness a game carries (docs/play.md, "Analysis" and "Tempo"):
//! for each position of at most `limits.analysis_remoteness_max_piles`
//! live piles of a game with analysis, its remoteness and that of every
//! child, from one exact solve of the live row ([`solve_with`]), which
//! fills `GameState.remoteness`, the `remoteness_after` of its winning
//! moves and, on the next state, its `PlayedMove.remoteness_before`; and
//! the bot's tempo move on positions of at most
//! [`TEMPO_MAX_PILES`](crate::core::game::TEMPO_MAX_PILES) live piles
//! ([`for_bot`]: the same solve, when the analysis has not made it).
//!
//! A solve is admitted in the cell budget as SuggestMove's
//! `want_remoteness` is (`limits.remoteness_cell_factor` times the
//! verdict's cells of the live row, [`remoteness_cells_of`]), run on the
//! CPU pool (inline when tiny, [`State::run_cpu_sized`]), never otherwise
//! on an async thread, and stopped with the game's stream. A game cannot
//! be refused halfway, so a busy budget is waited for (pauses of 1 ms
//! doubling up to 50 ms, as Check's batches wait). A position whose
//! analysis alone is larger than the whole budget (possible only when the
//! limits were set in code: the configuration refuses such a bound) gets
//! none; the bot's solve is charged at most the whole budget
//! ([`remoteness::tempo_cells`]), so the bot's move never depends on it.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tonic::Status;

use crate::core::game::Game;
use crate::core::remoteness::{MoveRange, after_move, solve_with};
use crate::core::{MAX_PILES, Move, ValidRow, Variant};
use crate::service::metrics::units::{AdmissionError, remoteness_cells_of};
use crate::service::rpc::remoteness;
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

/// Why the bot's solve gave no ranges.
#[derive(Debug)]
pub enum TempoError {
    /// The game stopped meanwhile.
    Stopped,
    /// The solve failed (a panic on the pool, or a position the piles
    /// budget can never hold): the game cannot go on with the bot's move.
    Failed(Status),
}

impl From<Stopped> for TempoError {
    fn from(Stopped: Stopped) -> TempoError {
        TempoError::Stopped
    }
}

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
    let factor = state.limits.remoteness_cell_factor.get();
    let cells = remoteness_cells_of(n, game.variant() == Variant::TwoEnds, factor);
    let Some(reservations) = admit(state, cells, n as u64, cancel).await? else {
        return Ok(None);
    };
    match solve(state, game, cells, reservations, cancel).await {
        Ok(known) => Ok(Some(known)),
        Err(TempoError::Stopped) => Err(Stopped),
        Err(TempoError::Failed(status)) => {
            tracing::warn!(
                code = ?status.code(),
                message = status.message(),
                "the remoteness of a game's position failed; the state goes without it"
            );
            Ok(None)
        }
    }
}

/// The solve of `game`'s live position for the bot's tempo move (when
/// [`Game::bot_needs_tempo`]: a live position of at most
/// [`TEMPO_MAX_PILES`](crate::core::game::TEMPO_MAX_PILES) piles), on the
/// CPU pool, charged [`remoteness::tempo_cells`] (at most the whole
/// budget, so it is always admitted in the end) and waited for while the
/// budget is busy.
pub async fn for_bot(
    state: &State,
    game: &Game,
    cancel: &CancellationToken,
) -> Result<Known, TempoError> {
    let (first, last) = game.live();
    let n = last - first + 1;
    let cells = remoteness::tempo_cells(state, n, game.variant(), false);
    let Some(reservations) = admit(state, cells, n as u64, cancel).await? else {
        // The game's own row already holds more piles than this.
        return Err(TempoError::Failed(Status::resource_exhausted(format!(
            "the bot's move needs the remoteness of {n} live piles, more than the \
             server's memory budget holds (limits.max_piles_in_flight, max_memory_bytes)"
        ))));
    };
    solve(state, game, cells, reservations, cancel).await
}

/// Solves `game`'s live position (not over) on the pool, holding the
/// `reservations` of its `cells` until it is done.
async fn solve(
    state: &State,
    game: &Game,
    cells: u64,
    reservations: [crate::service::state::limits::Reservation; 2],
    cancel: &CancellationToken,
) -> Result<Known, TempoError> {
    let ply = game.ply();
    let variant = game.variant();
    let piles = game.piles_now();
    let n = piles.len();
    let stop = cancel.clone();
    let solved = state
        .run_cpu_sized(cells, move || {
            let _reservations = reservations;
            let row = ValidRow::new(&piles, MAX_PILES).ok()?;
            let cancelled = || stop.is_cancelled();
            Some(solve_with(&row, variant, &cancelled))
        })
        .await
        .map_err(TempoError::Failed)?;
    match solved {
        Some(Ok(solved)) => Ok(Known {
            ply,
            remoteness: solved.remoteness,
            piles: n,
            ranges: solved.ranges,
        }),
        Some(Err(_cancelled)) => Err(TempoError::Stopped),
        // Not reached: a live position is a valid row.
        None => Err(TempoError::Failed(Status::internal(
            "a game's live position is not a valid row (a server bug)",
        ))),
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
