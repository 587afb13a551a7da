//! What the server counts and how it is exported (see `docs/metrics.md`):
//! the Prometheus families ([`families`], behind [`Metrics`]), their label
//! values ([`labels`]), the budgets' units and admission's error kinds
//! that both admission and the metrics name ([`units`]), and the
//! `/metrics` HTTP listener ([`listener`]).
//!
//! Metrics use [`super::config`] and the core only; every layer above
//! reaches them.

pub mod families;
pub mod labels;
pub mod listener;
pub mod units;

pub use families::*;
pub use labels::{
    AuthReason, CodeLabel, ConnRefusal, GameStart, HandshakeFailure, Mover, PlayEnd, PlayReject,
    Protocol, ReloadResult, Reloaded, Rpc,
};
