//! Play sessions: one whole game per `Play` stream (docs/play.md).
//!
//! [`Client::play`] opens a stream with a [`GameSpec`] (sent as
//! `StartGame`, the row packed in `piles_le`), [`Client::resume_play`]
//! with a `state_token` and the original row (`ResumeGame`, on whichever
//! replica the channel picks). A [`PlaySession`] sends moves
//! ([`PlaySession::submit`]) and resignation, and yields the server's
//! [`PlayEvent`]s in order until the game is over.

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;

use super::calls::Client;
use super::error::ClientError;
use super::request::packed;
use crate::core::{Move, Side, Variant};
use crate::wire::pb;

/// Requests the client may queue before the server reads them.
const QUEUE: usize = 16;

/// A seat at the table (`pb::Seat` without "unspecified").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seat {
    /// Moves at even plies.
    First,
    /// Moves at odd plies.
    Second,
    /// The client submits every move; the server only referees.
    Both,
    /// Bot against bot.
    None,
}

impl From<Seat> for pb::Seat {
    fn from(seat: Seat) -> pb::Seat {
        match seat {
            Seat::First => pb::Seat::First,
            Seat::Second => pb::Seat::Second,
            Seat::Both => pb::Seat::Both,
            Seat::None => pb::Seat::None,
        }
    }
}

/// A game to start.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSpec {
    /// The row, left to right.
    pub piles: Vec<u64>,
    pub variant: Variant,
    /// The client's seat.
    pub seat: Seat,
    /// The bot's strength in `[0, 1]`; `None`: the server's default (1).
    pub strength: Option<f64>,
    /// Seeds the bot's random choices.
    pub seed: u64,
    /// Per-move timeout in ms; 0: the server's limit.
    pub move_timeout_ms: u32,
    /// Ask for `mover_wins`, `winning_moves` and `blunder`.
    pub analysis: bool,
}

impl GameSpec {
    /// A game on `piles` (two-ends, client first, perfect bot, seed 0, no
    /// analysis).
    pub fn new(piles: Vec<u64>) -> GameSpec {
        GameSpec {
            piles,
            variant: Variant::TwoEnds,
            seat: Seat::First,
            strength: None,
            seed: 0,
            move_timeout_ms: 0,
            analysis: false,
        }
    }

    /// The `StartGame` message (the row in `piles_le`).
    pub fn to_start(&self) -> pb::StartGame {
        let (piles_le, piles_le_width) = packed(&self.piles);
        pb::StartGame {
            piles: Vec::new(),
            piles_le: piles_le.to_vec(),
            piles_le_width,
            variant: pb::Variant::from(self.variant) as i32,
            client_seat: pb::Seat::from(self.seat) as i32,
            strength: self.strength,
            seed: self.seed,
            move_timeout_ms: self.move_timeout_ms,
            analysis: self.analysis,
        }
    }
}

/// The `ResumeGame` message continuing from `state_token` on `piles`, the
/// game's original row.
pub fn resume_request(state_token: &[u8], piles: &[u64]) -> pb::ResumeGame {
    let (piles_le, piles_le_width) = packed(piles);
    pb::ResumeGame {
        state_token: state_token.to_vec(),
        piles: Vec::new(),
        piles_le: piles_le.to_vec(),
        piles_le_width,
    }
}

/// One event of a game, as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayEvent {
    /// The position after a start, a resume or an accepted move.
    State(pb::GameState),
    /// A refused move; the game is unchanged.
    Rejected(pb::MoveRejected),
    /// The end; the stream ends after it.
    Over(pb::GameOver),
}

/// An open game: send with [`submit`](PlaySession::submit) and
/// [`resign`](PlaySession::resign), read with
/// [`next_event`](PlaySession::next_event).
#[derive(Debug)]
pub struct PlaySession {
    requests: mpsc::Sender<pb::PlayRequest>,
    events: Streaming<pb::PlayEvent>,
}

impl PlaySession {
    async fn send(&self, action: pb::play_request::Action) -> Result<(), ClientError> {
        self.requests
            .send(pb::PlayRequest {
                action: Some(action),
            })
            .await
            .map_err(|_| ClientError::Protocol("the Play stream is closed".into()))
    }

    /// Submits a move at `ply` (the moves played before it).
    pub async fn submit(&self, ply: u64, side: Side, take: u64) -> Result<(), ClientError> {
        let mv = pb::Move {
            side: pb::Side::from(side) as i32,
            take,
            remaining: 0,
            remoteness_after: None,
        };
        self.submit_raw(ply, mv).await
    }

    /// Submits a move as it is on the wire (any side number, for tests of
    /// the referee).
    pub async fn submit_raw(&self, ply: u64, mv: pb::Move) -> Result<(), ClientError> {
        self.send(pb::play_request::Action::Move(pb::SubmitMove {
            ply,
            r#move: Some(mv),
        }))
        .await
    }

    /// Gives up: the other seat wins (a `GameOver` follows).
    pub async fn resign(&self) -> Result<(), ClientError> {
        self.send(pb::play_request::Action::Resign(pb::Resign {}))
            .await
    }

    /// The next event; `None` when the stream ended (after `Over`, or
    /// early). A failed stream is [`ClientError::Status`].
    pub async fn next_event(&mut self) -> Result<Option<PlayEvent>, ClientError> {
        use pb::play_event::Event;
        while let Some(event) = self.events.message().await? {
            match event.event {
                Some(Event::State(s)) => return Ok(Some(PlayEvent::State(s))),
                Some(Event::Rejected(r)) => return Ok(Some(PlayEvent::Rejected(r))),
                Some(Event::Over(o)) => return Ok(Some(PlayEvent::Over(o))),
                // An event of a newer server: skipped.
                None => {}
            }
        }
        Ok(None)
    }
}

impl Client {
    /// Opens a Play stream whose first message is `first`. Opening goes
    /// through the client's resends (a stream that raced a GOAWAY, or a
    /// replica that was gone, never reached a server: a fresh stream with
    /// the same first message is opened), like every other call.
    async fn open_play(
        &mut self,
        first: pb::play_request::Action,
    ) -> Result<PlaySession, ClientError> {
        let first = pb::PlayRequest {
            action: Some(first),
        };
        let (requests, events) = self
            .with_resends(&first, |mut c, first| {
                let (tx, rx) = mpsc::channel(QUEUE);
                let outgoing =
                    futures::stream::once(std::future::ready(first)).chain(ReceiverStream::new(rx));
                async move { Ok((tx, c.play(outgoing).await?.into_inner())) }
            })
            .await?;
        Ok(PlaySession { requests, events })
    }

    /// Starts the game `spec` on a new Play stream; the first event is
    /// its first `GameState`.
    pub async fn play(&mut self, spec: &GameSpec) -> Result<PlaySession, ClientError> {
        self.open_play(pb::play_request::Action::Start(spec.to_start()))
            .await
    }

    /// Continues a game from a `GameState.state_token` on a new Play
    /// stream; `piles` is the original row. The first event is the
    /// `GameState` of the token.
    pub async fn resume_play(
        &mut self,
        state_token: &[u8],
        piles: &[u64],
    ) -> Result<PlaySession, ClientError> {
        self.open_play(pb::play_request::Action::Resume(resume_request(
            state_token,
            piles,
        )))
        .await
    }
}

/// The move of a `GameState.last_move` or a winning move, if well formed.
pub fn wire_move(m: &pb::Move) -> Option<Move> {
    Move::try_from(m).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_packs_the_row() {
        let spec = GameSpec {
            seat: Seat::Second,
            strength: Some(0.5),
            analysis: true,
            ..GameSpec::new(vec![3, 1, 300])
        };
        let start = spec.to_start();
        assert!(start.piles.is_empty());
        assert_eq!(start.piles_le_width, 2);
        assert_eq!(start.client_seat, pb::Seat::Second as i32);
        assert_eq!(start.strength, Some(0.5));
        assert!(start.analysis);
        let resume = resume_request(b"tok", &[7, 8]);
        assert_eq!(resume.state_token, b"tok");
        assert_eq!(resume.piles_le, vec![7, 8]);
        assert_eq!(resume.piles_le_width, 1);
    }
}
