//! The gRPC judge service (`stonegame.v1.StoneGame`).
//!
//! * [`pb`] — the generated types, client and server ([`crate::wire`]);
//! * [`config`] — layered configuration (embedded defaults, TOML file,
//!   `STONEGAME_*` environment, flags);
//! * [`convert`] / [`validate`] — the door: each request decoded and
//!   validated into the type its handler works on, with typed errors mapped
//!   to `tonic::Status`;
//! * [`solve`], [`tables`], [`suggest`], [`check`], [`generate`], [`play`]
//!   — the RPCs;
//! * [`state`] — what the RPCs share: limits, the CPU pool and executor,
//!   the budgets and their admission, and the Play sessions' shared parts
//!   (`PlayShared`): the state tokens' key ([`play_token`]) and the row
//!   cache ([`row_cache`]), leaf modules;
//! * [`limits`] — the budgets, concurrency limit and RPCs' cancellation
//!   (tokio-util tokens) [`state`] is made of; [`clients`] — each client's
//!   share of the RPC and Play session limits; [`memory`] — the memory budget's default
//!   size from the container's or the machine's memory;
//! * [`metrics`] — the counters (atomic, and the Prometheus registry) and
//!   the `/metrics` HTTP listener; [`calls`] — the tower layer in front of
//!   the StoneGame RPCs that reads each call's deadline once and counts it;
//! * [`server`] — the transport: building and serving with health,
//!   reflection and graceful shutdown, dispatching to the handlers;
//! * [`transport`] — the HTTP/2 and TCP limits against hostile clients
//!   (`[transport]`), set on the server builder and the accepted sockets;
//! * [`tls`] — TLS and mTLS on the gRPC listener, certificates re-read
//!   when they change; [`auth`] — bearer tokens checked by a tonic
//!   interceptor in front of the StoneGame RPCs; [`reload`] — the polling both re-read their files with;
//! * [`telemetry`] — logging;
//! * [`alloc`] — malloc tuning for processes moving many large messages.
//!
//! Dependencies run one way: [`server`] → the handlers → [`state`] →
//! [`metrics`] → [`limits`] and [`crate::core`]; nothing but the re-exports below and the
//! CLI reaches back into [`server`]. The game itself lives in
//! [`crate::core`]; CPU work runs on a rayon pool, never on the async
//! runtime's threads.

pub mod alloc;
pub mod auth;
pub mod calls;
pub mod check;
pub mod clients;
pub mod config;
pub mod conn_watch;
pub mod convert;
pub mod generate;
pub mod limits;
pub mod memory;
pub mod metrics;
pub mod play;
pub mod play_token;
pub mod reload;
pub mod row_cache;
pub mod server;
pub mod solve;
pub mod state;
pub mod suggest;
pub mod tables;
pub mod telemetry;
pub mod tls;
pub mod tls_failure;
pub mod transport;
pub mod validate;
pub mod web;

/// The generated `stonegame.v1` types, client and server (they live in
/// [`crate::wire::pb`], shared with the client).
pub use crate::wire::pb;

pub use config::{Config, ConfigError, Limits, LogFormat};
pub use metrics::Metrics;
pub use server::{RunningServer, StoneGameService, serve, start};
