//! The Play RPC against a real server on loopback: every small row against
//! the exhaustive solver (the bot never misses a win, the analysis and the
//! blunder flags are the truth, a client playing the winning moves wins),
//! every reject reason, timeouts, resignations, the seats, resuming on a
//! second server with the same key (and refusing other keys, altered tokens
//! and other rows), the session limit, many concurrent games, a vanished
//! client, the row cache, malformed first messages.

use crate::common;

use std::collections::HashSet;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::core::exhaustive::{Exhaustive, after, all_rows};
use stonegame::core::moves::legal_moves;
use stonegame::core::{Move, Side, Variant};
use stonegame::service::pb;
use stonegame::service::pb::play_event::Event;
use stonegame::service::pb::play_request::Action;
use stonegame::service::pb::stone_game_client::StoneGameClient;
use stonegame::service::{RunningServer, config::Config};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};

const KEY: &str = "test-key-0123456789abcdef0123456789abcdef";

/// One Play stream: what the test sends and what the server answers.
struct Stream {
    tx: Option<mpsc::Sender<pb::PlayRequest>>,
    rx: Streaming<pb::PlayEvent>,
}

impl Stream {
    /// Opens a stream whose first message is `first`; the call's error if
    /// the server refused the stream at once.
    async fn open(client: &mut StoneGameClient<Channel>, first: Action) -> Result<Stream, Status> {
        let (tx, rx) = mpsc::channel(64);
        tx.send(pb::PlayRequest {
            action: Some(first),
        })
        .await
        .unwrap();
        let response = client.play(ReceiverStream::new(rx)).await?;
        Ok(Stream {
            tx: Some(tx),
            rx: response.into_inner(),
        })
    }

    async fn send(&self, action: Action) {
        // The server may have ended the stream already: not an error here.
        let _ = self
            .tx
            .as_ref()
            .expect("not half-closed")
            .send(pb::PlayRequest {
                action: Some(action),
            })
            .await;
    }

    async fn submit(&self, ply: u64, side: pb::Side, take: u64) {
        self.send(Action::Move(pb::SubmitMove {
            ply,
            r#move: Some(pb::Move {
                side: side as i32,
                take,
                remaining: 0,
                remoteness_after: None,
            }),
        }))
        .await;
    }

    /// The next event; `Ok(None)` when the stream ended OK.
    async fn next(&mut self) -> Result<Option<Event>, Status> {
        Ok(self.rx.message().await?.map(|e| e.event.expect("an event")))
    }

    async fn state(&mut self) -> pb::GameState {
        match self.next().await {
            Ok(Some(Event::State(s))) => s,
            other => panic!("expected a GameState, got {other:?}"),
        }
    }

    async fn rejected(&mut self) -> pb::MoveRejected {
        match self.next().await {
            Ok(Some(Event::Rejected(r))) => r,
            other => panic!("expected a MoveRejected, got {other:?}"),
        }
    }

    /// The GameOver, then the end of the stream.
    async fn over(&mut self) -> pb::GameOver {
        let over = match self.next().await {
            Ok(Some(Event::Over(o))) => o,
            other => panic!("expected a GameOver, got {other:?}"),
        };
        assert!(
            matches!(self.next().await, Ok(None)),
            "the stream ends OK after GameOver"
        );
        over
    }
}

/// The status a refused stream ends with (at the call or as its first item).
async fn refusal(client: &mut StoneGameClient<Channel>, first: Action) -> Status {
    match Stream::open(client, first).await {
        Err(status) => status,
        Ok(mut stream) => match stream.next().await {
            Err(status) => status,
            other => panic!("expected an error, got {other:?}"),
        },
    }
}

fn start(piles: &[u64], variant: Variant, seat: pb::Seat) -> pb::StartGame {
    pb::StartGame {
        piles: piles.to_vec(),
        variant: pb::Variant::from(variant) as i32,
        client_seat: seat as i32,
        analysis: true,
        ..Default::default()
    }
}

fn with_key(key: &'static str) -> impl FnOnce(&mut Config) {
    move |c| c.play.token_key = Some(key.into())
}

async fn server_and_client(
    f: impl FnOnce(&mut Config),
) -> (RunningServer, StoneGameClient<Channel>) {
    let server = common::server(f).await;
    let client = common::client(&server).await;
    (server, client)
}

fn mv(m: &pb::Move) -> Move {
    Move::try_from(m).expect("a side")
}

/// The live row of a GameState on `row`.
fn live(row: &[u64], s: &pb::GameState) -> Vec<u64> {
    if s.left_size == 0 {
        return Vec::new();
    }
    let mut out = row[s.first_pile as usize..=s.last_pile as usize].to_vec();
    out[0] = s.left_size;
    let len = out.len();
    out[len - 1] = s.right_size;
    out
}

fn set(moves: impl IntoIterator<Item = Move>) -> HashSet<(Side, u64, u64)> {
    moves
        .into_iter()
        .map(|m| (m.side, m.take, m.remaining))
        .collect()
}

/// Checks a GameState's analysis against the exhaustive solver and returns
/// the live row.
fn check_analysis(truth: &mut Exhaustive, row: &[u64], s: &pb::GameState) -> Vec<u64> {
    let now = live(row, s);
    assert_eq!(s.mover_wins, truth.wins(&now), "{row:?} at {now:?}");
    let got = set(s.winning_moves.iter().map(mv));
    assert_eq!(got, set(truth.winning_moves(&now)), "{row:?} at {now:?}");
    now
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_rows_match_the_exhaustive_solver() {
    let (server, mut client) = server_and_client(|_| {}).await;
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut games = 0;
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        let mut truth = Exhaustive::new(variant);
        for row in all_rows(4, 3) {
            // 1. Bot against bot at strength 1: it never misses a win, and
            // every state's analysis is the truth.
            let mut s = Stream::open(
                &mut client,
                Action::Start(start(&row, variant, pb::Seat::None)),
            )
            .await
            .unwrap();
            let mut state = s.state().await;
            loop {
                let before = check_analysis(&mut truth, &row, &state);
                if before.is_empty() {
                    break;
                }
                let next = s.state().await;
                let last = next.last_move.clone().expect("a last move");
                let m = mv(last.r#move.as_ref().unwrap());
                if truth.wins(&before) {
                    assert!(
                        !truth.wins(&after(&before, m)),
                        "{row:?}: the bot missed a win at {before:?}"
                    );
                }
                assert!(!last.blunder);
                state = next;
            }
            let over = s.over().await;
            assert_eq!(over.reason, pb::EndReason::NoMoves as i32);
            assert_eq!(over.plies, state.ply);

            // 2. The client plays the winning seat and a winning move every
            // time: it wins.
            let first_wins = truth.wins(&row);
            let seat = if first_wins {
                pb::Seat::First
            } else {
                pb::Seat::Second
            };
            let mut s = Stream::open(&mut client, Action::Start(start(&row, variant, seat)))
                .await
                .unwrap();
            loop {
                let state = s.state().await;
                let now = live(&row, &state);
                if now.is_empty() {
                    break;
                }
                if state.to_move == seat as i32 {
                    let m = truth.winning_moves(&now)[0];
                    s.submit(state.ply, pb::Side::from(m.side), m.take).await;
                }
            }
            let over = s.over().await;
            assert_eq!(over.winner, seat as i32, "{row:?} {variant}");

            // 3. The referee (SEAT_BOTH) with random moves: every blunder
            // flag is the truth.
            let mut s = Stream::open(
                &mut client,
                Action::Start(start(&row, variant, pb::Seat::Both)),
            )
            .await
            .unwrap();
            let mut state = s.state().await;
            loop {
                let now = check_analysis(&mut truth, &row, &state);
                if now.is_empty() {
                    break;
                }
                let moves = legal_moves(&now, variant);
                let m = moves[rng.random_range(0..moves.len())];
                s.submit(state.ply, pb::Side::from(m.side), m.take).await;
                state = s.state().await;
                let last = state.last_move.clone().unwrap();
                assert_eq!(mv(last.r#move.as_ref().unwrap()), m);
                let blunder = truth.wins(&now) && truth.wins(&after(&now, m));
                assert_eq!(last.blunder, blunder, "{row:?} at {now:?}: {m:?}");
                assert_eq!(
                    last.by,
                    if state.ply % 2 == 1 {
                        pb::Seat::First
                    } else {
                        pb::Seat::Second
                    } as i32
                );
            }
            s.over().await;
            games += 3;
        }
    }
    assert_eq!(games, 2 * 3 * (3 + 9 + 27 + 81));
    assert_eq!(server.metrics.play_games(), games);
    common::eventually("every session closed", || {
        server.metrics.play_sessions() == 0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reject_reason_then_too_many_illegal_moves() {
    let (server, mut client) =
        server_and_client(|c| c.limits.play_max_illegal_moves = 6.try_into().unwrap()).await;
    let row = [3, 1, 9, 4];
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::First)),
    )
    .await
    .unwrap();
    let state = s.state().await;
    assert_eq!((state.ply, state.to_move), (0, pb::Seat::First as i32));
    assert!(state.last_move.is_none());
    assert!(!state.state_token.is_empty() && state.state_token.len() <= 128);
    let cases: [(u64, pb::Side, u64, pb::RejectReason, &[&str]); 6] = [
        (
            1,
            pb::Side::Left,
            1,
            pb::RejectReason::NotYourTurn,
            &["ply 1", "`L 1`"],
        ),
        (
            2,
            pb::Side::Left,
            1,
            pb::RejectReason::StalePly,
            &["ply 2", "at ply 0"],
        ),
        (
            0,
            pb::Side::Unspecified,
            1,
            pb::RejectReason::InvalidSide,
            &["ply 0", "side"],
        ),
        (
            0,
            pb::Side::Left,
            0,
            pb::RejectReason::TakeZero,
            &["ply 0", "`L 0`"],
        ),
        (
            0,
            pb::Side::Left,
            4,
            pb::RejectReason::TakeTooMany,
            &["ply 0", "`L 4`", "pile 0", "holds 3"],
        ),
        (
            0,
            pb::Side::Right,
            5,
            pb::RejectReason::TakeTooMany,
            &["`R 5`", "pile 3", "holds 4"],
        ),
    ];
    for (ply, side, take, reason, words) in cases {
        s.submit(ply, side, take).await;
        let r = s.rejected().await;
        assert_eq!(r.reason, reason as i32, "{}", r.message);
        assert_eq!(r.expected_ply, 0);
        for w in words {
            assert!(r.message.contains(w), "{w:?} not in {:?}", r.message);
        }
    }
    // A legal move still goes through: the rejected ones changed nothing.
    s.submit(0, pb::Side::Right, 1).await;
    let after_move = s.state().await;
    assert_eq!((after_move.ply, after_move.right_size), (1, 3));
    let bot = s.state().await;
    assert_eq!(bot.ply, 2);
    // The seventh illegal move is one too many (the limit is 6).
    s.submit(2, pb::Side::Left, 0).await;
    s.rejected().await;
    let over = s.over().await;
    assert_eq!(over.reason, pb::EndReason::TooManyIllegalMoves as i32);
    assert_eq!(over.winner, pb::Seat::Second as i32);
    assert_eq!(over.plies, 2);

    // A right move in the leftmost variant.
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::Leftmost, pb::Seat::First)),
    )
    .await
    .unwrap();
    s.state().await;
    s.submit(0, pb::Side::Right, 1).await;
    let r = s.rejected().await;
    assert_eq!(
        r.reason,
        pb::RejectReason::InvalidSide as i32,
        "{}",
        r.message
    );
    assert!(r.message.contains("leftmost"), "{}", r.message);
    drop(s);
    let text = server.state.encode_metrics();
    for line in [
        "stonegame_play_rejected_moves_total{reason=\"take_too_many\"} 2",
        "stonegame_play_rejected_moves_total{reason=\"invalid_side\"} 2",
        "stonegame_play_rejected_moves_total{reason=\"take_zero\"} 2",
        "stonegame_play_games_ended_total{reason=\"too_many_illegal_moves\"} 1",
    ] {
        assert!(text.contains(line), "{line} missing");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_client_loses_on_time() {
    let (_server, mut client) = server_and_client(|_| {}).await;
    let mut game = start(&[2, 2], Variant::TwoEnds, pb::Seat::Second);
    game.move_timeout_ms = 300;
    let mut s = Stream::open(&mut client, Action::Start(game))
        .await
        .unwrap();
    assert_eq!(s.state().await.ply, 0);
    assert_eq!(s.state().await.ply, 1, "the bot moves at once");
    let over = s.over().await;
    assert_eq!(over.reason, pb::EndReason::Timeout as i32);
    assert_eq!((over.winner, over.plies), (pb::Seat::First as i32, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resignations_and_half_closes() {
    let (server, mut client) = server_and_client(|_| {}).await;
    let row = [5, 5, 5];
    // The client's seat resigns, even on the bot's turn.
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::Second)),
    )
    .await
    .unwrap();
    s.state().await;
    s.state().await;
    s.send(Action::Resign(pb::Resign {})).await;
    let over = s.over().await;
    assert_eq!(
        (over.winner, over.reason),
        (pb::Seat::First as i32, pb::EndReason::Resigned as i32)
    );
    // SEAT_BOTH: the side to move resigns.
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::Both)),
    )
    .await
    .unwrap();
    s.state().await;
    s.submit(0, pb::Side::Left, 1).await;
    assert_eq!(s.state().await.to_move, pb::Seat::Second as i32);
    s.send(Action::Resign(pb::Resign {})).await;
    let over = s.over().await;
    assert_eq!((over.winner, over.plies), (pb::Seat::First as i32, 1));
    // A half-close at the client's turn: it resigns, the stream ends OK.
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::First)),
    )
    .await
    .unwrap();
    s.state().await;
    s.tx = None;
    let over = s.over().await;
    assert_eq!(
        (over.winner, over.reason),
        (pb::Seat::Second as i32, pb::EndReason::Resigned as i32)
    );
    // SEAT_NONE with the client's side closed at once (as grpcurl does):
    // the bots play to the end.
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::None)),
    )
    .await
    .unwrap();
    s.tx = None;
    let over = loop {
        match s.next().await.unwrap().unwrap() {
            Event::Over(o) => break o,
            Event::State(_) => {}
            Event::Rejected(r) => panic!("{r:?}"),
        }
    };
    assert_eq!(over.reason, pb::EndReason::NoMoves as i32);
    let first_wins = Exhaustive::new(Variant::TwoEnds).wins(&row);
    let winner = if first_wins {
        pb::Seat::First
    } else {
        pb::Seat::Second
    };
    assert_eq!(over.winner, winner as i32, "the bots play perfectly");
    common::eventually("sessions closed", || server.metrics.play_sessions() == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_first_messages_are_invalid_arguments() {
    let (server, mut client) =
        server_and_client(|c| c.limits.max_piles = 10.try_into().unwrap()).await;
    let ok = start(&[1, 2], Variant::TwoEnds, pb::Seat::First);
    let cases: Vec<(Action, Code, &str)> = vec![
        (
            Action::Move(pb::SubmitMove::default()),
            Code::InvalidArgument,
            "must be `start`",
        ),
        (
            Action::Resign(pb::Resign {}),
            Code::InvalidArgument,
            "not a resignation",
        ),
        (
            Action::Start(pb::StartGame {
                piles: vec![1, 0, 2],
                ..ok.clone()
            }),
            Code::InvalidArgument,
            "piles: pile 2 is 0",
        ),
        (
            Action::Start(pb::StartGame {
                piles: vec![],
                piles_le: vec![1, 0, 0],
                piles_le_width: 2,
                ..ok.clone()
            }),
            Code::InvalidArgument,
            "piles_le: 3 bytes is not a multiple of 2",
        ),
        (
            Action::Start(pb::StartGame {
                piles: vec![],
                ..ok.clone()
            }),
            Code::InvalidArgument,
            "empty",
        ),
        (
            Action::Start(pb::StartGame {
                piles: vec![1; 11],
                ..ok.clone()
            }),
            Code::ResourceExhausted,
            "11 piles",
        ),
        (
            Action::Start(pb::StartGame {
                strength: Some(f64::NAN),
                ..ok.clone()
            }),
            Code::InvalidArgument,
            "strength",
        ),
        (
            Action::Start(pb::StartGame {
                strength: Some(1.5),
                ..ok.clone()
            }),
            Code::InvalidArgument,
            "strength: 1.5",
        ),
        (
            Action::Start(pb::StartGame {
                client_seat: 9,
                ..ok.clone()
            }),
            Code::InvalidArgument,
            "client_seat: 9",
        ),
        (
            Action::Start(pb::StartGame {
                variant: 7,
                ..ok.clone()
            }),
            Code::InvalidArgument,
            "variant: 7",
        ),
    ];
    for (first, code, words) in cases {
        let status = refusal(&mut client, first.clone()).await;
        assert_eq!(status.code(), code, "{first:?}: {status:?}");
        assert!(
            status.message().contains(words),
            "{words:?} not in {:?}",
            status.message()
        );
    }
    // A stream closed before any message.
    let (tx, rx) = mpsc::channel::<pb::PlayRequest>(1);
    drop(tx);
    let mut events = client
        .play(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let status = events.message().await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    // A second start in a stream.
    let mut s = Stream::open(&mut client, Action::Start(ok.clone()))
        .await
        .unwrap();
    s.state().await;
    s.send(Action::Start(ok)).await;
    let status = s.next().await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("one game"), "{status:?}");
    common::eventually("sessions closed", || server.metrics.play_sessions() == 0).await;
}

/// The moves of a bot-against-bot game from `first` on, until its end.
async fn moves_until_over(s: &mut Stream) -> Vec<(u64, Move)> {
    let mut out = Vec::new();
    loop {
        match s.next().await.unwrap() {
            Some(Event::State(state)) => {
                if let Some(last) = state.last_move {
                    out.push((state.ply, mv(last.r#move.as_ref().unwrap())));
                }
            }
            Some(Event::Over(_)) => return out,
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_on_a_second_server_plays_the_same_moves() {
    // Whole bot-against-bot games on a Play stream whose client sends
    // nothing: on 1,500 piles, with the bot's tempo solved at every optimal
    // move (docs/play.md "Tempo"), one lasts longer than the default
    // transport.request_body_timeout (10 s), which would cut it.
    let patient = |c: &mut Config| {
        with_key(KEY)(c);
        c.transport.request_body_timeout = Duration::from_secs(300);
    };
    let (_a, mut a) = server_and_client(patient).await;
    let (_b, mut b) = server_and_client(patient).await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // A short row and one longer than the full-table limit (kept layers,
    // cones rebuilt on resume).
    let rows: Vec<Vec<u64>> = vec![
        (0..40).map(|_| rng.random_range(1..=9)).collect(),
        (0..1500).map(|_| rng.random_range(1..=2)).collect(),
    ];
    for row in rows {
        for variant in [Variant::TwoEnds, Variant::Leftmost] {
            let game = pb::StartGame {
                strength: Some(0.6),
                seed: 77,
                analysis: false,
                ..start(&row, variant, pb::Seat::None)
            };
            let mut whole = Stream::open(&mut a, Action::Start(game.clone()))
                .await
                .unwrap();
            let all = moves_until_over(&mut whole).await;
            assert!(all.len() > 10);
            // The same game again, cut off after a third of its moves.
            let cut = all.len() as u64 / 3;
            let mut part = Stream::open(&mut a, Action::Start(game)).await.unwrap();
            let token = loop {
                let s = part.state().await;
                if s.ply == cut {
                    break s.state_token;
                }
            };
            drop(part);
            let resume = pb::ResumeGame {
                state_token: token.clone(),
                piles: row.clone(),
                ..Default::default()
            };
            let mut resumed = Stream::open(&mut b, Action::Resume(resume.clone()))
                .await
                .unwrap();
            let first = resumed.state().await;
            assert_eq!(first.ply, cut);
            assert!(first.last_move.is_none());
            let rest = moves_until_over(&mut resumed).await;
            assert_eq!(rest, all[cut as usize..], "{variant} n = {}", row.len());

            // The row in piles_le (4-byte words) is the same row.
            let le: Vec<u8> = row.iter().flat_map(|&p| (p as u32).to_le_bytes()).collect();
            let mut s = Stream::open(
                &mut b,
                Action::Resume(pb::ResumeGame {
                    state_token: token.clone(),
                    piles: vec![],
                    piles_le: le,
                    piles_le_width: 4,
                }),
            )
            .await
            .unwrap();
            assert_eq!(s.state().await.ply, cut);
            drop(s);

            // Another row, an altered token: INVALID_ARGUMENT.
            let mut other = row.clone();
            other[row.len() / 2] += 1;
            let status = refusal(
                &mut b,
                Action::Resume(pb::ResumeGame {
                    piles: other,
                    ..resume.clone()
                }),
            )
            .await;
            assert_eq!(status.code(), Code::InvalidArgument);
            assert!(status.message().contains("SHA-256 differs"), "{status:?}");
            for i in [0, 10, 50, token.len() - 1] {
                let mut bad = token.clone();
                bad[i] ^= 0x40;
                let status = refusal(
                    &mut b,
                    Action::Resume(pb::ResumeGame {
                        state_token: bad,
                        ..resume.clone()
                    }),
                )
                .await;
                assert_eq!(status.code(), Code::InvalidArgument, "byte {i}");
                assert!(status.message().contains("signature"), "{status:?}");
            }
        }
    }
    // A server with another key, or a random one, refuses the tokens.
    for key in ["another-key-0123456789abcdef0123456789abcdef", ""] {
        let (_c, mut c) = server_and_client(with_key(key)).await;
        let mut s = Stream::open(
            &mut a,
            Action::Start(start(&[4, 2, 7], Variant::TwoEnds, pb::Seat::First)),
        )
        .await
        .unwrap();
        let token = s.state().await.state_token;
        let status = refusal(
            &mut c,
            Action::Resume(pb::ResumeGame {
                state_token: token,
                piles: vec![4, 2, 7],
                ..Default::default()
            }),
        )
        .await;
        assert_eq!(status.code(), Code::InvalidArgument, "{key:?}");
        assert!(
            status.message().contains("another play.token_key"),
            "{status:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_client_game_keeps_its_seat_and_the_bots_choices() {
    let (_a, mut a) = server_and_client(with_key(KEY)).await;
    let (_b, mut b) = server_and_client(with_key(KEY)).await;
    let row = [7, 3, 8, 2, 9, 4, 6];
    let game = pb::StartGame {
        strength: Some(0.3),
        seed: 5,
        ..start(&row, Variant::TwoEnds, pb::Seat::Second)
    };
    // The client always takes one stone from the left.
    async fn play(s: &mut Stream, mut state: pb::GameState) -> Vec<(u64, Move)> {
        let mut out = Vec::new();
        loop {
            if let Some(last) = &state.last_move {
                out.push((state.ply, mv(last.r#move.as_ref().unwrap())));
            }
            if state.left_size == 0 {
                s.over().await;
                return out;
            }
            if state.to_move == pb::Seat::Second as i32 {
                s.submit(state.ply, pb::Side::Left, 1).await;
            }
            state = s.state().await;
        }
    }
    let mut whole = Stream::open(&mut a, Action::Start(game.clone()))
        .await
        .unwrap();
    let first = whole.state().await;
    let all = play(&mut whole, first).await;
    let mut part = Stream::open(&mut a, Action::Start(game)).await.unwrap();
    let (mut state, mut seen) = (part.state().await, 0);
    while state.ply < 5 {
        if state.to_move == pb::Seat::Second as i32 {
            part.submit(state.ply, pb::Side::Left, 1).await;
        }
        state = part.state().await;
        seen += 1;
    }
    assert!(seen >= 5);
    drop(part);
    let mut resumed = Stream::open(
        &mut b,
        Action::Resume(pb::ResumeGame {
            state_token: state.state_token.clone(),
            piles: row.to_vec(),
            ..Default::default()
        }),
    )
    .await
    .unwrap();
    let first = resumed.state().await;
    assert_eq!(first.ply, 5);
    // The same position, seat, bot and key: the same token.
    assert_eq!(first.state_token, state.state_token);
    let rest = play(&mut resumed, first).await;
    let from = all.iter().position(|(ply, _)| *ply == 6).unwrap();
    assert_eq!(rest, all[from..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_limit_refuses_with_a_retry_hint() {
    let (server, mut client) =
        server_and_client(|c| c.limits.max_play_sessions = 2.try_into().unwrap()).await;
    let game = start(&[3, 4], Variant::TwoEnds, pb::Seat::First);
    let mut one = Stream::open(&mut client, Action::Start(game.clone()))
        .await
        .unwrap();
    let mut two = Stream::open(&mut client, Action::Start(game.clone()))
        .await
        .unwrap();
    one.state().await;
    two.state().await;
    let status = refusal(&mut client, Action::Start(game.clone())).await;
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("play sessions"), "{status:?}");
    assert!(status.metadata().get("retry-after-ms").is_some());
    assert!(
        server
            .state
            .encode_metrics()
            .contains("stonegame_admission_rejected_total{reason=\"too_many_play_sessions\"} 1")
    );
    // A game that ends frees its slot.
    one.send(Action::Resign(pb::Resign {})).await;
    one.over().await;
    common::eventually("a slot is free", || {
        server.state.play.sessions.in_flight() == 1
    })
    .await;
    let mut three = Stream::open(&mut client, Action::Start(game))
        .await
        .unwrap();
    three.state().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vanished_client_frees_everything() {
    let (server, mut client) = server_and_client(|c| c.play.row_cache_bytes = 0).await;
    let row: Vec<u64> = (1..=600).collect();
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::First)),
    )
    .await
    .unwrap();
    s.state().await;
    let state = &server.state;
    assert_eq!(server.metrics.play_sessions(), 1);
    assert_eq!(state.play.sessions.in_flight(), 1);
    assert!(
        state.piles_budget.in_flight() >= 600,
        "the row and the game hold memory"
    );
    // The client drops its stream (both halves; the server may see the
    // half-close first, a resignation, or the reset first).
    drop(s);
    common::eventually("the session is gone", || {
        server.metrics.play_sessions() == 0
            && state.play.sessions.in_flight() == 0
            && state.piles_budget.in_flight() == 0
            && state.budget.in_flight() == 0
    })
    .await;
    assert_eq!(server.metrics.play_games_ended(), 1);
    // A client whose connection goes away mid-game: abandoned.
    let mut other = common::client(&server).await;
    let mut s = Stream::open(
        &mut other,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::First)),
    )
    .await
    .unwrap();
    s.state().await;
    assert_eq!(state.play.sessions.in_flight(), 1);
    drop((s, other));
    common::eventually("the second session is gone", || {
        server.metrics.play_games_ended() == 2
            && server.metrics.play_sessions() == 0
            && state.piles_budget.in_flight() == 0
    })
    .await;
    // A client that drops its stream sends the end of its side first: the
    // server ends the game as a resignation if it reads that before the
    // reset (nobody reads the GameOver), else as abandoned.
    let text = state.encode_metrics();
    let ended = |reason: &str| {
        metric(
            &text,
            &format!("stonegame_play_games_ended_total{{reason=\"{reason}\"}}"),
        )
    };
    assert_eq!(ended("abandoned") + ended("resigned"), 2, "{text}");
}

/// The contract's words on a row with no pile left: both sizes 0, and
/// both indices the pile emptied last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_game_state_has_no_pile_left() {
    let (_server, mut client) = server_and_client(|_| {}).await;
    // FIRST takes the left pile; the bot (SECOND) takes the right one.
    let mut s = Stream::open(
        &mut client,
        Action::Start(start(&[1, 3], Variant::TwoEnds, pb::Seat::First)),
    )
    .await
    .unwrap();
    s.state().await;
    s.submit(0, pb::Side::Left, 1).await;
    let after_client = s.state().await;
    assert_eq!(
        (after_client.first_pile, after_client.last_pile),
        (1, 1),
        "{after_client:?}"
    );
    let last = s.state().await;
    assert_eq!((last.left_size, last.right_size), (0, 0), "{last:?}");
    assert_eq!((last.first_pile, last.last_pile), (1, 1), "{last:?}");
    assert_eq!(s.over().await.reason, pb::EndReason::NoMoves as i32);
}

/// A client that leaves while its row is being swept: the sweep stops, the
/// game counts as abandoned (it was logged as refused and not counted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gone_during_the_sweep_is_an_abandoned_game() {
    let (server, mut client) = server_and_client(|c| c.play.row_cache_bytes = 0).await;
    // About 1.8 G cell updates: the sweep takes a second or more.
    let row: Vec<u64> = (0..60_000u64).map(|i| 1 + (i * 7919) % 1_000_003).collect();
    let s = Stream::open(
        &mut client,
        Action::Start(start(&row, Variant::TwoEnds, pb::Seat::First)),
    )
    .await
    .unwrap();
    let state = &server.state;
    common::eventually("the sweep runs", || state.budget.in_flight() > 0).await;
    drop(s);
    common::eventually("the session is gone", || {
        server.metrics.play_sessions() == 0
            && state.budget.in_flight() == 0
            && state.piles_budget.in_flight() == 0
    })
    .await;
    let text = state.encode_metrics();
    let series = "stonegame_play_games_ended_total{reason=\"abandoned\"}";
    assert_eq!(metric(&text, series), 1, "{text}");
}

/// The value of the series `series` in a scrape.
fn metric(text: &str, series: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("{series} missing"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_on_one_row_share_the_cached_row() {
    let (server, mut client) = server_and_client(|_| {}).await;
    let row: Vec<u64> = (0..1200).map(|i| 1 + i % 7).collect();
    for _ in 0..3 {
        let mut s = Stream::open(
            &mut client,
            Action::Start(start(&row, Variant::TwoEnds, pb::Seat::First)),
        )
        .await
        .unwrap();
        s.state().await;
        s.send(Action::Resign(pb::Resign {})).await;
        s.over().await;
    }
    assert_eq!(server.metrics.play_row_cache_misses(), 1);
    assert_eq!(server.metrics.play_row_cache_hits(), 2);
    let stats = server.state.play.cache.stats();
    assert_eq!(stats.entries, 1);
    assert!(stats.bytes >= 8 * 1200);
    // The cached row holds its memory in the piles budget until it is
    // evicted.
    assert!(
        server
            .state
            .encode_metrics()
            .contains("stonegame_play_row_cache_entries 1")
    );
    common::eventually("the sessions are gone", || {
        server.metrics.play_sessions() == 0
    })
    .await;
    assert!(server.state.piles_budget.in_flight() >= 1200);
    assert_eq!(server.state.play.cache.evict_idle(u64::MAX), stats.bytes);
    assert_eq!(server.state.piles_budget.in_flight(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_games() {
    let server = common::server(|_| {}).await;
    let mut tasks = Vec::new();
    for g in 0..64u64 {
        let mut client = common::client(&server).await;
        tasks.push(tokio::spawn(async move {
            let mut rng = ChaCha8Rng::seed_from_u64(g);
            let row: Vec<u64> = (0..20).map(|_| rng.random_range(1..=5)).collect();
            let game = pb::StartGame {
                strength: Some(0.5),
                seed: g,
                ..start(&row, Variant::TwoEnds, pb::Seat::First)
            };
            let mut s = Stream::open(&mut client, Action::Start(game))
                .await
                .unwrap();
            loop {
                match s.next().await.unwrap().unwrap() {
                    Event::State(state)
                        if state.left_size > 0 && state.to_move == pb::Seat::First as i32 =>
                    {
                        // Random legal moves.
                        let (side, pile) = if rng.random_bool(0.5) {
                            (pb::Side::Left, state.left_size)
                        } else {
                            (pb::Side::Right, state.right_size)
                        };
                        s.submit(state.ply, side, rng.random_range(1..=pile)).await;
                    }
                    Event::State(_) => {}
                    Event::Over(over) => return over.plies,
                    Event::Rejected(r) => panic!("{r:?}"),
                }
            }
        }));
    }
    for t in tasks {
        assert!(t.await.unwrap() >= 1);
    }
    assert_eq!(server.metrics.play_games_ended(), 64);
    common::eventually("every session closed", || {
        server.metrics.play_sessions() == 0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_timeouts_are_bounded_by_the_limit() {
    // A client asking for more than the limit gets the limit: here 200 ms.
    let (_server, mut client) =
        server_and_client(|c| c.limits.play_move_timeout = Duration::from_millis(200)).await;
    let mut game = start(&[1, 1], Variant::TwoEnds, pb::Seat::First);
    game.move_timeout_ms = u32::MAX;
    let mut s = Stream::open(&mut client, Action::Start(game))
        .await
        .unwrap();
    s.state().await;
    let over = tokio::time::timeout(Duration::from_secs(600), s.over())
        .await
        .unwrap();
    assert_eq!(over.reason, pb::EndReason::Timeout as i32);
}

/// Figures for docs/play.md (ignored by default; prints, asserts nothing
/// about time):
/// `cargo test --release --test it service_play::play_figures -- --ignored --nocapture`.
/// For n = 1,000 and 200,000 (random piles up to 10^9): the time to the
/// first GameState with the row swept and from the cache, the cached row's
/// bytes, the memory the game reserves, and the streamed moves per second
/// of a bot-against-bot game (strength 0.5, 20,000 moves) over loopback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn play_figures() {
    use std::time::Instant;
    let (server, mut client) = server_and_client(|_| {}).await;
    let state = &server.state;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for n in [1_000usize, 200_000] {
        let row: Vec<u64> = (0..n)
            .map(|_| rng.random_range(1..=1_000_000_000))
            .collect();
        let game = pb::StartGame {
            strength: Some(0.5),
            seed: 1,
            analysis: true,
            ..start(&row, Variant::TwoEnds, pb::Seat::None)
        };
        let mut firsts = Vec::new();
        for _ in 0..2 {
            let t = Instant::now();
            let mut s = Stream::open(&mut client, Action::Start(game.clone()))
                .await
                .unwrap();
            s.state().await;
            firsts.push(t.elapsed());
            let (cache, held) = (state.play.cache.stats(), state.piles_budget.in_flight());
            let t = Instant::now();
            let mut moves = 0u32;
            while moves < 20_000 {
                match s.next().await.unwrap() {
                    Some(Event::State(_)) => moves += 1,
                    _ => break,
                }
            }
            let per_move = t.elapsed() / moves.max(1);
            println!(
                "n = {n}: first GameState after {:?}; cache {} rows, {} bytes; piles budget held {} ({} bytes); {:?} per streamed move ({moves} moves)",
                firsts.last().unwrap(),
                cache.entries,
                cache.bytes,
                held,
                8 * held,
                per_move
            );
            drop(s);
        }
        println!(
            "n = {n}: hits {} misses {}",
            server.metrics.play_row_cache_hits(),
            server.metrics.play_row_cache_misses()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_deadline_ends_the_game_and_frees_it() {
    let (server, mut client) = server_and_client(|_| {}).await;
    let (tx, rx) = mpsc::channel(4);
    tx.send(pb::PlayRequest {
        action: Some(Action::Start(start(
            &[4, 5, 6],
            Variant::TwoEnds,
            pb::Seat::First,
        ))),
    })
    .await
    .unwrap();
    let mut request = tonic::Request::new(ReceiverStream::new(rx));
    request.set_timeout(Duration::from_millis(300));
    let mut events = client.play(request).await.unwrap().into_inner();
    assert!(matches!(
        events.message().await,
        Ok(Some(pb::PlayEvent {
            event: Some(Event::State(_))
        }))
    ));
    // The client never moves (the move timeout is 5 minutes): the
    // deadline ends the stream.
    let status = match events.message().await {
        Err(status) => status,
        Ok(Some(e)) => panic!("{e:?}"),
        Ok(None) => panic!("the stream ended OK"),
    };
    assert!(
        matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{status:?}"
    );
    common::eventually("the session is gone", || {
        server.metrics.play_sessions() == 0 && server.state.play.sessions.in_flight() == 0
    })
    .await;
    drop(tx);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_starts_on_one_new_row_sweep_it_once() {
    let server = common::server(|_| {}).await;
    let row: Vec<u64> = (0..3000).map(|i| 1 + (i * 7919) % 13).collect();
    let mut tasks = Vec::new();
    for _ in 0..6 {
        let mut client = common::client(&server).await;
        let row = row.clone();
        tasks.push(tokio::spawn(async move {
            let mut s = Stream::open(
                &mut client,
                Action::Start(start(&row, Variant::TwoEnds, pb::Seat::First)),
            )
            .await
            .unwrap();
            let state = s.state().await;
            s.send(Action::Resign(pb::Resign {})).await;
            s.over().await;
            state.state_token
        }));
    }
    let mut tokens = Vec::new();
    for t in tasks {
        tokens.push(t.await.unwrap());
    }
    // The same start: the same token, whichever game swept the row.
    assert!(tokens.iter().all(|t| *t == tokens[0]));
    assert_eq!(server.metrics.play_row_cache_misses(), 1);
    assert_eq!(server.metrics.play_row_cache_hits(), 5);
    assert_eq!(server.metrics.cases_completed(), 1, "one sweep");
}

/// The events of one PlayStep call, to the end of its stream.
async fn step(
    client: &mut StoneGameClient<Channel>,
    step: pb::play_step_request::Step,
) -> Result<Vec<Event>, Status> {
    let mut rx = client
        .play_step(pb::PlayStepRequest { step: Some(step) })
        .await?
        .into_inner();
    let mut out = Vec::new();
    while let Some(event) = rx.message().await? {
        out.push(event.event.expect("an event"));
    }
    Ok(out)
}

fn turn(row: &[u64], token: &[u8], action: pb::turn::Action) -> pb::play_step_request::Step {
    pb::play_step_request::Step::Turn(pb::Turn {
        state_token: token.to_vec(),
        piles: row.to_vec(),
        action: Some(action),
        ..Default::default()
    })
}

fn submit(ply: u64, side: Side, take: u64) -> pb::SubmitMove {
    pb::SubmitMove {
        ply,
        r#move: Some(pb::Move {
            side: pb::Side::from(side) as i32,
            take,
            remaining: 0,
            remoteness_after: None,
        }),
    }
}

/// The client's choices: mostly a random legal move, now and then an
/// illegal one (too many stones, or the right end in the leftmost game) so
/// rejections are compared too; at most 3 a game, under
/// `limits.play_max_illegal_moves` (a Play stream counts them, PlayStep
/// calls cannot).
struct Chooser {
    rng: ChaCha8Rng,
    illegal_left: u32,
}

impl Chooser {
    fn new(seed: u64) -> Chooser {
        Chooser {
            rng: ChaCha8Rng::seed_from_u64(seed),
            illegal_left: 3,
        }
    }

    fn choose(&mut self, variant: Variant, now: &[u64]) -> (Side, u64) {
        if self.illegal_left > 0 && self.rng.random_ratio(1, 8) {
            self.illegal_left -= 1;
            return match variant {
                Variant::Leftmost => (Side::Right, 1),
                Variant::TwoEnds => (Side::Left, now[0] + 1),
            };
        }
        let legal = legal_moves(now, variant);
        let m = legal[self.rng.random_range(0..legal.len())];
        (m.side, m.take)
    }
}

/// One game with the client's choices from `seed`, played over a Play
/// stream: every event the server sent.
async fn game_over_play(
    client: &mut StoneGameClient<Channel>,
    row: &[u64],
    game: &pb::StartGame,
    seed: u64,
) -> Vec<Event> {
    let variant = if game.variant == pb::Variant::Leftmost as i32 {
        Variant::Leftmost
    } else {
        Variant::TwoEnds
    };
    let mut chooser = Chooser::new(seed);
    let mut s = Stream::open(client, Action::Start(game.clone()))
        .await
        .unwrap();
    let mut events = Vec::new();
    let mut latest: Option<pb::GameState> = None;
    loop {
        let event = s.next().await.unwrap().expect("an event before the end");
        events.push(event.clone());
        match event {
            Event::Over(_) => {
                assert!(matches!(s.next().await, Ok(None)));
                return events;
            }
            Event::State(state) => latest = Some(state),
            Event::Rejected(_) => {}
        }
        let state = latest.as_ref().unwrap();
        let client_seat = game.client_seat;
        if state.to_move == client_seat && state.left_size > 0 {
            let (side, take) = chooser.choose(variant, &live(row, state));
            s.submit(state.ply, pb::Side::from(side), take).await;
        }
    }
}

/// The same game played by PlayStep calls, the client's choices from the
/// same seed: every event of every call, in order. With `switch_at`, the
/// game moves to a Play stream (ResumeGame) at that ply and the events
/// after the resumed state are taken from there.
async fn game_over_play_step(
    client: &mut StoneGameClient<Channel>,
    row: &[u64],
    game: &pb::StartGame,
    seed: u64,
    switch_at: Option<u64>,
) -> Vec<Event> {
    use pb::play_step_request::Step;
    let variant = if game.variant == pb::Variant::Leftmost as i32 {
        Variant::Leftmost
    } else {
        Variant::TwoEnds
    };
    let mut chooser = Chooser::new(seed);
    let mut events = step(client, Step::Start(game.clone())).await.unwrap();
    loop {
        let Some(Event::State(state)) = events
            .iter()
            .rev()
            .find(|e| matches!(e, Event::State(_) | Event::Over(_)))
            .cloned()
        else {
            return events;
        };
        assert_eq!(
            state.to_move, game.client_seat,
            "a call ends at the client's turn"
        );
        if switch_at.is_some_and(|at| state.ply >= at) {
            let mut s = Stream::open(
                client,
                Action::Resume(pb::ResumeGame {
                    state_token: state.state_token.clone(),
                    piles: row.to_vec(),
                    ..Default::default()
                }),
            )
            .await
            .unwrap();
            let resumed = s.state().await;
            assert_eq!(
                (resumed.ply, &resumed.state_token),
                (state.ply, &state.state_token)
            );
            let mut latest = resumed;
            loop {
                let (side, take) = chooser.choose(variant, &live(row, &latest));
                s.submit(latest.ply, pb::Side::from(side), take).await;
                loop {
                    let event = s.next().await.unwrap().expect("an event");
                    events.push(event.clone());
                    match event {
                        Event::Over(_) => return events,
                        Event::Rejected(_) => break,
                        Event::State(now) => {
                            latest = now;
                            if latest.to_move == game.client_seat && latest.left_size > 0 {
                                break;
                            }
                        }
                    }
                }
            }
        }
        let (side, take) = chooser.choose(variant, &live(row, &state));
        let action = pb::turn::Action::Move(submit(state.ply, side, take));
        let more = step(client, turn(row, &state.state_token, action))
            .await
            .unwrap();
        assert!(!more.is_empty());
        events.extend(more);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_step_games_are_play_games() {
    let (_a, mut a) = server_and_client(with_key(KEY)).await;
    // A second replica with the same key: every other turn goes there.
    let (_b, mut b) = server_and_client(with_key(KEY)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    let mut rows: Vec<Vec<u64>> = (0..12)
        .map(|i| (0..1 + i % 7).map(|_| rng.random_range(1..=6)).collect())
        .collect();
    rows.push((0..1500).map(|_| rng.random_range(1..=2)).collect());
    let mut games = 0;
    for (i, row) in rows.iter().enumerate() {
        for variant in [Variant::TwoEnds, Variant::Leftmost] {
            for seat in [pb::Seat::First, pb::Seat::Second] {
                let game = pb::StartGame {
                    strength: Some(0.7),
                    seed: i as u64,
                    ..start(row, variant, seat)
                };
                let seed = 1000 + i as u64;
                let played = game_over_play(&mut a, row, &game, seed).await;
                let stepped = game_over_play_step(&mut b, row, &game, seed, None).await;
                assert_eq!(stepped, played, "{variant} {seat:?} {row:?}");
                assert!(matches!(played.last(), Some(Event::Over(_))));
                // Half by PlayStep, the rest on a Play stream.
                let plies = played
                    .iter()
                    .filter(|e| matches!(e, Event::State(_)))
                    .count() as u64;
                let mixed = game_over_play_step(&mut a, row, &game, seed, Some(plies / 2)).await;
                assert_eq!(mixed, played, "mixed: {variant} {seat:?} {row:?}");
                games += 1;
            }
        }
    }
    assert_eq!(games, rows.len() * 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_step_turns_resign_replay_and_refuse() {
    use pb::play_step_request::Step;
    let (server, mut client) = server_and_client(with_key(KEY)).await;
    let row = [3u64, 1, 4, 1, 5];
    let game = start(&row, Variant::TwoEnds, pb::Seat::First);
    let events = step(&mut client, Step::Start(game.clone())).await.unwrap();
    let [Event::State(first)] = &events[..] else {
        panic!("{events:?}")
    };
    assert_eq!(first.ply, 0);
    // An illegal move: a MoveRejected, and nothing else.
    let bad = pb::turn::Action::Move(submit(0, Side::Left, 4));
    let events = step(&mut client, turn(&row, &first.state_token, bad))
        .await
        .unwrap();
    let [Event::Rejected(r)] = &events[..] else {
        panic!("{events:?}")
    };
    assert_eq!(r.reason, pb::RejectReason::TakeTooMany as i32);
    assert!(r.message.contains("pile 0"), "{r:?}");
    // A stale ply.
    let stale = pb::turn::Action::Move(submit(2, Side::Left, 1));
    let events = step(&mut client, turn(&row, &first.state_token, stale))
        .await
        .unwrap();
    assert!(
        matches!(&events[..], [Event::Rejected(r)] if r.reason == pb::RejectReason::StalePly as i32),
        "{events:?}"
    );
    // A move, then the same token again: a take-back gives the same reply.
    let good = pb::turn::Action::Move(submit(0, Side::Right, 5));
    let once = step(&mut client, turn(&row, &first.state_token, good.clone()))
        .await
        .unwrap();
    let again = step(&mut client, turn(&row, &first.state_token, good))
        .await
        .unwrap();
    assert_eq!(once, again);
    assert!(once.len() >= 2, "{once:?}");
    // Resigning ends the game: the bot's seat wins.
    let resign = pb::turn::Action::Resign(pb::Resign {});
    let events = step(&mut client, turn(&row, &first.state_token, resign))
        .await
        .unwrap();
    assert!(
        matches!(&events[..], [Event::Over(o)]
            if o.winner == pb::Seat::Second as i32 && o.reason == pb::EndReason::Resigned as i32),
        "{events:?}"
    );
    // Malformed calls: INVALID_ARGUMENT naming the field.
    let status = client
        .play_step(pb::PlayStepRequest { step: None })
        .await
        .expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("step"), "{status:?}");
    let no_action = Step::Turn(pb::Turn {
        state_token: first.state_token.clone(),
        piles: row.to_vec(),
        ..Default::default()
    });
    let status = step(&mut client, no_action).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("turn.action"), "{status:?}");
    let mut forged = first.state_token.clone();
    forged[5] ^= 1;
    let m = pb::turn::Action::Move(submit(0, Side::Left, 1));
    let status = step(&mut client, turn(&row, &forged, m.clone()))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("signature"), "{status:?}");
    let status = step(&mut client, turn(&[3, 1, 4, 1, 6], &first.state_token, m))
        .await
        .unwrap_err();
    assert!(status.message().contains("SHA-256 differs"), "{status:?}");
    // No Play session is held by PlayStep calls.
    assert_eq!(server.metrics.play_sessions(), 0);
}

/// The figures of docs/benchmarks.md ("PlayStep"): the time of one
/// PlayStep turn (the client's move and the bot's reply, the row sent
/// again each turn) beside one turn of a Play stream on the same row, at
/// n = 1,000 and 200,000. Prints, asserts nothing about time:
/// `cargo test --release --test it service_play::play_step_figures -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "figures, run by hand"]
async fn play_step_figures() {
    use pb::play_step_request::Step;
    use std::time::{Duration, Instant};
    let (_server, mut client) = server_and_client(with_key(KEY)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for (n, turns) in [(1_000usize, 400u32), (200_000, 40)] {
        let row: Vec<u64> = (0..n)
            .map(|_| rng.random_range(1..=1_000_000_000))
            .collect();
        let game = pb::StartGame {
            strength: Some(1.0),
            seed: 3,
            analysis: false,
            ..start(&row, Variant::TwoEnds, pb::Seat::First)
        };
        // The row's sweep once (cached afterwards), then the turns.
        let t = Instant::now();
        let first = step(&mut client, Step::Start(game.clone())).await.unwrap();
        let start = t.elapsed();
        let Some(Event::State(mut state)) = first.last().cloned() else {
            panic!("{first:?}")
        };
        let mut per_turn = Vec::new();
        for _ in 0..turns {
            if state.left_size == 0 {
                break;
            }
            let action = pb::turn::Action::Move(submit(state.ply, Side::Left, 1));
            let t = Instant::now();
            let events = step(&mut client, turn(&row, &state.state_token, action))
                .await
                .unwrap();
            per_turn.push(t.elapsed());
            match events.last() {
                Some(Event::State(s)) => state = s.clone(),
                _ => break,
            }
        }
        // The same turns on a Play stream: a move, the two GameStates.
        let mut s = Stream::open(&mut client, Action::Start(game))
            .await
            .unwrap();
        let mut now = s.state().await;
        let mut per_move = Vec::new();
        for _ in 0..turns {
            if now.left_size == 0 {
                break;
            }
            let t = Instant::now();
            s.submit(now.ply, pb::Side::Left, 1).await;
            s.state().await;
            match s.next().await.unwrap() {
                Some(Event::State(reply)) => now = reply,
                _ => break,
            }
            per_move.push(t.elapsed());
        }
        let median = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2]
        };
        let (step_p50, play_p50) = (median(&mut per_turn), median(&mut per_move));
        println!(
            "n = {n}: start (sweep) {start:?}; PlayStep turn p50 {step_p50:?} over {} turns; \
             Play stream turn p50 {play_p50:?} over {} turns; ratio {:.1}×",
            per_turn.len(),
            per_move.len(),
            step_p50.as_secs_f64() / play_p50.as_secs_f64()
        );
    }
}
