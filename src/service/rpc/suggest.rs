//! `SuggestMove`: the verdict, the winning moves and the move of a bot of a
//! given strength in one position.
//!
//! Strength s ∈ [0, 1] (default 1): with probability s the bot plays the
//! optimal move, otherwise a uniformly random legal move. The optimal move
//! is the game bot's ([`Game::bot_move`](crate::core::game::Game::bot_move)):
//! with tempo — a fastest winning move, or when lost a longest-resisting
//! one, by exact remoteness
//! ([`best_move`](crate::core::remoteness::best_move)'s rule and tie-break)
//! — on rows of at most [`TEMPO_MAX_PILES`] piles and whenever the request
//! sets `want_remoteness`; else the first winning move, or the core's
//! [`bot_move`](crate::core::bot_move) when lost. The randomness is a
//! `ChaCha8Rng` seeded from the request's `seed`, so the same request gives
//! the same move.
//!
//! The remoteness is charged in admission as `want_remoteness`'s
//! ([`super::remoteness`]); a tempo the request did not ask for is charged
//! at most the server's whole cell budget
//! ([`remoteness::tempo_cells`]), so the move never depends on the
//! configuration and a server with a tiny budget still answers (when its
//! budget is free).
//!
//! With `want_remoteness` the response also carries the remoteness of the
//! position, after each move it lists and every move as ranges, computed
//! on the pool with the request's cancellation.

use std::sync::Arc;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tonic::{Request, Response, Status};

use crate::core::game::TEMPO_MAX_PILES;
use crate::core::moves::{analyze_cancellable, random_end_move};
use crate::core::remoteness::{Plies, Solved, after_move, best_of, solve_with};
use crate::core::{Analysis, Move, ValidRow, Variant};

use crate::service::pb;
use crate::service::rpc::convert::SuggestMove;
use crate::service::rpc::remoteness;
use crate::service::state::State;
use crate::service::state::clients::ClientKey;

/// Answers one SuggestMove request.
#[tracing::instrument(
    name = "SuggestMove",
    level = "debug",
    skip_all,
    fields(piles = request.get_ref().piles.len())
)]
pub async fn suggest_move(
    state: &Arc<State>,
    request: Request<pb::SuggestMoveRequest>,
) -> Result<Response<pb::SuggestMoveResponse>, Status> {
    let _permit = state.admit_rpc(ClientKey::of(&request))?;
    let started = Instant::now();
    let req = SuggestMove::try_from((request.into_inner(), &state.limits))?;
    let (variant, strength, row) = (req.variant, req.strength, req.row);
    let want = req.want_remoteness;
    let n = row.len();
    let seed = req.seed;
    // The draw of the optimal move comes first: a random move needs no
    // tempo.
    let bot = BotDraw::new(strength, seed);
    let tempo = bot.optimal && n <= TEMPO_MAX_PILES;
    let solve = want || tempo;
    let cells = if tempo && !want {
        // The game bot's move whatever the budget: at most all of it.
        remoteness::tempo_cells(state, n, variant, true)
    } else {
        remoteness::row_cells(state, n, variant, solve)
    };
    let reservation = remoteness::admit(state, cells, n as u64, want, "this SuggestMove")?;
    // If tonic drops this future (client gone, deadline passed), the guard
    // stops the work on the pool.
    let cancel = state.rpc_token();
    let _guard = cancel.clone().drop_guard();
    let metrics = Arc::clone(&state.metrics);
    let response = state
        .run_cpu_sized(cells, move || {
            let _reservation = reservation;
            let cancelled = || cancel.is_cancelled();
            let analysis = metrics.count_case(variant, row.len(), || {
                analyze_cancellable(&row, variant, &cancelled)
            })?;
            let solved = if solve {
                Some(solve_with(&row, variant, &cancelled).ok()?)
            } else {
                None
            };
            Some(respond(&row, variant, bot, analysis, solved, want))
        })
        .await?
        .ok_or_else(|| Status::cancelled("the request was cancelled"))??;
    // Debug, not info: at tens of thousands of calls per second an info
    // line per call would cost more than the call.
    tracing::debug!(
        piles = n,
        %variant,
        strength,
        elapsed_us = started.elapsed().as_micros() as u64,
        "SuggestMove"
    );
    Ok(Response::new(response))
}

/// The bot of one request: its strength and seed, whether it plays the
/// optimal move (drawn first from `rng`), and `rng` for a random one.
pub struct BotDraw {
    pub strength: f64,
    pub seed: u64,
    pub optimal: bool,
    pub rng: ChaCha8Rng,
}

impl BotDraw {
    /// The bot of `strength` and `seed`: a `ChaCha8Rng` seeded with `seed`
    /// draws whether it plays the optimal move (always at strength ≥ 1,
    /// without drawing).
    pub fn new(strength: f64, seed: u64) -> BotDraw {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let optimal = strength >= 1.0 || rng.random::<f64>() < strength;
        BotDraw {
            strength,
            seed,
            optimal,
            rng,
        }
    }
}

/// Picks the bot's move and explains it: with `solved` (the row's
/// remoteness and move ranges) the optimal move is the tempo move, its
/// best first range's best move. With `want`, adds the remoteness and the
/// ranges and the remoteness after each move listed.
pub fn respond(
    piles: &ValidRow<'_>,
    variant: Variant,
    mut bot: BotDraw,
    analysis: Analysis,
    solved: Option<Solved>,
    want: bool,
) -> Result<pb::SuggestMoveResponse, Status> {
    let (strength, seed) = (bot.strength, bot.seed);
    // The tempo move: the best move of the best range, as the game bot's.
    let tempo = match &solved {
        Some(s) => {
            let m = best_of(piles, &s.ranges);
            let after = after_move(&s.ranges, piles.len(), &m).ok_or_else(|| {
                Status::internal(format!("no move range holds the move {m} (a server bug)"))
            })?;
            Some((m, after))
        }
        None => None,
    };
    let (chosen, explanation) = match (bot.optimal, tempo) {
        (true, Some((m, after))) if analysis.first_player_wins => (
            m,
            format!(
                "fastest winning move (the opponent then loses in {}): {m}",
                Plies(after)
            ),
        ),
        (true, Some((m, after))) => (
            m,
            format!(
                "the position is lost against perfect play; the bot resists longest (the \
                 opponent then wins in {}): {m}",
                Plies(after)
            ),
        ),
        (true, None) if analysis.first_player_wins => (
            analysis.best_move,
            format!("winning move: {}", analysis.best_move),
        ),
        (true, None) => (
            analysis.best_move,
            format!(
                "the position is lost against perfect play; the bot prolongs the game: {}",
                analysis.best_move
            ),
        ),
        (false, _) => {
            let m = random_legal_move(piles, variant, &mut bot.rng);
            (
                m,
                format!("random move (strength {strength}, seed {seed}): {m}"),
            )
        }
    };
    let solved = solved.filter(|_| want);
    let Some(solved) = solved else {
        return Ok(pb::SuggestMoveResponse {
            mover_wins: analysis.first_player_wins,
            chosen: Some(chosen.into()),
            winning_moves: analysis.winning_moves.into_iter().map(Into::into).collect(),
            explanation,
            ..Default::default()
        });
    };
    let n = piles.len();
    let with_after = |m| remoteness::move_with_after(&solved.ranges, n, m);
    Ok(pb::SuggestMoveResponse {
        mover_wins: analysis.first_player_wins,
        chosen: Some(with_after(chosen)?),
        winning_moves: analysis
            .winning_moves
            .into_iter()
            .map(with_after)
            .collect::<Result<_, _>>()?,
        explanation,
        remoteness: Some(solved.remoteness.into()),
        move_ranges: solved
            .ranges
            .into_iter()
            .map(remoteness::range_to_wire)
            .collect::<Result<_, _>>()?,
    })
}

/// A uniformly random legal move of a non-empty row, without listing them
/// (piles may hold up to 2^63−1 stones).
pub fn random_legal_move(piles: &[u64], variant: Variant, rng: &mut impl Rng) -> Move {
    let two_sided = variant == Variant::TwoEnds && piles.len() >= 2;
    random_end_move(piles[0], piles[piles.len() - 1], two_sided, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::moves::legal_moves;
    use std::collections::HashSet;

    #[test]
    fn random_moves_are_legal_and_cover_all() {
        let piles = [3, 5, 2];
        let legal: HashSet<Move> = legal_moves(&piles, Variant::TwoEnds).into_iter().collect();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let seen: HashSet<Move> = (0..500)
            .map(|_| random_legal_move(&piles, Variant::TwoEnds, &mut rng))
            .collect();
        assert_eq!(seen, legal);
        let m = random_legal_move(&[u64::MAX / 2, u64::MAX / 2], Variant::TwoEnds, &mut rng);
        assert!(m.take >= 1);
    }
}
