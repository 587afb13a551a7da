//! A Rust client of the `stonegame.v1.StoneGame` service.
//!
//! * [`Client`] ([`calls`]): Solve over one stream ([`Client::solve_stream`],
//!   [`Client::solve`], rows sent as `piles_le`: [`solve_case`],
//!   [`pack_case`]) or over every replica ([`Client::solve_batches`]),
//!   SuggestMove, GetTables unpacked ([`TableCodes`]), Check (streamed in
//!   [`CHECK_CHUNK`]-byte chunks), Generate and the health check;
//!   [`Client::play`] and [`Client::resume_play`] ([`play`]);
//! * [`loadtest`] ([`load`], [`playload`]): QPS and latency percentiles of
//!   SuggestMove or of the health check (the floor), closed or open loop,
//!   and bot replies per second in whole Play games.
//!
//! Replicas (docs/replicas.md): `--server` is one URL (one connection), a
//! list of URLs or a `dns:///HOST:PORT` name ([`target`], [`resolve`]);
//! over several replicas unary calls are balanced and retried on
//! UNAVAILABLE, and [`Client::solve_batches`] resends the batches of a
//! replica that fails, answering in input order, each once ([`replicated`],
//! [`schedule`]).
//!
//! Each part imports what it uses from the module that defines it, never
//! from this one, which only re-exports: [`error`], [`connect`] (endpoint
//! settings, [`TlsOptions`], the bearer token), [`request`], the replicas
//! over those, [`calls`], [`builder`] ([`ClientBuilder`]), then [`play`]
//! and the load tests over the client.

pub mod builder;
pub mod calls;
pub mod connect;
pub mod diagnose;
pub mod error;
pub mod goaway;
pub mod load;
pub mod loadspec;
pub mod play;
pub mod playload;
pub mod replicated;
pub mod request;
pub mod resolve;
pub mod schedule;
pub mod target;
pub mod web;

pub use builder::ClientBuilder;
pub use calls::{CHECK_CHUNK, Client, TableCodes};
pub use connect::{AddToken, TlsOptions, Transport, read_token_file};
pub use error::ClientError;
pub use goaway::never_reached_server;
pub use load::{loadtest, loadtest_with};
pub use loadspec::{LoadReport, LoadRpc, LoadSpec, LoadSpecError};
pub use play::{GameSpec, PlayEvent, PlaySession, Seat};
pub use playload::{SelfPlayReport, selfplay, selfplay_with};
pub use replicated::{Notice, SolveOptions, SolveRun};
pub use request::{generate_request, pack_case, solve_case};
pub use resolve::{ReplicaSet, Replicas};
pub use schedule::{ReplicaStats, RetryPolicy};
pub use target::{Source, Target, TargetError};
