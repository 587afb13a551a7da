//! Load tests of the Play RPC ([`LoadRpc::Play`] and
//! [`selfplay`]).
//!
//! * **Bot replies** (`LoadRpc::Play`, closed loop): `concurrency` games at
//!   once, the client in the first seat playing seeded random legal moves
//!   (a random end, a random take) and the server's bot answering; a new
//!   game starts on the next row when one ends. A reply's latency runs
//!   from sending the client's move to receiving the `GameState` of the
//!   bot's answer; exactly `requests` replies are timed.
//! * **Per-move server time** ([`selfplay`]): games of the bot against
//!   itself (`SEAT_NONE`), timed from the first `GameState` (after the
//!   start's sweep) to the `GameOver`, divided by the plies.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::builder::ClientBuilder;
use super::calls::Client;
use super::error::ClientError;
use super::loadspec::{LoadReport, LoadRpc, LoadSpec, row};
use super::play::{GameSpec, PlayEvent, PlaySession, Seat};
use crate::core::Side;
use crate::wire::pb;

/// The next event that is a state or the end of the game.
enum Step {
    State(pb::GameState),
    Over(pb::GameOver),
}

async fn step(session: &mut PlaySession) -> Result<Step, ClientError> {
    match session.next_event().await? {
        Some(PlayEvent::State(s)) => Ok(Step::State(s)),
        Some(PlayEvent::Over(o)) => Ok(Step::Over(o)),
        Some(PlayEvent::Rejected(r)) => Err(ClientError::Protocol(format!(
            "a random legal move was refused: {}",
            r.message
        ))),
        None => Err(ClientError::Protocol(
            "a Play stream ended before its GameOver".into(),
        )),
    }
}

/// A random legal move of the two-ends game in `state` (a random end, a
/// random take).
fn random_move(state: &pb::GameState, rng: &mut ChaCha8Rng) -> (Side, u64) {
    let (side, size) = if rng.random_bool(0.5) {
        (Side::Left, state.left_size)
    } else {
        (Side::Right, state.right_size)
    };
    (side, rng.random_range(1..=size.max(1)))
}

/// The spec of game `g` of a load test.
fn game(spec: &LoadSpec, g: u64, seat: Seat) -> GameSpec {
    GameSpec {
        seat,
        strength: spec.strength,
        seed: g,
        ..GameSpec::new(row(g, spec.piles, spec.max_pile))
    }
}

/// One client of the bot-replies test: games `c`, `c + clients`, … until
/// `claimed` reaches the requests. Its reply latencies and games started.
async fn play_client(
    mut client: Client,
    spec: LoadSpec,
    c: u64,
    clients: u64,
    claimed: Arc<AtomicU64>,
) -> Result<(Vec<Duration>, u64), ClientError> {
    let mut latencies = Vec::new();
    let mut games = 0;
    for g in (c..).step_by(clients as usize) {
        if claimed.load(Ordering::Relaxed) >= spec.requests {
            break;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(g ^ 0x9e37_79b9_7f4a_7c15);
        let mut session = client.play(&game(&spec, g, Seat::First)).await?;
        games += 1;
        let Step::State(mut state) = step(&mut session).await? else {
            return Err(ClientError::Protocol("a game ended before it began".into()));
        };
        loop {
            // A reply to time: or stop, giving the slot back.
            if claimed.fetch_add(1, Ordering::Relaxed) >= spec.requests {
                claimed.fetch_sub(1, Ordering::Relaxed);
                return Ok((latencies, games));
            }
            let (side, take) = random_move(&state, &mut rng);
            let t = Instant::now();
            session.submit(state.ply, side, take).await?;
            // The state after the client's move, then the bot's answer.
            if let Step::Over(_) = step(&mut session).await? {
                claimed.fetch_sub(1, Ordering::Relaxed);
                break;
            }
            match step(&mut session).await? {
                Step::State(s) => {
                    latencies.push(t.elapsed());
                    state = s;
                }
                // The client's move took the last pile: no reply.
                Step::Over(_) => {
                    claimed.fetch_sub(1, Ordering::Relaxed);
                    break;
                }
            }
            if state.left_size == 0 || state.right_size == 0 {
                // The bot took the last pile: its GameOver follows.
                step(&mut session).await?;
                break;
            }
        }
    }
    Ok((latencies, games))
}

/// The bot-replies test over `connections` (closed loop).
pub(super) async fn bot_replies(
    connections: Vec<Client>,
    spec: &LoadSpec,
) -> Result<LoadReport, ClientError> {
    let clients = spec.concurrency.max(1) as u64;
    let claimed = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks = (0..clients).map(|c| {
        let client = connections[c as usize % connections.len()].clone();
        tokio::spawn(play_client(
            client,
            spec.clone(),
            c,
            clients,
            Arc::clone(&claimed),
        ))
    });
    let mut all = Vec::with_capacity(spec.requests as usize);
    let mut games = 0;
    for task in futures::future::join_all(tasks).await {
        let (latencies, g) =
            task.map_err(|e| ClientError::Protocol(format!("a game's task failed: {e}")))??;
        all.extend(latencies);
        games += g;
    }
    let mut report = LoadReport::from_latencies(all, started.elapsed(), None);
    report.games = games;
    Ok(report)
}

/// What [`selfplay`] measured.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SelfPlayReport {
    /// Games played to the end.
    pub games: u64,
    /// Moves in all.
    pub plies: u64,
    /// Median time from sending StartGame to the first GameState (the
    /// row's sweep, unless the row was cached).
    pub start_p50: Duration,
    /// Longest such time.
    pub start_max: Duration,
    /// Sum over the games of the time from the first GameState to the
    /// GameOver.
    pub after_start: Duration,
}

impl SelfPlayReport {
    /// Time per move after the start (0 without moves).
    pub fn per_ply(&self) -> Duration {
        if self.plies == 0 {
            Duration::ZERO
        } else {
            self.after_start.div_f64(self.plies as f64)
        }
    }
}

/// Plays `spec.requests` games of the bot against itself (`SEAT_NONE`,
/// `spec.concurrency` at a time; 1 times each game alone) on rows of
/// `spec.piles` piles and measures the time per move after the start.
pub async fn selfplay(url: &str, spec: &LoadSpec) -> Result<SelfPlayReport, ClientError> {
    selfplay_with(&Client::builder(url), spec).await
}

/// [`selfplay`] with a client of `builder` (its server, TLS and token).
pub async fn selfplay_with(
    builder: &ClientBuilder,
    spec: &LoadSpec,
) -> Result<SelfPlayReport, ClientError> {
    // Rows of one pile are fine here (no reply is waited for).
    LoadSpec {
        rpc: LoadRpc::Health,
        ..spec.clone()
    }
    .validate()?;
    let client = builder.clone().connect().await?;
    let clients = spec.concurrency.max(1) as u64;
    let tasks = (0..clients).map(|c| {
        let mut client = client.clone();
        let spec = spec.clone();
        async move {
            let mut out = Vec::new();
            for g in (c..spec.requests).step_by(clients as usize) {
                let t = Instant::now();
                let mut session = client.play(&game(&spec, g, Seat::None)).await?;
                let Step::State(first) = step(&mut session).await? else {
                    return Err(ClientError::Protocol("a game ended before it began".into()));
                };
                let start = t.elapsed();
                let t = Instant::now();
                let mut plies = first.ply;
                loop {
                    match step(&mut session).await? {
                        Step::State(s) => plies = s.ply,
                        Step::Over(o) => {
                            plies = plies.max(o.plies);
                            break;
                        }
                    }
                }
                out.push((start, t.elapsed(), plies));
            }
            Ok::<_, ClientError>(out)
        }
    });
    let mut starts = Vec::new();
    let mut report = SelfPlayReport::default();
    for games in futures::future::join_all(tasks).await {
        for (start, after, plies) in games? {
            starts.push(start);
            report.games += 1;
            report.plies += plies;
            report.after_start += after;
        }
    }
    let starts = LoadReport::from_latencies(starts, Duration::from_secs(1), None);
    report.start_p50 = starts.p50;
    report.start_max = starts.max;
    Ok(report)
}
