//! The edge: everything between the network and the RPC handlers. The
//! listener and its transport limits against hostile clients, the
//! connection watch, the request bodies' timeout, TLS and its failures,
//! bearer tokens, the re-reading of
//! their files, the call layer that counts every call, and the HTTP layers
//! for browsers ([`web`]); [`server`] builds it all and serves.
//!
//! The edge calls down into [`super::rpc`] and below; nothing below calls
//! up into it.

pub mod auth;
pub mod calls;
pub mod conn_watch;
pub mod reload;
pub mod request_body;
pub mod server;
pub mod stream_guard;
pub mod tls;
pub mod tls_failure;
pub mod transport;
pub mod web;
