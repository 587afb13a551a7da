//! A Rust client of the `stonegame.v1.StoneGame` service.
//!
//! * [`Client::solve_stream`] opens one Solve stream fed by a stream of
//!   batches; the server answers batch by batch, in order, with several in
//!   flight. [`Client::solve`] does the batching for a list of cases and
//!   sends every row as `Case.piles_le` (little-endian words of the fewest
//!   bytes that hold the row's largest pile, named in `piles_le_width`:
//!   much cheaper to encode and decode than varints, and 4 bytes a pile or
//!   less for the original problem's piles); [`solve_case`] builds such a
//!   case and [`pack_case`] converts one.
//! * [`Client::suggest`] wraps SuggestMove, [`Client::tables`] collects and
//!   unpacks GetTables, [`Client::health`] asks grpc.health.v1.
//! * [`Client::check`] streams a test input and an answer to Check,
//!   alternately in [`CHECK_CHUNK`]-byte chunks, and returns the checker's
//!   report; [`Client::generate`] opens a Generate stream for a
//!   [`GenSpec`].
//! * [`Client::play`] starts a whole game on a Play stream and
//!   [`Client::resume_play`] continues one from a state token
//!   ([`PlaySession`], [`play`]).
//! * [`loadtest`] measures QPS and latency percentiles of SuggestMove (or of
//!   the health check, the floor), closed loop with many concurrent clients
//!   or open loop at a fixed rate ([`load`]), and bot replies per second
//!   in whole Play games beside per-move server time ([`playload`]).
//!
//! Replicas ([`target`], [`resolve`], [`replicated`]; docs/replicas.md): a
//! client connects to one URL (one connection, as `http://HOST:PORT`
//! always did), to a comma-separated list of URLs, or to every address of
//! a `dns:///HOST:PORT` name, re-resolved periodically and after failures.
//! With several replicas, unary calls and single streams go through tonic's
//! balancing channel (and a call refused with UNAVAILABLE is tried again,
//! twice); [`Client::solve_batches`] opens a Solve stream on every replica,
//! resends the unanswered batches of a replica that fails, and returns the
//! answers in input order, each exactly once.

use std::future::Future;
use std::io::{self, Read};
use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use tonic::{Code, Status, Streaming};

use crate::core::Variant;
use crate::core::tables::decode;
use crate::judge::check::CheckReport;
use crate::judge::generate::GenSpec;
use crate::wire::pb::stone_game_client::StoneGameClient;
use crate::wire::{LeWidth, MAX_FRAME_SIZE, pb, piles_to_le, unpack_code};

pub mod diagnose;
pub mod goaway;
pub mod load;
pub mod loadspec;
pub mod play;
pub mod playload;
pub mod replicated;
pub mod resolve;
pub mod schedule;
pub mod target;
pub mod web;

pub use goaway::never_reached_server;
pub use load::{loadtest, loadtest_with};
pub use loadspec::{LoadReport, LoadRpc, LoadSpec, LoadSpecError};
pub use play::{GameSpec, PlayEvent, PlaySession, Seat};
pub use playload::{SelfPlayReport, selfplay, selfplay_with};
pub use replicated::{Notice, SolveOptions, SolveRun};
pub use resolve::{ReplicaSet, Replicas};
pub use schedule::{ReplicaStats, RetryPolicy};
pub use target::{Source, Target, TargetError};

/// Largest response message the client accepts.
const MAX_MESSAGE: usize = 64 << 20;

/// Why a client call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server address is unusable or unreachable.
    #[error("cannot connect to {url}: {}", diagnose::connect_failure(.url, .source))]
    Connect {
        url: String,
        source: tonic::transport::Error,
    },
    /// The `--server` value is malformed.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A `dns:///` name could not be resolved (or has no address).
    #[error("cannot resolve {name}: {source}")]
    Resolve { name: String, source: io::Error },
    /// Every replica failed too often (or left the resolved set) while
    /// batches were left.
    #[error(
        "no replica left to send to: tried {}; {answered} cases were answered",
        tried_list(.tried)
    )]
    NoReplicaLeft {
        /// Every replica, with its last error.
        tried: Vec<ReplicaStats>,
        /// Cases answered (and returned in order) before.
        answered: u64,
    },
    /// A batch failed on too many streams.
    #[error(
        "batch {} failed on {attempts} streams (last: {last_error}); {answered} cases were answered",
        .batch + 1
    )]
    BatchGaveUp {
        /// Its 0-based index.
        batch: u64,
        /// Streams that failed with it in flight.
        attempts: u32,
        /// The last error, with its replica.
        last_error: String,
        /// Cases answered (and returned in order) before.
        answered: u64,
    },
    /// The server answered with an error status (or the connection
    /// failed under the call: [`diagnose::status`] tells which).
    #[error("{}", diagnose::status(.0))]
    Status(#[from] Status),
    /// The server broke the protocol's promises.
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
    /// A URL the gRPC-Web or JSON client cannot use.
    #[error("{url}: {reason}")]
    WebUrl { url: String, reason: String },
    /// A load test's parameters are unusable.
    #[error(transparent)]
    LoadSpec(#[from] LoadSpecError),
    /// A local file could not be read.
    #[error("cannot read the {what}: {source}")]
    Read {
        what: &'static str,
        source: io::Error,
    },
    /// A client TLS file or option is unusable.
    #[error("TLS: {0}")]
    Tls(String),
    /// The bearer token is unusable (it is never shown).
    #[error("the bearer token {0}")]
    Token(String),
}

/// The replicas of a [`ClientError::NoReplicaLeft`], each with its record.
fn tried_list(tried: &[ReplicaStats]) -> String {
    let list: Vec<String> = tried
        .iter()
        .map(|r| {
            let mut s = format!(
                "{} ({} batches answered, {} failures",
                r.replica, r.batches, r.failures
            );
            if let Some(e) = &r.last_error {
                s.push_str(&format!(", last: {e}"));
            }
            if r.removed {
                s.push_str(", left the resolved set");
            }
            s.push(')');
            s
        })
        .collect();
    list.join(", ")
}

/// Bytes per chunk [`Client::check`] sends.
pub const CHECK_CHUNK: usize = 64 << 10;

/// Sends `input` and `answer` alternately, a chunk of each at a time, until
/// both end. On a read error the stream is left open (an `Err` item tells
/// [`Client::check`] to drop the call) so the server never judges a
/// truncated file.
fn feed_check(
    mut input: impl Read,
    mut answer: impl Read,
    variant: i32,
    tx: &mpsc::Sender<Result<pb::CheckRequest, ()>>,
) -> Result<(), ClientError> {
    use pb::check_request::Part;
    let mut ended = [false, false];
    while !ended.iter().all(|&e| e) {
        for (i, what) in ["input", "answer"].into_iter().enumerate() {
            if ended[i] {
                continue;
            }
            let reader: &mut dyn Read = if i == 0 { &mut input } else { &mut answer };
            let mut buf = Vec::with_capacity(CHECK_CHUNK);
            if let Err(source) = reader.take(CHECK_CHUNK as u64).read_to_end(&mut buf) {
                let _ = tx.blocking_send(Err(()));
                return Err(ClientError::Read { what, source });
            }
            ended[i] = buf.len() < CHECK_CHUNK;
            if buf.is_empty() {
                continue;
            }
            let part = if i == 0 {
                Part::InputChunk(buf)
            } else {
                Part::AnswerChunk(buf)
            };
            let message = pb::CheckRequest {
                part: Some(part),
                variant,
            };
            if tx.blocking_send(Ok(message)).is_err() {
                // The call ended (the server answered or failed).
                return Ok(());
            }
        }
    }
    Ok(())
}

/// `piles` as the client sends them: `Case.piles_le` in the narrowest width
/// that holds the largest pile, and the `Case.piles_le_width` naming it.
fn packed(piles: &[u64]) -> (prost::bytes::Bytes, u32) {
    let width = LeWidth::narrowest(piles);
    (piles_to_le(piles, width), width.to_pb())
}

/// A Solve case carrying `piles` in `piles_le`, in the narrowest width
/// that holds them.
pub fn solve_case(id: impl Into<String>, piles: &[u64], variant: Variant) -> pb::Case {
    let (piles_le, piles_le_width) = packed(piles);
    pb::Case {
        id: id.into(),
        piles: Vec::new(),
        variant: pb::Variant::from(variant) as i32,
        piles_le,
        piles_le_width,
    }
}

/// Moves a case's row from `piles` to `piles_le`, in the narrowest width
/// that holds it (rows of piles below 2^32 take half the bytes of 8-byte
/// words). A case that already uses `piles_le` (or sets both fields, which
/// the server refuses) is left as it is.
pub fn pack_case(case: &mut pb::Case) {
    if case.piles_le.is_empty() && !case.piles.is_empty() {
        (case.piles_le, case.piles_le_width) = packed(&case.piles);
        case.piles = Vec::new();
    }
}

/// The request of a [`GenSpec`].
pub fn generate_request(spec: &GenSpec) -> pb::GenerateRequest {
    pb::GenerateRequest {
        family: spec.family.name().to_string(),
        cases: spec.cases,
        max_n: spec.max_n,
        max_a: spec.max_a,
        seed: spec.seed,
        variant: pb::Variant::from(spec.variant) as i32,
    }
}

/// How connections to the servers are made.
#[derive(Debug, Clone)]
pub(crate) struct EndpointSettings {
    connect_timeout: Option<Duration>,
    keepalive: Option<Duration>,
    /// TLS for every connection (`https://`).
    tls: Option<ClientTlsConfig>,
    /// The bearer token every StoneGame call carries.
    pub(crate) token: AddToken,
}

impl EndpointSettings {
    /// The endpoint of one server URL (over TLS: as `https://`).
    pub(crate) fn endpoint(&self, url: &str) -> Result<Endpoint, ClientError> {
        let url = match (&self.tls, url.strip_prefix("http://")) {
            (Some(_), Some(rest)) => format!("https://{rest}"),
            _ => url.to_string(),
        };
        let url = url.as_str();
        let mut endpoint = Endpoint::from_shared(url.to_string())
            .map_err(|source| ClientError::Connect {
                url: url.to_string(),
                source,
            })?
            .tcp_nodelay(true)
            .max_frame_size(MAX_FRAME_SIZE);
        if let Some(tls) = &self.tls {
            endpoint = endpoint
                .tls_config(tls.clone())
                .map_err(|source| ClientError::Connect {
                    url: url.to_string(),
                    source,
                })?;
        }
        if let Some(timeout) = self.connect_timeout {
            endpoint = endpoint.connect_timeout(timeout);
        }
        if let Some(interval) = self.keepalive {
            // Pings only while streams are open: a replica whose machine
            // vanished (no RST) is noticed within two intervals.
            endpoint = endpoint
                .http2_keep_alive_interval(interval)
                .keep_alive_timeout(interval)
                .keep_alive_while_idle(false);
        }
        Ok(endpoint)
    }
}

/// How a [`Client`] connects: `Client::builder(server)…connect()`.
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    server: String,
    resolve_every: Duration,
    settings: EndpointSettings,
    tls: TlsOptions,
}

/// The client side of TLS (docs/security.md). TLS is used when the server
/// address has an `https://` URL or any option here is set; then every
/// connection (every entry of a list, every address of a `dns:///` name)
/// uses it.
#[derive(Debug, Clone, Default)]
pub struct TlsOptions {
    /// Use TLS even with `http://` (or bare `HOST:PORT`) addresses.
    pub enabled: bool,
    /// PEM CA certificates the server's certificate must chain to; `None`:
    /// the system's roots.
    pub ca_pem: Option<Vec<u8>>,
    /// PEM certificate chain and private key presented to a server that
    /// asks for one (mTLS).
    pub identity: Option<(Vec<u8>, Vec<u8>)>,
    /// The name the server's certificate must carry; `None`: the URL's
    /// host, or for `dns:///HOST:PORT` (every entry the same HOST) that
    /// HOST.
    pub server_name: Option<String>,
}

impl TlsOptions {
    /// Options from files (`--tls-ca`, `--tls-cert`, `--tls-key`); a
    /// certificate needs its key and the other way round.
    pub fn from_files(
        ca: Option<&std::path::Path>,
        cert: Option<&std::path::Path>,
        key: Option<&std::path::Path>,
        server_name: Option<String>,
    ) -> Result<TlsOptions, ClientError> {
        let read = |what: &str, path: &std::path::Path| {
            std::fs::read(path).map_err(|e| {
                ClientError::Tls(format!("cannot read the {what} {}: {e}", path.display()))
            })
        };
        let ca_pem = ca.map(|p| read("CA file (--tls-ca)", p)).transpose()?;
        let identity = match (cert, key) {
            (Some(c), Some(k)) => Some((
                read("client certificate (--tls-cert)", c)?,
                read("client key (--tls-key)", k)?,
            )),
            (None, None) => None,
            _ => {
                return Err(ClientError::Tls(
                    "--tls-cert and --tls-key go together (the certificate and its key)".into(),
                ));
            }
        };
        Ok(TlsOptions {
            enabled: false,
            ca_pem,
            identity,
            server_name,
        })
    }

    fn wanted(&self) -> bool {
        self.enabled
            || self.ca_pem.is_some()
            || self.identity.is_some()
            || self.server_name.is_some()
    }
}

/// The first token of a tokens file (`--token-file`): the first line that
/// is neither blank nor a `#` comment, trimmed.
pub fn read_token_file(path: &std::path::Path) -> Result<String, ClientError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ClientError::Token(format!("file {} cannot be read: {e}", path.display())))?;
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())
        .map(str::to_string)
        .ok_or_else(|| ClientError::Token(format!("file {} holds no token", path.display())))
}

/// Adds `authorization: Bearer TOKEN` to every call (when there is a
/// token); the value is marked sensitive (never indexed by HPACK).
#[derive(Clone, Default)]
pub struct AddToken(Option<MetadataValue<Ascii>>);

impl std::fmt::Debug for AddToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.write_str(if self.0.is_some() {
            "AddToken(set)"
        } else {
            "AddToken(none)"
        })
    }
}

impl AddToken {
    /// The interceptor of `token` (`None`: adds nothing). A token must be
    /// printable ASCII without spaces.
    pub fn new(token: Option<&str>) -> Result<AddToken, ClientError> {
        let Some(token) = token else {
            return Ok(AddToken(None));
        };
        let token = token.trim();
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ClientError::Token(
                "must be printable ASCII without spaces, and not empty".into(),
            ));
        }
        let mut value: MetadataValue<Ascii> = format!("Bearer {token}")
            .parse()
            .map_err(|_| ClientError::Token("is not valid metadata".into()))?;
        value.set_sensitive(true);
        Ok(AddToken(Some(value)))
    }
}

impl Interceptor for AddToken {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// The transport of the StoneGame calls: a channel adding the token.
pub type Transport = InterceptedService<Channel, AddToken>;

/// The generated client over a [`Transport`].
pub(crate) fn stonegame_client(channel: Channel, token: &AddToken) -> StoneGameClient<Transport> {
    StoneGameClient::with_interceptor(channel, token.clone())
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE)
}

impl ClientBuilder {
    /// The server address as given (`--server`).
    pub fn server(&self) -> &str {
        &self.server
    }

    /// TLS options (see [`TlsOptions`]).
    pub fn tls(mut self, tls: TlsOptions) -> ClientBuilder {
        self.tls = tls;
        self
    }

    /// The bearer token sent with every StoneGame call (`None`: none).
    pub fn token(mut self, token: Option<&str>) -> Result<ClientBuilder, ClientError> {
        self.settings.token = AddToken::new(token)?;
        Ok(self)
    }

    /// How often `dns:///` names are resolved again (default 30 s; they
    /// are also resolved again soon after a connection fails).
    pub fn resolve_every(mut self, every: Duration) -> ClientBuilder {
        self.resolve_every = every.max(Duration::from_millis(100));
        self
    }

    /// The longest a TCP connection may take to open (default 5 s; `None`:
    /// the system's).
    pub fn connect_timeout(mut self, timeout: Option<Duration>) -> ClientBuilder {
        self.settings.connect_timeout = timeout;
        self
    }

    /// HTTP/2 keepalive: a ping this often while streams are open, the
    /// connection dropped when one is not answered within as long (default
    /// 10 s; `None`: off).
    pub fn keepalive(mut self, interval: Option<Duration>) -> ClientBuilder {
        self.settings.keepalive = interval;
        self
    }

    /// Parses the server address and connects: a single URL connects now
    /// (an unreachable server is an error here, as always); a list or a
    /// `dns:///` name is resolved now (an unresolvable name is an error
    /// here) and connects to each replica on first use.
    pub async fn connect(mut self) -> Result<Client, ClientError> {
        let target = Target::parse(&self.server)?;
        if target.wants_tls() || self.tls.wanted() {
            let mut tls = ClientTlsConfig::new();
            tls = match &self.tls.ca_pem {
                Some(pem) => tls.ca_certificate(Certificate::from_pem(pem)),
                None => tls.with_native_roots(),
            };
            if let Some((cert, key)) = &self.tls.identity {
                tls = tls.identity(Identity::from_pem(cert, key));
            }
            if let Some(name) = self
                .tls
                .server_name
                .as_deref()
                .or_else(|| target.dns_host())
            {
                tls = tls.domain_name(name);
            }
            self.settings.tls = Some(tls);
        }
        match &target {
            Target::Single(url) => {
                let channel = self
                    .settings
                    .endpoint(url)?
                    .connect()
                    .await
                    .map_err(|source| ClientError::Connect {
                        url: url.clone(),
                        source,
                    })?;
                let replicas = Replicas::fixed(url);
                let token = self.settings.token.clone();
                Ok(Client::assemble(
                    channel.clone(),
                    target,
                    replicas,
                    replicated::Channels::Single(channel, token),
                ))
            }
            Target::Balanced(_) => {
                let (channel, replicas) =
                    resolve::start(&target, &self.settings, self.resolve_every).await?;
                Ok(Client::assemble(
                    channel,
                    target,
                    replicas,
                    replicated::Channels::PerReplica(self.settings),
                ))
            }
        }
    }
}

/// A connected client: to one server, or balanced over replicas.
#[derive(Debug, Clone)]
pub struct Client {
    channel: Channel,
    inner: StoneGameClient<Transport>,
    target: Arc<Target>,
    replicas: Replicas,
    channels: replicated::Channels,
}

/// Attempts of a unary call (or of opening a stream) refused by a GOAWAY
/// race, or over several replicas refused with UNAVAILABLE.
const CALL_ATTEMPTS: u32 = 3;

impl Client {
    /// Connects to `server` with the default settings: `http://HOST:PORT`
    /// (a bare `HOST:PORT` gets `http://`), `dns:///HOST:PORT` or a
    /// comma-separated list of those ([`Client::builder`]).
    pub async fn connect(server: &str) -> Result<Client, ClientError> {
        Client::builder(server).connect().await
    }

    /// A builder for `server` (see [`Client::connect`]).
    pub fn builder(server: &str) -> ClientBuilder {
        ClientBuilder {
            server: server.to_string(),
            resolve_every: Duration::from_secs(30),
            settings: EndpointSettings {
                connect_timeout: Some(Duration::from_secs(5)),
                keepalive: Some(Duration::from_secs(10)),
                tls: None,
                token: AddToken::default(),
            },
            tls: TlsOptions::default(),
        }
    }

    /// A client over an existing channel (one server).
    pub fn from_channel(channel: Channel) -> Client {
        Client::from_channel_with_token(channel, AddToken::default())
    }

    /// A client over an existing channel (one server), sending `token`.
    pub fn from_channel_with_token(channel: Channel, token: AddToken) -> Client {
        let target = Target::Single("(channel)".into());
        let replicas = Replicas::fixed("(channel)");
        let channels = replicated::Channels::Single(channel.clone(), token);
        Client::assemble(channel, target, replicas, channels)
    }

    fn assemble(
        channel: Channel,
        target: Target,
        replicas: Replicas,
        channels: replicated::Channels,
    ) -> Client {
        let inner = stonegame_client(channel.clone(), channels.token());
        Client {
            channel,
            inner,
            target: Arc::new(target),
            replicas,
            channels,
        }
    }

    /// What the client was connected to.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The replicas now known (one for a single URL).
    pub fn replicas(&self) -> ReplicaSet {
        self.replicas.current()
    }

    /// The generated client, for anything not wrapped here.
    pub fn raw(&mut self) -> &mut StoneGameClient<Transport> {
        &mut self.inner
    }

    /// Runs `call`. A call that raced a server's graceful GOAWAY and never
    /// reached it ([`never_reached_server`]) is sent again at once, on any
    /// target, up to [`CALL_ATTEMPTS`] times in all. Over several
    /// replicas, a call refused with UNAVAILABLE (a replica gone or shutting
    /// down) is tried again too, with backoff, and the resolver is told.
    async fn with_resends<T, F, Fut>(&self, mut call: F) -> Result<T, Status>
    where
        F: FnMut(StoneGameClient<Transport>) -> Fut,
        Fut: Future<Output = Result<T, Status>>,
    {
        let mut attempt = 1;
        loop {
            match call(self.inner.clone()).await {
                Err(status) if never_reached_server(&status) && attempt < CALL_ATTEMPTS => {
                    attempt += 1;
                }
                Err(status)
                    if status.code() == Code::Unavailable
                        && self.target.is_balanced()
                        && attempt < CALL_ATTEMPTS =>
                {
                    self.replicas.report_failure();
                    tokio::time::sleep(Duration::from_millis(50 << attempt)).await;
                    attempt += 1;
                }
                result => return result,
            }
        }
    }

    /// Solves a stream of batches over every replica: one Solve stream per
    /// replica with `options.in_flight` batches in flight on each, the
    /// batches of a replica that fails resent to the others (bounded by
    /// `options.retry`), and the answers returned in input order, each
    /// exactly once ([`SolveRun`]). Rows given in `piles` are sent as they
    /// are (see [`pack_case`]).
    pub fn solve_batches(
        &self,
        batches: impl Stream<Item = pb::SolveRequest> + Send + Unpin + 'static,
        options: SolveOptions,
    ) -> SolveRun {
        replicated::start(
            batches,
            self.replicas.clone(),
            self.channels.clone(),
            options,
        )
    }

    /// Opens a Solve stream sending `batches`; responses come one per batch,
    /// in order. One stream goes to one server (over several replicas, the
    /// one the balancer picks): [`Client::solve_batches`] spreads the work
    /// and survives a lost replica.
    pub async fn solve_stream(
        &mut self,
        batches: impl Stream<Item = pb::SolveRequest> + Send + 'static,
    ) -> Result<Streaming<pb::SolveResponse>, ClientError> {
        Ok(self.inner.solve(batches).await?.into_inner())
    }

    /// Solves `cases` in batches of `batch_size` over one stream (all sent
    /// ahead of the answers); the results come back in case order. Rows given in `piles` are sent as
    /// `piles_le` ([`pack_case`]), each batch as it is sent.
    pub async fn solve(
        &mut self,
        cases: Vec<pb::Case>,
        batch_size: usize,
    ) -> Result<Vec<pb::CaseResult>, ClientError> {
        let total = cases.len();
        let mut batches = Vec::new();
        let mut it = cases.into_iter().peekable();
        while it.peek().is_some() {
            batches.push(pb::SolveRequest {
                cases: it.by_ref().take(batch_size.max(1)).collect(),
            });
        }
        let expected: Vec<usize> = batches.iter().map(|b| b.cases.len()).collect();
        let packed = futures::stream::iter(batches).map(|mut batch| {
            batch.cases.iter_mut().for_each(pack_case);
            batch
        });
        let mut responses = self.solve_stream(packed).await?;
        let mut out = Vec::with_capacity(total);
        for want in expected {
            let response = responses
                .message()
                .await?
                .ok_or_else(|| ClientError::Protocol("the stream ended early".into()))?;
            if response.results.len() != want {
                return Err(ClientError::Protocol(format!(
                    "a batch of {want} cases got {} results",
                    response.results.len()
                )));
            }
            out.extend(response.results);
        }
        Ok(out)
    }

    /// Checks `answer` against the test `input` for `variant`: both are
    /// read on a blocking thread and sent alternately in [`CHECK_CHUNK`]-byte
    /// chunks over one Check stream. The report is the offline checker's.
    pub async fn check(
        &mut self,
        input: impl Read + Send + 'static,
        answer: impl Read + Send + 'static,
        variant: Variant,
    ) -> Result<CheckReport, ClientError> {
        let raw = pb::Variant::from(variant) as i32;
        let (tx, rx) = mpsc::channel::<Result<pb::CheckRequest, ()>>(4);
        // The first message carries the variant even if both files are empty.
        let first = pb::CheckRequest {
            part: None,
            variant: raw,
        };
        let _ = tx.send(Ok(first)).await;
        let mut feeder = tokio::task::spawn_blocking(move || feed_check(input, answer, raw, &tx));
        let requests = futures::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await {
                Some(Ok(message)) => Some((message, rx)),
                // A read error: never end the stream normally.
                Some(Err(())) => futures::future::pending().await,
                None => None,
            }
        });
        let call = self.inner.check(requests);
        tokio::pin!(call);
        let response = tokio::select! {
            response = &mut call => response?,
            fed = &mut feeder => {
                match fed {
                    Ok(Ok(())) => call.await?,
                    Ok(Err(e)) => return Err(e),
                    Err(e) => return Err(ClientError::Protocol(format!("the reading task failed: {e}"))),
                }
            }
        };
        CheckReport::try_from(response.into_inner())
            .map_err(|e| ClientError::Protocol(format!("a Check response is malformed: {e}")))
    }

    /// Opens a Generate stream for `spec`: the input in `input_chunk`s, the
    /// expected answers in `answer_chunk`s.
    pub async fn generate(
        &mut self,
        spec: &GenSpec,
    ) -> Result<Streaming<pb::GenerateChunk>, ClientError> {
        let request = generate_request(spec);
        Ok(self
            .with_resends(|mut c| {
                let request = request.clone();
                async move { c.generate(request).await }
            })
            .await?
            .into_inner())
    }

    /// Asks for a move; `strength` `None` means perfect play.
    pub async fn suggest(
        &mut self,
        piles: Vec<u64>,
        variant: Variant,
        strength: Option<f64>,
        seed: u64,
    ) -> Result<pb::SuggestMoveResponse, ClientError> {
        let req = pb::SuggestMoveRequest {
            piles,
            variant: pb::Variant::from(variant) as i32,
            strength,
            seed,
        };
        Ok(self
            .with_resends(|mut c| {
                let req = req.clone();
                async move { c.suggest_move(req).await }
            })
            .await?
            .into_inner())
    }

    /// Fetches and unpacks the tables of a row.
    pub async fn tables(
        &mut self,
        piles: Vec<u64>,
        chunk_rows: u32,
    ) -> Result<TableCodes, ClientError> {
        let n = piles.len();
        let piles_kept = piles.clone();
        let request = pb::GetTablesRequest { piles, chunk_rows };
        let mut stream = self
            .with_resends(|mut c| {
                let request = request.clone();
                async move { c.get_tables(request).await }
            })
            .await?
            .into_inner();
        let mut codes = TableCodes {
            n,
            piles: piles_kept,
            left: Vec::with_capacity(n * (n + 1) / 2),
            right: Vec::with_capacity(n * (n + 1) / 2),
        };
        let mut next_row = 0usize;
        while let Some(chunk) = stream.message().await? {
            let entries: usize = (next_row..next_row + chunk.row_count as usize)
                .map(|i| n.saturating_sub(i))
                .sum();
            if chunk.first_row as usize != next_row
                || chunk.n as usize != n
                || chunk.entries as usize != entries
            {
                return Err(ClientError::Protocol(format!(
                    "chunk of rows {}+{} does not follow row {next_row} of {n}",
                    chunk.first_row, chunk.row_count
                )));
            }
            for k in 0..entries {
                let (l, r) = unpack_code(&chunk.left_codes, k)
                    .zip(unpack_code(&chunk.right_codes, k))
                    .ok_or_else(|| {
                        ClientError::Protocol("a chunk holds fewer codes than it says".into())
                    })?;
                codes.left.push(l);
                codes.right.push(r);
            }
            next_row += chunk.row_count as usize;
        }
        if next_row != n {
            return Err(ClientError::Protocol(format!(
                "the tables stopped at row {next_row} of {n}"
            )));
        }
        Ok(codes)
    }

    /// The serving status of `service` ("" = the whole server).
    pub async fn health(&self, service: &str) -> Result<i32, ClientError> {
        let request = tonic_health::pb::HealthCheckRequest {
            service: service.to_string(),
        };
        let channel = self.channel.clone();
        let resp = self
            .with_resends(|_| {
                let mut health =
                    tonic_health::pb::health_client::HealthClient::new(channel.clone());
                let request = request.clone();
                async move { health.check(request).await }
            })
            .await?;
        Ok(resp.into_inner().status)
    }
}

/// The 2-bit codes of a row's tables (see `TablesChunk` in the .proto),
/// one byte per entry, rows i = 0..n in order, entries j = i..n in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCodes {
    /// Number of piles.
    pub n: usize,
    /// The row.
    pub piles: Vec<u64>,
    /// Codes of `left[i][j]`.
    pub left: Vec<u8>,
    /// Codes of `right[i][j]`.
    pub right: Vec<u8>,
}

impl TableCodes {
    /// The position of entry (i, j) (0-based, i ≤ j < n).
    pub fn index(&self, i: usize, j: usize) -> usize {
        // Rows 0..i hold n + (n−1) + … + (n−i+1) entries.
        i * self.n - i * i.saturating_sub(1) / 2 + (j - i)
    }

    /// The value `left[i][j]` (0-based, i ≤ j < n).
    pub fn left(&self, i: usize, j: usize) -> u64 {
        decode(self.left[self.index(i, j)], self.piles[j])
    }

    /// The value `right[i][j]` (0-based, i ≤ j < n).
    pub fn right(&self, i: usize, j: usize) -> u64 {
        decode(self.right[self.index(i, j)], self.piles[i])
    }
}
