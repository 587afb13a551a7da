//! Solve over every replica, surviving the loss of some: the I/O around
//! [`Scheduler`].
//!
//! One coordinator task owns the scheduler. It reads the input batches
//! (while the scheduler wants more), opens one Solve stream per replica
//! (a worker task each), hands each worker batches (at most `in_flight` in
//! flight per stream), turns the workers' events (stream open, an answer,
//! the server draining, the stream's end) into scheduler calls, follows the
//! resolver's replica set, and sends the answers out in input order.
//!
//! A worker also watches the replica's health (`grpc.health.v1` Watch of
//! `stonegame.v1.StoneGame`): a server that got SIGTERM turns NOT_SERVING
//! at once, so the client stops feeding it and half-closes its stream when
//! its batches are answered, instead of waiting for the server's grace to
//! end and resending what it was cut off in.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::task::AbortOnDropHandle;
use tonic::transport::Channel;
use tonic::{Code, Status};

use super::connect::{AddToken, EndpointSettings, stonegame_client};
use super::error::ClientError;
use super::resolve::{ReplicaSet, Replicas};
use super::schedule::{Ended, ReplicaStats, RetryPolicy, Scheduler};
use crate::wire::pb;

/// The service whose health tells a replica is draining.
const SERVICE_NAME: &str = "stonegame.v1.StoneGame";

/// Something a Solve run reports as it goes (for a warning on stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A replica's stream failed or could not be opened.
    Failed {
        /// The replica.
        replica: String,
        /// Why.
        error: String,
        /// Batches that were in flight on it, sent again elsewhere.
        resent: usize,
        /// When it is tried again; `None`: given up (or it left the set).
        retry_in: Option<Duration>,
    },
    /// A replica's server is shutting down: it gets no new batches.
    Draining {
        /// The replica.
        replica: String,
    },
    /// The resolver found a new replica.
    Added {
        /// The replica.
        replica: String,
    },
    /// A replica left the resolved set.
    Removed {
        /// The replica.
        replica: String,
    },
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Failed {
                replica,
                error,
                resent,
                retry_in,
            } => {
                write!(f, "{replica}: {error}")?;
                match resent {
                    0 => {}
                    1 => write!(f, "; its unanswered batch is resent")?,
                    n => write!(f, "; its {n} unanswered batches are resent")?,
                }
                match retry_in {
                    Some(wait) => write!(f, "; retried in {} ms", wait.as_millis()),
                    None => write!(f, "; no longer used"),
                }
            }
            Notice::Draining { replica } => {
                write!(f, "{replica} is shutting down: no new batches go to it")
            }
            Notice::Added { replica } => write!(f, "{replica} joined"),
            Notice::Removed { replica } => write!(f, "{replica} left the resolved set"),
        }
    }
}

/// A receiver of [`Notice`]s.
pub type NoticeFn = Arc<dyn Fn(&Notice) + Send + Sync>;

/// How [`super::calls::Client::solve_batches`] runs.
#[derive(Clone)]
pub struct SolveOptions {
    /// Batches sent ahead of the answers on each replica's stream.
    pub in_flight: usize,
    /// Retries and their bounds.
    pub retry: RetryPolicy,
    /// Called with each [`Notice`] (from the run's task).
    pub on_notice: Option<NoticeFn>,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions {
            in_flight: 4,
            retry: RetryPolicy::default(),
            on_notice: None,
        }
    }
}

impl fmt::Debug for SolveOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SolveOptions")
            .field("in_flight", &self.in_flight)
            .field("retry", &self.retry)
            .field("on_notice", &self.on_notice.is_some())
            .finish()
    }
}

/// A running [`super::calls::Client::solve_batches`]: its answers in input
/// order, and what each replica did. Dropping it stops the run.
#[derive(Debug)]
pub struct SolveRun {
    answers: mpsc::Receiver<Result<pb::SolveResponse, ClientError>>,
    stats: Arc<Mutex<Vec<ReplicaStats>>>,
    _task: AbortOnDropHandle<()>,
}

impl SolveRun {
    /// The answer to the next batch, in input order; `None` when every
    /// batch was answered. After an `Err` the run is over.
    pub async fn next(&mut self) -> Option<Result<pb::SolveResponse, ClientError>> {
        self.answers.recv().await
    }

    /// What each replica did so far.
    pub fn stats(&self) -> Vec<ReplicaStats> {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// Where a replica's channel comes from.
#[derive(Debug, Clone)]
pub(crate) enum Channels {
    /// The client's one connection (a single-URL target), and the token
    /// its calls carry.
    Single(Channel, AddToken),
    /// A lazy connection per replica URL.
    PerReplica(EndpointSettings),
}

impl Channels {
    /// The token the calls carry.
    pub(crate) fn token(&self) -> &AddToken {
        match self {
            Channels::Single(_, token) => token,
            Channels::PerReplica(settings) => &settings.token,
        }
    }

    fn channel(&self, url: &str) -> Result<Channel, ClientError> {
        match self {
            Channels::Single(channel, _) => Ok(channel.clone()),
            Channels::PerReplica(settings) => Ok(settings.endpoint(url)?.connect_lazy()),
        }
    }
}

/// Starts a run.
pub(crate) fn start(
    batches: impl Stream<Item = pb::SolveRequest> + Send + Unpin + 'static,
    replicas: Replicas,
    channels: Channels,
    options: SolveOptions,
) -> SolveRun {
    let (tx, answers) = mpsc::channel(options.in_flight.max(1));
    let stats = Arc::new(Mutex::new(Vec::new()));
    let task = tokio::spawn(coordinate(
        batches,
        replicas,
        channels,
        options,
        tx,
        Arc::clone(&stats),
    ));
    SolveRun {
        answers,
        stats,
        _task: AbortOnDropHandle::new(task),
    }
}

/// What a worker tells the coordinator.
#[derive(Debug)]
enum Event {
    Opened,
    Answer(pb::SolveResponse),
    Draining,
    /// The last event of a worker. `status`: `None` when the stream ended
    /// normally; `opened`: whether the stream was open (or refused).
    Ended {
        status: Option<Status>,
        opened: bool,
    },
}

/// A worker's event, with its replica and stream.
type Tagged = (String, u64, Event);

/// Whether a Solve stream that failed with `status` may be resent to a
/// replica, and the server's hint of how long to wait. Errors every replica
/// would give again (a malformed or oversized request) are not retried.
/// `opening`: the stream was refused before any batch was sent, where
/// RESOURCE_EXHAUSTED can only mean the server's limit of concurrent RPCs
/// (a busy replica, not a request too large).
fn retryable(status: &Status, opening: bool) -> Option<Option<Duration>> {
    let hint = || {
        status
            .metadata()
            .get("retry-after-ms")
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
            .map(Duration::from_millis)
    };
    match status.code() {
        Code::Unavailable
        | Code::Unknown
        | Code::Internal
        | Code::Cancelled
        | Code::Aborted
        | Code::DeadlineExceeded
        | Code::DataLoss
        | Code::Ok => Some(None),
        Code::ResourceExhausted if opening => Some(hint()),
        // Busy: the server says when to come back. Without the hint the
        // request could never fit.
        Code::ResourceExhausted => hint().map(Some),
        _ => None,
    }
}

/// A failure in one line: the code, the message and the causes below it
/// (a transport error's "tcp connect error" says why only there).
fn describe(status: &Status) -> String {
    let mut parts = vec![format!("{:?}", status.code())];
    parts.extend(super::diagnose::status_chain(status));
    parts.join(": ")
}

async fn coordinate(
    mut input: impl Stream<Item = pb::SolveRequest> + Send + Unpin + 'static,
    replicas: Replicas,
    channels: Channels,
    options: SolveOptions,
    out: mpsc::Sender<Result<pb::SolveResponse, ClientError>>,
    shared_stats: Arc<Mutex<Vec<ReplicaStats>>>,
) {
    let in_flight = options.in_flight.max(1);
    let notify = |notice: Notice| {
        if let Some(f) = &options.on_notice {
            f(&notice);
        }
    };
    let mut sched: Scheduler<pb::SolveRequest, pb::SolveResponse> =
        Scheduler::new(options.retry.clone(), in_flight);
    let mut set_rx = replicas.watch();
    let mut known: ReplicaSet = set_rx.borrow_and_update().clone();
    for url in known.iter() {
        sched.add_replica(url);
    }
    let mut follow_set = true;
    let (events_tx, mut events) = mpsc::unbounded_channel::<Tagged>();
    let mut workers: HashMap<String, (u64, mpsc::Sender<pb::SolveRequest>)> = HashMap::new();
    let mut channel_cache: HashMap<String, Channel> = HashMap::new();
    // The streams' tasks: aborted when this returns, after the last
    // answers' streams were given a moment to end OK (below).
    let mut tasks = tokio::task::JoinSet::new();
    let result: Result<(), ClientError> = async {
        loop {
            let now = Instant::now().into_std();
            for (url, stream) in sched.start(now) {
                if !channel_cache.contains_key(&url) {
                    channel_cache.insert(url.clone(), channels.channel(&url)?);
                }
                let channel = channel_cache[&url].clone();
                let (tx, rx) = mpsc::channel(in_flight);
                workers.insert(url.clone(), (stream, tx));
                let token = channels.token().clone();
                tasks.spawn(worker(url, stream, channel, token, rx, events_tx.clone()));
            }
            while let Some((url, stream, index)) = sched.assign() {
                let batch = sched.batch(index).cloned().unwrap_or_default();
                if let Some((id, tx)) = workers.get(&url)
                    && *id == stream
                {
                    // Room for `in_flight` batches: never full. Closed means
                    // the worker is ending; its Ended event requeues this.
                    let _ = tx.try_send(batch);
                }
            }
            for (url, stream) in sched.to_close() {
                // Dropping the sender half-closes the stream.
                if workers.get(&url).is_some_and(|(id, _)| *id == stream) {
                    workers.remove(&url);
                }
            }
            while let Some(answer) = sched.pop_ready() {
                if out.send(Ok(answer)).await.is_err() {
                    return Ok(());
                }
            }
            if let Ok(mut s) = shared_stats.lock() {
                *s = sched.stats();
            }
            if sched.done() {
                // Every answer is in: half-close the open streams and let
                // them end with the server's OK (a stream dropped before
                // its trailers counts as CANCELLED on the server), for a
                // moment at most.
                workers.clear();
                let ended = async { while tasks.join_next().await.is_some() {} };
                let _ = tokio::time::timeout(STREAMS_END_WAIT, ended).await;
                return Ok(());
            }
            if sched.stuck() {
                return Err(ClientError::NoReplicaLeft {
                    tried: sched.stats(),
                    answered: sched.released_cases(),
                });
            }
            let wakeup = sched.next_wakeup().map(Instant::from_std);
            tokio::select! {
                batch = input.next(), if sched.wants_input() => match batch {
                    Some(batch) => {
                        let cases = batch.cases.len();
                        sched.push(batch, cases);
                    }
                    None => sched.end_input(),
                },
                Some((url, stream, event)) = events.recv() => {
                    handle(&mut sched, &replicas, &notify, &mut workers, url, stream, event)?;
                }
                changed = set_rx.changed(), if follow_set => match changed {
                    Ok(()) => {
                        let fresh = set_rx.borrow_and_update().clone();
                        for url in known.iter().filter(|u| !fresh.contains(u)) {
                            sched.remove_replica(url);
                            notify(Notice::Removed { replica: url.clone() });
                        }
                        for url in fresh.iter().filter(|u| !known.contains(u)) {
                            sched.add_replica(url);
                            notify(Notice::Added { replica: url.clone() });
                        }
                        known = fresh;
                    }
                    Err(_) => follow_set = false,
                },
                // Disabled (never polled) without a wakeup.
                () = tokio::time::sleep_until(wakeup.unwrap_or_else(Instant::now)),
                    if wakeup.is_some() => {}
            }
        }
    }
    .await;
    if let Ok(mut s) = shared_stats.lock() {
        *s = sched.stats();
    }
    if let Err(e) = result {
        let _ = out.send(Err(e)).await;
    }
}

/// How long finished streams may take to end OK once every answer is in.
const STREAMS_END_WAIT: Duration = Duration::from_secs(2);

/// Applies a worker's event.
fn handle(
    sched: &mut Scheduler<pb::SolveRequest, pb::SolveResponse>,
    replicas: &Replicas,
    notify: &impl Fn(Notice),
    workers: &mut HashMap<String, (u64, mpsc::Sender<pb::SolveRequest>)>,
    url: String,
    stream: u64,
    event: Event,
) -> Result<(), ClientError> {
    match event {
        Event::Opened => sched.opened(&url, stream),
        Event::Draining => {
            if sched.is_current(&url, stream) {
                sched.draining(&url, stream);
                notify(Notice::Draining { replica: url });
            }
        }
        Event::Answer(response) => {
            let Some(want) = sched.expecting(&url, stream) else {
                if sched.is_current(&url, stream) {
                    return Err(ClientError::Protocol(format!(
                        "{url} answered a batch that was not sent"
                    )));
                }
                return Ok(());
            };
            if response.results.len() != want {
                return Err(ClientError::Protocol(format!(
                    "{url}: a batch of {want} cases got {} results",
                    response.results.len()
                )));
            }
            sched.answered(&url, stream, response);
        }
        Event::Ended { status, opened } => {
            if workers.get(&url).is_some_and(|(id, _)| *id == stream) {
                workers.remove(&url);
            }
            let retry_after = match &status {
                None => None,
                Some(s) => match retryable(s, !opened) {
                    Some(hint) => hint,
                    // Every replica would say the same.
                    None => return Err(ClientError::Status(s.clone())),
                },
            };
            let error = status.as_ref().map(describe);
            let now = Instant::now().into_std();
            match sched.ended(&url, stream, error, retry_after, now) {
                Ok(Ended::Quiet) => {}
                Ok(Ended::Failed { resent, retry_in }) => {
                    replicas.report_failure();
                    let error = sched
                        .stats()
                        .into_iter()
                        .find(|s| s.replica == url)
                        .and_then(|s| s.last_error)
                        .unwrap_or_default();
                    notify(Notice::Failed {
                        replica: url,
                        error,
                        resent,
                        retry_in,
                    });
                }
                Err(gave_up) => {
                    return Err(ClientError::BatchGaveUp {
                        batch: gave_up.batch,
                        attempts: gave_up.attempts,
                        last_error: format!("{url}: {}", gave_up.last_error),
                        answered: sched.released_cases(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// One Solve stream to one replica: sends what it is given, reports each
/// answer, the server draining, and how the stream ended.
async fn worker(
    url: String,
    stream: u64,
    channel: Channel,
    token: AddToken,
    batches: mpsc::Receiver<pb::SolveRequest>,
    events: mpsc::UnboundedSender<Tagged>,
) {
    let send = |event| events.send((url.clone(), stream, event)).is_ok();
    let mut client = stonegame_client(channel.clone(), &token);
    let mut responses = match client.solve(ReceiverStream::new(batches)).await {
        Ok(r) => r.into_inner(),
        Err(status) => {
            send(Event::Ended {
                status: Some(status),
                opened: false,
            });
            return;
        }
    };
    if !send(Event::Opened) {
        return;
    }
    // Resolves `true` when the server says it is no longer serving; the
    // watch stream is dropped then (it would keep a draining server's
    // connection open).
    let drain = async move {
        let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
        let request = tonic_health::pb::HealthCheckRequest {
            service: SERVICE_NAME.to_string(),
        };
        let Ok(watch) = health.watch(request).await else {
            return false;
        };
        let mut watch = watch.into_inner();
        let serving = tonic_health::pb::health_check_response::ServingStatus::Serving as i32;
        while let Ok(Some(update)) = watch.message().await {
            if update.status != serving {
                return true;
            }
        }
        false
    };
    tokio::pin!(drain);
    let mut watching = true;
    loop {
        tokio::select! {
            message = responses.message() => {
                let event = match message {
                    Ok(Some(response)) => Event::Answer(response),
                    Ok(None) => Event::Ended { status: None, opened: true },
                    Err(status) => Event::Ended { status: Some(status), opened: true },
                };
                let last = matches!(event, Event::Ended { .. });
                if !send(event) || last {
                    return;
                }
            }
            draining = &mut drain, if watching => {
                watching = false;
                if draining && !send(Event::Draining) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_failures_are_retried() {
        for code in [
            Code::Unavailable,
            Code::Unknown,
            Code::Internal,
            Code::Cancelled,
        ] {
            assert_eq!(
                retryable(&Status::new(code, "x"), false),
                Some(None),
                "{code:?}"
            );
        }
        for code in [
            Code::InvalidArgument,
            Code::OutOfRange,
            Code::ResourceExhausted,
            Code::Unimplemented,
            Code::PermissionDenied,
        ] {
            assert_eq!(retryable(&Status::new(code, "x"), false), None, "{code:?}");
        }
        // Refused at the start with RESOURCE_EXHAUSTED: the server's limit
        // of concurrent RPCs, a busy replica.
        let full = Status::resource_exhausted("too many concurrent RPCs");
        assert_eq!(retryable(&full, true), Some(None));
        assert_eq!(retryable(&Status::unimplemented("x"), true), None);
        let mut busy = Status::resource_exhausted("retry after 250 ms");
        busy.metadata_mut()
            .insert("retry-after-ms", "250".parse().unwrap());
        for opening in [false, true] {
            assert_eq!(
                retryable(&busy, opening),
                Some(Some(Duration::from_millis(250)))
            );
        }
    }

    #[test]
    fn notices_read_well() {
        let failed = Notice::Failed {
            replica: "http://127.0.0.1:1".into(),
            error: "Unavailable: connection refused".into(),
            resent: 3,
            retry_in: Some(Duration::from_millis(200)),
        };
        assert_eq!(
            failed.to_string(),
            "http://127.0.0.1:1: Unavailable: connection refused; its 3 unanswered batches are \
             resent; retried in 200 ms"
        );
    }
}
