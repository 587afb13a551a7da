//! Browsers and plain HTTP on the gRPC port (docs/web.md): the HTTP layers
//! in front of the gRPC services (their settings: the `[web]` table,
//! `config::WebConfig`).
//!
//! From the outside in, a request meets:
//!
//! 1. CORS ([`cors`], [`tower_http::cors`]), only when `web.cors_allowed_origins` lists
//!    origins: preflights answered, `grpc-status`, `grpc-message` and
//!    `retry-after-ms` exposed to the listed origins;
//! 2. the page ([`page`]): `GET /` and `/assets/…` answered from the bundle
//!    built into the binary, unless `web.page = false`;
//! 3. the Connect protocol's unary JSON form ([`connect`]), its body bounded
//!    and its piles counted ([`pile_count`]) as they arrive, turned into a
//!    gRPC call of the same method and back;
//! 4. [`protocol::layer`]: which protocol the call came in
//!    (`metrics::Protocol`, the `protocol` label of the RPC metrics), and a clear
//!    UNIMPLEMENTED for streams gRPC-Web cannot carry;
//! 5. gRPC-Web ([`tonic_web`]), translated to gRPC;
//!
//! and then the gRPC router, where the StoneGame service counts, checks
//! tokens and admits every call the same way whichever protocol it came in.

pub mod answer;
pub mod connect;
pub mod cors;
pub mod page;
pub mod pile_count;
pub mod protocol;

pub use cors::cors;
