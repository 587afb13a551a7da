//! The RPC handlers, one file per RPC ([`solve`], [`tables`], [`suggest`],
//! [`check`], [`generate`], [`play`]), and the door they share: each
//! request decoded and validated into the type its handler works on
//! ([`convert`], [`validate`]), with typed errors mapped to
//! `tonic::Status`.
//!
//! Handlers use [`super::state`] and below, never the edge above them.

pub mod check;
pub mod convert;
pub mod generate;
pub mod play;
pub mod solve;
pub mod suggest;
pub mod tables;
pub mod validate;
