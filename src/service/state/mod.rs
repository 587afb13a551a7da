//! What the RPCs share: the state itself ([`shared`]: limits in force, the
//! CPU pool, the budgets and their admission), the budgets, concurrency
//! limit and cancellation it is made of ([`limits`]), each client's share
//! ([`clients`]), the memory budget's size ([`memory`]), the Play sessions'
//! row cache ([`row_cache`]) and state tokens ([`play_token`]), and malloc
//! tuning ([`alloc`]).
//!
//! The state uses [`super::metrics`], [`super::config`] and the core, never
//! the handlers or the edge above it.

pub mod alloc;
pub mod clients;
pub mod limits;
pub mod memory;
pub mod play_token;
pub mod row_cache;
pub mod shared;

pub use shared::*;
