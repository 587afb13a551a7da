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
//!   [`GenSpec`](crate::judge::generate::GenSpec).
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
//!
//! The parts, each importing what it uses from the module that defines it
//! (never from this one, which only re-exports): [`error`]
//! ([`ClientError`]); [`connect`] (how connections are made: endpoint
//! settings, [`TlsOptions`], the bearer token and its interceptor);
//! [`request`] (the Solve cases and Generate requests the client builds);
//! the replicas ([`resolve`], [`replicated`]) over those; [`calls`]
//! ([`Client`] and its calls); [`builder`] ([`ClientBuilder`],
//! [`Client::connect`]); then [`play`] and the load tests ([`load`],
//! [`playload`]) over the client.

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
