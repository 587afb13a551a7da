//! The RPC handlers, one file per RPC ([`solve`], [`tables`], [`suggest`],
//! [`check`], [`generate`], [`play`]), and the door they share: each
//! request decoded and validated into the type its handler works on
//! ([`convert`], [`validate`]), with typed errors mapped to
//! `tonic::Status`; [`remoteness`] is what SuggestMove and Solve share
//! when a request asks for the remoteness, [`play_remoteness`] the
//! remoteness of a game's positions with analysis.
//!
//! Handlers use [`super::state`] and below, never the edge above them.

pub mod check;
pub mod convert;
pub mod generate;
pub mod play;
pub mod play_remoteness;
pub mod remoteness;
pub mod solve;
pub mod suggest;
pub mod tables;
pub mod validate;
