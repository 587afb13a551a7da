//! Building and serving: the `StoneGame` service beside grpc.health.v1 and
//! server reflection (v1 and v1alpha), graceful shutdown, and the shared
//! state of the RPCs ([`State`]).
//!
//! Shutdown (SIGTERM/SIGINT for `stonegame serve`, [`RunningServer::shutdown`]
//! in-process): health goes NOT_SERVING, new RPCs are refused (UNAVAILABLE,
//! and HTTP/2 GOAWAY for new connections' streams), in-flight RPCs get
//! `shutdown_grace_ms` to finish; after that their work is cancelled and the
//! server stops.

use std::future::Future;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status, Streaming};
use tonic_health::ServingStatus;
use tracing::Instrument;

use super::config::{Config, Limits};
use super::limits::{Budget, CancelFlag, Metrics, Reservation, RpcLimiter};
use super::pb;
use super::pb::stone_game_server::{StoneGame, StoneGameServer};

/// The fully qualified name of the service, as health and reflection know it.
pub const SERVICE_NAME: &str = "stonegame.v1.StoneGame";

/// The largest HTTP/2 frame the server accepts (SETTINGS_MAX_FRAME_SIZE;
/// the protocol's default is 16 KiB). A Solve batch of 32 cases of
/// n = 1000 is up to 256 KiB of `piles_le` (8-byte words; 128 KiB in 4-byte
/// words): one frame instead of up to sixteen, which
/// halves the socket reads and writes of a batch and took Solve over
/// loopback from 75 % to 78 % of in-process for 32 cases and from 84 % to
/// 87 % for 128. Larger frames only delay other streams of the same
/// connection by one frame's transfer.
pub const MAX_FRAME_SIZE: u32 = 256 << 10;

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The listen address is not a socket address.
    #[error("cannot parse the listen address `{addr}`: {source}")]
    Address {
        addr: String,
        source: std::net::AddrParseError,
    },
    /// Binding or accepting failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    /// The worker pool could not be built.
    #[error("cannot start the worker pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// Reflection could not be set up.
    #[error("cannot set up server reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// The transport failed.
    #[error("the server failed: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The server task panicked or was aborted.
    #[error("the server task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// What every RPC shares.
#[derive(Debug)]
pub struct State {
    /// The limits in force.
    pub limits: Limits,
    /// The CPU pool all solving runs on.
    pub pool: rayon::ThreadPool,
    /// Cell updates in flight (CPU).
    pub budget: Arc<Budget>,
    /// Piles held by admitted requests (memory).
    pub piles_budget: Arc<Budget>,
    /// Concurrent RPCs.
    pub rpcs: RpcLimiter,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Set when the shutdown grace period ends: every job stops.
    pub cancel_all: CancelFlag,
    /// Jobs of at most this many cell updates run inline (0: none).
    pub inline_max_cells: u64,
}

impl State {
    /// The state for a configuration.
    pub fn new(config: &Config) -> Result<State, ServeError> {
        let workers = match config.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("stonegame-worker-{i}"))
            .build()?;
        Ok(State {
            limits: config.limits.clone(),
            pool,
            budget: Budget::cells(config.limits.max_cells_in_flight, workers),
            piles_budget: Budget::piles(config.limits.max_piles_in_flight),
            rpcs: RpcLimiter::new(config.limits.max_concurrent_rpcs),
            metrics: Arc::new(Metrics::default()),
            cancel_all: CancelFlag::new(),
            inline_max_cells: config.inline_max_cells,
        })
    }

    /// Admits a request of `cells` cell updates over `piles` piles, or
    /// refuses it with RESOURCE_EXHAUSTED (see [`super::limits`]). The
    /// reservations are released when dropped.
    pub fn admit_work(&self, cells: u64, piles: u64) -> Result<[Reservation; 2], Status> {
        let reserve = || {
            Ok([
                self.budget.try_reserve(cells)?,
                self.piles_budget.try_reserve(piles)?,
            ])
        };
        reserve().map_err(|e: super::limits::AdmissionError| {
            self.metrics
                .admissions_refused
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            e.into()
        })
    }

    /// Runs CPU work of about `cells` cell updates: inline on the calling
    /// (async) thread when it is small (at most `inline_max_cells`), where
    /// the hop to the pool and back would cost more than the work, else on
    /// the pool ([`State::run_cpu`]). A panic in `f` becomes `INTERNAL`.
    pub async fn run_cpu_sized<T, F>(&self, cells: u64, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        if self.inline_max_cells > 0 && cells <= self.inline_max_cells {
            return std::panic::catch_unwind(AssertUnwindSafe(f))
                .map_err(|_| Status::internal("a worker panicked on this request"));
        }
        self.run_cpu(f).await
    }

    /// Runs CPU work on the pool and awaits its result. A panic in `f`
    /// becomes `INTERNAL` instead of taking the process down.
    pub async fn run_cpu<T, F>(&self, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.pool.spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(AssertUnwindSafe(f)));
        });
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => Err(Status::internal("a worker panicked on this request")),
            Err(_) => Err(Status::internal("the worker pool dropped this request")),
        }
    }
}

/// The `stonegame.v1.StoneGame` implementation.
#[derive(Debug, Clone)]
pub struct StoneGameService {
    state: Arc<State>,
}

impl StoneGameService {
    /// A service over shared state.
    pub fn new(state: Arc<State>) -> Self {
        StoneGameService { state }
    }
}

/// A boxed response stream.
pub type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl StoneGame for StoneGameService {
    type SolveStream = BoxStream<pb::SolveResponse>;
    type GetTablesStream = BoxStream<pb::TablesChunk>;
    type GenerateStream = BoxStream<pb::GenerateChunk>;

    async fn solve(
        &self,
        request: Request<Streaming<pb::SolveRequest>>,
    ) -> Result<Response<Self::SolveStream>, Status> {
        super::solve::solve(Arc::clone(&self.state), request)
    }

    async fn get_tables(
        &self,
        request: Request<pb::GetTablesRequest>,
    ) -> Result<Response<Self::GetTablesStream>, Status> {
        let span = tracing::info_span!("GetTables", piles = request.get_ref().piles.len());
        super::tables::get_tables(&self.state, request)
            .instrument(span)
            .await
    }

    async fn suggest_move(
        &self,
        request: Request<pb::SuggestMoveRequest>,
    ) -> Result<Response<pb::SuggestMoveResponse>, Status> {
        let span = tracing::debug_span!("SuggestMove", piles = request.get_ref().piles.len());
        super::suggest::suggest_move(&self.state, request)
            .instrument(span)
            .await
    }

    async fn check(
        &self,
        request: Request<Streaming<pb::CheckRequest>>,
    ) -> Result<Response<pb::CheckResponse>, Status> {
        let span = tracing::info_span!(
            "Check",
            variant = tracing::field::Empty,
            verdict = tracing::field::Empty,
            cases = tracing::field::Empty,
        );
        super::check::check(&self.state, request)
            .instrument(span)
            .await
    }

    async fn generate(
        &self,
        request: Request<pb::GenerateRequest>,
    ) -> Result<Response<Self::GenerateStream>, Status> {
        let req = request.get_ref();
        let span = tracing::info_span!(
            "Generate",
            family = %req.family,
            cases = req.cases,
            max_n = req.max_n,
        );
        super::generate::generate(&self.state, request)
            .instrument(span)
            .await
    }
}

/// A server running on the current tokio runtime.
#[derive(Debug)]
pub struct RunningServer {
    /// The bound address (useful with port 0).
    pub addr: SocketAddr,
    /// The server's counters.
    pub metrics: Arc<Metrics>,
    /// The shared state (limits, budget).
    pub state: Arc<State>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServeError>>>,
}

impl RunningServer {
    /// Starts the graceful shutdown and waits for the server to stop.
    pub async fn shutdown(mut self) -> Result<(), ServeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task.await?,
            None => Ok(()),
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Binds `config.listen` and starts serving on the current runtime; stops on
/// [`RunningServer::shutdown`] (or when it is dropped).
pub async fn start(config: &Config) -> Result<RunningServer, ServeError> {
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let mut running = start_with_signal(config, async {
        let _ = stop_rx.await;
    })
    .await?;
    running.stop = Some(stop_tx);
    Ok(running)
}

/// Binds `config.listen`, prints `listening on ADDR` on stderr and serves
/// until SIGTERM or SIGINT, then shuts down gracefully.
pub async fn serve(config: &Config) -> Result<(), ServeError> {
    let running = start_with_signal(config, shutdown_signal()).await?;
    eprintln!("listening on {}", running.addr);
    tracing::info!(addr = %running.addr, "listening");
    let mut running = running;
    match running.task.take() {
        Some(task) => task.await?,
        None => Ok(()),
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM received"),
                    _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT received"),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only SIGINT stops the server");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn start_with_signal(
    config: &Config,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<RunningServer, ServeError> {
    let addr: SocketAddr = config
        .listen
        .parse()
        .map_err(|source| ServeError::Address {
            addr: config.listen.clone(),
            source,
        })?;
    let bind_err = |source| ServeError::Bind {
        addr: config.listen.clone(),
        source,
    };
    let listener = TcpListener::bind(addr).await.map_err(bind_err)?;
    let addr = listener.local_addr().map_err(bind_err)?;
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));

    let state = Arc::new(State::new(config)?);
    let (health, health_service) = tonic_health::server::health_reporter();
    health
        .set_service_status(SERVICE_NAME, ServingStatus::Serving)
        .await;
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    let service = StoneGameServer::new(StoneGameService::new(Arc::clone(&state)))
        .max_decoding_message_size(config.limits.max_message_bytes);
    // The flow-control windows stay at hyper's defaults (1 MiB per stream
    // and per connection): a Solve stream never holds more than
    // `max_batches_in_flight_per_stream` batches anyway, and larger windows
    // measured no different.
    let router = Server::builder()
        .max_frame_size(MAX_FRAME_SIZE)
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(service);

    tracing::debug!(config = ?config, "effective configuration");
    let grace = Duration::from_millis(config.shutdown_grace_ms);
    let (drain_tx, drain_rx) = oneshot::channel::<()>();
    let task_state = Arc::clone(&state);
    let task = tokio::spawn(async move {
        let server = router.serve_with_incoming_shutdown(incoming, async {
            let _ = drain_rx.await;
        });
        tokio::pin!(server);
        tokio::select! {
            result = &mut server => return result.map_err(ServeError::from),
            () = signal => {}
        }
        tracing::info!(grace_ms = grace.as_millis() as u64, "shutting down");
        task_state.rpcs.shut_down();
        health
            .set_service_status(SERVICE_NAME, ServingStatus::NotServing)
            .await;
        health
            .set_service_status("", ServingStatus::NotServing)
            .await;
        let _ = drain_tx.send(());
        match tokio::time::timeout(grace, &mut server).await {
            Ok(result) => result.map_err(ServeError::from)?,
            Err(_) => {
                tracing::warn!("grace period over: cancelling the RPCs still running");
                task_state.cancel_all.cancel();
            }
        }
        tracing::info!("stopped");
        Ok(())
    });
    Ok(RunningServer {
        addr,
        metrics: Arc::clone(&state.metrics),
        state,
        stop: None,
        task: Some(task),
    })
}
