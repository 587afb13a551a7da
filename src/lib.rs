//! stonegame: judge and strategy oracle for the "take stones from either end"
//! game (ZJOI 2009, LOJ 10248, AcWing 1322) and its leftmost-only variant.
//!
//! * [`core`] — the game itself: pure Rust, no I/O, no async;
//! * [`ojformat`] — the online-judge input format, streamed, with positions.

pub mod cli;
pub mod client;
pub mod core;
pub mod judge;
pub mod ojformat;
pub mod service;
pub mod wire;
