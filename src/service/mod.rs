//! The gRPC judge service (`stonegame.v1.StoneGame`), in five layers, one
//! folder each, from the network down:
//!
//! * [`edge`] — the listener, transport limits, connection watch, TLS, bearer
//!   tokens, the call layer and the HTTP layers for browsers; [`edge::server`]
//!   builds and serves it all;
//! * [`rpc`] — one handler per RPC, with the request conversion and
//!   validation at the door;
//! * [`state`] — what the RPCs share: admission, budgets, client shares,
//!   memory, the row cache and the Play tokens;
//! * [`metrics`] — the counters, their labels and the `/metrics` listener;
//! * [`config`] — the configuration and logging's set-up.
//!
//! Every import between them points down (edge → rpc → state → metrics →
//! config, and from any of them to [`crate::core`], [`crate::wire`] and
//! [`crate::judge`]); none reaches up (`tests/it/service_layers.rs` checks
//! it). The game itself lives in [`crate::core`]; CPU work runs on a rayon
//! pool, never on the async runtime's threads.

pub mod config;
pub mod edge;
pub mod metrics;
pub mod rpc;
pub mod state;

/// The generated `stonegame.v1` types, client and server (they live in
/// [`crate::wire::pb`], shared with the client).
pub use crate::wire::pb;

pub use config::{Config, ConfigError, Limits, LogFormat};
pub use edge::server::{RunningServer, StoneGameService, serve, start};
pub use metrics::Metrics;
