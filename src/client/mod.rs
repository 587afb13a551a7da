//! A Rust client of the `stonegame.v1.StoneGame` service.
//!
//! [`Client::solve`] sends cases in batches over one Solve stream with
//! several batches in flight and yields the results in order;
//! [`Client::suggest`] and [`Client::tables`] wrap the unary and
//! server-streaming RPCs.
