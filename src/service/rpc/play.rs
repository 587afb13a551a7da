//! `Play`: one whole game per stream, the server as referee and bot
//! (docs/play.md).
//!
//! The handler admits the stream (a slot of `limits.max_play_sessions`),
//! returns its response stream at once and runs the session in a spawned
//! task: it reads the first message (StartGame or ResumeGame, validated at
//! the door: [`PlayStart`], [`play_row`], [`crate::service::state::play_token`]), prepares the row
//! through the [`crate::service::state::row_cache`] (the one O(n²) sweep, admitted as work and run on
//! the CPU pool), then plays: the bot moves as soon as it is its turn, the
//! client's moves are checked ([`Game::play`]), rejected ones answered with
//! a MoveRejected. Every accepted move is answered with a GameState whose
//! `state_token` resumes the game on any replica with the same
//! `play.token_key`; the end is a GameOver, then the stream ends OK. With
//! analysis, each state of a small enough position also carries its
//! remoteness ([`super::play_remoteness`]: one solve a ply, on the pool);
//! the bot's tempo move on positions of at most
//! [`TEMPO_MAX_PILES`](crate::core::game::TEMPO_MAX_PILES) live piles
//! reads the same solve, or its own one on the pool
//! ([`play_remoteness::for_bot`]).
//!
//! Each move is O(1) amortized ([`crate::core::game`]) apart from those
//! solves; a game holds its session slot, its row (shared) and its cone's
//! memory (a piles-budget reservation) until it ends or its client goes
//! away (the response stream is dropped: everything is released).

use std::sync::Arc;
use std::time::Duration;

use futures::{FutureExt, Stream, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status, Streaming};
use tracing::Instrument;

use crate::core::game::{
    Bot, Game, GameRow, GameState, MoveError, Played, WhenLost, game_cost, row_bytes_estimate,
};
use crate::core::{Move, Side, ValidRow, Variant};
use crate::wire::convert::side_from_wire;

use crate::service::metrics::{GameStart, Mover, PlayEnd, PlayReject, Refusal};
use crate::service::pb;
use crate::service::pb::play_event::Event;
use crate::service::pb::play_request::Action;
use crate::service::rpc::convert::{PlayStart, at_most, play_row};
use crate::service::rpc::play_remoteness::{self, Known, Stopped, TempoError};
use crate::service::rpc::validate::RequestError;
use crate::service::state::clients::ClientKey;
use crate::service::state::limits::{
    GuardedStream, Reservation, cells_of, deadline, piles_of_bytes,
};
use crate::service::state::{BoxStream, State};

use crate::service::state::play_token::{DIGEST_BYTES, TokenGame, row_digest};
use crate::service::state::row_cache::PreparedRow;

/// Events buffered towards the client before the session waits for it.
const EVENTS_BUFFERED: usize = 32;

/// Starts a Play stream: the session runs in a spawned task.
#[tracing::instrument(
    name = "Play",
    skip_all,
    fields(
        piles = tracing::field::Empty,
        plies = tracing::field::Empty,
        outcome = tracing::field::Empty,
    )
)]
pub fn play(
    state: Arc<State>,
    request: Request<Streaming<pb::PlayRequest>>,
) -> Result<Response<BoxStream<pb::PlayEvent>>, Status> {
    // A session is not an RPC slot (games last minutes): its own limit.
    // The RPC limiter is asked only to refuse streams while shutting down.
    let client = ClientKey::of(&request);
    drop(state.admit_rpc(client)?);
    let slot = state
        .play
        .sessions
        .try_reserve(1)
        .map_err(|e| state.refused(e))?;
    // And the client's share of them (`max_play_sessions_per_client`).
    let share = state.play.per_client.try_acquire(client).map_err(|e| {
        state.metrics.refused(Refusal::TooManyPlaySessions);
        Status::from(e)
    })?;
    // A client deadline (grpc-timeout) bounds the whole game.
    let deadline = deadline(&request);
    let inbound = request.into_inner();
    let (tx, rx) = mpsc::channel(EVENTS_BUFFERED);
    let cancel = state.rpc_token();
    let session_cancel = cancel.clone();
    tokio::spawn(
        async move {
            let _slot = (slot, share);
            let _counted = state.metrics.play_session();
            let outcome = run(&state, inbound, &tx, &session_cancel).await;
            let label = match outcome {
                Some(outcome) => {
                    // A bot-against-bot game stopped after
                    // max_bot_plies_per_call has not ended: it goes on
                    // from its last token.
                    if outcome != Outcome::Paused {
                        state.metrics.play_game_ended(outcome.end());
                    }
                    outcome.label()
                }
                None => "refused",
            };
            tracing::Span::current().record("outcome", label);
            tracing::info!("Play stream done");
        }
        .in_current_span(),
    );
    Ok(Response::new(Box::pin(GuardedStream::new(
        rx, &cancel, deadline, "the game",
    ))))
}

/// One PlayStep call: a start, or one turn of the game of a state token,
/// played by the same `Session` as a Play stream (so with the same moves,
/// states and tokens) until the client's turn or the end. It is an RPC like
/// any other (an RPC slot of the client's share), not a Play session: no
/// game is held between calls.
#[tracing::instrument(
    name = "PlayStep",
    level = "debug",
    skip_all,
    fields(
        piles = tracing::field::Empty,
        plies = tracing::field::Empty,
        outcome = tracing::field::Empty,
    )
)]
pub fn play_step(
    state: Arc<State>,
    request: Request<pb::PlayStepRequest>,
) -> Result<Response<BoxStream<pb::PlayEvent>>, Status> {
    let permit = state.admit_rpc(ClientKey::of(&request))?;
    let deadline = deadline(&request);
    let (first, then, mode) = step_messages(request.into_inner())?;
    let (tx, rx) = mpsc::channel(EVENTS_BUFFERED);
    let cancel = state.rpc_token();
    let step_cancel = cancel.clone();
    tokio::spawn(
        async move {
            let _permit = permit;
            let mut then = futures::stream::iter(then.map(Ok));
            let Some(outcome) = play_game(&state, first, &mut then, &tx, &step_cancel, mode).await
            else {
                return;
            };
            // A game ends in the call that ends it; a call that leaves it
            // at the client's turn (or whose client left: the game may go
            // on from its last token) ends nothing.
            if let Outcome::Over(_) = outcome {
                state.metrics.play_game_ended(outcome.end());
            }
            tracing::Span::current().record("outcome", outcome.label());
        }
        .in_current_span(),
    );
    Ok(Response::new(Box::pin(GuardedStream::new(
        rx, &cancel, deadline, "the turn",
    ))))
}

/// A PlayStep request as the Play messages it stands for: the first one
/// (a start, or the resume of the turn's token), the client's message of
/// the turn (none for a start), and how the session meets the client's turn.
fn step_messages(
    request: pb::PlayStepRequest,
) -> Result<(pb::PlayRequest, Option<pb::PlayRequest>, Mode), RequestError> {
    use pb::play_step_request::Step;
    use pb::turn::Action as TurnAction;
    let message = |action| pb::PlayRequest {
        action: Some(action),
    };
    match request.step {
        Some(Step::Start(start)) => Ok((
            message(Action::Start(start)),
            None,
            Mode::Step { announce: true },
        )),
        Some(Step::Turn(turn)) => {
            let action = match turn.action {
                Some(TurnAction::Move(submit)) => Some(Action::Move(submit)),
                Some(TurnAction::Resign(resign)) => Some(Action::Resign(resign)),
                // The bots play on: no message of the client's.
                Some(TurnAction::PlayOn(_)) => None,
                None => return Err(RequestError::NoTurnAction),
            };
            let resume = pb::ResumeGame {
                state_token: turn.state_token,
                piles: turn.piles,
                piles_le: turn.piles_le,
                piles_le_width: turn.piles_le_width,
            };
            Ok((
                message(Action::Resume(resume)),
                action.map(message),
                Mode::Step { announce: false },
            ))
        }
        None => Err(RequestError::NoStep),
    }
}

type Tx = mpsc::Sender<Result<pb::PlayEvent, Status>>;

/// How a session ended (the `reason` label of `stonegame_play_games_ended_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Over(pb::EndReason),
    /// The client went away, or the stream failed, before the end.
    Abandoned,
    /// A PlayStep call ended at the client's turn: the game goes on in the
    /// client's next call (not an end).
    Paused,
}

impl Outcome {
    /// How the game ended, as `stonegame_play_games_ended_total` counts it
    /// (a paused game has not ended: it is never counted).
    fn end(self) -> PlayEnd {
        match self {
            Outcome::Over(pb::EndReason::NoMoves) => PlayEnd::NoMoves,
            Outcome::Over(pb::EndReason::Resigned) => PlayEnd::Resigned,
            Outcome::Over(pb::EndReason::Timeout) => PlayEnd::Timeout,
            Outcome::Over(pb::EndReason::TooManyIllegalMoves) => PlayEnd::TooManyIllegalMoves,
            Outcome::Over(pb::EndReason::Unspecified) | Outcome::Abandoned | Outcome::Paused => {
                PlayEnd::Abandoned
            }
        }
    }

    /// The outcome in the session's log line.
    fn label(self) -> &'static str {
        match self {
            Outcome::Paused => "paused",
            ended => ended.end().label(),
        }
    }
}

/// Runs one session to its end: how its game ended (abandoned when the
/// client left while its row was prepared), `None` when no game began (a
/// refused or missing first message, the client gone before it).
async fn run(
    state: &Arc<State>,
    mut inbound: Streaming<pb::PlayRequest>,
    tx: &Tx,
    cancel: &CancellationToken,
) -> Option<Outcome> {
    // The first message, within the default move timeout (a stream that
    // never starts a game would hold its slot forever).
    let wait = state.limits.play_move_timeout;
    let first = tokio::select! {
        () = tx.closed() => return None,
        () = tokio::time::sleep(wait) => {
            let _ = tx.send(Err(Status::deadline_exceeded(format!(
                "no StartGame or ResumeGame within {} ms (limits.play_move_timeout)",
                wait.as_millis()
            )))).await;
            return None;
        }
        first = inbound.message() => first,
    };
    let first = match first {
        Ok(Some(first)) => first,
        Ok(None) => {
            let e = RequestError::NoStart("the end of the stream");
            let _ = tx.send(Err(e.into())).await;
            return None;
        }
        Err(_) => return None,
    };
    play_game(state, first, &mut inbound, tx, cancel, Mode::Stream).await
}

/// Begins the game of the first message and plays it in `mode`: how it
/// ended (abandoned when the client left while its row was prepared), or
/// `None` when it was refused (the status sent to the client). A game is
/// counted as begun unless it is a PlayStep turn (its game began before).
async fn play_game<S>(
    state: &Arc<State>,
    first: pb::PlayRequest,
    inbound: &mut S,
    tx: &Tx,
    cancel: &CancellationToken,
    mode: Mode,
) -> Option<Outcome>
where
    S: Stream<Item = Result<pb::PlayRequest, Status>> + Unpin,
{
    let (mut session, how) = match Session::begin(state, first, cancel).await {
        Ok(begun) => begun,
        // The client went away while its row was prepared: the game was
        // abandoned, not refused.
        Err(_) if cancel.is_cancelled() || tx.is_closed() => return Some(Outcome::Abandoned),
        Err(status) => {
            if mode == Mode::Stream {
                tracing::debug!(code = ?status.code(), message = status.message(), "Play refused");
            }
            let _ = tx.send(Err(status)).await;
            return None;
        }
    };
    if mode != (Mode::Step { announce: false }) {
        state.metrics.play_game_started(how);
    }
    let span = tracing::Span::current();
    span.record("piles", session.game.row().piles().len());
    let outcome = session.drive(inbound, tx, mode).await;
    span.record("plies", session.game.ply());
    Some(outcome)
}

/// The seat that moves at `ply`.
fn seat_at(ply: u64) -> pb::Seat {
    if ply.is_multiple_of(2) {
        pb::Seat::First
    } else {
        pb::Seat::Second
    }
}

fn other(seat: pb::Seat) -> pb::Seat {
    match seat {
        pb::Seat::First => pb::Seat::Second,
        _ => pb::Seat::First,
    }
}

/// One game being played.
struct Session {
    state: Arc<State>,
    game: Game,
    /// Holds the shared row (and its memory) while the game runs.
    _row: Arc<PreparedRow>,
    /// The game's own memory (its cones) in the piles budget.
    memory: Reservation,
    seat: pb::Seat,
    bot: Bot,
    analysis: bool,
    timeout: Duration,
    digest: [u8; DIGEST_BYTES],
    /// Illegal moves per seat (first, second).
    illegal: [u32; 2],
    /// Stops the game's work (its stream's token).
    cancel: CancellationToken,
    /// With analysis: the remoteness of the latest position sent (or, in a
    /// resumed PlayStep turn, of the position resumed), for the
    /// `remoteness_before` of the move played from it.
    known: Option<Known>,
}

/// How a session meets the client's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Play: it waits for the client's move (within the move timeout); a
    /// client that half-closed its side resigns.
    Stream,
    /// PlayStep: the client's messages are the call's (none for a start,
    /// one for a turn); once they are used up, the call ends at the
    /// client's turn ([`Outcome::Paused`]). `announce`: the first state is
    /// sent (a start), not only the states after moves (a turn).
    Step { announce: bool },
}

/// What handling a client message led to.
enum Handled {
    /// Nothing changed (a rejected move): keep waiting.
    Wait,
    /// A move was played.
    Played,
    /// The game is over: this is how.
    Over(Outcome),
}

impl Session {
    /// Starts or resumes the game of the stream's first message; with how
    /// it began (`start` or `resume`, a label of
    /// `stonegame_play_games_started_total`).
    async fn begin(
        state: &Arc<State>,
        first: pb::PlayRequest,
        cancel: &CancellationToken,
    ) -> Result<(Session, GameStart), Status> {
        let limits = &state.limits;
        let (start, resumed, how) = match first.action {
            Some(Action::Start(start)) => (
                PlayStart::try_from((start, limits))?,
                None,
                GameStart::Start,
            ),
            Some(Action::Resume(resume)) => {
                let game = state
                    .play
                    .key
                    .open(&resume.state_token)
                    .map_err(RequestError::from)?;
                let (variant, row) = play_row(
                    resume.piles,
                    resume.piles_le,
                    resume.piles_le_width,
                    pb::Variant::from(game.variant) as i32,
                    limits.max_piles.get(),
                )?;
                let start = PlayStart {
                    row,
                    variant,
                    seat: pb::Seat::try_from(game.seat).unwrap_or(pb::Seat::First),
                    strength: game.strength,
                    seed: game.seed,
                    // This server's limit bounds it as a start's would be.
                    move_timeout_ms: at_most(game.move_timeout_ms, limits.play_move_timeout_ms()),
                    analysis: game.analysis,
                };
                (start, Some(game), GameStart::Resume)
            }
            Some(Action::Move(_)) => return Err(RequestError::NoStart("a move").into()),
            Some(Action::Resign(_)) => return Err(RequestError::NoStart("a resignation").into()),
            None => return Err(RequestError::NoStart("an empty PlayRequest").into()),
        };
        let PlayStart {
            row,
            variant,
            seat,
            strength,
            seed,
            move_timeout_ms,
            analysis,
        } = start;
        let n = row.len();
        // The digest of a long row is hashed off the async threads.
        let (row, digest) = state
            .run_cpu_sized(n as u64 * 16, move || {
                let digest = row_digest(&row);
                (row, digest)
            })
            .await?;
        let short: [u8; DIGEST_BYTES] = digest[..DIGEST_BYTES].try_into().expect("a prefix");
        if let Some(game) = &resumed
            && game.row_digest != short
        {
            return Err(RequestError::RowDigest.into());
        }
        let prepared = prepare(state, row, variant, digest, cancel).await?;
        // The game's own memory and the work of its first cone.
        let (cone_cells, cone_bytes) = game_cost(n, variant);
        let mut memory = admit_memory(state, piles_of_bytes(cone_bytes))?;
        let [cells, _none] = state.admit_work(cone_cells, 0)?;
        let initial = match &resumed {
            Some(game) => game.state,
            None => GameState::initial(prepared.row.piles()),
        };
        let shared = Arc::clone(&prepared.row);
        let game = state
            .run_cpu_sized(cone_cells, move || {
                let _cells = cells;
                Game::resume(shared, initial)
            })
            .await?
            .map_err(RequestError::State)?;
        // The cone bound was admitted for the build; from now on the
        // session holds what its game holds (see Session::sync_memory).
        memory.resize(piles_of_bytes(game.heap_bytes() as u64));
        let session = Session {
            state: Arc::clone(state),
            game,
            _row: prepared,
            memory,
            seat,
            bot: Bot {
                strength,
                seed,
                when_lost: WhenLost::Prolong,
            },
            analysis,
            timeout: Duration::from_millis(u64::from(move_timeout_ms)),
            digest: short,
            illegal: [0, 0],
            cancel: cancel.clone(),
            known: None,
        };
        Ok((session, how))
    }

    /// Makes the session's memory reservation what its game holds now (a
    /// move may build a new cone or drop an old one): an idle session
    /// reserves only what it uses, not the worst case of its whole game.
    fn sync_memory(&mut self) {
        self.memory
            .resize(piles_of_bytes(self.game.heap_bytes() as u64));
    }

    /// Does the client play `seat`'s moves?
    fn client_plays(&self, seat: pb::Seat) -> bool {
        match self.seat {
            pb::Seat::Both => true,
            pb::Seat::None | pb::Seat::Unspecified => false,
            own => own == seat,
        }
    }

    /// The GameState of now, after `last`; with analysis, the remoteness
    /// of the position is computed (once: the next state's
    /// `remoteness_before` is this one's).
    async fn state_event(
        &mut self,
        last: Option<(pb::Seat, Played)>,
    ) -> Result<pb::PlayEvent, Outcome> {
        let now = if self.analysis {
            play_remoteness::known(&self.state, &self.game, &self.cancel)
                .await
                .map_err(|Stopped| Outcome::Abandoned)?
        } else {
            None
        };
        let before = self.known.take().filter(|k| k.ply + 1 == self.game.ply());
        let event = self.state_with(last, now.as_ref(), before.map(|k| k.remoteness));
        self.known = now;
        Ok(event)
    }

    /// With analysis, when the game resumes from a token at a position
    /// that is not sent (a PlayStep turn): its remoteness, for the
    /// `remoteness_before` of the move played next.
    async fn know_resumed(&mut self) -> Result<(), Outcome> {
        if self.analysis {
            self.known = play_remoteness::known(&self.state, &self.game, &self.cancel)
                .await
                .map_err(|Stopped| Outcome::Abandoned)?;
        }
        Ok(())
    }

    /// The GameState of now, after `last`, with the remoteness of the
    /// position (`now`) and of the one `last` was played from (`before`).
    fn state_with(
        &self,
        last: Option<(pb::Seat, Played)>,
        now: Option<&Known>,
        before: Option<u128>,
    ) -> pb::PlayEvent {
        let game = &self.game;
        let (first, last_pile) = game.live();
        let token = self.state.play.key.sign(&TokenGame {
            state: game.state(),
            variant: game.variant(),
            seat: self.seat as i32,
            strength: self.bot.strength,
            seed: self.bot.seed,
            analysis: self.analysis,
            move_timeout_ms: self.timeout.as_millis() as u32,
            row_digest: self.digest,
        });
        // The position a move leaves is the one now.
        let last_move = last.map(|(by, played)| pb::PlayedMove {
            by: by as i32,
            r#move: Some(pb::Move {
                remoteness_after: now.map(|k| k.remoteness.into()),
                ..played.mv.into()
            }),
            blunder: self.analysis && played.blunder,
            remoteness_before: before.map(Into::into),
        });
        let (mover_wins, winning_moves) = if self.analysis {
            let with_after = |m: Move| pb::Move {
                remoteness_after: now.and_then(|k| k.after(&m)).map(Into::into),
                ..m.into()
            };
            (
                game.mover_wins(),
                game.winning_moves().into_iter().map(with_after).collect(),
            )
        } else {
            (false, Vec::new())
        };
        pb::PlayEvent {
            event: Some(Event::State(pb::GameState {
                ply: game.ply(),
                to_move: seat_at(game.ply()) as i32,
                first_pile: first as u64,
                last_pile: last_pile as u64,
                left_size: game.left_size(),
                right_size: game.right_size(),
                last_move,
                mover_wins,
                winning_moves,
                state_token: token,
                remoteness: now.map(|k| k.remoteness.into()),
            })),
        }
    }

    /// Ends the game: sends its GameOver (`winner` won, for `reason`).
    async fn end(&self, tx: &Tx, winner: pb::Seat, reason: pb::EndReason) -> Outcome {
        let over = Event::Over(pb::GameOver {
            winner: winner as i32,
            reason: reason as i32,
            plies: self.game.ply(),
        });
        match send(tx, pb::PlayEvent { event: Some(over) }).await {
            Ok(()) => Outcome::Over(reason),
            Err(abandoned) => abandoned,
        }
    }

    /// Plays the game to its end (or until the client goes away; in
    /// [`Mode::Step`], until the client's turn once its messages are used).
    async fn drive<S>(&mut self, inbound: &mut S, tx: &Tx, mode: Mode) -> Outcome
    where
        S: Stream<Item = Result<pb::PlayRequest, Status>> + Unpin,
    {
        macro_rules! send {
            ($event:expr) => {
                if let Err(abandoned) = send(tx, $event).await {
                    return abandoned;
                }
            };
        }
        if mode != (Mode::Step { announce: false }) {
            match self.state_event(None).await {
                Ok(event) => send!(event),
                Err(abandoned) => return abandoned,
            }
        } else if let Err(abandoned) = self.know_resumed().await {
            return abandoned;
        }
        // The client has half-closed its side: it can no longer move.
        let mut closed = false;
        let mut bot_moves = 0u32;
        loop {
            if self.game.is_over() {
                let winner = seat_at(self.game.ply() - 1);
                return self.end(tx, winner, pb::EndReason::NoMoves).await;
            }
            let mover = seat_at(self.game.ply());
            if !self.client_plays(mover) {
                // Messages that came in meanwhile (a move out of turn, a
                // resignation) are answered first.
                while !closed {
                    let Some(next) = inbound.next().now_or_never() else {
                        break;
                    };
                    let next = next.transpose();
                    match self.received(next, tx, &mut closed).await {
                        Handled::Over(outcome) => return outcome,
                        Handled::Wait | Handled::Played => {}
                    }
                }
                // The bot's tempo move is read from the position's ranges:
                // the analysis's when it solved the position, else solved
                // now on the pool (never on this thread).
                let solved;
                let ranges = if !self.game.bot_needs_tempo(&self.bot) {
                    None
                } else if let Some(known) = self.known.as_ref().filter(|k| k.ply == self.game.ply())
                {
                    Some(known.ranges())
                } else {
                    match play_remoteness::for_bot(&self.state, &self.game, &self.cancel).await {
                        Ok(known) => solved = known,
                        Err(TempoError::Stopped) => return Outcome::Abandoned,
                        Err(TempoError::Failed(status)) => {
                            tracing::warn!(
                                code = ?status.code(),
                                message = status.message(),
                                "the bot's tempo solve failed; the game stops"
                            );
                            let _ = tx.send(Err(status)).await;
                            return Outcome::Abandoned;
                        }
                    }
                    Some(solved.ranges())
                };
                let mv = self
                    .game
                    .bot_move_knowing(&self.bot, ranges)
                    .expect("the game is not over");
                let played = self.game.play_move(mv).expect("the bot's moves are legal");
                self.sync_memory();
                self.state.metrics.play_move(Mover::Bot);
                match self.state_event(Some((mover, played))).await {
                    Ok(event) => send!(event),
                    Err(abandoned) => return abandoned,
                }
                bot_moves += 1;
                if bot_moves >= self.state.limits.max_bot_plies_per_call.get()
                    && !self.game.is_over()
                {
                    // One call cannot stream for ever: the game stops here,
                    // at a state whose token goes on (Turn.play_on, or a
                    // Play stream's ResumeGame).
                    return Outcome::Paused;
                }
                if bot_moves.is_multiple_of(64) {
                    // A bot-against-bot game must not hold the thread.
                    tokio::task::yield_now().await;
                }
                continue;
            }
            // The client's turn, within its move timeout.
            let deadline = Instant::now() + self.timeout;
            loop {
                if closed && mode != Mode::Stream {
                    // A PlayStep call ends here; the game goes on in the
                    // client's next call.
                    return Outcome::Paused;
                }
                if closed {
                    // A client that half-closed resigns when it is to move.
                    return self.end(tx, other(mover), pb::EndReason::Resigned).await;
                }
                let next = tokio::select! {
                    biased;
                    () = tx.closed() => return Outcome::Abandoned,
                    () = tokio::time::sleep_until(deadline) => {
                        return self.end(tx, other(mover), pb::EndReason::Timeout).await;
                    }
                    next = inbound.next() => next.transpose(),
                };
                match self.received(next, tx, &mut closed).await {
                    Handled::Wait => {}
                    Handled::Played => {
                        bot_moves = 0;
                        break;
                    }
                    Handled::Over(outcome) => return outcome,
                }
            }
        }
    }

    /// Handles one message from the client.
    async fn received(
        &mut self,
        next: Result<Option<pb::PlayRequest>, Status>,
        tx: &Tx,
        closed: &mut bool,
    ) -> Handled {
        let request = match next {
            Ok(Some(request)) => request,
            Ok(None) => {
                *closed = true;
                return Handled::Wait;
            }
            // The client reset the stream or the connection failed.
            Err(_) => return Handled::Over(Outcome::Abandoned),
        };
        match request.action {
            Some(Action::Move(submit)) => self
                .submitted(submit, tx)
                .await
                .unwrap_or_else(Handled::Over),
            Some(Action::Resign(_)) => {
                let mover = seat_at(self.game.ply());
                let loser = self.offender(mover).unwrap_or(mover);
                Handled::Over(self.end(tx, other(loser), pb::EndReason::Resigned).await)
            }
            Some(Action::Start(_)) | Some(Action::Resume(_)) => {
                let _ = tx.send(Err(RequestError::SecondStart.into())).await;
                Handled::Over(Outcome::Abandoned)
            }
            None => {
                let _ = tx
                    .send(Err(Status::invalid_argument(
                        "action: a PlayRequest must carry a move, a resignation, or (first) a start or resume",
                    )))
                    .await;
                Handled::Over(Outcome::Abandoned)
            }
        }
    }

    /// Checks and plays a client's move, or rejects it (`Err`: the game
    /// is over, this is how).
    async fn submitted(&mut self, submit: pb::SubmitMove, tx: &Tx) -> Result<Handled, Outcome> {
        let ply = self.game.ply();
        let mover = seat_at(ply);
        let wire = submit.r#move.unwrap_or_default();
        let side = side_from_wire(wire.side);
        // The move as the protocol writes it (`L 3`, `R 1`), or as sent.
        let shown = match side {
            Ok(Side::Left) => format!("`L {}`", wire.take),
            Ok(Side::Right) => format!("`R {}`", wire.take),
            Err(_) => format!("(side {}, take {})", wire.side, wire.take),
        };
        let verdict: Result<Played, (pb::RejectReason, String)> = (|| {
            if !self.client_plays(seat_at(submit.ply)) {
                return Err((
                    pb::RejectReason::NotYourTurn,
                    format!(
                        "ply {}: move {shown} rejected: that ply is not the client's to play \
                         (the game is at ply {ply}, {} to move)",
                        submit.ply,
                        mover.as_str_name().trim_start_matches("SEAT_")
                    ),
                ));
            }
            if submit.ply != ply {
                return Err((
                    pb::RejectReason::StalePly,
                    format!(
                        "ply {}: move {shown} rejected: the game is at ply {ply}; send the move with ply {ply}",
                        submit.ply
                    ),
                ));
            }
            let side = side.map_err(|e| {
                (
                    pb::RejectReason::InvalidSide,
                    format!("ply {ply}: move {shown} rejected: {e}"),
                )
            })?;
            self.game.play(side, wire.take).map_err(|e| {
                let (first, last) = self.game.live();
                let pile = match side {
                    Side::Left => first,
                    Side::Right => last,
                };
                let reason = match e {
                    MoveError::GameOver => pb::RejectReason::NotYourTurn,
                    MoveError::InvalidSide => pb::RejectReason::InvalidSide,
                    MoveError::TakeZero => pb::RejectReason::TakeZero,
                    MoveError::TakeTooMany { .. } => pb::RejectReason::TakeTooMany,
                };
                (
                    reason,
                    format!(
                        "ply {ply}: move {shown} rejected on pile {pile} (0-based) of the row: {e}"
                    ),
                )
            })
        })();
        match verdict {
            Ok(played) => {
                self.sync_memory();
                self.state.metrics.play_move(Mover::Client);
                let event = self.state_event(Some((mover, played))).await?;
                send(tx, event).await?;
                Ok(Handled::Played)
            }
            Err((reason, message)) => {
                self.state.metrics.play_rejected(reject_label(reason));
                let rejected = pb::PlayEvent {
                    event: Some(Event::Rejected(pb::MoveRejected {
                        reason: reason as i32,
                        message,
                        expected_ply: ply,
                    })),
                };
                send(tx, rejected).await?;
                let Some(offender) = self.offender(mover) else {
                    return Ok(Handled::Wait);
                };
                let count = &mut self.illegal[usize::from(offender == pb::Seat::Second)];
                *count += 1;
                if *count > self.state.limits.play_max_illegal_moves.get() {
                    let reason = pb::EndReason::TooManyIllegalMoves;
                    return Err(self.end(tx, other(offender), reason).await);
                }
                Ok(Handled::Wait)
            }
        }
    }

    /// Who answers for `mover`'s move: the client's seat; with BOTH,
    /// `mover`; with NONE nobody (the client has no seat to lose).
    fn offender(&self, mover: pb::Seat) -> Option<pb::Seat> {
        match self.seat {
            pb::Seat::First | pb::Seat::Second => Some(self.seat),
            pb::Seat::Both => Some(mover),
            _ => None,
        }
    }
}

/// Sends `event`, or gives [`Outcome::Abandoned`] if the client has gone.
async fn send(tx: &Tx, event: pb::PlayEvent) -> Result<(), Outcome> {
    tx.send(Ok(event)).await.map_err(|_| Outcome::Abandoned)
}

fn reject_label(reason: pb::RejectReason) -> PlayReject {
    match reason {
        pb::RejectReason::NotYourTurn | pb::RejectReason::Unspecified => PlayReject::NotYourTurn,
        pb::RejectReason::StalePly => PlayReject::StalePly,
        pb::RejectReason::InvalidSide => PlayReject::InvalidSide,
        pb::RejectReason::TakeZero => PlayReject::TakeZero,
        pb::RejectReason::TakeTooMany => PlayReject::TakeTooMany,
    }
}

/// Reserves `piles` of memory ([`State::reserve_memory`]: idle cached rows
/// make room first), or counts the refusal.
fn admit_memory(state: &State, piles: u64) -> Result<Reservation, Status> {
    state.reserve_memory(piles).map_err(|e| state.refused(e))
}

/// The prepared row of `row`: from the cache, or swept now (admitted as
/// `cells_of(n)` cell updates on the CPU pool, its memory held in the piles
/// budget while the row lives).
async fn prepare(
    state: &Arc<State>,
    row: ValidRow<'static>,
    variant: Variant,
    digest: [u8; 32],
    cancel: &CancellationToken,
) -> Result<Arc<PreparedRow>, Status> {
    let (prepared, hit) = state
        .play
        .cache
        .get_or_build((variant, digest), || async {
            let n = row.len();
            let cells = cells_of(n, variant == Variant::TwoEnds);
            let estimate = piles_of_bytes(row_bytes_estimate(n, variant)).max(n as u64);
            let memory = admit_memory(state, estimate)?;
            let [cells_held, _none] = state.admit_work(cells, 0)?;
            let rpc_cancel = cancel.clone();
            let metrics = Arc::clone(&state.metrics);
            let built = state
                .run_cpu_sized(cells, move || {
                    let _cells = cells_held;
                    let cancelled = || rpc_cancel.is_cancelled();
                    metrics.count_case(variant, n, || GameRow::new(&row, variant, &cancelled).ok())
                })
                .await?
                .ok_or_else(|| {
                    Status::cancelled("the game was cancelled while its row was prepared")
                })?;
            let mut held = vec![memory];
            let bytes = built.heap_bytes() as u64;
            if piles_of_bytes(bytes) > estimate {
                // Best effort: the estimate is meant to be an upper bound.
                if let Ok(more) = state
                    .piles_budget
                    .try_reserve(piles_of_bytes(bytes) - estimate)
                {
                    held.push(more);
                }
            }
            Ok::<_, Status>(PreparedRow::new(built, held))
        })
        .await?;
    state.metrics.play_row_cache(hit);
    Ok(prepared)
}
