//! The transport: building and serving the `StoneGame` service beside
//! grpc.health.v1 and server reflection (v1 and v1alpha), dispatching each
//! RPC to its handler, and graceful shutdown.
//!
//! Shutdown (SIGTERM/SIGINT for `stonegame serve`, [`RunningServer::shutdown`]
//! in-process): health goes NOT_SERVING, new RPCs are refused (UNAVAILABLE,
//! and HTTP/2 GOAWAY for new connections' streams), in-flight RPCs get
//! `shutdown_grace` to finish; after that their work is cancelled and the
//! server stops.
//!
//! Beside the gRPC listener, an HTTP listener serves the Prometheus metrics
//! (`metrics.listen`, [`crate::service::metrics`]) until the server stops; the
//! StoneGame RPCs pass a bearer-token interceptor ([`crate::service::edge::auth`]) and the
//! call layer ([`calls::layer`]: deadlines, counting), the connections are
//! counted by the transport's guard ([`transport::Incoming`]). With `max_connection_age` set, tonic
//! closes each connection gracefully (GOAWAY) once it is that old, and cuts
//! it `max_connection_age_grace` later if RPCs still run on it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use futures::StreamExt;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::either::Either;
use tokio_util::task::AbortOnDropHandle;
use tonic::service::LayerExt;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status, Streaming};
use tonic_health::ServingStatus;

use crate::wire::MAX_FRAME_SIZE;

use crate::service::config::Config;
use crate::service::edge::auth::{self, Authenticate};
use crate::service::edge::tls::{self, Conn};
use crate::service::edge::{calls, request_body, stream_guard, transport, web};
use crate::service::metrics::listener::{Render, serve_http};
use crate::service::metrics::{Metrics, Rpc};
use crate::service::pb;
use crate::service::pb::stone_game_server::{StoneGame, StoneGameServer};
use crate::service::rpc::{check, generate, play, solve, suggest, tables};
use crate::service::state::{BoxStream, State};

/// Accepted connections, plaintext or after their TLS handshake.
type AcceptedConns =
    std::pin::Pin<Box<dyn futures::Stream<Item = Result<Conn, std::io::Error>> + Send>>;
/// The connections served: [`AcceptedConns`] under `[transport]`'s
/// connection limit and preface deadline.
type Incoming = std::pin::Pin<
    Box<dyn futures::Stream<Item = Result<transport::Guarded<Conn>, std::io::Error>> + Send>,
>;

/// The StoneGame service as health names it (by its type's
/// `NamedService::NAME`, `stonegame.v1.StoneGame`).
type Served = StoneGameServer<StoneGameService>;

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The listen address is not a socket address.
    #[error(
        "cannot parse the listen address `{addr}`: {source}; set listen (STONEGAME_LISTEN, \
         --listen) to HOST:PORT"
    )]
    Address {
        addr: String,
        source: std::net::AddrParseError,
    },
    /// Binding the gRPC listener failed (e.g. the port is in use).
    #[error(
        "cannot listen on {addr}: {source}; set listen (STONEGAME_LISTEN, --listen) to another \
         address (port 0: any free port)"
    )]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    /// The metrics listen address is not a socket address.
    #[error(
        "cannot parse the metrics listen address `{addr}`: {source}; set metrics.listen \
         (STONEGAME_METRICS__LISTEN, --metrics-listen) to HOST:PORT, or \"\" for no metrics \
         listener"
    )]
    MetricsAddress {
        addr: String,
        source: std::net::AddrParseError,
    },
    /// Binding the metrics listener failed (e.g. the port is in use).
    #[error(
        "cannot listen for metrics on {addr}: {source}; set metrics.listen \
         (STONEGAME_METRICS__LISTEN, --metrics-listen) to another address, or \"\" for no \
         metrics listener"
    )]
    MetricsBind {
        addr: String,
        source: std::io::Error,
    },
    /// The shared state (the worker pool, the Play token key) could not
    /// be built.
    #[error(transparent)]
    State(#[from] crate::service::state::StateInitError),
    /// Reflection could not be set up.
    #[error("cannot set up server reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// The transport failed.
    #[error("the server failed: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The TLS certificates cannot be used.
    #[error(transparent)]
    Tls(#[from] crate::service::edge::tls::TlsError),
    /// The tokens file cannot be used.
    #[error(transparent)]
    Auth(#[from] crate::service::edge::auth::AuthError),
    /// The server task panicked or was aborted.
    #[error("the server task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// The `stonegame.v1.StoneGame` implementation.
#[derive(Debug, Clone)]
pub struct StoneGameService {
    state: Arc<State>,
    /// What every response stream may cost (`transport.send_stall_timeout`,
    /// `transport.max_stream_bytes_per_second`).
    streams: stream_guard::Limits,
}

impl StoneGameService {
    /// A service over shared state, its response streams under `streams`.
    pub fn new(state: Arc<State>, streams: stream_guard::Limits) -> Self {
        StoneGameService { state, streams }
    }

    /// `response`'s stream under the stream limits.
    fn guarded<T: prost::Message + Send + 'static>(
        &self,
        rpc: Rpc,
        response: Result<Response<BoxStream<T>>, Status>,
    ) -> Result<Response<BoxStream<T>>, Status> {
        let (streams, metrics) = (self.streams, Arc::clone(&self.state.metrics));
        response.map(|r| r.map(|s| stream_guard::guard(s, streams, rpc, metrics)))
    }
}

#[tonic::async_trait]
impl StoneGame for StoneGameService {
    type SolveStream = BoxStream<pb::SolveResponse>;
    type GetTablesStream = BoxStream<pb::TablesChunk>;
    type GenerateStream = BoxStream<pb::GenerateChunk>;
    type PlayStream = BoxStream<pb::PlayEvent>;

    async fn solve(
        &self,
        request: Request<Streaming<pb::SolveRequest>>,
    ) -> Result<Response<Self::SolveStream>, Status> {
        self.guarded(Rpc::Solve, solve::solve(Arc::clone(&self.state), request))
    }

    async fn get_tables(
        &self,
        request: Request<pb::GetTablesRequest>,
    ) -> Result<Response<Self::GetTablesStream>, Status> {
        self.guarded(
            Rpc::GetTables,
            tables::get_tables(&self.state, request).await,
        )
    }

    async fn suggest_move(
        &self,
        request: Request<pb::SuggestMoveRequest>,
    ) -> Result<Response<pb::SuggestMoveResponse>, Status> {
        suggest::suggest_move(&self.state, request).await
    }

    async fn check(
        &self,
        request: Request<Streaming<pb::CheckRequest>>,
    ) -> Result<Response<pb::CheckResponse>, Status> {
        check::check(&self.state, request).await
    }

    async fn generate(
        &self,
        request: Request<pb::GenerateRequest>,
    ) -> Result<Response<Self::GenerateStream>, Status> {
        self.guarded(
            Rpc::Generate,
            generate::generate(&self.state, request).await,
        )
    }

    async fn play(
        &self,
        request: Request<Streaming<pb::PlayRequest>>,
    ) -> Result<Response<Self::PlayStream>, Status> {
        self.guarded(Rpc::Play, play::play(Arc::clone(&self.state), request))
    }

    type PlayStepStream = BoxStream<pb::PlayEvent>;

    async fn play_step(
        &self,
        request: Request<pb::PlayStepRequest>,
    ) -> Result<Response<Self::PlayStepStream>, Status> {
        self.guarded(
            Rpc::PlayStep,
            play::play_step(Arc::clone(&self.state), request),
        )
    }
}

/// A server running on the current tokio runtime.
#[derive(Debug)]
pub struct RunningServer {
    /// The bound address (useful with port 0).
    pub addr: SocketAddr,
    /// The bound address of the metrics listener (`None`: `metrics.listen`
    /// is empty).
    pub metrics_addr: Option<SocketAddr>,
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

/// Binds `config.listen` (and `metrics.listen`), prints `listening on ADDR`
/// (and `metrics on ADDR`) on stderr and serves until SIGTERM or SIGINT,
/// then shuts down gracefully.
pub async fn serve(config: &Config) -> Result<(), ServeError> {
    let mut running = start_with_signal(config, shutdown_signal()).await?;
    eprintln!("listening on {}", running.addr);
    tracing::info!(addr = %running.addr, "listening");
    match running.metrics_addr {
        Some(addr) => {
            eprintln!("metrics on {addr}");
            tracing::info!(addr = %addr, "metrics listening");
        }
        None => tracing::info!("no metrics listener (metrics.listen is unset)"),
    }
    match running.task.take() {
        Some(task) => task.await?,
        None => Ok(()),
    }
}

/// A future that completes at SIGTERM or SIGINT. The handlers are installed
/// here, at once, not when the future is first polled: a signal that comes
/// right after `listening on ADDR` is printed (before the server task runs)
/// must start the graceful shutdown, not kill the process.
fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let int = signal(SignalKind::interrupt());
        async move {
            match (term, int) {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => tracing::info!("SIGTERM received"),
                        _ = int.recv() => tracing::info!("SIGINT received"),
                    }
                }
                (term, int) => {
                    let e = term.err().or(int.err());
                    tracing::warn!(error = ?e, "cannot listen for SIGTERM and SIGINT; falling back to ctrl_c");
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

async fn start_with_signal(
    config: &Config,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<RunningServer, ServeError> {
    let (listener, addr) = bind(&config.listen, false).await?;
    let metrics_bound = match config.metrics.listen.as_deref() {
        Some(listen) => Some(bind(listen, true).await?),
        None => None,
    };
    let metrics_addr = metrics_bound.as_ref().map(|&(_, addr)| addr);

    let state = Arc::new(State::new(config)?);
    if state.play.key.is_random() {
        tracing::warn!(
            key_id = %state.play.key.id_hex(),
            "play.token_key is unset: Play state tokens are signed with a random key of this \
             process and resume only here (set STONEGAME_PLAY__TOKEN_KEY to share one)"
        );
    } else {
        tracing::info!(key_id = %state.play.key.id_hex(), "Play state tokens signed with play.token_key");
    }
    // The files are checked before anything is served: an error names the
    // file and the server does not start.
    let tls = tls::load(&config.tls, &state.metrics)?;
    let tokens_file = config.auth.tokens_file.as_deref();
    let auth = tokens_file
        .map(|path| auth::load(path, config.auth.reload_interval, &state.metrics))
        .transpose()?;
    let accepted: AcceptedConns = match &tls {
        // After the TLS handshake (its own deadline, in tls::incoming).
        Some(tls) => Box::pin(tls::incoming(
            listener,
            Arc::clone(&tls.certificates),
            Arc::clone(&state.metrics),
        )),
        None => Box::pin(
            transport::tcp_options(TcpIncoming::from(listener), &config.transport)
                .map(|accepted| accepted.map(Either::Left)),
        ),
    };
    // At most transport.max_connections open, each with a deadline for the
    // HTTP/2 preface (after TLS, on the decrypted bytes), and counted.
    let incoming: Incoming = Box::pin(transport::Incoming::new(
        accepted,
        &config.transport,
        Arc::clone(&state.metrics),
    ));
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<Served>().await;
    // Reflection describes StoneGame and health, in both versions.
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let (reflection_v1, reflection_v1alpha) =
        (reflection().build_v1()?, reflection().build_v1alpha()?);
    let streams = stream_guard::Limits {
        stall: transport::nonzero(config.transport.send_stall_timeout),
        bytes_per_second: config.transport.max_stream_bytes_per_second,
    };
    let service = StoneGameServer::new(StoneGameService::new(Arc::clone(&state), streams))
        .max_decoding_message_size(config.limits.max_message_bytes.get());
    // Only StoneGame's RPCs need a token: health and reflection stay open
    // (probes). Without auth.tokens_file every call passes.
    let service = InterceptedService::new(
        service,
        Authenticate::new(
            auth.as_ref().map(|a| Arc::clone(&a.tokens)),
            Arc::clone(&state.metrics),
        ),
    );
    // Health checks and reflection are not counted: only StoneGame's RPCs
    // (those refused for their token too, as UNAUTHENTICATED). The layer
    // also reads each call's deadline once, for the handlers.
    let service = calls::layer(Arc::clone(&state.metrics)).named_layer(service);
    // The flow-control windows stay at hyper's defaults (1 MiB per stream
    // and per connection): a Solve stream never holds more than
    // `max_batches_in_flight_per_stream` batches anyway, and larger windows
    // measured no different.
    // The HTTP/2 limits against hostile clients ([transport]).
    // HTTP/1.1 too, for gRPC-Web, JSON and the page (browsers speak
    // HTTP/2 only over TLS).
    let builder = transport::apply(
        Server::builder()
            .max_frame_size(MAX_FRAME_SIZE)
            .accept_http1(true),
        &config.transport,
    );
    // In front of the gRPC router, from the outside in: CORS (when origins
    // are listed), the page, Connect JSON, the protocol mark, gRPC-Web.
    // Outermost, every request's body under request_body_timeout.
    let mut builder = builder
        .layer(request_body::timeout_layer(transport::nonzero(
            config.transport.request_body_timeout,
        )))
        .layer(tower::util::option_layer(web::cors(&config.web)))
        .layer(tower::util::option_layer(web::page::layer(config.web.page)))
        .layer(web::connect::layer(
            &config.limits,
            Arc::clone(&state.metrics),
        ))
        .layer(web::protocol::layer(Arc::clone(&state.metrics)))
        .layer(tonic_web::GrpcWebLayer::new())
        // Innermost, on gRPC's framing whatever the protocol: each
        // method's messages bounded and reserved before they are held.
        .layer(request_body::limit_layer(Arc::clone(&state)));
    if let Some(age) = transport::nonzero(config.max_connection_age) {
        // tonic sends GOAWAY when a connection reaches this age and lets
        // its RPCs finish, for at most the grace if one is set.
        builder = builder.max_connection_age(age);
        if let Some(grace) = transport::nonzero(config.max_connection_age_grace) {
            builder = builder.max_connection_age_grace(grace);
        }
    }
    let router = builder
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(service);

    tracing::debug!(config = ?config, "effective configuration");
    let grace = config.shutdown_grace;
    let (drain_tx, drain_rx) = oneshot::channel::<()>();
    let task_state = Arc::clone(&state);
    let metrics_task = metrics_bound.map(|(listener, _)| {
        let render_state = Arc::clone(&state);
        let render: Render = Arc::new(move || render_state.encode_metrics());
        AbortOnDropHandle::new(tokio::spawn(serve_http(listener, render)))
    });
    let task = tokio::spawn(async move {
        // The metrics are served, and the certificates and tokens re-read,
        // until the server stops.
        let _metrics_task = metrics_task;
        let _reloading = (tls, auth);
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
        health.set_not_serving::<Served>().await;
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
        metrics_addr,
        metrics: Arc::clone(&state.metrics),
        state,
        stop: None,
        task: Some(task),
    })
}

/// Binds `listen` (the gRPC or, `metrics`, the metrics listener): the
/// listener and its address (with port 0, the port it got).
async fn bind(listen: &str, metrics: bool) -> Result<(TcpListener, SocketAddr), ServeError> {
    let addr = listen.to_string();
    let parsed: SocketAddr = listen.parse().map_err(|source| match metrics {
        false => ServeError::Address {
            addr: addr.clone(),
            source,
        },
        true => ServeError::MetricsAddress {
            addr: addr.clone(),
            source,
        },
    })?;
    let bound = async {
        let listener = TcpListener::bind(parsed).await?;
        let local = listener.local_addr()?;
        Ok((listener, local))
    };
    bound.await.map_err(|source| match metrics {
        false => ServeError::Bind { addr, source },
        true => ServeError::MetricsBind { addr, source },
    })
}
