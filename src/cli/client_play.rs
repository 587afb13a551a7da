//! `stonegame client play --server URL A1 A2 …`: the terminal game of
//! `stonegame play` ([`super::tabletop`]) over the Play RPC, the server
//! being the referee and the bot.
//!
//! The game is started with analysis on (the hints and the blunder notes
//! come from `GameState.winning_moves` and `PlayedMove.blunder`);
//! `--analysis` also prints each position's verdict. A refused move
//! (`MoveRejected`) is shown with the server's reason; `quit` resigns.
//!
//! Replicas: when the stream fails mid-game (the replica died, the
//! connection broke), the game is resumed with `ResumeGame` from the last
//! `GameState.state_token` and the original row on a new stream (the
//! same address, or another replica of a list or a `dns:///` name), and a
//! line on stderr says so. A move that was sent but not answered is sent
//! again at the same ply: the resumed game plays exactly the moves the
//! lost one would have.

use std::io;
use std::process::ExitCode;
use std::time::Duration;

use tonic::Code;

use crate::client::play::wire_move;
use crate::client::{Client, ClientBuilder, ClientError, GameSpec, PlayEvent, PlaySession, Seat};
use crate::core::game::{MoveError, SideName};
use crate::core::{Move, Side, Variant};
use crate::wire::pb;

use super::fail;
use super::server_arg::ServerArg;
use super::suggest::parse_row;
use super::tabletop::{Answer, Ending, GameArgs, Header, Outcome, Table, View, run_game};

/// Arguments of `client play`.
#[derive(Debug, clap::Args)]
pub struct ClientPlayArgs {
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub game: GameArgs,
    /// Print under each position whether the player to move wins, and
    /// point out the bot's blunders.
    #[arg(long)]
    pub analysis: bool,
    /// How long a side may think before it loses on time, in ms (0: the
    /// server's limit).
    #[arg(long, default_value_t = 0)]
    pub move_timeout_ms: u32,
}

/// Resumes in a row without an event in between before giving up.
const MAX_RESUMES: u32 = 6;

/// Why a remote game stopped.
#[derive(Debug, thiserror::Error)]
pub enum RemotePlayError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("the game's stream failed {attempts} times in a row (last: {last})")]
    GaveUp { attempts: u32, last: String },
}

/// Runs the command on standard input and output. A bad row is refused
/// before connecting, as `stonegame play` refuses it.
pub fn run(runtime: &tokio::runtime::Runtime, args: &ClientPlayArgs) -> ExitCode {
    let piles = match parse_row(&args.game.piles) {
        Ok(row) => row.to_vec(),
        Err(e) => return fail(e),
    };
    let stdin = io::stdin();
    let stdout = io::stdout();
    match play(runtime, args, piles, stdin.lock(), stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(RemotePlayError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// Plays one game on `piles` (a valid row) against `args.server`, reading
/// commands from `input` and writing to `out`.
pub fn play(
    runtime: &tokio::runtime::Runtime,
    args: &ClientPlayArgs,
    piles: Vec<u64>,
    input: impl io::BufRead,
    out: impl io::Write,
) -> Result<(), RemotePlayError> {
    let header = Header {
        piles: piles.len(),
        variant: args.game.variant,
        second: args.game.second,
        strength: args.game.strength,
    };
    let spec = GameSpec {
        variant: header.variant,
        seat: if args.game.second {
            Seat::Second
        } else {
            Seat::First
        },
        strength: Some(args.game.strength),
        seed: args.game.seed,
        move_timeout_ms: args.move_timeout_ms,
        analysis: true,
        ..GameSpec::new(piles)
    };
    let builder = args.server.builder()?;
    let mut table = RemoteTable::start(runtime, builder, &args.server.server, spec, args.analysis)?;
    run_game(&mut table, header, input, out)
}

/// The server as referee and bot.
struct RemoteTable<'a> {
    runtime: &'a tokio::runtime::Runtime,
    server: String,
    client: Client,
    session: PlaySession,
    piles: Vec<u64>,
    variant: Variant,
    human: pb::Seat,
    state: pb::GameState,
    outcome: Option<Outcome>,
    show_analysis: bool,
}

/// Errors after which the game is resumed on a new stream: the replica or
/// the connection went away.
fn resumable(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::Aborted | Code::Internal
    )
}

/// A finished game's state: no pile left (both sizes 0).
fn finished(state: &pb::GameState) -> bool {
    state.left_size == 0 || state.right_size == 0
}

impl<'a> RemoteTable<'a> {
    /// Connects, starts the game and reads its first state.
    fn start(
        runtime: &'a tokio::runtime::Runtime,
        builder: ClientBuilder,
        server: &str,
        spec: GameSpec,
        show_analysis: bool,
    ) -> Result<RemoteTable<'a>, RemotePlayError> {
        let (client, mut session) = runtime.block_on(async {
            let mut client = builder.connect().await?;
            let session = client.play(&spec).await?;
            Ok::<_, ClientError>((client, session))
        })?;
        let state = match runtime.block_on(session.next_event())? {
            Some(PlayEvent::State(s)) => s,
            other => {
                return Err(ClientError::Protocol(format!(
                    "the game's first event is not a state: {other:?}"
                ))
                .into());
            }
        };
        Ok(RemoteTable {
            runtime,
            server: server.to_string(),
            client,
            session,
            variant: spec.variant,
            piles: spec.piles,
            human: spec.seat.into(),
            state,
            outcome: None,
            show_analysis,
        })
    }

    /// The next event (a state is also kept as the position now). A failed
    /// stream is resumed from the last state; the resumed stream's first
    /// event is that state again.
    fn next_event(&mut self) -> Result<PlayEvent, RemotePlayError> {
        let mut attempts = 0;
        loop {
            let why = match self.runtime.block_on(self.session.next_event()) {
                Ok(Some(event)) => {
                    if let PlayEvent::State(s) = &event {
                        self.state = s.clone();
                    }
                    return Ok(event);
                }
                Ok(None) => "the stream ended before the game was over".to_string(),
                Err(ClientError::Status(s)) if resumable(&s) => {
                    format!("{:?}: {}", s.code(), s.message())
                }
                Err(e) => return Err(e.into()),
            };
            attempts += 1;
            if attempts > MAX_RESUMES {
                return Err(RemotePlayError::GaveUp {
                    attempts: attempts - 1,
                    last: why,
                });
            }
            if attempts > 1 {
                let pause = Duration::from_millis(100 << (attempts - 1).min(4));
                // The sleep is made inside the runtime (it needs its timer).
                self.runtime
                    .block_on(async { tokio::time::sleep(pause).await });
            }
            eprintln!(
                "stonegame: the game's stream failed ({why}); resuming the game at ply {} on {}",
                self.state.ply, self.server
            );
            let opened = self.runtime.block_on(
                self.client
                    .resume_play(&self.state.state_token, &self.piles),
            );
            match opened {
                Ok(session) => self.session = session,
                // The next attempt reports it.
                Err(ClientError::Status(s)) if resumable(&s) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// After the last pile was taken: reads up to the GameOver.
    fn finish(&mut self) -> Result<(), RemotePlayError> {
        loop {
            match self.next_event()? {
                PlayEvent::Over(over) => {
                    self.over(&over);
                    return Ok(());
                }
                PlayEvent::State(s) if finished(&s) => {}
                other => {
                    return Err(ClientError::Protocol(format!(
                        "an event after the last pile was taken: {other:?}"
                    ))
                    .into());
                }
            }
        }
    }

    /// Records the end of the game.
    fn over(&mut self, over: &pb::GameOver) {
        let ending = match pb::EndReason::try_from(over.reason) {
            Ok(pb::EndReason::Resigned) => Ending::Resigned,
            Ok(pb::EndReason::Timeout) => Ending::Timeout,
            Ok(pb::EndReason::TooManyIllegalMoves) => Ending::IllegalMoves,
            _ => Ending::LastPile,
        };
        self.outcome = Some(Outcome {
            human_won: over.winner == self.human as i32,
            ending,
        });
    }

    /// The last move of the state now, checked.
    fn last_move(&self) -> Result<(Move, bool), RemotePlayError> {
        self.state
            .last_move
            .as_ref()
            .and_then(|p| Some((wire_move(p.r#move.as_ref()?)?, p.blunder)))
            .ok_or_else(|| {
                ClientError::Protocol(format!(
                    "the state at ply {} names no valid last move",
                    self.state.ply
                ))
                .into()
            })
    }

    /// The move that led to `state` (the state now), reading up to the
    /// GameOver when it took the last pile.
    fn moved(&mut self, state: &pb::GameState) -> Result<(Move, bool), RemotePlayError> {
        let played = self.last_move()?;
        if finished(state) {
            self.finish()?;
        }
        Ok(played)
    }

    fn send_move(&mut self, ply: u64, side: Side, take: u64) {
        // A stream that is gone shows at the next event (and is resumed).
        let _ = self.runtime.block_on(self.session.submit(ply, side, take));
    }
}

/// The message of a refused move: for a bad side or take, the words of
/// `stonegame play` (the engine's [`MoveError`]), else the server's.
fn rejection(r: &pb::MoveRejected, state: &pb::GameState, side: Side, take: u64) -> String {
    let local = match pb::RejectReason::try_from(r.reason) {
        Ok(pb::RejectReason::TakeZero) => Some(MoveError::TakeZero),
        Ok(pb::RejectReason::InvalidSide) => Some(MoveError::InvalidSide),
        Ok(pb::RejectReason::TakeTooMany) => Some(MoveError::TakeTooMany {
            side: SideName(side),
            take,
            pile: match side {
                Side::Left => state.left_size,
                Side::Right => state.right_size,
            },
        }),
        _ => None,
    };
    match local {
        Some(e) => e.to_string(),
        None if r.message.is_empty() => format!("the server refused it (reason {})", r.reason),
        None => r.message.trim_end_matches('.').to_string(),
    }
}

impl Table for RemoteTable<'_> {
    type Error = RemotePlayError;

    fn view(&self) -> View<'_> {
        let n = self.piles.len();
        let last = (self.state.last_pile as usize).min(n - 1);
        View {
            piles: &self.piles,
            variant: self.variant,
            first: (self.state.first_pile as usize).min(last),
            last,
            left_size: self.state.left_size,
            right_size: self.state.right_size,
        }
    }

    fn human_to_move(&self) -> bool {
        self.state.to_move == self.human as i32
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn remark(&self) -> Option<String> {
        if !self.show_analysis {
            return None;
        }
        let mut line = String::new();
        if let Some(p) = &self.state.last_move
            && p.blunder
            && p.by != self.human as i32
        {
            line.push_str("analysis: the bot's last move gave a win away. ");
        }
        let who = if self.human_to_move() {
            "you"
        } else {
            "the bot"
        };
        if self.state.mover_wins {
            line.push_str(&format!("analysis: {who} to move, and {who} can win."));
        } else {
            line.push_str(&format!(
                "analysis: {who} to move, and {who} lose{} against perfect play.",
                if who == "you" { "" } else { "s" }
            ));
        }
        Some(line)
    }

    fn winning_moves(&mut self) -> Result<Vec<Move>, RemotePlayError> {
        Ok(self
            .state
            .winning_moves
            .iter()
            .filter_map(wire_move)
            .collect())
    }

    fn bot_move(&mut self) -> Result<Option<Move>, RemotePlayError> {
        let ply = self.state.ply;
        loop {
            match self.next_event()? {
                PlayEvent::State(s) if s.ply == ply + 1 => return Ok(Some(self.moved(&s)?.0)),
                // Resumed at the same position: the bot moves again.
                PlayEvent::State(s) if s.ply == ply => {}
                PlayEvent::Over(over) => {
                    self.over(&over);
                    return Ok(None);
                }
                other => {
                    return Err(ClientError::Protocol(format!(
                        "waiting for the bot's move at ply {ply}, got {other:?}"
                    ))
                    .into());
                }
            }
        }
    }

    fn submit(&mut self, side: Side, take: u64) -> Result<Answer, RemotePlayError> {
        let ply = self.state.ply;
        self.send_move(ply, side, take);
        loop {
            match self.next_event()? {
                PlayEvent::State(s) if s.ply == ply + 1 => {
                    let (mv, blunder) = self.moved(&s)?;
                    return Ok(Answer::Played { mv, blunder });
                }
                // Resumed before the move was answered: send it again.
                PlayEvent::State(s) if s.ply == ply => self.send_move(ply, side, take),
                PlayEvent::Rejected(r) => {
                    return Ok(Answer::Refused(rejection(&r, &self.state, side, take)));
                }
                PlayEvent::Over(over) => {
                    self.over(&over);
                    return Ok(Answer::Over);
                }
                PlayEvent::State(s) => {
                    return Err(ClientError::Protocol(format!(
                        "a move at ply {ply} was answered with the state at ply {}",
                        s.ply
                    ))
                    .into());
                }
            }
        }
    }

    fn resign(&mut self) -> Result<(), RemotePlayError> {
        let _ = self.runtime.block_on(self.session.resign());
        // The GameOver that follows, if it comes; the game is left anyway.
        while let Ok(Some(event)) = self.runtime.block_on(self.session.next_event()) {
            if let PlayEvent::Over(over) = event {
                self.over(&over);
                break;
            }
        }
        Ok(())
    }
}
