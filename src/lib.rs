//! stonegame: judge and strategy oracle for the "take stones from either end"
//! game (ZJOI 2009, LOJ 10248, AcWing 1322) and its leftmost-only variant.
//!
//! * [`core`] — the game itself: pure Rust, no I/O, no async;
//! * [`ojformat`] — the online-judge input format, streamed, with positions;
//! * [`judge`] — the output checker, the test-data generator and the
//!   interactor;
//! * `wire` — the protobuf types and the packing both ends of the gRPC
//!   service share (feature `proto`);
//! * `service` — the gRPC server (feature `service`);
//! * `client` — the Rust client and load tester (feature `client`);
//! * `cli` — the `stonegame` command (feature `cli`).
//!
//! The default features build everything; `--no-default-features` builds the
//! core, the OJ format and the judge only (rayon, rand and thiserror).

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "client")]
pub mod client;
pub mod core;
pub mod judge;
pub mod ojformat;
#[cfg(feature = "cli")]
pub mod package;
#[cfg(feature = "service")]
pub mod service;
#[cfg(feature = "proto")]
pub mod wire;
