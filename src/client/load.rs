//! Load tests of a running server: QPS and latency percentiles of
//! SuggestMove, or of the health check (the floor of any RPC), or bot
//! replies per second in whole games of the Play RPC
//! ([`LoadRpc::Play`], closed loop only; [`super::playload`]).
//!
//! [`LoadSpec`] picks closed loop (`concurrency` clients, each sending its
//! next request when the last is answered: the highest QPS, latency mostly
//! queueing) or open loop (`rate`: requests on a fixed schedule, each timed
//! from its scheduled start, so a slow server is not hidden), as
//! docs/service.md ("The load tester") explains. The clients share
//! `connections` HTTP/2 connections round-robin (by default one per client).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, mpsc};

use super::builder::ClientBuilder;
use super::calls::Client;
use super::error::ClientError;
use super::loadspec::{LoadReport, LoadRpc, LoadSpec, LoadSpecError, WebProtocol, row};
use super::web::WebClient;
use crate::core::Variant;
use crate::wire::pb;

/// Request `k` of a load test: the same for every run.
enum Request {
    /// SuggestMove on this row.
    Suggest(Vec<u64>),
    /// grpc.health.v1 Check.
    Health,
}

impl Request {
    /// Request `k` for `rpc` (a SuggestMove row of `piles` random piles
    /// up to `max_pile`); Play is not sent request by request.
    fn new(rpc: LoadRpc, k: u64, piles: usize, max_pile: u64) -> Request {
        match rpc {
            LoadRpc::Suggest => Request::Suggest(row(k, piles, max_pile)),
            LoadRpc::Health | LoadRpc::Play => Request::Health,
        }
    }

    async fn send(self, sender: &mut Sender) -> Result<(), ClientError> {
        match (self, sender) {
            (Request::Suggest(row), Sender::Grpc(client)) => {
                client.suggest(row, Variant::TwoEnds, None, 0).await?;
            }
            (Request::Suggest(piles), Sender::Web(client)) => {
                client
                    .suggest(pb::SuggestMoveRequest {
                        piles,
                        variant: pb::Variant::TwoEnds as i32,
                        strength: None,
                        seed: 0,
                        want_remoteness: false,
                    })
                    .await?;
            }
            (Request::Health, Sender::Grpc(client)) => {
                client.health("").await?;
            }
            (Request::Health, Sender::Web(_)) => {
                return Err(LoadSpecError::WebProtocolRpc("a web protocol").into());
            }
        }
        Ok(())
    }
}

/// Where a load test's requests go: a gRPC connection, or a client of
/// the browsers' protocols.
#[derive(Debug, Clone)]
enum Sender {
    Grpc(Client),
    Web(WebClient),
}

/// Runs the load test `spec` against `url`.
pub async fn loadtest(url: &str, spec: &LoadSpec) -> Result<LoadReport, ClientError> {
    loadtest_with(&Client::builder(url), spec).await
}

/// Runs the load test `spec` with clients of `builder` (its server, TLS
/// and token).
pub async fn loadtest_with(
    builder: &ClientBuilder,
    spec: &LoadSpec,
) -> Result<LoadReport, ClientError> {
    spec.validate()?;
    if spec.protocol != WebProtocol::Grpc {
        // One pooled client: HTTP/1.1 opens a connection per request in
        // flight.
        let web = Sender::Web(WebClient::new(spec.protocol, builder.server())?);
        return either_loop(vec![web], spec).await;
    }
    let mut connections = Vec::with_capacity(spec.connection_count());
    for _ in 0..spec.connection_count() {
        connections.push(builder.clone().connect().await?);
    }
    if spec.rpc == LoadRpc::Play {
        // Closed loop only (validated above).
        return super::playload::bot_replies(connections, spec).await;
    }
    either_loop(connections.into_iter().map(Sender::Grpc).collect(), spec).await
}

/// The closed loop, or the open one at `spec.rate`.
async fn either_loop(senders: Vec<Sender>, spec: &LoadSpec) -> Result<LoadReport, ClientError> {
    match spec.rate {
        None => closed_loop(senders, spec).await,
        Some(rate) => open_loop(senders, spec, rate).await,
    }
}

async fn closed_loop(connections: Vec<Sender>, spec: &LoadSpec) -> Result<LoadReport, ClientError> {
    let clients = spec.concurrency.max(1) as u64;
    let (rpc, piles, max_pile) = (spec.rpc, spec.piles, spec.max_pile);
    let started = Instant::now();
    // The clients are futures of this one task (no task hand-offs on the
    // client side).
    let tasks = (0..clients).map(|c| {
        let mut client = connections[c as usize % connections.len()].clone();
        // Client c sends requests c, c + clients, c + 2·clients, …
        let mine = spec.requests.saturating_sub(c).div_ceil(clients);
        async move {
            let mut latencies = Vec::with_capacity(mine as usize);
            for i in 0..mine {
                // Built before the clock starts: only the RPC is timed.
                let request = Request::new(rpc, c + i * clients, piles, max_pile);
                let t = Instant::now();
                request.send(&mut client).await?;
                latencies.push(t.elapsed());
            }
            Ok::<_, ClientError>(latencies)
        }
    });
    let mut all = Vec::with_capacity(spec.requests as usize);
    for latencies in futures::future::join_all(tasks).await {
        all.extend(latencies?);
    }
    Ok(LoadReport::from_latencies(all, started.elapsed(), None))
}

async fn open_loop(
    connections: Vec<Sender>,
    spec: &LoadSpec,
    rate: f64,
) -> Result<LoadReport, ClientError> {
    let (rpc, piles, max_pile, requests) = (spec.rpc, spec.piles, spec.max_pile, spec.requests);
    let outstanding = Arc::new(Semaphore::new(spec.concurrency.max(1)));
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Result<Duration, ClientError>>();
    let runtime = tokio::runtime::Handle::current();
    let started = Instant::now();
    // A thread keeps the schedule: tokio's timers tick in milliseconds,
    // too coarse for requests 100 µs apart.
    let pacer = std::thread::spawn(move || {
        fine_timer_slack();
        let mut max_lag = Duration::ZERO;
        for k in 0..requests {
            // Built while waiting for its time: only the RPC is timed.
            let request = Request::new(rpc, k, piles, max_pile);
            let due = started + Duration::from_secs_f64(k as f64 / rate);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
            if done_tx.is_closed() {
                break;
            }
            max_lag = max_lag.max(due.elapsed());
            let mut client = connections[k as usize % connections.len()].clone();
            let (outstanding, done) = (Arc::clone(&outstanding), done_tx.clone());
            runtime.spawn(async move {
                let result = match outstanding.acquire_owned().await {
                    Ok(_permit) => request.send(&mut client).await.map(|()| due.elapsed()),
                    Err(_) => Err(ClientError::Protocol("the load test was stopped".into())),
                };
                let _ = done.send(result);
            });
        }
        max_lag
    });
    let mut latencies = Vec::with_capacity(requests as usize);
    while (latencies.len() as u64) < requests {
        match done_rx.recv().await {
            Some(Ok(latency)) => latencies.push(latency),
            Some(Err(e)) => {
                // Stops the pacer at its next request.
                drop(done_rx);
                return Err(e);
            }
            None => break,
        }
    }
    let elapsed = started.elapsed();
    let max_lag = tokio::task::spawn_blocking(move || pacer.join())
        .await
        .ok()
        .and_then(Result::ok);
    if (latencies.len() as u64) < requests {
        return Err(ClientError::Protocol(format!(
            "only {} of {requests} requests were answered",
            latencies.len()
        )));
    }
    Ok(LoadReport::from_latencies(latencies, elapsed, max_lag))
}

/// Lets this thread's sleeps end within a microsecond or so of their
/// deadline (Linux's default timer slack is 50 µs).
fn fine_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK only changes this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}
