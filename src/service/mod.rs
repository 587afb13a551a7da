//! The gRPC judge service (`stonegame.v1.StoneGame`).
//!
//! * [`pb`] — the types and the tonic client/server generated from
//!   `proto/stonegame/v1/stonegame.proto`;
//! * [`config`] — layered configuration (embedded defaults, TOML file,
//!   `STONEGAME_*` environment, flags);
//! * [`convert`] / [`validate`] — proto ↔ core types and request validation
//!   at the boundary, with typed errors mapped to `tonic::Status`;
//! * [`solve`], [`tables`], [`suggest`], [`check`], [`generate`] — the RPCs;
//! * [`limits`] — admission control, concurrency limits, cancellation;
//! * [`server`] — building and serving with health, reflection and graceful
//!   shutdown;
//! * [`telemetry`] — logging;
//! * [`alloc`] — malloc tuning for processes moving many large messages.
//!
//! The game itself lives in [`crate::core`]; CPU work runs on a rayon pool,
//! never on the async runtime's threads.

pub mod alloc;
pub mod check;
pub mod config;
pub mod convert;
pub mod generate;
pub mod limits;
pub mod server;
pub mod solve;
pub mod suggest;
pub mod tables;
pub mod telemetry;
pub mod validate;

/// Generated protobuf types, client and server of `stonegame.v1`.
pub mod pb {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    tonic::include_proto!("stonegame.v1");

    /// The encoded file descriptor set of `stonegame.proto` (for reflection).
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/stonegame_descriptor.bin"));
}

pub use config::{Config, ConfigError, Limits, LogFormat};
pub use limits::Metrics;
pub use server::{RunningServer, StoneGameService, serve, start};
